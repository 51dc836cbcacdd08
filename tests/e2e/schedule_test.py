"""The schedule RPCs end to end: Python plays the catalog server against the real binary, with
kubesim's kubeflow/spark-operator and its ScheduledSparkApplication controller as the cluster
(its clock 20 times faster, so a once-a-minute schedule runs every 3 s), and python-kubernetes as
an independent view. On the Apache operator every schedule RPC is FAILED_PRECONDITION."""

import os
import subprocess
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
RUN_LABEL = "sparkoperator.k8s.io/scheduled-app-name"
WAIT = 60
FINAL_STATES = ("COMPLETED", "FAILED")


def state(app):
    return ((app.get("status") or {}).get("applicationState") or {}).get("state", "")


def spark_template(duration_ms=500):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": "succeed",
                                   "kubesim.durationMs": str(duration_ms)}))


class ScheduleTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  allowedNamespaces: [default, spark-jobs]
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

    def create(self, schedule_id, spec, stub=None, duration_ms=500):
        return (stub or self.stub).CreateSchedule(
            pb.CreateScheduleRequest(schedule_id=schedule_id, metalake="lake",
                                     template=spark_template(duration_ms), spec=spec),
            timeout=kje.RPC_TIMEOUT)

    def watch_runs(self, name, until, check):
        """Polls the runs of schedule `name` (one LIST: a consistent snapshot) until `until(seen)`
        holds, `seen` being every run name observed so far in order of appearance; `check` is
        asserted on every snapshot."""
        seen = []

        def step():
            runs = self.runs(name)
            check(runs)
            for r in sorted(runs, key=lambda r: r["metadata"]["name"]):
                if r["metadata"]["name"] not in seen:
                    seen.append(r["metadata"]["name"])
            return until(seen)
        kje.wait_until(step, WAIT, "the runs of %s" % name)
        return seen

    def get(self, schedule_id):
        return self.stub.GetSchedule(pb.GetScheduleRequest(schedule_id=schedule_id),
                                     timeout=kje.RPC_TIMEOUT)

    def schedule_object(self, name):
        try:
            return self.cluster.custom.get_namespaced_custom_object(
                "sparkoperator.k8s.io", "v1beta2", "default", "scheduledsparkapplications", name)
        except Exception as e:  # kubernetes.client.exceptions.ApiException
            if getattr(e, "status", None) == 404:
                return None
            raise

    def runs(self, name):
        return [a for a in self.cluster.apps("default")
                if (a["metadata"].get("labels") or {}).get(RUN_LABEL) == name]

    def assert_code(self, code, fn, request):
        with self.assertRaises(grpc.RpcError) as err:
            fn(request, timeout=kje.RPC_TIMEOUT)
        self.assertEqual(err.exception.code(), code, err.exception.details())
        return err.exception.details()

    @unittest.skipIf(kje.OPERATOR == "kubeflow", "the Apache operator has no schedules")
    def test_the_apache_operator_refuses_schedules_naming_itself(self):
        details = self.assert_code(
            grpc.StatusCode.FAILED_PRECONDITION, self.stub.CreateSchedule,
            pb.CreateScheduleRequest(schedule_id="s0", template=spark_template(),
                                     spec=pb.ScheduleSpec(schedule="@hourly")))
        self.assertIn("spark.apache.org/v1", details)
        for fn, req in ((self.stub.GetSchedule, pb.GetScheduleRequest(schedule_id="s0")),
                        (self.stub.RunScheduleNow,
                         pb.RunScheduleNowRequest(schedule_id="s0", run_id="a")),
                        (self.stub.DeleteSchedule, pb.DeleteScheduleRequest(schedule_id="s0")),
                        (self.stub.ListSchedules, pb.ListSchedulesRequest())):
            self.assert_code(grpc.StatusCode.FAILED_PRECONDITION, fn, req)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_a_schedule_runs_every_simulated_minute_and_each_run_is_a_job(self):
        info = self.create("every", pb.ScheduleSpec(schedule="* * * * *",
                                                    concurrency_policy=pb.ScheduleSpec.ALLOW,
                                                    successful_run_history_limit=5))
        self.assertEqual(info.name, "gravitino-job-every")
        self.assertEqual(info.schedule_id, "every")
        self.assertFalse(info.adopted)
        obj = self.schedule_object("gravitino-job-every")
        self.assertEqual(obj["spec"]["concurrencyPolicy"], "Allow")  # always written
        self.assertEqual(obj["spec"]["schedule"], "* * * * *")
        self.assertEqual(obj["metadata"]["labels"]["gravitino.apache.org/job-id"], "every")
        # A retry (on another replica) adopts it.
        again = self.create("every", pb.ScheduleSpec(schedule="* * * * *",
                                                     concurrency_policy=pb.ScheduleSpec.ALLOW,
                                                     successful_run_history_limit=5),
                            self.stubs[1])
        self.assertTrue(again.adopted)

        # Two of the controller's runs, each served by Status like a submitted job.
        kje.wait_until(lambda: len(self.runs("gravitino-job-every")) >= 2, WAIT,
                       "two runs of the schedule")
        got = self.get("every")
        self.assertEqual(got.schedule_state, "Scheduled")
        self.assertTrue(got.HasField("next_run"))
        self.assertGreaterEqual(len(got.runs), 2)
        created = [r["metadata"]["creationTimestamp"] for r in self.runs("gravitino-job-every")]
        self.assertEqual(len(got.runs), len(created))
        newest = got.runs[0]
        self.assertTrue(newest.name.startswith("gravitino-job-every-"), newest.name)
        self.assertEqual(newest.job_id, "every")  # the schedule's labels, inherited
        oldest = got.runs[-1].execution_id

        def finished():
            s = self.stub.Status(pb.StatusRequest(execution_id=oldest), timeout=kje.RPC_TIMEOUT)
            return s if s.status in TERMINAL else None
        status = kje.wait_until(finished, WAIT, "the oldest run to finish")
        self.assertEqual(S.Name(status.status), "SUCCEEDED")
        out = self.stub.Output(pb.OutputRequest(execution_id=oldest), timeout=kje.RPC_TIMEOUT)
        self.assertTrue(any(l.startswith("Pi is roughly") for l in out.lines), out.lines)
        # Its events, as for a submitted job: the operator's on the run, the kubelet's on its
        # driver.
        events = self.stub.Events(pb.EventsRequest(execution_id=oldest), timeout=kje.RPC_TIMEOUT)
        kinds = {(e.object_kind, e.reason) for e in events.events}
        self.assertIn(("SparkApplication", "SparkApplicationCompleted"), kinds)
        self.assertIn(("Pod", "Started"), kinds)
        listed = self.stub.ListJobs(pb.ListJobsRequest(
            label_selector="%s=gravitino-job-every" % RUN_LABEL), timeout=kje.RPC_TIMEOUT)
        self.assertIn(oldest, [j.execution_id for j in listed.jobs])

        # Deleting it deletes its runs with it (their owner reference).
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="every"),
                                 timeout=kje.RPC_TIMEOUT)
        self.assertIsNone(self.schedule_object("gravitino-job-every"))
        kje.wait_until(lambda: not self.runs("gravitino-job-every"), WAIT,
                       "the runs to go with their schedule")
        # Again: gone is success.
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="every"),
                                 timeout=kje.RPC_TIMEOUT)
        self.assert_code(grpc.StatusCode.NOT_FOUND, self.stub.GetSchedule,
                         pb.GetScheduleRequest(schedule_id="every"))

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_run_now_runs_exactly_once_per_run_id_on_any_replica(self):
        # Suspended: the controller starts nothing, so every run is ours.
        # Its runs would last 10 simulated minutes: one is cancelled while it runs.
        self.create("manual2", pb.ScheduleSpec(schedule="@daily", suspend=True),
                    duration_ms=600000)
        self.create("manual", pb.ScheduleSpec(schedule="@hourly", suspend=True,
                                              concurrency_policy=pb.ScheduleSpec.FORBID))
        first = self.stub.RunScheduleNow(
            pb.RunScheduleNowRequest(schedule_id="manual", run_id="a1"), timeout=kje.RPC_TIMEOUT)
        self.assertFalse(first.adopted)
        self.assertEqual(first.execution_id, "default/sparkapp/default/gravitino-job-manual-ra1")
        for stub in self.stubs:  # retried, and on the other replica
            again = stub.RunScheduleNow(
                pb.RunScheduleNowRequest(schedule_id="manual", run_id="a1"),
                timeout=kje.RPC_TIMEOUT)
            self.assertEqual((again.execution_id, again.adopted), (first.execution_id, True))
        second = self.stub.RunScheduleNow(
            pb.RunScheduleNowRequest(schedule_id="manual", run_id="b2"), timeout=kje.RPC_TIMEOUT)
        self.assertNotEqual(second.execution_id, first.execution_id)
        runs = self.runs("gravitino-job-manual")
        self.assertEqual(sorted(r["metadata"]["name"] for r in runs),
                         ["gravitino-job-manual-ra1", "gravitino-job-manual-rb2"])
        owner = self.schedule_object("gravitino-job-manual")["metadata"]["uid"]
        for r in runs:
            refs = r["metadata"]["ownerReferences"]
            self.assertEqual([(o["kind"], o["uid"]) for o in refs],
                             [("ScheduledSparkApplication", owner)])
        info = self.stub.Status(pb.StatusRequest(execution_id=first.execution_id),
                                timeout=kje.RPC_TIMEOUT)
        self.assertEqual(info.job_id, "manual")
        # A run is a job to every RPC: its driver's output followed to the end, a cancel.
        lines = [l for chunk in self.stub.FollowOutput(
            pb.FollowOutputRequest(execution_id=first.execution_id), timeout=WAIT)
            for l in chunk.lines]
        self.assertTrue(any(l.startswith("Pi is roughly") for l in lines), lines)
        long_run = self.stub.RunScheduleNow(
            pb.RunScheduleNowRequest(schedule_id="manual2", run_id="long"),
            timeout=kje.RPC_TIMEOUT)
        self.stub.Cancel(pb.CancelRequest(execution_id=long_run.execution_id),
                         timeout=kje.RPC_TIMEOUT)

        def cancelled():
            try:
                s = self.stub.Status(pb.StatusRequest(execution_id=long_run.execution_id),
                                     timeout=kje.RPC_TIMEOUT)
            except grpc.RpcError as e:
                return e.code() == grpc.StatusCode.NOT_FOUND
            return s.status == S.CANCELLED
        kje.wait_until(cancelled, WAIT, "the cancelled run to be over")
        # A name held by something else is never adopted as the run: a job submitted with the
        # id "manual-rc3" spells the run c3's name.
        self.stub.Submit(pb.SubmitRequest(job_id="manual-rc3", metalake="lake",
                                          template=spark_template()), timeout=kje.RPC_TIMEOUT)
        details = self.assert_code(grpc.StatusCode.ALREADY_EXISTS, self.stub.RunScheduleNow,
                                   pb.RunScheduleNowRequest(schedule_id="manual", run_id="c3"))
        self.assertIn("isn't a run of schedule", details)

        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.stub.RunScheduleNow,
                         pb.RunScheduleNowRequest(schedule_id="manual", run_id="Not_OK"))
        self.assert_code(grpc.StatusCode.NOT_FOUND, self.stub.RunScheduleNow,
                         pb.RunScheduleNowRequest(schedule_id="nosuch", run_id="a"))
        # Both schedules listed, one a page, by name; the selector narrows.
        pages, token, listed = [], "", []
        while True:
            page = self.stub.ListSchedules(pb.ListSchedulesRequest(
                page_size=1, page_token=token,
                label_selector="gravitino.apache.org/job-id in (manual,manual2)"),
                timeout=kje.RPC_TIMEOUT)
            pages.append([s.schedule_id for s in page.schedules])
            listed.extend(page.schedules)
            token = page.next_page_token
            if not token:
                break
        self.assertEqual([i for p in pages for i in p], ["manual", "manual2"])
        self.assertTrue(all(len(p) <= 1 for p in pages), pages)
        self.assertEqual(listed[-1].spec.schedule, "@daily")
        self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, self.stub.ListSchedules,
                         pb.ListSchedulesRequest(page_token="not a token"))
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="manual2"),
                                 timeout=kje.RPC_TIMEOUT)
        # Keeping the runs leaves them, ownerless.
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="manual", keep_runs=True),
                                 timeout=kje.RPC_TIMEOUT)
        kje.wait_until(lambda: all(not r["metadata"].get("ownerReferences")
                                   for r in self.runs("gravitino-job-manual")), WAIT,
                       "the kept runs to lose their owner")
        self.assertEqual(len(self.runs("gravitino-job-manual")), 2)

    def next_run(self, name):
        return (self.schedule_object(name).get("status") or {}).get("nextRun")

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_an_updated_cron_takes_effect_at_once(self):
        # Once a year, on 1 January: weeks away on kubesim's clock, even 20 times faster.
        self.create("moved", pb.ScheduleSpec(schedule="0 0 1 1 *",
                                             concurrency_policy=pb.ScheduleSpec.ALLOW))
        first = kje.wait_until(lambda: self.next_run("gravitino-job-moved"), WAIT,
                               "a first nextRun")
        self.assertRegex(first, r"^20[0-9][0-9]-01-01T00:00:00Z$")
        info = self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
            schedule_id="moved", spec=pb.ScheduleSpec(schedule="* * * * *", time_zone="x"),
            update_mask={"paths": ["schedule"]}), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(info.spec.schedule, "* * * * *")
        self.assertEqual(info.spec.time_zone, "")  # not in the mask
        self.assertEqual(self.runs("gravitino-job-moved"), [])
        # The controller alone would keep January's nextRun until it fires; cleared, it is
        # computed again from the new cron, and the runs start within a simulated minute.
        kje.wait_until(lambda: self.runs("gravitino-job-moved"), WAIT, "a run of the new cron")
        moved = self.next_run("gravitino-job-moved")
        self.assertIsNotNone(moved)
        self.assertNotEqual(moved, first)
        self.assertRegex(moved, r"T[0-9][0-9]:[0-9][0-9]:00Z$")
        for mask, field in ((["nope"], "update_mask"), ([], "update_mask")):
            details = self.assert_code(
                grpc.StatusCode.INVALID_ARGUMENT, self.stub.UpdateSchedule,
                pb.UpdateScheduleRequest(schedule_id="moved", update_mask={"paths": mask}))
            self.assertIn(field, details)
        details = self.assert_code(
            grpc.StatusCode.INVALID_ARGUMENT, self.stub.UpdateSchedule,
            pb.UpdateScheduleRequest(schedule_id="moved", spec=pb.ScheduleSpec(schedule="* *"),
                                     update_mask={"paths": ["schedule"]}))
        self.assertIn("schedule", details)
        self.assertEqual(self.schedule_object("gravitino-job-moved")["spec"]["schedule"],
                         "* * * * *")  # nothing changed
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="moved"),
                                 timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_suspend_stops_the_runs_and_resume_runs_one_overdue_run(self):
        every_minute = pb.ScheduleSpec(schedule="* * * * *",
                                       concurrency_policy=pb.ScheduleSpec.ALLOW,
                                       successful_run_history_limit=10)
        self.create("paused", every_minute)
        # A second schedule on the same cron is the witness of the minutes going by.
        self.create("witness", every_minute)
        kje.wait_until(lambda: self.runs("gravitino-job-paused"), WAIT, "a first run")
        self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
            schedule_id="paused", spec=pb.ScheduleSpec(suspend=True),
            update_mask={"paths": ["suspend"]}), timeout=kje.RPC_TIMEOUT)
        names = lambda n: {r["metadata"]["name"] for r in self.runs(n)}  # noqa: E731
        paused = names("gravitino-job-paused")
        witnessed = names("gravitino-job-witness")
        # Three more minutes on the witness: the suspended schedule missed at least two.
        kje.wait_until(lambda: len(names("gravitino-job-witness") - witnessed) >= 3, WAIT,
                       "three more runs of the witness")
        # One pass of the controller may have been under way when the suspension landed.
        late = names("gravitino-job-paused") - paused
        self.assertLessEqual(len(late), 1, late)
        paused |= late
        self.assertEqual(self.get("paused").spec.suspend, True)

        self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
            schedule_id="paused", spec=pb.ScheduleSpec(suspend=False),
            update_mask={"paths": ["suspend"]}), timeout=kje.RPC_TIMEOUT)
        # The missed minutes are not made up for: one run at once, then one a minute. The run
        # names end in the controller's clock (nanoseconds), so the minute each started in
        # shows.
        resumed = kje.wait_until(
            lambda: (lambda new: new if len(new) >= 2 else None)(
                sorted(names("gravitino-job-paused") - paused)), WAIT, "two runs after resume")
        minutes = [int(n.rsplit("-", 1)[1]) // (60 * 10**9) for n in resumed[:2]]
        self.assertEqual(minutes[1], minutes[0] + 1, resumed)
        for schedule_id in ("paused", "witness"):
            self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id=schedule_id),
                                     timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_a_resume_that_moves_the_cron_never_runs_at_the_old_time(self):
        every_minute = pb.ScheduleSpec(schedule="* * * * *",
                                       concurrency_policy=pb.ScheduleSpec.ALLOW,
                                       successful_run_history_limit=10)
        self.create("moving", every_minute)
        self.create("clock", every_minute)  # the witness of the minutes going by
        names = lambda n: {r["metadata"]["name"] for r in self.runs(n)}  # noqa: E731

        def minutes_pass(count):
            seen = names("gravitino-job-clock")
            kje.wait_until(lambda: len(names("gravitino-job-clock") - seen) >= count, WAIT,
                           "%d more runs of the witness" % count)

        for _ in range(2):
            before = names("gravitino-job-moving")
            kje.wait_until(lambda: names("gravitino-job-moving") - before, WAIT, "a run")
            self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
                schedule_id="moving", spec=pb.ScheduleSpec(suspend=True),
                update_mask={"paths": ["suspend"]}), timeout=kje.RPC_TIMEOUT)
            # The next run the every-minute cron computed is now in the past.
            minutes_pass(2)
            paused = names("gravitino-job-moving")
            # Resumed and moved to 1 January in one call: the old next run must not fire.
            info = self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
                schedule_id="moving", spec=pb.ScheduleSpec(suspend=False, schedule="0 0 1 1 *"),
                update_mask={"paths": ["suspend", "schedule"]}), timeout=kje.RPC_TIMEOUT)
            self.assertFalse(info.spec.suspend)
            minutes_pass(2)
            self.assertEqual(names("gravitino-job-moving"), paused)
            self.assertRegex(kje.wait_until(lambda: self.next_run("gravitino-job-moving"), WAIT,
                                            "the new nextRun"), r"-01-01T00:00:00Z$")
            self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
                schedule_id="moving", spec=every_minute,
                update_mask={"paths": ["schedule"]}), timeout=kje.RPC_TIMEOUT)
        for schedule_id in ("moving", "clock"):
            self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id=schedule_id),
                                     timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_a_failed_validation_schedule_is_validated_again_when_updated(self):
        # Made by hand with a cron the controller refuses: FailedValidation, for good.
        self.create("fixme", pb.ScheduleSpec(schedule="@hourly", suspend=True,
                                             successful_run_history_limit=5))
        run = self.stub.RunScheduleNow(pb.RunScheduleNowRequest(schedule_id="fixme", run_id="k1"),
                                       timeout=kje.RPC_TIMEOUT)
        self.cluster.custom.patch_namespaced_custom_object(
            "sparkoperator.k8s.io", "v1beta2", "default", "scheduledsparkapplications",
            "gravitino-job-fixme", {"spec": {"schedule": "not a cron", "suspend": False}})
        kje.wait_until(lambda: (self.schedule_object("gravitino-job-fixme").get("status") or {})
                       .get("scheduleState") == "FailedValidation", WAIT, "FailedValidation")
        uid = self.schedule_object("gravitino-job-fixme")["metadata"]["uid"]
        info = self.stub.UpdateSchedule(pb.UpdateScheduleRequest(
            schedule_id="fixme", spec=pb.ScheduleSpec(schedule="* * * * *"),
            update_mask={"paths": ["schedule"]}), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(info.spec.schedule, "* * * * *")
        self.assertNotEqual(info.schedule_state, "FailedValidation")
        obj = self.schedule_object("gravitino-job-fixme")
        self.assertEqual(obj["metadata"]["uid"], uid)  # the same schedule, not a new one
        kje.wait_until(lambda: (self.schedule_object("gravitino-job-fixme").get("status") or {})
                       .get("scheduleState") == "Scheduled", WAIT, "Scheduled again")
        self.assertNotIn("reason", self.schedule_object("gravitino-job-fixme")["status"])
        runs = kje.wait_until(lambda: (lambda r: r if len(r) >= 2 else None)(
            self.runs("gravitino-job-fixme")), WAIT, "a run of the fixed cron")
        # The earlier run still belongs to it.
        kept = [r for r in runs if r["metadata"]["name"] == "gravitino-job-fixme-rk1"]
        self.assertEqual([o["uid"] for o in kept[0]["metadata"]["ownerReferences"]], [uid])
        self.assertEqual(run.execution_id.rsplit("/", 1)[1], "gravitino-job-fixme-rk1")
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="fixme"),
                                 timeout=kje.RPC_TIMEOUT)

    def cli_create(self, schedule_id, *flags):
        """`schedule create` of the CLI, as a person runs it: (exit code, stdout, stderr)."""
        args = [kje.BINARY, "schedule", "create", schedule_id, "--metalake", "lake",
                "--name", "spark-pi",
                "--executable", "local:///opt/spark/examples/jars/spark-examples.jar",
                "--conf", "kubesim.outcome=succeed", "--suspended", *flags,
                "--server", self.servers[0].address]
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_the_cli_refuses_another_spec_for_an_existing_schedule_unless_adopt(self):
        pi = ("--class", "org.apache.spark.examples.SparkPi")
        code, _, err = self.cli_create("adopt", *pi, "--cron", "0 3 * * *")
        self.assertEqual(0, code, err)
        code, _, err = self.cli_create("adopt", *pi, "--cron", "0 3 * * *")
        self.assertEqual((0, "schedule adopt already existed; adopted it\n"), (code, err))
        # Another spec: exit 1 (ALREADY_EXISTS), saying what to do; nothing changes.
        code, out, err = self.cli_create("adopt", *pi, "--cron", "0 4 * * *",
                                         "--concurrency-policy", "Forbid")
        self.assertEqual(1, code, err)
        self.assertEqual("", out)
        self.assertIn("ALREADY_EXISTS", err)
        self.assertIn("--adopt", err)
        self.assertIn("schedule update adopt", err)
        self.assertEqual("0 3 * * *", self.get("adopt").spec.schedule)
        # --adopt: the schedule takes the spec, and the CLI says what changed.
        code, out, err = self.cli_create("adopt", *pi, "--cron", "0 4 * * *",
                                         "--concurrency-policy", "Forbid", "--adopt")
        self.assertEqual(0, code, err)
        self.assertIn('changing schedule "0 3 * * *" -> "0 4 * * *", '
                      "concurrency_policy Allow -> Forbid", err)
        got = self.get("adopt").spec
        self.assertEqual(("0 4 * * *", pb.ScheduleSpec.FORBID, True),
                         (got.schedule, got.concurrency_policy, got.suspend))
        self.assertEqual("0 4 * * *",
                         self.schedule_object("gravitino-job-adopt")["spec"]["schedule"])
        # Another template can't be adopted: refused, nothing changed.
        code, _, err = self.cli_create("adopt", "--class", "org.example.Other",
                                       "--cron", "0 5 * * *", "--adopt")
        self.assertEqual(1, code, err)
        self.assertIn("differs in", err)
        self.assertEqual("0 4 * * *", self.get("adopt").spec.schedule)
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="adopt"),
                                 timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_a_bad_schedule_is_refused_naming_the_field_and_creates_nothing(self):
        cases = [
            (pb.ScheduleSpec(schedule="* * * *"), "schedule"),
            (pb.ScheduleSpec(schedule="61 * * * *"), "schedule"),
            (pb.ScheduleSpec(schedule="@every 3x"), "schedule"),
            (pb.ScheduleSpec(schedule="@hourly", time_zone="Mars/Olympus"), "time_zone"),
            (pb.ScheduleSpec(schedule="CRON_TZ=Nowhere/City 0 3 * * *"), "schedule"),
            (pb.ScheduleSpec(schedule="@hourly", concurrency_policy=7), "concurrency_policy"),
            (pb.ScheduleSpec(schedule="@hourly", failed_run_history_limit=-1),
             "failed_run_history_limit"),
        ]
        for spec, field in cases:
            with self.subTest(spec=str(spec), field=field):
                details = self.assert_code(
                    grpc.StatusCode.INVALID_ARGUMENT, self.stub.CreateSchedule,
                    pb.CreateScheduleRequest(schedule_id="bad", metalake="lake",
                                             template=spark_template(), spec=spec))
                self.assertIn(field, details)
        details = self.assert_code(
            grpc.StatusCode.INVALID_ARGUMENT, self.stub.CreateSchedule,
            pb.CreateScheduleRequest(schedule_id="a-very-long-schedule-id-beyond-room",
                                     metalake="lake", template=spark_template(),
                                     spec=pb.ScheduleSpec(schedule="@hourly")))
        self.assertIn("schedule_id", details)
        self.assertIsNone(self.schedule_object("gravitino-job-bad"))
        items = self.cluster.custom.list_namespaced_custom_object(
            "sparkoperator.k8s.io", "v1beta2", "default", "scheduledsparkapplications")["items"]
        self.assertEqual([i["metadata"]["name"] for i in items if "bad" in i["metadata"]["name"]
                          or "long" in i["metadata"]["name"]], [])

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_forbid_starts_no_run_while_the_newest_is_unfinished(self):
        # Each run lasts 2.5 simulated minutes: an Allow schedule would start the next one
        # while it runs.
        self.create("forbid", pb.ScheduleSpec(schedule="* * * * *",
                                              concurrency_policy=pb.ScheduleSpec.FORBID),
                    duration_ms=150000)

        def at_most_one_unfinished(runs):
            unfinished = [r["metadata"]["name"] for r in runs if state(r) not in FINAL_STATES]
            self.assertLessEqual(len(unfinished), 1, unfinished)
        seen = self.watch_runs("gravitino-job-forbid", lambda seen: len(seen) >= 2,
                               at_most_one_unfinished)
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="forbid"),
                                 timeout=kje.RPC_TIMEOUT)
        self.assertEqual(len(seen), 2, seen)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_replace_deletes_the_unfinished_run_for_the_next(self):
        # Each run would last 10 simulated minutes: every tick replaces it.
        self.create("replace", pb.ScheduleSpec(schedule="* * * * *",
                                               concurrency_policy=pb.ScheduleSpec.REPLACE),
                    duration_ms=600000)

        def one_live_run(runs):
            live = [r["metadata"]["name"] for r in runs
                    if "deletionTimestamp" not in r["metadata"]]
            self.assertLessEqual(len(live), 1, live)
        seen = self.watch_runs("gravitino-job-replace", lambda seen: len(seen) >= 2,
                               one_live_run)
        first = "default/sparkapp/default/" + seen[0]

        def replaced():
            try:
                info = self.stub.Status(pb.StatusRequest(execution_id=first),
                                        timeout=kje.RPC_TIMEOUT)
            except grpc.RpcError as e:
                return e.code() == grpc.StatusCode.NOT_FOUND
            # Deleted by the controller, not cancelled by a caller: over, without a success.
            return info.status == S.FAILED
        kje.wait_until(replaced, WAIT, "the replaced run to be over")
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="replace"),
                                 timeout=kje.RPC_TIMEOUT)

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_history_limits_prune_finished_runs(self):
        self.create("pruned", pb.ScheduleSpec(schedule="* * * * *",
                                              concurrency_policy=pb.ScheduleSpec.ALLOW,
                                              successful_run_history_limit=2))

        def within_limit(runs):
            # Pruned when a run starts: the limit, plus one that finished since.
            done = [r["metadata"]["name"] for r in runs if state(r) == "COMPLETED"]
            self.assertLessEqual(len(done), 3, done)
        seen = self.watch_runs("gravitino-job-pruned", lambda seen: len(seen) >= 5, within_limit)
        kje.wait_until(lambda: seen[0] not in [r["metadata"]["name"]
                                               for r in self.runs("gravitino-job-pruned")],
                       WAIT, "the oldest run to be pruned")
        got = self.get("pruned")
        self.assertLessEqual(len([r for r in got.runs if r.status == S.SUCCEEDED]), 3)
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="pruned"),
                                 timeout=kje.RPC_TIMEOUT)


if __name__ == "__main__":
    unittest.main(verbosity=2)
