"""The release a fleet verifies, rehearsed end to end on this machine, as
the publishing workflow (.github/workflows/release.yml) does it against
ghcr.io, with the registry and the signer's identity swapped for ones the
test owns:

1. an OCI registry (distribution v3, built from its Go module by
   scripts/build-tools) on a loopback port, plain HTTP, its storage in the
   test's temp dir;
2. `scripts/release --dry-run --push`: both images built reproducibly by
   scripts/build-image (linux/amd64 native, linux/arm64 cross-compiled and
   smoke-run under qemu), one OCI index over them, pushed with every digest
   kept; the registry serves the index release.json names, and the index
   lists both architectures at the digests scripts/build-image wrote;
3. a cosign key pair made here (cosign built from its module; keyless is
   the workflow's), then `scripts/sign-release sign --key`: the index and
   both images signed, each image's SPDX SBOM (what scripts/assemble-image
   wrote from the files it put in the image) attested, and all of it
   verified back from the registry, the attested SBOM compared with the
   release's byte for byte as JSON;
4. what a verifier must refuse, refused: another key; an SBOM that is not
   the attested one; an image pushed over the version's tag (the tampered
   digest: the amd64 image with one label changed), by its digest and by
   the tag that now names it, while the released digest still verifies;
5. the real cluster test bed (tests/cluster: etcd, kube-apiserver, the
   kubelet on containerd 2.3), its containerd given a hosts.toml for the
   registry (as a node is configured for a private one), deploy/ applied
   with kustomize's `images:` naming the registry and the index digest: the
   DaemonSet's pod Ready, its container started from that digest, which
   containerd pulled from the registry (its access log shows the index, the
   amd64 manifest and blobs fetched, never the arm64 image), running as
   uid 65532 with no capability, its /diagnose answering.

Nothing leaves the machine: cosign signs with --tlog-upload=false and
verifies with --insecure-ignore-tlog (no Rekor), the registry and the
cluster are on loopback, and every process and directory is the test's.
Label `release`, not in the default run: the image build takes minutes with
the build roots and ccache kept, tens of minutes cold. The step times go to
release-rehearsal.json."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))

import harness  # noqa: E402
import install  # noqa: E402
import parts  # noqa: E402
from cluster import Cluster, log  # noqa: E402
from harness import wait_until  # noqa: E402

SOURCE = harness.source_dir()
NAME = "plegscope/plegscope"
KEY_PASSWORD = "rehearsal"


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Registry:
    """distribution's registry on a free loopback port, plain HTTP."""

    def __init__(self, binary, tmp):
        self.port = harness.free_port()
        self.host = "127.0.0.1:%d" % self.port
        config = os.path.join(tmp, "registry.yml")
        with open(config, "w") as f:
            f.write("version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: false\n"
                    "storage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\n"
                    "http:\n  addr: %s\n" % (os.path.join(tmp, "registry-data"), self.host))
        # No telemetry exporter: nothing but the registry's own port.
        env = dict(os.environ, OTEL_TRACES_EXPORTER="none", OTEL_METRICS_EXPORTER="none",
                   OTEL_LOGS_EXPORTER="none")
        self.proc = harness.Process("registry", [binary, "serve", config], env=env)
        wait_until(lambda: harness.http("http://%s/v2/" % self.host)[0] == 200, 60,
                   "the registry answering /v2/ on %s" % self.host)

    def manifest(self, reference):
        """The raw bytes the registry serves for NAME's REFERENCE (tag or digest)."""
        accept = ",".join(["application/vnd.oci.image.index.v1+json", "application/vnd.oci.image.manifest.v1+json"])
        r = subprocess.run(["curl", "-sf", "-H", "Accept: " + accept,
                            "http://%s/v2/%s/manifests/%s" % (self.host, NAME, reference)], capture_output=True)
        assert r.returncode == 0, "registry has no manifest %s (curl exit %d)" % (reference, r.returncode)
        return r.stdout

    def access_log(self):
        with open(self.proc.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        self.proc.stop()


def run(cmd, env=None, timeout=600, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=SOURCE,
                       stdin=subprocess.DEVNULL)
    if check:
        assert r.returncode == 0, "%s: exit %d\n%s\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:], r.stderr[-3000:])
    return r


def key_pair(cosign, directory, env):
    os.makedirs(directory)
    r = subprocess.run([cosign, "generate-key-pair"], cwd=directory, env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 0, r.stderr
    return os.path.join(directory, "cosign.key"), os.path.join(directory, "cosign.pub")


def tampered_image(out, layout):
    """An OCI layout in LAYOUT of the released amd64 image with one config
    label changed: the same files, another digest. Its manifest's digest."""
    archive = os.path.join(out, "plegscope-amd64.tar")
    blobs = os.path.join(layout, "blobs", "sha256")
    os.makedirs(blobs)
    with tarfile.open(archive) as t:
        index = json.load(t.extractfile("index.json"))
        manifest = json.load(t.extractfile("blobs/sha256/" + index["manifests"][0]["digest"].split(":")[1]))
        config = json.load(t.extractfile("blobs/sha256/" + manifest["config"]["digest"].split(":")[1]))
        for layer in manifest["layers"]:
            name = layer["digest"].split(":")[1]
            with open(os.path.join(blobs, name), "wb") as f:
                f.write(t.extractfile("blobs/sha256/" + name).read())
    config["config"].setdefault("Labels", {})["org.opencontainers.image.description"] = "not the release"
    config_bytes = json.dumps(config, sort_keys=True).encode()
    with open(os.path.join(blobs, sha(config_bytes).split(":")[1]), "wb") as f:
        f.write(config_bytes)
    manifest["config"] = dict(manifest["config"], digest=sha(config_bytes), size=len(config_bytes))
    manifest_bytes = json.dumps(manifest, sort_keys=True).encode()
    with open(os.path.join(blobs, sha(manifest_bytes).split(":")[1]), "wb") as f:
        f.write(manifest_bytes)
    with open(os.path.join(layout, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [{
            "mediaType": manifest["mediaType"], "digest": sha(manifest_bytes), "size": len(manifest_bytes),
            "annotations": {"org.opencontainers.image.ref.name": "tampered"}}]}, f)
    with open(os.path.join(layout, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)
    return sha(manifest_bytes)


def cosign_refuses(cosign, env, *args):
    """cosign's stderr when it refuses; fails the test if it accepts."""
    r = subprocess.run([cosign] + list(args) + ["--allow-http-registry"], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, timeout=120)
    assert r.returncode != 0, "cosign %s accepted: %s" % (" ".join(args), r.stdout[-500:])
    return r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""


def pulled(access_lines, digest):
    return any("GET /v2/%s/manifests/%s " % (NAME, digest) in l for l in access_lines)


def install_by_digest(registry, ref, index_digest, built):
    """deploy/ on the real cluster bed with its image at REF@INDEX_DIGEST,
    pulled by the node's containerd from REGISTRY through a hosts.toml;
    BUILT: {arch: image digest}. Returns the figures."""
    figures = {}
    with Cluster() as c:
        c.ctd.write_registry_host(registry.host, "http://" + registry.host)
        assert not any(ref in i for i in c.ctd.images()), "the image is in containerd before the install"
        install.apply_monitoring_crds(c)
        seen = len(registry.access_log())  # what the test itself fetched before
        images = [{"name": "ghcr.io/plegscope/plegscope", "newName": ref, "digest": index_digest}]
        t0 = time.monotonic()
        c.kubectl("apply", "-k", install.overlay(c, ("node-condition",), install.cluster_patch(c), images=images),
                  timeout=120)
        pod = wait_until(lambda: (lambda p: p if install.pod_ready(p) else None)(install.agent_pod(c)), 300,
                         "the DaemonSet's pod Ready from %s@%s" % (ref, index_digest), interval=1.0)
        figures["install_to_ready_s"] = round(time.monotonic() - t0, 1)
        spec_image = pod["spec"]["containers"][0]["image"]
        status = pod["status"]["containerStatuses"][0]
        assert spec_image == "%s@%s" % (ref, index_digest), spec_image
        assert status["imageID"].endswith("@" + index_digest), status["imageID"]
        access = [l for l in registry.access_log()[seen:].splitlines() if "containerd/" in l]
        assert pulled(access, index_digest) and pulled(access, built["amd64"]), \
            "containerd did not pull the index and the amd64 image from the registry: %s" % access[:6]
        assert not pulled(access, built["arm64"]), "the amd64 node pulled the arm64 image"
        figures["containerd_requests"] = len(access)
        install.check_identity(c, pod)
        report = wait_until(lambda: install.agent_report(pod), 60, "/diagnose from the installed agent")
        figures["diagnose_status"] = report.get("status")
        log("installed by digest: pod %s Ready in %.1fs from %s, /diagnose says %s" % (
            pod["metadata"]["name"], figures["install_to_ready_s"], status["imageID"], report.get("status")))
    return figures


def test_release_rehearsed_from_registry_to_the_cluster():
    if os.geteuid() != 0:
        raise harness.Skip("needs root (scripts/build-image: debootstrap, chroot; the cluster)")
    cosign, registry_bin = parts.tool("cosign"), parts.tool("registry")
    for tool in ("skopeo", "curl", "debootstrap", "qemu-aarch64-static"):
        if not shutil.which(tool):
            raise harness.Skip("%s not installed (scripts/install-deps image)" % tool)
    parts.binaries()  # the cluster's parts: a skip naming the build command when missing
    figures = {}
    tmp = tempfile.mkdtemp(prefix="psrel-")
    registry = None
    try:
        t0 = time.monotonic()
        registry = Registry(registry_bin, tmp)
        ref = "%s/%s" % (registry.host, NAME)
        figures["registry_start_s"] = round(time.monotonic() - t0, 1)

        # 2. Built, assembled and pushed as the workflow does it, by digest.
        out = os.path.join(tmp, "out")
        t0 = time.monotonic()
        env = dict(os.environ, PLEGSCOPE_PUSH_TLS_VERIFY="false")
        r = run([os.path.join(SOURCE, "scripts", "release"), "--dry-run", "--push", ref, "--out", out],
                env=env, timeout=5400)
        figures["build_and_push_s"] = round(time.monotonic() - t0, 1)
        print("\n".join(l for l in r.stdout.splitlines() if l.startswith("release:")))
        with open(os.path.join(out, "release.json")) as f:
            release = json.load(f)
        version, index_digest = release["version"], release["index"]
        raw = registry.manifest(index_digest)
        assert sha(raw) == index_digest, "the registry's index is %s, release.json's %s" % (sha(raw), index_digest)
        listed = {m["platform"]["architecture"]: m["digest"] for m in json.loads(raw)["manifests"]}
        built = {a: open(os.path.join(out, "plegscope-%s.digest" % a)).read().strip() for a in ("amd64", "arm64")}
        assert listed == built == release["manifests"], (listed, built, release["manifests"])
        assert sha(registry.manifest(version)) == index_digest, "tag %s is not the index" % version
        for arch, digest in built.items():
            config = json.loads(registry.manifest(digest))["config"]["digest"]
            code, body = harness.http("http://%s/v2/%s/blobs/%s" % (registry.host, NAME, config))
            assert code == 200 and json.loads(body)["architecture"] == arch, (arch, code)
        log("pushed %s@%s: linux/amd64 %s, linux/arm64 %s" % (ref, index_digest, built["amd64"], built["arm64"]))

        # 3. Signed, attested and verified with a key pair of the test's.
        cenv = dict(os.environ, COSIGN_PASSWORD=KEY_PASSWORD, TUF_ROOT=os.path.join(tmp, "tuf"),
                    DOCKER_CONFIG=os.path.join(tmp, "docker"), COSIGN=cosign)
        key, pub = key_pair(cosign, os.path.join(tmp, "keys"), cenv)
        _, other_pub = key_pair(cosign, os.path.join(tmp, "other-keys"), cenv)
        sign_release = os.path.join(SOURCE, "scripts", "sign-release")
        t0 = time.monotonic()
        r = run([sign_release, "sign", "--key", key, "--verify-key", pub, "--http", "--offline", ref, out], env=cenv)
        figures["sign_attest_verify_s"] = round(time.monotonic() - t0, 1)
        said = r.stdout.splitlines()
        print("\n".join(said))
        assert sum("signature of the" in l and "verified" in l for l in said) == 3, said
        assert sum("SBOM attestation of linux/" in l for l in said) == 2, said
        t0 = time.monotonic()
        run([sign_release, "verify", "--key", pub, "--http", "--offline", ref, out], env=cenv)
        figures["verify_s"] = round(time.monotonic() - t0, 1)

        # 4. What a verifier must refuse.
        r = run([sign_release, "verify", "--key", other_pub, "--http", "--offline", ref, out], env=cenv, check=False)
        assert r.returncode == 1 and "verify index" in r.stderr, (r.returncode, r.stderr[-800:])
        log("another key refused: %s" % r.stderr.strip().splitlines()[-1][:200])
        forged = os.path.join(tmp, "forged")
        shutil.copytree(out, forged, ignore=shutil.ignore_patterns("oci", "tree", "*.tar", "*.gz"))
        sbom_path = os.path.join(forged, "plegscope-amd64.spdx.json")
        with open(sbom_path) as f:
            sbom = json.load(f)
        sbom["packages"][1]["versionInfo"] += "+forged"
        with open(sbom_path, "w") as f:
            json.dump(sbom, f)
        r = run([sign_release, "verify", "--key", pub, "--http", "--offline", ref, forged], env=cenv, check=False)
        assert r.returncode == 1 and "none over plegscope-amd64.spdx.json" in r.stderr, (r.returncode, r.stderr[-800:])
        log("an SBOM other than the attested one refused")
        tampered = tampered_image(out, os.path.join(tmp, "tampered"))
        assert tampered not in (index_digest, built["amd64"])
        run(["skopeo", "copy", "--quiet", "--preserve-digests", "--dest-tls-verify=false",
             "oci:%s:tampered" % os.path.join(tmp, "tampered"), "docker://%s:%s" % (ref, version)])
        assert sha(registry.manifest(version)) == tampered, "the tag was not moved to the tampered image"
        flags = ["--key", pub, "--insecure-ignore-tlog=true"]
        refused = [cosign_refuses(cosign, cenv, "verify", *flags, "%s@%s" % (ref, tampered)),
                   cosign_refuses(cosign, cenv, "verify", *flags, "%s:%s" % (ref, version)),
                   cosign_refuses(cosign, cenv, "verify-attestation", "--type", "spdxjson", *flags,
                                  "%s@%s" % (ref, tampered))]
        log("tampered digest %s (tag %s moved to it) refused: %s" % (tampered, version, refused[0][:200]))
        run([sign_release, "verify", "--key", pub, "--http", "--offline", ref, out], env=cenv)
        figures["tampered_digest"] = tampered

        # 5. Installed by the index digest on the real cluster bed, pulled from the registry.
        figures.update(install_by_digest(registry, ref, index_digest, built))
        figures.update({"version": version, "index": index_digest, "manifests": built})
    finally:
        if registry:
            registry.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    outdir = os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory()
    with open(os.path.join(outdir, "release-rehearsal.json"), "w") as f:
        json.dump(figures, f, indent=1, sort_keys=True)
    print("figures: %s" % json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    harness.main(globals())
