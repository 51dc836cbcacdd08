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


def spark_template(outcome="succeed", extra_configs=None, custom_fields=None):
    configs = {"kubesim.outcome": outcome, "kubesim.durationMs": "2000"}
    configs.update(extra_configs or {})
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"], custom_fields=custom_fields or {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=configs))


class WaitingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # The Apache operator's 1.1 release holds a queue-labelled app for Kueue; Kubeflow's is
        # held by kubesim's stand-in for Kueue's own integration.
        cls.cluster = kje.Kubesim(
            operator_version="1.1" if kje.OPERATOR == "apache" else None,
            extra_args=["--crd-dir", os.path.join(kje.SOURCE_DIR, "crds", "kueue",
                                                  "v1beta1-subset")])
        # A short grace and refresh keep the test quick; the driver start timeouts are long, so
        # an unschedulable driver waits for the whole test.
        cls.config = kje.write_temp("""
kubeconfig: %s
waitingGraceMs: 500
waitingRefreshMs: 1000
deadlineSweepMs: 300
queue:
  scheduler: kueue
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
                # Started: at most its executors are still coming.
                self.assertIn(info.waiting_reason,
                              (W.WAITING_REASON_UNSPECIFIED, W.EXECUTORS_PENDING), info)
            return info.status == S.SUCCEEDED
        kje.wait_until(done, OPERATOR_WAIT, "the job to succeed")
        # A replica with a grace period longer than the test says nothing of a job that can't
        # be scheduled: it may still be on its way.
        with open(self.config) as f:
            config = kje.write_temp(f.read().replace("waitingGraceMs: 500",
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

    # --- what the kubelet and the scheduler report, from the job's own inputs -------------------

    def test_an_image_that_cant_be_pulled(self):
        # The image is the deployment's (Kubeflow's webhook refuses a template's own): a replica
        # whose spark.image can't be pulled.
        server = kje.Server(["--config", self.config,
                             "--set", "spark.image=registry.invalid/spark:4.0.0"])
        try:
            with server.channel() as channel:
                stub = pb_grpc.JobExecutorStub(channel)
                resp = stub.Submit(pb.SubmitRequest(job_id="3010", metalake="lake",
                                                    template=spark_template()),
                                   timeout=kje.RPC_TIMEOUT)
                self.addCleanup(self.cancel, resp.execution_id)
                info = self.wait_waiting(resp.execution_id, W.IMAGE_PULL, stub=stub)
        finally:
            self.assertEqual(server.terminate(), 0)
        # The kubelet's error, not only its back-off.
        self.assertIn("registry.invalid", info.waiting_message)
        self.assertIn("no such host", info.waiting_message)

    def test_a_secret_that_doesnt_exist(self):
        resp = self.submit("3011", spark_template(extra_configs={
            "spark.kubernetes.driver.secretKeyRef.DB_PASSWORD": "db-credentials:password"}))
        self.addCleanup(self.cancel, resp.execution_id)
        info = self.wait_waiting(resp.execution_id, W.CONTAINER_CONFIG)
        self.assertIn('secret "db-credentials" not found', info.waiting_message)
        # Once the Secret is there the kubelet starts the driver, and the reason goes.
        self.cluster.core.create_namespaced_secret("default", {
            "metadata": {"name": "db-credentials"}, "stringData": {"password": "x"}})
        self.addCleanup(self.cluster.core.delete_namespaced_secret, "db-credentials", "default")

        def moved_on():
            info = self.status(resp.execution_id)
            return info.status != S.QUEUED and info
        info = kje.wait_until(moved_on, OPERATOR_WAIT, "the driver to start once the Secret exists")
        self.assertIn(info.waiting_reason, (W.WAITING_REASON_UNSPECIFIED, W.EXECUTORS_PENDING),
                      info)

    def test_a_node_selector_no_node_matches(self):
        resp = self.submit("3012", spark_template(extra_configs={
            "spark.kubernetes.node.selector.pool": "gpu-a100"}))
        self.addCleanup(self.cancel, resp.execution_id)
        info = self.wait_waiting(resp.execution_id, W.UNSCHEDULABLE)
        self.assertIn("didn't match Pod's node affinity/selector", info.waiting_message)

    def test_executors_that_cant_be_scheduled_while_the_driver_runs(self):
        configs = {"kubesim.outcome": "hang", "spark.executor.instances": "2",
                   "spark.kubernetes.executor.node.selector.pool": "gpu-a100"}
        if kje.OPERATOR == "apache":
            # The Apache operator tells executors pending only against a threshold, which the
            # service's own applications don't set: an application made by someone else.
            name = "gravitino-job-3013"
            body = self.cluster.operator.app_body(
                name, {"app.kubernetes.io/managed-by": "gravitino",
                       "gravitino.apache.org/job-id": "3013"}, configs)
            body["spec"]["sparkConf"]["spark.kubernetes.container.image"] = "apache/spark:4.0.0"
            body["spec"]["applicationTolerations"] = {
                "instanceConfig": {"initExecutors": 2, "minExecutors": 2, "maxExecutors": 2},
                "applicationTimeoutConfig": {"executorStartTimeoutMillis": 3600000}}
            self.cluster.create_app("default", body)
            execution_id = "default/sparkapp/default/" + name
        else:
            execution_id = self.submit("3013", spark_template(
                outcome="hang", extra_configs=configs)).execution_id
        self.addCleanup(self.cancel, execution_id)

        def pending():
            info = self.status(execution_id)
            return info.waiting_reason == W.EXECUTORS_PENDING and info
        info = kje.wait_until(pending, OPERATOR_WAIT, "the job to wait for its executors")
        self.assertEqual(S.Name(info.status), "STARTED", info)
        self.assertTrue(info.waiting_message, info)

    # --- a queue ---------------------------------------------------------------------------------

    def test_a_kueue_job_waits_for_admission_until_kueue_admits_it(self):
        resp = self.submit("3020", spark_template(custom_fields={"queue": "team-a"}))
        info = self.wait_waiting(resp.execution_id, W.QUEUE_ADMISSION)
        self.assertEqual(info.queue, "team-a")
        # Kueue's own words, from the job's Workload, once Kueue has written its condition (until
        # then the service says the job is held for admission, in its own words).
        kueue_words = ("Kueue: couldn't assign flavors to pod set driver: insufficient unused "
                       "quota")

        def in_kueue_words():
            info = self.status(resp.execution_id)
            self.assertEqual(info.waiting_reason, W.QUEUE_ADMISSION, info)
            return kueue_words in info.waiting_message and info
        info = kje.wait_until(in_kueue_words, OPERATOR_WAIT, "Kueue's words on the waiting job")
        code, out, _ = self.cli("status", resp.execution_id)
        self.assertEqual(code, 5)
        self.assertIn("QUEUE_ADMISSION", out)
        # Kueue admits its workload (kubesim's stand-in): the job runs to its end.
        group, version = self.cluster.operator.group, self.cluster.operator.version
        self.cluster.custom.patch_namespaced_custom_object(
            group, version, "default", "sparkapplications", "gravitino-job-3020",
            {"metadata": {"annotations": {"kubesim.dev/kueue-admitted": "true"}}})

        def finished():
            info = self.status(resp.execution_id)
            if info.status != S.QUEUED:
                # Started: at most its executors are still coming.
                self.assertIn(info.waiting_reason,
                              (W.WAITING_REASON_UNSPECIFIED, W.EXECUTORS_PENDING), info)
            return info.status == S.SUCCEEDED and info
        kje.wait_until(finished, OPERATOR_WAIT, "the admitted job to succeed")

    # --- deadlines -------------------------------------------------------------------------------

    def test_a_queued_deadline_stops_the_job_once_with_two_replicas_racing(self):
        # Nobody asks for its status: both replicas' sweeps see the deadline pass.
        resp = self.submit("3030", spark_template(outcome="unschedulable",
                                                  custom_fields={"maxQueuedSeconds": "2"}))
        seen = list(self.stubs[1].WatchStatus(
            pb.WatchStatusRequest(execution_ids=[resp.execution_id]), timeout=OPERATOR_WAIT))
        last = seen[-1]
        self.assertEqual(S.Name(last.status), "FAILED", last)
        self.assertEqual(pb.JobInfo.Deadline.Name(last.deadline_exceeded), "QUEUED_DEADLINE")
        self.assertIn("didn't start within its queued deadline (2 s", last.message)
        # While it waited, it said when it would be stopped: 2 s after its creation.
        waiting = [i for i in seen if i.status == S.QUEUED]
        self.assertTrue(waiting, seen)
        self.assertTrue(waiting[0].HasField("deadline_at"), waiting[0])
        # Its application and driver go, as with a cancel.
        kje.wait_until(lambda: self.cluster.app("default", "gravitino-job-3030") is None,
                       OPERATOR_WAIT, "the stopped app to be deleted")
        # Exactly one replica stopped it.
        stops = [l for s in self.servers for l in s.lines
                 if "stopping a job whose deadline passed" in l and "gravitino-job-3030" in l]
        self.assertEqual(len(stops), 1, stops)


if __name__ == "__main__":
    unittest.main()
