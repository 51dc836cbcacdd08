"""Staged dependencies end to end on either backend with a real S3-compatible server (s3rver from
npm, started here on loopback, port 0, with a key pair of the test's own): `submit -f` uploads a local jar and .py (the jar larger than one part: a multipart
upload) and the job runs to SUCCEEDED with presigned URLs that the store serves; another
replica stores nothing again; the sweep removes what no application names, after the grace
period, and keeps what one does until it is gone; the store's secret is in no log line, answer
or application."""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest
import urllib.request

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
OPERATOR_WAIT = 60
KEY_ID = "KJETESTKEYID"
SECRET = "kje-test-secret-%s" % os.urandom(8).hex()
BUCKET = "kje-staging"
PART = 5 << 20
GRACE_MS = 4000


class S3Server:
    """s3rver on loopback; stopped by stop()."""

    def __init__(self):
        bin_path = subprocess.run([os.path.join(kje.SOURCE_DIR, "scripts", "fetch-s3rver.sh")],
                                  capture_output=True, text=True, check=True,
                                  timeout=600).stdout.strip()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(bin_path))))
        self.dir = tempfile.mkdtemp(prefix="kje-s3rver-")
        main = os.path.join(kje.SOURCE_DIR, "scripts", "s3rver-main.js")
        data = os.path.join(self.dir, "data")
        os.mkdir(data)
        env = dict(os.environ, KJE_KEY_ID=KEY_ID, KJE_SECRET=SECRET)
        self.proc = subprocess.Popen(["node", main, root, data, BUCKET], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=env)
        line = self.proc.stdout.readline()
        m = re.match(r"listening (\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError("s3rver didn't start: %r" % line)
        self.endpoint = "http://127.0.0.1:%s" % m.group(1)
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def upload_requests(files, chunk=1 << 20):
    for name, data in files:
        yield pb.UploadArtifactsRequest(header=pb.ArtifactHeader(
            name=name, size=len(data), sha256=hashlib.sha256(data).hexdigest()))
        for i in range(0, len(data), chunk):
            yield pb.UploadArtifactsRequest(data=data[i:i + chunk])


class StagingS3Test(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.s3 = S3Server()
        cls.cluster = kje.Kubesim()
        cls.work = tempfile.mkdtemp(prefix="kje-staging-s3-")
        cls.key_file = os.path.join(cls.work, "key-id")
        cls.secret_file = os.path.join(cls.work, "secret")
        with open(cls.key_file, "w") as f:
            f.write(KEY_ID + "\n")
        with open(cls.secret_file, "w") as f:
            f.write(SECRET + "\n")
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
staging:
  store: s3
  urlMode: presigned
  presignExpirySeconds: 3600
  multipartPartBytes: %d
  sweepIntervalMs: 500
  sweepGraceMs: %d
  s3:
    endpoint: %s
    bucket: %s
    accessKeyFile: %s
    secretKeyFile: %s
""" % (cls.cluster.kubeconfig, PART, GRACE_MS, cls.s3.endpoint, BUCKET, cls.key_file,
       cls.secret_file))
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels:
            c.close()
        codes = [s.terminate() for s in cls.servers]
        cls.cluster.stop()
        cls.s3.stop()
        os.unlink(cls.config)
        shutil.rmtree(cls.work, ignore_errors=True)
        # The secret is in no line either replica logged.
        for s in cls.servers:
            for line in s.lines:
                assert SECRET not in line, line
        assert codes == [0, 0], codes

    def fetch(self, url):
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read()

    def status(self, execution_id):
        return self.stubs[0].Status(pb.StatusRequest(execution_id=execution_id),
                                    timeout=kje.RPC_TIMEOUT)

    def test_a_local_job_runs_from_presigned_urls_and_its_files_go_with_it(self):
        jar = os.urandom(PART + 123457)  # two parts: a multipart upload
        py = b"print('staged in s3')\n"
        for name, data in (("deps.jar", jar), ("main.py", py)):
            with open(os.path.join(self.work, name), "wb") as f:
                f.write(data)
        job = os.path.join(self.work, "job.yaml")
        with open(job, "w") as f:
            f.write("""
jobId: "4201"
metalake: lake
template:
  name: staged-s3
  executable: main.py
  spark:
    jars: [deps.jar]
    configs:
      kubesim.durationMs: "300"
""")
        env = dict(os.environ)
        env.pop("K8S_JOB_EXECUTOR_SERVER", None)
        p = subprocess.run([kje.BINARY, "submit", "-f", job, "--server", self.servers[1].address],
                           capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn(SECRET, p.stdout + p.stderr)
        execution_id = p.stdout.strip()
        app = self.cluster.app("default", "gravitino-job-4201")
        text = repr(app)
        self.assertNotIn(SECRET, text)
        self.assertNotIn("staged:", text)
        urls = sorted(set(re.findall(r"http://127\.0\.0\.1:\d+/[^'\" ,\]]+", text)))
        self.assertEqual(len(urls), 2, text)
        fetched = {hashlib.sha256(self.fetch(u)).hexdigest() for u in urls}
        self.assertEqual(fetched, {hashlib.sha256(jar).hexdigest(), hashlib.sha256(py).hexdigest()})
        # s3rver checks the key id but not a SigV4 signature's value: the signer's values are
        # checked against AWS's published examples (tests/staging/sigv4_test.cc).
        self.assertIn("X-Amz-Credential=%s%%2F" % KEY_ID, urls[0])

        info = kje.wait_until(
            lambda: (lambda i: i if i.status in (S.SUCCEEDED, S.FAILED) else None)(
                self.status(execution_id)), OPERATOR_WAIT, "the staged job to finish")
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)

        # Another replica: nothing stored again.
        again = self.stubs[1].UploadArtifacts(upload_requests([("main.py", py)]),
                                              timeout=kje.RPC_TIMEOUT)
        self.assertTrue(again.artifacts[0].already_stored)
        self.assertNotIn(SECRET, str(again))

        # Kept while the application names them (well past the grace period), gone after.
        kje.wait_until(lambda: self.swept_past_grace(), 30, "a sweep past the grace period")
        for u in urls:
            self.assertTrue(self.fetch(u))
        self.cluster.custom.delete_namespaced_custom_object(
            self.cluster.operator.group, self.cluster.operator.version, "default",
            "sparkapplications", "gravitino-job-4201")

        def gone():
            for u in urls:
                try:
                    self.fetch(u)
                    return False
                except urllib.error.HTTPError as e:
                    if e.code != 404:
                        raise
            return True
        kje.wait_until(gone, 60, "the staged files to be removed after the application")

    def swept_past_grace(self):
        # A file no job names is removed by a sweep once past the grace period; uploading the
        # same bytes again tells (already_stored) without changing what is stored. Once it went,
        # the sweeps have judged the job's older files too.
        if not hasattr(self, "_probe"):
            self._probe = os.urandom(64)
            self.upload_probe()
        return not self.upload_probe().already_stored

    def upload_probe(self):
        return self.stubs[0].UploadArtifacts(upload_requests([("probe.txt", self._probe)]),
                                             timeout=kje.RPC_TIMEOUT).artifacts[0]

if __name__ == "__main__":
    unittest.main()
