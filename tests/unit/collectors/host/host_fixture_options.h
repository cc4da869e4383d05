// The HostScanner options every test over a fixture tree of
// tests/fixtures/host uses: the tree's proc and sys, its clock ticks (100 in
// every tree), and a cmdline wait long enough that a fixture read never
// times out (they never block: the scan returns once all are read).
#pragma once
#include <chrono>
#include <string>

#include "host/host_scanner.h"

namespace plegscope::host {

inline HostScanOptions fixture_tree_options(const std::string& root) {
  using namespace std::chrono_literals;
  HostScanOptions o;
  o.proc_path = root + "/proc";
  o.sys_path = root + "/sys";
  o.clock_ticks_per_second = 100;
  o.cmdline_options.wait = 5s;
  return o;
}

}  // namespace plegscope::host
