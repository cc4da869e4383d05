# Cross-compiles plegscope for arm64 with Debian's multiarch cross toolchain
# (crossbuild-essential-arm64) against the :arm64 -dev packages installed in
# the same tree, as scripts/build-root prepares it. Multiarch means no
# separate sysroot: the arm64 headers and libraries sit in
# /usr/include/aarch64-linux-gnu and /usr/lib/aarch64-linux-gnu, where the
# cross compiler and CMake's CMAKE_LIBRARY_ARCHITECTURE look. The code
# generators run on the build machine, so protoc and grpc_cpp_plugin are the
# tree's amd64 ones (/usr/bin, from the amd64 protobuf-compiler-grpc).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(PKG_CONFIG_EXECUTABLE /usr/bin/aarch64-linux-gnu-pkg-config CACHE FILEPATH "the cross pkg-config (arm64 .pc files)")
set(Protobuf_PROTOC_EXECUTABLE /usr/bin/protoc CACHE FILEPATH "the build machine's protoc")
# The build tree holds no amd64 -dev package (only the amd64 runtime
# libraries protoc needs), so a library or package config found is an arm64 one.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
