"""Two builds of the amd64 image from this commit give one digest.

The first build is scripts/build-image as a developer runs it (the build
root, its libcurl and ccache reused); the second compiles everything again
from nothing (PLEGSCOPE_IMAGE_CLEAN=1: a fresh build directory, ccache off,
libcurl rebuilt from Debian's source), so what the compilers write is
compared, not what a cache gave back. Both use the root that
scripts/build-root.lock pins. When the digests differ, the files that
differ are named (path and sha256 in each layer).

Takes minutes (two compiles of the agent in the build root): label `image`,
as root. Each build's time is printed."""
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness  # noqa: E402


def build(out, clean):
    env = dict(os.environ, PLEGSCOPE_IMAGE_CLEAN="1" if clean else "0")
    started = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "scripts", "build-image"), "--arch", "amd64", out],
                       env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    took = time.monotonic() - started
    print(r.stdout[-3000:])
    assert r.returncode == 0, "scripts/build-image failed (clean=%s)" % clean
    print("build-image (%s) took %.0fs" % ("clean" if clean else "warm", took))
    with open(out[:-4] + ".digest") as f:
        return f.read().strip()


def layer_files(archive):
    """{path: sha256} of the image's one layer."""
    with tarfile.open(archive) as t:
        index = json.load(t.extractfile("index.json"))
        manifest = json.load(t.extractfile("blobs/sha256/" + index["manifests"][0]["digest"].split(":")[1]))
        blob = t.extractfile("blobs/sha256/" + manifest["layers"][0]["digest"].split(":")[1]).read()
    files = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as layer:
        for m in layer.getmembers():
            data = layer.extractfile(m).read() if m.isfile() else (m.linkname or "").encode()
            files[m.name] = "%o %d:%d %d %s" % (m.mode, m.uid, m.gid, m.mtime, hashlib.sha256(data).hexdigest()[:16])
    return files


def test_two_builds_one_digest():
    with tempfile.TemporaryDirectory(prefix="plegscope-repro-", dir="/var/tmp") as tmp:
        first = build(os.path.join(tmp, "warm.tar"), clean=False)
        second = build(os.path.join(tmp, "clean.tar"), clean=True)
        print("warm build: %s\nclean build: %s" % (first, second))
        if first != second:
            a, b = layer_files(os.path.join(tmp, "warm.tar")), layer_files(os.path.join(tmp, "clean.tar"))
            differ = sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))
            raise AssertionError("two builds, two digests (%s, %s); files that differ: %s"
                                 % (first, second, "; ".join("%s %s / %s" % (p, a.get(p), b.get(p)) for p in differ)))


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("the image build needs root (debootstrap, chroot)")
        sys.exit(77)
    harness.main(globals())
