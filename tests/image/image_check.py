"""What every image scripts/build-image writes must hold, checked against the
Debian build root it was assembled from (scripts/build-root): its SBOM
(SPDX 2.3, inside the image and next to the archive) lists every file of the
image, each under the package whose dpkg database owns it at the version
dpkg has, and nothing is ours that a Debian package ships. The libcurl
scripts/build-libcurl rebuilt is its own package: built from Debian's curl
source at the root's libcurl4 version, owned by no Debian package, needing
only OpenSSL, zlib and libc."""
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import tarfile
import tempfile

SBOM_IN_IMAGE = "usr/share/doc/plegscope/sbom.spdx.json"
# Ours, not from a package; anything else claimed as ours fails the check.
OURS = {"usr/bin/plegscope", "etc/passwd", "etc/group", "etc/nsswitch.conf", "usr/share/doc/plegscope/LICENSE"}
OURS_DIRS = ("usr/lib/plegscope/openssl-compat/",)
# Made by a package's maintainer script in the build root, owned by no package.
GENERATED = {"etc/ssl/certs/ca-certificates.crt": "ca-certificates"}
# scripts/build-libcurl's library and its source's copyright.
REBUILT_LIBCURL = {"usr/lib/plegscope/libcurl.so.4", "usr/share/doc/plegscope/libcurl/copyright"}
# What an HTTP/HTTPS-only libcurl built with OpenSSL and zlib may need.
LIBCURL_NEEDS = {"libssl.so.3", "libcrypto.so.3", "libz.so.1", "libc.so.6", "ld-linux-aarch64.so.1"}


def cross_dir():
    return os.environ.get("PLEGSCOPE_CROSS_DIR", "/var/tmp/plegscope-cross")


def read_archive(archive):
    """(image config, {path: TarInfo}, {path: bytes}, layer gzip size,
    layer uncompressed size) of a one-layer OCI archive."""
    with tarfile.open(archive) as t:
        index = json.load(t.extractfile("index.json"))
        assert len(index["manifests"]) == 1, index
        manifest = json.load(t.extractfile("blobs/sha256/" + index["manifests"][0]["digest"].split(":")[1]))
        config = json.load(t.extractfile("blobs/sha256/" + manifest["config"]["digest"].split(":")[1]))
        (layer_desc,) = manifest["layers"]
        gz = t.extractfile("blobs/sha256/" + layer_desc["digest"].split(":")[1]).read()
    assert "sha256:" + hashlib.sha256(gz).hexdigest() == layer_desc["digest"]
    raw = gzip.decompress(gz)
    assert config["rootfs"]["diff_ids"] == ["sha256:" + hashlib.sha256(raw).hexdigest()], "diff_id"
    members, data = {}, {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as layer:
        for m in layer.getmembers():
            members[m.name] = m
            if m.isfile():
                data[m.name] = layer.extractfile(m).read()
    return config, members, data, len(gz), len(raw)


def extract(archive, into):
    _, members, data, _, _ = read_archive(archive)
    for name, m in sorted(members.items()):
        path = os.path.join(into, name)
        if m.isdir():
            os.makedirs(path, exist_ok=True)
        elif m.issym():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(m.linkname, path)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data[name])
            os.chmod(path, m.mode)


def _is_dir_link(members, name):
    """A symlink to a directory of the image (merged /usr's /lib): layout."""
    m = members[name]
    target = os.path.normpath(os.path.join(os.path.dirname(name), m.linkname) if not m.linkname.startswith("/")
                              else m.linkname.lstrip("/"))
    return target in members and members[target].isdir()


def resolve(members, path):
    """PATH with the image's symlinks followed (a doc directory may be a
    symlink to another package's: libgcc-s1 -> gcc-12-base)."""
    parts, done = path.split("/"), ""
    for hop in range(100):
        if not parts:
            return done
        cur = (done + "/" + parts.pop(0)).lstrip("/")
        m = members.get(cur)
        if m is not None and m.issym():
            target = m.linkname
            parts = [x for x in target.split("/") if x] + parts
            done = "" if target.startswith("/") else done
        else:
            done = os.path.normpath(cur) if cur else cur
    raise AssertionError("symlink loop resolving " + path)


