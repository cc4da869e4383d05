"""scripts/release's parts that need no image build, and the publishing
workflow it runs in:

- the kustomization's image set by digest changes that entry's newTag and
  digest lines only, and kustomize renders the DaemonSet's image as
  NAME:VERSION@DIGEST;
- every runbook_url of the shipped rules names the runbook at tag vVERSION,
  at a section it has (and a URL off the tag is refused);
- two small images (scripts/oci_image.py) become one OCI layout whose index
  skopeo reads back, and copies with --preserve-digests, unchanged;
- .github/workflows/release.yml passes yamllint and actionlint (built from
  its Go module by scripts/install-deps into ~/.cache/plegscope), and runs
  scripts/release with --push, scripts/sign-release keyless (cosign built
  from its module), SBOM attestations and provenance, every action pinned
  by commit;
- scripts/sign-release (on a stand-in cosign) refuses bad input with exit
  2, and an attestation over another SBOM than the released one.

The full dry run (both images built, minutes, as root) is
`scripts/release --dry-run`."""
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ecolib
import harness
import yaml

sys.path.insert(0, ecolib.path("scripts"))
import oci_image  # noqa: E402

ACTIONLINT = os.path.expanduser(os.path.join(os.environ.get("PLEGSCOPE_CACHE", "~/.cache/plegscope"),
                                             "actionlint-v1.7.12", "actionlint"))
WORKFLOW = ecolib.path(".github/workflows/release.yml")
DIGEST = "sha256:" + "ab" * 32


