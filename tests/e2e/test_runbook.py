#!/usr/bin/env python3
"""The runbook's node-side commands against a real containerd frozen with SIGSTOP.

Reads every fenced block marked `sh node` in docs/runbook.md. In a block, a
line ending in `# within N s; hung runtime: exit A; answering: exit B` is a
command with its stated bound and outcomes (read from the runbook, never
copied here); every other line is setup (`set`, an assignment, a function)
run before each command of its block. A line that is neither fails the test:
every node-side command states its bound.

The socket, the runtime's task dir and the ids are substituted for those of
the private containerd of containerd_fixture.py, which runs a pod with one
running and one exited container. Then:

  * frozen: containerd and the pod's shim are stopped with SIGSTOP; each
    command must return within its bound and exit as the runbook says for a
    hung runtime. Each runs under strace, and none may open another process's
    /proc/PID/cmdline or environ (the read that blocks behind a process in D).
  * answering: SIGCONT; each command again, exiting as the runbook says for a
    runtime that answers.
  * targets: what the commands resolve is checked against the fixture's own
    knowledge: the sandbox dir of the pod by name, the sandbox of a container,
    the shim's pid (the fixture finds it by the shim's `-id` argument), a
    thread in D (a vfork parent, made here) in `threads D`, zombies by parent,
    the exited container (and not the running one) in the cleanup's id list.
  * commands that change the node: the runtime's goroutine dump is asked for
    while containerd is frozen (its dump must appear in its log once resumed):
    the runbook has systemd send SIGUSR1 to the unit's main process; the
    private containerd is no unit, so `kill -USR1 <its pid>` stands in for
    that `systemctl kill` (the one substitution of a command, not a value).
    `kill -KILL <shim-pid>` is run last on the private pod's shim, which must
    then be gone, and containerd must see the pod's running container exit.
  * crictl commands need crictl, which Debian 12 does not package: the one
    scripts/build-cluster-parts builds from its Go module is used; where it is
    missing they are checked for a `--timeout` of at most their stated bound
    and for syntax (`bash -n`) only, and the test says how many were not run.

Exit 77 (skip) only when this machine cannot run containers."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import containerd_fixture  # noqa: E402
from containerd_fixture import Containerd, DriverError, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, log  # noqa: E402

RUNBOOK = os.path.join(harness.source_dir(), "docs", "runbook.md")


def _crictl_on_path():
    """Debian 12 packages no crictl: the one scripts/build-cluster-parts built
    from its Go module (tests/cluster/versions.env) goes on PATH when the
    machine has none of its own."""
    if shutil.which("crictl"):
        return
    sys.path.insert(0, os.path.join(harness.source_dir(), "tests", "cluster"))
    import parts  # noqa: E402  tests/cluster
    path = parts.crictl()
    if path:
        os.environ["PATH"] = os.path.dirname(path) + os.pathsep + os.environ.get("PATH", "")


_crictl_on_path()
# The runbook's `ctr` is the node's own: the test bed's (containerd_fixture.bed())
# first on PATH, so a 2.3 bed is asked by its own ctr, not Debian's 1.6 one.
os.environ["PATH"] = containerd_fixture.bed_path()
ANNOTATION = re.compile(r"^(?P<cmd>.*?)\s+#\s*within (?P<bound>\d+) s; hung runtime: exit (?P<hung>\d+(?: or \d+)*); "
                        r"answering: exit (?P<up>\d+(?: or \d+)*)\s*$")
SETUP = re.compile(r"^(set -o \w+|export \w+=\S+|\w+=\S.*|\w+\(\) \{.*\})$")
FOREIGN_PROC_READ = re.compile(r'"/proc/[0-9]+/(?:task/[0-9]+/)?(cmdline|environ)"')
POD_NAME = "web-1"
POD_NAMESPACE = "plegscope-e2e"  # what cri-driver run-pod sets
SYSTEMD_KILL = "systemctl kill --kill-who=main -s USR1 containerd"
VFORK_C = r"""
#include <signal.h>
#include <unistd.h>
/* The parent waits in vfork (state D) until the child, stopped, is killed. */
int main(void) { pid_t p = vfork(); if (p == 0) { raise(SIGSTOP); _exit(0); } return 0; }
"""


class Command:
    def __init__(self, block, line, text, bound, hung, up):
        self.block, self.line, self.text = block, line, text
        self.bound = int(bound)
        self.hung = {int(x) for x in hung.split(" or ")}
        self.up = {int(x) for x in up.split(" or ")}

    def __repr__(self):
        return "runbook.md:%d: %s" % (self.line, self.text)


def node_blocks(markdown):
    """[(first line number, [lines])] of every ```sh node block."""
    blocks, current, start = [], None, 0
    for n, line in enumerate(markdown.splitlines(), 1):
        if current is None and line.strip() == "```sh node":
            current, start = [], n + 1
        elif current is not None and line.strip() == "```":
            blocks.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    assert current is None, "runbook.md:%d: a ```sh node block is not closed" % start
    return blocks


