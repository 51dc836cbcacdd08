"""The fault matrix: three replicas against one kubesim, well over a hundred jobs, every job
submitted to every replica at once, while kubesim throttles (429 + Retry-After), fails (500/503),
resets answers mid-body (creates included), delays answers (some past the RPC deadline), drops
watches and expires them (410, also by compacting its history), and the token is revoked and
rotated; one replica is SIGKILLed part-way.

Asserted: exactly one application per job id (kubesim counts one successful create per job), one
execution id per job across every replica's answers, every job reaches its true outcome (its
sparkConf decides it; cancelled jobs end CANCELLED), the surviving replicas agree on every job, and
no request loops (kubesim's request count stays within REQUEST_BOUND_PER_JOB per job).
"""

import base64
import concurrent.futures
import os
import random
import threading
import time
import unittest

import grpc
import yaml

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from executor_test import spark_template

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
JOBS = 120
NAMESPACE = "spark-jobs"
# Every job is decided within this many seconds (the operator's clock runs 20 times faster).
OUTCOME_DEADLINE = 120
# Requests kubesim may see per job, over the whole run, from all three replicas: a Submit is a
# create (and, after a lost answer, a read), Status reads come from the informers, a Cancel is a
# patch and a delete; retries of injected faults add a few (a run measures about 8). A loop
# would blow through this.
REQUEST_BOUND_PER_JOB = 20


def outcome_of(i):
    """What job i is made to do: succeed, fail, or hang until it is cancelled."""
    return ("succeed", "succeed", "fail", "cancel", "succeed")[i % 5]


FAULTS = [
    {"verb": "create", "resource": "sparkapplications", "status": 429, "retryAfterSeconds": 1,
     "count": 15},
    {"verb": "create", "resource": "sparkapplications", "resetMidBody": True, "count": 12},
    {"verb": "create", "resource": "sparkapplications", "status": 503, "count": 8},
    {"verb": "get", "resource": "sparkapplications", "status": 500, "count": 10},
    {"verb": "list", "resource": "*", "status": 503, "retryAfterSeconds": 1, "count": 6},
    {"verb": "list", "resource": "pods", "latencyMs": 1500, "count": 10},
    {"verb": "watch", "resource": "sparkapplications", "dropWatchAfterEvents": 20, "count": 6},
    {"verb": "watch", "resource": "sparkapplications", "forceGone": True, "count": 4},
    {"verb": "patch", "resource": "sparkapplications", "status": 500, "count": 4},
    {"verb": "delete", "resource": "sparkapplications", "status": 503, "count": 4},
    {"verb": "*", "resource": "*", "revokeToken": True, "count": 6},
    {"verb": "get", "resource": "sparkapplications", "latencyMs": 2000, "count": 6},
    # Past the RPC deadline (kje.RPC_TIMEOUT): the call gives up, the caller retries.
    {"verb": "get", "resource": "sparkapplications", "latencyMs": int((kje.RPC_TIMEOUT + 1) * 1000),
     "count": 2},
]


class FaultMatrixTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(operator_namespaces=(NAMESPACE,), namespaces=(NAMESPACE,))
        with open(cls.cluster.kubeconfig) as f:
            kc = yaml.safe_load(f)
        cls.ca = kje.write_temp(base64.b64decode(
            kc["clusters"][0]["cluster"]["certificate-authority-data"]).decode(), ".pem")
        config = """
masterUrl: %s
caCertFile: %s
tokenFile: %s
namespace: %s
noStatusTimeoutMs: 300000
statusCacheTtlMs: 2000
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 3600000
server:
  allowedNamespaces: [%s]
""" % (cls.cluster.url, cls.ca, cls.cluster.token_file, NAMESPACE, NAMESPACE)
        cls.config = kje.write_temp(config)
        # Faults first, so the replicas' informers meet them too (their first list and watch).
        cls.fault_ids = {kje.add_fault(cls.cluster, fault): fault for fault in FAULTS}
        cls.servers = [kje.Server(["--config", cls.config]) for _ in range(3)]
        cls.channels = [s.channel() for s in cls.servers]
        cls.stubs = [pb_grpc.JobExecutorStub(c) for c in cls.channels]

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels:
            c.close()
        for s in cls.servers:
            s.kill()
        cls.cluster.stop()
        os.unlink(cls.config)
        os.unlink(cls.ca)

    def rotate_token(self):
        """A new token for kubesim and the replicas (they share the file); the kubeconfig of the
        test's own requests follows."""
        token = os.urandom(16).hex()
        tmp = self.cluster.token_file + ".new"
        with open(tmp, "w") as f:
            f.write(token)
        os.replace(tmp, self.cluster.token_file)
        with open(self.cluster.kubeconfig) as f:
            kc = yaml.safe_load(f)
        kc["users"][0]["user"]["token"] = token
        with open(self.cluster.kubeconfig, "w") as f:
            yaml.safe_dump(kc, f)

    def test_faults_kill_and_rotation_lose_nothing_and_duplicate_nothing(self):
        started = time.monotonic()
        rng = random.Random(13)
        alive = [True, True, True]
        answers = {i: [] for i in range(JOBS)}  # execution ids answered, by any replica
        lock = threading.Lock()

        # Each job's one template: a retry on any replica sends the same request (a different
        # one under the same job id is refused, ALREADY_EXISTS naming the field).
        durations = {i: rng.choice((500, 2000)) for i in range(JOBS)}

        def submit(i, replica):
            template = (spark_template(outcome="hang") if outcome_of(i) == "cancel" else
                        spark_template(outcome=outcome_of(i), duration_ms=durations[i]))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and alive[replica]:
                try:
                    eid = self.stubs[replica].Submit(pb.SubmitRequest(
                        job_id="fm-%d" % i, metalake="lake", template=template),
                        timeout=kje.RPC_TIMEOUT).execution_id
                    with lock:
                        answers[i].append(eid)
                    return
                except grpc.RpcError as e:
                    # A caller retries what may not have happened; anything else is a bug.
                    # The revoked-token fault answers 401 even to the reloaded token: the service
                    # says so (FAILED_PRECONDITION, nothing was created), and this caller, whose
                    # operator rotates the token meanwhile, tries again.
                    revoked = (e.code() == grpc.StatusCode.FAILED_PRECONDITION and
                               "refused the service's credentials" in (e.details() or ""))
                    if not revoked and e.code() not in (grpc.StatusCode.UNAVAILABLE,
                                                        grpc.StatusCode.DEADLINE_EXCEEDED):
                        raise AssertionError("Submit fm-%d on replica %d: %s %s"
                                             % (i, replica, e.code().name, e.details()))
                    time.sleep(0.2)

        with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
            futures = [pool.submit(submit, i, r) for i in range(JOBS) for r in range(3)]
            done_count = 0
            for f in concurrent.futures.as_completed(futures):
                f.result()
                done_count += 1
                if done_count == len(futures) // 3:
                    self.rotate_token()
                    # Watch history gone: a replica's next watch from its version gets 410.
                    kje._kubesim_request(self.cluster, "POST", "/kubesim/compact")
                if done_count == len(futures) // 2 and alive[2]:
                    alive[2] = False
                    self.servers[2].kill()  # SIGKILL, part-way through the submits
        for i in range(JOBS):
            self.assertTrue(answers[i], "no replica accepted job fm-%d" % i)
            self.assertEqual(len(set(answers[i])), 1, "job fm-%d got %r" % (i, answers[i]))
        eids = {i: answers[i][0] for i in range(JOBS)}
        survivors = [0, 1]

        def call(fn, what):
            """An RPC on a surviving replica, retried while the cluster is faulty."""
            deadline = time.monotonic() + OUTCOME_DEADLINE
            last = None
            while time.monotonic() < deadline:
                try:
                    return fn(self.stubs[rng.choice(survivors)])
                except grpc.RpcError as e:
                    if e.code() == grpc.StatusCode.NOT_FOUND:
                        raise
                    last = e
                    time.sleep(0.2)
            raise AssertionError("%s: %s" % (what, last))

        def status(i, stub):
            return stub.Status(pb.StatusRequest(execution_id=eids[i]), timeout=kje.RPC_TIMEOUT)

        # Cancel the hanging jobs once they run, each on a replica picked at random.
        def cancel(i):
            def started():
                deadline = time.monotonic() + OUTCOME_DEADLINE
                while time.monotonic() < deadline:
                    s = call(lambda stub: status(i, stub), "status of fm-%d" % i).status
                    if s == S.STARTED:
                        return
                    self.assertNotIn(s, TERMINAL, "fm-%d ended before its cancel" % i)
                    time.sleep(0.2)
                raise AssertionError("fm-%d never STARTED" % i)
            started()
            call(lambda stub: stub.Cancel(pb.CancelRequest(execution_id=eids[i]),
                                          timeout=kje.RPC_TIMEOUT), "cancel of fm-%d" % i)

        def final(i):
            deadline = time.monotonic() + OUTCOME_DEADLINE
            while time.monotonic() < deadline:
                try:
                    s = call(lambda stub: status(i, stub), "status of fm-%d" % i).status
                except grpc.RpcError as e:
                    # A cancelled job whose application is gone is CANCELLED to the catalog.
                    if e.code() == grpc.StatusCode.NOT_FOUND and outcome_of(i) == "cancel":
                        return S.CANCELLED
                    raise
                if s in TERMINAL:
                    return s
                time.sleep(0.3)
            raise AssertionError("fm-%d undecided after %ss" % (i, OUTCOME_DEADLINE))

        with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
            list(pool.map(cancel, [i for i in range(JOBS) if outcome_of(i) == "cancel"]))
            outcomes = dict(zip(range(JOBS), pool.map(final, range(JOBS))))
        want = {"succeed": S.SUCCEEDED, "fail": S.FAILED, "cancel": S.CANCELLED}
        wrong = {"fm-%d" % i: (S.Name(outcomes[i]), S.Name(want[outcome_of(i)]))
                 for i in range(JOBS) if outcomes[i] != want[outcome_of(i)]}
        self.assertEqual(wrong, {}, "jobs that did not reach their true outcome (got, want)")

        # Every fault met the replicas (one with a count is gone once used up), or the matrix
        # would prove less than it says.
        left = {f["id"]: f for f in kje._kubesim_request(self.cluster, "GET",
                                                         "/kubesim/faults")["items"]}
        unused = [fault for fid, fault in self.fault_ids.items()
                  if fid in left and left[fid]["applied"] == 0]
        partly = {fid: left[fid]["applied"] for fid in self.fault_ids if fid in left}
        print("faults partly used (id: times applied): %r" % partly, flush=True)
        self.assertEqual(unused, [], "faults no request met")
        # Faults off: the rest is the cluster's and the survivors' settled view.
        kje._kubesim_request(self.cluster, "DELETE", "/kubesim/faults")
        for i in range(JOBS):
            views = []
            for r in survivors:
                try:
                    views.append(S.Name(status(i, self.stubs[r]).status))
                except grpc.RpcError as e:
                    # As in final(): a cancelled job whose application one replica has seen go is
                    # CANCELLED to the catalog (without a finalizer, as on kubeflow/spark-operator,
                    # the deletion ends between two replicas' informers).
                    cancelled_gone = (e.code() == grpc.StatusCode.NOT_FOUND and
                                      outcome_of(i) == "cancel")
                    views.append("CANCELLED" if cancelled_gone else e.code().name)
            self.assertEqual(len(set(views)), 1, "replicas disagree on fm-%d: %r" % (i, views))
        stats = kje.kubesim_stats(self.cluster)
        creates = sum(r["count"] for r in stats["requests"]
                      if r["verb"] == "create" and r["resource"] == "sparkapplications"
                      and r["code"] == 201)
        self.assertEqual(creates, JOBS, "applications created, for %d jobs" % JOBS)
        self.assertLessEqual(stats["total"], REQUEST_BOUND_PER_JOB * JOBS, stats["byVerb"])
        print("fault matrix: %d jobs, %d requests (%.1f per job; byVerb %s) in %.1fs"
              % (JOBS, stats["total"], stats["total"] / JOBS, stats["byVerb"],
                 time.monotonic() - started), flush=True)


if __name__ == "__main__":
    unittest.main()
