"""The images scripts/build-image last built, as it leaves them in its cache
(PLEGSCOPE_CROSS_DIR/images, default /var/tmp/plegscope-cross/images):
each image's tree runs on its own libraries under qemu-user (qemu-aarch64-static
for arm64: Debian's multiarch cross build, which this host cannot run
natively), `plegscope version` and a two-second `plegscope diagnose` against
build/fakecri's unix socket; then `plegscope serve` scraping a stand-in
kubelet over HTTPS with a bearer token and a CA file
(tests/lib/fake_kubelet.py) through the image's own libcurl, the one
scripts/build-libcurl rebuilt with HTTP/HTTPS only, which the loader is seen
to take from /usr/lib/plegscope; and its SBOM holds against the build root's
dpkg database (tests/image/image_check.py).

The cross build takes minutes (scripts/build-image --arch arm64), so this
test never starts one: with no cached image (or no qemu-user-static to run
it) it exits 77, which ctest reports as skipped, under CI too."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fake_kubelet  # noqa: E402  (tests/lib)
import harness  # noqa: E402  (tests/lib)
import image_check  # noqa: E402

TOKEN = "cached-image-token"
MAX_LAYER_UNCOMPRESSED = 40 * 1000 * 1000

QEMU = {"amd64": "qemu-x86_64-static", "arm64": "qemu-aarch64-static"}
MACHINE = {"amd64": "Advanced Micro Devices X86-64", "arm64": "AArch64"}


def cached():
    d = os.path.join(image_check.cross_dir(), "images")
    return {a: os.path.join(d, "plegscope-%s.tar" % a) for a in QEMU
            if os.path.exists(os.path.join(d, "plegscope-%s.tar" % a))}


def run_in_tree(arch, tree, args, timeout=120, env=()):
    qemu_env = [x for k, v in env for x in ("-E", "%s=%s" % (k, v))]
    p = subprocess.run([QEMU[arch], "-L", tree] + qemu_env + [os.path.join(tree, "usr/bin/plegscope")] + args,
                       capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


class TreeAgent(harness.Agent):
    """The image's plegscope serving, run from its unpacked tree under qemu-user."""

    def __init__(self, arch, tree, endpoint, extra_flags):
        super().__init__(endpoint, extra_flags, log_level="warn", start_timeout=60.0)
        self.arch, self.tree = arch, tree

    def command(self):
        return [QEMU[self.arch], "-L", self.tree, os.path.join(self.tree, "usr/bin/plegscope")] + super().command()[1:]


def scrape_kubelet_over_https(arch, tree):
    """The image's kubelet reader, through its rebuilt libcurl: HTTPS, the
    stand-in's CA file, a bearer token. `serve`, not a 2 s `diagnose`: under
    emulation, with a TLS handshake beside it, the first relist may miss its
    connection deadline and a one-shot run would take that for no runtime."""
    scratch = tempfile.mkdtemp(prefix="plegscope-kubelet-")
    try:
        token = os.path.join(scratch, "token")
        with open(token, "w") as f:
            f.write(TOKEN + "\n")
        with harness.FakeCri("steady", log_level="warn") as fake, \
                fake_kubelet.FakeKubelet(scratch, token=TOKEN) as kubelet, \
                TreeAgent(arch, tree, fake.endpoint, ["--kubelet-endpoint", kubelet.url, "--kubelet-ca-file",
                                                      kubelet.ca_file, "--kubelet-token-file", token]) as agent:
            harness.wait_until(lambda: harness.Metrics(agent.get("/metrics")[1]).get("pleg_kubelet_up") == 1, 60,
                               "%s image: pleg_kubelet_up 1" % arch, interval=0.5)
            # /diagnose's kubelet section, once the reader has handed in its page
            k = harness.wait_until(lambda: (lambda k: k if k["reachable"] is not False or k["error"] else None)(
                json.loads(agent.get("/diagnose")[1])["kubelet"]), 60, "%s image: the kubelet in /diagnose" % arch,
                interval=0.5)
            requests = kubelet.requests
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%s image, kubelet over HTTPS through the rebuilt libcurl: %d request(s); reachable %s, "
          "tls_mode %s, version %s, error %r" % (arch, requests, k["reachable"], k["tls_mode"], k["version"], k["error"]))
    assert requests >= 1 and k["reachable"] is True and not k["error"], k
    assert k["tls_mode"] == "ca_file" and k["version"].lstrip("v") == "1.30.2", k


