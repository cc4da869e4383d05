"""The runner's verdicts on skips: under CI a skip fails with its reason;
outside CI skips are listed in the summary, a file whose tests all skipped
exits 77 (ctest "Skipped"), and one with a pass and a skip exits 0."""

import os
import subprocess
import sys
import tempfile

import harness

SCRIPT = '''
import harness

def test_needs_a_tool():
    harness.require_tool("no-such-tool-plegscope")

%s

if __name__ == "__main__":
    harness.main(globals())
'''
PASSING = "def test_passes():\n    assert True\n"


def run(body, ci):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SCRIPT % body)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(harness.__file__)))
    env.pop("CI", None)
    if ci:
        env["CI"] = "true"
    try:
        p = subprocess.run([sys.executable, f.name], capture_output=True, text=True, env=env, timeout=60)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout


def test_under_ci_a_skip_fails_with_its_reason():
    rc, out = run(PASSING, ci=True)
    assert rc == 1, (rc, out)
    assert "FAIL test_needs_a_tool: skipped under CI: required tool 'no-such-tool-plegscope'" in out, out
    assert "1 passed, 1 failed" in out, out


def test_outside_ci_skips_are_listed_and_a_pass_still_passes():
    rc, out = run(PASSING, ci=False)
    assert rc == 0, (rc, out)
    assert "1 passed, 0 failed, 1 skipped" in out, out
    assert "skipped test_needs_a_tool: required tool 'no-such-tool-plegscope' is not installed" in out, out


def test_outside_ci_all_skipped_is_a_ctest_skip():
    rc, out = run("", ci=False)
    assert rc == harness.SKIP_EXIT, (rc, out)


def test_ci_zero_or_false_is_not_ci():
    saved = os.environ.get("CI")
    try:
        for value in ("", "0", "false"):
            os.environ["CI"] = value
            assert not harness.under_ci(), value
        os.environ["CI"] = "1"
        assert harness.under_ci()
    finally:
        os.environ.pop("CI", None)
        if saved is not None:
            os.environ["CI"] = saved


def test_cause_ids_are_the_runbooks_causes():
    """harness.cause_ids() reads the agent's cause list: each id once, each
    with its section under the runbook's # Causes."""
    ids = harness.cause_ids()
    assert len(ids) == len(set(ids)), ids
    sections, under_causes = [], False
    with open(os.path.join(harness.source_dir(), "docs", "runbook.md")) as f:
        for line in f:
            if line.startswith("# "):
                under_causes = line.strip() == "# Causes"
            elif under_causes and line.startswith("## "):
                sections.append(line[3:].strip())
    assert sorted(ids) == sorted(sections), (ids, sections)
    assert "runtime_hung" in ids


if __name__ == "__main__":
    harness.main(globals())
