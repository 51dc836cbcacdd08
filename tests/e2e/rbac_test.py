"""The Helm chart's RBAC, proven against kubesim's enforcement of it.

The chart is rendered (helm template), and the service runs with a ServiceAccount token bound to
exactly the Role it renders in each job namespace, as in a cluster: every RPC works and kubesim
denies no request it makes. Then each granted verb is taken away in turn, each variant with a
ServiceAccount, Role and server of its own against one kubesim (in parallel): the test names the
behaviours that break, and checks with kubesim that the service asked for that right and was
denied it. A verb whose removal breaks nothing is a right the chart grants for nothing, and fails
the test.

helm comes from scripts/fetch-tools.sh, as for tests/deploy/helm_test.py.
"""

import os
import re
import subprocess
import tempfile
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
CHART = os.path.join(kje.SOURCE_DIR, "deploy", "helm", "k8s-job-executor")
FETCH_TOOLS = os.path.join(kje.SOURCE_DIR, "scripts", "fetch-tools.sh")
RELEASE, RELEASE_NAMESPACE = "rel", "catalog"
# spark-jobs is reconciled by the operator; unwatched is not (an application there never gets a
# status, which is how the service's no-status deletion is reached).
JOB_NAMESPACES = ["spark-jobs", "unwatched"]
# Every behaviour is decided within this many seconds of its scenario's start (the operator's clock
# runs 20 times faster than ours): a behaviour a missing right breaks fails by this deadline. The
# retain duration (an hour of operator time, 3 minutes of ours) outlasts it, so the operator never
# releases a failed job's driver pod on its own within a scenario: only the service deletes it
# (under a sanitizer's time scale of up to 5 too).
BEHAVIOUR_DEADLINE = 30 * kje.TIME_SCALE
RBAC_GROUP = "rbac.authorization.k8s.io"


def render_chart_rules():
    """The rules of the Role the chart renders in each job namespace (all the same)."""
    out = subprocess.run([FETCH_TOOLS, "--print-path", "helm"], capture_output=True, text=True,
                         timeout=540)
    if out.returncode != 0:
        raise AssertionError("can't get helm: scripts/fetch-tools.sh --print-path helm failed "
                             "(%d):\n%s" % (out.returncode, out.stderr))
    helm = out.stdout.strip()
    home = tempfile.mkdtemp(prefix="kje-rbac-helm-")
    try:
        values = os.path.join(home, "values.yaml")
        with open(values, "w") as f:
            yaml.safe_dump({"jobNamespaces": JOB_NAMESPACES,
                            "config": {"operator": kje.OPERATOR,
                                       "spark": {"image": "apache/spark:4.0.0",
                                                 "sparkVersion": "4.0.0"}}}, f)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "HELM_CACHE_HOME": os.path.join(home, "cache"),
               "HELM_CONFIG_HOME": os.path.join(home, "config"),
               "HELM_DATA_HOME": os.path.join(home, "data")}
        r = subprocess.run([helm, "template", RELEASE, CHART, "--namespace", RELEASE_NAMESPACE,
                            "--values", values], capture_output=True, text=True, timeout=60,
                           env=env)
        if r.returncode != 0:
            raise AssertionError("helm template failed:\n" + r.stderr)
    finally:
        subprocess.run(["rm", "-rf", home])
    docs = [d for d in yaml.safe_load_all(r.stdout) if d]
    roles = [d for d in docs if d["kind"] == "Role"]
    assert sorted(r["metadata"]["namespace"] for r in roles) == sorted(JOB_NAMESPACES), roles
    assert not [d for d in docs if d["kind"] in ("ClusterRole", "ClusterRoleBinding")]
    rules = roles[0]["rules"]
    assert all(r["rules"] == rules for r in roles), roles
    bindings = [d for d in docs if d["kind"] == "RoleBinding"]
    subjects = {(s["kind"], s["name"], s["namespace"]) for b in bindings for s in b["subjects"]}
    assert len(subjects) == 1 and next(iter(subjects))[2] == RELEASE_NAMESPACE, subjects
    return rules


def grants(rules):
    """The rules as (apiGroup, resource, verb), one per right."""
    return [(g, res, v) for r in rules for g in r.get("apiGroups", [""])
            for res in r["resources"] for v in r["verbs"]]


