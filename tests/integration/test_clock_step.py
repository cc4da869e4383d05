"""A wall-clock step during a hang (an ntpd step, a VM resume) changes none of
what the agent decides: the agent runs under libfaketime with its monotonic
clock left alone, its wall clock is stepped an hour back or forward while
ListContainers hangs, and the verdict (/diagnose, pleg_diagnosis_cause) and
/healthz keep moving as the hang goes on, with ages that neither freeze nor
jump by the step."""

import datetime
import os
import tempfile
import time

import harness
from harness import Agent, FakeCri, Skip, wait_until

FLAGS = ["--relist-period", "200ms", "--relist-threshold", "8s", "--hang-threshold", "3s"]
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"  # Debian's faketime package
STEP = 3600


def faked_env(offset_file):
    if not os.path.exists(LIBFAKETIME):
        raise Skip("libfaketime is not installed (Debian package faketime): %s" % LIBFAKETIME)
    return {
        "LD_PRELOAD": LIBFAKETIME,
        "FAKETIME_TIMESTAMP_FILE": offset_file,
        "FAKETIME_NO_CACHE": "1",  # read the offset on every call: the step lands at once
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",  # the step moves the wall clock alone
    }


def set_offset(path, seconds):
    with open(path + ".new", "w") as f:
        f.write("%+d\n" % seconds)
    os.replace(path + ".new", path)


def agent_wall_offset(agent):
    """The agent's wall clock minus the real one, from /diagnose's generated_at."""
    report = agent.get_json("/diagnose")
    generated = datetime.datetime.fromisoformat(report["generated_at"].replace("Z", "+00:00")).timestamp()
    return generated - time.time()


def hung_cause(agent):
    return agent.metrics().get("pleg_diagnosis_cause", cause="runtime_hung")


def run_step(step):
    with tempfile.TemporaryDirectory() as tmp:
        offset_file = os.path.join(tmp, "offset")
        set_offset(offset_file, 0)
        with FakeCri("hang", hold="healthy") as fake, Agent(fake.endpoint, FLAGS, env=faked_env(offset_file)) as agent:
            wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "/healthz 200 before the hang")
            assert abs(agent_wall_offset(agent)) < 60, "the agent's clock is not stepped yet"
            fake.phase("hang", hold=True)
            wait_until(lambda: [c for c in fake.calls(method="ListContainers") if c.get("in_flight")], 10,
                       "a ListContainers call to hang")
            # The step lands while the hang is younger than the hang threshold:
            # the verdict has yet to change, and must change after the step.
            assert hung_cause(agent) == 0, "runtime_hung before the hang threshold"
            set_offset(offset_file, step)
            offset = wait_until(lambda: (lambda o: o if abs(o - step) < 60 else None)(agent_wall_offset(agent)), 10,
                                "the agent's wall clock to step by %+ds" % step)
            print("agent wall clock stepped by %+.0fs" % offset)

            confidence = wait_until(lambda: hung_cause(agent) or None, 15,
                                    "pleg_diagnosis_cause{runtime_hung} to rise after the step")
            report = wait_until(lambda: (lambda r: r if r["causes"] and r["causes"][0]["id"] == "runtime_hung"
                                         else None)(agent.get_json("/diagnose")), 10, "runtime_hung first in /diagnose")
            print("after the step: runtime_hung %.2f; in progress %.1fs; last seen %.1fs ago" % (
                confidence, report["relist"]["in_progress_seconds"], report["relist"]["seconds_since_last_seen"]))

            status, body = wait_until(lambda: (lambda r: r if r[0] == 500 else None)(agent.get("/healthz")), 20,
                                      "/healthz 500 past the 8s threshold after the step")
            print("/healthz: %s" % body.strip())

            # Ages keep counting from the hang's start, by real seconds: never
            # frozen, never off by the step.
            seen = []
            for _ in range(3):
                r = agent.get_json("/diagnose")
                m = agent.metrics()
                seen.append((r["relist"]["in_progress_seconds"], r["relist"]["seconds_since_last_seen"],
                             m.get("pleg_runtime_operation_oldest_in_flight_seconds", operation_type="list_containers")))
                time.sleep(1.2)  # the verdict is remade at most once a second (max_age)
            print("in progress / last seen / oldest in flight: %r" % seen)
            for before, after in zip(seen, seen[1:]):
                assert all(b > a for a, b in zip(before, after)), "an age froze: %r" % seen
            assert all(age < 120 for ages in seen for age in ages), "an age moved by the step: %r" % seen

            fake.release()
            wait_until(lambda: agent.get("/healthz")[0] == 200, 15, "/healthz back to 200 after release")
            wait_until(lambda: hung_cause(agent) == 0, 10, "runtime_hung gone after release")


def test_wall_clock_stepped_back_during_a_hang():
    run_step(-STEP)


def test_wall_clock_stepped_forward_during_a_hang():
    run_step(STEP)


if __name__ == "__main__":
    harness.main(globals())
