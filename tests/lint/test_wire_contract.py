"""plegscope's CRI proto against the upstream one: every message, field, enum
value and method plegscope declares has the upstream api.proto's number,
type, cardinality and name, in the k8s.io/cri-api module at the version
proto/UPSTREAM pins (scripts/install-deps fetches it with go). Both files go
through protoc, so what is compared is what the compiler makes of them, not
what a regular expression makes of the text.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("PLEGSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
OURS = os.path.join(ROOT, "proto", "cri_runtime_v1.proto")
PIN = os.path.join(ROOT, "proto", "UPSTREAM")
UPSTREAM_PATH = "pkg/apis/runtime/v1/api.proto"
DESCRIPTOR_INCLUDES = ["/usr/include", "/usr/local/include"]

sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness  # noqa: E402


def pinned_module():
    with open(PIN) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                module, version = line.split()
                return module, version
    raise AssertionError("%s names no module" % PIN)


def upstream_proto():
    module, version = pinned_module()
    if not shutil.which("go"):
        harness.skip("go is not installed: the upstream %s@%s cannot be found" % (module, version))
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    path = os.path.join(cache, "%s@%s" % (module, version), UPSTREAM_PATH)
    if not os.path.exists(path):
        harness.skip("%s is missing: scripts/install-deps test fetches %s@%s" % (path, module, version))
    return path


# ---- protoc's descriptor, as text format, into nested dicts ----

# Field options that change logs, not the wire, and that Debian 12's protoc
# (3.21) does not know: dropped from a copy before compiling.
LOG_ONLY_OPTION = re.compile(r"\[\s*debug_redact\s*=\s*true\s*\]")


def descriptor_text(proto_path):
    with tempfile.TemporaryDirectory() as tmp:
        with open(proto_path) as f:
            text = LOG_ONLY_OPTION.sub("", f.read())
        copy = os.path.join(tmp, os.path.basename(proto_path))
        with open(copy, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "set.pb")
        compiled = subprocess.run(["protoc", "--proto_path=" + tmp, "--descriptor_set_out=" + out, copy],
                                  capture_output=True, text=True)
        assert compiled.returncode == 0, "protoc refused %s: %s" % (proto_path, compiled.stderr.strip())
        include = next((d for d in DESCRIPTOR_INCLUDES
                        if os.path.exists(os.path.join(d, "google/protobuf/descriptor.proto"))), None)
        if include is None:
            harness.skip("google/protobuf/descriptor.proto is not installed (libprotobuf-dev)")
        with open(out, "rb") as f:
            return subprocess.run(["protoc", "--proto_path=" + include,
                                   "--decode=google.protobuf.FileDescriptorSet", "google/protobuf/descriptor.proto"],
                                  stdin=f, capture_output=True, check=True).stdout.decode()


def parse_text_format(text):
    """Protobuf text format into {key: [values]}, a message value a dict."""
    stack = [{}]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
        elif line.endswith("{"):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
        else:
            key, value = line.split(":", 1)
            value = value.strip()
            if value.startswith('"'):
                value = value[1:-1]
            stack[-1].setdefault(key.strip(), []).append(value)
    return stack[0]


def one(d, key, default=""):
    return d.get(key, [default])[0]


def declarations(proto_path):
    """{"message X": {field name: (number, label, type, type_name)}, "enum X": {...},
    "rpc S.M": (input, output, client_streaming, server_streaming)}"""
    files = parse_text_format(descriptor_text(proto_path))["file"]
    out = {}

    def messages(msgs, prefix):
        for m in msgs:
            name = prefix + one(m, "name")
            out["message " + name] = {one(f, "name"): (one(f, "number"), one(f, "label"), one(f, "type"),
                                                        one(f, "type_name").rsplit(".", 1)[-1])
                                      for f in m.get("field", [])}
            enums(m.get("enum_type", []), name + ".")
            messages(m.get("nested_type", []), name + ".")

    def enums(es, prefix):
        for e in es:
            out["enum " + prefix + one(e, "name")] = {one(v, "name"): one(v, "number") for v in e.get("value", [])}

    for f in files:
        messages(f.get("message_type", []), "")
        enums(f.get("enum_type", []), "")
        for s in f.get("service", []):
            for m in s.get("method", []):
                out["rpc %s.%s" % (one(s, "name"), one(m, "name"))] = (
                    one(m, "input_type"), one(m, "output_type"),
                    one(m, "client_streaming", "false"), one(m, "server_streaming", "false"))
    return out


def differences(ours, upstream):
    """What plegscope declares that upstream declares otherwise (or not at all)."""
    found = []
    for what, mine in sorted(ours.items()):
        theirs = upstream.get(what)
        if theirs is None:
            found.append("%s: not in upstream" % what)
        elif what.startswith("rpc "):
            if mine != theirs:
                found.append("%s: ours %r, upstream %r" % (what, mine, theirs))
        else:
            for name, decl in sorted(mine.items()):
                if name not in theirs:
                    found.append("%s.%s: not in upstream" % (what, name))
                elif decl != theirs[name]:
                    found.append("%s.%s: ours %r, upstream %r" % (what, name, decl, theirs[name]))
    return found


_upstream = {}


def upstream():
    if not _upstream:
        _upstream["path"] = upstream_proto()
        _upstream["declarations"] = declarations(_upstream["path"])
    return _upstream["path"], _upstream["declarations"]


def test_every_declaration_is_upstreams():
    path, theirs = upstream()
    ours = declarations(OURS)
    found = differences(ours, theirs)
    print("%d declarations of plegscope's proto checked against %s" % (len(ours), path))
    assert found == [], "plegscope's proto differs from upstream:\n  " + "\n  ".join(found)


def test_streamed_lists_are_lists():
    ours = declarations(OURS)
    for message, field in (("StreamContainersResponse", "containers"), ("StreamPodSandboxesResponse", "pod_sandboxes")):
        assert ours["message " + message][field][1] == "LABEL_REPEATED", message


def test_a_changed_cardinality_is_caught():
    """The comparison itself: the singular field of the streaming KEP's text
    (not what shipped) must be reported."""
    _, theirs = upstream()
    with open(OURS) as f:
        text = f.read()
    bad = text.replace("message StreamContainersResponse { repeated Container containers = 1; }",
                       "message StreamContainersResponse { Container containers = 1; }")
    assert bad != text
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, os.path.basename(OURS))
        with open(path, "w") as f:
            f.write(bad)
        found = differences(declarations(path), theirs)
    assert len(found) == 1 and "StreamContainersResponse.containers" in found[0], found


if __name__ == "__main__":
    harness.main(globals())
