"""The README's operations cookbook, run for real: every block marked `<!-- cookbook:NAME -->` is
taken from README.md, its `buf curl` (and `openssl`, `curl`, CLI) commands run with bash against
kubesim and a server started exactly as the README's `serve` block says (TLS from the README's
own openssl commands, a bearer-token file), and their output is checked. grpcurl is not
installable here (no Debian 12 package, no Go toolchain), so each grpcurl line is checked to ask
for the same call as the buf curl line next to it: address, CA, headers, method, request JSON.

Only the address and ports of the README are rewritten (the test binds free ports), plus the
binaries' paths, and the job id of the Cancel example (cancelling job 42 once it succeeded would
show nothing), so a README edit that breaks a command fails here."""

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import unittest

import kje

README = os.path.join(kje.SOURCE_DIR, "README.md")
FETCH_TOOLS = os.path.join(kje.SOURCE_DIR, "scripts", "fetch-tools.sh")
EXPECTED_BLOCKS = {
    "pki", "serve", "serve-kubeflow", "list", "describe", "health", "submit", "watch", "follow", "status", "output",
    "list-jobs", "events", "cancel", "unauthenticated", "metrics", "cli",
    "create-schedule", "run-schedule", "get-schedule", "list-schedules", "update-schedule",
    "delete-schedule",
}
SCHEDULE_BLOCKS = ("create-schedule", "run-schedule", "get-schedule", "list-schedules",
                   "update-schedule", "delete-schedule")
README_ADDRESS = "localhost:50051"
README_METRICS = "127.0.0.1:9090"
README_KUBECONFIG = "/tmp/kc"
EXECUTION_ID = "default/sparkapp/default/gravitino-job-42"
COMMAND_TIMEOUT = 60
STREAM_TIMEOUT = 120
# buf curl exits with the gRPC code shifted left by three.
BUF_UNAUTHENTICATED_EXIT = 16 << 3
BUF_FAILED_PRECONDITION_EXIT = 9 << 3
ELLIPSIS = "…"

BLOCK_RE = re.compile(
    r"<!-- cookbook:([a-z-]+) -->\n```sh\n(.*?)\n```\n(?:```([a-z]*)\n(.*?)\n```\n)?", re.DOTALL)


def parse_blocks(text):
    """{name: (commands, sample)}: each command a string as bash gets it (continuations kept)."""
    blocks = {}
    for m in BLOCK_RE.finditer(text):
        name, body, _, sample = m.groups()
        if name in blocks:
            raise AssertionError("README: cookbook block %r appears twice" % name)
        blocks[name] = (split_commands(body), sample)
    return blocks


def split_commands(body):
    """Splits a shell block into commands: a command goes on while a line ends with a backslash or
    a quote is open (the request JSON spans lines); comment lines between commands are dropped."""
    commands, current = [], []
    for line in body.split("\n"):
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current.append(line)
        text = "\n".join(current)
        if text.endswith("\\"):
            continue
        try:
            shlex.split(text.replace("\\\n", " "))
        except ValueError:  # an open quote
            continue
        commands.append(text)
        current = []
    if current:
        raise AssertionError("README: unterminated command: %r" % "\n".join(current))
    return commands


def argv_of(command):
    return shlex.split(command.replace("\\\n", " "))


def parse_flags(argv, with_value, without_value):
    """(flags as {name: [values]}, positionals) for a grpcurl or buf command line."""
    flags, positionals = {}, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in with_value:
            flags.setdefault(a, []).append(argv[i + 1])
            i += 2
        elif a in without_value:
            flags.setdefault(a, []).append(True)
            i += 1
        elif a.startswith("-"):
            raise AssertionError("unexpected flag %r in %r" % (a, argv))
        else:
            positionals.append(a)
            i += 1
    return flags, positionals


