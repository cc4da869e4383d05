"""Every URL the shipped files print into the project resolves at the
release: a user who follows one from an alert's runbook_url, the krew
manifest, the Helm chart, a doc or the agent's own output lands on a file
(and heading) of the repository at tag vVERSION, or on an asset the
release publishes. Checked offline, against the checkout as the tag will
hold it (scripts/release tags the commit it checks):

- github.com/plegscope/plegscope/blob|tree/REF/PATH[#ANCHOR]: REF is
  vVERSION (CMakeLists.txt's version), PATH a tracked file (a tracked
  directory for tree/), ANCHOR a heading of that Markdown file;
- .../releases/download/vVERSION/ASSET: ASSET one the publishing workflow
  uploads (its `gh release create` line), named for this version;
- .../releases/tag/vVERSION, the repository itself, kustomize's remote
  form //PATH?ref=vVERSION and cosign's identity .../PATH@: as above;
- plegscope.io URLs are identifiers that are never fetched (a JSON
  Schema's $id, an SPDX documentNamespace) and appear only as such.

CHANGELOG.md dates the version's section (YYYY-MM-DD), as scripts/release
demands before it builds anything."""
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

import ecolib
import harness


REPO = "https://github.com/plegscope/plegscope"
URL = re.compile(r"https?://(?:github\.com/plegscope/plegscope|plegscope\.io)[^\s\"'`<>)\]}]*")
# Where the project's URLs are printed from: everything tracked but the
# tests, the measurement scripts and the changelog's history (its own
# version's section is checked with the rest).
SKIP_DIRS = ("tests/", "bench/")
IDENTIFIER_CONTEXT = re.compile(r'("\$id"\s*:|"documentNamespace"\s*:)\s*"?$')


def version():
    text = open(ecolib.path("CMakeLists.txt")).read()
    return re.search(r"project\(plegscope VERSION (\S+)", text).group(1)


