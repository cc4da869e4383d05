"""The command line's contract, against golden files taken from the binary
before the flags moved beside their sources: every flag's name and its
environment variable, for the agent and for `diagnose`, and the one-line
error and exit status of each bad value. Regenerate the goldens only for a
deliberate change: PLEGSCOPE_UPDATE_GOLDEN=1.
"""
import json
import os
import re
import subprocess
import sys
import unittest

ROOT = os.environ.get("PLEGSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("PLEGSCOPE_BUILD_DIR", os.path.join(ROOT, "build"))
GOLDEN = os.path.join(ROOT, "tests", "fixtures", "cli")
UPDATE = os.environ.get("PLEGSCOPE_UPDATE_GOLDEN") == "1"
FLAG = re.compile(r"^\s+(--[a-z0-9-]+)(?:\s+\S+)?(?:\s+\(Env:(\S+)\))?", re.M)

# Bad values, one per flag that checks its value (and the usage errors).
BAD = [
    ["--relist-period", "banana"], ["--relist-threshold", "-3m"], ["--runtime-request-timeout", "0s"],
    ["--hang-threshold", "soon"], ["--relist-backoff-max", "-1s"], ["--evented-pleg", "maybe"],
    ["--event-channel-capacity", "0"], ["--container-runtime-endpoint", "tcp://1.2.3.4:1"],
    ["--listen-address", "9547"], ["--log-level", "loud"], ["--no-such-flag"],
    ["--journal-kubelet-unit", "a,b"], ["--journal-runtime-units", "containerd.service,"],
    ["--kubelet-endpoint", "10.0.0.5:10250"], ["--runtime-metrics-endpoint", "unix:///m.sock"],
    ["--kubelet-version", "banana"], ["--node-condition-hold", "-1s"], ["--node-condition-clear-after", "0s"],
    ["--node-condition-min-interval", "x"], ["--node-condition-heartbeat", "0s"],
    ["--host-scan-interval", "often"], ["--host-clock-ticks", "-5"], ["--host-diskstats-before", "/no/such/file"],
    ["diagnose", "--output", "yaml"], ["diagnose", "--duration", "0s"], ["diagnose", "--url", "ftp://x"],
    ["diagnose", "--url", "https://10.0.0.3:9547"], ["--metrics-detail", "fine"], ["--cri-list-streaming", "maybe"],
]


def run(args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLEGSCOPE_", "NODE_", "KUBERNETES_"))}
    p = subprocess.run([os.path.join(BUILD, "plegscope")] + args, capture_output=True, text=True, env=env, timeout=30)
    return p.returncode, p.stdout, p.stderr


def flags(help_text):
    return sorted(f"{m.group(1)} {m.group(2) or '-'}" for m in FLAG.finditer(help_text))


def compare(test, name, value):
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        with open(path, "w") as f:
            json.dump(value, f, indent=1)
            f.write("\n")
    with open(path) as f:
        test.assertEqual(value, json.load(f), f"differs from {path}")


class CommandLine(unittest.TestCase):
    def test_every_flag_and_its_environment_variable(self):
        code, out, _ = run(["--help"])
        self.assertEqual(code, 0)
        compare(self, "flags.json", flags(out))

    def test_every_diagnose_flag(self):
        code, out, _ = run(["diagnose", "--help"])
        self.assertEqual(code, 0)
        compare(self, "diagnose_flags.json", flags(out))

    def test_bad_values_give_the_same_one_line_errors(self):
        seen = []
        for args in BAD:
            code, out, err = run(args + ["--container-runtime-endpoint", "unix:///x.sock"]
                                 if "--container-runtime-endpoint" not in args and args[0] != "diagnose" else args)
            self.assertEqual(code, 2, f"{args}: {err}")
            self.assertEqual(err.count("\n"), 1, f"{args}: one line: {err!r}")
            seen.append({"args": args, "exit": code, "stderr": err.strip()})
        compare(self, "bad_values.json", seen)


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