def without(rules, right):
    """The rules less one right."""
    group, resource, verb = right
    out = []
    for r in rules:
        for g in r.get("apiGroups", [""]):
            for res in r["resources"]:
                verbs = [v for v in r["verbs"] if (g, res, v) != (group, resource, verb)]
                if verbs:
                    out.append({"apiGroups": [g], "resources": [res], "verbs": verbs})
    return out


def describe(right):
    group, resource, verb = right
    return "%s %s%s" % (verb, resource, "." + group if group else "")


class Variant:
    """A ServiceAccount of its own, bound in every job namespace to a Role with `rules`, and a
    server that authenticates as it."""

    def __init__(self, cluster, index, rules):
        self.index = index
        self.prefix = "v%d" % index
        self.sa = "executor-%d" % index
        rbac = cluster.rbac
        cluster.core.create_namespaced_service_account(
            RELEASE_NAMESPACE, {"metadata": {"name": self.sa}})
        for ns in JOB_NAMESPACES:
            rbac.create_namespaced_role(ns, {
                "apiVersion": RBAC_GROUP + "/v1", "kind": "Role",
                "metadata": {"name": "kje-%d" % index}, "rules": rules})
            rbac.create_namespaced_role_binding(ns, {
                "apiVersion": RBAC_GROUP + "/v1", "kind": "RoleBinding",
                "metadata": {"name": "kje-%d" % index},
                "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "kje-%d" % index},
                "subjects": [{"kind": "ServiceAccount", "name": self.sa,
                              "namespace": RELEASE_NAMESPACE}]})
        token = kje_token_request(cluster, RELEASE_NAMESPACE, self.sa)
        with open(cluster.kubeconfig) as f:
            kubeconfig = yaml.safe_load(f)
        kubeconfig["users"][0]["user"] = {"token": token}
        self.kubeconfig = kje.write_temp(yaml.safe_dump(kubeconfig))
        self.config = kje.write_temp("""
kubeconfig: %s
namespace: spark-jobs
namePrefix: gravitino-job-%s
noStatusTimeoutMs: 3000
statusCacheTtlMs: 5000
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  driverStartTimeoutMs: 20000
  resourceRetainDurationMs: 3600000
server:
  allowedNamespaces: [%s]
""" % (self.kubeconfig, self.prefix, ", ".join(JOB_NAMESPACES)))
        self.server = kje.Server(["--config", self.config])
        # The scenario starts once each namespace's informer has made its first list (synced, or
        # denied): a list made after the jobs ran would hold their ends, and a Role without
        # `watch` would then look enough. Without `watch`, the snapshot stays as first listed.
        def first_lists_made():
            return all(any(re.search(r'msg="informer (synced|list failed)" namespace=%s( |$)'
                                     % re.escape(ns), line) for line in list(self.server.lines))
                       for ns in JOB_NAMESPACES)
        kje.wait_until(first_lists_made, 60, "the informers' first list")
        self.channel = self.server.channel()
        self.stub = pb_grpc.JobExecutorStub(self.channel)

    def stop(self):
        self.channel.close()
        self.server.kill()
        os.unlink(self.config)
        os.unlink(self.kubeconfig)


def kje_token_request(cluster, ns, name):
    """A token of the ServiceAccount, from the TokenRequest API (as `kubectl create token`)."""
    from kubernetes import client
    issued = cluster.core.create_namespaced_service_account_token(
        name, ns, client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(
            audiences=["https://kubernetes.default.svc.cluster.local"],
            expiration_seconds=3600)))
    return issued.status.token


