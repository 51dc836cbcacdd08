"""Staged dependencies read through s3a:// on either backend (urlMode s3a), with a real
S3-compatible server (s3rver, started here): `submit -f` uploads a local jar and .py, the
application names `s3a://` URIs, the store's endpoint and the Secret the pods read the
credentials from, and no credential; kubesim's driver reads the files with the credentials its
pod gets from that Secret (a SigV4-signed GET) and the job runs to SUCCEEDED; a Secret holding
the wrong key fails the driver with hadoop-aws's AccessDeniedException; the staged objects are
removed once the application is gone; the store's secret is in no log line, answer, application
or pod, only in the Secret."""

import base64
import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from staging_s3_test import BUCKET, KEY_ID, SECRET, S3Server, upload_requests

S = pb.JobInfo.Status
OPERATOR_WAIT = 60
CREDENTIALS_SECRET = "kje-s3-creds"


def b64(text):
    return base64.b64encode(text.encode()).decode()


class StagingS3aTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.s3 = S3Server()
        cls.cluster = kje.Kubesim()
        cls.work = tempfile.mkdtemp(prefix="kje-staging-s3a-")
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
  urlMode: s3a
  sweepIntervalMs: 500
  sweepGraceMs: 4000
  s3:
    endpoint: %s
    bucket: %s
    accessKeyFile: %s
    secretKeyFile: %s
    credentialsSecret: %s
""" % (cls.cluster.kubeconfig, cls.s3.endpoint, BUCKET, cls.key_file, cls.secret_file,
       CREDENTIALS_SECRET))
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)
        # The Secret the pods read: what an operator of the deployment creates in each namespace
        # jobs run in. In spark-jobs it holds a key the store doesn't know.
        for ns, key_id, secret in (("default", KEY_ID, SECRET),
                                   ("spark-jobs", "WRONGKEYID", "wrong-secret-value")):
            cls.cluster.core.create_namespaced_secret(ns, {
                "metadata": {"name": CREDENTIALS_SECRET},
                "data": {"AWS_ACCESS_KEY_ID": b64(key_id), "AWS_SECRET_ACCESS_KEY": b64(secret)}})

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        cls.s3.stop()
        os.unlink(cls.config)
        shutil.rmtree(cls.work, ignore_errors=True)
        for line in cls.server.lines:
            assert SECRET not in line, line
        assert code == 0, code

    def stored(self, name, data):
        """Whether s3rver holds the staged object (its filesystem layout: <key>._S3rver_object)."""
        return os.path.isfile(os.path.join(
            self.s3.dir, "data", BUCKET, "sha256", hashlib.sha256(data).hexdigest(),
            name + "._S3rver_object"))

    def wait_done(self, execution_id):
        def done():
            info = self.stub.Status(pb.StatusRequest(execution_id=execution_id),
                                    timeout=kje.RPC_TIMEOUT)
            return info if info.status in (S.SUCCEEDED, S.FAILED) else None
        return kje.wait_until(done, OPERATOR_WAIT, "the job to finish")

    def output(self, execution_id):
        return list(self.stub.Output(pb.OutputRequest(execution_id=execution_id),
                                     timeout=kje.RPC_TIMEOUT).lines)

    def test_a_local_job_runs_from_s3a_with_the_secret_the_pods_reference(self):
        jar = os.urandom(70000)
        py = b"print('read through s3a %s')\n" % os.urandom(6).hex().encode()
        for name, data in (("deps.jar", jar), ("main.py", py)):
            with open(os.path.join(self.work, name), "wb") as f:
                f.write(data)
        job = os.path.join(self.work, "job.yaml")
        with open(job, "w") as f:
            f.write("""
jobId: "4301"
metalake: lake
template:
  name: staged-s3a
  executable: main.py
  spark:
    jars: [deps.jar]
    configs:
      kubesim.durationMs: "300"
""")
        env = dict(os.environ)
        env.pop("K8S_JOB_EXECUTOR_SERVER", None)
        p = subprocess.run([kje.BINARY, "submit", "-f", job, "--server", self.server.address],
                           capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn(SECRET, p.stdout + p.stderr)
        execution_id = p.stdout.strip()

        app = self.cluster.app("default", "gravitino-job-4301")
        text = repr(app)
        for name, data in (("deps.jar", jar), ("main.py", py)):
            self.assertIn("s3a://%s/sha256/%s/%s" % (BUCKET, hashlib.sha256(data).hexdigest(),
                                                    name), text)
        conf = app["spec"]["sparkConf"]
        self.assertEqual(conf["spark.hadoop.fs.s3a.endpoint"], self.s3.endpoint)
        for role in ("driver", "executor"):
            for env_name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
                self.assertEqual(conf["spark.kubernetes.%s.secretKeyRef.%s" % (role, env_name)],
                                 "%s:%s" % (CREDENTIALS_SECRET, env_name))
        self.assertNotIn(SECRET, text)
        self.assertNotIn(KEY_ID, text)
        self.assertNotIn("staged:", text)

        info = self.wait_done(execution_id)
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)
        self.assertNotIn(SECRET, str(info))
        out = self.output(execution_id)
        self.assertTrue(out)
        self.assertFalse([l for l in out if SECRET in l or "taken as fetched" in l], out)
        # The driver's credentials come from the Secret, by reference only.
        pod = self.cluster.core.read_namespaced_pod(info.driver_pod, "default")
        self.assertNotIn(SECRET, repr(pod.spec))
        refs = {e.name: e.value_from.secret_key_ref.name for c in pod.spec.containers
                for e in (c.env or []) if e.value_from and e.value_from.secret_key_ref}
        self.assertEqual(refs.get("AWS_SECRET_ACCESS_KEY"), CREDENTIALS_SECRET, refs)

        # Gone with the application.
        self.assertTrue(self.stored("deps.jar", jar) and self.stored("main.py", py))
        self.cluster.custom.delete_namespaced_custom_object(
            self.cluster.operator.group, self.cluster.operator.version, "default",
            "sparkapplications", "gravitino-job-4301")
        kje.wait_until(lambda: not self.stored("deps.jar", jar) and not self.stored("main.py", py),
                       OPERATOR_WAIT, "the staged objects to be removed after the application")

    def test_the_wrong_key_in_the_secret_fails_the_driver_as_hadoop_aws_does(self):
        data = os.urandom(5000)
        ref = self.stub.UploadArtifacts(upload_requests([("denied.jar", data)]),
                                        timeout=kje.RPC_TIMEOUT).artifacts[0].reference
        t = pb.JobTemplate(name="staged-denied", executable=ref, arguments=["2"], spark=pb.SparkJob(
            class_name="org.apache.spark.examples.SparkPi",
            configs={"kubesim.durationMs": "300", "spark.kubernetes.namespace": "spark-jobs"}))
        resp = self.stub.Submit(pb.SubmitRequest(job_id="4302", metalake="lake", template=t),
                                timeout=kje.RPC_TIMEOUT)
        info = self.wait_done(resp.execution_id)
        self.assertEqual(S.Name(info.status), "FAILED", info)
        uri = "s3a://%s/sha256/%s/denied.jar" % (BUCKET, hashlib.sha256(data).hexdigest())
        out = self.output(resp.execution_id)
        self.assertIn('Exception in thread "main" java.nio.file.AccessDeniedException: ' + uri +
                      ": getFileStatus on " + uri +
                      ": com.amazonaws.services.s3.model.AmazonS3Exception: Status Code: 403", out)
        self.assertFalse([l for l in out if "wrong-secret-value" in l or SECRET in l], out)


if __name__ == "__main__":
    unittest.main()
