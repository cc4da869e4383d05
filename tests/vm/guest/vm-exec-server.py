#!/usr/bin/python3
"""The VM's only door for the host (tests/vm/vm.py): one JSON request per TCP
connection on port 7000, forwarded by qemu to a 127.0.0.1 port on the host.

Request:  {"argv": [...], "timeout": seconds, "input": str (optional)}\n
Reply:    {"rc": int, "out": str, "err": str}\n  (rc 124 on timeout)

Runs as root inside the VM: it is the test's hand there, as `kubectl debug
node` or ssh would be on a real node. Never started on the host."""
import json
import socketserver
import subprocess


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline()
        try:
            req = json.loads(line)
            r = subprocess.run(req["argv"], input=req.get("input"), capture_output=True, text=True,
                               timeout=req.get("timeout", 60))
            rep = {"rc": r.returncode, "out": r.stdout, "err": r.stderr}
        except subprocess.TimeoutExpired as e:
            rep = {"rc": 124, "out": (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes)
                   else (e.stdout or ""), "err": "timed out after %ss" % req.get("timeout", 60)}
        except Exception as e:  # noqa: BLE001 - the reply says what went wrong
            rep = {"rc": 125, "out": "", "err": "exec server: %r" % e}
        self.wfile.write((json.dumps(rep) + "\n").encode())


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


if __name__ == "__main__":
    with Server(("0.0.0.0", 7000), Handler) as s:
        s.serve_forever()
