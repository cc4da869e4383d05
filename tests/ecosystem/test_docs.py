"""The README and every page under docs/ agree with what exists: every `plegscope` flag
they show is in `plegscope --help` (or its subcommand's), every
`kubectl plegscope` option is the plugin's, every `scripts/...` option is in
that script, every endpoint they name answers on a running agent (not 404),
every repository path they name exists, every kustomize component they
name is a Component, and no command reaches an agent over plain http
through a node name (the pod has no hostNetwork; see "Reaching the report")."""
import os
import re
import subprocess

import ecolib
import harness

DOCS = ["README.md", "mixin/README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(ecolib.path("docs")) if f.endswith(".md"))
# The pages the README sends each reader to, each of which this test reads.
PAGES = ("docs/install.md", "docs/operate.md", "docs/metrics.md", "docs/runbook.md", "docs/report.md",
         "docs/development.md", "docs/benchmarks.md")
PLUGIN = ecolib.path("plugins", "kubectl-plegscope")
# Repository paths worth checking: these top-level directories and files.
TOP = ("deploy/", "overlays/", "docs/", "plugins/", "scripts/", "mixin/", "alerts/", "dashboards/", "bench/", "tests/",
       "agent/", "collectors/", "proto/")


def texts():
    return {d: open(ecolib.path(d)).read() for d in DOCS if os.path.exists(ecolib.path(d))}


def code_spans(text):
    """Inline `code` and fenced blocks, with line continuations joined."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    # inline spans may wrap over lines in the Markdown source.
    inline = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))]
    joined = []
    for b in blocks:
        joined += b.replace("\\\n", " ").splitlines()
    return joined + inline


def help_flags(*args):
    binary = harness.require_binary("plegscope")
    r = subprocess.run([binary] + list(args) + ["--help"], capture_output=True, text=True, timeout=30)
    return set(re.findall(r"(--[a-z][a-z0-9-]+)", r.stdout + r.stderr))


def commands(prefix_re):
    """(doc, line) of every code line that runs a command matching prefix_re."""
    out = []
    for doc, text in texts().items():
        for line in code_spans(text):
            for m in re.finditer(prefix_re, line):
                out.append((doc, line[m.start():]))
    return out


def test_plegscope_flags_exist():
    serve = help_flags()
    diagnose = help_flags("diagnose") | serve
    checked = 0
    for doc, cmd in commands(r"(?<!-n )(?<!kubectl )(?<![\w/.=-])(?:build/)?plegscope (?=diagnose\b|version\b|serve\b|--)"):
        words = cmd.split("#")[0].split()
        sub = words[1] if len(words) > 1 and not words[1].startswith("-") else "serve"
        known = diagnose if sub == "diagnose" else serve
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", " ".join(words)):
            assert flag in known, "%s shows `%s`: plegscope %s has no %s" % (doc, cmd.strip(), sub, flag)
            checked += 1
    # flags named in prose tables too (| `--flag` |).
    for doc, text in texts().items():
        for flag in re.findall(r"^\| `(--[a-z0-9-]+)`", text, re.M):
            assert flag in serve | diagnose, "%s's flag table names %s, which plegscope does not have" % (doc, flag)
            checked += 1
    assert checked > 10, checked
    print("%d plegscope flags checked against --help" % checked)


def test_kubectl_plugin_usage():
    known = {}
    for sub in ("diagnose", "nodes"):
        r = subprocess.run([PLUGIN, sub, "--help"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        known[sub] = set(re.findall(r"(--?[a-z][a-z-]*)", r.stdout))
    checked = 0
    for doc, cmd in commands(r"kubectl plegscope\b"):
        words = cmd.split("#")[0].split()
        assert len(words) > 2 and words[2] in ("diagnose", "nodes"), "%s: `%s`" % (doc, cmd)
        for flag in re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", " ".join(words[2:])):
            assert flag in known[words[2]], "%s shows `%s`: the plugin has no %s" % (doc, cmd.strip(), flag)
            checked += 1
    print("%d plugin commands' options checked" % checked)


def test_script_options_exist():
    checked = 0
    for doc, cmd in commands(r"\bscripts/[a-z-]+"):
        script = cmd.split()[0]
        path = ecolib.path(script)
        assert os.path.exists(path), "%s names %s, which does not exist" % (doc, script)
        source = open(path).read()
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", cmd.split("#")[0]):
            assert flag in source, "%s shows `%s`: %s has no %s" % (doc, cmd.strip(), script, flag)
            checked += 1
    print("%d script options checked" % checked)


def test_paths_exist():
    missing, checked = [], 0
    for doc, text in texts().items():
        for span in set(re.findall(r"`([^`\s]+)`", text)):
            span = span.rstrip(".,:;)")
            if not span.startswith(TOP) or any(c in span for c in "*<>$[{"):
                continue
            checked += 1
            rel = span.split("#")[0]
            here = os.path.join(os.path.dirname(doc), rel)  # mixin/README.md names mixin/ files from there
            if not os.path.exists(ecolib.path(rel)) and not os.path.exists(ecolib.path(here)):
                missing.append("%s: %s" % (doc, span))
    assert not missing, "named but missing: %s" % missing
    for doc, text in texts().items():
        assert "../shared" not in text, "%s points outside the repository" % doc
    print("%d repository paths checked" % checked)


def test_readme_is_short_and_names_every_page():
    readme = texts()["README.md"]
    assert len(readme.splitlines()) <= 300, "README.md has %d lines" % len(readme.splitlines())
    for page in PAGES:
        assert os.path.exists(ecolib.path(page)), page
        assert page in readme, "the README does not send its readers to %s" % page


def test_markdown_links_resolve():
    """Every relative link of a page reaches a file, and its #anchor a heading there."""
    def anchors(path):
        text = re.sub(r"```.*?```", "", open(ecolib.path(path)).read(), flags=re.S)
        return {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", text, re.M)}
    broken, checked = [], 0
    for doc, text in texts().items():
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", text, flags=re.S)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            checked += 1
            if not os.path.exists(ecolib.path(path)):
                broken.append("%s: %s" % (doc, target))
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                broken.append("%s: %s (no such heading)" % (doc, target))
    assert not broken, "links that lead nowhere: %s" % broken
    print("%d links checked" % checked)


def test_components_named_exist():
    for doc, text in texts().items():
        for name in set(re.findall(r"deploy/components/([a-z0-9-]+)", text)):
            k = ecolib.load_yaml(os.path.join("deploy", "components", name, "kustomization.yaml"))
            assert k["kind"] == "Component", (doc, name)


def test_no_plain_http_to_a_node_name():
    """http://NODE:9547 cannot work: the agent is on the pod network. A
    node's own IP works only with the host-port component, which the line
    must then name, as must https with credentials (web-auth)."""
    for doc, text in texts().items():
        for m in re.finditer(r"https?://NODE[_A-Z]*:9547", text):
            around = text[max(0, m.start() - 600):m.end() + 600]
            assert m.group(0).startswith("http://NODE_IP") or m.group(0).startswith("https://NODE_IP"), \
                "%s: %s (the pod has no hostNetwork)" % (doc, m.group(0))
            assert "host-port" in around, "%s: %s without naming the host-port component" % (doc, m.group(0))


def endpoint_table_paths(text):
    """The first-column paths of the tables whose first column is `path` (the
    endpoint tables; a table of files, e.g. the image's, names host paths)."""
    paths, header = set(), None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header = line.split("|")[1].strip()
            continue
        m = re.match(r"^\| `(/[a-z/]+)`", line)
        if m and header == "path":
            paths.add(m.group(1))
    return paths


def test_endpoints_named_answer():
    """Every agent path the docs show answers on a real agent (not 404)."""
    paths = set()
    for doc, text in texts().items():
        for line in code_spans(text):
            for m in re.finditer(r"9547(?:/proxy)?(/(?!proxy/)[a-z][a-z/]*)(\?[a-z=&0-9]*)?", line):
                paths.add(m.group(1) + (m.group(2) or ""))
        paths |= endpoint_table_paths(text)
    paths = {p for p in paths if p != "/"}
    assert {"/diagnose?format=text", "/metrics", "/readyz", "/livez"} <= paths, paths
    with harness.FakeCri("steady", log_level="warn") as fake, harness.Agent(fake.endpoint) as agent:
        for p in sorted(paths):
            status, body = agent.get(p)
            assert status != 404, "docs name %s, the agent answers 404" % p
        print("endpoints named in the docs, all served: %s" % ", ".join(sorted(paths)))


if __name__ == "__main__":
    harness.main(globals())
