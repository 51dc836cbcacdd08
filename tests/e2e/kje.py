"""Helpers for end-to-end tests that drive k8s-job-executor from outside C++, as a catalog server
or a platform engineer would: start the real binary, find its port, talk gRPC to it."""

import atexit
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

# Stubs generated at build time into <build>/python (see proto/CMakeLists.txt).
sys.path.insert(0, os.environ["KJE_PYTHON_STUBS"])

import grpc  # noqa: E402
from health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from reflection.v1alpha import reflection_pb2, reflection_pb2_grpc  # noqa: E402
from google.protobuf import descriptor_pb2  # noqa: E402

BINARY = os.environ["KJE_BINARY"]
SOURCE_DIR = os.environ["KJE_SOURCE_DIR"]
KUBESIM = os.environ.get("KJE_KUBESIM", "")
CRD_DIR = os.path.join(SOURCE_DIR, "crds", "apache-spark-operator", "1.0.0")
# Operator 1.1.0's additions to the 1.0.0 CRD (see crds/apache-spark-operator/README.md).
CRD_OVERLAY_1_1 = os.path.join(SOURCE_DIR, "crds", "apache-spark-operator", "1.1.0-overlay",
                               "sparkapplications-v1-overlay.yaml")
# Sanitizer builds (CMake sets KJE_SANITIZER for them) run several times slower: the deadlines
# tests wait on stretch by this factor (deadlines on conditions, never sleeps).
TIME_SCALE = float(os.environ.get("KJE_TEST_TIME_SCALE",
                                  "4" if os.environ.get("KJE_SANITIZER") else "1"))
RPC_TIMEOUT = 10 * TIME_SCALE
# The backend under test: the server reads the same variable (config key `operator`), so every
# Server started here serves the operator kubesim simulates. CMake runs the suites once per value.
OPERATOR = os.environ.get("K8S_JOB_EXECUTOR_OPERATOR", "apache")
KUBEFLOW_CRD_DIR = os.path.join(SOURCE_DIR, "crds", "kubeflow-spark-operator", "v2.5.2")


class Operator:
    """What a test needs to know of the operator under test: its resource and its pods' labels."""

    def __init__(self, name):
        self.name = name
        if name == "kubeflow":
            self.group, self.version = "sparkoperator.k8s.io", "v1beta2"
            self.app_name_label = "sparkoperator.k8s.io/app-name"
            self.terminal_states = ("COMPLETED", "FAILED")
            # Where a succeeded app rests (until its TTL), and the states of a successful run.
            self.resting_success_state = "COMPLETED"
            self.success_run = ("", "SUBMITTED", "RUNNING", "SUCCEEDING", "COMPLETED")
        else:
            self.group, self.version = "spark.apache.org", "v1"
            self.app_name_label = "spark.operator/spark-app-name"
            self.terminal_states = ("Succeeded", "Failed", "ResourceReleased")
            self.resting_success_state = "TerminatedWithoutReleaseResources"
            self.success_run = None  # the app's own stateTransitionHistory records it

    def recorded_states(self, app):
        """The operator states an app went through, in order, as far as the app tells."""
        if self.success_run is not None:
            return list(self.success_run)
        history = sorted(app["status"]["stateTransitionHistory"].items(),
                         key=lambda kv: int(kv[0]))
        return [h["currentStateSummary"] for _, h in history]

    def kubesim_args(self, operator_namespaces, operator_version):
        """kubesim's flags that load the CRD and run the operator in `operator_namespaces`."""
        if self.name == "kubeflow":
            assert operator_version is None, "operator_version is the Apache operator's"
            return ["--crd-dir", KUBEFLOW_CRD_DIR, "--operator-namespaces=",
                    "--kubeflow-namespaces=" + ",".join(operator_namespaces)]
        return (["--crd-dir", CRD_DIR,
                 "--operator-namespaces=" + ",".join(operator_namespaces)] +
                (["--operator-version", operator_version] if operator_version else []) +
                (["--crd-overlay", CRD_OVERLAY_1_1] if operator_version == "1.1" else []))

    def app_body(self, name, labels, spark_conf, namespace=None):
        """A minimal SparkApplication of this operator, as someone else than the executor makes
        it."""
        metadata = {"name": name, "labels": labels}
        if namespace:
            metadata["namespace"] = namespace
        if self.name == "kubeflow":
            spec = {"type": "Scala", "mode": "cluster", "sparkVersion": "4.0.0",
                    "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
                    "sparkConf": spark_conf, "driver": {}, "executor": {}}
        else:
            spec = {"runtimeVersions": {"sparkVersion": "4.0.0"}, "sparkConf": spark_conf}
        return {"apiVersion": "%s/%s" % (self.group, self.version), "kind": "SparkApplication",
                "metadata": metadata, "spec": spec}


