"""Why a job waits, end to end on either backend: a queued job whose driver can't be scheduled
reports UNSCHEDULABLE with the scheduler's own message through Status (on any replica),
WatchStatus and the CLI; a job in a namespace no operator reconciles reports NO_OPERATOR; a job
on its way (within the grace period) reports nothing."""

import os
import subprocess
import threading
import unittest

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
W = pb.JobInfo.WaitingReason
OPERATOR_WAIT = 60
# What kubesim's scheduler writes into the PodScheduled condition, as kube-scheduler does.
SCHEDULER_WORDS = "0/3 nodes are available"


def spark_template(outcome="succeed", extra_configs=None):
    configs = {"kubesim.outcome": outcome, "kubesim.durationMs": "2000"}
    configs.update(extra_configs or {})
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"], spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                                            configs=configs))


class WaitingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        # A short grace and refresh keep the test quick; the driver start timeouts are long, so
        # an unschedulable driver waits for the whole test.
        cls.config = kje.write_temp("""
kubeconfig: %s
waitingGraceMs: 500
waitingRefreshMs: 1000
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  driverStartTimeoutMs: 3600000
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

    def submit(self, job_id, template):
        return self.stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                 template=template), timeout=kje.RPC_TIMEOUT)

    def status(self, execution_id, stub=None):
        return (stub or self.stub).Status(pb.StatusRequest(execution_id=execution_id),
                                          timeout=kje.RPC_TIMEOUT)

    def wait_waiting(self, execution_id, reason, stub=None):
        def poll():
            info = self.status(execution_id, stub)
            self.assertEqual(S.Name(info.status), "QUEUED", info)
            return info if info.waiting_reason == reason else None
        return kje.wait_until(poll, OPERATOR_WAIT,
                              "%s to wait with %s" % (execution_id, W.Name(reason)))

    def cancel(self, execution_id):
        self.stub.Cancel(pb.CancelRequest(execution_id=execution_id), timeout=kje.RPC_TIMEOUT)

    def cli(self, *args):
        env = dict(os.environ)
        env.pop("K8S_JOB_EXECUTOR_SERVER", None)
        p = subprocess.run([kje.BINARY] + list(args) + ["--server", self.servers[1].address],
                           capture_output=True, text=True, timeout=30, env=env)
        return p.returncode, p.stdout, p.stderr

    def test_an_unschedulable_driver_says_so_with_the_schedulers_message(self):
        resp = self.submit("3001", spark_template(outcome="unschedulable"))
        self.addCleanup(self.cancel, resp.execution_id)
        info = self.wait_waiting(resp.execution_id, W.UNSCHEDULABLE)
        self.assertIn(SCHEDULER_WORDS, info.waiting_message)
        # The pod the scheduler can't place is the one Status names.
        pods = self.cluster.driver_pods("default", "gravitino-job-3001")
        self.assertEqual([p.metadata.name for p in pods], [info.driver_pod])
        conditions = {c.type: c for c in pods[0].status.conditions}
        self.assertEqual(conditions["PodScheduled"].message, info.waiting_message)
        # Another replica says the same, from its own lookup.
        other = self.wait_waiting(resp.execution_id, W.UNSCHEDULABLE, stub=self.stubs[1])
        self.assertEqual(other.waiting_message, info.waiting_message)
        # So does the CLI (exit 5: the job hasn't finished).
        code, out, err = self.cli("status", resp.execution_id)
        self.assertEqual(code, 5, err)
        self.assertIn("WAITING", out)
        self.assertIn("UNSCHEDULABLE: " + SCHEDULER_WORDS, out)

    def test_a_watch_reports_the_reason_once_the_grace_period_is_over(self):
        resp = self.submit("3002", spark_template(outcome="unschedulable"))
        self.addCleanup(self.cancel, resp.execution_id)
        seen = []
        call = self.stubs[1].WatchStatus(
            pb.WatchStatusRequest(execution_ids=[resp.execution_id]), timeout=OPERATOR_WAIT)

        def read():
            try:
                for info in call:
                    seen.append(info)
            except Exception:  # the cancel below ends the stream
                pass
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        # Nothing about the app changes once its driver is pending: the stream must look again
        # on its own.
        kje.wait_until(lambda: any(i.waiting_reason == W.UNSCHEDULABLE for i in seen),
                       OPERATOR_WAIT, "the watch to report UNSCHEDULABLE")
        first = next(i for i in seen if i.waiting_reason == W.UNSCHEDULABLE)
        self.assertEqual(S.Name(first.status), "QUEUED")
        self.assertIn(SCHEDULER_WORDS, first.waiting_message)
        call.cancel()
        reader.join(10)

    def test_no_operator_reconciles_the_namespace(self):
        resp = self.submit("3003", spark_template(
            extra_configs={"spark.kubernetes.namespace": "unwatched"}))
        self.addCleanup(self.cancel, resp.execution_id)
        info = self.wait_waiting(resp.execution_id, W.NO_OPERATOR)
        self.assertIn("no Spark operator has written a status", info.waiting_message)

    def test_a_job_reports_no_reason_once_it_runs_nor_within_the_grace_period(self):
        resp = self.submit("3004", spark_template())
        def done():
            info = self.status(resp.execution_id)
            if info.status != S.QUEUED:
                self.assertEqual(info.waiting_reason, W.WAITING_REASON_UNSPECIFIED, info)
            return info.status == S.SUCCEEDED
        kje.wait_until(done, OPERATOR_WAIT, "the job to succeed")
        # A replica with a grace period longer than the test says nothing of a job that can't
        # be scheduled: it may still be on its way.
        config = kje.write_temp(open(self.config).read().replace("waitingGraceMs: 500",
                                                                   "waitingGraceMs: 3600000"))
        self.addCleanup(os.unlink, config)
        patient = kje.Server(["--config", config])
        try:
            with patient.channel() as channel:
                stub = pb_grpc.JobExecutorStub(channel)
                held = self.submit("3005", spark_template(outcome="unschedulable"))
                self.addCleanup(self.cancel, held.execution_id)
                self.wait_waiting(held.execution_id, W.UNSCHEDULABLE)  # the others say why
                info = self.status(held.execution_id, stub)
                self.assertEqual(S.Name(info.status), "QUEUED")
                self.assertEqual(info.waiting_reason, W.WAITING_REASON_UNSPECIFIED, info)
        finally:
            self.assertEqual(patient.terminate(), 0)

if __name__ == "__main__":
    unittest.main()