def dpkg_owners(root, paths):
    """{path: [packages dpkg in ROOT says ship /PATH (or its /usr-less
    spelling)]}: several when Multi-Arch: same packages of two architectures
    share it (a copyright); paths no package ships are left out."""
    spellings = {}
    for path in paths:
        for spelling in ["/" + path] + (["/" + path[4:]] if path.startswith("usr/") else []):
            spellings[spelling] = path
    r = subprocess.run(["dpkg-query", "--admindir=" + os.path.join(root, "var/lib/dpkg"), "-S"] + sorted(spellings),
                       capture_output=True, text=True)
    owners = {}
    for line in r.stdout.splitlines():
        pkgs, _, p = line.partition(": ")
        if p in spellings and not line.startswith("diversion "):
            owners.setdefault(spellings[p], pkgs.split(", "))
    return owners


def dpkg_version(root, pkg):
    r = subprocess.run(["dpkg-query", "--admindir=" + os.path.join(root, "var/lib/dpkg"), "-W", "-f=${Version}", pkg],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def check_sbom(archive, root):
    """Asserts the SBOM's claims against the image's files and ROOT's dpkg.
    Returns a one-line summary."""
    config, members, data, gz, raw = read_archive(archive)
    with open(archive[:-4] + ".spdx.json", "rb") as f:
        beside = f.read()
    assert data[SBOM_IN_IMAGE] == beside, "the SBOM in the image differs from the one next to the archive"
    doc = json.loads(beside)
    # SPDX 2.3's required document, package and file fields
    assert doc["spdxVersion"] == "SPDX-2.3" and doc["dataLicense"] == "CC0-1.0" and doc["SPDXID"] == "SPDXRef-DOCUMENT"
    assert doc["name"] and doc["documentNamespace"].startswith("https://") and doc["creationInfo"]["creators"]
    assert doc["creationInfo"]["created"].endswith("Z")
    packages = {p["SPDXID"]: p for p in doc["packages"]}
    for p in doc["packages"]:
        for field in ("name", "SPDXID", "downloadLocation", "versionInfo"):
            assert p.get(field), (field, p)
    files = {f["SPDXID"]: f for f in doc["files"]}
    for f in doc["files"]:
        assert f["fileName"].startswith("./") and any(c["algorithm"] == "SHA1" for c in f["checksums"]), f
    ids = set(packages) | set(files) | {"SPDXRef-DOCUMENT"}
    owner_of = {}
    for r in doc["relationships"]:
        assert r["spdxElementId"] in ids and r["relatedSpdxElement"] in ids, r
        if r["relationshipType"] == "CONTAINS" and r["relatedSpdxElement"] in files:
            owner_of.setdefault(r["relatedSpdxElement"], []).append(r["spdxElementId"])
        if r["relationshipType"] == "GENERATED_FROM":
            owner_of.setdefault(r["spdxElementId"], []).append(r["relatedSpdxElement"])
    by_path = {f["fileName"][2:]: f for f in doc["files"]}

    # every file and symlink of the image, listed with its content's checksum
    image_files = sorted(n for n, m in members.items()
                         if (m.isfile() or m.issym()) and n != SBOM_IN_IMAGE and not (m.issym() and _is_dir_link(members, n)))
    assert sorted(by_path) == image_files, set(by_path) ^ set(image_files)
    used_packages = set()
    owners = dpkg_owners(root, image_files)
    for name in image_files:
        entry = by_path[name]
        blob = data[name] if members[name].isfile() else members[name].linkname.encode()
        sha256 = {c["algorithm"]: c["checksumValue"] for c in entry["checksums"]}["SHA256"]
        assert sha256 == hashlib.sha256(blob).hexdigest(), name
        (pid,) = owner_of.get(entry["SPDXID"], [None])
        assert pid, "%s: no package contains it" % name
        pkg = packages[pid]
        used_packages.add(pid)
        owner = owners.get(name)
        if pkg["name"] == "plegscope":
            assert owner is None, "%s is claimed as ours but dpkg says %s ships it" % (name, owner)
            assert name in OURS or name.startswith(OURS_DIRS), "%s claimed as ours" % name
        elif pid.startswith("SPDXRef-Package-rebuilt-"):
            assert owner is None, "%s is claimed as rebuilt but dpkg says %s ships it" % (name, owner)
            assert name in REBUILT_LIBCURL and pkg["name"] == "libcurl", (name, pkg["name"])
        elif name in GENERATED:
            assert owner is None and pkg["name"] == GENERATED[name], (name, pkg["name"])
        else:
            assert owner, "%s: no package in %s owns it" % (name, root)
            dpkg_name = pkg["comment"].split(",")[0][len("dpkg: "):]
            assert dpkg_name in owner and dpkg_name.split(":")[0] == pkg["name"], (name, owner, pkg["name"], dpkg_name)
            assert len(owner) == 1 or dpkg_name.endswith(":" + config["architecture"]), (name, owner, dpkg_name)
    # versions as dpkg has them; each package's copyright shipped; none listed without a file
    debian = [p for p in doc["packages"] if p["name"] != "plegscope" and not p["SPDXID"].startswith("SPDXRef-Package-rebuilt-")]
    rebuilt = [p for p in doc["packages"] if p["SPDXID"].startswith("SPDXRef-Package-rebuilt-")]
    # scripts/build-image always ships the rebuilt libcurl, and then Debian's has no file in the image
    assert rebuilt, "no rebuilt libcurl in the SBOM (scripts/build-libcurl)"
    check_rebuilt_libcurl(rebuilt, members, data, used_packages, root, config["architecture"])
    assert not any(p["name"] == "libcurl4" for p in debian), "Debian's libcurl4 listed beside the rebuilt libcurl"
    for p in debian:
        dpkg_name = p["comment"].split(",")[0][len("dpkg: "):]
        assert p["versionInfo"] == dpkg_version(root, dpkg_name), (p["name"], p["versionInfo"])
        copyright = resolve(members, "usr/share/doc/%s/copyright" % p["name"])
        assert copyright in by_path and members[copyright].isfile(), "no copyright for %s" % p["name"]
        assert p["SPDXID"] in used_packages, "%s listed with no file in the image" % p["name"]
    assert config["config"]["User"] == "65532:0" and config["config"]["Entrypoint"] == ["/usr/bin/plegscope"], config
    assert "nonroot:x:65532:" in data["etc/passwd"].decode()
    return ("%s: %d files, %d Debian packages%s, every file owned as dpkg says, versions as dpkg has them; "
            "layer %.1f MB gzip, %.1f MB uncompressed" % (os.path.basename(archive), len(image_files), len(debian),
                                                         " and libcurl rebuilt from curl %s" % rebuilt[0]["versionInfo"],
                                                         gz / 1e6, raw / 1e6))


def check_rebuilt_libcurl(rebuilt, members, data, used_packages, root, arch):
    """The rebuilt libcurl's package: the source and version it names are the
    root's libcurl4's, its flags leave out what it was rebuilt to drop, its
    copyright is in the image, and the library needs nothing beyond OpenSSL,
    zlib and libc."""
    (p,) = rebuilt
    assert p["SPDXID"] in used_packages, "the rebuilt libcurl listed with no file in the image"
    assert p["versionInfo"] == dpkg_version(root, "libcurl4:" + arch), (p["versionInfo"], dpkg_version(root, "libcurl4:" + arch))
    source = p["sourceInfo"]
    assert source.startswith("built by scripts/build-image") and \
        ("Debian source package curl %s," % p["versionInfo"]) in source, source
    for flag in ("--with-openssl", "--disable-ldap", "--without-librtmp", "--without-gssapi", "--without-libssh2",
                 "--without-libidn2", "--without-libpsl", "--without-nghttp2", "--without-brotli"):
        assert flag in source.split(), (flag, source)
    assert p["licenseDeclared"] == "curl", p["licenseDeclared"]
    assert "/usr/share/doc/plegscope/libcurl/copyright" in p["comment"], p["comment"]
    for path in REBUILT_LIBCURL:
        assert path in members and members[path].isfile(), path
    assert b"curl" in data["usr/share/doc/plegscope/libcurl/copyright"]
    with tempfile.NamedTemporaryFile() as f:
        f.write(data["usr/lib/plegscope/libcurl.so.4"])
        f.flush()
        dyn = subprocess.run(["readelf", "-d", "-W", f.name], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn))
    assert "Library soname: [libcurl.so.4]" in dyn, dyn
    assert needed <= LIBCURL_NEEDS, "the rebuilt libcurl needs %s" % sorted(needed - LIBCURL_NEEDS)
