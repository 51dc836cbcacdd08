"""The record outlives the pods, end to end on either backend with two replicas: a Cancel in keep
mode stops the job without deleting its application (Apache: the driver pod goes; Kubeflow:
suspended, and the executors v2.5.2 leaves behind are deleted), and Status answers CANCELLED with
the reason on either replica an hour of kubesim time later; a deadline in keep mode is FAILED with
the record kept. Submits and schedules adopt only the same job: a changed template is
ALREADY_EXISTS naming what differs, the same one is adopted, and an application made without
hashes (the Java executor's) is adopted as before."""

import os
import unittest

import grpc
import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
# The operator's clock runs 600 times faster: an hour of it is six seconds of ours.
TIME_SCALE = 600
WAIT = 60
KUBEFLOW = kje.OPERATOR == "kubeflow"
EXECUTOR_SELECTOR = "sparkoperator.k8s.io/app-name=%s,spark-role=executor"


def spark_template(outcome="hang", duration_ms=2000, arguments=("10",), extra_configs=None,
                   custom_fields=None):
    configs = {"kubesim.outcome": outcome, "kubesim.durationMs": str(duration_ms),
               "spark.executor.instances": "2"}
    configs.update(extra_configs or {})
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=list(arguments), custom_fields=custom_fields or {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=configs))


class KeepRecordTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(time_scale=TIME_SCALE)
        cls.config = kje.write_temp("""
kubeconfig: %s
cancelMode: keep
deadlineSweepMs: 300
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  allowedNamespaces: [default, spark-jobs]
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

    def wait_status(self, execution_id, wanted, stub=None):
        def poll():
            info = self.status(execution_id, stub)
            if info.status == wanted or info.status in TERMINAL:
                return info
            return None
        info = kje.wait_until(poll, WAIT, "%s to be %s" % (execution_id, S.Name(wanted)))
        self.assertEqual(info.status, wanted, info)
        return info

    def assert_code(self, code, fn, *args, **kwargs):
        with self.assertRaises(grpc.RpcError) as err:
            fn(*args, **kwargs)
        self.assertEqual(err.exception.code(), code, err.exception.details())
        return err.exception.details()

    def pods(self, selector):
        return [p for p in self.cluster.core.list_namespaced_pod("default",
                                                                  label_selector=selector).items
                if p.metadata.deletion_timestamp is None]

    def an_hour_passes(self):
        """Waits until kubesim's operator has lived an hour: a job of an hour succeeds."""
        witness = self.submit("hour-%d" % id(self), spark_template(
            outcome="succeed", duration_ms=3600 * 1000))
        self.wait_status(witness.execution_id, S.SUCCEEDED)

    # --- cancel, keeping the record --------------------------------------------------------------

    def test_keep_cancel_answers_cancelled_with_its_reason_an_hour_later_on_either_replica(self):
        job = self.submit("k1", spark_template())
        name = "gravitino-job-k1"
        self.wait_status(job.execution_id, S.STARTED)
        if KUBEFLOW:
            kje.wait_until(lambda: len(self.pods(EXECUTOR_SELECTOR % name)) == 2, WAIT,
                           "the executors to run")
        resp = self.stub.Cancel(pb.CancelRequest(execution_id=job.execution_id,
                                                 reason="wrong input table"),
                                timeout=kje.RPC_TIMEOUT)
        self.assertFalse(resp.already_stopped)
        info = self.wait_status(job.execution_id, S.CANCELLED, self.stubs[1])
        self.assertEqual(info.cancel_reason, "wrong input table")
        self.assertTrue(info.HasField("finished_at"))
        app = self.cluster.app("default", name)
        self.assertIsNotNone(app, "the application is the job's record")
        annotations = app["metadata"]["annotations"]
        self.assertEqual(annotations["gravitino.apache.org/cancel-requested"], "true")
        self.assertEqual(annotations["gravitino.apache.org/cancel-reason"], "wrong input table")
        self.assertEqual(self.cluster.driver_pods("default", name), [])
        if KUBEFLOW:
            self.assertTrue(app["spec"]["suspend"])
            self.assertEqual(app["status"]["applicationState"]["state"], "SUSPENDED")
            # v2.5.2 leaves them behind when it suspends: the service deleted them.
            kje.wait_until(lambda: self.pods(EXECUTOR_SELECTOR % name) == [], WAIT,
                           "the executors to go")
        else:
            # Ended for good (the service's retain policy keeps what's left until its duration).
            self.assertIn(app["status"]["currentState"]["currentStateSummary"],
                          ("ResourceReleased", "TerminatedWithoutReleaseResources"))
            self.assertNotIn("ScheduledToRestart", self.cluster.operator.recorded_states(app))
            self.assertIn("Failed", self.cluster.operator.recorded_states(app))

        self.an_hour_passes()
        for stub in self.stubs:
            info = self.status(job.execution_id, stub)
            self.assertEqual((info.status, info.cancel_reason),
                             (S.CANCELLED, "wrong input table"))
            self.assertTrue(info.HasField("finished_at"))
        self.assertIsNotNone(self.cluster.app("default", name))
        self.assertEqual(self.cluster.driver_pods("default", name), [])
        if KUBEFLOW:
            self.assertTrue(self.cluster.app("default", name)["spec"]["suspend"])
        # Again, on the other replica: stopped already, nothing changes.
        again = self.stubs[1].Cancel(pb.CancelRequest(execution_id=job.execution_id,
                                                      reason="another"),
                                     timeout=kje.RPC_TIMEOUT)
        self.assertTrue(again.already_stopped)
        self.assertEqual(self.status(job.execution_id).cancel_reason, "wrong input table")

    def test_a_call_may_delete_whatever_the_deployment_keeps(self):
        job = self.submit("k2", spark_template())
        self.wait_status(job.execution_id, S.STARTED)
        self.stub.Cancel(pb.CancelRequest(execution_id=job.execution_id,
                                          mode=pb.CancelRequest.DELETE),
                         timeout=kje.RPC_TIMEOUT)
        kje.wait_until(lambda: self.cluster.app("default", "gravitino-job-k2") is None, WAIT,
                       "the application to be deleted")

    def test_a_reason_over_1024_bytes_is_invalid_and_changes_nothing(self):
        job = self.submit("k3", spark_template())
        details = self.assert_code(
            grpc.StatusCode.INVALID_ARGUMENT, self.stubs[1].Cancel,
            pb.CancelRequest(execution_id=job.execution_id, reason="x" * 1025),
            timeout=kje.RPC_TIMEOUT)
        self.assertIn("1024", details)
        self.assertNotIn("x" * 20, details)
        annotations = self.cluster.app("default", "gravitino-job-k3")["metadata"].get(
            "annotations") or {}
        self.assertNotIn("gravitino.apache.org/cancel-requested", annotations)
        self.assertNotEqual(self.status(job.execution_id).status, S.CANCELLED)
        self.stub.Cancel(pb.CancelRequest(execution_id=job.execution_id,
                                          mode=pb.CancelRequest.DELETE), timeout=kje.RPC_TIMEOUT)

    def test_a_deadline_in_keep_mode_fails_the_job_and_keeps_its_record(self):
        job = self.submit("k4", spark_template(custom_fields={"maxRunSeconds": "1"}))
        info = self.wait_status(job.execution_id, S.FAILED, self.stubs[1])
        self.assertEqual(info.deadline_exceeded, pb.JobInfo.RUN_DEADLINE)
        kje.wait_until(lambda: self.status(job.execution_id).HasField("finished_at"), WAIT,
                       "the stop to end the run")
        app = self.cluster.app("default", "gravitino-job-k4")
        self.assertIsNotNone(app)
        self.assertEqual(app["metadata"]["annotations"]["gravitino.apache.org/deadline-exceeded"],
                         "run")
        kje.wait_until(lambda: self.cluster.driver_pods("default", "gravitino-job-k4") == [],
                       WAIT, "the driver to go")
        self.assertEqual(self.status(job.execution_id, self.stubs[0]).status, S.FAILED)

    # --- submits adopt only the same job ---------------------------------------------------------

    def test_a_changed_template_is_refused_naming_what_differs(self):
        first = self.submit("t1", spark_template())
        details = self.assert_code(grpc.StatusCode.ALREADY_EXISTS, self.submit, "t1",
                                   spark_template(arguments=("20",)), self.stubs[1])
        self.assertIn("arguments", details)
        self.assertIn("gravitino-job-t1", details)
        self.assertNotIn("20", details.replace("gravitino", ""))
        details = self.assert_code(
            grpc.StatusCode.ALREADY_EXISTS, self.submit, "t1",
            spark_template(extra_configs={"spark.executor.memory": "2g"}))
        self.assertIn("configs", details)
        self.assertNotIn("arguments", details)
        # The same one (its conf in another order) is adopted, on either replica.
        template = spark_template()
        again = self.submit("t1", template, self.stubs[1])
        self.assertEqual((again.execution_id, again.adopted), (first.execution_id, True))
        self.stub.Cancel(pb.CancelRequest(execution_id=first.execution_id,
                                          mode=pb.CancelRequest.DELETE), timeout=kje.RPC_TIMEOUT)

    def test_an_application_without_hashes_is_adopted_as_before(self):
        # As the Java executor makes it: its labels, no template-hash annotation.
        body = self.cluster.operator.app_body(
            "gravitino-job-t2", {"gravitino.apache.org/job-id": "t2",
                                 "app.kubernetes.io/managed-by": "gravitino"},
            {"kubesim.outcome": "hang"})
        self.cluster.create_app("default", body)
        again = self.submit("t2", spark_template(arguments=("99",)), self.stubs[1])
        self.assertTrue(again.adopted)
        self.assertEqual(again.execution_id, "default/sparkapp/default/gravitino-job-t2")
        self.stub.Cancel(pb.CancelRequest(execution_id=again.execution_id,
                                          mode=pb.CancelRequest.DELETE), timeout=kje.RPC_TIMEOUT)

    # --- schedules alike -------------------------------------------------------------------------

    def create_schedule(self, schedule_id, spec, template, stub=None):
        return (stub or self.stub).CreateSchedule(
            pb.CreateScheduleRequest(schedule_id=schedule_id, metalake="lake", template=template,
                                     spec=spec), timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(not KUBEFLOW, "schedules are kubeflow/spark-operator's")
    def test_a_schedule_and_its_runs_adopt_only_the_same_request(self):
        spec = pb.ScheduleSpec(schedule="0 3 1 1 *", suspend=True)
        template = spark_template(outcome="succeed")
        first = self.create_schedule("s1", spec, template)
        self.assertFalse(first.adopted)
        details = self.assert_code(grpc.StatusCode.ALREADY_EXISTS, self.create_schedule, "s1",
                                   pb.ScheduleSpec(schedule="0 4 1 1 *", suspend=True), template,
                                   self.stubs[1])
        self.assertIn("schedule", details)
        details = self.assert_code(grpc.StatusCode.ALREADY_EXISTS, self.create_schedule, "s1",
                                   spec, spark_template(outcome="succeed", arguments=("5",)))
        self.assertIn("arguments", details)
        self.assertNotIn("schedule,", details)
        self.assertTrue(self.create_schedule("s1", spec, template, self.stubs[1]).adopted)

        run = self.stub.RunScheduleNow(pb.RunScheduleNowRequest(schedule_id="s1", run_id="r1"),
                                       timeout=kje.RPC_TIMEOUT)
        again = self.stubs[1].RunScheduleNow(
            pb.RunScheduleNowRequest(schedule_id="s1", run_id="r1"), timeout=kje.RPC_TIMEOUT)
        self.assertEqual((again.execution_id, again.adopted), (run.execution_id, True))
        # The schedule made again with another template: the run id used before names a run of
        # the old one, which isn't adopted.
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="s1", keep_runs=True),
                                 timeout=kje.RPC_TIMEOUT)

        def recreated():
            try:
                self.create_schedule("s1", spec, spark_template(outcome="succeed",
                                                                arguments=("5",)))
                return True
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.ALREADY_EXISTS or "being deleted" not in e.details():
                    raise
                return False
        kje.wait_until(recreated, WAIT, "the schedule to be made again")
        details = self.assert_code(grpc.StatusCode.ALREADY_EXISTS, self.stubs[1].RunScheduleNow,
                                   pb.RunScheduleNowRequest(schedule_id="s1", run_id="r1"),
                                   timeout=kje.RPC_TIMEOUT)
        self.assertIn("arguments", details)


if __name__ == "__main__":
    unittest.main()
