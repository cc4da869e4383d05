"""The OCI side of scripts/assemble-image: the image config, the layer's
tar, the archive, each written so that the same files give the same bytes
(and so the same digest) on every build of one commit.

What would otherwise vary between two builds, and what it is fixed to:
  - time: every "created" (config, history, the SBOM's) is SOURCE_DATE_EPOCH,
    which scripts/build-image takes from the commit; every tar entry's mtime
    is 0;
  - owner: every tar entry is uid/gid 0 with no user or group name;
  - order: tar entries sorted by path, JSON with sorted keys;
  - compression: gzip with no file name and mtime 0, at level 9.
A file's content and mode are the layer's only inputs."""
import datetime
import gzip
import hashlib
import io
import json
import os
import tarfile


class BuildInputError(Exception):
    """A build input that cannot give a reproducible image."""


def source_date_epoch():
    """SOURCE_DATE_EPOCH (seconds; scripts/build-image sets the commit's
    time), which every timestamp of the image is; unset, 0 (1970), which
    is as fixed."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "0")
    if not value.isdigit():
        raise BuildInputError("SOURCE_DATE_EPOCH=%r: expected the commit time in seconds "
                              "(git log -1 --format=%%ct)" % value)
    return int(value)


def rfc3339(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def image_config(arch, version, created=0, labels=None):
    """The OCI image config, but for its rootfs."""
    return {
        "architecture": arch, "os": "linux", "created": rfc3339(created),
        "config": {
            # Not root: uid 65532 with group 0 reaches the runtime's root:root
            # 0660 socket; the DaemonSet adds the journal's group (docs/install.md
            # "Privileges, and why"). Numeric, so that runAsNonRoot can check it.
            "User": "65532:0",
            "Entrypoint": ["/usr/bin/plegscope"], "Cmd": ["serve"],
            "Env": ["PATH=/usr/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
            "ExposedPorts": {"9547/tcp": {}}, "WorkingDir": "/",
            "Labels": dict({"org.opencontainers.image.version": version,
                            "org.opencontainers.image.licenses": "Apache-2.0",
                            "org.opencontainers.image.created": rfc3339(created)}, **(labels or {})),
        },
        "history": [{"created": rfc3339(created),
                     "created_by": "scripts/build-image (distroless, from Debian 12 packages)"}],
    }


def layer_tar(entries):
    """entries: {path: ("dir"|"file"|"link"|"dirlink", data or target, mode)}."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for path in sorted(entries):
            kind, data, mode = entries[path]
            ti = tarfile.TarInfo(path)
            ti.mode, ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = mode, 0, 0, 0, "", ""
            if kind == "dir":
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif kind in ("link", "dirlink"):
                ti.type, ti.linkname = tarfile.SYMTYPE, data
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def gzipped(data):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", fileobj=out, mode="wb", mtime=0, compresslevel=9) as g:
        g.write(data)
    return out.getvalue()


def write_oci(out, layer, config, tag):
    """Writes OUT (an OCI archive for `ctr images import` or buildah's
    oci-archive:) and returns (manifest digest, gzip size, tar size)."""
    gz = gzipped(layer)
    config = dict(config, rootfs={"type": "layers", "diff_ids": [sha(layer)]})
    config_b = json.dumps(config, sort_keys=True).encode()
    manifest = {
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(config_b), "size": len(config_b)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(gz), "size": len(gz)}],
    }
    manifest_b = json.dumps(manifest, sort_keys=True).encode()
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
             "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                            "digest": sha(manifest_b), "size": len(manifest_b),
                            "platform": {"architecture": config["architecture"], "os": "linux"},
                            "annotations": {"io.containerd.image.name": tag,
                                            "org.opencontainers.image.ref.name": tag.rsplit(":", 1)[1]}}]}
    with tarfile.open(out + ".tmp", "w", format=tarfile.PAX_FORMAT) as t:
        def add(path, data=None):
            ti = tarfile.TarInfo(path)
            ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
            if data is None:
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                t.addfile(ti)
            else:
                ti.size, ti.mode = len(data), 0o644
                t.addfile(ti, io.BytesIO(data))
        add("blobs")
        add("blobs/sha256")
        add("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
        add("index.json", json.dumps(index, sort_keys=True).encode())
        for blob in sorted((config_b, manifest_b, gz), key=sha):
            add("blobs/sha256/" + sha(blob).split(":", 1)[1], blob)
    os.replace(out + ".tmp", out)
    return sha(manifest_b), len(gz), len(layer)


def read_lock(path, root_name):
    """{package as dpkg names it: version} of one build root in
    scripts/build-root.lock."""
    locked = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3 and fields[0] == root_name:
                locked[fields[1]] = fields[2]
    return locked


def unlocked(packages, locked):
    """The image's Debian packages ({dpkg name: {"version": ...}}) whose
    version is not the lock's, as "name version (locked: V)" lines."""
    return ["%s %s (locked: %s)" % (name, info["version"], locked.get(name, "none"))
            for name, info in sorted(packages.items()) if locked.get(name) != info["version"]]
