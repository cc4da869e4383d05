#!/usr/bin/env python3
"""Runs one libFuzzer target for a bounded time and checks it reached code.

New inputs go to <work>/corpus (libFuzzer writes into the FIRST corpus
directory); the committed corpus is read after it and never written. Crash
inputs land in <work>/artifacts. Prints executions and the final coverage
(cov: edges, ft: features) and fails when coverage is below the floor given,
so a target that stopped reaching its code is visible.

The bounded run (scripts/fuzz, CI) is --runs executions from seed 1, with
FUZZ_SECONDS x 3 as a cap: the same amount of fuzzing on a slow machine as
on a fast one. With FUZZ_LONG set (scripts/fuzz --long) the run is
FUZZ_SECONDS long instead.
"""

import argparse
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--corpus", required=True, help="committed corpus (read-only input)")
    parser.add_argument("--min-cov", type=int, required=True)
    parser.add_argument("--min-ft", type=int, required=True)
    parser.add_argument("--max-len", type=int, default=16384)
    parser.add_argument("--runs", type=int, required=True, help="executions of the bounded run")
    args = parser.parse_args()

    seconds = int(os.environ.get("FUZZ_SECONDS", "20"))
    name = os.path.basename(args.binary)
    new_corpus = os.path.join(args.work, "corpus")
    artifacts = os.path.join(args.work, "artifacts") + "/"
    os.makedirs(new_corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    long_run = bool(os.environ.get("FUZZ_LONG"))
    bound = ["-max_total_time=%d" % seconds] if long_run else ["-runs=%d" % args.runs, "-max_total_time=%d" % (3 * seconds)]
    command = [args.binary, "-seed=1"] + bound + ["-print_final_stats=1",
               "-max_len=%d" % args.max_len, "-timeout=10", "-rss_limit_mb=2048",
               "-artifact_prefix=" + artifacts, new_corpus, args.corpus]
    print("$ " + " ".join(command), flush=True)
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                          errors="replace")
    output = proc.stdout
    tail = "\n".join(output.splitlines()[-60:])
    if proc.returncode != 0:
        print(tail)
        crashes = sorted(os.listdir(artifacts))
        print("FAIL %s: libFuzzer exited %d; inputs in %s: %s" % (name, proc.returncode, artifacts, crashes))
        print("Fix the code, then add the input to %s as a regression input." % args.corpus)
        return 1
    figures = re.findall(r"cov: (\d+) ft: (\d+)", output)
    execs = re.search(r"stat::number_of_executed_units:\s+(\d+)", output)
    rss = re.search(r"stat::peak_rss_mb:\s+(\d+)", output)
    if not figures or not execs:
        print(tail)
        print("FAIL %s: no coverage figures in libFuzzer's output" % name)
        return 1
    cov, ft = (int(x) for x in figures[-1])
    print("%s: %s executions (%s), cov: %d ft: %d (floors %d/%d), peak RSS %s MB, %d new inputs"
          % (name, execs.group(1), "%d s" % seconds if long_run else "bound %d" % args.runs, cov, ft,
             args.min_cov, args.min_ft,
             rss.group(1) if rss else "?", len(os.listdir(new_corpus))), flush=True)
    if cov < args.min_cov or ft < args.min_ft:
        print("FAIL %s: coverage below the floor: the target no longer reaches its code" % name)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
