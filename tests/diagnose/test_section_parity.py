"""The three formats carry the same report sections, on every diagnose
scenario: the sections the text shows and those the HTML page shows are one
list, and the JSON carries every section's keys. The sections and their
marks are read from their one description (agent/report/sections/*.cpp),
so a new section is checked without touching this test."""

import glob
import os
import re
import time

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import fixture, report

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]
SECTION = re.compile(r'Section\(SectionId::\w+,\s*"(\w+)",\s*\{([^}]*)\},\s*"([^"]*)",\s*"([^"]*)"\)')


def sections():
    out = []
    for path in sorted(glob.glob(os.path.join(harness.source_dir(), "agent", "report", "sections", "*.cpp"))):
        with open(path, encoding="utf-8") as f:
            for name, keys, text_mark, html_mark in SECTION.findall(f.read()):
                out.append((name, re.findall(r'"(\w+)"', keys), text_mark, html_mark))
    assert len(out) >= 10, out
    return out


def scenarios():
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(
        os.path.join(harness.source_dir(), "tests", "scenarios", "diag_*.json")))
    assert names, "no diag_* scenarios"
    return names


def listed(agent, all_sections):
    """(text sections, HTML sections, JSON keys missing), from one moment's reports."""
    status, text = agent.get("/diagnose?format=text")
    assert status == 200, status
    status, html = agent.get("/diagnose?format=html")
    assert status == 200, status
    text = "\n" + (text.decode() if isinstance(text, bytes) else text)
    html = html.decode() if isinstance(html, bytes) else html
    rep = report(agent)
    in_text = [n for n, _, mark, _ in all_sections if "\n" + mark in text]
    in_html = [n for n, _, _, mark in all_sections if 'id="%s"' % mark in html]
    missing = [k for _, keys, _, _ in all_sections for k in keys if k not in rep]
    return in_text, in_html, missing


def test_every_scenario_carries_the_same_sections_in_each_format():
    all_sections = sections()
    for scenario in scenarios():
        with FakeCri(scenario, log_level="warn") as fake, \
                Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="warn") as agent:
            wait_until(lambda: report(agent)["relist"]["seconds_since_last_seen"] is not None, 20, "a first relist")
            time.sleep(2)  # into the scenario's first fault
            # Text and HTML are two requests: a section may appear between
            # them (the runtime's Status path), so a mismatch is read again.
            for _ in range(5):
                in_text, in_html, missing = listed(agent, all_sections)
                if in_text == in_html:
                    break
                time.sleep(0.2)
            assert in_text == in_html, (scenario, in_text, in_html)
            assert missing == [], (scenario, missing)
            print("  %s: %s" % (scenario, ", ".join(in_text)))


if __name__ == "__main__":
    harness.main(globals())
