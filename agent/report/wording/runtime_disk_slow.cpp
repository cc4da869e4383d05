// The words of runtime_disk_slow: the disk under the runtime's
// root is slow or saturated, behind slow or hung runtime calls.
#include "diagnoser/rules/runtime_disk_slow.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const RuntimeDiskSlowDetails& d = f.details<RuntimeDiskSlowDetails>();
  CauseWords w;
  w.reason = "the disk under the runtime's root (" + (d.device.empty() ? std::string("unknown device") : d.device) +
             (d.mount.empty() ? "" : ", mounted at " + d.mount) + ") takes " + text::fmt("%.0f", d.latency_ms) +
             " ms per IO and is busy " + text::fmt("%.0f", d.utilization * 100) + "% of the time";
  w.action = "find what saturates the runtime's disk";
  w.summary = "The runtime's disk is slow: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## runtime_disk_slow
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording runtime_disk_slow_wording = {
  {"`timeout 5 df {state_dir}` and `timeout 5 findmnt -T {state_dir}` name the device; `timeout 10 iostat -x 1 "
   "5 <device>` shows `r_await` / `w_await` (ms per IO; above 100 ms is slow) and `%util`; `timeout 10 pidstat "
   "-d 1 5` shows who writes; `cat /proc/pressure/io`. `timeout 10 dmesg | grep -iE 'I/O error|timeout|reset'` "
   "for a failing disk.",
   "Move the IO off the runtime's disk: container logs and emptyDir volumes of a noisy pod, image pulls in "
   "bulk, a backup or scan job. Give the runtime's root its own faster disk, or raise the volume's IOPS (cloud "
   "volumes throttle at their provisioned IOPS and burst credits). Replace a failing disk.",
   "Restart the runtime for a slow disk: it comes back to the same disk and its restart adds IO. Do not prune "
   "images during the stall."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
