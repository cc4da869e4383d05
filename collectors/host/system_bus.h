#pragma once
// The system bus daemon as /proc shows it. With the systemd cgroup driver,
// runc and crun ask systemd for every container's scope (StartTransientUnit)
// through the system bus, dbus-daemon or dbus-broker, with no deadline on
// the call: a bus daemon that cannot run holds every container start. Pure.
#include <string_view>

namespace plegscope::host {

// A comm that is a bus daemon: "dbus-daemon", or dbus-broker's broker
// ("dbus-broker"; its launcher "dbus-broker-lau" routes no message).
bool bus_daemon_comm(std::string_view comm);

// Whether /proc/<pid>/cgroup puts the process in systemd's system.slice,
// where the system bus runs (dbus.service, dbus-broker.service); a session
// bus runs under user.slice. Any hierarchy's line counts (cgroup v1's
// name=systemd too), and a path seen from another cgroup namespace
// ("/../../system.slice/dbus.service") as well.
bool in_system_slice(std::string_view proc_cgroup);

// A state in which the bus daemon answers nothing: stopped by a signal (T),
// by a tracer (t), or in uninterruptible sleep (D).
bool bus_state_stalled(char state);

}  // namespace plegscope::host
