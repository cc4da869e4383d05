"""The containerd metrics snippets plegscope documents and names
(docs/install.md, agent/report/containerd_config.cpp, which a unit test holds
to the same blocks), each fed to the real containerd of its releases: started
as root on private paths (root, state, sockets under a temp dir, the CRI and
NRI plugins off, a loopback port), its `config dump` must carry the address
in the table it serves from, and /v1/metrics must answer there.

  Debian's 1.6.20 (`version = 2` file)        the 1.x / 2.0-2.2 block
  2.3 (and 2.4 where built), `version = 4`    the 2.3 block
  2.3, a `version = 2` file kept from 1.x     the 2.3 block
  2.3, a `version = 4` file                   the 1.x block is ignored: the check must fail

containerd 2.0 to 2.2 are not built here: their `[metrics]` table is read
from their own `version = 3` file (config.go of 2.2.1 has ConfigVersion 3 and
keeps Metrics at the top level), which containerd 2.3 also migrates; the
test checks that migration on 2.3 with a `version = 3` file.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from containerd_fixture import _free_loopback_port, cache_dir, pinned_versions  # noqa: E402
from e2e_context import skip_if  # noqa: E402
from e2e_util import log, wait_until  # noqa: E402

ROOT = os.environ.get("PLEGSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DOC_ADDRESS = "127.0.0.1:1338"


def doc_snippets():
    """{'2.3': block, '1.x': block}: the toml block under each containerd item
    of docs/install.md's "The runtime's own metrics"."""
    with open(os.path.join(ROOT, "docs", "install.md")) as f:
        text = f.read()
    out = {}
    for key, item in (("2.3", r"- \*\*containerd 2\.3 and later\*\*"), ("1.x", r"- \*\*containerd 1\.x\*\*")):
        m = re.search(item + r".*?\n  ```toml\n(.*?)\n  ```", text, re.S)
        assert m, "docs/install.md has no containerd %s metrics block" % key
        out[key] = "\n".join(line[2:] for line in m.group(1).splitlines()) + "\n"
        assert DOC_ADDRESS in out[key], out[key]
    return out


def binaries():
    """{release: containerd binary}: Debian's, and the cached 2.3 and 2.4 builds."""
    v = pinned_versions()
    found = {"1.6": shutil.which("containerd") or "/usr/bin/containerd"}
    for row, key in (("2.3", "CONTAINERD_VERSION"), ("2.4", "CONTAINERD_VERSION_2_4")):
        found[row] = os.path.join(cache_dir(), "containerd-" + v[key], "bin", "containerd")
    return found


def private_config(file_version, tmp, snippet):
    """A config of `file_version` on private paths with `snippet` appended: the
    server's own sockets as that version's file names them."""
    sock = os.path.join(tmp, "containerd.sock")
    off = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
           "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp",
           "io.containerd.internal.v1.tracing"]
    if file_version >= 3:
        off += ["io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images", "io.containerd.nri.v1.nri"]
    if file_version >= 4:
        server = """[plugins.'io.containerd.server.v1.grpc']
  address = "{sock}"
[plugins.'io.containerd.server.v1.ttrpc']
  address = "{sock}.ttrpc"
""".format(sock=sock)
    else:
        server = """[grpc]
  address = "{sock}"
[ttrpc]
  address = "{sock}.ttrpc"
""".format(sock=sock)
    disabled = "".join('  "%s",\n' % p for p in off)
    return """version = {v}
root = "{t}/root"
state = "{t}/state"
disabled_plugins = [
{disabled}]

{server}
[plugins."io.containerd.internal.v1.opt"]
  path = "{t}/opt"

{snippet}""".format(v=file_version, t=tmp, disabled=disabled, server=server, snippet=snippet), sock


