// --kernel-stacks in a build without libbpf, bpftool or clang: the reader is
// never available, and says so.
#include "host/kernel_stacks.h"

namespace plegscope::host {

bool kernel_stacks_built() { return false; }

KernelStackReaderOpen open_kernel_stack_reader(const std::string&, const std::string&) {
  KernelStackReaderOpen out;
  out.unavailable =
      "this plegscope was built without BPF support (libbpf-dev, bpftool and clang were not all "
      "found at build "
      "time, or the build machine's kernel had no BTF to generate vmlinux.h from)";
  return out;
}

}  // namespace plegscope::host
