"""The record outlives the pod, end to end on either backend with two replicas: when a job ends,
one replica keeps its driver log's tail and last Events in an object the application owns and
labels the application; once the driver pod is deleted, Output (with source KEPT), Status
(output_source KEPT, the exit code) and Events still answer from either replica. A followed log
carries cursors: a follow cut on one replica and resumed on the other yields exactly the rest,
also once the pod is gone and the rest comes from the kept tail."""

import os
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
OUTPUT_LABEL = "gravitino.apache.org/output"
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
WAIT = 60


def spark_template(outcome="succeed", duration_ms=2000):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": outcome,
                                   "kubesim.durationMs": str(duration_ms)}))


class KeepTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
""" % cls.cluster.kubeconfig)
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
        assert codes == [0, 0], codes

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

    def wait_kept(self, execution_id):
        """Waits for the job to end and its record to be written; returns its JobInfo."""
        info = kje.wait_until(lambda: (lambda i: i.status in TERMINAL and i)(
            self.status(execution_id, 1)), WAIT, "the job to end")

        def labelled():
            app = self.cluster.app("default", info.name)
            return app and app["metadata"].get("labels", {}).get(OUTPUT_LABEL)
        self.assertEqual(kje.wait_until(labelled, WAIT, "the output label"), "kept")
        return info

    def delete_driver(self, app_name):
        for pod in self.cluster.driver_pods("default", app_name):
            self.cluster.core.delete_namespaced_pod(pod.metadata.name, "default",
                                                    grace_period_seconds=0)
        kje.wait_until(lambda: not self.cluster.driver_pods("default", app_name), WAIT,
                       "the driver pod to go")

    def test_output_status_and_events_after_the_driver_pod_is_deleted(self):
        eid = self.submit("keep-after-delete", spark_template())
        info = self.wait_kept(eid)
        live = self.output(eid)
        self.assertEqual(live.source, pb.JobInfo.LIVE)
        self.assertTrue(any("Pi is roughly" in line for line in live.lines), live.lines)
        record = self.cluster.core.read_namespaced_config_map(info.name + "-kept", "default")
        self.assertEqual(record.metadata.owner_references[0].name, info.name)

        self.delete_driver(info.name)
        for replica in (0, 1):
            kept = self.output(eid, replica)
            self.assertEqual(kept.source, pb.JobInfo.KEPT)
            self.assertEqual(list(kept.lines), list(live.lines))
            again = self.status(eid, replica)
            self.assertEqual(again.output_source, pb.JobInfo.KEPT)
            self.assertTrue(again.HasField("exit_code"))
            self.assertEqual(again.exit_code, 0)
            events = self.stubs[replica].Events(pb.EventsRequest(execution_id=eid),
                                                timeout=kje.RPC_TIMEOUT)
            self.assertTrue(any(e.object_kind == "Pod" for e in events.events),
                            [(e.object_kind, e.reason) for e in events.events])

    def follow(self, eid, replica, resume="", stop_after=None):
        """Lines and the cursor after each chunk of a follow; stops after `stop_after` chunks."""
        chunks = []
        call = self.stubs[replica].FollowOutput(
            pb.FollowOutputRequest(execution_id=eid, tail_lines=10000, resume=resume),
            timeout=WAIT)
        for chunk in call:
            self.assertEqual(chunk.dropped_lines, 0)
            self.assertTrue(chunk.cursor)
            chunks.append((list(chunk.lines), chunk.cursor))
            if stop_after is not None and len(chunks) >= stop_after:
                call.cancel()
                break
        return chunks

    def test_a_follow_resumes_on_the_other_replica_exactly_after_its_cursor(self):
        eid = self.submit("keep-follow", spark_template(duration_ms=4000))
        kje.wait_until(lambda: self.status(eid).status in (S.STARTED,) + TERMINAL, WAIT,
                       "the job to start")
        first = kje.wait_until(lambda: self.follow(eid, 0, stop_after=1), WAIT,
                               "a first chunk of the log")
        head, cursor = first[0]
        rest = [line for lines, _ in self.follow(eid, 1, resume=cursor) for line in lines]
        info = self.wait_kept(eid)
        whole = list(self.output(eid).lines)
        self.assertEqual(head + rest, whole)
        self.assertTrue(rest, "the job logged after the first chunk")

        # The same cursor once the pod is gone: the rest comes from the kept tail.
        self.delete_driver(info.name)
        from_kept = [line for lines, _ in self.follow(eid, 0, resume=cursor) for line in lines]
        self.assertEqual(from_kept, rest)
        # And every chunk's cursor resumes exactly after it.
        chunks = self.follow(eid, 1, resume=cursor)
        for i, (_, at) in enumerate(chunks):
            after = [line for lines, _ in self.follow(eid, 0, resume=at) for line in lines]
            self.assertEqual(after, [line for lines, _ in chunks[i + 1:] for line in lines])

    def test_a_cursor_this_service_did_not_give_is_invalid_argument(self):
        eid = self.submit("keep-bad-cursor", spark_template())
        with self.assertRaises(grpc.RpcError) as caught:
            list(self.stubs[0].FollowOutput(
                pb.FollowOutputRequest(execution_id=eid, resume="not-a-cursor"),
                timeout=kje.RPC_TIMEOUT))
        self.assertEqual(caught.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
