"""Staged dependencies end to end on either backend, with the shared-volume store: `submit -f`
uploads a job's local jar and .py through UploadArtifacts and the job runs to SUCCEEDED with
local:// URIs under the pods' mount of the volume; a retried upload and another replica store
once; a corrupted upload, a bad name, data before a header and a file over the bound are refused
and leave nothing; an unknown reference is refused by name and creates nothing; a staged file
deleted from the store before the driver starts fails the driver with Spark's fetch error.

kubesim models the shared volume as the host path (its README), so the pods mount it at the
directory the test created."""

import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
OPERATOR_WAIT = 60
MAX_FILE = 262144


def header(name, data, sha=None):
    return pb.UploadArtifactsRequest(header=pb.ArtifactHeader(
        name=name, size=len(data), sha256=sha or hashlib.sha256(data).hexdigest()))


def upload_requests(files, chunk=65536):
    for name, data in files:
        yield header(name, data)
        for i in range(0, len(data), chunk):
            yield pb.UploadArtifactsRequest(data=data[i:i + chunk])


def stored_files(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


class StagingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.volume = tempfile.mkdtemp(prefix="kje-staging-volume-")
        cls.work = tempfile.mkdtemp(prefix="kje-staging-work-")
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
staging:
  store: volume
  volume:
    path: %s
    claimName: kje-staging
    mountPath: %s
  maxFileBytes: %d
""" % (cls.cluster.kubeconfig, cls.volume, cls.volume, MAX_FILE))
        # Two replicas over the same volume, as a Deployment with a ReadWriteMany claim has.
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels:
            c.close()
        codes = [s.terminate() for s in cls.servers]
        cls.cluster.stop()
        os.unlink(cls.config)
        shutil.rmtree(cls.volume, ignore_errors=True)
        shutil.rmtree(cls.work, ignore_errors=True)
        assert codes == [0, 0], codes

    def upload(self, requests, stub=None):
        return (stub or self.stubs[0]).UploadArtifacts(iter(list(requests)),
                                                       timeout=kje.RPC_TIMEOUT)

    def refused(self, requests):
        with self.assertRaises(grpc.RpcError) as caught:
            self.upload(requests)
        return caught.exception

    def test_submit_f_uploads_local_files_and_the_job_succeeds(self):
        jar = os.urandom(100000)
        py = b"print('hello from a staged file')\n"
        with open(os.path.join(self.work, "deps.jar"), "wb") as f:
            f.write(jar)
        with open(os.path.join(self.work, "main.py"), "wb") as f:
            f.write(py)
        job = os.path.join(self.work, "job.yaml")
        with open(job, "w") as f:
            f.write("""
jobId: "4101"
metalake: lake
template:
  name: staged-etl
  executable: main.py
  spark:
    jars: [deps.jar]
    configs:
      kubesim.durationMs: "500"
""")
        env = dict(os.environ)
        env.pop("K8S_JOB_EXECUTOR_SERVER", None)
        p = subprocess.run([kje.BINARY, "submit", "-f", job, "--server", self.servers[1].address],
                           capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        execution_id = p.stdout.strip()
        self.assertIn("staged ", p.stderr)
        # Not a terminal: no progress line redrawn with \r.
        self.assertNotIn("\r", p.stderr)
        jar_path = "sha256/%s/deps.jar" % hashlib.sha256(jar).hexdigest()
        py_path = "sha256/%s/main.py" % hashlib.sha256(py).hexdigest()
        stored = stored_files(self.volume)
        self.assertEqual(stored.get(jar_path), jar)
        self.assertEqual(stored.get(py_path), py)
        app = self.cluster.app("default", "gravitino-job-4101")
        text = repr(app)
        self.assertIn("local://%s/%s" % (self.volume, py_path), text)
        self.assertIn("local://%s/%s" % (self.volume, jar_path), text)
        self.assertIn("staging", text)
        self.assertNotIn("staged:", text)

        def done():
            info = self.stubs[0].Status(pb.StatusRequest(execution_id=execution_id),
                                        timeout=kje.RPC_TIMEOUT)
            return info if info.status in (S.SUCCEEDED, S.FAILED) else None
        info = kje.wait_until(done, OPERATOR_WAIT, "the staged job to finish")
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)

    def test_a_retry_and_another_replica_store_once(self):
        data = os.urandom(50000)
        first = self.upload(upload_requests([("lib.jar", data)]))
        self.assertFalse(first.artifacts[0].already_stored)
        before = stored_files(self.volume)
        retry = self.upload(upload_requests([("lib.jar", data)]))
        other = self.upload(upload_requests([("lib.jar", data)]), stub=self.stubs[1])
        for answer in (retry, other):
            self.assertTrue(answer.artifacts[0].already_stored)
            self.assertEqual(answer.artifacts[0].reference, first.artifacts[0].reference)
        self.assertEqual(stored_files(self.volume), before)
        self.assertEqual(first.artifacts[0].reference,
                         "staged:sha256:%s/lib.jar" % hashlib.sha256(data).hexdigest())

    def test_corrupted_and_malformed_uploads_are_refused_and_leave_nothing(self):
        before = stored_files(self.volume)
        good = os.urandom(1000)
        e = self.refused([header("x.jar", good, sha=hashlib.sha256(b"other").hexdigest()),
                          pb.UploadArtifactsRequest(data=good)])
        self.assertEqual(e.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("checksum mismatch", e.details())
        e = self.refused([pb.UploadArtifactsRequest(data=b"x")])
        self.assertEqual(e.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("before a header", e.details())
        e = self.refused([header("../evil.jar", b"x"), pb.UploadArtifactsRequest(data=b"x")])
        self.assertEqual(e.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("directory separator", e.details())
        e = self.refused([header("short.jar", b"abcdef"), pb.UploadArtifactsRequest(data=b"abc")])
        self.assertEqual(e.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("is short", e.details())
        big = b"b" * (MAX_FILE + 1)
        e = self.refused(upload_requests([("big.jar", big)]))
        self.assertEqual(e.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        self.assertIn("staging.maxFileBytes", e.details())
        self.assertEqual(stored_files(self.volume), before)

    def test_an_unknown_reference_is_refused_by_name(self):
        ref = "staged:sha256:%s/never.jar" % ("0" * 64)
        t = pb.JobTemplate(name="staged-missing", executable=ref,
                           spark=pb.SparkJob(class_name="x.Main"))
        with self.assertRaises(grpc.RpcError) as caught:
            self.stubs[0].Submit(pb.SubmitRequest(job_id="4102", metalake="lake", template=t),
                                 timeout=kje.RPC_TIMEOUT)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn(ref, caught.exception.details())
        self.assertIsNone(self.cluster.app("default", "gravitino-job-4102"))

    def test_a_staged_file_deleted_before_the_driver_starts_fails_the_driver(self):
        data = os.urandom(3000)
        ref = self.upload(upload_requests([("gone.jar", data)])).artifacts[0].reference
        path = os.path.join(self.volume, "sha256", hashlib.sha256(data).hexdigest(), "gone.jar")
        self.assertTrue(os.path.isfile(path))
        # A Secret the driver's env needs holds its container until the test creates it.
        hold = "kje-fetch-hold"
        t = pb.JobTemplate(name="staged-gone", executable=ref, arguments=["2"], spark=pb.SparkJob(
            class_name="org.apache.spark.examples.SparkPi",
            configs={"kubesim.durationMs": "500",
                     "spark.kubernetes.driver.secretKeyRef.HOLD": hold + ":k"}))
        resp = self.stubs[0].Submit(pb.SubmitRequest(job_id="4103", metalake="lake", template=t),
                                    timeout=kje.RPC_TIMEOUT)

        def driver_held():
            for pod in self.cluster.core.list_namespaced_pod("default").items:
                if "4103" not in pod.metadata.name or "driver" not in pod.metadata.name:
                    continue
                for c in (pod.status.container_statuses or []):
                    if c.state.waiting and c.state.waiting.reason == "CreateContainerConfigError":
                        return pod
            return None
        kje.wait_until(driver_held, OPERATOR_WAIT, "the driver to be held for its Secret")
        os.remove(path)
        self.cluster.core.create_namespaced_secret("default", {
            "metadata": {"name": hold}, "stringData": {"k": "x"}})
        self.addCleanup(self.cluster.core.delete_namespaced_secret, hold, "default")

        def done():
            info = self.stubs[1].Status(pb.StatusRequest(execution_id=resp.execution_id),
                                        timeout=kje.RPC_TIMEOUT)
            return info if info.status in (S.SUCCEEDED, S.FAILED) else None
        info = kje.wait_until(done, OPERATOR_WAIT, "the job to end")
        self.assertEqual(S.Name(info.status), "FAILED", info)
        out = self.stubs[0].Output(pb.OutputRequest(execution_id=resp.execution_id),
                                   timeout=kje.RPC_TIMEOUT)
        wanted = ('Exception in thread "main" java.io.FileNotFoundException: %s '
                  "(No such file or directory)" % path)
        self.assertIn(wanted, list(out.lines))
        # Nothing of the job's main ran.
        self.assertFalse(any("Pi is roughly" in l for l in out.lines), out.lines)


if __name__ == "__main__":
    unittest.main()
