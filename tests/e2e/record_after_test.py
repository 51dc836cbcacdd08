"""The record outlives the pod, the application and the replicas, end to end on either backend with
two replicas (issue #44's Done-when): a job cancelled in keep mode, and a job whose driver pod the
operator deleted, still answer Status, Output and Events from either replica after a restart of
both, the first an hour of kubesim time later (the cluster has forgotten the driver's Events by
then: they come from the kept record); a job whose pod went while no replica ran says its output
was not kept, and why; once the application itself is gone (its TTL, a Cancel that deletes), Events
still answers from the Events the cluster holds, and Status is NOT_FOUND."""

import os
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
OUTPUT_LABEL = "gravitino.apache.org/output"
KUBEFLOW = kje.OPERATOR == "kubeflow"
WAIT = 90


def spark_template(outcome="hang", duration_ms=2000):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": outcome,
                                   "kubesim.durationMs": str(duration_ms)}))


def driver_name(app_name):
    """The first attempt's driver pod, as each operator names it."""
    return app_name + ("-driver" if KUBEFLOW else "-0-driver")


class Replicas(unittest.TestCase):
    """Two replicas of the service over one kubesim, which a test may restart."""

    TIME_SCALE = 20
    EXTRA_CONFIG = ""

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(time_scale=cls.TIME_SCALE)
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
%s""" % (cls.cluster.kubeconfig, cls.EXTRA_CONFIG))
        cls.servers = []
        cls.start_replicas()

    @classmethod
    def start_replicas(cls):
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]

    @classmethod
    def stop_replicas(cls):
        for c in cls.channels:
            c.close()
        codes = [s.terminate() for s in cls.servers]
        cls.servers = []
        assert codes == [0, 0], codes

    @classmethod
    def tearDownClass(cls):
        if cls.servers:
            cls.stop_replicas()
        cls.cluster.stop()
        os.unlink(cls.config)

    def restart_both(self):
        self.stop_replicas()
        self.start_replicas()

    def submit(self, job_id, template):
        return self.stubs[0].Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                     template=template),
                                    timeout=kje.RPC_TIMEOUT).execution_id

    def status(self, execution_id, replica=0):
        return self.stubs[replica].Status(pb.StatusRequest(execution_id=execution_id),
                                          timeout=kje.RPC_TIMEOUT)

    def output(self, execution_id, replica=0):
        return self.stubs[replica].Output(
            pb.OutputRequest(execution_id=execution_id, max_lines=1000),
            timeout=kje.RPC_TIMEOUT)

    def events(self, execution_id, replica=0):
        return self.stubs[replica].Events(pb.EventsRequest(execution_id=execution_id),
                                          timeout=kje.RPC_TIMEOUT).events

    def wait_status(self, execution_id, wanted, replica=0):
        def reached():
            info = self.status(execution_id, replica)
            return info if info.status == wanted or info.status in TERMINAL else None
        info = kje.wait_until(reached, WAIT, "%s to be %s" % (execution_id, S.Name(wanted)))
        self.assertEqual(info.status, wanted, info)
        return info

    def wait_labelled(self, app_name):
        """The output label the replica that kept the record put on the application."""
        def labelled():
            app = self.cluster.app("default", app_name)
            return app and app["metadata"].get("labels", {}).get(OUTPUT_LABEL)
        return kje.wait_until(labelled, WAIT, "the output label of " + app_name)

    def cluster_events(self, pod_name):
        return self.cluster.core.list_namespaced_event(
            "default", field_selector="involvedObject.name=" + pod_name).items

    def wait_live_lines(self, execution_id):
        return kje.wait_until(lambda: list(self.output(execution_id).lines), WAIT,
                              "the driver to log")


class RecordAfterRestartTest(Replicas):
    # The operator's clock runs 600 times faster: an hour of it is six seconds of ours, and the
    # Apache operator releases a finished driver after 40 minutes of it (four seconds).
    TIME_SCALE = 600
    EXTRA_CONFIG = "  resourceRetainDurationMs: 2400000\n"

    def an_hour_passes(self):
        """Waits until kubesim's operator has lived an hour: a job of an hour succeeds."""
        witness = self.submit("hour-%d" % id(self), spark_template(
            outcome="succeed", duration_ms=3600 * 1000))
        self.wait_status(witness, S.SUCCEEDED)

    def test_a_kept_cancel_answers_an_hour_later_on_either_replica_after_a_restart(self):
        eid = self.submit("ra-keep", spark_template())
        name = "gravitino-job-ra-keep"
        self.wait_status(eid, S.STARTED)
        live = self.wait_live_lines(eid)
        self.stubs[0].Cancel(pb.CancelRequest(execution_id=eid, reason="wrong input table",
                                              mode=pb.CancelRequest.KEEP),
                             timeout=kje.RPC_TIMEOUT)
        self.wait_status(eid, S.CANCELLED, replica=1)
        # Read before the stop ended the driver.
        self.assertEqual(self.wait_labelled(name), "kept")
        kje.wait_until(lambda: not self.cluster.driver_pods("default", name), WAIT,
                       "the driver to go")

        self.an_hour_passes()
        # The cluster has forgotten the driver's Events: what Events shows of it is the record's.
        kje.wait_until(lambda: not self.cluster_events(driver_name(name)), WAIT,
                       "the driver's Events to expire")
        self.restart_both()
        for replica in (0, 1):
            info = self.status(eid, replica)
            self.assertEqual((info.status, info.cancel_reason),
                             (S.CANCELLED, "wrong input table"))
            self.assertTrue(info.HasField("finished_at"))
            self.assertEqual(info.output_source, pb.JobInfo.KEPT)
            kept = self.output(eid, replica)
            self.assertEqual(kept.source, pb.JobInfo.KEPT)
            self.assertEqual(list(kept.lines)[:len(live)], live)
            pod_events = [e for e in self.events(eid, replica) if e.object_kind == "Pod"]
            self.assertTrue(pod_events)
            self.assertEqual({e.object_name for e in pod_events}, {driver_name(name)})
            self.assertIn("Started", [e.reason for e in pod_events])

    def delete_driver(self, app_name):
        """What an operator does to a finished job's driver (Kubeflow's kubesim keeps it until the
        application goes; a cluster's cleanup may not)."""
        for pod in self.cluster.driver_pods("default", app_name):
            self.cluster.core.delete_namespaced_pod(pod.metadata.name, "default",
                                                    grace_period_seconds=0)

    def test_a_job_whose_driver_the_operator_deleted_answers_after_a_restart(self):
        eid = self.submit("ra-released", spark_template(outcome="fail", duration_ms=60000))
        name = "gravitino-job-ra-released"
        info = self.wait_status(eid, S.FAILED, replica=1)
        self.assertEqual(self.wait_labelled(name), "kept")
        if not KUBEFLOW:
            # The operator releases it at the end of its retain duration.
            kje.wait_until(lambda: self.cluster.app("default", name)["status"]["currentState"]
                           ["currentStateSummary"] == "ResourceReleased", WAIT,
                           "the operator to release the job")
        else:
            self.delete_driver(name)
        kje.wait_until(lambda: not self.cluster.driver_pods("default", name), WAIT,
                       "the driver to go")
        self.restart_both()
        for replica in (0, 1):
            again = self.status(eid, replica)
            self.assertEqual(again.status, S.FAILED)
            self.assertEqual(again.output_source, pb.JobInfo.KEPT)
            self.assertTrue(again.HasField("exit_code"))
            self.assertNotEqual(again.exit_code, 0)
            self.assertEqual(again.finished_at, info.finished_at)
            kept = self.output(eid, replica)
            self.assertEqual(kept.source, pb.JobInfo.KEPT)
            self.assertTrue(kept.lines)
            kinds = {(e.object_kind, e.object_name) for e in self.events(eid, replica)}
            self.assertIn(("Pod", driver_name(name)), kinds)

    def test_a_pod_gone_while_no_replica_ran_says_its_output_was_not_kept(self):
        eid = self.submit("ra-unseen", spark_template())
        name = "gravitino-job-ra-unseen"
        self.wait_status(eid, S.STARTED)
        self.stop_replicas()
        try:
            # The driver goes (a node lost, an eviction) while no replica runs: the operator ends
            # the job without it.
            self.delete_driver(name)
            terminal = self.cluster.operator.terminal_states

            def ended():
                app = self.cluster.app("default", name)
                state = (app["status"]["applicationState"]["state"] if KUBEFLOW else
                         app["status"]["currentState"]["currentStateSummary"])
                return state in terminal + ("TerminatedWithoutReleaseResources",) and state
            kje.wait_until(ended, WAIT, "the operator to end the job")
            self.assertEqual(self.cluster.driver_pods("default", name), [])
        finally:
            self.start_replicas()
        self.assertEqual(self.wait_labelled(name), "not-kept.pod-gone")
        for replica in (0, 1):
            info = self.status(eid, replica)
            self.assertEqual(info.status, S.FAILED)
            self.assertEqual(info.output_source, pb.JobInfo.NOT_KEPT)
            self.assertIn("deleted before any replica", info.output_note)
            out = self.output(eid, replica)
            self.assertEqual((out.source, list(out.lines)), (pb.JobInfo.NOT_KEPT, []))


