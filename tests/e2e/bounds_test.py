"""The global bounds hold under a flood, end to end against the real binary over kubesim.

server.maxConcurrentRpcs and server.maxStreams are set small. Three Cancels wait in the API server
(a latency fault on its GETs) and two WatchStatus streams follow their jobs; then a flood of calls
of every kind. Each flooded call is refused RESOURCE_EXHAUSTED at once, naming its key, and makes
no Kubernetes request; the admitted calls are unharmed: the Cancels answer OK, the streams see
their jobs cancelled and end OK. Afterwards the places are free again.

kubernetes.maxInFlight the same way, on a second server: two Cancels hold its places in the API
server and two more wait for them (as many may wait as there are places); a flood of Cancels is
refused at once, naming the key, without a request; the four admitted ones answer OK.
"""

import concurrent.futures
import os
import re
import time
import unittest
import urllib.request

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from executor_test import spark_template

S = pb.JobInfo.Status
MAX_RPCS = 3
MAX_STREAMS = 2
# Long enough that the flood ends well before it on a loaded machine (60 calls took ~3 s once,
# under a full parallel ctest).
GET_LATENCY_MS = 8000
FLOOD = 60
MAX_IN_FLIGHT = 2


def request_count(cluster, verb, resource):
    return sum(r["count"] for r in kje.kubesim_stats(cluster)["requests"]
               if r["verb"] == verb and r["resource"] == resource)


class GlobalBoundsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(time_scale=50)
        def config(bounds):
            return kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 600000
server:
  metricsListen: 127.0.0.1:0