def run_scenario(cluster, variant):
    """Exercises every RPC and the service's own deletions; returns {behaviour: None when it
    worked, else what went wrong}. Behaviours run concurrently, each bounded by the deadline."""
    stub, p = variant.stub, variant.prefix
    start = time.monotonic()
    deadline = start + BEHAVIOUR_DEADLINE
    results = {}

    def left():
        return max(0.5, deadline - time.monotonic())

    def until(predicate, what):
        last = None
        while time.monotonic() < deadline:
            try:
                last = predicate()
                if last:
                    return last
            except grpc.RpcError as e:
                last = "%s: %s" % (e.code().name, e.details())
            time.sleep(0.1)
        raise AssertionError("no %s in %ss (last: %s)" % (what, BEHAVIOUR_DEADLINE, last))

    def submit(job, template):
        return stub.Submit(pb.SubmitRequest(job_id=job, metalake="lake", template=template),
                           timeout=kje.RPC_TIMEOUT).execution_id

    def status(eid):
        return stub.Status(pb.StatusRequest(execution_id=eid), timeout=kje.RPC_TIMEOUT)

    def reached(eid, wanted):
        def check():
            s = status(eid).status
            if s in TERMINAL and s != wanted:
                raise AssertionError("%s ended %s, not %s" % (eid, S.Name(s), S.Name(wanted)))
            return s == wanted
        return check

    # Jobs, all submitted at once: A succeeds; C hangs (to be cancelled); D lands where no
    # operator runs; E's driver can't be scheduled (the operator times it out and keeps it); F
    # hangs while another client changes its application.
    eids = {}

    def behaviour(name, needs, fn):
        def run():
            try:
                for job in needs:
                    if job not in eids:
                        raise AssertionError("not reached: Submit of job %s failed" % job)
                fn()
                results[name] = None
            except (AssertionError, grpc.RpcError) as e:
                results[name] = (("%s: %s" % (e.code().name, e.details()))
                                 if isinstance(e, grpc.RpcError) else str(e))
        return threading.Thread(target=run, daemon=True)

    jobs = {"A": spark_template(duration_ms=2000),
            "C": spark_template(outcome="hang"),
            "D": spark_template(extra_configs={"spark.kubernetes.namespace": "unwatched"}),
            "F": spark_template(outcome="hang"),
            # ProxyUi's own running driver: F's may be stopped by another client's cancel
            # annotation (outside_change) before a slow run reaches the proxy.
            "U": spark_template(outcome="hang"),
            "K": spark_template(outcome="hang",
                                extra_configs={"spark.executor.instances": "2"}),
            "R": spark_template(duration_ms=1000)}
    if kje.OPERATOR == "apache":
        # kubeflow/spark-operator removes its drivers itself: no orphan to delete, no right needed.
        jobs["E"] = spark_template(outcome="unschedulable")
    else:
        # A driver the operator deletes on suspend shuts its executors down as it ends, and a slow
        # service may look after that: the executors it must delete are those a driver leaves,
        # as one told not to delete them does, every time.
        jobs["K"] = spark_template(outcome="hang", extra_configs={
            "spark.executor.instances": "2",
            "spark.kubernetes.executor.deleteOnTermination": "false"})
    submit_errors = {}
    for job, template in jobs.items():
        try:
            # Each variant names its jobs with its own prefix (gravitino-job-<p>-<job>), so a
            # replica's own-jobs-only duties (the kept record) are its own, not another
            # variant's that happens to hold the right.
            eids[job] = submit(job.lower(), template)
        except grpc.RpcError as e:
            submit_errors[job] = "%s: %s" % (e.code().name, e.details())
    results["Submit creates the application"] = (
        None if not submit_errors else "Submit failed: %r" % submit_errors)

    def adopt():
        again = submit("a", jobs["A"])
        assert again == eids["A"], (again, eids["A"])

    def status_to_end():
        until(reached(eids["A"], S.SUCCEEDED), "SUCCEEDED from Status")

    def output():
        until(reached(eids["A"], S.SUCCEEDED), "SUCCEEDED before Output")
        out = until(lambda: (lambda o: o if any(line.startswith("Pi is roughly")
                                                 for line in o.lines) else None)(
            stub.Output(pb.OutputRequest(execution_id=eids["A"], max_lines=100,
                                         max_bytes=1 << 16), timeout=kje.RPC_TIMEOUT)),
            "driver log from Output")
        assert out.lines

    def follow():
        def once():
            chunks = list(stub.FollowOutput(pb.FollowOutputRequest(
                execution_id=eids["A"], tail_lines=1000), timeout=left()))
            return any(line.startswith("Pi is roughly") for c in chunks for line in c.lines)
        until(once, "driver log from FollowOutput")

    def watch():
        infos = list(stub.WatchStatus(pb.WatchStatusRequest(execution_ids=[eids["A"]]),
                                      timeout=left()))
        assert infos and infos[-1].status == S.SUCCEEDED, [S.Name(i.status) for i in infos]

    def list_jobs():
        def listed():
            resp = stub.ListJobs(pb.ListJobsRequest(
                namespace="spark-jobs",
                label_selector="gravitino.apache.org/job-id=a"), timeout=kje.RPC_TIMEOUT)
            # Every variant has a job "a" (each under its own name prefix).
            return eids["A"] in [j.execution_id for j in resp.jobs]
        until(listed, "job A from ListJobs")

    def events():
        until(reached(eids["A"], S.SUCCEEDED), "SUCCEEDED before Events")
        # An answer at all needs the events LIST: A exists, so even no events is OK.
        stub.Events(pb.EventsRequest(execution_id=eids["A"]), timeout=kje.RPC_TIMEOUT)

    def schedules():
        # Suspended: nothing runs but the run started now.
        sid = "%s-s" % p
        stub.CreateSchedule(pb.CreateScheduleRequest(
            schedule_id=sid, metalake="lake", template=spark_template(duration_ms=500),
            spec=pb.ScheduleSpec(schedule="@hourly", suspend=True)), timeout=kje.RPC_TIMEOUT)
        run = stub.RunScheduleNow(pb.RunScheduleNowRequest(
            namespace="spark-jobs", schedule_id=sid, run_id="r1"), timeout=kje.RPC_TIMEOUT)
        listed = stub.ListSchedules(pb.ListSchedulesRequest(
            namespace="spark-jobs", label_selector="gravitino.apache.org/job-id=%s" % sid),
            timeout=kje.RPC_TIMEOUT)
        assert [s.schedule_id for s in listed.schedules] == [sid], listed
        # A new cron: the spec patched, and status.nextRun cleared.
        stub.UpdateSchedule(pb.UpdateScheduleRequest(
            namespace="spark-jobs", schedule_id=sid,
            spec=pb.ScheduleSpec(schedule="0 0 1 1 *", suspend=False),
            update_mask={"paths": ["schedule", "suspend"]}), timeout=kje.RPC_TIMEOUT)
        stub.UpdateSchedule(pb.UpdateScheduleRequest(
            namespace="spark-jobs", schedule_id=sid, spec=pb.ScheduleSpec(suspend=True),
            update_mask={"paths": ["suspend"]}), timeout=kje.RPC_TIMEOUT)
        got = stub.GetSchedule(pb.GetScheduleRequest(namespace="spark-jobs", schedule_id=sid),
                               timeout=kje.RPC_TIMEOUT)
        assert [r.execution_id for r in got.runs] == [run.execution_id], got
        stub.DeleteSchedule(pb.DeleteScheduleRequest(namespace="spark-jobs", schedule_id=sid),
                            timeout=kje.RPC_TIMEOUT)
        try:
            stub.GetSchedule(pb.GetScheduleRequest(namespace="spark-jobs", schedule_id=sid),
                             timeout=kje.RPC_TIMEOUT)
            raise AssertionError("the schedule is still there after DeleteSchedule")
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise

    def cancel():
        until(reached(eids["C"], S.STARTED), "STARTED before Cancel")
        stub.Cancel(pb.CancelRequest(execution_id=eids["C"]), timeout=kje.RPC_TIMEOUT)

        def cancelled():
            try:
                return status(eids["C"]).status == S.CANCELLED
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.NOT_FOUND:
                    return True  # gone after the cancel: CANCELLED to the catalog
                raise
        until(cancelled, "CANCELLED after Cancel")
        until(lambda: cluster.app("spark-jobs", "gravitino-job-%s-c" % p) is None,
              "the cancelled application to be deleted")

    def keep_cancel():
        # Stopped without deleting the application: the Apache driver, or the executors
        # kubeflow/spark-operator leaves behind on suspend, are the service's to delete.
        name = "gravitino-job-%s-k" % p
        role = "driver" if kje.OPERATOR == "apache" else "executor"
        selector = "%s=%s,spark-role=%s" % (cluster.operator.app_name_label, name, role)

        def live_pods():
            return [x for x in cluster.core.list_namespaced_pod(
                "spark-jobs", label_selector=selector).items
                if x.metadata.deletion_timestamp is None]
        until(reached(eids["K"], S.STARTED), "STARTED before Cancel")
        until(live_pods, "the job's %s pods" % role)
        stub.Cancel(pb.CancelRequest(execution_id=eids["K"], mode=pb.CancelRequest.KEEP,
                                     reason="rbac"), timeout=kje.RPC_TIMEOUT)
        until(reached(eids["K"], S.CANCELLED), "CANCELLED after a Cancel that keeps the record")
        until(lambda: not live_pods(), "the job's %s pods to be deleted" % role)
        if cluster.app("spark-jobs", name) is None:
            raise AssertionError("the application of a kept cancel was deleted")

    def kept_record():
        # The record is written when the job ends (configmaps create) and read once the driver
        # pod is gone (configmaps get).
        until(reached(eids["R"], S.SUCCEEDED), "SUCCEEDED before its record")
        name = "gravitino-job-%s-r" % p
        until(lambda: (cluster.app("spark-jobs", name) or {}).get("metadata", {}).get(
            "labels", {}).get("gravitino.apache.org/output") == "kept",
            "the record of the ended job to be kept")
        for pod in cluster.driver_pods("spark-jobs", name):
            cluster.core.delete_namespaced_pod(pod.metadata.name, "spark-jobs")
        until(lambda: not cluster.driver_pods("spark-jobs", name), "the driver pod to be gone")
        out = stub.Output(pb.OutputRequest(execution_id=eids["R"], max_lines=100,
                                           max_bytes=1 << 16), timeout=kje.RPC_TIMEOUT)
        if out.source != pb.JobInfo.KEPT or not any(
                line.startswith("Pi is roughly") for line in out.lines):
            raise AssertionError("Output after the driver pod: %s, %d lines"
                                 % (pb.JobInfo.OutputSource.Name(out.source), len(out.lines)))

    def no_status():
        until(reached(eids["D"], S.FAILED), "FAILED for an application without status")
        until(lambda: cluster.app("unwatched", "gravitino-job-%s-d" % p) is None,
              "the application without status to be deleted")

    def orphan_driver():
        until(reached(eids["E"], S.FAILED), "FAILED for an unschedulable driver")

        def no_live_driver():
            status(eids["E"])
            pods = cluster.driver_pods("spark-jobs", "gravitino-job-%s-e" % p)
            return all(pod.status.phase in ("Succeeded", "Failed") or
                       pod.metadata.deletion_timestamp for pod in pods)
        until(no_live_driver, "the failed job's live driver to be deleted")

    def outside_change():
        # A change the service didn't make reaches Status: the cache follows the cluster, not
        # only the service's own writes and reads. Another client asks for F's cancellation the
        # way the Java executor does (the annotation); F runs on, so only that change can show.
        until(reached(eids["F"], S.STARTED), "STARTED before another client's change")
        cluster.custom.patch_namespaced_custom_object(
            cluster.operator.group, cluster.operator.version, "spark-jobs", "sparkapplications",
            "gravitino-job-%s-f" % p,
            {"metadata": {"annotations": {"gravitino.apache.org/cancel-requested": "true"}}})
        until(reached(eids["F"], S.CANCELLING), "CANCELLING after another client's change")

    def spark_ui():
        # U's driver runs for the whole scenario: nothing else touches U.
        until(reached(eids["U"], S.STARTED), "STARTED before ProxyUi")

        def served():
            page = stub.ProxyUi(pb.ProxyUiRequest(execution_id=eids["U"],
                                                  path="/api/v1/applications"),
                                timeout=kje.RPC_TIMEOUT)
            return page.status_code == 200 and b'"gravitino-job-%s-u"' % p.encode() in page.body
        until(served, "the driver's Spark UI from ProxyUi")

    threads = [
        behaviour("ProxyUi serves the running driver's Spark UI", ["U"], spark_ui),
        behaviour("Submit of the same job again adopts the application", ["A"], adopt),
        behaviour("Status shows a change another client made", ["F"], outside_change),
        behaviour("Status follows the job to SUCCEEDED", ["A"], status_to_end),
        behaviour("Output returns the driver log", ["A"], output),
        behaviour("FollowOutput streams the driver log", ["A"], follow),
        behaviour("WatchStatus streams the job to its end", ["A"], watch),
        behaviour("ListJobs lists the job", ["A"], list_jobs),
        behaviour("Events answers for the job", ["A"], events),
        behaviour("Cancel stops a running job and deletes its application", ["C"], cancel),
        behaviour("Cancel that keeps the record stops the job's pods", ["K"], keep_cancel),
        behaviour("an ended job's output is kept and served once its driver is gone", ["R"],
                  kept_record),
        behaviour("an application without status fails and is deleted", ["D"], no_status),
    ] + ([
        behaviour("the live driver of a failed job is deleted", ["E"], orphan_driver),
    ] if kje.OPERATOR == "apache" else [
        behaviour("a schedule is created, run now, read and deleted", [], schedules),
    ])
    for t in threads:
        t.start()
    for t in threads:
        t.join(BEHAVIOUR_DEADLINE + 2 * kje.RPC_TIMEOUT)
    for t in threads:
        if t.is_alive():
            results.setdefault("(a check outlived its deadline)", "still running")
    return results


class ChartRbacTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.rules = render_chart_rules()
        cls.cluster = kje.Kubesim(operator_namespaces=("spark-jobs",),
                                  namespaces=tuple(JOB_NAMESPACES) + (RELEASE_NAMESPACE,))
        from kubernetes import client, config
        cls.cluster.rbac = client.RbacAuthorizationV1Api(
            config.new_client_from_config(config_file=cls.cluster.kubeconfig))
        cls.variants = []

    @classmethod
    def tearDownClass(cls):
        for v in cls.variants:
            v.stop()
        cls.cluster.stop()

    def variant(self, rules):
        v = Variant(self.cluster, len(self.variants), rules)
        self.variants.append(v)
        return v

    def denied(self, variant):
        """The rights kubesim denied the variant's ServiceAccount, as (apiGroup, resource, verb)."""
        user = "system:serviceaccount:%s:%s" % (RELEASE_NAMESPACE, variant.sa)
        return {(d["apiGroup"], d["resource"], d["verb"])
                for d in kje.kubesim_stats(self.cluster)["forbidden"] if d["user"] == user}

    def test_the_chart_grants_enough_and_nothing_more(self):
        started = time.monotonic()
        # Enough: with exactly the chart's Role, every behaviour works and nothing is denied.
        full = self.variant(self.rules)
        results = run_scenario(self.cluster, full)
        broken = {k: v for k, v in results.items() if v is not None}
        self.assertEqual(broken, {}, "with the chart's Role:\n" + "\n".join(
            full.server.lines[-20:]))
        self.assertEqual(self.denied(full), set(), "kubesim denied requests of the chart's Role")
        print("with the chart's Role: %d behaviours work, no request denied (%.1fs)"
              % (len(results), time.monotonic() - started), flush=True)

        # Nothing more: each right taken away breaks a named behaviour.
        rights = grants(self.rules)
        variants = [(right, self.variant(without(self.rules, right))) for right in rights]
        outcomes = {}

        def run(right, v):
            outcomes[right] = run_scenario(self.cluster, v)
        threads = [threading.Thread(target=run, args=rv, daemon=True) for rv in variants]
        # All at once normally; a sanitizer build (TIME_SCALE > 1) is too slow to run every
        # variant's server beside the others, and jobs then end before they start.
        batch = len(threads) if kje.TIME_SCALE == 1 else 4
        for at in range(0, len(threads), batch):
            for t in threads[at:at + batch]:
                t.start()
            for t in threads[at:at + batch]:
                t.join(BEHAVIOUR_DEADLINE + 60)
        unneeded = []
        for right, v in variants:
            # What broke broke for want of that right: the service asked for it and was denied
            # (and for nothing else, since the Role grants everything else).
            self.assertEqual(self.denied(v), {right},
                             "without %s, kubesim denied %r; the behaviours: %r" % (
                                 describe(right), self.denied(v), outcomes.get(right)))
        for right in rights:
            broken = sorted(k for k, v in (outcomes.get(right) or {"(no result)": "x"}).items()
                            if v is not None)
            print("without %-32s breaks: %s" % (describe(right), "; ".join(broken) or "NOTHING"),
                  flush=True)
            if not broken:
                unneeded.append(describe(right))
        self.assertEqual(unneeded, [], "the chart grants rights whose removal breaks nothing: "
                         "drop them from k8s-job-executor.policyRules")
        print("chart RBAC proven in %.1fs" % (time.monotonic() - started), flush=True)


if __name__ == "__main__":
    unittest.main()