def parse(markdown):
    """(setup lines per block, commands); raises on a line with no stated bound."""
    setups, commands, problems = [], [], []
    for b, (start, lines) in enumerate(node_blocks(markdown)):
        setup = []
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            m = ANNOTATION.match(line)
            if m:
                commands.append(Command(b, start + i, m["cmd"].strip(), m["bound"], m["hung"], m["up"]))
            elif SETUP.match(line.strip()):
                setup.append(line.strip())
            else:
                problems.append("runbook.md:%d: neither setup nor a command with its bound: %s" % (start + i, line))
        setups.append(setup)
    assert not problems, "\n".join(problems)
    return setups, commands


Ctx = E2eContext(ctd=None, sid=None, cid_running=None, cid_exited=None, shim=None, scratch=None,
                 setups=None, commands=None,
                 frozen={},  # line -> (rc, seconds, stdout)
                 answering={}, vfork=None, zombie=None)


def substitutions():
    c = Ctx.ctd
    return [(SYSTEMD_KILL, "kill -USR1 %d" % c.proc.pid),
            ("/run/containerd/io.containerd.runtime.v2.task", os.path.join(c.state, "io.containerd.runtime.v2.task")),
            ("/run/containerd/containerd.sock", c.sock),
            ("<pod-name>", POD_NAME), ("<namespace>", POD_NAMESPACE),
            ("<sandbox-id>", Ctx.sid), ("<container-id>", Ctx.cid_running),
            ("<shim-pid>", str(Ctx.shim)), ("<pid>", str(Ctx.vfork.pid))]


def substituted(text):
    for a, b in substitutions():
        text = text.replace(a, b)
    return text


def script(cmd):
    return "\n".join(substituted(s) for s in Ctx.setups[cmd.block]) + "\n" + substituted(cmd.text) + "\n"


def runs_crictl(cmd):
    return re.search(r"(^|[|;(\s])crictl\s", cmd.text) is not None


def run(cmd, trace_path=None):
    """(exit status, seconds, stdout) of the command in bash, in the scratch dir."""
    argv = ["bash", "-c", script(cmd)]
    if trace_path:
        argv = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", trace_path] + argv
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, cwd=Ctx.scratch, capture_output=True, text=True, timeout=cmd.bound + 30)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, ""
    return r.returncode, time.monotonic() - t0, r.stdout


def start():
    if Ctx.ctd is not None:
        return
    skip_if(skip_reason())
    harness.require_tool("strace")
    harness.require_tool("jq")
    harness.require_binary("cri-driver")
    with open(RUNBOOK) as f:
        Ctx.setups, Ctx.commands = parse(f.read())
    Ctx.scratch = tempfile.mkdtemp(prefix="runbook-")
    Ctx.ctd = Containerd(BUILD_DIR)
    Ctx.ctd.start()
    for name, tarball in oci_image.build_e2e_images(os.path.join(Ctx.ctd.tmp, "images")).items():
        Ctx.ctd.import_image(tarball)
    Ctx.sid = Ctx.ctd.driver("run-pod", POD_NAME, "uid-" + POD_NAME)
    Ctx.cid_running = Ctx.ctd.driver("create-container", Ctx.sid, "server", oci_image.WORKLOAD_IMAGE, "/workload", "-1")
    Ctx.ctd.driver("start-container", Ctx.cid_running)
    Ctx.cid_exited = Ctx.ctd.driver("create-container", Ctx.sid, "job", oci_image.WORKLOAD_IMAGE, "/workload", "0", "3")
    Ctx.ctd.driver("start-container", Ctx.cid_exited)
    harness.wait_until(lambda: Ctx.ctd.container_status(Ctx.cid_exited)["state"] == "exited", 30, "the job to exit")
    shims = [pid for pid, ns, sid in Ctx.ctd.shim_pids() if sid == Ctx.sid]
    assert len(shims) == 1, "the pod's shim, by its -id argument: %s" % Ctx.ctd.shim_pids()
    Ctx.shim = shims[0]
    Ctx.vfork = start_vfork_parent()
    Ctx.zombie = subprocess.Popen(["true"])  # never waited for: a zombie whose parent is this test
    harness.wait_until(lambda: proc_state(Ctx.zombie.pid) == "Z", 10, "a zombie child")
    log("pod %s sandbox %s, running %s, exited %s, shim %d, vfork parent in D %d, zombie %d"
        % (POD_NAME, Ctx.sid[:12], Ctx.cid_running[:12], Ctx.cid_exited[:12], Ctx.shim, Ctx.vfork.pid,
           Ctx.zombie.pid))


