"""Writes private systemd journal files for tests, without a running journald:
entries in the journal export format piped into
`systemd-journal-remote -o DIR/NAME.journal -` (Debian systemd-journal-remote),
as tests/journal/journal_writer.h does for the C++ tests.

    entry = unit_entry(time.time(), "kubelet.service", KUBELET_PLEG_LINE)
    write_journal(os.path.join(d, "system.journal"), [entry])
"""

import os
import subprocess

import harness

# The kubelet's line when its PLEG health check fails, as klog writes it
# (kubelet.go's syncLoop: "Skipping pod synchronization" with the runtime
# state's error, runtime_state.go: "PLEG is not healthy: ...").
KUBELET_PLEG_LINE = ('E1124 05:00:00.000000    1234 kubelet.go:2345] "Skipping pod synchronization" '
                     'err="PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s"')

_BOOT_ID = "2d3c9c5ba1e44d1f8a4d0c1e7f6a5b40"
_MACHINE_ID = "6e1b1c2c0a6d4f0f9b3e8a7d5c4b3a21"

# systemd's catalog ids (sd-messages.h) for a unit's start and stop jobs.
MESSAGE_ID_UNIT_STARTED = "39f53479d3a045ac8e11786248231fbf"
MESSAGE_ID_UNIT_STOPPING = "de5b426a63be47a7b6ac3eaac82e2f6f"
MESSAGE_ID_UNIT_STOPPED = "9d1aaa27d60140bd96365438aad20286"


def journal_remote():
    """The tool's path; a skip (a failure under CI) when it is not installed."""
    for path in ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote"):
        if os.access(path, os.X_OK):
            return path
    if harness.under_ci():
        raise AssertionError("systemd-journal-remote is not installed (Debian systemd-journal-remote)")
    raise harness.Skip("systemd-journal-remote is not installed (Debian systemd-journal-remote)")


def unit_entry(unix_seconds, systemd_unit, message, pid="1234", extra=()):
    """One entry written by `systemd_unit` at `unix_seconds`."""
    usec = int(unix_seconds * 1e6)
    fields = [("__REALTIME_TIMESTAMP", str(usec)),
              ("__MONOTONIC_TIMESTAMP", str(max(1, usec - 1_700_000_000_000_000))),
              ("_BOOT_ID", _BOOT_ID), ("_MACHINE_ID", _MACHINE_ID), ("_HOSTNAME", "node-1"),
              ("_PID", pid), ("_SYSTEMD_UNIT", systemd_unit), ("PRIORITY", "6"), ("MESSAGE", message)]
    return fields + list(extra)


def kernel_entry(unix_seconds, message, priority="3"):
    """One kernel line as journald's kernel transport stores it (read from
    /dev/kmsg: one printk record per entry, no unit, no _PID)."""
    usec = int(unix_seconds * 1e6)
    mono = max(1, usec - 1_700_000_000_000_000)
    return [("__REALTIME_TIMESTAMP", str(usec)), ("__MONOTONIC_TIMESTAMP", str(mono)),
            ("_BOOT_ID", _BOOT_ID), ("_MACHINE_ID", _MACHINE_ID), ("_HOSTNAME", "node-1"),
            ("_TRANSPORT", "kernel"), ("SYSLOG_IDENTIFIER", "kernel"), ("SYSLOG_FACILITY", "0"),
            ("_SOURCE_MONOTONIC_TIMESTAMP", str(mono)), ("PRIORITY", priority), ("MESSAGE", message)]


def kernel_report(unix_seconds, lines):
    """A kernel report printed at `unix_seconds`, one entry per line, 50 µs apart."""
    return [kernel_entry(unix_seconds + i * 50e-6, line) for i, line in enumerate(lines)]


def manager_entry(unix_seconds, unit, message, message_id, job_type="start"):
    """PID 1's line about `unit` (UNIT=, MESSAGE_ID=), as systemd logs a job's result."""
    return unit_entry(unix_seconds, "init.scope", message, pid="1",
                      extra=[("SYSLOG_IDENTIFIER", "systemd"), ("UNIT", unit), ("MESSAGE_ID", message_id),
                             ("JOB_TYPE", job_type), ("JOB_RESULT", "done")])


def _export(entries):
    out = bytearray()
    for entry in entries:
        for name, value in entry:
            data = value.encode()
            if any(b < 0x20 and b != 0x09 for b in data):
                out += name.encode() + b"\n" + len(data).to_bytes(8, "little") + data + b"\n"
            else:
                out += name.encode() + b"=" + data + b"\n"
        out += b"\n"
    return bytes(out)


def write_journal(path, entries):
    """Appends `entries` to the journal file `path` (created when missing)."""
    tool = journal_remote()
    subprocess.run([tool, "-o", path, "-"], input=_export(entries), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
