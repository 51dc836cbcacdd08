"""The driver's last words, end to end on either backend with two replicas: the service asks for
them (terminationMessagePolicy FallbackToLogsOnError on the driver's Spark container), kubesim's
kubelet puts the tail of a failed driver's log into its terminated state as the real one does,
and a FAILED job's message ends with the exit code and the line that says why, on either
replica, also once the driver pod is gone (from what the kept record left on the application).
A template's own File policy is kept, and leaves no message. The kept records are counted by
outcome in k8s_job_executor_output_records_total."""

import json
import os
import re
import unittest
import urllib.request

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
OUTPUT_LABEL = "gravitino.apache.org/output"
LAST_WORDS = "gravitino.apache.org/last-words"
WAIT = 60
CAUSE = ("Caused by: java.lang.RuntimeException: kubesim: the job failed as requested "
         "(kubesim.outcome=fail)")
RECORDS = "k8s_job_executor_output_records_total"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape_records(url):
    """outcome -> value of the kept-records counter on one replica."""
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if m and m.group(1) == RECORDS:
            labels = dict(LABEL.findall(m.group(2) or ""))
            out[labels["outcome"]] = float(m.group(3))
    return out


def spark_template(outcome, custom_fields=None):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"], custom_fields=custom_fields or {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": outcome, "kubesim.durationMs": "2000"}))


class LastWordsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  metricsListen: 127.0.0.1:0
""" % cls.cluster.kubeconfig)
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.metrics = [s.metrics_url() for s in cls.servers]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels:
            c.close()
        codes = [s.terminate() for s in cls.servers]
        cls.cluster.stop()
        os.unlink(cls.config)
        assert codes == [0, 0], codes

    def submit(self, job_id, template):
        return self.stubs[0].Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                     template=template),
                                    timeout=kje.RPC_TIMEOUT).execution_id

    def status(self, execution_id, replica=0):
        return self.stubs[replica].Status(pb.StatusRequest(execution_id=execution_id),
                                          timeout=kje.RPC_TIMEOUT)

    def records(self):
        """The kept-records counter summed over the replicas (each record has one writer)."""
        total = {}
        for url in self.metrics:
            for outcome, value in scrape_records(url).items():
                total[outcome] = total.get(outcome, 0) + value
        return total

    def wait_kept(self, execution_id):
        info = kje.wait_until(lambda: (lambda i: i.status in TERMINAL and i)(
            self.status(execution_id, 1)), WAIT, "the job to end")

        def labelled():
            app = self.cluster.app("default", info.name)
            return app and app["metadata"].get("labels", {}).get(OUTPUT_LABEL) and app
        return info, kje.wait_until(labelled, WAIT, "the output label")

    def driver(self, app_name):
        pods = self.cluster.driver_pods("default", app_name)
        self.assertEqual(len(pods), 1)
        pod = pods[0]
        spark = [c for c in pod.spec.containers if c.name == "spark-kubernetes-driver"]
        state = [s for s in pod.status.container_statuses or []
                 if s.name == "spark-kubernetes-driver"]
        return spark[0], (state[0].state.terminated if state else None)

    def delete_driver(self, app_name):
        for pod in self.cluster.driver_pods("default", app_name):
            self.cluster.core.delete_namespaced_pod(pod.metadata.name, "default",
                                                    grace_period_seconds=0)
        kje.wait_until(lambda: not self.cluster.driver_pods("default", app_name), WAIT,
                       "the driver pod to go")

    def test_a_failed_job_says_why_on_either_replica_before_and_after_its_driver_goes(self):
        before = self.records()
        eid = self.submit("words-fail", spark_template("fail"))
        info, app = self.wait_kept(eid)
        self.assertEqual(info.status, S.FAILED, info)

        # The kubelet's part: the policy asked for, the log's tail as the message.
        container, terminated = self.driver(info.name)
        self.assertEqual(container.termination_message_policy, "FallbackToLogsOnError")
        self.assertIsNotNone(terminated)
        self.assertEqual(terminated.exit_code, 1)
        log = "\n".join(self.stubs[0].Output(
            pb.OutputRequest(execution_id=eid, max_lines=1000), timeout=kje.RPC_TIMEOUT).lines)
        message = terminated.message or ""
        self.assertTrue(message.strip(), "no termination message")
        self.assertLessEqual(len(message.encode()), 2048)
        self.assertLessEqual(message.count("\n"), 80)
        self.assertTrue(log.endswith(message.rstrip("\n")), (message, log[-300:]))
        self.assertIn(CAUSE, message)

        words = "driver exit code 1: " + CAUSE
        for replica in (0, 1):
            now = self.status(eid, replica)
            self.assertIn(words, now.message)
            self.assertEqual(now.exit_code, 1)
            self.assertNotIn("Shutdown hook called", now.message)
        self.assertEqual(app["metadata"]["annotations"][LAST_WORDS], CAUSE)
        self.assertEqual(app["metadata"]["labels"]["gravitino.apache.org/exit-code"], "1")

        # Once the pod is gone, the application still carries them.
        self.delete_driver(info.name)
        for replica in (0, 1):
            gone = self.status(eid, replica)
            self.assertEqual(gone.status, S.FAILED)
            self.assertIn(words, gone.message)
            self.assertEqual(gone.exit_code, 1)
            self.assertLessEqual(len(gone.message.encode()), 2048)

        # One record written, by one replica.
        after = self.records()
        self.assertEqual(after.get("kept", 0) - before.get("kept", 0), 1, (before, after))
        self.assertEqual(after.get("failed", 0), 0, after)
        self.assertEqual(set(after), {"kept", "not_kept", "lost_race", "failed"})

    def test_a_templates_own_file_policy_is_kept_and_leaves_no_message(self):
        pod_template = {"spec": {"containers": [{"terminationMessagePolicy": "File"}]}}
        eid = self.submit("words-file", spark_template(
            "fail", {"podTemplate.driver": json.dumps(pod_template)}))
        info, app = self.wait_kept(eid)
        self.assertEqual(info.status, S.FAILED, info)
        container, terminated = self.driver(info.name)
        self.assertEqual(container.termination_message_policy, "File")
        self.assertEqual(terminated.exit_code, 1)
        self.assertFalse(terminated.message)
        for replica in (0, 1):
            now = self.status(eid, replica)
            self.assertNotIn("driver exit code", now.message)
            self.assertNotIn(CAUSE, now.message)
            self.assertEqual(now.exit_code, 1)
        self.assertNotIn(LAST_WORDS, app["metadata"].get("annotations") or {})

    def test_a_success_leaves_no_message(self):
        eid = self.submit("words-ok", spark_template("succeed"))
        info, app = self.wait_kept(eid)
        self.assertEqual(info.status, S.SUCCEEDED, info)
        container, terminated = self.driver(info.name)
        self.assertEqual(container.termination_message_policy, "FallbackToLogsOnError")
        self.assertEqual(terminated.exit_code, 0)
        self.assertFalse(terminated.message)
        self.assertNotIn("driver exit code", self.status(eid, 1).message)
        self.assertNotIn(LAST_WORDS, app["metadata"].get("annotations") or {})


if __name__ == "__main__":
    unittest.main()