OPERATOR_UNDER_TEST = Operator(OPERATOR)


def wait_until(predicate, timeout, what, interval=0.05):
    """Polls `predicate` until it returns a truthy value (returned) or `timeout` seconds pass.
    Used for outcomes that take the simulated operator time, never to order our own calls."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s (last: %r)" % (timeout, what, last))


class Kubesim:
    """kubesim with the Spark operator, on a free port, with its own CA, token and kubeconfig."""

    def __init__(self, operator_namespaces=("default", "spark-jobs"),
                 namespaces=("spark-jobs", "unwatched"), time_scale=20, extra_args=(),
                 operator_version=None, operator=None):
        assert KUBESIM, "KJE_KUBESIM is not set"
        self.operator = operator or OPERATOR_UNDER_TEST
        self.dir = tempfile.mkdtemp(prefix="kje-e2e-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.token_file = os.path.join(self.dir, "token")
        with open(self.token_file, "w") as f:
            f.write(os.urandom(16).hex())
        self.out_path = os.path.join(self.dir, "kubesim.out")
        self.err = open(os.path.join(self.dir, "kubesim.err"), "w")
        out = open(self.out_path, "w")
        self.proc = subprocess.Popen(
            [KUBESIM, "--listen", "127.0.0.1:0",
             "--token-file", self.token_file, "--write-kubeconfig", self.kubeconfig,
             "--namespaces", ",".join(namespaces),
             "--time-scale", str(time_scale)] + list(extra_args) +
            self.operator.kubesim_args(operator_namespaces, operator_version),
            stdout=out, stderr=self.err)
        out.close()
        atexit.register(self.stop)

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("kubesim exited with %s" % self.proc.returncode)
            with open(self.out_path) as f:
                m = re.search(r"kubesim listening on (https://\S+)", f.read())
            return m and os.path.exists(self.kubeconfig) and m.group(1)
        self.url = wait_until(ready, 20, "kubesim to listen")
        from kubernetes import client, config
        api_client = config.new_client_from_config(config_file=self.kubeconfig)
        self.core = client.CoreV1Api(api_client)
        self.custom = client.CustomObjectsApi(api_client)

    def app(self, namespace, name):
        """The SparkApplication as a dict, or None when it doesn't exist."""
        from kubernetes.client.rest import ApiException
        try:
            return self.custom.get_namespaced_custom_object(
                self.operator.group, self.operator.version, namespace, "sparkapplications", name)
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def apps(self, namespace):
        return self.custom.list_namespaced_custom_object(
            self.operator.group, self.operator.version, namespace, "sparkapplications")["items"]

    def create_app(self, namespace, body):
        return self.custom.create_namespaced_custom_object(
            self.operator.group, self.operator.version, namespace, "sparkapplications", body)

    def driver_pods(self, namespace, app_name):
        return self.core.list_namespaced_pod(
            namespace, label_selector="%s=%s,spark-role=driver"
            % (self.operator.app_name_label, app_name)).items

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)
        if not self.err.closed:
            self.err.close()
        subprocess.run(["rm", "-rf", self.dir])


