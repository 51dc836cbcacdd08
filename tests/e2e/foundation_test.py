"""The service foundation, from outside C++: config, health, reflection, graceful shutdown."""

import os
import subprocess
import unittest

import kje

EXAMPLE_CONFIG = os.path.join(kje.SOURCE_DIR, "examples", "config.yaml")


class FoundationTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.kubeconfig = kje.unreachable_kubeconfig()
        # The example configuration plus a Kubernetes connection, as a deployment would add.
        cls.base = ["--config", EXAMPLE_CONFIG, "--set", "kubeconfig=" + cls.kubeconfig]

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.kubeconfig)

    def test_health_reflection_and_sigterm(self):
        server = kje.Server(self.base)
        try:
            with server.channel() as ch:
                for name in ("", "liveness", "readiness"):
                    self.assertEqual(kje.health(ch, name), "SERVING", name)
                services = kje.list_services(ch)
                self.assertIn("jobexecutor.v1.JobExecutor", services)
                self.assertIn("grpc.health.v1.Health", services)
                self.assertEqual(kje.describe_service(ch, "jobexecutor.v1.JobExecutor"),
                                 ["Submit", "Status", "Cancel", "Output", "WatchStatus",
                                  "FollowOutput", "ListJobs", "Events", "UploadArtifacts",
                                  "CreateSchedule",
                                  "GetSchedule", "ListSchedules", "UpdateSchedule", "DeleteSchedule",
                                  "RunScheduleNow", "ProxyUi"])
                self.assertEqual(kje.describe_service(ch, "grpc.health.v1.Health"),
                                 ["Check", "Watch"])
        finally:
            code = server.terminate()
        self.assertEqual(code, 0, "\n".join(server.lines))
        log = "\n".join(server.lines)
        self.assertIn('msg="shutdown requested" signal=SIGTERM', log)
        self.assertIn("msg=stopped", log)

    def test_rpc_log_lines_carry_the_request_id(self):
        import grpc
        from jobexecutor.v1 import job_executor_pb2, job_executor_pb2_grpc
        server = kje.Server(self.base + ["--log-format", "json"])
        try:
            with server.channel() as ch:
                stub = job_executor_pb2_grpc.JobExecutorStub(ch)
                with self.assertRaises(grpc.RpcError) as err:
                    # A server-local executable is refused before any Kubernetes call.
                    stub.Submit(job_executor_pb2.SubmitRequest(
                        job_id="1", template=job_executor_pb2.JobTemplate(
                            name="t", executable="/opt/app.jar",
                            spark=job_executor_pb2.SparkJob())),
                        timeout=kje.RPC_TIMEOUT, metadata=[("x-request-id", "e2e-1")])
                self.assertEqual(err.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        finally:
            self.assertEqual(server.terminate(), 0)
        rpc_lines = [l for l in server.lines if '"msg":"rpc finished"' in l]
        self.assertEqual(len(rpc_lines), 1, server.lines)
        self.assertIn('"rpc":"Submit"', rpc_lines[0])
        self.assertIn('"request_id":"e2e-1"', rpc_lines[0])
        self.assertIn('"code":3', rpc_lines[0])

    def test_environment_and_flags_override_the_file(self):
        server = kje.Server(self.base + ["--set", "cluster=from-flag"],
                            env={"K8S_JOB_EXECUTOR_NAMESPACE": "from-env",
                                 "K8S_JOB_EXECUTOR_CLUSTER": "from-env"})
        try:
            listening = [l for l in server.lines if "msg=listening" in l][0]
            self.assertIn("cluster=from-flag", listening)
            self.assertIn("namespace=from-env", listening)
        finally:
            self.assertEqual(server.terminate(), 0)

    def run_bad(self, args, env=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        p = subprocess.run([kje.BINARY, "serve"] + args, capture_output=True, text=True,
                           timeout=30, env=full_env)
        return p.returncode, p.stderr

    def test_bad_config_exits_before_listening_naming_the_key(self):
        code, err = self.run_bad(self.base + ["--listen", "127.0.0.1:0",
                                              "--set", "namePrefix=Bad_Prefix"])
        self.assertNotEqual(code, 0)
        self.assertIn("namePrefix: must match", err)
        self.assertNotIn("listening", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

        bad = kje.write_temp("spark: {image: a, sparkVersion: b}\nnamePrefix: Bad_Prefix\n")
        try:
            code, err = self.run_bad(["--config", bad, "--listen", "127.0.0.1:0"])
            self.assertNotEqual(code, 0)
            self.assertIn("namePrefix:", err)
        finally:
            os.unlink(bad)

        code, err = self.run_bad(self.base + ["--listen", "127.0.0.1:0"],
                                 env={"K8S_JOB_EXECUTOR_NO_STATUS_TIMEOUT_MS": "0"})
        self.assertNotEqual(code, 0)
        self.assertIn("noStatusTimeoutMs: must be greater than 0", err)

        # A kubeconfig that can't be used is refused at start, saying what is wrong.
        broken = kje.write_temp("apiVersion: v1\nkind: Config\ncurrent-context: nope\n")
        try:
            code, err = self.run_bad(["--config", EXAMPLE_CONFIG, "--set", "kubeconfig=" + broken,
                                      "--listen", "127.0.0.1:0"])
            self.assertEqual(code, 2)
            self.assertIn("can't use the Kubernetes connection", err)
            self.assertIn("nope", err)
        finally:
            os.unlink(broken)

        code, err = self.run_bad(["--bogus"])
        self.assertEqual(code, 2)
        self.assertIn("unknown flag --bogus", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
