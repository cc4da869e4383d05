"""The project's seams, checked on the source tree.

- collectors/ observes the node and never includes agent/; inside agent/
  the arrows run cli -> http -> condition -> node -> diagnoser, and report
  (the English) is included by http and cli only.
- No two folders on different floors share a name: a path says which floor
  it is on.
- Time is read only through the injected Clock: no std::chrono clock's
  now(), clock_gettime, gettimeofday, time() or gRPC's gpr_now outside the
  clock's own header, except the edge adapters whose waits are the kernel's
  or gRPC's (a fake clock must be able to drive every interval). Reading a
  thread's CPU time is a cost, not a time, and is allowed.
- agent/diagnoser reaches only value headers of collectors/ (types,
  constants, an enum's spelling): what its files include, and what those
  include in turn, transitively.
- No comment names a tracker number: comments speak of the product.
- No file is over 450 lines and no function over 80 (signatures over
  several lines included), except where docs/development.md ("Long
  functions") says why; Node stays the PLEG block plus the source list
  (<= 250 lines).
- Every flag is declared in its room's own <name>_flags.cpp beside its
  options; agent/cli declares only the process's own (address, TLS,
  logging, the node's name) and `diagnose`'s.
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

# Longer than 80 lines, with the reason docs/development.md gives (none).
LONG_FUNCTIONS: set = set()
# A definition's first line at namespace or class level: a return type (or
# none, for a constructor), its name, and its opening parenthesis; the
# signature may run over several lines before its body's brace.
FUNCTION_START = re.compile(r"^( {0,2})(?!(?:if|for|while|switch|namespace|struct|class|enum|return|else|do|case|"
                            r"using|typedef|template|static_assert)\b)[A-Za-z_~][\w:<>,*&~ ]*?\b([A-Za-z_~][\w~]*)\s*\(")
SIGNATURE_LINES = 30

# The files that are Node: the PLEG block plus the list of sources.
NODE_FILES = [os.path.join("agent", "node", "node.cpp")]
NODE_MAX_LINES = 250

# The process's own flags, declared in agent/cli; every other flag belongs
# to a room and is declared in that room's <name>_flags.cpp.
PROCESS_FLAGS = {"--listen-address", "--web-config-file", "--log-level", "--node-name", "--hang-threshold",
                 "--metrics-detail", "--duration", "--output", "--url", "--tls-ca-file", "--tls-client-cert",
                 "--basic-auth-user", "--basic-auth-password"}
# Flags still declared outside their room, each with the reason (none).
FLAGS_ELSEWHERE: set = set()
FLAG_DECLARATION = re.compile(r'add_\w+\(\s*\w+\s*,\s*"(--[a-z0-9-]+)"|add_option_function<[^>]*>\(\s*"(--[a-z0-9-]+)"'
                              r'|add_(?:option|flag)\(\s*"(--[a-z0-9-]+)"')

# The edge adapters whose waits are the kernel's, in real time, and so read
# the real clock: what they bound is a socket or a read, never evidence.
REAL_TIME = {
    # Client connections' head and read deadlines, between epoll waits.
    os.path.join("agent", "http", "connection_gate.cpp"),
    # A read of /proc/PID/cmdline that can block forever, bounded by its waiter.
    os.path.join("collectors", "host", "cmdline_reader.cpp"),
    # The journal's descriptor and its re-read deadline are one poll().
    os.path.join("collectors", "journal", "journal_follower.cpp"),
    # sd_journal_wait()'s timeout, on the kernel's monotonic clock.
    os.path.join("collectors", "journal", "journal_reader.cpp"),
    # A gRPC deadline is on gRPC's own clock (gpr_now), whatever the agent's.
    os.path.join("collectors", "cri", "grpc_runtime_client.cpp"),
    os.path.join("collectors", "cri", "grpc_runtime_status.cpp"),
}
CLOCK_READ = re.compile(r"\b(steady_clock|system_clock|high_resolution_clock|MonotonicClock|WallClock|SteadyClock)"
                        r"::now\b|\bgpr_now\s*\(|\bgettimeofday\s*\(|(?<![\w.>])(?:std::|::)?time\s*\(\s*(?:nullptr|NULL|0|&\w+)\s*\)"
                        r"|\bclock_gettime\s*\(\s*(?!CLOCK_(?:THREAD|PROCESS)_CPUTIME_ID)")


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


def definitions(text):
    """Each function defined at namespace or class level: (name, first line, lines)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FUNCTION_START.match(lines[i])
        if not m or lines[i].lstrip().startswith(("//", "return", "#", "}")):
            i += 1
            continue
        depth, j, opened = 0, i, False
        while j < len(lines) and j < i + SIGNATURE_LINES:
            code = lines[j].split("//")[0].rstrip()
            depth += code.count("(") - code.count(")")
            if depth == 0 and code.endswith(";"):
                break
            if depth == 0 and code.endswith("{"):
                opened = True
                break
            j += 1
        if not opened:
            i += 1
            continue
        end = j + 1
        while end < len(lines) and not lines[end].startswith(m.group(1) + "}"):
            end += 1
        yield m.group(2), i + 1, end - i + 1
        i = end + 1


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
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                if path == os.path.join("collectors", "common", "clock.h") or path in REAL_TIME:
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    if CLOCK_READ.search(line.split("//")[0]):
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
                for name, line, length in definitions(text):
                    if length > 80 and (path, name) not in LONG_FUNCTIONS:
                        bad.append(f"{path}:{line}: {name} is {length} lines")
        self.assertEqual(bad, [])

    def test_node_is_the_pleg_block_plus_the_list(self):
        for path in NODE_FILES:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                lines = f.read().count("\n")
            self.assertLessEqual(lines, NODE_MAX_LINES, f"{path}: a source belongs in the list, not in Node")

    def test_every_flag_is_declared_in_its_room(self):
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                own_file = os.path.basename(path).endswith("_flags.cpp") or path.endswith(
                    os.path.join("common", "flag_binding.cpp"))
                for match in FLAG_DECLARATION.finditer(text):
                    flag = next(g for g in match.groups() if g)
                    if path.startswith(os.path.join("agent", "cli") + os.sep):
                        if flag not in PROCESS_FLAGS and flag not in FLAGS_ELSEWHERE:
                            bad.append(f"{path}: {flag} is a room's flag, not the process's")
                    elif not own_file:
                        bad.append(f"{path}: {flag} belongs in its room's <name>_flags.cpp")
        self.assertEqual(bad, [])

    def test_files_stay_short(self):
        bad = []
        for floor in ("agent", "collectors"):
            for path, text in sources(floor):
                lines = text.count("\n")
                if lines > 450 and path not in LONG_FILES:
                    bad.append(f"{path}: {lines} lines")
        self.assertEqual(bad, [])