def proc_state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(") ", 1)[1].split()[0]


def gone(pid):
    try:
        return proc_state(pid) == "Z"
    except FileNotFoundError:
        return True


def start_vfork_parent():
    src = os.path.join(Ctx.scratch, "vfork.c")
    exe = os.path.join(Ctx.scratch, "vfork")
    with open(src, "w") as f:
        f.write(VFORK_C)
    subprocess.run(["gcc", "-O0", "-o", exe, src], check=True)
    p = subprocess.Popen([exe])
    harness.wait_until(lambda: proc_state(p.pid) == "D", 10, "the vfork parent in D")
    return p


def stop_vfork_parent():
    if Ctx.vfork is None:
        return
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(") ", 1)[1].split()[1]) == Ctx.vfork.pid:
                        os.kill(int(d), signal.SIGKILL)
            except (OSError, IndexError, ValueError):
                pass
    Ctx.vfork.wait(timeout=10)


def check_outcome(cmd, rc, seconds, expected, phase, problems):
    if rc is None:
        problems.append("%r (%s): still running %.0f s after its stated bound of %d s" % (cmd, phase, seconds - cmd.bound,
                                                                                         cmd.bound))
        return
    log("  %-9s exit %3d in %5.2fs (bound %3d s, runbook says exit %s): %s"
        % (phase, rc, seconds, cmd.bound, " or ".join(map(str, sorted(expected))), cmd.text[:90]))
    if seconds > cmd.bound:
        problems.append("%r (%s): took %.1f s, over its stated bound of %d s" % (cmd, phase, seconds, cmd.bound))
    if rc not in expected:
        problems.append("%r (%s): exit %d, the runbook says %s" % (cmd, phase, rc, sorted(expected)))


def runnable(cmd):
    return (not runs_crictl(cmd) or shutil.which("crictl")) and not cmd.text.startswith("kill -KILL")


# ------------------------------------------------------------------ tests


def test_every_node_side_command_states_its_bound():
    with open(RUNBOOK) as f:
        setups, commands = parse(f.read())
    assert len(commands) >= 15, "too few node-side commands found: %d" % len(commands)
    for b, setup in enumerate(setups):
        block = "\n".join(setup + [c.text for c in commands if c.block == b])
        # Placeholders (<shim-pid>) read as redirections to bash: a word stands in.
        r = subprocess.run(["bash", "-n", "-c", re.sub(r"<[a-z-]+>", "PLACEHOLDER", block)],
                           capture_output=True, text=True)
        assert r.returncode == 0, "block %d does not parse: %s\n%s" % (b, r.stderr, block)
    for c in commands:
        # A bare `ps`, `pgrep`, `pidof` or `pkill` reads every process's cmdline.
        assert not re.search(r"(^|[|;]\s*|\$\(|timeout \d+ )(ps|pgrep|pidof|pkill|top)\b", c.text), \
            "%r runs procps" % c
        for call in re.findall(r"crictl\s[^|;]*", c.text):
            m = re.search(r"--timeout (\d+)s", call)
            assert m, "%r: crictl without --timeout (its default is 2 s)" % c
            assert int(m.group(1)) <= c.bound, "%r: crictl's --timeout is over the stated bound" % c
        for call in re.findall(r"\bctr\s[^|;]*", c.text):
            assert "--connect-timeout" in call, "%r: ctr without --connect-timeout (its dial waits 10 s)" % c
    log("%d node-side commands in %d blocks, each with its bound" % (len(commands), len(setups)))


def test_commands_return_within_their_bounds_on_a_frozen_containerd():
    start()
    problems, not_run = [], [c for c in Ctx.commands if not runnable(c)]
    os.kill(Ctx.ctd.proc.pid, signal.SIGSTOP)
    os.kill(Ctx.shim, signal.SIGSTOP)
    try:
        harness.wait_until(lambda: proc_state(Ctx.ctd.proc.pid) == "T", 10, "containerd stopped")
        for cmd in Ctx.commands:
            if not runnable(cmd):
                continue
            trace = os.path.join(Ctx.scratch, "trace-%d" % cmd.line)
            rc, seconds, out = run(cmd, trace)
            Ctx.frozen[cmd.line] = (rc, seconds, out)
            check_outcome(cmd, rc, seconds, cmd.hung, "hung", problems)
            with open(trace) as f:
                reads = sorted(set(m.group(0) for m in FOREIGN_PROC_READ.finditer(f.read())))
            if reads:
                problems.append("%r reads %d other processes' cmdline/environ, e.g. %s" % (cmd, len(reads), reads[:3]))
    finally:
        os.kill(Ctx.shim, signal.SIGCONT)
        os.kill(Ctx.ctd.proc.pid, signal.SIGCONT)
    for cmd in not_run:
        log("  not run frozen: %r (%s)" % (cmd, "kills the shim: run last" if cmd.text.startswith("kill -KILL")
                                        else "crictl is not installed: checked for its --timeout and syntax only"))
    assert not problems, "\n".join(problems)


