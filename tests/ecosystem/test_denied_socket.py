"""What the agent sees on an SELinux-enforcing node (RHEL, Fedora CoreOS,
Bottlerocket, OpenShift) without the selinux component: its container_t
process is denied the runtime's socket. SELinux refuses connect() with
EACCES, the errno any permission check gives; here the DaemonSet's identity
(uid 65532, group 0, group 4, no capability, no_new_privs, by setpriv) is
refused the same way by the socket's mode (0600 root:root), which this
machine can do without SELinux. Measured with the real agent and fakecri:

- refused: the agent exports pleg_runtime_unreachable{reason="permission_denied"} 1,
  and those samples, fed through the shipped rules (alerts/plegscope.rules.yml),
  fire PlegscopeCannotReachRuntime with reason="permission_denied";
- the same socket readable by group 0 (0660, containerd's and CRI-O's own
  mode): the agent relists and exports no pleg_runtime_unreachable, as with
  spc_t (deploy/components/selinux), which lifts the LSM's refusal.

What the SELinux policy allows (container_t denied, spc_t allowed; on
Bottlerocket spc_t is an alias of control_t) is read from the policies
(README, "SELinux-enforcing nodes and Bottlerocket"), not measured here."""
import os
import stat
import subprocess
import tempfile

import yaml

import ecolib
import harness

IDENTITY = ["--reuid", "65532", "--regid", "0", "--groups", "4", "--inh-caps", "-all",
            "--bounding-set", "-all", "--no-new-privs", "--"]


class AgentAs(harness.Agent):
    """build/plegscope run with the DaemonSet's identity."""

    def command(self):
        return ["setpriv"] + IDENTITY + super().command()


def _serve_with_mode(cri, mode):
    os.chmod(cri.dir, 0o755)  # the agent's identity may reach the socket's directory
    os.chmod(cri.socket, mode)
    st = os.stat(cri.socket)
    assert stat.S_ISSOCK(st.st_mode) and st.st_uid == 0 and st.st_gid == 0, st


def _unreachable(agent):
    m = agent.metrics()
    return {s.labels.get("reason"): s.value for s in m.find("pleg_runtime_unreachable")}


def _require_root_and_setpriv():
    if os.geteuid() != 0:
        raise harness.Skip("needs root: the socket's owner and setpriv's change of identity")
    harness.require_tool("setpriv")


def test_a_denied_socket_reports_permission_denied_and_fires_the_warning():
    _require_root_and_setpriv()
    with harness.FakeCri("steady") as cri:
        _serve_with_mode(cri, 0o600)
        with AgentAs(cri.endpoint, extra_flags=["--relist-period", "200ms"]) as agent:
            got = harness.wait_until(lambda: _unreachable(agent) or None, 20, "pleg_runtime_unreachable")
            assert got == {"permission_denied": 1.0}, got
            exposition = [line for line in agent.metrics().text.splitlines()
                          if line.startswith("pleg_runtime_unreachable")]
            report = agent.get_json("/diagnose")
    print("agent as uid 65532, socket 0600 root:root: %s" % exposition)
    print("/diagnose: status %s, causes %s, summary %s" % (
        report.get("status"), [c.get("id") for c in report.get("causes", [])], str(report.get("summary"))[:200]))
    # The exported sample, as the PodMonitor labels it, through the shipped rules.
    (line,) = exposition
    labels = line[len("pleg_runtime_unreachable{"):line.index("}")]
    series = 'pleg_runtime_unreachable{%s, job="plegscope", instance="10.0.0.1:9547", node="worker-1"}' % labels
    with tempfile.TemporaryDirectory() as tmp:
        test = {
            "rule_files": [ecolib.path("alerts", "plegscope.rules.yml")],
            "evaluation_interval": "10s",
            "tests": [{
                "interval": "10s",
                "input_series": [{"series": series, "values": "1x60"}],
                "promql_expr_test": [{
                    "expr": 'ALERTS{alertname="PlegscopeCannotReachRuntime", alertstate="firing"}',
                    "eval_time": "6m",
                    "exp_samples": [{"labels": 'ALERTS{alertname="PlegscopeCannotReachRuntime", '
                                               'alertstate="firing", node="worker-1", reason="permission_denied", '
                                               'severity="warning"}', "value": 1}],
                }],
            }],
        }
        path = os.path.join(tmp, "denied_test.yml")
        with open(path, "w") as f:
            yaml.safe_dump(test, f)
        r = subprocess.run([harness.require_tool("promtool"), "test", "rules", path],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    print("through alerts/plegscope.rules.yml: PlegscopeCannotReachRuntime firing, reason=permission_denied")


def test_the_same_socket_allowed_is_read():
    _require_root_and_setpriv()
    with harness.FakeCri("steady") as cri:
        _serve_with_mode(cri, 0o660)
        with AgentAs(cri.endpoint, extra_flags=["--relist-period", "200ms"]) as agent:
            def relisted():
                m = agent.metrics()
                done = m.sum("pleg_relist_duration_seconds_count")
                return done > 0 and m
            m = harness.wait_until(relisted, 20, "a successful relist")
            assert not m.has("pleg_runtime_unreachable"), m.find("pleg_runtime_unreachable")
    print("agent as uid 65532, socket 0660 root:root: relists, no pleg_runtime_unreachable")


if __name__ == "__main__":
    harness.main(globals())
