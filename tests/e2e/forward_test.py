"""`k8s-job-executor forward` end to end on either backend: the running driver's Spark UI served
on a local port through the service's ProxyUi (and kubesim's pod proxy), read with urllib as a
browser would; named by execution id or by job id; ending with the job, with a clear message."""

import json
import os
import re
import subprocess
import threading
import unittest
import urllib.error
import urllib.request

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

import grpc

EXIT_OK, EXIT_ERROR, EXIT_NOT_FOUND = 0, 1, 6
FORWARDING = re.compile(r"^Forwarding from (http://127\.0\.0\.1:(\d+)) -> (\S+) \(Spark UI\); "
                        r"Ctrl-C to stop$")
WAIT = 90


def long_job():
    # Long enough for the whole test: it is cancelled, never waited out.
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": "succeed",
                                   "kubesim.durationMs": "3600000"}))


class ForwardTest(unittest.TestCase):

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

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        os.unlink(cls.config)
        assert code == 0, code

    def forward(self, *args):
        proc = subprocess.Popen([kje.BINARY, "forward"] + list(args) +
                                ["--server", self.server.address],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        proc.lines = []

        def read():
            for line in proc.stdout:
                proc.lines.append(line.rstrip("\n"))
        proc.reader = threading.Thread(target=read, daemon=True)
        proc.reader.start()
        self.addCleanup(self.stop, proc)
        return proc

    @staticmethod
    def stop(proc):
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.reader.join(10)
        for f in (proc.stdout, proc.stderr):
            if not f.closed:
                f.close()

    def url_of(self, proc):
        def printed():
            if proc.lines:
                return proc.lines[0]
            if proc.poll() is not None:
                raise AssertionError("forward exited with %s: %s" % (proc.returncode,
                                                                     proc.stderr.read()))
            return None
        line = kje.wait_until(printed, WAIT, "forward to print its URL")
        m = FORWARDING.match(line)
        self.assertIsNotNone(m, line)
        self.assertNotEqual(m.group(2), "0")  # the port the OS picked, not the one asked for
        return m.group(1), m.group(3)

    def ui_runs(self, execution_id):
        try:
            self.stub.ProxyUi(pb.ProxyUiRequest(execution_id=execution_id, path="/"),
                              timeout=kje.RPC_TIMEOUT)
            return True
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            return False

    def test_forward_serves_the_running_ui_and_ends_with_the_job(self):
        job_id = "41001"
        execution_id = self.stub.Submit(pb.SubmitRequest(
            job_id=job_id, metalake="lake", template=long_job()),
            timeout=kje.RPC_TIMEOUT).execution_id
        namespace, app_name = execution_id.split("/")[2:4]
        # Before the driver runs there is no UI: the CLI says so at once (unless the operator
        # was quicker than this call, when it serves).
        early = self.forward(execution_id, "--port", "0")
        kje.wait_until(lambda: early.lines or early.poll() is not None, WAIT,
                       "forward to serve or to refuse")
        if early.poll() is not None:
            self.assertEqual(early.returncode, EXIT_ERROR)
            err = early.stderr.read()
            self.assertIn("FAILED_PRECONDITION", err)
            self.assertIn("no running driver", err)
        else:
            self.stop(early)
        kje.wait_until(lambda: self.ui_runs(execution_id), WAIT, "the driver's UI to run")
        pods = self.cluster.driver_pods(namespace, app_name)
        self.assertEqual(len(pods), 1)
        spark_app_id = pods[0].metadata.labels["spark-app-selector"]

        proc = self.forward(execution_id, "--port", "0")
        url, shown = self.url_of(proc)
        self.assertEqual(shown, execution_id)
        # `/` redirects to /jobs/ (as Spark's UI does), on the local server.
        with urllib.request.urlopen(url + "/", timeout=kje.RPC_TIMEOUT) as r:
            self.assertEqual(r.status, 200)
            self.assertEqual(r.geturl(), url + "/jobs/")
            page = r.read().decode()
        self.assertIn("<title>%s - Spark Jobs</title>" % app_name, page)
        self.assertIn(spark_app_id, page)
        # Links stay on the local server, not the API server's proxy path.
        self.assertIn('href="/api/v1/applications"', page)
        self.assertNotIn("/proxy/", page)
        with urllib.request.urlopen(url + "/api/v1/applications", timeout=kje.RPC_TIMEOUT) as r:
            self.assertEqual(r.headers.get_content_type(), "application/json")
            apps = json.loads(r.read())
        self.assertEqual([(a["id"], a["name"]) for a in apps], [(spark_app_id, app_name)])
        # The UI's own 404 comes through as it is.
        with self.assertRaises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url + "/no/such/page", timeout=kje.RPC_TIMEOUT)
        self.assertEqual(missing.exception.code, 404)

        # The same job named by its job id, as the other verbs name it.
        by_job_id = self.forward(job_id, "-n", namespace, "--port", "0")
        other_url, other_shown = self.url_of(by_job_id)
        self.assertEqual(other_shown, execution_id)
        with urllib.request.urlopen(other_url + "/api/v1/applications/" + spark_app_id,
                                    timeout=kje.RPC_TIMEOUT) as r:
            self.assertEqual(json.loads(r.read())["name"], app_name)

        # The job stops: both forwards end by themselves, saying why.
        self.stub.Cancel(pb.CancelRequest(execution_id=execution_id), timeout=kje.RPC_TIMEOUT)
        for p in (proc, by_job_id):
            self.assertEqual(p.wait(WAIT), EXIT_OK)
            err = p.stderr.read()
            self.assertRegex(err, r"forward: .*(has stopped|is gone|no running driver)")
            self.assertIn("history server", err)
        # A job that is gone: NOT_FOUND, as for every verb.
        def gone():
            done = subprocess.run([kje.BINARY, "forward", execution_id, "--port", "0",
                                   "--server", self.server.address],
                                  capture_output=True, text=True, timeout=WAIT)
            return done if done.returncode == EXIT_NOT_FOUND else None
        kje.wait_until(gone, WAIT, "the cancelled job's application to be deleted")

    def test_forward_refuses_bad_flags_before_anything(self):
        for args, words in ((["x", "--port", "70000"], "--port needs a number"),
                            (["x", "--address", "localhost"], "--address needs an IP address")):
            done = subprocess.run([kje.BINARY, "forward"] + args +
                                  ["--server", self.server.address],
                                  capture_output=True, text=True, timeout=WAIT)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(words, done.stderr)


if __name__ == "__main__":
    unittest.main()