%s""" % (cls.cluster.kubeconfig, bounds))
        cls.config = config("  maxConcurrentRpcs: %d\n  maxStreams: %d\n"
                            % (MAX_RPCS, MAX_STREAMS))
        cls.server = kje.Server(["--config", cls.config])
        cls.metrics_url = cls.server.metrics_url()
        cls.k8s_config = config("kubernetes:\n  maxInFlight: %d\n" % MAX_IN_FLIGHT)
        cls.k8s_server = kje.Server(["--config", cls.k8s_config])

    @classmethod
    def tearDownClass(cls):
        codes = [cls.server.terminate(), cls.k8s_server.terminate()]
        cls.cluster.stop()
        os.unlink(cls.config)
        os.unlink(cls.k8s_config)
        assert codes == [0, 0], codes

    def gauge(self, name, kind, url=None):
        with urllib.request.urlopen(url or self.metrics_url, timeout=10) as r:
            body = r.read().decode()
        labels = r'\{kind="%s"\}' % kind if kind else ""
        m = re.search(r'^%s%s (\S+)$' % (name, labels), body, re.M)
        return float(m.group(1)) if m else None

    def assert_refused(self, call, key):
        with self.assertRaises(grpc.RpcError) as err:
            result = call()
            if hasattr(result, "__iter__") and not isinstance(result, (str, bytes)):
                for _ in result:  # a stream's refusal comes with its first read
                    pass
        self.assertEqual(err.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED,
                         err.exception.details())
        self.assertIn("%s: " % key, err.exception.details())

    def test_a_flood_is_refused_at_once_and_the_admitted_calls_are_unharmed(self):
        channel = self.server.channel()
        stub = pb_grpc.JobExecutorStub(channel)
        ids = [stub.Submit(pb.SubmitRequest(job_id="bound-%d" % i, metalake="lake",
                                            template=spark_template(outcome="hang")),
                           timeout=kje.RPC_TIMEOUT).execution_id for i in range(MAX_RPCS)]
        kje.wait_until(lambda: all(
            stub.Status(pb.StatusRequest(execution_id=e), timeout=kje.RPC_TIMEOUT).status ==
            S.STARTED for e in ids), 60, "the jobs to run")

        # Two streams hold the stream places; each has its first message.
        watches = [stub.WatchStatus(pb.WatchStatusRequest(execution_ids=[e]), timeout=120)
                   for e in ids[:MAX_STREAMS]]
        for w in watches:
            self.assertEqual(next(w).status, S.STARTED)
        self.assertEqual(self.gauge("k8s_job_executor_rpcs_in_flight", "stream"), MAX_STREAMS)

        # Three Cancels hold the unary places, each waiting in the API server's GET.
        kje.add_fault(self.cluster, {"verb": "get", "resource": "sparkapplications",
                                     "latencyMs": GET_LATENCY_MS, "count": MAX_RPCS})
        gets_before = request_count(self.cluster, "get", "sparkapplications") + MAX_RPCS
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=MAX_RPCS)
        cancels = [pool.submit(stub.Cancel, pb.CancelRequest(execution_id=e), timeout=30)
                   for e in ids]
        # Admitted, and their GETs arrived (kubesim counts a request as it arrives), so that
        # none of theirs is counted during the flood.
        kje.wait_until(lambda: self.gauge("k8s_job_executor_rpcs_in_flight", "unary") == MAX_RPCS
                       and request_count(self.cluster, "get", "sparkapplications") == gets_before,
                       20, "the cancels to be in flight")
        lists_before = request_count(self.cluster, "list", "pods")

        # The flood: every kind of call that would wait, and every kind of stream.
        flood_start = time.monotonic()
        unknown = "default/sparkapp/default/gravitino-job-nobody"
        for i in range(FLOOD):
            kind = i % 5
            if kind == 0:
                self.assert_refused(lambda: stub.Cancel(
                    pb.CancelRequest(execution_id=ids[0]), timeout=5), "server.maxConcurrentRpcs")
            elif kind == 1:
                self.assert_refused(lambda: stub.Output(
                    pb.OutputRequest(execution_id=ids[1]), timeout=5), "server.maxConcurrentRpcs")
            elif kind == 2:
                self.assert_refused(lambda: stub.Status(
                    pb.StatusRequest(execution_id=unknown), timeout=5), "server.maxConcurrentRpcs")
            elif kind == 3:
                self.assert_refused(lambda: stub.WatchStatus(
                    pb.WatchStatusRequest(execution_ids=[ids[2]]), timeout=5), "server.maxStreams")
            else:
                self.assert_refused(lambda: stub.FollowOutput(
                    pb.FollowOutputRequest(execution_id=ids[2]), timeout=5), "server.maxStreams")
        flood_seconds = time.monotonic() - flood_start
        # Refused at once: the whole flood took less than the one GET the admitted calls wait for.
        self.assertLess(flood_seconds * 1000, GET_LATENCY_MS, flood_seconds)
        # And cost the cluster nothing.
        self.assertEqual(request_count(self.cluster, "get", "sparkapplications"), gets_before)
        self.assertEqual(request_count(self.cluster, "list", "pods"), lists_before)
        # A Status the snapshot answers holds no place, so it is answered even now.
        self.assertEqual(stub.Status(pb.StatusRequest(execution_id=ids[2]),
                                     timeout=5).execution_id, ids[2])

        # The admitted calls are unharmed: each Cancel is answered, each stream sees its job end.
        for f in cancels:
            f.result(timeout=30)
        for w in watches:
            last = None
            for info in w:
                last = info
            self.assertEqual(last.status, S.CANCELLED)
        pool.shutdown()

        # The places are given back: the next calls are admitted.
        kje.wait_until(lambda: self.gauge("k8s_job_executor_rpcs_in_flight", "unary") == 0 and
                       self.gauge("k8s_job_executor_rpcs_in_flight", "stream") == 0,
                       20, "the places to be free")
        stub.Output(pb.OutputRequest(execution_id=ids[0]), timeout=kje.RPC_TIMEOUT)
        self.assertGreaterEqual(self.gauge("k8s_job_executor_rpcs_refused_total", "unary"),
                                FLOOD * 3 // 5)
        self.assertGreaterEqual(self.gauge("k8s_job_executor_rpcs_refused_total", "stream"),
                                FLOOD * 2 // 5)
        channel.close()

    def test_a_flood_past_kubernetes_max_in_flight_is_refused_at_once(self):
        url = self.k8s_server.metrics_url()
        channel = self.k8s_server.channel()
        stub = pb_grpc.JobExecutorStub(channel)
        job = stub.Submit(pb.SubmitRequest(job_id="inflight", metalake="lake",
                                           template=spark_template(outcome="hang")),
                          timeout=kje.RPC_TIMEOUT).execution_id
        kje.wait_until(lambda: stub.Status(pb.StatusRequest(execution_id=job),
                                           timeout=kje.RPC_TIMEOUT).status == S.STARTED,
                       60, "the job to run")
        admitted = 2 * MAX_IN_FLIGHT  # the places, and as many waiting for them
        kje.add_fault(self.cluster, {"verb": "get", "resource": "sparkapplications",
                                     "latencyMs": GET_LATENCY_MS, "count": MAX_IN_FLIGHT})
        gets_before = request_count(self.cluster, "get", "sparkapplications") + MAX_IN_FLIGHT
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=admitted)
        cancels = [pool.submit(stub.Cancel, pb.CancelRequest(execution_id=job), timeout=30)
                   for _ in range(admitted)]

        def holding():
            return (self.gauge("k8s_job_executor_kubernetes_requests_in_flight", None, url),
                    self.gauge("k8s_job_executor_kubernetes_requests_waiting", None, url)) == (
                        MAX_IN_FLIGHT, MAX_IN_FLIGHT)
        # The two in flight arrived at the API server (counted as they arrive), the others wait.
        kje.wait_until(lambda: holding() and request_count(
            self.cluster, "get", "sparkapplications") == gets_before, 20,
            "two requests in flight and two waiting")

        flood_start = time.monotonic()
        for _ in range(FLOOD // 3):
            with self.assertRaises(grpc.RpcError) as err:
                stub.Cancel(pb.CancelRequest(execution_id=job), timeout=5)
            self.assertEqual(err.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED,
                             err.exception.details())
            self.assertIn("(kubernetes.maxInFlight)", err.exception.details())
        flood_seconds = time.monotonic() - flood_start
        self.assertLess(flood_seconds * 1000, GET_LATENCY_MS, flood_seconds)
        self.assertEqual(request_count(self.cluster, "get", "sparkapplications"), gets_before)
        # The admitted ones are unharmed: each is answered once the slow GETs are over, OK, or
        # NOT_FOUND where the operator removes a cancelled app at once and another got there
        # first.
        answered = []
        for f in cancels:
            try:
                f.result(timeout=30)
                answered.append(grpc.StatusCode.OK)
            except grpc.RpcError as e:
                answered.append(e.code())
        self.assertIn(grpc.StatusCode.OK, answered)
        self.assertLessEqual(set(answered), {grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND},
                             answered)
        pool.shutdown()
        self.assertGreaterEqual(
            self.gauge("k8s_job_executor_kubernetes_requests_refused_total", None, url),
            FLOOD // 3)
        channel.close()


if __name__ == "__main__":
    unittest.main()
