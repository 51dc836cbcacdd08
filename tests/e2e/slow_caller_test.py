"""A slow or hostile caller costs only itself, end to end against the real binary over kubesim.

- A WatchStatus caller that reads its first message and then stops (HTTP/2 flow control holds the
  server's writes) while the watched jobs change many times: other callers' Submit, Status and
  Output answer as usual, the stalled stream ends RESOURCE_EXHAUSTED, and SIGTERM still ends the
  process within server.drainTimeoutMs.
- Reads about made-up namespaces: refused without a Kubernetes request when an allow-list is set;
  without one, single GETs, no LIST or WATCH started, and no metric series added.
"""

import os
import re
import threading
import time
import unittest
import urllib.request

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from executor_test import spark_template

S = pb.JobInfo.Status
DRAIN_MS = 3000
QUEUE_LIMIT = 64
JOBS = 100

# The stalled caller's channel: no window growth, a small stream window, so the server's writes
# stop once a few messages are in flight.
STALLED_OPTIONS = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024),
                   ("grpc.max_receive_message_length", 1 << 20)]


def request_counts(cluster):
    out = {}
    for r in kje.kubesim_stats(cluster)["requests"]:
        key = (r["verb"], r["resource"])
        out[key] = out.get(key, 0) + r["count"]
    return out


class StalledWatcherTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(time_scale=50)
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 600000
server:
  drainTimeoutMs: %d
  maxQueuedChanges: %d
