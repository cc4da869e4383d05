"""scripts/assemble-image gives one digest for one set of files, in seconds,
on a small stand-in for a build root: a Debian-shaped tree holding this
host's /bin/true (as the agent), its libc and dynamic loader, a CA bundle,
and a dpkg database naming libc6 and ca-certificates as their owners.

Two assemblies from copies of that tree made at different times, with other
file mtimes, owners and creation orders, must write byte-identical
archives, SBOMs and digests; another SOURCE_DATE_EPOCH must change the
digest (the time is in the image, so the test could see it if it were
ignored); every layer entry is owned by 0:0 with mtime 0, in path order; a
package at another version than scripts/build-root.lock says fails the
assembly, and so does a SOURCE_DATE_EPOCH that is not a number (unset, it
is 0).

The full build twice (scripts/build-image, minutes) is
tests/image/test_reproducible_image.py, label `image`."""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness  # noqa: E402

ASSEMBLE = os.path.join(ROOT, "scripts", "assemble-image")
TRIPLET = "x86_64-linux-gnu"
LIBC_VERSION = "2.36-9+deb12u14"
STATUS = """Package: libc6
Status: install ok installed
Maintainer: stand-in
Architecture: amd64
Multi-Arch: same
Version: %s
Homepage: https://www.gnu.org/software/libc/libc.html
Description: stand-in

Package: ca-certificates
Status: install ok installed
Maintainer: stand-in
Architecture: all
Multi-Arch: foreign
Version: 20230311+deb12u1
Description: stand-in

""" % LIBC_VERSION


def host_file(name):
    for d in ("/lib/" + TRIPLET, "/usr/lib/" + TRIPLET):
        if os.path.exists(os.path.join(d, name)):
            return os.path.realpath(os.path.join(d, name))
    return None


