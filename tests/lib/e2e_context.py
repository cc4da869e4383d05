"""What the steps of one e2e test share, in one shape for every e2e test:
the runtime its setup started (under the name the test gives it: `ctd`,
`crio`, `ctds`), the agent of the running step, the pods it made, the
background CRI calls left waiting, a pids cgroup it made, and whatever else
the test names. One per test module, made at import:

    Ctx = E2eContext(ctd=None, freezer=None)

and its fields read and set as before (`Ctx.ctd`, `Ctx.agent`,
`Ctx.pods[name]`). The steps of a module run in order in one process and
carry the context over; teardown() of the module ends what it holds."""

import os
import subprocess

import harness

# The root of the cgroup v1 pids hierarchy (a pids cgroup the test makes is
# under it, and what it held goes back there).
PIDS = "/sys/fs/cgroup/pids"


def cause(rep, cid):
    """The cause `cid` of a /diagnose report, or None."""
    return next((c for c in rep["causes"] if c["id"] == cid), None)


def skip_if(reason, prefix=""):
    """Skips the test when `reason` (a fixture's skip_reason()) says why it cannot run here."""
    if reason:
        raise harness.Skip(prefix + reason)


class E2eContext:
    def __init__(self, **fields):
        self.agent = None
        self.pods = {}          # name -> what the test keeps of the pod
        self.calls = []         # (what, Popen): background CRI calls
        self.pids_cgroup = None
        self.__dict__.update(fields)

    def report(self):
        return self.agent.json("/diagnose")

    def wait_cause(self, cid, holds, timeout, what):
        """(report, cause) once the report names `cid` and holds(rep, c)."""
        def named():
            rep = self.report()
            c = cause(rep, cid)
            return c and holds(rep, c) and (rep, c)
        return harness.wait_until(named, timeout, what)

    def background_call(self, runtime, *args):
        """A cri-driver call on `runtime` left running (it may hang): ended
        by end_calls(), waited for by wait_calls()."""
        p = subprocess.Popen([runtime.driver_bin, "--endpoint", runtime.endpoint, "--timeout", "600"] + list(args),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.calls.append((args[0], p))
        return p

    def wait_calls(self, log, timeout=60):
        for name, p in self.calls:
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError("%s still waiting %d s after the thaw" % (name, timeout))
            log("  %s returned %d after the thaw" % (name, p.returncode))

    def wait_recovered(self, log, timeout=60):
        """The report once /healthz answers 200 and neither shim_hung nor
        runtime_hung is named."""
        def recovered():
            rep = self.report()
            ids = [c["id"] for c in rep["causes"]]
            return self.agent.get("/healthz")[0] == 200 and "shim_hung" not in ids and "runtime_hung" not in ids and rep
        rep = harness.wait_until(recovered, timeout, "/healthz 200 without shim_hung or runtime_hung")
        log("  recovered: status %s, causes %s" % (rep["status"], [c["id"] for c in rep["causes"]]))
        return rep

    def limit_pids(self, pid, name, log):
        """Process `pid` (the runtime) in a pids cgroup of its own, named
        `name`, whose pids.max is what it holds now: it can fork no more.
        Released by release_pids()."""
        d = os.path.join(PIDS, name)
        os.makedirs(d, exist_ok=True)
        self.pids_cgroup = d
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write(str(pid))
        current = int(open(os.path.join(d, "pids.current")).read())
        with open(os.path.join(d, "pids.max"), "w") as f:
            f.write(str(current))
        log("  runtime pid %d in %s: pids.current %d, pids.max %d" % (pid, d, current, current))
        return d

    def release_pids(self, log=None):
        """What the test's pids cgroup holds back into the root pids cgroup,
        and the cgroup removed (an error to remove it is logged when `log`
        is given, raised when not)."""
        d, self.pids_cgroup = self.pids_cgroup, None
        if not d or not os.path.isdir(d):
            return
        for pid in open(os.path.join(d, "cgroup.procs")).read().split():
            try:
                with open(os.path.join(PIDS, "cgroup.procs"), "w") as f:
                    f.write(pid)
            except OSError:
                pass
        try:
            os.rmdir(d)
        except OSError as e:
            if log is None:
                raise
            log("  could not remove %s: %s" % (d, e))

    def end_calls(self):
        for _, p in self.calls:
            if p.poll() is None:
                p.kill()

    def stop_agent(self):
        if self.agent is not None:
            self.agent.__exit__(None, None, None)
            self.agent = None

    def end_runtime(self, name="ctd"):
        """The runtime kept as `name` cleaned up and forgotten; returns it (or None)."""
        runtime = getattr(self, name, None)
        setattr(self, name, None)
        if runtime is not None:
            runtime.cleanup()
        return runtime

    def run(self, module_globals, teardown):
        """The module's steps through the harness, then its teardown."""
        try:
            harness.main(module_globals)
        finally:
            teardown()