class EventsAfterTheApplicationTest(Replicas):
    # A stopped application goes a minute of operator time (three seconds) after it stops:
    # Kubeflow's timeToLiveSeconds, Apache's ttlAfterStopMillis.
    EXTRA_CONFIG = "  ttlAfterStopMs: 60000\n"

    def test_after_the_ttl_deletes_the_app_events_still_answer_and_status_is_not_found(self):
        eid = self.submit("ra-ttl", spark_template(outcome="succeed"))
        name = "gravitino-job-ra-ttl"
        self.wait_status(eid, S.SUCCEEDED, replica=1)
        kje.wait_until(lambda: self.cluster.app("default", name) is None, WAIT,
                       "the TTL to delete the application")
        self.assertEqual(self.cluster.driver_pods("default", name), [])
        self.restart_both()
        for replica in (0, 1):
            with self.assertRaises(grpc.RpcError) as caught:
                self.status(eid, replica)
            self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
            events = self.events(eid, replica)
            pod_events = [e for e in events if e.object_kind == "Pod"]
            self.assertTrue(pod_events, [(e.object_kind, e.reason) for e in events])
            self.assertEqual({e.object_name for e in pod_events}, {driver_name(name)})
            self.assertIn("Scheduled", [e.reason for e in pod_events])

    def test_after_a_cancel_that_deletes_events_still_answer(self):
        eid = self.submit("ra-deleted", spark_template())
        name = "gravitino-job-ra-deleted"
        self.wait_status(eid, S.STARTED)
        self.wait_live_lines(eid)
        self.stubs[1].Cancel(pb.CancelRequest(execution_id=eid, mode=pb.CancelRequest.DELETE),
                             timeout=kje.RPC_TIMEOUT)
        kje.wait_until(lambda: self.cluster.app("default", name) is None, WAIT,
                       "the application to be deleted")
        for replica in (0, 1):
            def driver_reasons():
                return [e.reason for e in self.events(eid, replica)
                        if (e.object_kind, e.object_name) == ("Pod", driver_name(name))]
            # Its deletion stopped the driver: the kubelet says so, once it has seen it.
            reasons = kje.wait_until(lambda: "Killing" in driver_reasons() and driver_reasons(),
                                     WAIT, "the kubelet's Killing event")
            self.assertIn("Started", reasons)

    def test_a_job_nothing_is_left_of_is_not_found(self):
        with self.assertRaises(grpc.RpcError) as caught:
            self.events("default/sparkapp/default/gravitino-job-never-was", 1)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)


