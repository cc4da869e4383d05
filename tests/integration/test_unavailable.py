"""The runtime goes away and comes back (DESIGN §2): relist errors are
counted, relisting resumes soon after the socket returns, and the agent
process is never restarted."""

import harness
from harness import Agent, FakeCri, wait_until

FLAGS = ["--relist-period", "200ms", "--runtime-request-timeout", "2s"]


def test_socket_down_then_up():
    with FakeCri("unavailable", hold="up") as fake, Agent(fake.endpoint, FLAGS) as agent:
        pid = agent.proc.pid
        wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "/healthz 200 while the runtime is up")
        errors_before = agent.metrics().sum("pleg_relist_errors_total")

        fake.phase("down", hold=True)
        wait_until(lambda: agent.metrics().sum("pleg_relist_errors_total") > errors_before, 15,
                   "pleg_relist_errors_total to grow while the socket is gone")
        m = agent.metrics()
        assert m.has("pleg_relist_errors_total"), m.find("pleg_relist_errors_total")
        down_seen = m.get("pleg_last_seen_seconds")
        assert agent.get("/livez")[0] == 200

        fake.phase("up", hold=True)
        wait_until(lambda: agent.metrics().get("pleg_last_seen_seconds", 0) > down_seen, 10,
                   "pleg_last_seen_seconds to advance after the socket returned")
        m = agent.metrics()
        assert m.sum("pleg_relist_errors_total") > errors_before
        assert agent.proc.alive() and agent.proc.pid == pid, "the agent must not restart"


def test_flapping_runtime_keeps_recovering():
    with FakeCri("unavailable") as fake, Agent(fake.endpoint, FLAGS) as agent:
        # The scenario loops up 5s / down 5s by itself; see two recoveries.
        for round_ in range(2):
            wait_until(lambda: fake.state()["socket"] == "down", 15, "socket down (round %d)" % round_)
            seen = agent.metrics().get("pleg_last_seen_seconds", 0)
            wait_until(lambda: fake.state()["socket"] == "up", 15, "socket up (round %d)" % round_)
            wait_until(lambda: agent.metrics().get("pleg_last_seen_seconds", 0) > seen, 10,
                       "relists to resume (round %d)" % round_)
        assert agent.proc.alive()


if __name__ == "__main__":
    harness.main(globals())