def json_stream(text):
    """The JSON values printed one after another (buf prints each stream message)."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        value, i = decoder.raw_decode(text, i)
        out.append(value)


class CookbookTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(README) as f:
            cls.blocks = parse_blocks(f.read())
        fetched = subprocess.run([FETCH_TOOLS, "--print-path", "buf"], capture_output=True,
                                 text=True, timeout=900)
        if fetched.returncode != 0:
            raise AssertionError("buf could not be fetched (scripts/fetch-tools.sh --print-path "
                                 "buf exited %d): the cookbook can't be checked without it\n%s"
                                 % (fetched.returncode, fetched.stderr))
        buf = fetched.stdout.strip()
        cls.env = dict(os.environ)
        cls.env["PATH"] = os.pathsep.join([os.path.dirname(buf),
                                           os.path.dirname(kje.BINARY), cls.env["PATH"]])
        cls.dir = tempfile.mkdtemp(prefix="kje-cookbook-")
        cls.old_cwd = os.getcwd()
        # The README's relative paths (ca.crt, callers.token, server.crt) live here; the server
        # inherits this directory.
        os.chdir(cls.dir)
        cls.kubesim = None
        cls.server = None
        try:
            cls._run_pki()
            cls._start_as_readme_says()
        except BaseException:
            cls._stop()
            raise

    @classmethod
    def _run_pki(cls):
        commands, _ = cls.blocks["pki"]
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(commands)],
                                cwd=cls.dir, capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT)
        assert result.returncode == 0, "README pki block failed:\n" + result.stderr
        with open(os.path.join(cls.dir, "callers.token")) as f:
            cls.token = f.read().strip()
        assert len(cls.token) >= 16, "the README's token is too short: %r" % cls.token

    @classmethod
    def _start_as_readme_says(cls):
        # The README's own command for the operator under test.
        commands, _ = cls.blocks["serve" if kje.OPERATOR == "apache" else "serve-" + kje.OPERATOR]
        assert len(commands) == 2, commands
        kubesim_argv, serve_argv = argv_of(commands[0]), argv_of(commands[1])
        assert kubesim_argv[0] == "build/bin/kubesim" and kubesim_argv[-1] == "&", kubesim_argv
        cls.kubeconfig = os.path.join(cls.dir, "kc")

        def local(arg):
            arg = arg.replace(README_KUBECONFIG, cls.kubeconfig)
            if arg.startswith("crds/") or arg.startswith("examples/"):
                return os.path.join(kje.SOURCE_DIR, arg)
            return arg.replace(README_METRICS, "127.0.0.1:0")

        args = [local(a) for a in kubesim_argv[1:-1]]
        # The README's cluster runs the operator under test: its CRDs.
        expected = kje.OPERATOR_UNDER_TEST.kubesim_args(("default",), None)
        assert args[args.index("--crd-dir") + 1] == expected[expected.index("--crd-dir") + 1], args
        out_path = os.path.join(cls.dir, "kubesim.out")
        with open(out_path, "w") as out:
            cls.kubesim = subprocess.Popen([kje.KUBESIM] + args,
                                           stdout=out, stderr=subprocess.STDOUT)

        def kubesim_ready():
            if cls.kubesim.poll() is not None:
                raise AssertionError("kubesim exited with %s" % cls.kubesim.returncode)
            with open(out_path) as f:
                return "kubesim listening on" in f.read() and os.path.exists(cls.kubeconfig)
        kje.wait_until(kubesim_ready, 20, "kubesim to listen")

        assert serve_argv[:2] == ["build/bin/k8s-job-executor", "serve"], serve_argv
        cls.server = kje.Server([local(a) for a in serve_argv[2:]])
        listening = [l for l in cls.server.lines if "msg=listening" in l][0]
        assert "tls=true" in listening and "caller_auth=token" in listening, listening
        port = None
        for line in cls.server.lines:
            m = re.search(r'msg="metrics listening" .*\bport=(\d+)', line)
            if m:
                port = m.group(1)
        assert port, "no metrics listener:\n" + "\n".join(cls.server.lines)
        cls.address = "localhost:%s" % cls.server.address.rpartition(":")[2]
        cls.metrics_address = "127.0.0.1:" + port

    @classmethod
    def _stop(cls):
        codes = []
        if cls.server is not None:
            codes.append(cls.server.terminate())
        if cls.kubesim is not None and cls.kubesim.poll() is None:
            cls.kubesim.terminate()
            cls.kubesim.wait(20)
        os.chdir(cls.old_cwd)
        shutil.rmtree(cls.dir, ignore_errors=True)
        return codes

    @classmethod
    def tearDownClass(cls):
        lines = cls.server.lines if cls.server is not None else []
        codes = cls._stop()
        assert codes == [0], codes
        for line in lines:
            assert cls.token not in line, "the caller token reached the log: " + line

    # --- helpers --------------------------------------------------------------------------------

    def local(self, command):
        return (command.replace(README_ADDRESS, self.address)
                .replace(README_METRICS, self.metrics_address)
                .replace(" examples/", " " + os.path.join(kje.SOURCE_DIR, "examples") + "/"))

    def buf_command(self, name):
        commands, _ = self.blocks[name]
        bufs = [c for c in commands if c.startswith("buf curl ")]
        self.assertEqual(len(bufs), 1, "block %s: one buf curl command expected" % name)
        return bufs[0]

    def start(self, command):
        return subprocess.Popen(["bash", "-c", self.local(command)], cwd=self.dir, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def run_command(self, command, timeout=COMMAND_TIMEOUT):
        proc = self.start(command)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self.fail("timed out after %ss: %s\n%s%s" % (timeout, command, out, err))
        return proc.returncode, out, err

    def run_ok(self, name, command=None, timeout=COMMAND_TIMEOUT):
        command = command or self.buf_command(name)
        code, out, err = self.run_command(command, timeout)
        self.assertEqual(code, 0, "block %s failed: %s\n%s%s" % (name, command, out, err))
        return out

    def check_json_sample(self, name, answers):
        """The README's sample answer has only fields the real answers have."""
        sample = self.blocks[name][1]
        self.assertIsNotNone(sample, "block %s has no sample answer" % name)
        real_keys = set().union(*(a.keys() for a in answers)) if answers else set()
        for value in json_stream(sample):
            keys = set(value.keys())
            if kje.OPERATOR == "kubeflow":
                # The samples are the Apache operator's: its states carry a message where
                # kubeflow/spark-operator writes none (errorMessage is there on failures only).
                keys.discard("message")
            self.assertLessEqual(keys, real_keys,
                                 "block %s: sample %r" % (name, value))

    def check_text_sample(self, name, out):
        sample = self.blocks[name][1]
        self.assertIsNotNone(sample, "block %s has no sample answer" % name)
        lines = out.splitlines()
        for line in sample.splitlines():
            if line != ELLIPSIS:
                self.assertIn(line, lines, "block %s: sample line not in the real output" % name)

    # --- the README as a whole ------------------------------------------------------------------

    def test_every_block_is_there_and_grpcurl_asks_for_what_buf_does(self):
        self.assertEqual(set(self.blocks), EXPECTED_BLOCKS)
        # A grpcurl or buf command outside a cookbook block would go untested.
        with open(README) as f:
            in_readme = [l for l in f.read().splitlines() if re.match(r"(grpcurl|buf curl) -", l)]
        in_blocks = [c for commands, _ in self.blocks.values() for c in commands
                     if c.startswith("grpcurl ") or c.startswith("buf curl ")]
        self.assertEqual(len(in_readme), len(in_blocks), in_readme)
        for name, (commands, _) in sorted(self.blocks.items()):
            grpcurls = [c for c in commands if c.startswith("grpcurl ")]
            bufs = [c for c in commands if c.startswith("buf curl ")]
            with self.subTest(block=name):
                if name in ("pki", "serve", "serve-kubeflow", "metrics", "cli"):
                    self.assertEqual(grpcurls + bufs, [])
                    continue
                self.assertEqual(len(grpcurls), 1, commands)
                self.assertEqual(len(bufs), 1, commands)
                self.assertEqual(len(commands), 2, commands)
                self.assert_equivalent(argv_of(grpcurls[0])[1:], argv_of(bufs[0])[2:])

    def assert_equivalent(self, grpcurl, buf):
        g, g_pos = parse_flags(grpcurl, {"-cacert", "-H", "-d"}, set())
        b, b_pos = parse_flags(buf, {"--protocol", "--cacert", "-H", "-d"},
                               {"--list-services", "--list-methods"})
        self.assertEqual(b.get("--protocol"), ["grpc"])
        self.assertEqual(g.get("-cacert"), ["ca.crt"])
        self.assertEqual(b.get("--cacert"), ["ca.crt"])
        self.assertEqual(g.get("-H", []), b.get("-H", []))
        for h in b.get("-H", []):
            self.assertEqual(h, "authorization: Bearer $(cat callers.token)")
        self.assertEqual([json.loads(d) for d in g.get("-d", [])],
                         [json.loads(d) for d in b.get("-d", [])])
        self.assertEqual(len(b_pos), 1, buf)
        url = re.fullmatch(r"https://([^/]+)(/.*)?", b_pos[0])
        self.assertIsNotNone(url, b_pos[0])
        self.assertEqual(g_pos[0], README_ADDRESS)
        self.assertEqual(url.group(1), README_ADDRESS)
        if g_pos[1:] == ["list"]:
            self.assertEqual((b.get("--list-services"), url.group(2)), ([True], None))
        elif g_pos[1] == "describe":
            self.assertEqual(len(g_pos), 3)
            self.assertEqual((b.get("--list-methods"), url.group(2)), ([True], None))
        else:
            self.assertEqual(len(g_pos), 2)
            self.assertEqual(url.group(2), "/" + g_pos[1])

    # --- reflection and health ------------------------------------------------------------------

    def test_reflection_lists_and_describes_the_service(self):
        out = self.run_ok("list")
        self.assertIn("jobexecutor.v1.JobExecutor", out.split())
        self.check_text_sample("list", out)
        out = self.run_ok("describe")
        grpcurl = [c for c in self.blocks["describe"][0] if c.startswith("grpcurl ")][0]
        service = argv_of(grpcurl)[-1]
        methods = [l.rpartition("/")[2] for l in out.split() if l.startswith(service + "/")]
        self.assertEqual(sorted(methods), ["Cancel", "CreateSchedule", "DeleteSchedule", "Events",
                                           "FollowOutput", "GetSchedule", "ListJobs", "ListSchedules",
                                           "Output", "ProxyUi",
                                           "RunScheduleNow", "Status", "Submit",
                                           "UpdateSchedule", "UploadArtifacts", "WatchStatus"])
        self.check_text_sample("describe", out)

    def test_health_needs_no_token(self):
        out = self.run_ok("health")
        self.assertNotIn("authorization", self.buf_command("health"))
        answer = json.loads(out)
        self.assertEqual(answer, {"status": "SERVING"})
        self.check_json_sample("health", [answer])

    def test_a_call_without_the_token_is_unauthenticated(self):
        command = self.buf_command("unauthenticated")
        self.assertNotIn("authorization", command)
        code, out, err = self.run_command(command)
        self.assertEqual(code, BUF_UNAUTHENTICATED_EXIT, out + err)
        self.assertEqual(out, "")
        error = json.loads(err)
        self.assertEqual(error["code"], "unauthenticated")
        self.check_json_sample("unauthenticated", [error])

    # --- a job from Submit to its log -----------------------------------------------------------

    def test_job_lifecycle(self):
        answer = json.loads(self.run_ok("submit"))
        self.assertEqual(answer, {"executionId": EXECUTION_ID})
        self.check_json_sample("submit", [answer])

        # Both streams run while the job does, as an operator would watch it.
        watch = self.start(self.buf_command("watch"))
        follow = self.start(self.buf_command("follow"))
        results = {}

        def collect(name, proc):
            try:
                results[name] = (*proc.communicate(timeout=STREAM_TIMEOUT), proc.returncode)
            except subprocess.TimeoutExpired:
                proc.kill()
                results[name] = (*proc.communicate(), "timeout")
        threads = [threading.Thread(target=collect, args=(n, p))
                   for n, p in (("watch", watch), ("follow", follow))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        out, err, code = results["watch"]
        self.assertEqual(code, 0, out + err)
        infos = json_stream(out)
        self.assertGreaterEqual(len(infos), 2, out)
        self.assertEqual({i["executionId"] for i in infos}, {EXECUTION_ID})
        self.assertEqual(infos[-1]["status"], "SUCCEEDED")
        self.assertNotIn("SUCCEEDED", [i["status"] for i in infos[:-1]])
        self.assertIn("finishedAt", infos[-1])
        self.check_json_sample("watch", infos)

        out, err, code = results["follow"]
        self.assertEqual(code, 0, out + err)
        chunks = json_stream(out)
        lines = [l for c in chunks for l in c["lines"]]
        self.assertTrue(any(l.startswith("Pi is roughly 3.1") for l in lines), lines)
        self.check_json_sample("follow", chunks)

        info = json.loads(self.run_ok("status"))
        self.assertEqual(info["executionId"], EXECUTION_ID)
        self.assertEqual(info["status"], "SUCCEEDED")
        self.assertEqual(info["jobId"], "42")
        self.check_json_sample("status", [info])

        output = json.loads(self.run_ok("output"))
        max_lines = json.loads(argv_of(self.buf_command("output"))[-2])["max_lines"]
        self.assertLessEqual(len(output["lines"]), max_lines)
        self.assertTrue(output.get("truncated"), output)
        self.assertTrue(any(l.startswith("Pi is roughly") for l in output["lines"]), output)
        self.assertEqual(output["lines"][-1], lines[-1])
        self.check_json_sample("output", [output])

        listed = json.loads(self.run_ok("list-jobs"))
        self.assertEqual([j["executionId"] for j in listed["jobs"]], [EXECUTION_ID])
        self.assertEqual(listed["jobs"][0]["status"], "SUCCEEDED")
        self.check_json_sample("list-jobs", listed["jobs"] + [listed])

        events = json.loads(self.run_ok("events"))
        # The answer is Kubernetes' own: the same events a direct LIST of each object gives.
        from kubernetes import client, config
        core = client.CoreV1Api(config.new_client_from_config(config_file=self.kubeconfig))

        def listed(kind, name):
            return core.list_namespaced_event(
                "default", field_selector="involvedObject.kind=%s,involvedObject.name=%s"
                % (kind, name)).items
        expected = listed("SparkApplication", info["name"])
        if info.get("driverPod"):
            expected += listed("Pod", info["driverPod"])
        self.assertEqual(sorted(e["reason"] for e in events.get("events", [])),
                         sorted(e.reason for e in expected))
        if events.get("events"):
            self.check_json_sample("events", events["events"] + [events])

        # The README says a second Submit of job 42 adopts the application.
        again = json.loads(self.run_ok("submit"))
        self.assertEqual(again, {"executionId": EXECUTION_ID, "adopted": True})

        metrics = self.run_ok("metrics", self.blocks["metrics"][0][0])
        self.assertRegex(metrics, r'grpc_server_handled_total\{grpc_code="OK",grpc_method="Submit",'
                         r'grpc_service="jobexecutor.v1.JobExecutor",grpc_type="unary"\} [1-9]')
        self.assertNotIn("gravitino-job-42", metrics)

    def test_cancel_a_running_job(self):
        # Job 43, submitted with the README's own request, made to run a minute (kubesim's knob)
        # so that the Cancel surely finds it running.
        submit = self.buf_command("submit")
        for old, new in (('"job_id":"42"', '"job_id":"43"'),
                         ('"configs":{', '"configs":{"kubesim.durationMs":"60000",')):
            self.assertIn(old, submit)
            submit = submit.replace(old, new)
        cancel_id = EXECUTION_ID.replace("-42", "-43")
        self.assertEqual(json.loads(self.run_ok("submit", submit)), {"executionId": cancel_id})
        cancel = self.buf_command("cancel")
        self.assertIn(EXECUTION_ID, cancel)
        answer = json.loads(self.run_ok("cancel", cancel.replace(EXECUTION_ID, cancel_id)))
        self.assertEqual(answer, {})
        self.check_json_sample("cancel", [answer])

        from kubernetes import client, config
        from kubernetes.client.rest import ApiException
        api_client = config.new_client_from_config(config_file=self.kubeconfig)
        self.addCleanup(api_client.close)
        self.addCleanup(api_client.rest_client.pool_manager.clear)
        custom = client.CustomObjectsApi(api_client)

        def cancelled():
            try:
                app = custom.get_namespaced_custom_object(
                    kje.OPERATOR_UNDER_TEST.group, kje.OPERATOR_UNDER_TEST.version, "default",
                    "sparkapplications", "gravitino-job-43")
            except ApiException as e:
                return e.status == 404
            return (app["metadata"].get("annotations", {}).get(
                "gravitino.apache.org/cancel-requested") == "true" and
                "deletionTimestamp" in app["metadata"])
        kje.wait_until(cancelled, 30, "job 43 to be marked and deleted")
        status = self.buf_command("status").replace(EXECUTION_ID, cancel_id)
        code, out, err = self.run_command(status)
        if code == 0:
            self.assertIn(json.loads(out)["status"], ("CANCELLING", "CANCELLED"))
        else:
            self.assertEqual(json.loads(err)["code"], "not_found", err)

    # --- schedules ------------------------------------------------------------------------------

    def test_schedules(self):
        if kje.OPERATOR != "kubeflow":
            # Every schedule RPC refuses, naming the operator the server runs.
            for name in SCHEDULE_BLOCKS:
                with self.subTest(block=name):
                    code, out, err = self.run_command(self.buf_command(name))
                    self.assertEqual(code, BUF_FAILED_PRECONDITION_EXIT, out + err)
                    error = json.loads(err)
                    self.assertEqual(error["code"], "failed_precondition")
                    self.assertIn("kubeflow/spark-operator", error["message"])
                    self.assertIn("spark.apache.org/v1", error["message"])
            return
        created = json.loads(self.run_ok("create-schedule"))
        self.assertEqual(created["scheduleId"], "nightly")
        self.assertEqual(created["spec"]["concurrencyPolicy"], "FORBID")
        self.check_json_sample("create-schedule", [created])
        again = json.loads(self.run_ok("create-schedule"))
        self.assertTrue(again.get("adopted"), again)

        run = json.loads(self.run_ok("run-schedule"))
        self.assertEqual(run, {"executionId": EXECUTION_ID.replace("-42", "-nightly-rbackfill1")})
        self.check_json_sample("run-schedule", [run])
        self.assertEqual(json.loads(self.run_ok("run-schedule")),
                         dict(run, adopted=True))

        def finished_run():
            schedule = json.loads(self.run_ok("get-schedule"))
            runs = schedule.get("runs", [])
            if runs and runs[0]["status"] == "SUCCEEDED":
                return schedule
            return None
        schedule = kje.wait_until(finished_run, STREAM_TIMEOUT, "the run to succeed")
        self.assertEqual([r["executionId"] for r in schedule["runs"]], [run["executionId"]])
        self.assertEqual(schedule["runs"][0]["attempts"], 1)
        self.assertEqual(schedule["scheduleState"], "Scheduled")
        self.check_json_sample("get-schedule", [schedule])
        sample_runs = json_stream(self.blocks["get-schedule"][1])[0]["runs"]
        self.assertLessEqual(set(sample_runs[0]), set(schedule["runs"][0]))

        listed = json.loads(self.run_ok("list-schedules"))
        self.assertEqual([x["scheduleId"] for x in listed["schedules"]], ["nightly"])
        self.check_json_sample("list-schedules", listed["schedules"] + [listed])

        updated = json.loads(self.run_ok("update-schedule"))
        self.assertEqual(updated["spec"]["schedule"], "30 1 * * *")
        self.assertEqual(updated["spec"]["timeZone"], "Europe/Berlin")
        self.check_json_sample("update-schedule", [updated])
        # nextRun is cleared for the controller to compute again from the new cron, at once:
        # 01:30 in Berlin is 00:30 or 23:30 UTC, by daylight saving time.
        self.assertNotIn("nextRun", updated)
        kje.wait_until(lambda: re.search(r"T(00|23):30:00Z$", json.loads(
            self.run_ok("get-schedule")).get("nextRun", "")), STREAM_TIMEOUT, "the new nextRun")

        deleted = json.loads(self.run_ok("delete-schedule"))
        self.assertEqual(deleted, {"existed": True})
        self.check_json_sample("delete-schedule", [deleted])
        code, out, err = self.run_command(self.buf_command("get-schedule"))
        self.assertNotEqual(code, 0, out)
        self.assertEqual(json.loads(err)["code"], "not_found", err)
        # Again: still OK (a retry is safe), and the answer says there was nothing to delete.
        self.assertEqual(json.loads(self.run_ok("delete-schedule")), {"existed": False})

    # --- the CLI --------------------------------------------------------------------------------

    def test_cli_example(self):
        commands, _ = self.blocks["cli"]
        script = "\n".join(self.local(c) for c in commands)
        self.assertIn("k8s-job-executor watch", script)
        code, out, err = self.run_command_script(script)
        self.assertEqual(code, 0, out + err)
        self.assertTrue(any(l.startswith("Pi is roughly 3.1") for l in out.splitlines()), out)
        self.assertIn("SUCCEEDED", out)

    def run_command_script(self, script):
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.dir,
                                env=self.env, capture_output=True, text=True,
                                timeout=STREAM_TIMEOUT)
        return result.returncode, result.stdout, result.stderr


if __name__ == "__main__":
    unittest.main(verbosity=2)
