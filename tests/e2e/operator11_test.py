"""Operators 1.0 and 1.1 end to end: the real binary against kubesim in each mode (1.1 with
spec.suspend, Suspended, resume as a new attempt, Kueue holds), with the #14230 and submit-parity
rules: a held job is not lost to the no-status timeout, a suspended job comes back, a finished
driver whose sidecar still runs keeps its pod and its log, client mode is refused."""

import os
import time
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
OPERATOR_WAIT = 60
NO_STATUS_TIMEOUT_S = 3  # the server's noStatusTimeoutMs below


def spark_template(outcome="succeed", duration_ms=2000, extra_configs=None):
    configs = {"kubesim.outcome": outcome, "kubesim.durationMs": str(duration_ms)}
    configs.update(extra_configs or {})
    return pb.JobTemplate(
        name="spark-pi", comment="SparkPi",
        executable="local:///opt/spark/examples/jars/spark-examples.jar", arguments=["100"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=configs))


class Common:
    """What holds on every operator version; each TestCase below runs it against its own."""

    OPERATOR_VERSION = None

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(operator_version=cls.OPERATOR_VERSION)
        cls.config = kje.write_temp("""
kubeconfig: %s
noStatusTimeoutMs: %d
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  driverStartTimeoutMs: 20000
  resourceRetainDurationMs: 600000
server:
  allowedNamespaces: [default, spark-jobs, unwatched]
""" % (cls.cluster.kubeconfig, NO_STATUS_TIMEOUT_S * 1000))
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

    def submit(self, job_id, template):
        return self.stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake", template=template),
                                timeout=kje.RPC_TIMEOUT)

    def status(self, execution_id):
        return self.stub.Status(pb.StatusRequest(execution_id=execution_id),
                                timeout=kje.RPC_TIMEOUT)

    def wait_status(self, execution_id, wanted, seen=None):
        def poll():
            info = self.status(execution_id)
            if seen is not None and (not seen or seen[-1] != info.status):
                seen.append(info.status)
            if info.status == wanted or info.status in TERMINAL:
                return info
            return None
        info = kje.wait_until(poll, OPERATOR_WAIT, "%s to be %s" % (execution_id, S.Name(wanted)))
        self.assertEqual(S.Name(info.status), S.Name(wanted), info)
        return info

    def patch_app(self, namespace, name, body):
        self.cluster.custom.patch_namespaced_custom_object(
            "spark.apache.org", "v1", namespace, "sparkapplications", name, body)

    def create_held_app(self, job_id, spec_extra=None, labels_extra=None):
        """A SparkApplication shaped like ours, created as a Java peer or a user would."""
        name = "gravitino-job-%s" % job_id
        labels = {"app.kubernetes.io/managed-by": "gravitino", "gravitino.apache.org/job-id": job_id}
        labels.update(labels_extra or {})
        spec = {"mainClass": "org.apache.spark.examples.SparkPi",
                "jars": "local:///opt/spark/examples/jars/spark-examples.jar",
                "sparkConf": {"spark.kubernetes.container.image": "apache/spark:4.0.0",
                              "kubesim.durationMs": "2000"},
                "runtimeVersions": {"sparkVersion": "4.0.0"},
                "applicationTolerations": {"restartConfig": {"restartPolicy": "Never"},
                                           "resourceRetainPolicy": "Always"}}
        spec.update(spec_extra or {})
        self.cluster.custom.create_namespaced_custom_object(
            "spark.apache.org", "v1", "default", "sparkapplications",
            {"apiVersion": "spark.apache.org/v1", "kind": "SparkApplication",
             "metadata": {"name": name, "namespace": "default", "labels": labels,
                          "annotations": {"gravitino.apache.org/metalake": "lake"}},
             "spec": spec})
        return name, "default/sparkapp/default/" + name

    def assert_held(self, name, execution_id):
        """QUEUED, never deleted, for twice the no-status timeout (what is asserted is that
        nothing happens, so the test watches for that long)."""
        deadline = time.monotonic() + 2 * NO_STATUS_TIMEOUT_S + 1
        polls = 0
        while time.monotonic() < deadline:
            info = self.status(execution_id)
            self.assertEqual(S.Name(info.status), "QUEUED", info)
            app = self.cluster.app("default", name)
            self.assertIsNotNone(app, "the held app was deleted")
            self.assertNotIn("deletionTimestamp", app["metadata"])
            self.assertNotIn("status", app)  # 1.1 writes none while it holds the app
            polls += 1
            time.sleep(0.2)
        self.assertGreater(polls, 5)

    # --- #14230: the driver container decides -----------------------------------------------------

    def test_finished_driver_with_running_sidecar_keeps_its_pod_and_log(self):
        resp = self.submit("4004", spark_template(
            outcome="fail", extra_configs={"kubesim.sidecars": "log-shipper"}))
        name = "gravitino-job-4004"
        info = self.wait_status(resp.execution_id, S.FAILED)
        self.assertTrue(info.driver_pod)
        pods = self.cluster.driver_pods("default", name)
        self.assertEqual(len(pods), 1)
        self.assertEqual(pods[0].status.phase, "Running")  # the sidecar keeps it so
        # Status again and again: the orphan-driver rule must not take the finished driver.
        for _ in range(5):
            self.assertEqual(S.Name(self.status(resp.execution_id).status), "FAILED")
        pods = self.cluster.driver_pods("default", name)
        self.assertEqual(len(pods), 1)
        self.assertIsNone(pods[0].metadata.deletion_timestamp)
        out = self.stub.Output(pb.OutputRequest(execution_id=resp.execution_id),
                               timeout=kje.RPC_TIMEOUT)
        self.assertTrue(any("SparkContext" in l for l in out.lines), out.lines)
        self.assertFalse(any("sidecar started" in l for l in out.lines), out.lines)

    # --- submit parity --------------------------------------------------------------------------

    def test_client_mode_and_local_master_are_refused(self):
        for key, value, job_id in (("spark.submit.deployMode", "client", "4005"),
                                   ("spark.master", "local[2]", "4006")):
            with self.assertRaises(grpc.RpcError) as err:
                self.submit(job_id, spark_template(extra_configs={key: value}))
            self.assertEqual(err.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn(key, err.exception.details())
            self.assertIsNone(self.cluster.app("default", "gravitino-job-" + job_id))



class Operator10Test(Common, unittest.TestCase):
    OPERATOR_VERSION = "1.0"

    def test_spec_suspend_is_pruned_and_the_job_runs(self):
        # The 1.0 CRD has no spec.suspend: the API server drops it and the operator runs the app.
        name, execution_id = self.create_held_app("4101", spec_extra={"suspend": True})
        self.assertNotIn("suspend", self.cluster.app("default", name)["spec"])
        self.wait_status(execution_id, S.SUCCEEDED)


class Operator11Test(Common, unittest.TestCase):
    OPERATOR_VERSION = "1.1"

    # --- held without a status --------------------------------------------------------------------

    def test_suspended_at_creation_stays_queued_past_the_no_status_timeout(self):
        name, execution_id = self.create_held_app("4001", spec_extra={"suspend": True})
        app = self.cluster.app("default", name)
        self.assertIs(app["spec"]["suspend"], True)
        self.assert_held(name, execution_id)
        events = self.cluster.core.list_namespaced_event(
            "default", field_selector="involvedObject.name=%s" % name).items
        self.assertIn("SuspendHeld", [e.reason for e in events])
        # Released, it runs like any job.
        self.patch_app("default", name, {"spec": {"suspend": False}})
        self.wait_status(execution_id, S.SUCCEEDED)

    def test_kueue_held_job_stays_queued_until_admitted(self):
        name, execution_id = self.create_held_app(
            "4002", labels_extra={"kueue.x-k8s.io/queue-name": "team-a"})
        self.assertIs(self.cluster.app("default", name)["spec"]["suspend"], False)  # CRD default
        self.assert_held(name, execution_id)
        self.patch_app("default", name,
                       {"metadata": {"annotations": {"kubesim.dev/kueue-admitted": "true"}}})
        self.wait_status(execution_id, S.SUCCEEDED)

    # --- suspend and resume of a running job -------------------------------------------------------

    def test_suspend_and_resume_report_started_queued_started_succeeded(self):
        resp = self.submit("4003", spark_template(duration_ms=600000))
        name = "gravitino-job-4003"
        seen = []
        self.wait_status(resp.execution_id, S.STARTED, seen=seen)
        self.patch_app("default", name, {"spec": {"suspend": True}})
        kje.wait_until(lambda: (self.cluster.app("default", name)["status"]["currentState"]
                                ["currentStateSummary"] == "Suspended"), OPERATOR_WAIT,
                       "the app to be Suspended")
        # The server answers from its informer: it sees the state a moment later.
        info = kje.wait_until(lambda: (lambda i: i if i.operator_state == "Suspended" else None)(
            self.status(resp.execution_id)), OPERATOR_WAIT, "Status to report Suspended")
        self.assertEqual(S.Name(info.status), "STARTED", info)
        self.assertIn("SpecSuspend", info.message)
        # The operator removes the driver itself (retain policy Always notwithstanding); the
        # executor deletes nothing.
        kje.wait_until(lambda: not self.cluster.driver_pods("default", name), OPERATOR_WAIT,
                       "the suspended driver to be deleted")
        self.assertEqual(S.Name(self.status(resp.execution_id).status), "STARTED")

        self.patch_app("default", name, {"spec": {"suspend": False,
                                                  "sparkConf": {"kubesim.durationMs": "2000"}}})
        info = self.wait_status(resp.execution_id, S.SUCCEEDED, seen=seen)
        names = [S.Name(s) for s in seen]
        if names[0] == "QUEUED":  # before the first start, when a poll caught it
            names = names[1:]
        self.assertEqual(names, ["STARTED", "QUEUED", "STARTED", "SUCCEEDED"])
        app = self.cluster.app("default", name)
        self.assertEqual(app["status"]["currentAttemptSummary"]["attemptInfo"]["id"], 1)
        self.assertEqual(info.driver_pod, "gravitino-job-4003-1-driver")


if __name__ == "__main__":
    unittest.main(verbosity=2)
