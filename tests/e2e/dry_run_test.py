"""Submit's dry run end to end, on either backend: the application a Submit would create, built
by the server and judged by the API server (kubesim's dryRun=All create), answered through gRPC
and printed by `submit --dry-run` (YAML, or JSON), while nothing is created (no application, no
Secret of the environment: the lists of both are the same before and after). A job id that has an
application answers what Submit would: the same template would be adopted, another is
ALREADY_EXISTS."""

import json
import os
import subprocess
import unittest

import grpc
import kje
import yaml
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

NS = "default"
ENV_VALUE = "e2e-env-value-hunter2"
CONF_VALUE = "e2e-conf-value-s3cr3t"
CLI_TIMEOUT = 120


def spark_template(class_name="org.apache.spark.examples.SparkPi"):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"], environments={"DB_PASSWORD": ENV_VALUE},
        spark=pb.SparkJob(class_name=class_name, configs={
            "kubesim.outcome": "hang", "spark.hadoop.fs.s3a.secret.key": CONF_VALUE}))


class DryRunTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  environmentSecrets: true
server:
  allowedNamespaces: [default, spark-jobs]
""" % cls.cluster.kubeconfig)
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        os.unlink(cls.config)
        assert code == 0, code
        for line in cls.server.lines:
            assert ENV_VALUE not in line and CONF_VALUE not in line, line

    def objects(self):
        """The names of the applications and Secrets there are."""
        apps = sorted(a["metadata"]["name"] for a in self.cluster.apps(NS))
        secrets = sorted(s.metadata.name for s in
                         self.cluster.core.list_namespaced_secret(NS).items)
        return apps, secrets

    def submit(self, job_id, template, dry_run):
        return self.stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                 template=template, dry_run=dry_run),
                                timeout=kje.RPC_TIMEOUT)

    def cli(self, *args):
        p = subprocess.run([kje.BINARY, *args, "--server", self.server.address],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
        return p.returncode, p.stdout, p.stderr

    def assert_no_secret_shown(self, text):
        self.assertNotIn(ENV_VALUE, text)
        self.assertNotIn(CONF_VALUE, text)

    def test_a_dry_run_answers_the_application_and_creates_nothing(self):
        before = self.objects()
        answer = self.submit("dry-1", spark_template(), dry_run=True)
        self.assertFalse(answer.adopted)
        self.assertTrue(answer.execution_id.endswith("/%s/gravitino-job-dry-1" % NS),
                        answer.execution_id)
        self.assert_no_secret_shown(answer.application)
        app = json.loads(answer.application)
        self.assertEqual(kje.OPERATOR_UNDER_TEST.group + "/" + kje.OPERATOR_UNDER_TEST.version,
                         app["apiVersion"])
        meta = app["metadata"]
        self.assertEqual("gravitino-job-dry-1", meta["name"])
        # The API server's answer: its uid and time, no resourceVersion (nothing was stored).
        self.assertTrue(meta["uid"])
        self.assertTrue(meta["creationTimestamp"])
        self.assertNotIn("resourceVersion", meta)
        self.assertEqual("dry-1", meta["labels"]["gravitino.apache.org/job-id"])
        self.assertIn("gravitino.apache.org/template-hash", meta["annotations"])
        # The environment's Secret is named, not made, and its values are nowhere.
        self.assertIn("gravitino-job-dry-1-env", answer.application)
        self.assertIn("******", answer.application)

        # The CLI: YAML by default, JSON with -o json, the same application.
        args = ["submit", "--job-id", "dry-1", "--metalake", "lake", "--name", "spark-pi",
                "--executable", "local:///opt/spark/examples/jars/spark-examples.jar",
                "--class", "org.apache.spark.examples.SparkPi", "--conf", "kubesim.outcome=hang",
                "--conf", "spark.hadoop.fs.s3a.secret.key=" + CONF_VALUE, "--dry-run"]
        code, out, err = self.cli(*args)
        self.assertEqual(0, code, err)
        self.assert_no_secret_shown(out + err)
        shown = yaml.safe_load(out)
        self.assertEqual("gravitino-job-dry-1", shown["metadata"]["name"])
        self.assertEqual(app["kind"], shown["kind"])
        self.assertIn("nothing created (server dry run)", err)
        code, out, err = self.cli(*args, "-o", "json")
        self.assertEqual(0, code, err)
        self.assertEqual("gravitino-job-dry-1", json.loads(out)["metadata"]["name"])

        self.assertEqual(before, self.objects())

    def test_a_taken_job_id_answers_what_submit_would(self):
        created = self.submit("dry-2", spark_template(), dry_run=False)
        self.assertFalse(created.adopted)
        kje.wait_until(lambda: self.cluster.app(NS, "gravitino-job-dry-2") is not None, 30,
                       "the application")
        before = self.objects()
        again = self.submit("dry-2", spark_template(), dry_run=True)
        self.assertTrue(again.adopted)
        self.assertEqual(created.execution_id, again.execution_id)
        existing = json.loads(again.application)
        # The application as it is, stored: it has a resourceVersion.
        self.assertTrue(existing["metadata"]["resourceVersion"])
        self.assert_no_secret_shown(again.application)
        with self.assertRaises(grpc.RpcError) as refused:
            self.submit("dry-2", spark_template(class_name="org.example.Other"), dry_run=True)
        self.assertEqual(grpc.StatusCode.ALREADY_EXISTS, refused.exception.code())
        self.assertIn("differs in", refused.exception.details())
        self.assertEqual(before, self.objects())
        self.stub.Cancel(pb.CancelRequest(execution_id=created.execution_id),
                         timeout=kje.RPC_TIMEOUT)

    def test_a_namespace_outside_the_policy_is_refused_creating_nothing(self):
        before = self.objects()
        template = spark_template()
        template.spark.configs["spark.kubernetes.namespace"] = "elsewhere"
        with self.assertRaises(grpc.RpcError) as refused:
            self.submit("dry-3", template, dry_run=True)
        self.assertEqual(grpc.StatusCode.PERMISSION_DENIED, refused.exception.code())
        self.assertEqual(before, self.objects())


if __name__ == "__main__":
    unittest.main()