def write(path, data, mode=0o644, mtime=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def fake_root(top, mtime, reverse=False):
    """The tree; REVERSE creates its files in the other order (directory
    listing order differs), MTIME stamps every file."""
    libdir = os.path.join(top, "root", "lib", TRIPLET)
    files = [
        (os.path.join(libdir, "libc.so.6"), open(host_file("libc.so.6"), "rb").read(), 0o755),
        (os.path.join(libdir, "ld-linux-x86-64.so.2"), open(host_file("ld-linux-x86-64.so.2"), "rb").read(), 0o755),
        (os.path.join(top, "root/etc/ssl/certs/ca-certificates.crt"), b"-----BEGIN CERTIFICATE-----\n", 0o644),
        (os.path.join(top, "root/usr/share/doc/libc6/copyright"), b"GNU C Library\n", 0o644),
        (os.path.join(top, "root/usr/share/doc/ca-certificates/copyright"), b"MPL-2.0\n", 0o644),
        (os.path.join(top, "root/var/lib/dpkg/status"), STATUS.encode(), 0o644),
        # the multiarch layout of the database: list files named PACKAGE:ARCH.list
        (os.path.join(top, "root/var/lib/dpkg/info/format"), b"1\n", 0o644),
        (os.path.join(top, "root/var/lib/dpkg/info/libc6:amd64.list"),
         b"/lib/%s/libc.so.6\n/lib/%s/ld-linux-x86-64.so.2\n/lib64/ld-linux-x86-64.so.2\n"
         b"/usr/share/doc/libc6/copyright\n" % (TRIPLET.encode(), TRIPLET.encode()), 0o644),
        (os.path.join(top, "root/var/lib/dpkg/info/ca-certificates.list"),
         b"/usr/share/doc/ca-certificates/copyright\n", 0o644),
        (os.path.join(top, "bin/plegscope"), open("/bin/true", "rb").read(), 0o755),
        (os.path.join(top, "LICENSE"), b"Apache-2.0\n", 0o644),
    ]
    for path, data, mode in (reversed(files) if reverse else files):
        write(path, data, mode, mtime)
    os.makedirs(os.path.join(top, "root/var/lib/dpkg/updates"), exist_ok=True)
    os.makedirs(os.path.join(top, "compat"), exist_ok=True)
    os.makedirs(os.path.join(top, "root/lib64"), exist_ok=True)
    os.symlink("/lib/%s/ld-linux-x86-64.so.2" % TRIPLET, os.path.join(top, "root/lib64/ld-linux-x86-64.so.2"))


def assemble(top, out, epoch="1795811270", lock=None):
    env = dict(os.environ)
    env.pop("SOURCE_DATE_EPOCH", None)
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = epoch
    cmd = [sys.executable, ASSEMBLE, "--root", os.path.join(top, "root"), "--arch", "amd64",
           "--binary", os.path.join(top, "bin/plegscope"), "--compat", os.path.join(top, "compat"),
           "--license", os.path.join(top, "LICENSE"), "--version", "0.1.0",
           "--tag", "ghcr.io/plegscope/plegscope:0.1.0", "--out", out,
           "--label", "org.opencontainers.image.revision=0123abc"]
    if lock:
        cmd += ["--lock", lock]
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def blobs(archive):
    with tarfile.open(archive) as t:
        index = json.load(t.extractfile("index.json"))
        digest = index["manifests"][0]["digest"]
        manifest = json.load(t.extractfile("blobs/sha256/" + digest.split(":")[1]))
        config = json.load(t.extractfile("blobs/sha256/" + manifest["config"]["digest"].split(":")[1]))
        layer = t.extractfile("blobs/sha256/" + manifest["layers"][0]["digest"].split(":")[1]).read()
    return digest, config, gzip.decompress(layer)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_two_assemblies_write_the_same_bytes():
    with tempfile.TemporaryDirectory(prefix="plegscope-assemble-") as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        fake_root(a, mtime=1_600_000_000)
        fake_root(b, mtime=1_700_000_000, reverse=True)
        os.chmod(os.path.join(b, "root"), 0o700)  # an umask the build root may have had
        os.makedirs(os.path.join(tmp, "one"))
        os.makedirs(os.path.join(tmp, "two"))
        ra, rb = assemble(a, os.path.join(tmp, "one/img.tar")), assemble(b, os.path.join(tmp, "two/img.tar"))
        assert ra.returncode == 0, ra.stderr
        assert rb.returncode == 0, rb.stderr
        for ext in (".tar", ".spdx.json", ".digest"):
            one, two = read(os.path.join(tmp, "one/img" + ext)), read(os.path.join(tmp, "two/img" + ext))
            assert hashlib.sha256(one).digest() == hashlib.sha256(two).digest(), "img%s differs" % ext
        digest, config, layer = blobs(os.path.join(tmp, "one/img.tar"))
        assert read(os.path.join(tmp, "one/img.digest")).decode().strip() == digest
        assert digest in ra.stdout, ra.stdout
        assert config["created"] == "2026-11-27T20:27:50Z", config["created"]
        assert config["history"][0]["created"] == config["created"]
        assert config["config"]["Labels"]["org.opencontainers.image.revision"] == "0123abc"
        sbom = json.loads(read(os.path.join(tmp, "one/img.spdx.json")))
        assert sbom["creationInfo"]["created"] == config["created"], sbom["creationInfo"]
        with tarfile.open(fileobj=io.BytesIO(layer)) as t:
            members = t.getmembers()
        names = [m.name for m in members]
        assert names == sorted(names), names
        assert {(m.uid, m.gid, m.uname, m.gname, m.mtime) for m in members} == {(0, 0, "", "", 0)}
        assert "usr/bin/plegscope" in names and "lib/%s/libc.so.6" % TRIPLET in names, names


def test_another_epoch_is_another_digest():
    with tempfile.TemporaryDirectory(prefix="plegscope-assemble-") as tmp:
        fake_root(tmp, mtime=1_600_000_000)
        first = assemble(tmp, os.path.join(tmp, "one.tar"))
        later = assemble(tmp, os.path.join(tmp, "two.tar"), epoch="1795811271")
        assert first.returncode == 0 and later.returncode == 0, first.stderr + later.stderr
        assert read(os.path.join(tmp, "one.digest")) != read(os.path.join(tmp, "two.digest"))


def test_a_bad_epoch_is_refused_and_none_is_1970():
    with tempfile.TemporaryDirectory(prefix="plegscope-assemble-") as tmp:
        fake_root(tmp, mtime=1_600_000_000)
        r = assemble(tmp, os.path.join(tmp, "img.tar"), epoch="yesterday")
        assert r.returncode != 0 and "SOURCE_DATE_EPOCH='yesterday'" in r.stderr, r.stderr
        assert not os.path.exists(os.path.join(tmp, "img.tar"))
        r = assemble(tmp, os.path.join(tmp, "img.tar"), epoch=None)
        assert r.returncode == 0, r.stderr
        assert blobs(os.path.join(tmp, "img.tar"))[1]["created"] == "1970-01-01T00:00:00Z"


def test_a_package_off_the_lock_fails():
    with tempfile.TemporaryDirectory(prefix="plegscope-assemble-") as tmp:
        fake_root(tmp, mtime=1_600_000_000)
        lock = os.path.join(tmp, "build-root.lock")
        good = "# a comment\namd64 libc6:amd64 %s\namd64 ca-certificates 20230311+deb12u1\n" % LIBC_VERSION
        write(lock, good.encode())
        r = assemble(tmp, os.path.join(tmp, "img.tar"), lock=lock)
        assert r.returncode == 0, r.stderr
        write(lock, good.replace(LIBC_VERSION, "2.36-9+deb12u13").encode())
        r = assemble(tmp, os.path.join(tmp, "img.tar"), lock=lock)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "libc6:amd64 %s (locked: 2.36-9+deb12u13)" % LIBC_VERSION in r.stderr, r.stderr


if __name__ == "__main__":
    missing = [n for n in ("libc.so.6", "ld-linux-x86-64.so.2") if not host_file(n)]
    if missing or not shutil.which("readelf") or not shutil.which("dpkg-query"):
        print("needs an amd64 Debian host with readelf and dpkg-query (missing: %s)" % (missing or "a tool"))
        sys.exit(77)
    harness.main(globals())
