"""The HTML report in a real browser: headless Chromium loads
/diagnose?format=html during a runtime hang, the rendered DOM must hold the
relist chart (with its threshold line) and the ranked causes, and a
screenshot is saved as <build>/diagnose-report.png for people to look at."""

import os
import shutil
import struct
import subprocess
import tempfile
import time

import harness
from harness import Agent, FakeCri, require_tool

from diag_common import fixture, wait_top_cause

WINDOW = (1280, 2000)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return require_tool("chromium")


def run_chromium(args, url, timeout=90):
    profile = tempfile.mkdtemp(prefix="plegscope-chromium-")
    try:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=" + profile,
               "--window-size=%d,%d" % WINDOW] + args + [url]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG: %r" % head[:8]
    return struct.unpack(">II", head[16:24])


def test_html_report_in_chromium_during_a_hang():
    with FakeCri("diag_hang", log_level="warn") as fake, \
            Agent(fake.endpoint, ["--hang-threshold", "3s", "--node-name", "worker-3"],
                  proc_path=fixture("healthy"), log_level="info") as agent:
        wait_top_cause(agent, "runtime_hung", timeout=30)
        time.sleep(4)  # let the in-progress relist grow on the chart
        url = agent.url("/diagnose?format=html")

        dom = run_chromium(["--dump-dom"], url)
        assert dom.returncode == 0, dom.stderr[-2000:]
        html = dom.stdout
        for needle in ('<svg id="relist-duration-chart"', 'id="threshold-line"', 'class="relist"',
                       'class="relist in-progress"', '<svg id="list-status-chart"', 'data-cause="runtime_hung"',
                       'id="operations"', 'id="top-pods"', 'data-status="at_risk"'):
            assert needle in html, "rendered DOM lacks %s" % needle
        first_cause = html.index('data-cause="')
        assert html.startswith('data-cause="runtime_hung"', first_cause), html[first_cause:first_cause + 60]

        out = os.path.join(harness.build_dir(), "diagnose-report.png")
        if os.path.exists(out):
            os.remove(out)
        shot = run_chromium(["--screenshot=" + out], url)
        assert shot.returncode == 0 and os.path.exists(out), shot.stderr[-2000:]
        assert png_size(out) == WINDOW, png_size(out)
        assert os.path.getsize(out) > 30000, "screenshot suspiciously small (blank page?)"
        print("  screenshot: %s (%d bytes)" % (out, os.path.getsize(out)))
        fake.release()


if __name__ == "__main__":
    harness.main(globals())
