"""The one-node cluster's certificates and keys, made with openssl.

One CA signs the API server's serving certificate, the kubelet's serving
certificate, and a client certificate for each component (its user name in
CN, its groups in O, as the API server's x509 authenticator reads them). The
service-account key pair signs and verifies ServiceAccount tokens.
"""

import os
import subprocess


def _openssl(*args, cwd):
    r = subprocess.run(["openssl"] + list(args), cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("openssl %s failed: %s" % (args[0], r.stderr.strip()))


class Pki:
    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.ca_cert = self.path("ca.crt")
        self.ca_key = self.path("ca.key")
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                 "-days", "2", "-subj", "/CN=plegscope-cluster-ca", cwd=directory)
        _openssl("genrsa", "-out", "sa.key", "2048", cwd=directory)
        _openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=directory)
        self.sa_key = self.path("sa.key")
        self.sa_pub = self.path("sa.pub")

    def path(self, name):
        return os.path.join(self.dir, name)

    def issue(self, name, cn, orgs=(), dns=(), ips=(), server=False):
        """(cert, key) paths of a certificate for CN/O signed by the CA; a
        serving certificate names its DNS names and IPs as subjectAltNames."""
        subj = "/CN=" + cn + "".join("/O=" + o for o in orgs)
        ext = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
               "extendedKeyUsage=" + ("serverAuth" if server else "clientAuth")]
        sans = ["DNS:" + d for d in dns] + ["IP:" + i for i in ips]
        if sans:
            ext.append("subjectAltName=" + ",".join(sans))
        with open(self.path(name + ".ext"), "w") as f:
            f.write("\n".join(ext) + "\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                 "-subj", subj, cwd=self.dir)
        _openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-out", name + ".crt", "-extfile", name + ".ext", cwd=self.dir)
        return self.path(name + ".crt"), self.path(name + ".key")

    def kubeconfig(self, name, server, user_cert=None, user_key=None, token=None):
        """A kubeconfig for SERVER with a client certificate or a bearer token."""
        user = ("    client-certificate: %s\n    client-key: %s\n" % (user_cert, user_key) if user_cert
                else "    token: %s\n" % token)
        text = ("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                "    server: %s\n    certificate-authority: %s\n"
                "users:\n- name: u\n  user:\n%s"
                "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
                % (server, self.ca_cert, user))
        path = self.path(name + ".kubeconfig")
        with open(path, "w") as f:
            f.write(text)
        return path