def test_commands_succeed_once_containerd_answers():
    start()
    problems = []
    harness.wait_until(answers, 30, "containerd answering")
    for cmd in Ctx.commands:
        if runnable(cmd):
            rc, seconds, out = run(cmd)
            Ctx.answering[cmd.line] = (rc, seconds, out)
            check_outcome(cmd, rc, seconds, cmd.up, "answering", problems)
    assert not problems, "\n".join(problems)


def answers():
    try:
        Ctx.ctd.driver("version", timeout=5)
        return True
    except DriverError:
        return False


def output_of(fragment):
    lines = [c.line for c in Ctx.commands if fragment in c.text]
    assert len(lines) == 1, "one runbook command with %r, found %d" % (fragment, len(lines))
    return Ctx.answering[lines[0]][2]


def test_commands_resolve_the_right_targets():
    start()
    tasks = os.path.join(Ctx.ctd.state, "io.containerd.runtime.v2.task", "k8s.io")
    # The pod's sandbox by its name, the sandbox of a running container, the shim.
    assert output_of("sandbox-name").split() == [os.path.join(tasks, Ctx.sid, "config.json")], \
        output_of("sandbox-name")
    assert Ctx.sid in output_of("io.kubernetes.cri.sandbox-id"), output_of("io.kubernetes.cri.sandbox-id")
    shim = output_of("init.pid").strip()
    assert shim == str(Ctx.shim), "the runbook finds shim %s; the shim started with -id %s is %d" % (
        shim, Ctx.sid, Ctx.shim)
    # Threads in D: the vfork parent; zombies by parent: this test.
    d_lines = [l.split() for l in output_of("threads D").splitlines()]
    assert [str(Ctx.vfork.pid), "D"] in [[l[0], l[3]] for l in d_lines if len(l) > 3], output_of("threads D")
    assert any(l.split()[1:] == [str(os.getpid())] for l in output_of("threads Z").splitlines()), \
        output_of("threads Z")
    assert int(output_of("threads | wc -l").strip()) >= 2
    # The cleanup's list: the exited container, never the running one nor the sandbox.
    exited = subprocess.run(["comm", "-23", "all.ids", "running.ids"], cwd=Ctx.scratch, capture_output=True,
                            text=True, check=True).stdout.split()
    assert exited == [Ctx.cid_exited], "comm -23 all.ids running.ids: %s (exited %s, running %s)" % (
        exited, Ctx.cid_exited, Ctx.cid_running)
    # The goroutine dump asked for while containerd was frozen, written once it ran.
    harness.wait_until(lambda: "goroutine stack dump" in Ctx.ctd.log_tail(100000), 20,
                       "containerd's goroutine dump in its log")


def test_killing_the_shim_found_by_sandbox_id():
    start()
    kills = [c for c in Ctx.commands if c.text.startswith("kill -KILL")]
    assert len(kills) == 1, kills
    assert "<shim-pid>" in kills[0].text
    rc, seconds, _ = run(kills[0])
    problems = []
    check_outcome(kills[0], rc, seconds, kills[0].up, "answering", problems)
    assert not problems, "\n".join(problems)
    harness.wait_until(lambda: gone(Ctx.shim), 10, "the shim gone")
    harness.wait_until(lambda: Ctx.ctd.container_status(Ctx.cid_running)["state"] == "exited", 30,
                       "containerd to see the container of the killed shim exit")


def teardown():
    stop_vfork_parent()
    if Ctx.zombie is not None:
        Ctx.zombie.wait()
    ctd = Ctx.end_runtime("ctd")
    if Ctx.scratch:
        shutil.rmtree(Ctx.scratch, ignore_errors=True)
    return ctd


def test_zz_teardown_leaves_nothing():
    """The helpers made here and the private containerd are gone."""
    if Ctx.ctd is None:
        raise harness.Skip("containerd was not started")
    made = {"vfork parent": Ctx.vfork.pid, "zombie": Ctx.zombie.pid, "shim": Ctx.shim, "containerd": Ctx.ctd.proc.pid}
    ctd = teardown()
    for what, pid in made.items():
        # A dead shim is reaped by init, whenever this machine's init gets to it.
        assert gone(pid), "%s pid %d left" % (what, pid)
    assert not os.path.exists(ctd.tmp), "%s left" % ctd.tmp
    assert not os.path.exists(Ctx.scratch), "%s left" % Ctx.scratch


if __name__ == "__main__":
    try:
        harness.main(globals())
    finally:  # if the teardown test did not run (a selection, an interrupt)
        teardown()
