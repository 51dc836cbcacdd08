"""TLS, mutual TLS and bearer-token authentication of callers on the gRPC port, from outside C++:
certificates made with the openssl command line by a throwaway CA, a real TLS client
(python3-grpcio)."""

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

    def test_bearer_token_over_tls(self):
        from jobexecutor.v1 import job_executor_pb2 as pb
        from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
        token_file = os.path.join(self.dir, "callers.token")
        with open(token_file, "w") as f:
            f.write("first-token\n")
        server = kje.Server(self.base + ["--set", "server.tokenFile=" + token_file])
        # A request that gets past authentication fails on its template, before any Kubernetes
        # call; one that doesn't gets UNAUTHENTICATED and nothing else.
        request = pb.SubmitRequest(job_id="7", metalake="m", template=pb.JobTemplate(
            name="t", executable="/opt/app.jar", spark=pb.SparkJob()))

        def submit(stub, token):
            md = [("authorization", "Bearer " + token)] if token is not None else []
            try:
                stub.Submit(request, timeout=kje.RPC_TIMEOUT, metadata=md)
            except grpc.RpcError as e:
                return e.code(), e.details()
            return grpc.StatusCode.OK, ""
        try:
            self.assertIn("caller_auth=token", [l for l in server.lines if "msg=listening" in l][0])
            with self.secure(server) as ch:
                stub = pb_grpc.JobExecutorStub(ch)
                self.assertEqual(kje.health(ch, "readiness"), "SERVING")  # probes need no token
                code, details = submit(stub, None)
                self.assertEqual(code, grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(details, "missing or invalid bearer token")
                self.assertEqual(submit(stub, "wrong")[0], grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(submit(stub, "first-token")[0], grpc.StatusCode.INVALID_ARGUMENT)
                # Rotated (as a Secret volume does: a new file renamed over the old one).
                with open(token_file + ".new", "w") as f:
                    f.write("second-token\n")
                os.rename(token_file + ".new", token_file)
                # The file is looked at on a timer (about once a second), not per request: the
                # new token is accepted from the next look on, and then the old one no longer is.
                kje.wait_until(
                    lambda: submit(stub, "second-token")[0] == grpc.StatusCode.INVALID_ARGUMENT,
                    10, "the rotated token to be accepted")
                self.assertEqual(submit(stub, "first-token")[0], grpc.StatusCode.UNAUTHENTICATED)
        finally:
            self.assertEqual(server.terminate(), 0)
        for line in server.lines:
            self.assertNotIn("first-token", line)
            self.assertNotIn("second-token", line)


if __name__ == "__main__":
    unittest.main(verbosity=2)
