"""Links out, ListJobs filters and the application metrics, end to end on either backend with
two replicas: a finished job's JobInfo carries the configured links with its own values (and a
link whose value isn't known is left out) on both replicas and in ListJobs; ListJobs filters by
status and by created/finished time, from the informer, paging through a filtered list; and the
jobs' series of /metrics move on every replica as jobs run."""

import calendar
import os
import re
import time
import unittest
import urllib.parse
import urllib.request
import uuid

import grpc
import kje
from google.protobuf import timestamp_pb2
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
OPERATOR_WAIT = 60
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, line
        labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def series(samples, name, **labels):
    """The sum of `name`'s samples whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, l), v in samples.items() if n == name and want <= set(l))


def template(outcome="succeed", duration_ms=1500):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": outcome,
                                   "kubesim.durationMs": str(duration_ms)}))


def millis(rfc3339):
    return calendar.timegm(time.strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ")) * 1000


def ts(seconds):
    return timestamp_pb2.Timestamp(seconds=int(seconds))


class LinksMetricsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  metricsListen: 127.0.0.1:0
links:
  spark-ui: "https://spark.example/{namespace}/{name}"
  history: "https://history.example/history/{sparkAppId}/jobs/"
  logs: "https://logs.example/explore?job={jobId}&from={createdAtMillis}&to={finishedAtMillis}&since={createdAt}"
""" % cls.cluster.kubeconfig)
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(2)]
        cls.metrics = [s.metrics_url() for s in cls.servers]
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

    def submit(self, job_id, outcome="succeed", duration_ms=1500):
        return self.stubs[0].Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                     template=template(outcome, duration_ms)),
                                    timeout=kje.RPC_TIMEOUT).execution_id

    def status(self, execution_id, stub=0):
        return self.stubs[stub].Status(pb.StatusRequest(execution_id=execution_id),
                                       timeout=kje.RPC_TIMEOUT)

    def wait_status(self, execution_id, status, stub=0):
        def poll():
            info = self.status(execution_id, stub)
            return info if info.status == status else None
        return kje.wait_until(poll, OPERATOR_WAIT, "%s to be %s" % (execution_id, S.Name(status)))

    def list_all(self, stub=0, **filters):
        jobs, token = [], ""
        while True:
            page = self.stubs[stub].ListJobs(
                pb.ListJobsRequest(page_size=1, page_token=token, **filters),
                timeout=kje.RPC_TIMEOUT)
            self.assertLessEqual(len(page.jobs), 1)
            jobs.extend(page.jobs)
            token = page.next_page_token
            if not token:
                return jobs

    def test_links_carry_the_jobs_values_on_every_replica(self):
        job_id = str(5000 + uuid.uuid4().int % 1000)
        eid = self.submit(job_id)
        name = "gravitino-job-" + job_id
        queued = self.status(eid)
        links = {l.name: l.url for l in queued.links}
        # Known from the start: the namespace and name; the logs link waits for the finish.
        self.assertEqual(links["spark-ui"], "https://spark.example/default/" + name)
        self.assertNotIn("logs", links)
        if not queued.spark_application_id:
            self.assertNotIn("history", links)
        done = self.wait_status(eid, S.SUCCEEDED)
        created = self.cluster.app("default", name)["metadata"]["creationTimestamp"]

        def want(info):
            return {
                "spark-ui": "https://spark.example/default/" + name,
                "history": "https://history.example/history/%s/jobs/" % urllib.parse.quote(
                    info.spark_application_id, safe=""),
                "logs": "https://logs.example/explore?job=%s&from=%d&to=%d&since=%s" % (
                    job_id, millis(created), info.finished_at.ToMilliseconds(),
                    urllib.parse.quote(created, safe="")),
            }
        self.assertTrue(done.spark_application_id)
        self.assertIn("%3A", want(done)["logs"])  # the time's colons, escaped
        self.assertEqual({l.name: l.url for l in done.links}, want(done))
        self.assertEqual([l.name for l in done.links], sorted(want(done)))  # in name order
        # The other replica, from its own informer, and ListJobs say the same of their answers.
        other = self.wait_status(eid, S.SUCCEEDED, stub=1)
        self.assertEqual({l.name: l.url for l in other.links}, want(other))
        listed = [j for j in self.list_all(stub=1) if j.execution_id == eid]
        self.assertEqual(len(listed), 1)
        self.assertEqual({l.name: l.url for l in listed[0].links}, want(listed[0]))

    def test_list_jobs_filters_by_status_and_time(self):
        start = int(time.time())  # creation times are whole seconds
        ok = self.submit(str(6000 + uuid.uuid4().int % 1000))
        bad = self.submit(str(7000 + uuid.uuid4().int % 1000), outcome="fail")
        self.wait_status(ok, S.SUCCEEDED)
        self.wait_status(bad, S.FAILED)
        for stub in (0, 1):
            failed = [j.execution_id for j in self.list_all(stub, statuses=[S.FAILED])]
            self.assertIn(bad, failed)
            self.assertNotIn(ok, failed)
            both = self.list_all(stub, statuses=[S.FAILED, S.SUCCEEDED],
                                 created_after=ts(start), finished_after=ts(start))
            self.assertLessEqual({ok, bad}, {j.execution_id for j in both})
            for j in both:
                self.assertIn(j.status, (S.FAILED, S.SUCCEEDED))
                self.assertGreaterEqual(j.finished_at.seconds, start)
            self.assertEqual([], self.list_all(stub, created_after=ts(time.time() + 3600)))
            self.assertEqual([], self.list_all(stub, finished_before=ts(start)))
            # Unfinished jobs have no finish time: a finished bound leaves them out.
            self.assertEqual([], self.list_all(stub, statuses=[S.QUEUED, S.STARTED],
                                               finished_after=ts(0)))
        with self.assertRaises(grpc.RpcError) as e:
            self.stubs[0].ListJobs(pb.ListJobsRequest(created_after=ts(start),
                                                      created_before=ts(start)),
                                   timeout=kje.RPC_TIMEOUT)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("created_after", e.exception.details())
        with self.assertRaises(grpc.RpcError) as e:
            self.stubs[0].ListJobs(pb.ListJobsRequest(statuses=[42]), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)

    def test_the_jobs_metrics_move_on_every_replica_as_jobs_run(self):
        labels = {"namespace": "default"}
        before = [scrape(url) for url in self.metrics]
        ok = self.submit(str(8000 + uuid.uuid4().int % 1000))
        bad = self.submit(str(9000 + uuid.uuid4().int % 1000), outcome="fail")
        self.wait_status(ok, S.SUCCEEDED)
        self.wait_status(bad, S.FAILED)
        for url, was in zip(self.metrics, before):
            def moved():
                now = scrape(url)
                grew = lambda n: series(now, n, **labels) - series(was, n, **labels)
                ok = (grew("k8s_job_executor_job_submissions_total") >= 2 and
                      grew("k8s_job_executor_job_completions_total") >= 1 and
                      grew("k8s_job_executor_job_failures_total") >= 1 and
                      grew("k8s_job_executor_job_run_seconds_count") >= 2 and
                      grew("k8s_job_executor_job_start_latency_seconds_count") >= 2)
                return now if ok else None
            now = kje.wait_until(moved, OPERATOR_WAIT, "the job metrics of %s to move" % url)
            self.assertGreaterEqual(
                series(now, "k8s_job_executor_jobs", status="SUCCEEDED", **labels), 1)
            self.assertGreaterEqual(
                series(now, "k8s_job_executor_jobs", status="FAILED", **labels), 1)
            backends = {dict(l).get("backend") for (n, l) in now
                        if n == "k8s_job_executor_job_submissions_total"}
            self.assertEqual(len(backends), 1, backends)
        # A cancelled job counts as one.
        eid = self.submit(str(9500 + uuid.uuid4().int % 400), duration_ms=600000)
        was = scrape(self.metrics[1])
        self.stubs[0].Cancel(pb.CancelRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)
        kje.wait_until(
            lambda: series(scrape(self.metrics[1]), "k8s_job_executor_job_cancellations_total",
                           **labels) >
            series(was, "k8s_job_executor_job_cancellations_total", **labels),
            OPERATOR_WAIT, "the cancellation to be counted")


if __name__ == "__main__":
    unittest.main()
