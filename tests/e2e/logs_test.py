"""kubectl logs' flags end to end on either backend: Output and FollowOutput read a Spark
executor's live pod (found by the operator's labels) with --executor, keep the kubelet's stamps
with --timestamps, drop older lines with --since, and say why for what can't be read (no such
executor, no previous run, bad values); the CLI passes its flags through."""

import os
import re
import subprocess
import unittest

import grpc
import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
# Generous: the suites run two at a time on a 2-core machine beside other tests.
WAIT = 90
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ")
CLI_TIMEOUT = 60


def running_template():
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": "hang", "spark.executor.instances": "2"}))


class LogsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
""" % cls.cluster.kubeconfig)
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)
        cls.id = cls.stub.Submit(pb.SubmitRequest(job_id="4601", metalake="lake",
                                                  template=running_template()),
                                 timeout=kje.RPC_TIMEOUT).execution_id

    @classmethod
    def tearDownClass(cls):
        try:
            cls.stub.Cancel(pb.CancelRequest(execution_id=cls.id), timeout=kje.RPC_TIMEOUT)
        finally:
            cls.channel.close()
            code = cls.server.terminate()
            cls.cluster.stop()
            os.unlink(cls.config)
        assert code == 0, code

    def output(self, **fields):
        return self.stub.Output(pb.OutputRequest(execution_id=self.id, **fields),
                                timeout=kje.RPC_TIMEOUT)

    def executor_lines(self, n, **fields):
        """Executor n's log once its container has written its start (its pod comes up after
        the driver's)."""
        def started():
            try:
                lines = list(self.output(executor=n, **fields).lines)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.NOT_FOUND:
                    return None  # no pod of it yet
                if (e.code() == grpc.StatusCode.INVALID_ARGUMENT and
                        "is waiting to start" in e.details()):
                    return None  # its container not started yet: the kubelet's 400, passed on
                raise
            return lines if any("Starting executor ID %d " % n in l for l in lines) else None
        return kje.wait_until(started, WAIT, "executor %d's log" % n)

    def test_executor_logs_come_from_its_own_pod(self):
        first = self.executor_lines(1)
        second = self.executor_lines(2)
        self.assertFalse(any("Starting executor ID 2 " in l for l in first), first)
        self.assertFalse(any("Starting executor ID 1 " in l for l in second), second)
        self.assertTrue(any("Successfully registered with driver" in l for l in first), first)
        # The driver's log is another one.
        driver = list(self.output().lines)
        self.assertFalse(any("Starting executor ID" in l for l in driver), driver)

    def test_timestamps_keep_the_kubelets_stamps(self):
        stamped = self.executor_lines(1, timestamps=True)
        for line in stamped:
            self.assertRegex(line, STAMP)
        plain = self.executor_lines(1)
        self.assertEqual([STAMP.sub("", l, count=1) for l in stamped], plain)

    def test_since_leaves_out_older_lines(self):
        lines = self.executor_lines(1)
        # An hour back holds everything the executor wrote.
        self.assertEqual(list(self.output(executor=1, since_seconds=3600).lines), lines)
        # It writes only as it starts: a second back soon holds nothing of it, while its log
        # without --since still has it all.
        kje.wait_until(lambda: not self.output(executor=1, since_seconds=1).lines, WAIT,
                       "executor 1's lines to be older than a second")
        self.assertEqual(list(self.output(executor=1).lines), lines)

    def test_what_cant_be_read_says_why(self):
        self.executor_lines(1)
        with self.assertRaises(grpc.RpcError) as missing:
            self.output(executor=9)
        self.assertEqual(missing.exception.code(), grpc.StatusCode.NOT_FOUND)
        self.assertIn("executor 9", missing.exception.details())
        self.assertIn("live pods only", missing.exception.details())
        # The driver never restarted: the API server's own answer.
        kje.wait_until(lambda: self.output().lines, WAIT, "the driver's log")
        with self.assertRaises(grpc.RpcError) as previous:
            self.output(previous=True)
        self.assertEqual(previous.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("previous terminated container", previous.exception.details())
        for bad in ({"executor": -1}, {"since_seconds": -5}):
            with self.assertRaises(grpc.RpcError) as refused:
                self.output(**bad)
            self.assertEqual(refused.exception.code(), grpc.StatusCode.INVALID_ARGUMENT, bad)

    def test_follow_an_executor_with_stamps(self):
        self.executor_lines(2)
        call = self.stub.FollowOutput(
            pb.FollowOutputRequest(execution_id=self.id, executor=2, timestamps=True,
                                   since_seconds=3600),
            timeout=WAIT)
        seen = []
        try:
            for chunk in call:
                seen.extend(chunk.lines)
                if any("Starting executor ID 2 " in l for l in seen):
                    break
        finally:
            call.cancel()
        for line in seen:
            self.assertRegex(line, STAMP)
        self.assertTrue(any("Starting executor ID 2 " in l for l in seen), seen)

    def test_cli_passes_the_flags(self):
        self.executor_lines(1)
        p = subprocess.run([kje.BINARY, "logs", self.id, "--executor", "1", "--timestamps",
                            "--since", "1h", "--server", self.server.address],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(any("Starting executor ID 1 " in l for l in lines), lines)
        for line in lines:
            self.assertRegex(line, STAMP)
        p = subprocess.run([kje.BINARY, "logs", self.id, "--executor", "9", "--server",
                            self.server.address], capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, 6, p.stderr)  # NOT_FOUND
        p = subprocess.run([kje.BINARY, "logs", self.id, "--since", "-1m", "--server",
                            self.server.address], capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, 2, p.stderr)  # a usage error, nothing asked


if __name__ == "__main__":
    unittest.main()