def metrics_served(binary, file_version, snippet):
    """(dumped, served): whether containerd's `config dump` of the file keeps
    the snippet's address in a table it serves from, and whether /v1/metrics
    answers there once it runs. A fresh loopback port replaces the doc's."""
    port = _free_loopback_port()
    address = "127.0.0.1:%d" % port
    tmp = tempfile.mkdtemp(prefix="plegscope-ctdcfg-")
    proc = None
    try:
        config, sock = private_config(file_version, tmp, snippet.replace(DOC_ADDRESS, address))
        path = os.path.join(tmp, "config.toml")
        with open(path, "w") as f:
            f.write(config)
        dump = subprocess.run([binary, "--config", path, "config", "dump"], capture_output=True, text=True,
                              timeout=30)
        assert dump.returncode == 0, "%s config dump: %s" % (binary, dump.stderr.strip()[-300:])
        dumped = served_table(dump.stdout, address)
        log_path = os.path.join(tmp, "containerd.log")
        with open(log_path, "w") as out:
            proc = subprocess.Popen([binary, "--config", path], stdout=out, stderr=subprocess.STDOUT)
        ctr = os.path.join(os.path.dirname(binary), "ctr")
        wait_until(lambda: proc.poll() is None and os.path.exists(sock) and subprocess.run(
            [ctr if os.path.exists(ctr) else "ctr", "--address", sock, "version"],
            capture_output=True, timeout=10).returncode == 0, 30, "containerd answering on %s" % sock)
        if not dumped:
            return dumped, False  # nothing to wait for: the port is nobody's
        served = wait_until(lambda: fetch("http://%s/v1/metrics" % address), 15, "/v1/metrics on " + address)
        return dumped, bool(served)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def served_table(dump, address):
    """The table of the dumped config that holds `address` and that the
    release serves from: the 2.3+ plugin, or 1.x's top-level [metrics]. A
    [metrics] table that 2.3 keeps beside a plugin whose address is empty
    (a version 4 file) is not served from."""
    plugin = re.search(r"\[plugins\.'io\.containerd\.server\.v1\.metrics'\]\s*\n\s*address = '([^']*)'", dump)
    if plugin:
        return "io.containerd.server.v1.metrics" if plugin.group(1) == address else None
    top = re.search(r'^\[metrics\]\s*\n\s*address = "([^"]*)"', dump, re.M)
    return "metrics" if top and top.group(1) == address else None


def fetch(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        body = r.read().decode(errors="replace")
        return r.status == 200 and "# TYPE" in body


def need_root_and(binary, release):
    skip_if(None if os.geteuid() == 0 else "not root (containerd needs root)")
    skip_if(None if os.access(binary, os.X_OK) else "%s not found (containerd %s)" % (binary, release))


def check(release, file_version, block, snippets):
    binary = binaries()[release]
    need_root_and(binary, release)
    dumped, served = metrics_served(binary, file_version, snippets[block])
    log("  containerd %s, version = %d file, the %s block: dump %s, /v1/metrics %s"
        % (release, file_version, block, dumped or "ignores it", "served" if served else "not served"))
    return dumped, served


def test_the_1x_block_on_debian_containerd_16():
    dumped, served = check("1.6", 2, "1.x", doc_snippets())
    assert dumped == "metrics" and served


def test_the_23_block_on_containerd_23_in_its_own_version_4_file():
    dumped, served = check("2.3", 4, "2.3", doc_snippets())
    assert dumped == "io.containerd.server.v1.metrics" and served


def test_the_23_block_in_a_file_kept_from_1x_and_from_20():
    for file_version in (2, 3):
        dumped, served = check("2.3", file_version, "2.3", doc_snippets())
        assert dumped == "io.containerd.server.v1.metrics" and served, file_version


def test_the_1x_block_is_migrated_from_a_version_3_file():
    """What 2.0 to 2.2 read from their own files, 2.3 migrates into its plugin."""
    dumped, served = check("2.3", 3, "1.x", doc_snippets())
    assert dumped == "io.containerd.server.v1.metrics" and served


def test_the_1x_block_in_a_version_4_file_is_ignored():
    """The advice plegscope used to give everyone: on 2.3's own file it is
    dropped without a word, and the check above would fail on it."""
    dumped, served = check("2.3", 4, "1.x", doc_snippets())
    assert dumped is None and not served, "containerd 2.3 read [metrics] from a version 4 file"


def test_the_23_block_on_containerd_24_where_built():
    binary = binaries()["2.4"]
    if not os.access(binary, os.X_OK):
        # The 2.4 bed is the `matrix` label's (PLEGSCOPE_CONTAINERD=2.4 scripts/build-runtimes).
        if os.environ.get("PLEGSCOPE_CONTAINERD") == "2.4":
            raise AssertionError("%s not built" % binary)
        log("  containerd 2.4 not built here (the matrix bed): row not run")
        return
    dumped, served = check("2.4", 4, "2.3", doc_snippets())
    assert dumped == "io.containerd.server.v1.metrics" and served


if __name__ == "__main__":
    harness.main(globals())
