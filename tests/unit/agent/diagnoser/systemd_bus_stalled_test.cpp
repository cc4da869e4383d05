// systemd_bus_stalled: the system bus daemon stopped (or in D) while a runc
// started by a shim waits past the hang threshold, as the host scan sees it
// on a real cgroup v2 node (tests/vm dbus_stopped): named with the daemon,
// its state and the waiting helper's pod, advice none (the runtime is fine);
// never before the threshold, never a container's init, never under the
// cgroupfs driver, never a restart of the runtime.
#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";

host::HelperProcess helper(int64_t pid, const std::string& comm, const std::string& role, double age,
                           char state = 'S') {
  host::HelperProcess h;
  h.pid = pid;
  h.ppid = 2000;
  h.comm = comm;
  h.role = role;
  h.state = state;
  h.age_seconds = age;
  h.sandbox_id = kSandbox;
  return h;
}

// dbus-daemon stopped `stalled` seconds ago, `runc create` under the
// sandbox's shim started `waiting` seconds ago (none when negative).
Builder bus_stopped(double stalled, double waiting, char state = 'T') {
  Builder b;
  host::HostEvidence h;
  h.processes.total = 200;
  h.cgroup_v2.mode = "unified";
  h.cgroup_v2.driver = "systemd";
  h.processes.helpers.push_back(helper(900, "containerd", "daemon", 3600));
  h.processes.helpers.push_back(helper(2000, "containerd-shim", "shim", 3600));
  if (waiting >= 0) h.processes.helpers.push_back(helper(3100, "runc", "oci_runtime", waiting));
  h.system_bus.daemons.push_back({600, "dbus-daemon", state, state != 'S', stalled});
  b.s.host = h;
  return b;
}

TEST(SystemdBusStalled, AStoppedBusWithARuncWaitingPastTheThresholdIsAWarning) {
  Builder b = bus_stopped(12, 11);
  b.s.pods_by_sandbox[kSandbox] = {"plegscope-vm", "late-0", "", kSandbox, ""};
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kSystemdBusStalled);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_EQ(c->advice, Advice::kNone) << "the runtime is fine: nothing of it to restart";
  ASSERT_EQ(c->pods.size(), 1u);
  EXPECT_EQ(c->pods[0].name, "late-0");
  EXPECT_NE(c->summary.find("dbus-daemon (pid 600)"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("stopped by a signal (state T)"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("runc (pid 3100)"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("plegscope-vm/late-0"), std::string::npos) << c->summary;
  ASSERT_EQ(c->evidence.size(), 2u);
  EXPECT_EQ(c->evidence[0].signal, "bus_stalled_seconds{pid=600,comm=dbus-daemon,state=T}");
  EXPECT_DOUBLE_EQ(c->evidence[0].value, 12);
  EXPECT_EQ(c->evidence[1].signal, "helper_waiting_seconds{pid=3100,comm=runc,sandbox=4c5d6e7f8a9b}");
  EXPECT_DOUBLE_EQ(c->evidence[1].value, 11);
  EXPECT_EQ(c->evidence[1].threshold, std::optional<double>(10));
  EXPECT_NE(c->action.find("kill -CONT 600"), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("never restart the runtime"), std::string::npos) << c->action;
  EXPECT_NE(c->remedy.find("kill -CONT <pid>"), std::string::npos) << c->remedy;
  EXPECT_NE(c->summary.find("starting pod plegscope-vm/late-0"), std::string::npos) << c->summary;
  EXPECT_FALSE(find(r, CauseId::kShimHung)) << "a helper waiting in S is not a helper in D";
  EXPECT_FALSE(find(r, CauseId::kRuntimeHung));
}

TEST(SystemdBusStalled, TheWaitIsMeasuredAgainstTheThreshold) {
  EXPECT_TRUE(find(bus_stopped(12, 10.5).report(), CauseId::kSystemdBusStalled));
  // Just below: a runc younger than the threshold is a start in progress,
  // and the bus stalled for less than it names nothing either.
  EXPECT_FALSE(find(bus_stopped(9.5, 9.5).report(), CauseId::kSystemdBusStalled));
  DiagnoserThresholds t;
  t.hang_seconds = 5;  // the VM's --hang-threshold
  auto c = find(bus_stopped(9.5, 9.5).report(t), CauseId::kSystemdBusStalled);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  // The sandbox being made is not the PLEG's yet: named by its id.
  EXPECT_NE(c->summary.find("starting the pod with sandbox 4c5d6e7f8a9b"), std::string::npos) << c->summary;
}

TEST(SystemdBusStalled, ARunningBusNamesNothingHoweverOldTheRunc) {
  Builder b = bus_stopped(0, 300, 'S');
  EXPECT_FALSE(find(b.report(), CauseId::kSystemdBusStalled));
  Builder none = bus_stopped(60, 300);
  none.s.host->system_bus.daemons.clear();  // no system bus on this node
  EXPECT_FALSE(find(none.report(), CauseId::kSystemdBusStalled));
  Builder blind;
  EXPECT_FALSE(find(blind.report(), CauseId::kSystemdBusStalled)) << "no host scan: nothing to judge";
}

TEST(SystemdBusStalled, AContainersInitIsNoBusClient) {
  Builder b = bus_stopped(5, -1);
  b.s.host->processes.helpers.push_back(helper(3200, "runc:[2:INIT]", "oci_runtime", 600));
  auto c = find(b.report(), CauseId::kSystemdBusStalled);
  EXPECT_FALSE(c) << "runc's init waits for its start by design; the bus stalled 5 s only";
}

TEST(SystemdBusStalled, TheCgroupfsDriverNeverAsksTheBus) {
  Builder b = bus_stopped(60, 50);
  b.s.host->cgroup_v2.driver = "cgroupfs";
  EXPECT_FALSE(find(b.report(), CauseId::kSystemdBusStalled));
}

TEST(SystemdBusStalled, AStalledBusWithNoStartWaitingIsAnInfoPastTheThreshold) {
  EXPECT_FALSE(find(bus_stopped(9.5, -1).report(), CauseId::kSystemdBusStalled));
  const Report r = bus_stopped(10.5, -1).report();
  const Cause* c = find(r, CauseId::kSystemdBusStalled);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kInfo);
  EXPECT_NE(c->summary.find("the next pod or container start will"), std::string::npos) << c->summary;
  ASSERT_EQ(c->evidence.size(), 1u);
}

TEST(SystemdBusStalled, EachStateHasItsOwnFix) {
  auto traced = find(bus_stopped(20, 15, 't').report(), CauseId::kSystemdBusStalled);
  ASSERT_TRUE(traced);
  EXPECT_NE(traced->action.find("TracerPid /proc/600/status"), std::string::npos) << traced->action;
  const Report in_d = bus_stopped(20, 15, 'D').report();
  const Cause* d = find(in_d, CauseId::kSystemdBusStalled);
  ASSERT_TRUE(d);
  EXPECT_NE(d->summary.find("uninterruptible sleep (state D)"), std::string::npos) << d->summary;
  EXPECT_NE(d->action.find("/proc/600/stack"), std::string::npos) << d->action;
  EXPECT_EQ(d->action.find("kill -CONT"), std::string::npos) << d->action;
}

}  // namespace
}  // namespace plegscope::testing
