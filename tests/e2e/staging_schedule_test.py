"""Schedules of staged files end to end on either backend, with the shared-volume store: on
kubeflow/spark-operator CreateSchedule takes references to uploaded files and writes the URIs the
cluster reaches into the ScheduledSparkApplication's template, a run of it reads them and
succeeds, and the sweep keeps the files while the schedule alone names them (suspended, no run
left) and removes them once the schedule and its runs are gone; on the Apache operator, which has
no schedules, CreateSchedule with references answers FAILED_PRECONDITION and creates nothing."""

import hashlib
import os
import shutil
import tempfile
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc
from staging_test import upload_requests

S = pb.JobInfo.Status
WAIT = 60
GRACE_MS = 3000
RUN_LABEL = "sparkoperator.k8s.io/scheduled-app-name"


class StagingScheduleTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.volume = tempfile.mkdtemp(prefix="kje-staging-volume-")
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
staging:
  store: volume
  volume:
    path: %s
    claimName: kje-staging
    mountPath: %s
  sweepIntervalMs: 300
  sweepGraceMs: %d
""" % (cls.cluster.kubeconfig, cls.volume, cls.volume, GRACE_MS))
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        os.unlink(cls.config)
        shutil.rmtree(cls.volume, ignore_errors=True)
        assert code == 0, code

    def upload(self, files):
        return self.stub.UploadArtifacts(upload_requests(files),
                                         timeout=kje.RPC_TIMEOUT).artifacts

    def stored(self, name, data):
        return os.path.isfile(os.path.join(self.volume, "sha256",
                                           hashlib.sha256(data).hexdigest(), name))

    def staged_template(self):
        """A template naming two freshly uploaded files (bytes of this test alone)."""
        self.jar = os.urandom(20000)
        self.py = b"print('scheduled %s')\n" % os.urandom(8).hex().encode()
        refs = self.upload([("sched.jar", self.jar), ("sched.py", self.py)])
        self.refs = [a.reference for a in refs]
        return pb.JobTemplate(
            name="staged-schedule", executable=self.refs[1],
            spark=pb.SparkJob(jars=[self.refs[0]],
                              configs={"kubesim.outcome": "succeed", "kubesim.durationMs": "300"}))

    @unittest.skipIf(kje.OPERATOR == "kubeflow", "the Apache operator has no schedules")
    def test_the_apache_operator_refuses_a_staged_schedule(self):
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.CreateSchedule(pb.CreateScheduleRequest(
                schedule_id="staged", metalake="lake", template=self.staged_template(),
                spec=pb.ScheduleSpec(schedule="@hourly")), timeout=kje.RPC_TIMEOUT)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.FAILED_PRECONDITION,
                         caught.exception.details())
        self.assertEqual(self.cluster.apps("default"), [])

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_a_schedule_keeps_its_staged_files_until_it_is_gone(self):
        # Suspended: the controller starts nothing, so only the schedule names the files.
        info = self.stub.CreateSchedule(pb.CreateScheduleRequest(
            schedule_id="staged", metalake="lake", template=self.staged_template(),
            spec=pb.ScheduleSpec(schedule="@hourly", suspend=True)), timeout=kje.RPC_TIMEOUT)
        name = info.name
        obj = self.cluster.custom.get_namespaced_custom_object(
            "sparkoperator.k8s.io", "v1beta2", "default", "scheduledsparkapplications", name)
        text = repr(obj["spec"]["template"])
        for data, file in ((self.jar, "sched.jar"), (self.py, "sched.py")):
            self.assertIn("local://%s/sha256/%s/%s" % (
                self.volume, hashlib.sha256(data).hexdigest(), file), text)
        self.assertNotIn("staged:", text)

        # A file no one names, uploaded after the schedule's, goes once past the grace period;
        # when it has gone, the sweeps have judged the schedule's files too, and kept them.
        probe = os.urandom(64)
        self.upload([("probe.txt", probe)])
        kje.wait_until(lambda: not self.stored("probe.txt", probe), WAIT,
                       "an unnamed upload to be swept")
        self.assertTrue(self.stored("sched.jar", self.jar))
        self.assertTrue(self.stored("sched.py", self.py))
        self.assertEqual([a for a in self.cluster.apps("default")
                          if (a["metadata"].get("labels") or {}).get(RUN_LABEL) == name], [])

        # A run of the schedule reads them and succeeds.
        run = self.stub.RunScheduleNow(pb.RunScheduleNowRequest(schedule_id="staged", run_id="a"),
                                       timeout=kje.RPC_TIMEOUT)

        def finished():
            i = self.stub.Status(pb.StatusRequest(execution_id=run.execution_id),
                                 timeout=kje.RPC_TIMEOUT)
            return i if i.status in (S.SUCCEEDED, S.FAILED) else None
        done = kje.wait_until(finished, WAIT, "the scheduled run to finish")
        self.assertEqual(S.Name(done.status), "SUCCEEDED", done)

        # The schedule and its runs gone: nothing of them is left in the store.
        self.stub.DeleteSchedule(pb.DeleteScheduleRequest(schedule_id="staged"),
                                 timeout=kje.RPC_TIMEOUT)
        kje.wait_until(lambda: not self.stored("sched.jar", self.jar)
                       and not self.stored("sched.py", self.py), WAIT,
                       "the schedule's staged files to be removed")


if __name__ == "__main__":
    unittest.main()
