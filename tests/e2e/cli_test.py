"""The CLI end to end: the k8s-job-executor binary run as a subprocess, as a platform engineer
or a script runs it, against the real server over TLS with a bearer token, with kubesim and its
Spark operator as the cluster. Checks what it prints and, above all, its exit codes."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest

import kje
from tls_test import make_pki

# The exit codes documented in cli/README.md and `k8s-job-executor --help`.
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_FAILED, EXIT_CANCELLED, EXIT_NOT_FINISHED = 0, 1, 2, 3, 4, 5
EXIT_NOT_FOUND, EXIT_UNAVAILABLE, EXIT_AUTH = 6, 7, 8
# A job's whole life takes a few seconds here; this only bounds a hang.
CLI_TIMEOUT = 120
TRANSITION = re.compile(r"^  \+(\d+\.\d)s  (QUEUED|STARTED|SUCCEEDED|FAILED|CANCELLING|CANCELLED)"
                        r"(\s.*)?$")

JOB_FILE = """\
# A SparkPi run, as docs and scripts would write it.
jobId: "%(job_id)s"
metalake: lake
template:
  name: spark-pi
  comment: SparkPi from the CLI
  executable: local:///opt/spark/examples/jars/spark-examples.jar
  arguments: [100]
  spark:
    className: org.apache.spark.examples.SparkPi
    configs:
      kubesim.outcome: %(outcome)s
      kubesim.durationMs: %(duration_ms)d
