"""Build the e2e images locally: static binaries compiled with gcc, packed into
an OCI image layout tarball (oci-layout, index.json, manifest, config, one
gzip layer, all addressed by sha256), ready for `ctr images import`.
Nothing comes from a registry."""

import gzip
import hashlib
import io
import json
import os
import subprocess
import tarfile

IMAGES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")

PAUSE_IMAGE = "localhost/plegscope-e2e/pause:1"
WORKLOAD_IMAGE = "localhost/plegscope-e2e/workload:1"


def compile_static(source, out):
    """gcc -static SOURCE -o OUT; raises with gcc's message on failure."""
    r = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-o", out, source],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("gcc -static %s failed: %s" % (source, r.stderr.strip()))
    return out


def _sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _layer(files):
    """files: {path_in_image: (bytes, mode)}. Returns (uncompressed, gzipped)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = {"dev", "etc", "proc", "sys", "tmp"}
        for path in files:
            parts = path.strip("/").split("/")[:-1]
            for i in range(len(parts)):
                dirs.add("/".join(parts[: i + 1]))
        for d in sorted(dirs):
            ti = tarfile.TarInfo(d)
            ti.type = tarfile.DIRTYPE
            ti.mode = 0o1777 if d == "tmp" else 0o755
            tar.addfile(ti)
        for path, (data, mode) in sorted(files.items()):
            ti = tarfile.TarInfo(path.strip("/"))
            ti.size = len(data)
            ti.mode = mode
            tar.addfile(ti, io.BytesIO(data))
    raw = buf.getvalue()
    gz = io.BytesIO()
    with gzip.GzipFile(fileobj=gz, mode="wb", mtime=0) as g:
        g.write(raw)
    return raw, gz.getvalue()


def build_oci_tarball(name, files, entrypoint, out_path):
    """Writes an OCI image layout tarball for image NAME (e.g.
    localhost/x/y:tag) with one layer holding FILES and the given entrypoint.
    Returns the manifest digest."""
    raw, gz = _layer(files)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Entrypoint": entrypoint, "Env": ["PATH=/"], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [_sha(raw)]},
        "history": [{"created_by": "plegscope e2e (gcc -static)"}],
    }
    config_b = json.dumps(config, sort_keys=True).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": _sha(config_b), "size": len(config_b)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                    "digest": _sha(gz), "size": len(gz)}],
    }
    manifest_b = json.dumps(manifest, sort_keys=True).encode()
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else "latest"
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": _sha(manifest_b), "size": len(manifest_b),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"io.containerd.image.name": name,
                            "org.opencontainers.image.ref.name": tag},
        }],
    }
    blobs = {_sha(b): b for b in (gz, config_b, manifest_b)}
    with tarfile.open(out_path, "w") as tar:
        def add(path, data, mode=0o644):
            ti = tarfile.TarInfo(path)
            ti.size = len(data)
            ti.mode = mode
            tar.addfile(ti, io.BytesIO(data))
        for d in ("blobs", "blobs/sha256"):
            ti = tarfile.TarInfo(d)
            ti.type = tarfile.DIRTYPE
            ti.mode = 0o755
            tar.addfile(ti)
        add("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
        add("index.json", json.dumps(index, sort_keys=True).encode())
        for digest, data in sorted(blobs.items()):
            add("blobs/sha256/" + digest.split(":", 1)[1], data)
    return _sha(manifest_b)


def build_e2e_images(workdir):
    """Compiles pause and workload statically and writes their OCI tarballs
    into WORKDIR. Returns {image_name: tarball_path}."""
    os.makedirs(workdir, exist_ok=True)
    out = {}
    for name, src, binary in ((PAUSE_IMAGE, "pause.c", "pause"),
                              (WORKLOAD_IMAGE, "workload.c", "workload")):
        exe = compile_static(os.path.join(IMAGES_DIR, src), os.path.join(workdir, binary))
        with open(exe, "rb") as f:
            data = f.read()
        tarball = os.path.join(workdir, binary + "-oci.tar")
        build_oci_tarball(name, {binary: (data, 0o755)}, ["/" + binary], tarball)
        out[name] = tarball
    return out