@unittest.skipIf(not KUBEFLOW, "schedules are kubeflow/spark-operator's")
class EventsAfterPruningTest(Replicas):
    """A schedule's controller deletes finished runs beyond its history limit when the next
    starts; the run's Events still answer."""

    def test_a_pruned_run_still_answers_events(self):
        self.stubs[0].CreateSchedule(pb.CreateScheduleRequest(
            schedule_id="ra-prune", metalake="lake",
            template=spark_template(outcome="succeed", duration_ms=500),
            spec=pb.ScheduleSpec(schedule="* * * * *", successful_run_history_limit=0)),
            timeout=kje.RPC_TIMEOUT)
        self.addCleanup(lambda: self.stubs[0].DeleteSchedule(
            pb.DeleteScheduleRequest(schedule_id="ra-prune"), timeout=kje.RPC_TIMEOUT))

        def first_run():
            runs = self.stubs[1].GetSchedule(pb.GetScheduleRequest(schedule_id="ra-prune"),
                                             timeout=kje.RPC_TIMEOUT).runs
            return runs and runs[-1]
        run = kje.wait_until(first_run, WAIT, "a first run")
        self.wait_status(run.execution_id, S.SUCCEEDED, replica=1)
        kje.wait_until(lambda: self.cluster.app("default", run.name) is None, WAIT,
                       "the next run to prune it")
        for replica in (0, 1):
            with self.assertRaises(grpc.RpcError) as caught:
                self.status(run.execution_id, replica)
            self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
            kinds = {(e.object_kind, e.object_name) for e in self.events(run.execution_id,
                                                                          replica)}
            self.assertIn(("Pod", driver_name(run.name)), kinds)
            self.assertIn(("SparkApplication", run.name), kinds)


if __name__ == "__main__":
    unittest.main()