"""
# The same job as a schedule's template: no jobId, the schedule id is the command's argument.
TEMPLATE_FILE = "".join(l for l in JOB_FILE.splitlines(True) if not l.startswith("jobId:"))
SCHEDULE_KIND = ("sparkoperator.k8s.io", "v1beta2", "default", "scheduledsparkapplications")


class CliTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="kje-cli-")
        make_pki(cls.dir)
        cls.token_file = os.path.join(cls.dir, "callers.token")
        with open(cls.token_file, "w") as f:
            f.write("cli-e2e-token\n")
        # A slower operator clock than the other tests' keeps QUEUED visible for a watch
        # started right after submit (over a second, room for a slow start on a loaded machine).
        cls.cluster = kje.Kubesim(time_scale=2)
        cls.config = os.path.join(cls.dir, "config.yaml")
        with open(cls.config, "w") as f:
            f.write("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 600000
server:
  tokenFile: %s
  tls:
    certFile: %s
    keyFile: %s
""" % (cls.cluster.kubeconfig, cls.token_file, os.path.join(cls.dir, "server.crt"),
                os.path.join(cls.dir, "server.key")))
        cls.server = kje.Server(["--config", cls.config])

    @classmethod
    def tearDownClass(cls):
        code = cls.server.terminate()
        cls.cluster.stop()
        shutil.rmtree(cls.dir)
        assert code == 0, code
        for line in cls.server.lines:
            assert "cli-e2e-token" not in line, line

    def args(self, *args, token_file=None):
        return [kje.BINARY] + list(args) + [
            "--server", self.server.address, "--tls-ca", os.path.join(self.dir, "ca.crt"),
            "--token-file", token_file or self.token_file]

    def cli(self, *args, token_file=None, env=None):
        """Runs the CLI to its end: (exit code, stdout, stderr)."""
        full_env = dict(os.environ)
        full_env.pop("K8S_JOB_EXECUTOR_SERVER", None)
        full_env.update(env or {})
        p = subprocess.run(self.args(*args, token_file=token_file), capture_output=True,
                           text=True, timeout=CLI_TIMEOUT, env=full_env)
        self.assertNotIn("cli-e2e-token", p.stdout + p.stderr)
        return p.returncode, p.stdout, p.stderr

    def start(self, *args):
        """Starts the CLI in the background; stdout is read line by line by a thread."""
        proc = subprocess.Popen(self.args(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        proc.lines = []

        def read():
            for line in proc.stdout:
                proc.lines.append(line)
        proc.reader = threading.Thread(target=read, daemon=True)
        proc.reader.start()
        self.addCleanup(self.kill, proc)
        return proc

    @staticmethod
    def kill(proc):
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.reader.join(10)
        for f in (proc.stdout, proc.stderr):
            if not f.closed:
                f.close()

    def wait_for_line(self, proc, pattern, what):
        """Waits until the background CLI printed a line matching `pattern`; it must not exit
        before."""
        def printed():
            if any(re.search(pattern, l) for l in list(proc.lines)):
                return True
            if proc.poll() is not None:
                raise AssertionError("the CLI exited with %s before %s:\n%s%s" % (
                    proc.returncode, what, "".join(proc.lines), proc.stderr.read()))
            return False
        kje.wait_until(printed, 60, what)

    def finish(self, proc):
        try:
            code = proc.wait(CLI_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        proc.reader.join(10)
        return code, "".join(proc.lines), proc.stderr.read()

    def submit_file(self, job_id, outcome="succeed", duration_ms=2000):
        path = os.path.join(self.dir, "job-%s.yaml" % job_id)
        with open(path, "w") as f:
            f.write(JOB_FILE % {"job_id": job_id, "outcome": outcome, "duration_ms": duration_ms})
        code, out, err = self.cli("submit", "-f", path)
        self.assertEqual(code, EXIT_OK, err)
        execution_id = out.strip()
        self.assertEqual(execution_id, "default/sparkapp/default/gravitino-job-%s" % job_id)
        return execution_id

    def transitions(self, out):
        """The (elapsed seconds, status) of each line `watch` printed; every line must be one."""
        result = []
        for line in out.splitlines():
            m = TRANSITION.match(line)
            self.assertTrue(m, "not a transition line: %r in\n%s" % (line, out))
            result.append((float(m.group(1)), m.group(2)))
        elapsed = [e for e, _ in result]
        self.assertEqual(elapsed, sorted(elapsed), out)
        return [s for _, s in result]

    def test_succeeding_job_submit_status_watch_logs_list(self):
        execution_id = self.submit_file("3001")
        # Watch from right after submit, while the job is still queued.
        watch = self.start("watch", execution_id)
        code, out, err = self.cli("status", execution_id)
        self.assertIn(code, (EXIT_OK, EXIT_NOT_FINISHED), err)
        self.assertRegex(out, r"(?m)^EXECUTION ID +%s$" % re.escape(execution_id))
        self.assertRegex(out, r"(?m)^NAME +gravitino-job-3001$")
        self.assertRegex(out, r"(?m)^JOB ID +3001$")

        code, out, err = self.finish(watch)
        self.assertEqual(code, EXIT_OK, out + err)
        states = self.transitions(out)
        # In order, each once, ending at the outcome. The first is wherever the job was when the
        # watch began: QUEUED unless the CLI was slow to start (a sanitizer build can take
        # seconds, and then the watch may see the outcome alone).
        order = ["QUEUED", "STARTED", "SUCCEEDED"]
        seen = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
        self.assertTrue(all(s in order for s in seen), out)
        self.assertEqual(seen, sorted(set(seen), key=order.index), out)
        self.assertEqual(seen[-1], "SUCCEEDED", out)
        self.assertEqual(states.count("SUCCEEDED"), 1, out)

        code, out, err = self.cli("status", execution_id)
        self.assertEqual(code, EXIT_OK, err)
        # What sparkctl status showed: the Spark application id and the attempts.
        self.assertRegex(out, r"(?m)^SPARK APP ID +[a-z0-9-]+$")
        self.assertNotRegex(out, r"(?m)^SPARK APP ID +-$")
        self.assertRegex(out, r"(?m)^ATTEMPTS +1$")
        code, out, err = self.cli("status", execution_id, "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        info = json.loads(out)
        self.assertEqual(info["status"], "SUCCEEDED")
        self.assertEqual(info["jobId"], "3001")
        self.assertTrue(info["finishedAt"])

        # Named as kubectl names objects: by the job id, or by the application's name.
        for name in ("3001", "gravitino-job-3001"):
            code, out, err = self.cli("status", name, "-n", "default", "-o", "json")
            self.assertEqual(code, EXIT_OK, err)
            self.assertEqual(json.loads(out)["executionId"], execution_id)
        code, _, err = self.cli("status", "gravitino-job-30001", "-n", "default")
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        self.assertIn('hint: no job with the id or name "gravitino-job-30001" in namespace default'
                      ' (-n picks another); did you mean gravitino-job-3001?', err)

        code, out, err = self.cli("logs", execution_id)
        self.assertEqual(code, EXIT_OK, err)
        self.assertIn("Pi is roughly 3.14", out)
        code, tail, err = self.cli("logs", execution_id, "--tail", "2")
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual(tail.splitlines(), out.splitlines()[-2:])

        code, out, err = self.cli("list")
        self.assertEqual(code, EXIT_OK, err)
        rows = [l.split() for l in out.splitlines()]
        self.assertEqual(rows[0][:3], ["EXECUTION", "ID", "JOB"])
        self.assertIn([execution_id, "3001", "SUCCEEDED"], [r[:3] for r in rows[1:]])
        code, out, err = self.cli("list", "--namespace", "default",
                                  "-l", "gravitino.apache.org/job-id=3001", "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual([j["executionId"] for j in json.loads(out)["jobs"]], [execution_id])

    def test_logs_follow_until_the_driver_stops(self):
        execution_id = self.submit_file("3002", duration_ms=4000)
        code, out, err = self.cli("logs", execution_id, "-f")
        self.assertEqual(code, EXIT_OK, err)
        self.assertIn("Pi is roughly 3.14", out)
        # It returned because the driver stopped, so the job is over by now or about to be.
        code, _, err = self.cli("watch", execution_id)
        self.assertEqual(code, EXIT_OK, err)

    def test_failing_job_watch_exits_with_the_failed_code(self):
        execution_id = self.submit_file("3003", outcome="fail")
        code, out, err = self.cli("watch", execution_id)
        self.assertEqual(code, EXIT_FAILED, out + err)
        self.assertEqual(self.transitions(out)[-1], "FAILED", out)
        code, _, _ = self.cli("status", execution_id)
        self.assertEqual(code, EXIT_FAILED)
        # Cancelling it changes nothing, and says so rather than "cancellation requested".
        code, out, err = self.cli("cancel", execution_id)
        self.assertEqual((code, out), (EXIT_OK, "already stopped (FAILED), nothing cancelled: %s\n"
                                       % execution_id), err)
        app = self.cluster.app("default", "gravitino-job-3003") or {}
        self.assertNotIn("gravitino.apache.org/cancel-requested",
                         app.get("metadata", {}).get("annotations", {}))

    def test_cancel_of_a_running_job_then_watch_exits_with_the_cancelled_code(self):
        execution_id = self.submit_file("3004", outcome="hang")
        watch = self.start("watch", execution_id)
        self.wait_for_line(watch, r"^  \+\d+\.\ds  STARTED\b", "the watch to show STARTED")
        code, out, err = self.cli("status", execution_id)
        self.assertEqual(code, EXIT_NOT_FINISHED, out + err)
        code, out, err = self.cli("cancel", execution_id)
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual(out, "cancellation requested: %s\n" % execution_id)
        code, out, err = self.finish(watch)
        self.assertEqual(code, EXIT_CANCELLED, out + err)
        self.assertEqual(self.transitions(out)[-1], "CANCELLED", out)

    def test_submit_of_a_bad_template_is_an_error_and_creates_nothing(self):
        code, out, err = self.cli("submit", "--job-id", "3005", "--metalake", "lake",
                                  "--name", "bad", "--executable", "/opt/app.jar")
        self.assertEqual(code, EXIT_ERROR, err)
        self.assertIn("INVALID_ARGUMENT", err)
        self.assertEqual(out, "")
        self.assertIsNone(self.cluster.app("default", "gravitino-job-3005"))

    def test_wrong_or_missing_token_exits_with_the_auth_code(self):
        wrong = os.path.join(self.dir, "wrong.token")
        with open(wrong, "w") as f:
            f.write("not-the-token\n")
        code, out, err = self.cli("status", "default/sparkapp/default/x", token_file=wrong)
        self.assertEqual(code, EXIT_AUTH, err)
        self.assertIn("UNAUTHENTICATED", err)
        self.assertEqual(out, "")
        code, out, err = self.cli("list", token_file=wrong)
        self.assertEqual(code, EXIT_AUTH, err)
        p = subprocess.run([kje.BINARY, "submit", "--job-id", "3006", "--metalake", "m",
                            "--name", "n", "--executable", "local:///x.jar",
                            "--server", self.server.address,
                            "--tls-ca", os.path.join(self.dir, "ca.crt")],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, EXIT_AUTH, p.stderr)
        self.assertIsNone(self.cluster.app("default", "gravitino-job-3006"))

    def test_plaintext_to_the_tls_port_is_unavailable(self):
        p = subprocess.run([kje.BINARY, "status", "default/sparkapp/default/x", "--timeout", "5s"],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT,
                           env=dict(os.environ, K8S_JOB_EXECUTOR_SERVER=self.server.address))
        self.assertEqual(p.returncode, EXIT_UNAVAILABLE, p.stderr)

    def test_mutual_tls_and_the_server_name(self):
        server = kje.Server(["--config", self.config, "--set",
                             "server.tls.clientCaFile=" + os.path.join(self.dir, "ca.crt")])
        try:
            def status(*flags):
                p = subprocess.run(
                    [kje.BINARY, "status", "default/sparkapp/default/gravitino-job-no-such",
                     "--timeout", "10s", "--tls-ca", os.path.join(self.dir, "ca.crt"),
                     "--token-file", self.token_file] + list(flags),
                    capture_output=True, text=True, timeout=CLI_TIMEOUT)
                return p.returncode, p.stderr
            address = ["--server", server.address]
            cert = ["--tls-cert", os.path.join(self.dir, "client.crt"),
                    "--tls-key", os.path.join(self.dir, "client.key")]
            # Through to the server, which answers for a job that isn't there.
            self.assertEqual(status(*address, *cert)[0], EXIT_NOT_FOUND)
            # No client certificate: the handshake fails.
            self.assertEqual(status(*address)[0], EXIT_UNAVAILABLE)
            # The certificate names localhost and 127.0.0.1, not other.example.
            port = server.address.rsplit(":", 1)[1]
            self.assertEqual(status("--server", "localhost:" + port, *cert)[0], EXIT_NOT_FOUND)
            self.assertEqual(status(*address, *cert, "--tls-server-name", "localhost")[0],
                             EXIT_NOT_FOUND)
            # A name the certificate doesn't carry: no outage, so exit 1, saying what to change.
            code, err = status(*address, *cert, "--tls-server-name", "other.example")
            self.assertEqual(code, EXIT_ERROR)
            self.assertIn("--tls-server-name", err)
        finally:
            self.assertEqual(server.terminate(), 0)

    def test_health_for_exec_probes_over_tls(self):
        for service in ("", "liveness", "readiness"):
            code, out, err = self.cli("health", "--service", service, "--timeout", "5s")
            self.assertEqual((code, out.strip()), (0, "SERVING"), err)
        code, out, err = self.cli("health", "--service", "no-such-service", "--timeout", "5s")
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        # Nobody listening: the probe fails with the unavailable code.
        p = subprocess.run([kje.BINARY, "health", "--server", "127.0.0.1:1", "--timeout", "2s"],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, EXIT_UNAVAILABLE, p.stderr)

    def test_unknown_id_exits_with_the_not_found_code(self):
        code, _, err = self.cli("status", "default/sparkapp/default/gravitino-job-no-such")
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        self.assertIn("NOT_FOUND", err)
        code, _, err = self.cli("status", "nonsense")
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        gone = "default/sparkapp/default/gravitino-job-no-such"
        code, _, err = self.cli("cancel", gone)
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        code, out, err = self.cli("cancel", gone, "--ignore-not-found")
        self.assertEqual(code, EXIT_OK, err)
        self.assertTrue(out.startswith("not found, nothing cancelled: %s (" % gone), out)

    def test_events_follow_until_the_job_stops(self):
        execution_id = self.submit_file("3007", duration_ms=3000)
        code, out, err = self.cli("events", execution_id, "-f", "--interval", "500ms")
        self.assertEqual(code, EXIT_OK, err)
        # It returned by itself: the job has stopped.
        code, status, err = self.cli("status", execution_id, "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("LAST SEEN"), out)
        self.assertEqual(sum(l.startswith("LAST SEEN") for l in lines), 1, out)
        # Each event once: a repeat prints again only with its higher count, which changes
        # the line.
        self.assertEqual(len(lines), len(set(lines)), out)
        driver = "Pod/" + json.loads(status)["driverPod"]
        self.assertTrue(any(" Started " in l and driver in l for l in lines), out)
        if kje.OPERATOR == "kubeflow":
            self.assertTrue(any("SparkApplicationCompleted" in l for l in lines), out)
        # What a single call shows now, after the stop, the follower printed.
        code, plain, err = self.cli("events", execution_id, "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        for e in json.loads(plain).get("events", []):
            self.assertTrue(any(e["reason"] in l and "%s/%s" % (e["objectKind"], e["objectName"])
                                in l for l in lines), (e, out))

    @unittest.skipIf(kje.OPERATOR != "kubeflow", "schedules are kubeflow/spark-operator's")
    def test_schedule_verbs_from_create_to_delete(self):
        path = os.path.join(self.dir, "schedule-template.yaml")
        with open(path, "w") as f:
            f.write(TEMPLATE_FILE % {"outcome": "succeed", "duration_ms": 1000})
        name = "gravitino-job-clinightly"

        def stored():
            try:
                return self.cluster.custom.get_namespaced_custom_object(*SCHEDULE_KIND, name)
            except Exception as e:  # kubernetes.client.exceptions.ApiException
                if getattr(e, "status", None) == 404:
                    return None
                raise

        # Suspended and @hourly: the controller starts nothing, every run here is ours.
        create = ("schedule", "create", "clinightly", "-f", path, "--cron", "@hourly",
                  "--time-zone", "UTC", "--concurrency-policy", "Forbid",
                  "--successful-history", "2", "--suspended")
        code, out, err = self.cli(*create)
        self.assertEqual(code, EXIT_OK, err)
        self.assertRegex(out, r"(?m)^SCHEDULE ID +clinightly$")
        self.assertRegex(out, r"(?m)^NAME +%s$" % name)
        self.assertRegex(out, r"(?m)^SUSPENDED +yes$")
        spec = stored()["spec"]
        self.assertEqual((spec["schedule"], spec["timeZone"], spec["concurrencyPolicy"],
                          spec["successfulRunHistoryLimit"], spec["suspend"]),
                         ("@hourly", "UTC", "Forbid", 2, True))
        code, _, err = self.cli(*create)
        self.assertEqual(code, EXIT_OK, err)
        self.assertIn("schedule clinightly already existed; adopted it\n", err)

        code, out, err = self.cli("schedule", "get", "clinightly", "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        info = json.loads(out)
        self.assertEqual((info["scheduleId"], info["namespace"], info["name"]),
                         ("clinightly", "default", name))
        self.assertEqual(info["spec"]["concurrencyPolicy"], "FORBID")
        self.assertTrue(info["spec"]["suspend"])
        code, out, err = self.cli("schedule", "list")
        self.assertEqual(code, EXIT_OK, err)
        rows = [l.split() for l in out.splitlines()]
        self.assertEqual(rows[0][:2], ["SCHEDULE", "ID"])
        self.assertIn("clinightly", [r[0] for r in rows[1:]])
        code, out, err = self.cli("schedule", "list", "-l",
                                  "gravitino.apache.org/job-id=clinightly", "-o", "json")
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual([s["scheduleId"] for s in json.loads(out)["schedules"]], ["clinightly"])

        # A run now is a job like a submitted one; the same run id is the same run.
        code, out, err = self.cli("schedule", "run", "clinightly", "--run-id", "a1")
        self.assertEqual(code, EXIT_OK, err)
        run_id = out.strip()
        self.assertEqual(run_id, "default/sparkapp/default/%s-ra1" % name)
        code, out, err = self.cli("schedule", "run", "clinightly", "--run-id", "a1")
        self.assertEqual((code, out.strip()), (EXIT_OK, run_id), err)
        self.assertIn("adopted", err)
        code, out, err = self.cli("watch", run_id)
        self.assertEqual(code, EXIT_OK, out + err)
        code, out, err = self.cli("status", run_id)
        self.assertEqual(code, EXIT_OK, err)
        self.assertRegex(out, r"(?m)^JOB ID +clinightly$")
        code, out, err = self.cli("schedule", "get", "clinightly")
        self.assertEqual(code, EXIT_OK, err)
        self.assertRegex(out, r"(?m)^%s +SUCCEEDED " % re.escape(run_id))
        # Without --run-id the CLI makes one up and says which.
        code, out, err = self.cli("schedule", "run", "clinightly")
        self.assertEqual(code, EXIT_OK, err)
        made = re.search(r"^run id (\d{17}) \(", err, re.M)
        self.assertTrue(made, err)
        self.assertEqual(out.strip(), "default/sparkapp/default/%s-r%s" % (name, made.group(1)))

        code, out, err = self.cli("schedule", "resume", "clinightly")
        self.assertEqual((code, out), (EXIT_OK, "resumed: clinightly\n"), err)
        self.assertFalse(stored()["spec"]["suspend"])
        code, out, err = self.cli("schedule", "suspend", "clinightly")
        self.assertEqual((code, out), (EXIT_OK, "suspended: clinightly\n"), err)
        self.assertTrue(stored()["spec"]["suspend"])
        # An update changes what it names and nothing else.
        code, out, err = self.cli("schedule", "update", "clinightly", "--cron", "0 0 1 1 *")
        self.assertEqual(code, EXIT_OK, err)
        self.assertRegex(out, r"(?m)^SCHEDULE +0 0 1 1 \*$")
        spec = stored()["spec"]
        self.assertEqual((spec["schedule"], spec["timeZone"], spec["concurrencyPolicy"],
                          spec["successfulRunHistoryLimit"], spec["suspend"]),
                         ("0 0 1 1 *", "UTC", "Forbid", 2, True))
        code, _, err = self.cli("schedule", "update", "clinightly", "--cron", "* *")
        self.assertEqual(code, EXIT_ERROR, err)
        self.assertIn("INVALID_ARGUMENT", err)
        self.assertEqual(stored()["spec"]["schedule"], "0 0 1 1 *")

        code, out, err = self.cli("schedule", "delete", "clinightly")
        self.assertEqual((code, out), (EXIT_OK, "deleted: clinightly\n"), err)
        self.assertIsNone(stored())
        kje.wait_until(lambda: not [a for a in self.cluster.apps("default")
                                    if a["metadata"]["name"].startswith(name + "-")],
                       60, "the runs to go with their schedule")
        code, _, err = self.cli("schedule", "get", "clinightly")
        self.assertEqual(code, EXIT_NOT_FOUND, err)
        # Gone (or never there, as after a typo) is no deletion: NOT_FOUND, unless that is fine.
        code, out, err = self.cli("schedule", "delete", "clinightly")
        self.assertEqual((code, out), (EXIT_NOT_FOUND, ""), err)
        self.assertIn('schedule delete: NOT_FOUND: no schedule "clinightly"', err)
        code, out, err = self.cli("schedule", "delete", "clinightly", "--ignore-not-found")
        self.assertEqual((code, out), (EXIT_OK, "not found, nothing deleted: clinightly\n"), err)

    @unittest.skipIf(kje.OPERATOR == "kubeflow", "the Apache operator has no schedules")
    def test_schedule_verbs_on_the_apache_operator_say_why_not(self):
        path = os.path.join(self.dir, "schedule-template-apache.yaml")
        with open(path, "w") as f:
            f.write(TEMPLATE_FILE % {"outcome": "succeed", "duration_ms": 1000})
        for args in (("create", "clinightly", "-f", path, "--cron", "@hourly"),
                     ("get", "clinightly"), ("list",), ("suspend", "clinightly"),
                     ("run", "clinightly", "--run-id", "a1"), ("delete", "clinightly")):
            with self.subTest(verb=args[0]):
                code, out, err = self.cli("schedule", *args)
                self.assertEqual(code, EXIT_ERROR, err)
                self.assertEqual(out, "")
                self.assertIn("schedule %s: FAILED_PRECONDITION: " % args[0], err)
                self.assertIn("spark.apache.org/v1", err)
                self.assertIn("schedules need a server whose `operator` setting is kubeflow", err)
        self.assertEqual([a["metadata"]["name"] for a in self.cluster.apps("default")
                          if "clinightly" in a["metadata"]["name"]], [])

    def test_usage_errors_and_help(self):
        code, _, err = self.cli("status")
        self.assertEqual(code, EXIT_USAGE, err)
        p = subprocess.run([kje.BINARY, "--help"], capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, 0)
        for command in ("serve", "submit", "status", "cancel", "logs", "list", "watch",
                        "events", "schedule"):
            self.assertRegex(p.stdout, r"(?m)^  %s " % command)
        self.assertIn("  8  UNAUTHENTICATED", p.stdout)
        p = subprocess.run([kje.BINARY, "schedule", "--help"], capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
        self.assertEqual(p.returncode, 0)
        for verb in ("create", "get", "list", "update", "suspend", "resume", "run", "delete"):
            self.assertRegex(p.stdout, r"(?m)^  %s " % verb)


if __name__ == "__main__":
    unittest.main(verbosity=2)
