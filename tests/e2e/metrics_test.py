"""The /metrics endpoint end to end: the real binary over kubesim, with the metrics listener on an
OS-chosen port (read from the "metrics listening" log line), scraped with plain HTTP as Prometheus
would, around a Submit, a Status and a Cancel."""

import os
import re
import unittest
import urllib.error
import urllib.request
import uuid

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

NAMESPACE = "spark-jobs"
SERVICE = "jobexecutor.v1.JobExecutor"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse(text):
    """Prometheus text format 0.0.4 -> ([(name, {labels}, value)], {family: type})."""
    samples, types = [], {}
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, family, kind = line.split(" ", 3)
            types[family] = kind
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "not a sample line: %r" % line
        labels = dict((k, v.encode().decode("unicode_escape")) for k, v in LABEL.findall(m.group(2) or ""))
        samples.append((m.group(1), labels, float(m.group(3))))
    return samples, types


def value(samples, name, **labels):
    """The sample with exactly these labels, 0 if absent (a counter not yet incremented)."""
    for n, l, v in samples:
        if n == name and l == labels:
            return v
    return 0.0


def matching(samples, name, **subset):
    return [(l, v) for n, l, v in samples
            if n == name and all(l.get(k) == want for k, want in subset.items())]


class MetricsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
namespace: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  metricsListen: 127.0.0.1:0
""" % (cls.cluster.kubeconfig, NAMESPACE))
        cls.server = kje.Server(["--config", cls.config])
        # The metrics endpoint is up (and logged) before the gRPC port is.
        cls.metrics_url = cls.server.metrics_url()[:-len("/metrics")]
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        os.unlink(cls.config)
        assert code == 0, code

    def get(self, path):
        with urllib.request.urlopen(self.metrics_url + path, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def scrape(self):
        status, content_type, body = self.get("/metrics")
        self.assertEqual(status, 200)
        self.assertEqual(content_type, "text/plain; version=0.0.4; charset=utf-8")
        return parse(body)

    def test_other_paths_are_404(self):
        with self.assertRaises(urllib.error.HTTPError) as e:
            self.get("/")
        self.assertEqual(e.exception.code, 404)

    def test_submit_status_cancel_are_counted_without_job_ids_as_labels(self):
        before, _ = self.scrape()
        job_id = "metrics-" + uuid.uuid4().hex[:8]
        template = pb.JobTemplate(
            name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
            spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                              configs={"kubesim.durationMs": "60000"}))
        execution_id = self.stub.Submit(
            pb.SubmitRequest(job_id=job_id, metalake="lake", template=template),
            timeout=kje.RPC_TIMEOUT).execution_id
        # Before the Cancel, which may delete the application.
        app_names = [a["metadata"]["name"] for a in self.cluster.apps(NAMESPACE)]
        self.assertTrue(any(job_id in n for n in app_names), app_names)

        # The informer sees the application through its watch: eventually, not at once.
        kje.wait_until(
            lambda: value(self.scrape()[0], "k8s_job_executor_informer_objects",
                          namespace=NAMESPACE) >= 1,
            20, "the informer to hold the application")

        self.stub.Status(pb.StatusRequest(execution_id=execution_id), timeout=kje.RPC_TIMEOUT)
        self.stub.Cancel(pb.CancelRequest(execution_id=execution_id), timeout=kje.RPC_TIMEOUT)
        kje.health(self.channel)
        self.assertIn(SERVICE, kje.list_services(self.channel))
        # Every call above has its answer, so it is counted: one scrape sees it all.
        after, types = self.scrape()

        def delta(name, **labels):
            return value(after, name, **labels) - value(before, name, **labels)

        submit = dict(grpc_type="unary", grpc_service=SERVICE, grpc_method="Submit")
        self.assertEqual(delta("grpc_server_started_total", **submit), 1)
        self.assertEqual(delta("grpc_server_handled_total", grpc_code="OK", **submit), 1)
        self.assertEqual(delta("grpc_server_handling_seconds_count", **submit), 1)
        for method in ("Status", "Cancel"):
            self.assertEqual(delta("grpc_server_handled_total", grpc_type="unary",
                                   grpc_service=SERVICE, grpc_method=method, grpc_code="OK"), 1,
                             method)
        self.assertEqual(types.get("grpc_server_handling_seconds"), "histogram")
        # Methods not called yet are there at 0, with their types.
        self.assertEqual(len(matching(before, "grpc_server_started_total", grpc_service=SERVICE,
                                      grpc_method="FollowOutput", grpc_type="server_stream")), 1)
        # Health and reflection are counted too, reflection as the bidirectional stream it is.
        self.assertEqual(delta("grpc_server_handled_total", grpc_type="unary",
                               grpc_service="grpc.health.v1.Health", grpc_method="Check",
                               grpc_code="OK"), 1)
        self.assertEqual(delta("grpc_server_handled_total", grpc_type="bidi_stream",
                               grpc_service="grpc.reflection.v1alpha.ServerReflection",
                               grpc_method="ServerReflectionInfo", grpc_code="OK"), 1)

        # Kubernetes requests by verb, resource and code: the create of the application at least.
        requests = matching(after, "k8s_job_executor_kubernetes_requests_total")
        self.assertTrue(requests)
        for labels, _ in requests:
            self.assertEqual(set(labels), {"verb", "resource", "code"}, labels)
        self.assertGreaterEqual(value(after, "k8s_job_executor_kubernetes_requests_total",
                                      verb="create", resource="sparkapplications", code="201"), 1)
        self.assertGreaterEqual(value(after, "k8s_job_executor_kubernetes_requests_total",
                                      verb="list", resource="sparkapplications", code="200"), 1)
        self.assertGreaterEqual(
            value(after, "k8s_job_executor_kubernetes_request_duration_seconds_count",
                  verb="create", resource="sparkapplications"), 1)
        self.assertEqual(types.get("k8s_job_executor_kubernetes_request_duration_seconds"),
                         "histogram")
        # The client's admission (kubernetes.maxInFlight, qps, burst): idle now, nothing refused.
        self.assertEqual(types.get("k8s_job_executor_kubernetes_requests_in_flight"), "gauge")
        self.assertEqual(value(after, "k8s_job_executor_kubernetes_requests_in_flight"), 0)
        self.assertEqual(value(after, "k8s_job_executor_kubernetes_requests_waiting"), 0)
        self.assertEqual(value(after, "k8s_job_executor_kubernetes_requests_refused_total"), 0)
        self.assertEqual({labels["limit"] for labels, _ in
                          matching(after, "k8s_job_executor_kubernetes_request_waits_total")},
                         {"qps", "maxInFlight"})

        self.assertEqual(value(after, "k8s_job_executor_informer_synced", namespace=NAMESPACE), 1)
        staleness = value(after, "k8s_job_executor_informer_staleness_seconds",
                          namespace=NAMESPACE)
        self.assertGreaterEqual(staleness, 0)
        self.assertLess(staleness, 60)
        self.assertEqual(len(matching(after, "k8s_job_executor_build_info")), 1)
        # Submissions and cancellations by result, as the service counts them.
        self.assertEqual(delta("k8s_job_executor_submissions_total", result="created"), 1)
        self.assertEqual(delta("k8s_job_executor_submissions_total", result="adopted"), 0)
        self.assertEqual(delta("k8s_job_executor_cancellations_total", result="requested"), 1)

        # No job id, execution id or application name as a label value, anywhere.
        forbidden = [job_id, execution_id] + app_names
        for name, labels, _ in after:
            for v in labels.values():
                for f in forbidden:
                    self.assertNotIn(f, v, "%s%r" % (name, labels))


if __name__ == "__main__":
    unittest.main()
