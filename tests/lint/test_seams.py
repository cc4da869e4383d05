"""The project's seams, checked on the source tree.

- collectors/ observes the node and never includes agent/; inside agent/
  the arrows run cli -> http -> condition -> node -> diagnoser, and report
  (the English) is included by http and cli only.
- No two folders on different floors share a name: a path says which floor
  it is on.
- Evidence sources read time only through the injected Clock: no
  std::chrono::steady_clock::now or system_clock::now outside the clock's
  own header (a fake clock must be able to drive every interval).
- No comment names a tracker number: comments speak of the product.
- No file is over 450 lines and no function over 80, except where
  docs/development.md ("Long functions") says why.
"""
import os
import re
import sys
import unittest

ROOT = os.environ.get("PLEGSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE_EXT = (".cpp", ".h", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# Longer than 450 lines, with the reason docs/development.md gives.
LONG_FILES = {}

# Longer than 80 lines, with the reason docs/development.md gives: each reads top to
# bottom as the one thing it draws or follows.
LONG_FUNCTIONS = {
    ("agent/report/html.cpp", "render_html"),          # the page, in the order it is read
    ("agent/report/charts.cpp", "relist_duration_chart"),  # one SVG drawing
    ("collectors/host/hung_task.cpp", "feed"),         # one state machine over the kernel's lines
}
FUNCTION_START = re.compile(r"^( {0,2})(?!if\b|for\b|while\b|switch\b|namespace\b|struct\b|class\b|enum\b)"
                            r"[A-Za-z_][^;]*?([A-Za-z_0-9]+)\([^;]*\)\s*(const)?\s*(override)?\s*\{\s*$")

# The edge adapters whose waits are the kernel's, in real time, and so read
# the real clock: what they bound is a socket or a read, never evidence.
REAL_TIME = {
    # Client connections' head and read deadlines, between epoll waits.
    os.path.join("agent", "http", "connection_gate.cpp"),
    # A read of /proc/PID/cmdline that can block forever, bounded by its waiter.
    os.path.join("collectors", "host", "cmdline_reader.cpp"),
    # The journal's descriptor and its re-read deadline are one poll().
    os.path.join("collectors", "journal", "journal_follower.cpp"),
}


def sources(floor):
    base = os.path.join(ROOT, floor)
    for directory, _, files in os.walk(base):
        for name in files:
            if name.endswith(SOURCE_EXT):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, ROOT), f.read()


def rooms(floor):
    base = os.path.join(ROOT, floor)
    return {d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d))}


def room_of(relpath):
    parts = relpath.split(os.sep)
    return parts[1] if len(parts) > 2 else None


class Seams(unittest.TestCase):
    def test_collectors_never_include_agent(self):
        agent_rooms = rooms("agent")
        bad = []
        for path, text in sources("collectors"):
            for header in INCLUDE.findall(text):
                if header.split("/")[0] in agent_rooms:
                    bad.append(f"{path}: #include \"{header}\"")
        self.assertEqual(bad, [], "collectors/ includes agent/")

    def test_no_folder_name_on_both_floors(self):
        self.assertEqual(rooms("agent") & rooms("collectors"), set(),
                         "a folder name on both floors makes includes ambiguous")

    def test_agent_arrows_run_one_way(self):
        # Which agent rooms each room may include (besides itself and collectors/).
        allowed = {
            "diagnoser": set(),
            "node": {"diagnoser"},
            "condition": {"node", "diagnoser"},
            "report": {"diagnoser"},
            "http": {"node", "diagnoser", "report", "condition"},
            "cli": {"http", "condition", "node", "diagnoser", "report"},
        }
        agent_rooms = rooms("agent")
        bad = []
        for path, text in sources("agent"):
            room = room_of(path)
            for header in INCLUDE.findall(text):
                target = header.split("/")[0]
                if target in agent_rooms and target != room and target not in allowed.get(room, set()):
                    bad.append(f"{path}: {room} -> {target} (#include \"{header}\")")
        self.assertEqual(bad, [], "an arrow runs up")

    def test_time_only_through_the_injected_clock(self):
        wall = re.compile(r"\b(steady_clock|system_clock|high_resolution_clock|MonotonicClock|WallClock|SteadyClock)"
                          r"::now\b")
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                if path == os.path.join("collectors", "common", "clock.h") or path in REAL_TIME:
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    if wall.search(line):
                        bad.append(f"{path}:{number}: {line.strip()}")
        self.assertEqual(bad, [], "read the time through the injected Clock")

    def test_no_comment_names_a_tracker_number(self):
        tracker = re.compile(r"\b[Ii]ssues? #?\d+\b|\bitem \d+ of\b")
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                for number, line in enumerate(text.splitlines(), 1):
                    if tracker.search(line):
                        bad.append(f"{path}:{number}: {line.strip()}")
        self.assertEqual(bad, [], "say the product reason, not the tracker's number")

    def test_functions_stay_short(self):
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                lines = text.split("\n")
                i = 0
                while i < len(lines):
                    m = FUNCTION_START.match(lines[i])
                    if m and not lines[i].lstrip().startswith(("//", "return", "#", "}")):
                        end = i + 1
                        while end < len(lines) and not lines[end].startswith(m.group(1) + "}"):
                            end += 1
                        length = end - i + 1
                        if length > 80 and (path, m.group(2)) not in LONG_FUNCTIONS:
                            bad.append(f"{path}:{i + 1}: {m.group(2)} is {length} lines")
                        i = end
                    i += 1
        self.assertEqual(bad, [])

    def test_files_stay_short(self):
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                lines = text.count("\n")
                if lines > 450 and path not in LONG_FILES:
                    bad.append(f"{path}: {lines} lines")
        self.assertEqual(bad, [])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
