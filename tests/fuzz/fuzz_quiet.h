#pragma once
// Fuzz targets run the agent's code millions of times: its logging would
// be nearly all the time spent (and all the output), so it is switched off.
#include <spdlog/spdlog.h>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}
