"""WatchStatus, FollowOutput and ListJobs end to end, against the real binary over kubesim: push
instead of poll, checked against what the cluster itself recorded (python-kubernetes) and against
what the unary RPCs answer."""

import os
import threading
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from executor_test import spark_template

S = pb.JobInfo.Status
STREAM_TIMEOUT = 90


def reads(cluster):
    """Reads so far by resource: GETs and LISTs (not the create of a Submit, which kubesim may
    count just after its answer has reached us)."""
    out = {}
    for r in kje.kubesim_stats(cluster)["requests"]:
        if r["verb"] in ("get", "list"):
            out[r["resource"]] = out.get(r["resource"], 0) + r["count"]
    return out


class PushTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        config = """
kubeconfig: %s
noStatusTimeoutMs: 60000
statusCacheTtlMs: %d
# What the stream reads is counted below: the kept record's capture (its own test) reads the
# driver pod when a job ends, so it is off here.
output:
  keep: false
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 600000
"""
        cls.configs = [kje.write_temp(config % (cls.cluster.kubeconfig, ttl)) for ttl in (5000, 0)]
        cls.server = kje.Server(["--config", cls.configs[0]])
        cls.uncached = kje.Server(["--config", cls.configs[1]])
        cls.channel = cls.server.channel()
        cls.uncached_channel = cls.uncached.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)
        cls.uncached_stub = pb_grpc.JobExecutorStub(cls.uncached_channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.uncached_channel.close()
        codes = [cls.server.terminate(), cls.uncached.terminate()]
        cls.cluster.stop()
        for c in cls.configs:
            os.unlink(c)
        assert codes == [0, 0], (codes, "\n".join(cls.server.lines[-30:] +
                                                    cls.uncached.lines[-30:]))

    def submit(self, job_id, template):
        return self.stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                 template=template),
                                timeout=kje.RPC_TIMEOUT).execution_id

    def watch(self, ids, stub=None):
        return list((stub or self.stub).WatchStatus(pb.WatchStatusRequest(execution_ids=ids),
                                                    timeout=STREAM_TIMEOUT))

    def assert_code(self, code, fn):
        with self.assertRaises(grpc.RpcError) as err:
            fn()
        self.assertEqual(err.exception.code(), code, err.exception.details())
        return err.exception.details()

    # --- WatchStatus ----------------------------------------------------------------------------

    def test_watch_delivers_every_transition_without_polling(self):
        eid = self.submit("3001", spark_template(duration_ms=3000))
        before = reads(self.cluster)
        infos = self.watch([eid])
        after = reads(self.cluster)

        # Every operator state the application went through, in order, as the cluster recorded it.
        app = self.cluster.app("default", "gravitino-job-3001")
        recorded = self.cluster.operator.recorded_states(app)
        streamed = [i.operator_state for i in infos if i.operator_state]
        self.assertTrue(streamed, infos)
        # In the order the cluster recorded them, none invented, ending at the outcome. Each one,
        # unless two came while the previous message was still on its way (then the newer is
        # sent): on a loaded machine, or under a sanitizer, Succeeded and the retained state after
        # it can arrive together.
        positions = [recorded.index(s) for s in streamed]
        self.assertEqual(positions, sorted(positions), (streamed, recorded))
        # A state is sent again only when something else about the run changed with it (the
        # operator learns the Spark application id or the UI's address during a state).
        stated = [i for i in infos if i.operator_state]
        for a, b in zip(stated, stated[1:]):
            if a.operator_state == b.operator_state:
                self.assertNotEqual(
                    (a.spark_application_id, a.attempts, a.driver_ui_address, a.driver_pod,
                     a.status, a.message),
                    (b.spark_application_id, b.attempts, b.driver_ui_address, b.driver_pod,
                     b.status, b.message), (a, b))
        self.assertIn(streamed[-1], ("Succeeded", "TerminatedWithoutReleaseResources", "COMPLETED"))
        # No two consecutive messages alike; the statuses move forward only.
        for a, b in zip(infos, infos[1:]):
            self.assertNotEqual(a, b)
        statuses = [S.Name(i.status) for i in infos]
        dedup = [s for i, s in enumerate(statuses) if i == 0 or statuses[i - 1] != s]
        self.assertEqual(dedup, ["QUEUED", "STARTED", "SUCCEEDED"])
        self.assertTrue(all(i.execution_id == eid and i.job_id == "3001" for i in infos))
        # The last message is what Status says of the finished job (driver container times).
        final = self.stub.Status(pb.StatusRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)
        # The operator may have moved on (Succeeded -> TerminatedWithoutReleaseResources) by the
        # time Status asks: the outcome, times and driver are what must agree.
        for field in ("status", "started_at", "finished_at", "driver_pod", "execution_id"):
            self.assertEqual(getattr(infos[-1], field), getattr(final, field), field)
        self.assertTrue(final.HasField("finished_at"))
        # Pushed, not polled: the server read no application while the stream ran, and listed
        # the driver pods once (for the final times).
        grew = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        self.assertEqual(grew.get("sparkapplications", 0), 0, grew)
        self.assertLessEqual(grew.get("pods", 0), 1, grew)

    def test_watch_of_several_jobs_ends_when_all_stopped(self):
        ok = self.submit("3002", spark_template(duration_ms=1500))
        bad = self.submit("3003", spark_template(outcome="fail", duration_ms=1000))
        infos = self.watch([ok, bad])
        last = {}
        for i in infos:
            last[i.execution_id] = S.Name(i.status)
        self.assertEqual(last, {ok: "SUCCEEDED", bad: "FAILED"})
        # The first message of each job comes before any job's second.
        self.assertEqual({infos[0].execution_id, infos[1].execution_id}, {ok, bad})

    def test_watch_sees_a_cancel(self):
        eid = self.submit("3004", spark_template(duration_ms=600000))
        received = []
        stream = self.stub.WatchStatus(pb.WatchStatusRequest(execution_ids=[eid]),
                                       timeout=STREAM_TIMEOUT)
        started = threading.Event()

        def consume():
            for info in stream:
                received.append(info)
                if info.status == S.STARTED:
                    started.set()
        t = threading.Thread(target=consume)
        t.start()
        self.assertTrue(started.wait(STREAM_TIMEOUT), received)
        self.stub.Cancel(pb.CancelRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)
        t.join(STREAM_TIMEOUT)
        self.assertFalse(t.is_alive())
        self.assertEqual(S.Name(received[-1].status), "CANCELLED")
        self.assertTrue(received[-1].HasField("finished_at"))

    def test_watch_of_a_finished_job_sends_its_outcome_and_ends(self):
        eid = self.submit("3005", spark_template(duration_ms=500))
        self.watch([eid])
        infos = self.watch([eid])
        self.assertEqual([S.Name(i.status) for i in infos], ["SUCCEEDED"])

    def test_watch_rejects_bad_requests(self):
        eid = self.submit("3006", spark_template(duration_ms=500))
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, lambda: self.watch([]))
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, lambda: self.watch([eid, eid]))
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT,
                         lambda: self.watch(["%s-%d" % (eid, i) for i in range(101)]))
        details = self.assert_code(grpc.StatusCode.NOT_FOUND, lambda: self.watch(
            [eid, eid.replace("gravitino-job-3006", "gravitino-job-nope")]))
        self.assertIn("gravitino-job-nope", details)
        self.assert_code(grpc.StatusCode.NOT_FOUND, lambda: self.watch(["not an id"]))
        self.assert_code(grpc.StatusCode.FAILED_PRECONDITION,
                         lambda: self.watch([eid], stub=self.uncached_stub))

    # --- FollowOutput ---------------------------------------------------------------------------

    def test_follow_streams_the_driver_log_until_it_ends(self):
        eid = self.submit("3010", spark_template(duration_ms=3000))
        chunks = list(self.stub.FollowOutput(pb.FollowOutputRequest(execution_id=eid,
                                                                    tail_lines=10000),
                                             timeout=STREAM_TIMEOUT))
        lines = [line for c in chunks for line in c.lines]
        self.assertTrue(any(line.startswith("Pi is roughly 3.14") for line in lines), lines)
        self.assertTrue(all(c.dropped_lines == 0 for c in chunks))
        # The same lines as the bounded Output of the finished job.
        out = self.stub.Output(pb.OutputRequest(execution_id=eid, max_lines=10000,
                                                max_bytes=1 << 20), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(lines, list(out.lines))

    def test_follow_of_unknown_and_bad_ids(self):
        eid = self.submit("3011", spark_template(duration_ms=500))
        self.assert_code(grpc.StatusCode.NOT_FOUND, lambda: list(self.stub.FollowOutput(
            pb.FollowOutputRequest(execution_id=eid.replace("3011", "x")),
            timeout=kje.RPC_TIMEOUT)))
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, lambda: list(self.stub.FollowOutput(
            pb.FollowOutputRequest(execution_id=eid, tail_lines=-1), timeout=kje.RPC_TIMEOUT)))

    # --- ListJobs -------------------------------------------------------------------------------

    def list_all(self, stub, **kwargs):
        jobs, token, pages = [], "", 0
        while True:
            resp = stub.ListJobs(pb.ListJobsRequest(page_token=token, **kwargs),
                                 timeout=kje.RPC_TIMEOUT)
            jobs.extend(resp.jobs)
            pages += 1
            token = resp.next_page_token
            if not token:
                return jobs, pages

    def test_list_pages_through_every_job_in_name_order(self):
        for i in range(5):
            self.submit("302%d" % i, spark_template(duration_ms=500))
        expected = sorted(a["metadata"]["name"] for a in self.cluster.apps("default"))
        for stub in (self.stub, self.uncached_stub):
            jobs, pages = kje.wait_until(
                lambda: (lambda r: r if len(r[0]) == len(expected) else None)(
                    self.list_all(stub, namespace="default", page_size=2)),
                10, "the list to catch up")
            self.assertEqual([j.name for j in jobs], expected)
            self.assertEqual(pages, (len(expected) + 1) // 2)
            self.assertTrue(all(j.execution_id.endswith("/sparkapp/default/" + j.name)
                                for j in jobs))

    def test_list_filters_by_label_selector(self):
        eid = self.submit("3030", spark_template(duration_ms=500))
        for stub in (self.stub, self.uncached_stub):
            jobs = kje.wait_until(lambda: self.list_all(
                stub, label_selector="gravitino.apache.org/job-id in (3030, nope)")[0], 10,
                "job 3030 to be listed")
            self.assertEqual([j.execution_id for j in jobs], [eid])
            self.assertEqual(jobs[0].job_id, "3030")
            none, _ = self.list_all(stub, label_selector="gravitino.apache.org/job-id=3030,!x,y")
            self.assertEqual(list(none), [])

    def test_list_rejects_bad_requests(self):
        for req in (pb.ListJobsRequest(label_selector="a in b"),
                    pb.ListJobsRequest(namespace="Not_A_Namespace"),
                    pb.ListJobsRequest(page_size=1001),
                    pb.ListJobsRequest(page_size=-1),
                    pb.ListJobsRequest(page_token="forged")):
            details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT,
                                       lambda: self.stub.ListJobs(req, timeout=kje.RPC_TIMEOUT))
            self.assertTrue(details)

    # --- Status from memory ---------------------------------------------------------------------

    def test_a_read_carries_a_request_id_when_the_caller_sent_one_or_it_is_logged(self):
        eid = self.submit("3050", spark_template(duration_ms=500))
        req = pb.StatusRequest(execution_id=eid)

        def request_id(metadata):
            return dict(metadata).get("x-request-id")
        _, call = self.stub.Status.with_call(req, timeout=kje.RPC_TIMEOUT,
                                             metadata=[("x-request-id", "poll-7")])
        self.assertEqual(request_id(call.initial_metadata()), "poll-7")
        # Answered reads are logged at debug only: no line, hence no id to correlate with.
        _, call = self.stub.Status.with_call(req, timeout=kje.RPC_TIMEOUT)
        self.assertIsNone(request_id(call.initial_metadata()))
        # A read answered NOT_FOUND is an answer too: debug, no id.
        with self.assertRaises(grpc.RpcError) as err:
            self.stub.Status(pb.StatusRequest(execution_id="no/such/id"), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(err.exception.code(), grpc.StatusCode.NOT_FOUND)
        self.assertIsNone(request_id(err.exception.initial_metadata()))
        # A read the cluster could not answer is logged (warn), with an id made for it and
        # returned. The uncached server reads the app from the API server, which fails every GET.
        fault = kje.add_fault(self.cluster, {"verb": "get", "resource": "sparkapplications",
                                             "status": 503, "count": 1000})
        try:
            with self.assertRaises(grpc.RpcError) as err:
                self.uncached_stub.Status(req, timeout=kje.RPC_TIMEOUT)
        finally:
            if any(f["id"] == fault for f in
                   kje._kubesim_request(self.cluster, "GET", "/kubesim/faults")["items"]):
                kje.remove_fault(self.cluster, fault)
        self.assertIn(err.exception.code(), (grpc.StatusCode.UNAVAILABLE,
                                             grpc.StatusCode.DEADLINE_EXCEEDED))
        made = request_id(err.exception.initial_metadata())
        self.assertRegex(made or "", r"^[0-9a-f]{16}$")

    def test_status_of_a_finished_job_costs_no_kubernetes_request(self):
        eid = self.submit("3040", spark_template(duration_ms=500))
        self.watch([eid])
        # The watch ends at the outcome (Succeeded); the operator then moves the app on to the
        # state it rests in for the 10-minute retain, and only that one stays put.
        def resting():
            info = self.stub.Status(pb.StatusRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)
            return info if info.operator_state == resting_state else None
        resting_state = self.cluster.operator.resting_success_state
        first = kje.wait_until(resting, 10, "job 3040 to rest in " + resting_state)
        before = kje.kubesim_stats(self.cluster)["total"]
        for _ in range(20):
            again = self.stub.Status(pb.StatusRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)
            self.assertEqual(again, first)
        # The stats request itself is the only one counted in between.
        self.assertLessEqual(kje.kubesim_stats(self.cluster)["total"] - before, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
