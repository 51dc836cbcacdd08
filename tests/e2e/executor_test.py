"""Submit, Status, Cancel and Output end to end: Python plays the catalog server over gRPC, against
the real binary, with kubesim and its Spark operator as the cluster and python-kubernetes as an
independent view of the cluster."""

import os
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
# The operator's clock runs 20 times faster than ours (kubesim --time-scale 20).
OPERATOR_WAIT = 60


def spark_template(outcome="succeed", duration_ms=2000, extra_configs=None, executable=None):
    configs = {"kubesim.outcome": outcome, "kubesim.durationMs": str(duration_ms)}
    configs.update(extra_configs or {})
    return pb.JobTemplate(
        name="spark-pi", comment="SparkPi",
        executable=executable or "local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["100"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=configs))


class ExecutorTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
noStatusTimeoutMs: 3000
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  driverStartTimeoutMs: 20000
  resourceRetainDurationMs: 600000
server:
  allowedNamespaces: [default, spark-jobs, unwatched]
""" % cls.cluster.kubeconfig)
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]
        cls.stub = cls.stubs[0]

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels:
            c.close()
        codes = [s.terminate() for s in cls.servers]
        cls.cluster.stop()
        os.unlink(cls.config)
        assert codes == [0, 0], codes

    def submit(self, job_id, template, stub=None):
        return (stub or self.stub).Submit(
            pb.SubmitRequest(job_id=job_id, metalake="lake", template=template),
            timeout=kje.RPC_TIMEOUT)

    def status(self, execution_id, stub=None):
        return (stub or self.stub).Status(pb.StatusRequest(execution_id=execution_id),
                                          timeout=kje.RPC_TIMEOUT)

    def wait_status(self, execution_id, wanted, stub=None, seen=None):
        """Polls Status until it is `wanted` (or any terminal status, which fails the test if it is
        not the wanted one). Records every distinct status in `seen`."""
        def poll():
            info = self.status(execution_id, stub)
            if seen is not None and (not seen or seen[-1] != info.status):
                seen.append(info.status)
            if info.status == wanted or info.status in TERMINAL:
                return info
            return None
        info = kje.wait_until(poll, OPERATOR_WAIT, "%s to be %s" % (execution_id, S.Name(wanted)))
        self.assertEqual(S.Name(info.status), S.Name(wanted), info)
        return info

    def assert_code(self, code, fn, *args):
        with self.assertRaises(grpc.RpcError) as err:
            fn(*args)
        self.assertEqual(err.exception.code(), code, err.exception.details())
        return err.exception.details()

    # --- the happy path -------------------------------------------------------------------------

    def test_success_with_driver_container_times_and_output(self):
        resp = self.submit("1001", spark_template())
        self.assertEqual(resp.execution_id, "default/sparkapp/default/gravitino-job-1001")
        self.assertFalse(resp.adopted)
        app = self.cluster.app("default", "gravitino-job-1001")
        self.assertEqual(app["metadata"]["labels"]["gravitino.apache.org/job-id"], "1001")
        self.assertEqual(app["metadata"]["labels"]["app.kubernetes.io/managed-by"], "gravitino")
        self.assertEqual(app["metadata"]["annotations"]["gravitino.apache.org/metalake"], "lake")

        seen = []
        info = self.wait_status(resp.execution_id, S.SUCCEEDED, seen=seen)
        self.assertIn(S.STARTED, seen)
        self.assertEqual(seen[-1], S.SUCCEEDED)
        self.assertEqual(info.namespace, "default")
        self.assertEqual(info.name, "gravitino-job-1001")
        self.assertTrue(info.driver_pod)
        # The times are the driver container's, as the pod itself reports them.
        pods = self.cluster.driver_pods("default", "gravitino-job-1001")
        self.assertEqual([p.metadata.name for p in pods], [info.driver_pod])
        state = pods[0].status.container_statuses[0].state.terminated
        self.assertEqual(info.started_at.seconds, int(state.started_at.timestamp()))
        self.assertEqual(info.finished_at.seconds, int(state.finished_at.timestamp()))
        self.assertLess(info.started_at.seconds, info.finished_at.seconds + 1)
        # The Spark application id is the one Spark gave the driver pod; one attempt ran.
        self.assertEqual(info.spark_application_id, pods[0].metadata.labels["spark-app-selector"])
        self.assertEqual(info.attempts, 1)
        if kje.OPERATOR == "kubeflow":
            self.assertRegex(info.driver_ui_address, r"^10\.\d+\.\d+\.\d+:4040$")
            app = self.cluster.app("default", "gravitino-job-1001")
            if app is not None:
                self.assertEqual(info.driver_ui_address,
                                 app["status"]["driverInfo"]["webUIAddress"])
        else:
            self.assertEqual(info.driver_ui_address, "")  # the Apache operator reports none

        out = self.stub.Output(pb.OutputRequest(execution_id=resp.execution_id),
                               timeout=kje.RPC_TIMEOUT)
        self.assertTrue(any(l.startswith("Pi is roughly 3.14") for l in out.lines), out.lines)
        small = self.stub.Output(pb.OutputRequest(execution_id=resp.execution_id, max_lines=2),
                                 timeout=kje.RPC_TIMEOUT)
        self.assertEqual(len(small.lines), 2)
        self.assertTrue(small.truncated)
        self.assertEqual(list(small.lines), list(out.lines[-2:]))

    def test_application_failure(self):
        resp = self.submit("1002", spark_template(outcome="fail"))
        info = self.wait_status(resp.execution_id, S.FAILED)
        self.assertTrue(info.HasField("finished_at"))

    def test_events_are_the_apps_and_its_drivers_as_kubernetes_lists_them(self):
        resp = self.submit("1095", spark_template(outcome="fail"))
        info = self.wait_status(resp.execution_id, S.FAILED)
        self.assertTrue(info.driver_pod)

        def listed(kind, name):
            return self.cluster.core.list_namespaced_event(
                "default",
                field_selector="involvedObject.kind=%s,involvedObject.name=%s" % (kind, name)).items
        # Kubernetes' own view, independently: the app's events and its driver pod's.
        expected = listed("SparkApplication", info.name) + listed("Pod", info.driver_pod)
        got = self.stub.Events(pb.EventsRequest(execution_id=resp.execution_id),
                               timeout=kje.RPC_TIMEOUT)
        self.assertFalse(got.truncated)
        self.assertEqual(
            sorted((e.object_kind, e.object_name, e.reason, e.type, e.message, e.count)
                   for e in got.events),
            sorted((e.involved_object.kind, e.involved_object.name, e.reason, e.type, e.message,
                    e.count or 1) for e in expected))
        firsts = [e.first_seen.ToNanoseconds() for e in got.events]
        self.assertEqual(firsts, sorted(firsts), "oldest first")
        if kje.OPERATOR == "kubeflow":
            # The operator said why: its failure event is a Warning on the application, whose
            # message carries the error the job's status has.
            failed = [e for e in got.events if e.object_kind == "SparkApplication" and
                      e.type == "Warning" and "Failed" in e.reason]
            self.assertTrue(failed, [(e.reason, e.type) for e in got.events])
            self.assertTrue(info.message)
            # The operator's part of it (the driver's last words follow: last_words_test.py).
            said = info.message.split("; driver exit code")[0]
            self.assertTrue(any(said in e.message for e in failed),
                            (info.message, [e.message for e in failed]))

        self.assert_code(grpc.StatusCode.NOT_FOUND, self.stub.Events,
                         pb.EventsRequest(execution_id="default/sparkapp/default/no-such-app"),
                         kje.RPC_TIMEOUT)
        self.assert_code(grpc.StatusCode.PERMISSION_DENIED, self.stub.Events,
                         pb.EventsRequest(execution_id="default/sparkapp/elsewhere/x"),
                         kje.RPC_TIMEOUT)

    # --- cancel ---------------------------------------------------------------------------------

    def test_cancel_reports_cancelling_then_cancelled(self):
        resp = self.submit("1003", spark_template(outcome="hang"))
        self.wait_status(resp.execution_id, S.STARTED)
        # The first delete fails: the mark is set, the app still runs, so the job is CANCELLING.
        fault = kje.add_fault(self.cluster, {"verb": "delete", "resource": "sparkapplications",
                                             "status": 500, "count": 20})
        self.assert_code(grpc.StatusCode.UNAVAILABLE, self.stub.Cancel,
                         pb.CancelRequest(execution_id=resp.execution_id), kje.RPC_TIMEOUT)
        kje.remove_fault(self.cluster, fault)
        app = self.cluster.app("default", "gravitino-job-1003")
        self.assertEqual(app["metadata"]["annotations"]["gravitino.apache.org/cancel-requested"],
                         "true")
        self.assertEqual(self.status(resp.execution_id).status, S.CANCELLING)
        # Any replica can finish the job off.
        self.stubs[1].Cancel(pb.CancelRequest(execution_id=resp.execution_id),
                             timeout=kje.RPC_TIMEOUT)

        def cancelled_or_gone():
            try:
                return self.status(resp.execution_id).status == S.CANCELLED
            except grpc.RpcError as e:
                # Once the app is fully gone the catalog maps NOT_FOUND of a CANCELLING job to
                # CANCELLED, as Gravitino's JobManager does.
                return e.code() == grpc.StatusCode.NOT_FOUND
        kje.wait_until(cancelled_or_gone, OPERATOR_WAIT, "the job to be cancelled")
        # Cancel is idempotent.
        try:
            self.stub.Cancel(pb.CancelRequest(execution_id=resp.execution_id),
                             timeout=kje.RPC_TIMEOUT)
        except grpc.RpcError as e:
            self.assertEqual(e.code(), grpc.StatusCode.NOT_FOUND)

    def test_cancel_of_a_finished_job_keeps_its_outcome(self):
        resp = self.submit("1004", spark_template(duration_ms=500))
        self.wait_status(resp.execution_id, S.SUCCEEDED)
        self.stub.Cancel(pb.CancelRequest(execution_id=resp.execution_id), timeout=kje.RPC_TIMEOUT)
        app = self.cluster.app("default", "gravitino-job-1004")
        self.assertNotIn("gravitino.apache.org/cancel-requested",
                         (app["metadata"].get("annotations") or {}))
        self.assertEqual(self.status(resp.execution_id).status, S.SUCCEEDED)

    def test_cancel_racing_the_operators_ttl_deletion_is_idempotent(self):
        # A replica whose apps the operator deletes a second after they stop (TTL): Cancel while
        # that deletion happens answers OK or NOT_FOUND, never an error, and changes nothing.
        server = kje.Server(["--config", self.config, "--set", "spark.ttlAfterStopMs=1000"])
        try:
            with server.channel() as channel:
                stub = pb_grpc.JobExecutorStub(channel)
                resp = self.submit("1016", spark_template(duration_ms=500), stub=stub)
                # At the operator's 20-fold speed its TTL may delete the app before a poll sees
                # it SUCCEEDED: either is the end of the run.
                def stopped():
                    try:
                        return self.status(resp.execution_id, stub).status == S.SUCCEEDED
                    except grpc.RpcError as e:
                        if e.code() != grpc.StatusCode.NOT_FOUND:
                            raise
                        return True
                kje.wait_until(stopped, OPERATOR_WAIT, "the job to end")
                answers = set()

                def gone():
                    try:
                        stub.Cancel(pb.CancelRequest(execution_id=resp.execution_id),
                                    timeout=kje.RPC_TIMEOUT)
                        answers.add("OK")
                    except grpc.RpcError as e:
                        answers.add(e.code().name)
                        return e.code() == grpc.StatusCode.NOT_FOUND
                    return False
                kje.wait_until(gone, OPERATOR_WAIT, "the operator's TTL to delete the app")
                self.assertLessEqual(answers, {"OK", "NOT_FOUND"})
                self.assertIsNone(self.cluster.app("default", "gravitino-job-1016"))
                self.assert_code(grpc.StatusCode.NOT_FOUND, stub.Cancel,
                                 pb.CancelRequest(execution_id=resp.execution_id),
                                 kje.RPC_TIMEOUT)
        finally:
            self.assertEqual(server.terminate(), 0)

    # --- the operator's and the executor's timeouts ----------------------------------------------

    def test_unschedulable_driver_fails_after_the_driver_start_timeout(self):
        if kje.OPERATOR == "kubeflow":
            self.unschedulable_driver_waits_on_kubeflow()
            return
        resp = self.submit("1005", spark_template(outcome="unschedulable"))
        info = self.wait_status(resp.execution_id, S.FAILED)
        self.assertEqual(info.operator_state in ("DriverStartTimedOut", "ResourceReleased",
                                                 "TerminatedWithoutReleaseResources"), True, info)
        # No driver may stay behind to run a job reported as failed.
        def no_live_driver():
            self.status(resp.execution_id)
            pods = self.cluster.driver_pods("default", "gravitino-job-1005")
            return all(p.status.phase in ("Succeeded", "Failed") or
                       p.metadata.deletion_timestamp for p in pods)
        kje.wait_until(no_live_driver, OPERATOR_WAIT, "the pending driver to go")

    def unschedulable_driver_waits_on_kubeflow(self):
        # kubeflow/spark-operator has no driver start timeout: the app stays SUBMITTED with its
        # driver Pending, the job QUEUED, until spark.driverStartTimeoutMs (here a replica with
        # 3 s) has passed since the submission; then the job is FAILED and the app deleted, so
        # the driver can't start later.
        server = kje.Server(["--config", self.config, "--set", "spark.driverStartTimeoutMs=3000"])
        try:
            with server.channel() as channel:
                stub = pb_grpc.JobExecutorStub(channel)
                resp = self.submit("1005", spark_template(outcome="unschedulable"), stub=stub)
                kje.wait_until(
                    lambda: self.status(resp.execution_id, stub).operator_state == "SUBMITTED",
                    OPERATOR_WAIT, "the app to be submitted")
                kje.wait_until(lambda: self.cluster.driver_pods("default", "gravitino-job-1005"),
                               OPERATOR_WAIT, "the driver pod")
                pods = self.cluster.driver_pods("default", "gravitino-job-1005")
                self.assertEqual([p.status.phase for p in pods], ["Pending"])
                info = self.wait_status(resp.execution_id, S.FAILED, stub=stub)
                self.assertIn("The driver didn't start within 3s", info.message)
                kje.wait_until(lambda: self.cluster.app("default", "gravitino-job-1005") is None,
                               OPERATOR_WAIT, "the app whose driver didn't start to be deleted")
                self.assertTrue(any("the driver didn't start in time" in l for l in server.lines))
        finally:
            self.assertEqual(server.terminate(), 0)

    def test_unwatched_namespace_fails_after_no_status_timeout_and_is_deleted(self):
        resp = self.submit("1006", spark_template(
            extra_configs={"spark.kubernetes.namespace": "unwatched"}))
        self.assertEqual(resp.execution_id, "default/sparkapp/unwatched/gravitino-job-1006")
        self.assertEqual(self.status(resp.execution_id).status, S.QUEUED)
        self.wait_status(resp.execution_id, S.FAILED)
        kje.wait_until(lambda: self.cluster.app("unwatched", "gravitino-job-1006") is None,
                       OPERATOR_WAIT, "the app without status to be deleted")

    # --- submit rules ----------------------------------------------------------------------------

    def test_resubmitting_the_same_job_adopts_it(self):
        first = self.submit("1007", spark_template(outcome="hang"))
        again = self.submit("1007", spark_template(outcome="hang"), stub=self.stubs[1])
        self.assertEqual(again.execution_id, first.execution_id)
        self.assertTrue(again.adopted)
        names = [a["metadata"]["name"] for a in self.cluster.apps("default")]
        self.assertEqual(names.count("gravitino-job-1007"), 1)
        self.stub.Cancel(pb.CancelRequest(execution_id=first.execution_id),
                         timeout=kje.RPC_TIMEOUT)

    def test_a_name_held_by_another_job_is_already_exists(self):
        body = self.cluster.operator.app_body(
            "gravitino-job-1008", {"gravitino.apache.org/job-id": "999"},
            {"kubesim.outcome": "hang"})
        self.cluster.create_app("spark-jobs", body)
        details = self.assert_code(
            grpc.StatusCode.ALREADY_EXISTS, self.submit, "1008",
            spark_template(extra_configs={"spark.kubernetes.namespace": "spark-jobs"}))
        self.assertIn("gravitino-job-1008", details)
        app = self.cluster.app("spark-jobs", "gravitino-job-1008")
        self.assertEqual(app["metadata"]["labels"]["gravitino.apache.org/job-id"], "999")

    def test_bad_templates_are_invalid_and_create_nothing(self):
        before = len(self.cluster.apps("default"))
        details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.submit, "1009",
                                   spark_template(executable="/opt/app.jar"))
        self.assertIn("/opt/app.jar", details)
        t = spark_template()
        t.environments["SECRET_TOKEN"] = "hunter2"
        details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.submit, "1010", t)
        self.assertIn("SECRET_TOKEN", details)
        self.assertNotIn("hunter2", details)
        shell = pb.JobTemplate(name="sh", executable="https://x/run.sh",
                               shell=pb.ShellJob(scripts=["a.sh"]))
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.submit, "1011", shell)
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.submit, "1012",
                         spark_template(extra_configs={"spark.kubernetes.namespace": "Bad_NS"}))
        # Outside server.allowedNamespaces: refused as every RPC about that namespace is.
        self.assert_code(grpc.StatusCode.PERMISSION_DENIED, self.submit, "1013",
                         spark_template(extra_configs={"spark.kubernetes.namespace": "elsewhere"}))
        self.assertEqual(len(self.cluster.apps("default")), before)
        for line in self.servers[0].lines:
            self.assertNotIn("hunter2", line)

    def test_malformed_and_other_cluster_ids_are_not_found(self):
        for bad in ("", "nonsense", "default/sparkapp/default", "default/pod/default/x",
                    "other/sparkapp/default/gravitino-job-1001",
                    "default/sparkapp/default/no-such-app"):
            self.assert_code(grpc.StatusCode.NOT_FOUND, self.status, bad)
            self.assert_code(grpc.StatusCode.NOT_FOUND, self.stub.Cancel,
                             pb.CancelRequest(execution_id=bad), kje.RPC_TIMEOUT)
        self.assert_code(grpc.StatusCode.NOT_FOUND, self.stub.Output,
                         pb.OutputRequest(execution_id="nonsense"), kje.RPC_TIMEOUT)
        # A well-formed id of a job without a driver has no output, and that is no error.
        out = self.stub.Output(
            pb.OutputRequest(execution_id="default/sparkapp/default/no-such-app"),
            timeout=kje.RPC_TIMEOUT)
        self.assertEqual(list(out.lines), [])

    # --- replicas ---------------------------------------------------------------------------------

    def test_two_replicas_answer_for_each_others_jobs(self):
        resp = self.submit("1014", spark_template(duration_ms=1500), stub=self.stubs[0])
        info = self.wait_status(resp.execution_id, S.SUCCEEDED, stub=self.stubs[1])
        self.assertTrue(info.HasField("started_at"))
        out = self.stubs[1].Output(pb.OutputRequest(execution_id=resp.execution_id),
                                   timeout=kje.RPC_TIMEOUT)
        self.assertTrue(any("Pi is roughly" in l for l in out.lines))
        hang = self.submit("1015", spark_template(outcome="hang"), stub=self.stubs[1])
        self.wait_status(hang.execution_id, S.STARTED, stub=self.stubs[0])
        self.stubs[0].Cancel(pb.CancelRequest(execution_id=hang.execution_id),
                             timeout=kje.RPC_TIMEOUT)

        def cancelled_on_other():
            try:
                return self.status(hang.execution_id, self.stubs[1]).status == S.CANCELLED
            except grpc.RpcError as e:
                return e.code() == grpc.StatusCode.NOT_FOUND
        kje.wait_until(cancelled_on_other, OPERATOR_WAIT, "the other replica to see the cancel")


if __name__ == "__main__":
    unittest.main(verbosity=2)
