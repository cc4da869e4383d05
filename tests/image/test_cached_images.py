"""The images scripts/build-image last built, as it leaves them in its cache
(PLEGSCOPE_CROSS_DIR/images, default /var/tmp/plegscope-cross/images):
each image's tree runs on its own libraries under qemu-user (qemu-aarch64-static
for arm64: Debian's multiarch cross build, which this host cannot run
natively), `plegscope version` and a two-second `plegscope diagnose` against
build/fakecri's unix socket that also scrapes a stand-in kubelet over HTTPS
with a bearer token and a CA file (tests/lib/fake_kubelet.py) through the
image's own libcurl, the one scripts/build-libcurl rebuilt with HTTP/HTTPS
only, which the loader is seen to take from /usr/lib/plegscope; and its SBOM
holds against the build root's dpkg database (tests/image/image_check.py).

The cross build takes minutes (scripts/build-image --arch arm64), so this
test never starts one: with no cached image (or no qemu-user-static to run
it) it exits 77, which ctest reports as skipped, under CI too."""
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


def test_cached_images_run_under_qemu_and_their_sboms_hold():
    images = cached()
    version = re.search(r"project\(plegscope VERSION (\S+)", open(os.path.join(harness.source_dir(),
                                                                               "CMakeLists.txt")).read()).group(1)
    for arch, archive in sorted(images.items()):
        root = os.path.join(image_check.cross_dir(), arch)
        print("%s: %s" % (arch, image_check.check_sbom(archive, root)))
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
            os.makedirs(tree + "-kubelet")
            with harness.FakeCri("steady", log_level="warn") as fake, \
                    fake_kubelet.FakeKubelet(tree + "-kubelet", token=TOKEN) as kubelet:
                token = os.path.join(tree + "-kubelet", "token")
                with open(token, "w") as f:
                    f.write(TOKEN + "\n")
                code, out, err = run_in_tree(arch, tree, ["diagnose", "--container-runtime-endpoint", fake.endpoint,
                                                          "--duration", "2s", "--output", "json",
                                                          "--kubelet-endpoint", kubelet.url,
                                                          "--kubelet-ca-file", kubelet.ca_file,
                                                          "--kubelet-token-file", token,
                                                          "--log-level", "warn"])
                assert code in (0, 1), (code, out[-2000:], err)
                report = harness.report_json(out)
                relists = fake.counts().get("ListPodSandbox", 0)
                sandboxes = len(fake.pods())
                kubelet_requests = kubelet.requests
            print("%s image, diagnose --duration 2s against fakecri: exit %d, status %s, runtime %s %s, "
                  "%d sandboxes, %d containers; fakecri answered %d ListPodSandbox calls"
                  % (arch, code, report["status"], report["runtime"]["name"], report["runtime"].get("version"),
                     report["pods"]["sandboxes"], report["pods"].get("containers", -1), relists))
            assert report["runtime"]["name"] == "containerd", report["runtime"]
            assert report["pods"]["sandboxes"] == sandboxes > 0, (report["pods"], sandboxes)
            assert relists >= 2, relists
            # HTTPS with the CA file and the token, read by the kubelet reader
            k = report["kubelet"]
            print("%s image, kubelet over HTTPS through the rebuilt libcurl: %d request(s); reachable %s, "
                  "tls_mode %s, version %s, error %r" % (arch, kubelet_requests, k["reachable"], k["tls_mode"],
                                                         k["version"], k["error"]))
            assert kubelet_requests >= 1 and k["reachable"] is True and not k["error"], k
            assert k["version"] and k["version"].lstrip("v") == "1.30.2", k
        finally:
            shutil.rmtree(tree, ignore_errors=True)
            shutil.rmtree(tree + "-kubelet", ignore_errors=True)


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