""" % (cls.cluster.kubeconfig, DRAIN_MS, QUEUE_LIMIT))
        cls.server = kje.Server(["--config", cls.config])

    @classmethod
    def tearDownClass(cls):
        if cls.server.proc.poll() is None:
            cls.server.kill()
        cls.cluster.stop()
        os.unlink(cls.config)

    def test_a_stalled_watcher_costs_only_itself(self):
        channel = self.server.channel()
        stub = pb_grpc.JobExecutorStub(channel)
        ids = []
        # Six seconds of run time each (at kubesim's 50x): however slowly this loaded machine
        # submits the hundred, every job still has its outcome and more to come once the watch
        # below has stalled, far more changes than QUEUE_LIMIT.
        for i in range(JOBS):
            ids.append(stub.Submit(pb.SubmitRequest(
                job_id="slow-%d" % i, metalake="lake",
                template=spark_template(duration_ms=300000)), timeout=kje.RPC_TIMEOUT).execution_id)

        stalled_channel = grpc.insecure_channel(self.server.address, options=STALLED_OPTIONS)
        stalled = pb_grpc.JobExecutorStub(stalled_channel).WatchStatus(
            pb.WatchStatusRequest(execution_ids=ids), timeout=300)
        first = next(stalled)  # the first message; then this caller stops reading
        self.assertIn(first.execution_id, ids)

        # A second stalled watcher stays open (it watches one long job) until SIGTERM.
        long_id = stub.Submit(pb.SubmitRequest(
            job_id="slow-long", metalake="lake", template=spark_template(duration_ms=3600000)),
            timeout=kje.RPC_TIMEOUT).execution_id
        held_channel = grpc.insecure_channel(self.server.address, options=STALLED_OPTIONS)
        held = pb_grpc.JobExecutorStub(held_channel).WatchStatus(
            pb.WatchStatusRequest(execution_ids=[long_id]), timeout=300)
        next(held)

        # Every job runs to the end meanwhile: about ten changes each, far past the limit.
        def all_finished():
            infos = [stub.Status(pb.StatusRequest(execution_id=e), timeout=kje.RPC_TIMEOUT)
                     for e in ids]
            return all(i.status == S.SUCCEEDED for i in infos)
        kje.wait_until(all_finished, 120, "the watched jobs to finish")

        # Another caller is served as usual while the stalled stream is stuck.
        other = pb_grpc.JobExecutorStub(self.server.channel())
        eid = other.Submit(pb.SubmitRequest(job_id="slow-other", metalake="lake",
                                            template=spark_template(duration_ms=500)),
                           timeout=5).execution_id
        self.assertEqual(other.Status(pb.StatusRequest(execution_id=eid), timeout=5).execution_id,
                         eid)
        other.Output(pb.OutputRequest(execution_id=ids[0]), timeout=5)
        self.assertEqual(other.Status(pb.StatusRequest(execution_id=ids[-1]), timeout=5).status,
                         S.SUCCEEDED)

        # The stalled caller, reading again, finds its stream ended for falling behind: what was
        # in flight, then RESOURCE_EXHAUSTED, not the thousand changes it missed.
        with self.assertRaises(grpc.RpcError) as err:
            for _ in stalled:
                pass
        self.assertEqual(err.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED,
                         err.exception.details())
        self.assertIn("too slowly", err.exception.details())
        stalled_channel.close()

        # SIGTERM with a stalled stream still open: the drain deadline ends it.
        start = time.monotonic()
        code = self.server.terminate(timeout=DRAIN_MS / 1000 + 10)
        elapsed_ms = (time.monotonic() - start) * 1000
        self.assertEqual(code, 0, "\n".join(self.server.lines[-30:]))
        self.assertLess(elapsed_ms, DRAIN_MS + 5000)
        held_channel.close()
        channel.close()


class NamespacePolicyTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        base = """
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  metricsListen: 127.0.0.1:0
%s
"""
        cls.configs = [kje.write_temp(base % (cls.cluster.kubeconfig, extra)) for extra in
                       ("  allowedNamespaces: [default]", "")]
        cls.allowed = kje.Server(["--config", cls.configs[0]])
        cls.open = kje.Server(["--config", cls.configs[1]])
        # Both informers have synced: from now on neither makes a request but its watch.
        for server in (cls.allowed, cls.open):
            kje.wait_until(lambda: any("informer synced" in l for l in server.lines), 20,
                           "the informer to sync")

    @classmethod
    def tearDownClass(cls):
        codes = [cls.allowed.terminate(), cls.open.terminate()]
        cls.cluster.stop()
        for c in cls.configs:
            os.unlink(c)
        assert codes == [0, 0], codes

    @staticmethod
    def metrics(server):
        port = None
        for line in server.lines:
            m = re.search(r'msg="metrics listening" .*\bport=(\d+)', line)
            if m:
                port = int(m.group(1))
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
            return r.read().decode()

    @staticmethod
    def made_up(i, name="gravitino-job-x"):
        return "default/sparkapp/made-up-%d/%s" % (i, name)

    def test_an_allow_list_refuses_other_namespaces_before_any_request(self):
        stub = pb_grpc.JobExecutorStub(self.allowed.channel())
        before = request_counts(self.cluster)
        calls = [
            lambda e: stub.Status(pb.StatusRequest(execution_id=e), timeout=5),
            lambda e: stub.Cancel(pb.CancelRequest(execution_id=e), timeout=5),
            lambda e: stub.Output(pb.OutputRequest(execution_id=e), timeout=5),
            lambda e: list(stub.WatchStatus(pb.WatchStatusRequest(execution_ids=[e]), timeout=5)),
            lambda e: list(stub.FollowOutput(pb.FollowOutputRequest(execution_id=e), timeout=5)),
        ]
        for i in range(100):
            for call in calls:
                with self.assertRaises(grpc.RpcError) as err:
                    call(self.made_up(i))
                self.assertEqual(err.exception.code(), grpc.StatusCode.PERMISSION_DENIED)
                self.assertIn("made-up-%d" % i, err.exception.details())
                self.assertIn("server.allowedNamespaces", err.exception.details())
            with self.assertRaises(grpc.RpcError) as err:
                stub.ListJobs(pb.ListJobsRequest(**{"namespace": "made-up-%d" % i}), timeout=5)
            self.assertEqual(err.exception.code(), grpc.StatusCode.PERMISSION_DENIED)
        self.assertEqual(request_counts(self.cluster), before)
        self.assertNotIn("made-up", self.metrics(self.allowed))

    def test_without_an_allow_list_reads_are_single_gets_and_start_no_watch(self):
        stub = pb_grpc.JobExecutorStub(self.open.channel())
        before = request_counts(self.cluster)
        for i in range(100):
            with self.assertRaises(grpc.RpcError) as err:
                stub.Status(pb.StatusRequest(execution_id=self.made_up(i)), timeout=5)
            self.assertEqual(err.exception.code(), grpc.StatusCode.NOT_FOUND)
        after = request_counts(self.cluster)
        delta = {k: after.get(k, 0) - before.get(k, 0) for k in after
                 if after.get(k, 0) != before.get(k, 0)}
        self.assertEqual(delta, {("get", "sparkapplications"): 100})
        self.assertFalse(any("made-up" in l and "informer" in l for l in self.open.lines))
        self.assertNotIn("made-up", self.metrics(self.open))


if __name__ == "__main__":
    unittest.main()