def release_module():
    loader = importlib.machinery.SourceFileLoader("release", ecolib.path("scripts/release"))
    spec = importlib.util.spec_from_loader("release", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_kustomization_takes_the_digest_and_nothing_else():
    release = release_module()
    before = open(ecolib.path("deploy/kustomization.yaml")).read()
    version = release.project_version()
    after = release.with_digest(before, "ghcr.io/plegscope/plegscope", version, DIGEST)
    assert release.with_digest(after, "ghcr.io/plegscope/plegscope", version, DIGEST) == after
    changed = [l for l in after.splitlines() if l not in before.splitlines()]
    assert [l.strip() for l in changed] == ["digest: " + DIGEST], changed
    (entry,) = [i for i in yaml.safe_load(after)["images"] if i["name"] == "ghcr.io/plegscope/plegscope"]
    assert entry["digest"] == DIGEST and entry["newTag"] == version, entry
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ecolib.path("deploy"), os.path.join(tmp, "deploy"))
        with open(os.path.join(tmp, "deploy", "kustomization.yaml"), "w") as f:
            f.write(after)
        r = subprocess.run([shutil.which("kubectl"), "kustomize", os.path.join(tmp, "deploy")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    images = re.findall(r"image: (\S+)", r.stdout)
    assert "ghcr.io/plegscope/plegscope:%s@%s" % (version, DIGEST) in images, images


def test_runbook_urls_name_the_release_tag():
    release = release_module()
    assert release.runbook_urls(release.project_version(), ecolib.path(".")) > 10


def test_a_runbook_url_off_the_tag_is_refused():
    release = release_module()
    with tempfile.TemporaryDirectory() as tmp:
        for rel in ("CMakeLists.txt", release.MIXIN_CONFIG, release.RUNBOOK) + release.RULE_FILES:
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            shutil.copy(ecolib.path(rel), os.path.join(tmp, rel))
        rules = os.path.join(tmp, release.RULE_FILES[0])
        text = open(rules).read()
        with open(rules, "w") as f:
            f.write(text.replace("/blob/v", "/blob/main-v", 1))
        release.ROOT = tmp
        try:
            release.runbook_urls(release.project_version(), tmp)
        except release.ReleaseError as e:
            assert "main-v" in str(e), e
        else:
            raise AssertionError("a runbook_url at a branch was accepted")


def small_image(out, arch):
    layer = oci_image.layer_tar({"etc": ("dir", None, 0o755), "etc/arch": ("file", arch.encode(), 0o644)})
    digest, _, _ = oci_image.write_oci(out, layer, oci_image.image_config(arch, "0.0.0", 0), "example.com/p:0.0.0")
    with open(out[:-4] + ".digest", "w") as f:
        f.write(digest + "\n")
    return digest


def test_two_images_one_index_that_skopeo_keeps():
    release = release_module()
    with tempfile.TemporaryDirectory() as out:
        images = {}
        for arch in release.ARCHES:
            archive = os.path.join(out, "plegscope-%s.tar" % arch)
            images[arch] = (archive, small_image(archive, arch))
        index = release.oci_layout(out, images, "0.0.0")
        blob = open(os.path.join(out, "oci", "blobs", "sha256", index.split(":")[1]), "rb").read()
        assert oci_image.sha(blob) == index
        listed = json.loads(blob)["manifests"]
        assert [(m["platform"]["architecture"], m["digest"]) for m in listed] == \
            [(a, images[a][1]) for a in release.ARCHES], listed
        assert index == release.oci_layout(out, images, "0.0.0"), "the index is not reproducible"
        release.check_layout(out, "0.0.0", index)  # raises unless skopeo reads and copies it unchanged


def test_workflow_lints_and_publishes_what_it_says():
    r = subprocess.run(["yamllint", "-d", "{extends: default, rules: {line-length: {max: 130}, "
                        "document-start: disable, truthy: {check-keys: false}}}", WORKFLOW],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([ACTIONLINT, "-shellcheck=", "-pyflakes=", WORKFLOW], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    flow = yaml.safe_load(open(WORKFLOW))
    steps = flow["jobs"]["release"]["steps"]
    text = json.dumps(steps)
    assert "scripts/release --push" in text
    # Signing, the SBOM attestations and their verification are the rehearsal's
    # script (tests/release runs it with a key pair), keyless here.
    assert "scripts/sign-release sign --keyless" in text and "scripts/build-tools cosign" in text
    assert any(s.get("uses", "").startswith("actions/attest-build-provenance@") for s in steps)
    perms = flow["jobs"]["release"]["permissions"]
    assert perms["id-token"] == "write" and perms["packages"] == "write", perms
    assert "build-image --arch all" in json.dumps(flow["jobs"]["reproduce"]["steps"])
    # Every action pinned by commit, its tag named beside it for whoever bumps it.
    raw = open(WORKFLOW).read()
    uses = re.findall(r"^\s*(?:- )?uses:\s*(\S+)(.*)$", raw, re.M)
    assert uses, "no action in the workflow"
    unpinned = [u for u, comment in uses if not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u)
                or not re.match(r"\s*#\s*v\d", comment)]
    assert not unpinned, "actions not pinned by commit (with '# vX.Y.Z' beside): %s" % unpinned


def release_out(tmp):
    """A release's OUT (release.json and both SBOMs) in TMP, as scripts/release writes it."""
    digests = {"amd64": "sha256:" + "a1" * 32, "arm64": "sha256:" + "b2" * 32}
    with open(os.path.join(tmp, "release.json"), "w") as f:
        json.dump({"version": "0.0.0", "index": DIGEST, "manifests": digests}, f)
    for arch in digests:
        with open(os.path.join(tmp, "plegscope-%s.spdx.json" % arch), "w") as f:
            json.dump({"spdxVersion": "SPDX-2.3", "name": arch, "packages": [{"name": "p"}], "files": []}, f)
    return digests


STUB_COSIGN = """#!/usr/bin/env python3
# cosign as scripts/sign-release sees it: verify passes, verify-attestation
# prints one DSSE envelope whose statement names $STUB_SUBJECT over the SBOM
# in $STUB_PREDICATE_DIR/plegscope-<arch of the digest>.spdx.json.
import base64, json, os, sys
args = sys.argv[1:]
if args[0] == "verify-attestation":
    digest = [a for a in args if "@sha256:" in a][0].split("@")[1]
    arch = json.load(open(os.path.join(os.environ["STUB_PREDICATE_DIR"], "arches.json")))[digest]
    pred = json.load(open(os.path.join(os.environ["STUB_PREDICATE_DIR"], "plegscope-%s.spdx.json" % arch)))
    st = {"_type": "https://in-toto.io/Statement/v1", "predicateType": "https://spdx.dev/Document",
          "subject": [{"name": "r", "digest": {"sha256": digest.split(":")[1]}}], "predicate": pred}
    print(json.dumps({"payloadType": "application/vnd.in-toto+json",
                      "payload": base64.b64encode(json.dumps(st).encode()).decode(), "signatures": []}))
"""


def test_sign_release_compares_the_attested_sbom_with_the_release():
    """scripts/sign-release's own checks, on a stand-in cosign: bad input is
    exit 2 with one line; an attestation over the released SBOM passes, one
    over another SBOM (the same signer, the same digest) is refused."""
    script = ecolib.path("scripts/sign-release")
    with tempfile.TemporaryDirectory() as tmp:
        out, attested = os.path.join(tmp, "out"), os.path.join(tmp, "attested")
        os.makedirs(out)
        os.makedirs(attested)
        digests = release_out(out)
        release_out(attested)
        with open(os.path.join(attested, "arches.json"), "w") as f:
            json.dump({d: a for a, d in digests.items()}, f)
        cosign = os.path.join(tmp, "cosign")
        with open(cosign, "w") as f:
            f.write(STUB_COSIGN)
        os.chmod(cosign, 0o755)
        key = os.path.join(tmp, "cosign.pub")
        open(key, "w").close()
        env = dict(os.environ, COSIGN=cosign, STUB_PREDICATE_DIR=attested)

        def sign_release(*args):
            return subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True, env=env)
        for bad in (["verify", "r.example/p", out], ["verify", "--key", key, "r.example/p:1", out],
                    ["verify", "--key", key, "r.example/p", tmp], ["sign", "--key", key, "r.example/p", out]):
            r = sign_release(*bad)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (bad, r.returncode, r.stderr)
        r = sign_release("verify", "--key", key, "r.example/p", out)
        assert r.returncode == 0, r.stderr
        assert r.stdout.count("verified") == 5, r.stdout
        sbom = os.path.join(attested, "plegscope-arm64.spdx.json")
        doc = json.load(open(sbom))
        doc["packages"][0]["versionInfo"] = "other"
        json.dump(doc, open(sbom, "w"))
        r = sign_release("verify", "--key", key, "r.example/p", out)
        assert r.returncode == 1 and "linux/arm64" in r.stderr and "none over" in r.stderr, (r.returncode, r.stderr)


if __name__ == "__main__":
    missing = [t for t in ("yamllint", "skopeo", "kubectl") if not shutil.which(t)]
    if not os.access(ACTIONLINT, os.X_OK):
        missing.append(ACTIONLINT)
    if missing:
        print("missing %s (scripts/install-deps test)" % ", ".join(missing))
        sys.exit(77)
    harness.main(globals())