def test_cached_images_run_under_qemu_and_their_sboms_hold():
    images = cached()
    version = re.search(r"project\(plegscope VERSION (\S+)", open(os.path.join(harness.source_dir(),
                                                                               "CMakeLists.txt")).read()).group(1)
    for arch, archive in sorted(images.items()):
        root = os.path.join(image_check.cross_dir(), arch)
        print("%s: %s" % (arch, image_check.check_sbom(archive, root)))
        _, _, _, gz, raw = image_check.read_archive(archive)
        print("%s image size: layer %d bytes gzip, %d bytes uncompressed" % (arch, gz, raw))
        assert raw <= MAX_LAYER_UNCOMPRESSED, raw  # what a node's snapshotter unpacks it to
        tree = tempfile.mkdtemp(prefix="plegscope-tree-")
        try:
            image_check.extract(archive, tree)
            header = subprocess.run(["readelf", "-h", os.path.join(tree, "usr/bin/plegscope")],
                                    capture_output=True, text=True).stdout
            assert MACHINE[arch] in header, header
            code, out, err = run_in_tree(arch, tree, ["version"], env=[("LD_DEBUG", "libs")])
            print("%s image, plegscope version under %s: %s" % (arch, QEMU[arch], out.strip()))
            assert code == 0 and version in out, (code, out, err)
            # the image's rebuilt libcurl, through the binary's RPATH, not a
            # system one (qemu's -L would fall back to this host's)
            loaded = re.findall(r"calling init: (\S*libcurl\.so\.4)", err)
            print("%s image, libcurl the loader took: %s" % (arch, loaded))
            assert len(loaded) == 1 and os.path.realpath(loaded[0]) == os.path.join(
                os.path.realpath(tree), "usr/lib/plegscope/libcurl.so.4"), loaded
            with harness.FakeCri("steady", log_level="warn") as fake:
                code, out, err = run_in_tree(arch, tree, ["diagnose", "--container-runtime-endpoint", fake.endpoint,
                                                          "--duration", "2s", "--output", "json",
                                                          "--log-level", "warn"])
                assert code in (0, 1), (code, out[-2000:], err)
                report = harness.report_json(out)
                relists = fake.counts().get("ListPodSandbox", 0)
                sandboxes = len(fake.pods())
            print("%s image, diagnose --duration 2s against fakecri: exit %d, status %s, runtime %s %s, "
                  "%d sandboxes, %d containers; fakecri answered %d ListPodSandbox calls"
                  % (arch, code, report["status"], report["runtime"]["name"], report["runtime"].get("version"),
                     report["pods"]["sandboxes"], report["pods"].get("containers", -1), relists))
            assert report["runtime"]["name"] == "containerd", report["runtime"]
            assert report["pods"]["sandboxes"] == sandboxes > 0, (report["pods"], sandboxes)
            assert relists >= 2, relists
            scrape_kubelet_over_https(arch, tree)
        finally:
            shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    if not cached():
        print("no image cached in %s/images: nothing to check (scripts/build-image --arch arm64 builds one)"
              % image_check.cross_dir())
        sys.exit(77)
    # qemu-user-static comes with the image set of scripts/install-deps, with
    # the cache scripts/build-image fills; a cache without it is not checked.
    missing = sorted(QEMU[a] for a in cached() if not shutil.which(QEMU[a]))
    if missing:
        print("images cached but %s not installed (scripts/install-deps image): not checked" % ", ".join(missing))
        sys.exit(77)
    harness.main(globals())
