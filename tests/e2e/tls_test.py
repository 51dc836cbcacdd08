"""TLS and mutual TLS on the gRPC port, from outside C++: certificates made with the openssl
command line by a throwaway CA, a real TLS client (python3-grpcio)."""

import os
import shutil
import subprocess
import tempfile
import unittest

import grpc

import kje


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True)


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1/localhost and a client certificate."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
            "-days", "2", "-subj", "/CN=kje-test-ca", cwd=d)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    for name in ("server", "client"):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
                name + ".csr", "-subj", "/CN=" + name, cwd=d)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", name + ".crt", "-days", "2", "-extfile",
                name + ".ext", cwd=d)


def read(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


class TlsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="kje-tls-")
        make_pki(cls.dir)
        cls.kubeconfig = kje.unreachable_kubeconfig()
        cls.base = ["--config", os.path.join(kje.SOURCE_DIR, "examples", "config.yaml"),
                    "--set", "kubeconfig=" + cls.kubeconfig,
                    "--set", "server.tls.certFile=" + os.path.join(cls.dir, "server.crt"),
                    "--set", "server.tls.keyFile=" + os.path.join(cls.dir, "server.key")]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)
        os.unlink(cls.kubeconfig)

    def secure(self, server, with_client_cert=False):
        creds = grpc.ssl_channel_credentials(
            root_certificates=read(self.dir, "ca.crt"),
            private_key=read(self.dir, "client.key") if with_client_cert else None,
            certificate_chain=read(self.dir, "client.crt") if with_client_cert else None)
        return grpc.secure_channel(server.address, creds)

    def test_tls(self):
        server = kje.Server(self.base)
        try:
            self.assertIn("tls=true", [l for l in server.lines if "msg=listening" in l][0])
            with self.secure(server) as ch:
                self.assertEqual(kje.health(ch, "readiness"), "SERVING")
            # Plaintext to a TLS port gets nowhere.
            with server.channel() as ch:
                with self.assertRaises(grpc.RpcError) as err:
                    kje.health(ch)
                self.assertEqual(err.exception.code(), grpc.StatusCode.UNAVAILABLE)
            # A client that doesn't trust our CA refuses the server.
            other = grpc.ssl_channel_credentials(root_certificates=read(self.dir, "client.crt"))
            with grpc.secure_channel(server.address, other) as ch:
                with self.assertRaises(grpc.RpcError):
                    kje.health(ch)
        finally:
            self.assertEqual(server.terminate(), 0)

    def test_mutual_tls_requires_a_client_certificate(self):
        server = kje.Server(self.base + [
            "--set", "server.tls.clientCaFile=" + os.path.join(self.dir, "ca.crt")])
        try:
            self.assertIn("mtls=true", [l for l in server.lines if "msg=listening" in l][0])
            with self.secure(server, with_client_cert=True) as ch:
                self.assertEqual(kje.health(ch), "SERVING")
            with self.secure(server, with_client_cert=False) as ch:
                with self.assertRaises(grpc.RpcError) as err:
                    kje.health(ch)
                self.assertEqual(err.exception.code(), grpc.StatusCode.UNAVAILABLE)
        finally:
            self.assertEqual(server.terminate(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