class Server:
    """A k8s-job-executor process on 127.0.0.1 with an OS-chosen port, read from its log."""

    def __init__(self, args, env=None, start_timeout=20, log_path=None):
        """With `log_path`, the log goes to that file and `lines` reads it back on demand: no
        reader of ours wakes for each line (a benchmark's figures then hold the server's own
        cost, not a Python thread's)."""
        self._lines = []
        self._log_path = log_path
        self._port = None
        self._ready = threading.Event()
        full_env = dict(os.environ)
        # Abseil's lock-order checks, off in production for speed, fail tests on a lock cycle.
        full_env["KJE_MUTEX_DEADLOCK_DETECTION"] = "abort"
        full_env.update(env or {})
        log = open(log_path, "w") if log_path else subprocess.PIPE
        try:
            self.proc = subprocess.Popen(
                [BINARY, "serve", "--listen", "127.0.0.1:0"] + list(args),
                stdout=subprocess.DEVNULL, stderr=log, text=True, env=full_env)
        finally:
            if log_path:
                log.close()
        # Whatever happens to the test, the process doesn't outlive it.
        atexit.register(self.kill)
        self._reader = None
        if log_path:
            try:
                wait_until(lambda: self._find_port() or self.proc.poll() is not None,
                           start_timeout, "the server to log its port")
            except AssertionError:
                pass
            ready = self._port is not None or self.proc.poll() is not None
        else:
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
            ready = self._ready.wait(start_timeout)
        if not ready:
            self.kill()
            raise AssertionError("server did not log its port in time:\n" + "\n".join(self.lines))
        if self._port is None:
            raise AssertionError("server exited before listening:\n" + "\n".join(self.lines))
        self.address = "127.0.0.1:%d" % self._port

    @property
    def lines(self):
        if self._log_path is None:
            return self._lines
        with open(self._log_path) as f:
            return [line.rstrip("\n") for line in f]

    @staticmethod
    def _port_in(line):
        m = (re.search(r"msg=listening .*\bport=(\d+)", line) or
             re.search(r'"msg":"listening".*"port":(\d+)', line))
        return int(m.group(1)) if m else None

    def _find_port(self):
        for line in self.lines:
            port = self._port_in(line)
            if port is not None:
                self._port = port
                return True
        return False

    def _read(self):
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self._lines.append(line)
            port = self._port_in(line)
            if port is not None and self._port is None:
                self._port = port
                self._ready.set()
        self._ready.set()

    def channel(self):
        return grpc.insecure_channel(self.address)

    def metrics_url(self):
        """The /metrics URL of a server started with metricsListen (it logs its port first)."""
        port = None
        for line in self.lines:
            m = (re.search(r'msg="metrics listening" .*\bport=(\d+)', line) or
                 re.search(r'"msg":"metrics listening".*"port":(\d+)', line))
            if m:
                port = int(m.group(1))
        assert port, "no 'metrics listening' line:\n" + "\n".join(self.lines)
        return "http://127.0.0.1:%d/metrics" % port

    def terminate(self, timeout=30):
        """SIGTERM, then the exit code (the reader has consumed all output when this returns)."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout)
        self._close_reader(timeout)
        return code

    def _close_reader(self, timeout):
        if self._reader is None:
            return
        self._reader.join(timeout)
        if not self.proc.stderr.closed:
            self.proc.stderr.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_reader(10)


def health(channel, service=""):
    stub = health_pb2_grpc.HealthStub(channel)
    resp = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=RPC_TIMEOUT)
    return health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)


def _reflect(channel, request):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = list(stub.ServerReflectionInfo(iter([request]), timeout=RPC_TIMEOUT))
    assert len(responses) == 1, responses
    return responses[0]


def list_services(channel):
    resp = _reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
    return sorted(s.name for s in resp.list_services_response.service)


def describe_service(channel, full_name):
    """The service's method names, through file_containing_symbol; raises if not describable."""
    resp = _reflect(channel, reflection_pb2.ServerReflectionRequest(
        file_containing_symbol=full_name))
    if resp.HasField("error_response"):
        raise AssertionError("%s: %s" % (full_name, resp.error_response.error_message))
    package, _, name = full_name.rpartition(".")
    for raw in resp.file_descriptor_response.file_descriptor_proto:
        fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
        if fd.package != package:
            continue
        for svc in fd.service:
            if svc.name == name:
                return [m.name for m in svc.method]
    raise AssertionError("%s not in the returned descriptors" % full_name)


def _kubesim_request(cluster, method, path, body=None):
    """A request to kubesim's own endpoints (faults, stats), authenticated as the kubeconfig is."""
    import base64
    import json
    import ssl
    import urllib.request
    import yaml
    with open(cluster.kubeconfig) as f:
        kc = yaml.safe_load(f)
    ca = base64.b64decode(kc["clusters"][0]["cluster"]["certificate-authority-data"]).decode()
    token = kc["users"][0]["user"]["token"]
    ctx = ssl.create_default_context(cadata=ca)
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(cluster.url + path, data=data, method=method, headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=ctx, timeout=RPC_TIMEOUT) as resp:
        text = resp.read().decode()
        return json.loads(text) if text else None


def add_fault(cluster, fault):
    return _kubesim_request(cluster, "POST", "/kubesim/faults", fault)["id"]


def remove_fault(cluster, fault_id):
    _kubesim_request(cluster, "DELETE", "/kubesim/faults/" + fault_id)


def kubesim_stats(cluster):
    return _kubesim_request(cluster, "GET", "/kubesim/stats")


def unreachable_kubeconfig():
    """A kubeconfig for an API server that isn't there: enough for tests of the process itself
    (health, reflection, configuration), whose informers then just retry in the background."""
    return write_temp("""apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: nobody
  user: {token: not-a-real-token}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
""")


def write_temp(content, suffix=".yaml"):
    f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False)
    f.write(content)
    f.close()
    return f.name