# The headers from collectors/ the diagnoser may name that are not evidence
# (what they include in turn is still followed, and must be values): the
# clock, an interface the diagnoser is handed; and the quantile definitions,
# statistics both floors compute over windows of their own (the tracker's
# p50/p99, the diagnoser's relist and call windows; the event lag's buckets,
# summed per relist by the PLEG and over a window by the diagnoser; a
# histogram's count above a bound, the bound the diagnoser's threshold),
# which are no reading of what a collector observed and must stay one
# definition.
DIAGNOSER_MAY_INCLUDE = {"common/clock.h", "common/quantile.h", "pleg/lag_summary.h", "prom_text/count_above.h"}
# What a value header holds: types (structs and enums, whose own members
# read only their fields: ok(), healthy()), constants, and for an enum the
# one function that spells its values, `constexpr const char* <x>_name(E)`:
# a spelling is part of the value, as the enum is (label values, report
# ids), and a constexpr switch over it can do nothing else. Anything else at
# namespace scope, a function or a class, is logic: a parser, a classifier,
# a join, which the collector or the node applies before handing over. A
# value header includes only value headers: the diagnoser reaches every
# header of collectors/ its own files' includes lead to, at any depth, and
# each must be a value header, so a logic header's types live in a value
# header of its room (pleg/pod_lifecycle_event.h beside pleg/pleg.h) that
# the logic header includes in turn.
SPELLING = r"constexpr const char\* \w+_name\(\w+ \w+\) \{$"
HEADER_LOGIC = re.compile(r"^(?!\s|//|#|struct\b|enum\b|using\b|namespace\b|template\b|typedef\b|\}|" + SPELLING + ")"
                          r"[^;=(]*\b\w+\s*\([^;]*?\)\s*(const\s*)?(;|\{)|^class\s+\w+[^;]*$", re.M)


class DiagnoserReadsValues(unittest.TestCase):
    def test_diagnoser_reaches_only_value_headers_from_collectors(self):
        # Every header of collectors/ the diagnoser reaches: those its own
        # files name, and what those include in turn, followed inside
        # collectors/. A value header that includes a logic header hands the
        # diagnoser that logic as surely as naming it would. Each reached
        # header keeps the chain it was first reached by (breadth first, so
        # the shortest), for the message.
        chain = {}
        queue = []
        named = sorted({header for path, text in sources("agent") if room_of(path) == "diagnoser"
                        for header in INCLUDE.findall(text)})
        for header in named:
            if os.path.isfile(os.path.join(ROOT, "collectors", header)):
                chain[header] = [header]
                queue.append(header)
        with_logic = []
        while queue:
            header = queue.pop(0)
            with open(os.path.join(ROOT, "collectors", header), encoding="utf-8", errors="replace") as f:
                text = f.read()
            if header not in DIAGNOSER_MAY_INCLUDE and HEADER_LOGIC.search(text):
                with_logic.append(" <- ".join(reversed(chain[header])))
            for included in INCLUDE.findall(text):
                if included not in chain and os.path.isfile(os.path.join(ROOT, "collectors", included)):
                    chain[included] = chain[header] + [included]
                    queue.append(included)
        if with_logic:
            self.fail("the diagnoser reaches logic in collectors/ (the header with logic <- ... <- the "
                      "header the diagnoser names); move the types it needs into a value header of the same "
                      "room:\n  " + "\n  ".join(sorted(with_logic)))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