def tracked():
    out = subprocess.run(["git", "-C", ecolib.ROOT, "ls-files", "-co", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return {p for p in out if p and os.path.exists(ecolib.path(p))}


def headings(path):
    anchors, in_code = set(), False
    with open(ecolib.path(path)) as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and re.match(r"^#{1,6} ", line):
                anchors.add(ecolib.github_slug(line.lstrip("#")))
    return anchors


def published_assets(v):
    """The file names the publishing workflow's `gh release create` uploads,
    with the version's glob filled in (kubectl-plegscope-v*.tar.gz)."""
    flow = open(ecolib.path(".github/workflows/release.yml")).read()
    line = re.search(r"gh release create(?:[^\n]*\\\n)*[^\n]*", flow).group(0)
    names = set()
    for word in line.replace("\\\n", " ").split():
        if re.fullmatch(r"[\w.*-]+\.(?:json|gz|tar|txt)|SHA256SUMS|kernel-btf-\*", word):
            names.add(word.replace("v*", "v" + v))
    return names


def problems(url, v, files, assets):
    """Why URL does not resolve at tag vV (None when it does)."""
    if url.startswith("https://plegscope.io/") or url.startswith("http://plegscope.io/"):
        return None  # its context is checked by the caller
    rest = url[len(REPO):]
    if "%" in rest or "{" in rest:
        return "a template, not a URL"
    if rest in ("", "/"):
        return None
    m = re.fullmatch(r"/(blob|tree)/([^/]+)/([^#?]+)(?:#(.*))?", rest)
    if m:
        kind, ref, path, anchor = m.groups()
        path = path.rstrip("/")
        if ref != "v" + v:
            return "at %s, not the release's tag v%s" % (ref, v)
        if kind == "blob" and path not in files:
            return "%s is not a file of the repository" % path
        if kind == "tree" and not any(f.startswith(path + "/") for f in files):
            return "%s is not a directory of the repository" % path
        if anchor and path.endswith(".md") and anchor not in headings(path):
            return "%s has no heading #%s" % (path, anchor)
        return None
    m = re.fullmatch(r"/releases/download/([^/]+)/(.+)", rest)
    if m:
        if m.group(1) != "v" + v:
            return "release %s, not v%s" % (m.group(1), v)
        return None if m.group(2) in assets else "%s is not an asset the release uploads %s" % (
            m.group(2), sorted(assets))
    m = re.fullmatch(r"/releases/tag/([^/]+)", rest)
    if m:
        return None if m.group(1) == "v" + v else "tag %s, not v%s" % (m.group(1), v)
    m = re.fullmatch(r"//([^?]+)\?ref=(\S+)", rest)  # kustomize's remote base
    if m:
        if m.group(2) not in ("v" + v, "vVERSION"):
            return "ref %s, not v%s" % (m.group(2), v)
        return None if any(f.startswith(m.group(1).rstrip("/") + "/") for f in files) else \
            "%s is not a directory of the repository" % m.group(1)
    m = re.fullmatch(r"/([^@]+)@", rest)  # cosign --certificate-identity-regexp's prefix
    if m:
        return None if m.group(1) in files else "%s is not a file of the repository" % m.group(1)
    return "a form of URL this test does not know (teach it, or link a file at the tag)"


def shipped_urls(files):
    """{(file, line number, url, text before it)} of every project URL in FILES."""
    out = []
    for path in sorted(files):
        if path.startswith(SKIP_DIRS) or path == "CHANGELOG.md":
            continue
        try:
            text = open(ecolib.path(path), encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in URL.finditer(line):
                out.append((path, n, m.group(0).rstrip(".,;:"), line[:m.start()]))
    return out


def changelog_section(v):
    text = open(ecolib.path("CHANGELOG.md")).read()
    start = re.search(r"^## \[%s\].*$" % re.escape(v), text, re.M)
    assert start, "CHANGELOG.md has no section for %s" % v
    end = re.search(r"^## ", text[start.end():], re.M)
    return start.group(0), text[start.end():start.end() + end.start()] if end else text[start.end():]


def test_every_shipped_url_resolves_at_the_release_tag():
    v, files = version(), tracked()
    assets = published_assets(v)
    assert "kubectl-plegscope-v%s.tar.gz" % v in assets, assets
    urls = shipped_urls(files)
    heading, body = changelog_section(v)
    urls += [("CHANGELOG.md", 0, m.group(0).rstrip(".,;:"), "") for m in URL.finditer(body)]
    bad = []
    for path, n, url, before in urls:
        if "plegscope.io" in url:
            if not IDENTIFIER_CONTEXT.search(before.rstrip()) and "documentNamespace" not in before:
                bad.append("%s:%d %s: plegscope.io is only an identifier here, never a link" % (path, n, url))
            continue
        why = problems(url, v, files, assets)
        if why and why != "a template, not a URL":
            bad.append("%s:%d %s: %s" % (path, n, url, why))
    forms = {}
    for _, _, u, _ in urls:
        form = ("plegscope.io identifier" if "plegscope.io" in u else
                re.sub(r"^(/[a-z]+(?:/[a-z]+)?).*", r"\1", u[len(REPO):]) or "the repository")
        forms[form] = forms.get(form, 0) + 1
    print("%d URLs in %d files checked at v%s: %s" % (
        len(urls), len({u[0] for u in urls}), v, ", ".join("%s %d" % kv for kv in sorted(forms.items()))))
    assert not bad, "\n".join(bad)
    runbook = [u for _, _, u, _ in urls if "/docs/runbook.md#" in u]
    krew = [u for p, _, u, _ in urls if p == "plugins/plegscope.yaml" and "/releases/download/" in u]
    assert len(runbook) > 20 and krew, (len(runbook), krew)


def test_a_url_off_the_tag_or_the_tree_is_refused():
    v, files = version(), tracked()
    assets = published_assets(v)
    assert problems(REPO + "/blob/v%s/docs/runbook.md#plegnothealthy" % v, v, files, assets) is None
    assert "not the release's tag" in problems(REPO + "/blob/main/docs/runbook.md", v, files, assets)
    assert "not a file" in problems(REPO + "/blob/v%s/docs/no-such-page.md" % v, v, files, assets)
    assert "no heading" in problems(REPO + "/blob/v%s/docs/runbook.md#no-such-alert" % v, v, files, assets)
    assert "not an asset" in problems(REPO + "/releases/download/v%s/plegscope.exe" % v, v, files, assets)
    assert "not v" in problems(REPO + "/releases/download/v0.0.9/kubectl-plegscope-v0.0.9.tar.gz", v, files, assets)
    assert "does not know" in problems(REPO + "/wiki/Home", v, files, assets)


def test_the_changelog_dates_the_release():
    v = version()
    heading, body = changelog_section(v)
    m = re.fullmatch(r"## \[%s\] - (\d{4})-(\d{2})-(\d{2})" % re.escape(v), heading.strip())
    assert m, "CHANGELOG.md: %r is not '## [%s] - YYYY-MM-DD'" % (heading, v)
    assert 1 <= int(m.group(2)) <= 12 and 1 <= int(m.group(3)) <= 31, heading
    loader = importlib.machinery.SourceFileLoader("release", ecolib.path("scripts/release"))
    spec = importlib.util.spec_from_loader("release", loader)
    release = importlib.util.module_from_spec(spec)
    loader.exec_module(release)
    # The same check scripts/release makes before it builds anything.
    assert release.changelog_date(v) == heading.split(" - ", 1)[1].strip()


if __name__ == "__main__":
    harness.main(globals())
