"""The Helm chart deploy/helm/k8s-job-executor, checked the way a cluster would meet it.

helm comes from scripts/fetch-tools.sh (no Debian package has it); when it can't be had, every
test fails with the reason. `helm lint --strict` runs in both modes; `helm template` renders many
value sets, and the manifests are checked for what would break or over-privilege the service:
RBAC is exactly the rights the executor uses, in each job namespace; the probes hit the port the
server listens on; the security context holds; the ConfigMap is a configuration the real binary
accepts; the sidecar mode renders no workload and a container a parent chart can embed.
"""

import copy
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

import yaml

SOURCE_DIR = os.environ["KJE_SOURCE_DIR"]
BINARY = os.environ["KJE_BINARY"]
CHART = os.path.join(SOURCE_DIR, "deploy", "helm", "k8s-job-executor")
FETCH_TOOLS = os.path.join(SOURCE_DIR, "scripts", "fetch-tools.sh")

RELEASE = "rel"
RELEASE_NAMESPACE = "catalog"
FULLNAME = "rel-k8s-job-executor"
CONFIG_PATH = "/etc/k8s-job-executor/config/config.yaml"

# The rights the executor needs in a job namespace, as (apiGroup, resource, verb): nothing more.
# tests/e2e/rbac_test.py proves each against kubesim's RBAC: the service works with exactly these,
# and the removal of any one breaks a named behaviour.
def expected_rules(group, pod_verbs):
    return frozenset(
        [(group, "sparkapplications", v)
         for v in ("create", "get", "list", "watch", "patch", "delete")]
        + [("", "pods", v) for v in pod_verbs]
        + [("", "pods/log", "get"), ("", "pods/proxy", "get"), ("", "events", "list")]
        # The kept record of an ended job (output.keep, on by default).
        + [("", "configmaps", v) for v in ("create", "get")])


EXPECTED_RULES = expected_rules("spark.apache.org", ("list", "delete"))
# With config.operator kubeflow: the same rights on kubeflow/spark-operator's resource, none on the
# Apache operator's (pods are deleted by a Cancel that keeps the record: the executors that
# operator leaves behind on suspend).
EXPECTED_RULES_KUBEFLOW = expected_rules("sparkoperator.k8s.io", ("list", "delete")) | frozenset(
    [("sparkoperator.k8s.io", "scheduledsparkapplications", v)
     for v in ("create", "get", "list", "patch", "delete")]
    + [("sparkoperator.k8s.io", "scheduledsparkapplications/status", "patch")])

MINIMAL = {"config": {"spark": {"image": "apache/spark:3.5.5", "sparkVersion": "3.5.5"}}}

# The binary in the image (Dockerfile), which exec probes run.
IMAGE_BINARY = "/usr/local/bin/k8s-job-executor"
# The probes the chart renders by default, and the health service each checks.
PROBE_SERVICES = {"livenessProbe": "liveness", "readinessProbe": "jobexecutor.v1.JobExecutor"}

_helm = None
_helm_error = None
_helm_env = None
_home = tempfile.mkdtemp(prefix="kje-helm-test-")


def setUpModule():
    global _helm, _helm_error, _helm_env
    try:
        out = subprocess.run([FETCH_TOOLS, "--print-path", "helm"], capture_output=True, text=True,
                             timeout=540)
    except subprocess.TimeoutExpired:
        _helm_error = "scripts/fetch-tools.sh --print-path helm timed out"
        return
    if out.returncode != 0:
        _helm_error = ("can't get helm: scripts/fetch-tools.sh --print-path helm failed (%d):\n%s"
                       % (out.returncode, out.stderr))
        return
    _helm = out.stdout.strip()
    # helm keeps caches and repositories under these; nothing of the user's is touched or read.
    _helm_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": _home,
                 "HELM_CACHE_HOME": os.path.join(_home, "cache"),
                 "HELM_CONFIG_HOME": os.path.join(_home, "config"),
                 "HELM_DATA_HOME": os.path.join(_home, "data")}


def tearDownModule():
    shutil.rmtree(_home, ignore_errors=True)


def merged(*overrides):
    """MINIMAL with overrides deep-merged in order."""
    def merge(dst, src):
        for k, v in src.items():
            if isinstance(v, dict) and isinstance(dst.get(k), dict):
                merge(dst[k], v)
            else:
                dst[k] = copy.deepcopy(v)
    out = copy.deepcopy(MINIMAL)
    for o in overrides:
        merge(out, o)
    return out


def helm(*args, chart=CHART):
    if _helm is None:
        raise AssertionError(_helm_error)
    return subprocess.run([_helm, *args], capture_output=True, text=True, timeout=60,
                          env=_helm_env, cwd=chart)


def _values_file(values):
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=_home, delete=False)
    yaml.safe_dump(values, f)
    f.close()
    return f.name


def render_raw(values, chart=CHART, namespace=RELEASE_NAMESPACE):
    return helm("template", RELEASE, ".", "--namespace", namespace, "--values",
                _values_file(values), chart=chart)


def render(values, **kw):
    out = render_raw(values, **kw)
    if out.returncode != 0:
        raise AssertionError("helm template failed:\n" + out.stderr)
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def of_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def one(docs, kind, name=None):
    found = [d for d in of_kind(docs, kind) if name is None or d["metadata"]["name"] == name]
    assert len(found) == 1, "expected one %s %s, got %d" % (kind, name or "", len(found))
    return found[0]


def config_of(docs):
    cm = one(docs, "ConfigMap", FULLNAME)
    return yaml.safe_load(cm["data"]["config.yaml"]), cm["data"]["config.yaml"]


def executor_container(pod_spec):
    found = [c for c in pod_spec["containers"] if c["name"] == "k8s-job-executor"]
    assert len(found) == 1, "no single k8s-job-executor container"
    return found[0]


def deployment_pod(docs):
    return one(docs, "Deployment", FULLNAME)["spec"]["template"]["spec"]


def sidecar_spec(docs):
    cm = one(docs, "ConfigMap", FULLNAME + "-sidecar")
    return yaml.safe_load(cm["data"]["sidecar.yaml"])


def port_of(host_port):
    return int(host_port.rsplit(":", 1)[1])


def host_of(host_port):
    return host_port.rsplit(":", 1)[0]


def rule_tuples(rules):
    out = set()
    for r in rules:
        assert set(r) <= {"apiGroups", "resources", "verbs"}, "unexpected rule fields: %s" % r
        for g in r["apiGroups"]:
            for res in r["resources"]:
                for v in r["verbs"]:
                    out.add((g, res, v))
    return out


def flatten(node, prefix=""):
    """Dotted keys of a config map, as the server flattens it (lists are leaves)."""
    keys = {}
    for k, v in node.items():
        full = prefix + "." + k if prefix else k
        if isinstance(v, dict) and not full.startswith("spark.conf"):
            keys.update(flatten(v, full))
        elif isinstance(v, dict):
            for ck, cv in v.items():
                keys["spark.conf." + ck] = cv
        else:
            keys[full] = v
    return keys


def free_port():
    """A port that was free a moment ago. The chart needs a number before the server binds it,
    so the test retries if another process takes it in between."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# An API server that isn't there: the server starts, serves health and metrics, and its
# informers retry in the background.
UNREACHABLE_KUBECONFIG = """apiVersion: v1
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
"""


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_certificates(d, server_san="DNS:localhost,IP:127.0.0.1"):
    """In d: ca.crt, a server certificate for `server_san` and a client certificate it signed, a
    token, and other-ca.crt, which signed neither."""
    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", f"{d}/{ca}.key", "-out", f"{d}/{ca}.crt", "-days", "2",
                "-subj", f"/CN=kje test {ca}")
    for leaf, ext in (("server", "subjectAltName=%s\nextendedKeyUsage=serverAuth" % server_san),
                      ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", f"{d}/{leaf}.key", "-out", f"{d}/{leaf}.csr", "-subj", f"/CN={leaf}")
        with open(f"{d}/{leaf}.ext", "w") as f:
            f.write(ext + "\n")
        openssl("x509", "-req", "-in", f"{d}/{leaf}.csr", "-CA", f"{d}/ca.crt", "-CAkey",
                f"{d}/ca.key", "-CAcreateserial", "-out", f"{d}/{leaf}.crt", "-days", "2",
                "-extfile", f"{d}/{leaf}.ext")
    with open(f"{d}/token", "w") as f:
        f.write("probe-test-token\n")


def known_config_keys():
    """The keys of the server's key table: each row is Key<field>("name", reader, validator)."""
    with open(os.path.join(SOURCE_DIR, "server", "config_keys.cc")) as f:
        text = f.read()
    keys = set(re.findall(r'Key<[^>]*>\(\s*"([A-Za-z.]+)"', text))
    assert "server.listen" in keys and "spark.image" in keys, keys
    return keys


class HelmTest(unittest.TestCase):

    def test_app_version_is_the_project_version(self):
        with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
            project = re.search(r"project\(\S+ VERSION (\S+)", f.read()).group(1)
        with open(os.path.join(CHART, "Chart.yaml")) as f:
            chart = yaml.safe_load(f)
        self.assertEqual("v2", chart["apiVersion"])
        self.assertEqual(project, str(chart["appVersion"]))
        image = executor_container(deployment_pod(render(MINIMAL)))["image"]
        self.assertEqual("k8s-job-executor:" + project, image)

    def test_lint_strict_in_both_modes(self):
        for values in ("ci/deployment-values.yaml", "ci/sidecar-values.yaml"):
            out = helm("lint", "--strict", ".", "--values", values)
            self.assertEqual(0, out.returncode, values + ":\n" + out.stdout + out.stderr)
        # The same lint finds a template that renders broken YAML.
        with tempfile.TemporaryDirectory(dir=_home) as d:
            broken = os.path.join(d, "k8s-job-executor")
            shutil.copytree(CHART, broken)
            with open(os.path.join(broken, "templates", "service.yaml"), "a") as f:
                f.write("  selector: [unclosed\n")
            out = helm("lint", "--strict", ".", "--values", "ci/deployment-values.yaml",
                       chart=broken)
            self.assertNotEqual(0, out.returncode, out.stdout)
            self.assertIn("service.yaml", out.stdout + out.stderr)

    def test_a_misspelt_value_is_refused_before_anything_is_installed(self):
        # values.schema.json: config's keys are the server's own key table (a C++ test keeps
        # them equal), so a typo fails the install instead of crash-looping the pod.
        for values, wanted in (({"config": {"spark": {"imag": "apache/spark:4.0.0"}}}, "imag"),
                               ({"config": {"server": {"logLevl": "debug"}}}, "logLevl"),
                               ({"replicaCont": 2}, "replicaCont")):
            out = render_raw(merged(values))
            self.assertNotEqual(0, out.returncode, out.stdout)
            self.assertIn("values don't meet the specifications of the schema", out.stderr)
            self.assertIn(wanted, out.stderr)
        # Any Spark conf key, and the values the server reads, pass.
        render(merged({"config": {"spark": {"conf": {"spark.executor.instances": 2}},
                                  "maxQueuedSeconds": 600, "queue": {"scheduler": "kueue"}}}))

    def test_every_value_is_documented(self):
        with open(os.path.join(CHART, "values.yaml")) as f:
            text = f.read()
        values = yaml.safe_load(text)
        params = re.findall(r"(?m)^## @param (\S+) \S", text)
        self.assertEqual(len(params), len(set(params)), "a @param is documented twice")

        def leaves(node, prefix=""):
            for k, v in node.items():
                path = prefix + k
                if isinstance(v, dict) and v and path not in params:
                    yield from leaves(v, path + ".")
                else:
                    yield path
        undocumented = [p for p in leaves(values) if p not in params]
        self.assertEqual([], undocumented, "values without a ## @param")
        for p in params:
            node = values
            for part in p.split("."):
                self.assertIn(part, node, "@param %s names no value" % p)
                node = node[part]
        with open(os.path.join(CHART, "README.md")) as f:
            readme = f.read()
        missing = [p for p in params if "| `%s` |" % p not in readme]
        self.assertEqual([], missing, "values missing from the README's table")

    def test_deployment_mode_renders_the_workload(self):
        docs = render(MINIMAL)
        kinds = sorted(d["kind"] for d in docs)
        self.assertEqual(sorted(["ServiceAccount", "ConfigMap", "Role", "RoleBinding", "Service",
                                 "Deployment", "PodDisruptionBudget"]), kinds)
        for d in docs:
            self.assertEqual(RELEASE_NAMESPACE, d["metadata"]["namespace"], d["kind"])
        dep = one(docs, "Deployment")
        self.assertEqual(2, dep["spec"]["replicas"])
        pod_labels = dep["spec"]["template"]["metadata"]["labels"]
        for k, v in dep["spec"]["selector"]["matchLabels"].items():
            self.assertEqual(v, pod_labels.get(k))
        self.assertEqual(dep["spec"]["selector"]["matchLabels"],
                         one(docs, "Service")["spec"]["selector"])
        c = executor_container(deployment_pod(docs))
        self.assertEqual(["serve", "--config", CONFIG_PATH], c["args"])
        # A replica takes traffic once its informers have synced; an explicit value wins.
        config, _ = config_of(docs)
        self.assertIs(config["server"]["readinessRequiresSync"], True)
        config, _ = config_of(render(merged({"config": {"server": {
            "readinessRequiresSync": False}}})))
        self.assertIs(config["server"]["readinessRequiresSync"], False)

    def test_rbac_is_exactly_the_needed_rights_in_each_job_namespace(self):
        cases = [
            ({}, [RELEASE_NAMESPACE]),
            ({"jobNamespaces": ["spark-a", "spark-b", "spark-c"]},
             ["spark-a", "spark-b", "spark-c"]),
            ({"config": {"namespace": "jobs"}}, ["jobs"]),
            ({"jobNamespaces": ["jobs-x", "jobs-y", "jobs-x"], "config": {"namespace": "jobs-y"}},
             ["jobs-x", "jobs-y"]),
        ]
        for override, namespaces in cases:
            with self.subTest(override=override):
                docs = render(merged(override))
                sa = one(docs, "ServiceAccount")["metadata"]
                self.assertEqual(sa["name"], deployment_pod(docs)["serviceAccountName"])
                roles = of_kind(docs, "Role")
                bindings = of_kind(docs, "RoleBinding")
                self.assertEqual(sorted(namespaces),
                                 sorted(r["metadata"]["namespace"] for r in roles))
                self.assertEqual(sorted(namespaces),
                                 sorted(b["metadata"]["namespace"] for b in bindings))
                self.assertEqual([], of_kind(docs, "ClusterRole"))
                self.assertEqual([], of_kind(docs, "ClusterRoleBinding"))
                for role in roles:
                    self.assertEqual(EXPECTED_RULES, rule_tuples(role["rules"]))
                for b in bindings:
                    ns = b["metadata"]["namespace"]
                    role = [r for r in roles if r["metadata"]["namespace"] == ns][0]
                    self.assertEqual({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                      "name": role["metadata"]["name"]}, b["roleRef"])
                    self.assertEqual([{"kind": "ServiceAccount", "name": sa["name"],
                                       "namespace": sa["namespace"]}], b["subjects"])
                # Submit is allowed exactly where the executor has rights, default included.
                config, _ = config_of(docs)
                self.assertEqual(sorted(namespaces), sorted(config["server"]["allowedNamespaces"]))
                self.assertIn(config["namespace"], namespaces)

    def test_rbac_follows_the_operator(self):
        for operator, rules in (("apache", EXPECTED_RULES), ("kubeflow", EXPECTED_RULES_KUBEFLOW)):
            with self.subTest(operator=operator):
                docs = render(merged({"jobNamespaces": ["spark-a", "spark-b"],
                                      "config": {"operator": operator}}))
                roles = of_kind(docs, "Role")
                self.assertEqual(2, len(roles))
                for role in roles:
                    self.assertEqual(rules, rule_tuples(role["rules"]))
                config, _ = config_of(docs)
                self.assertEqual(operator, config["operator"])

    def test_rbac_reads_kueue_workloads_only_with_kueue_queues(self):
        workloads = frozenset(("kueue.x-k8s.io", "workloads", v) for v in ("get", "list", "watch"))
        for operator, rules in (("apache", EXPECTED_RULES), ("kubeflow", EXPECTED_RULES_KUBEFLOW)):
            for scheduler in ("none", "kueue", "yunikorn", "volcano"):
                with self.subTest(operator=operator, scheduler=scheduler):
                    docs = render(merged({"config": {"operator": operator,
                                                     "queue": {"scheduler": scheduler}}}))
                    expected = rules | workloads if scheduler == "kueue" else rules
                    for role in of_kind(docs, "Role"):
                        self.assertEqual(expected, rule_tuples(role["rules"]))
                    config, _ = config_of(docs)
                    self.assertEqual(scheduler, config["queue"]["scheduler"])

    def test_rbac_grows_secrets_only_with_environment_secrets(self):
        secrets = frozenset(("", "secrets", v) for v in ("create", "get", "patch", "delete"))
        for operator, rules in (("apache", EXPECTED_RULES), ("kubeflow", EXPECTED_RULES_KUBEFLOW)):
            for enabled in (False, True):
                with self.subTest(operator=operator, enabled=enabled):
                    docs = render(merged({"config": {"operator": operator,
                                                     "spark": {"environmentSecrets": enabled}}}))
                    expected = rules | secrets if enabled else rules
                    for role in of_kind(docs, "Role"):
                        self.assertEqual(expected, rule_tuples(role["rules"]))
                    config, _ = config_of(docs)
                    self.assertEqual(enabled, config["spark"]["environmentSecrets"])

    def test_rbac_and_service_account_can_be_left_to_others(self):
        docs = render(merged({"rbac": {"create": False},
                              "serviceAccount": {"create": False, "name": "gravitino"}}))
        self.assertEqual([], of_kind(docs, "Role") + of_kind(docs, "RoleBinding"))
        self.assertEqual([], of_kind(docs, "ServiceAccount"))
        self.assertEqual("gravitino", deployment_pod(docs)["serviceAccountName"])
        docs = render(merged({"serviceAccount": {"create": False, "name": "gravitino"}}))
        for b in of_kind(docs, "RoleBinding"):
            self.assertEqual("gravitino", b["subjects"][0]["name"])

    def test_probes_are_grpc_on_the_port_the_server_listens_on(self):
        for port in (50051, 6000):
            with self.subTest(port=port):
                docs = render(merged({"grpc": {"port": port}}))
                config, _ = config_of(docs)
                self.assertEqual("0.0.0.0:%d" % port, config["server"]["listen"])
                c = executor_container(deployment_pod(docs))
                grpc_ports = [p for p in c["ports"] if p["name"] == "grpc"]
                self.assertEqual([port], [p["containerPort"] for p in grpc_ports])
                for probe, service in (("livenessProbe", "liveness"),
                                       ("readinessProbe", "jobexecutor.v1.JobExecutor")):
                    self.assertEqual({"port": port, "service": service}, c[probe]["grpc"])
                    self.assertIsInstance(c[probe]["grpc"]["port"], int)  # named ports don't work
                    self.assertNotIn("tcpSocket", c[probe])
                svc = one(docs, "Service")
                grpc_svc = [p for p in svc["spec"]["ports"] if p["name"] == "grpc"][0]
                self.assertEqual("grpc", grpc_svc["targetPort"])
                self.assertEqual("grpc", grpc_svc["appProtocol"])
        c = executor_container(deployment_pod(render(merged(
            {"startupProbe": {"enabled": True}, "livenessProbe": {"enabled": False}}))))
        self.assertNotIn("livenessProbe", c)
        self.assertEqual({"port": 50051, "service": "liveness"}, c["startupProbe"]["grpc"])

    def assert_exec_probes(self, docs, probes=PROBE_SERVICES, health_port=8086):
        """Every probe of `probes` runs the health command against the server's loopback
        health-only port (server.healthListen, plaintext), with the service the probe is for and a
        deadline within the kubelet's timeout, and no TLS flag, file or Secret of its own."""
        config, _ = config_of(docs)
        pod = deployment_pod(docs) if of_kind(docs, "Deployment") else sidecar_spec(docs)
        c = executor_container(pod)
        self.assertEqual(set(probes), {p for p in ("livenessProbe", "readinessProbe",
                                                    "startupProbe") if p in c})
        server = "127.0.0.1:%d" % health_port
        self.assertEqual(server, config["server"]["healthListen"])
        self.assertNotEqual(port_of(config["server"]["listen"]), health_port)
        for probe, service in probes.items():
            spec = c[probe]
            self.assertEqual({"exec"}, set(spec) & {"exec", "grpc", "tcpSocket", "httpGet"})
            command = spec["exec"]["command"]
            timeout = command[7]
            self.assertRegex(timeout, r"^[1-9]\d*s$")
            self.assertGreaterEqual(spec["timeoutSeconds"], int(timeout[:-1]))
            self.assertEqual([IMAGE_BINARY, "health", "--server", server, "--service", service,
                              "--timeout", timeout], command)

    def test_tls_turns_the_probes_into_exec_health_checks(self):
        # kubelet's gRPC probe speaks no TLS; a gRPC probe of a TLS port would always fail.
        for port in (50051, 6000):
            with self.subTest(port=port):
                docs = render(merged({"tls": {"enabled": True, "existingSecret": "kje-tls"},
                                      "grpc": {"port": port}, "service": {"grpcPort": port},
                                      "startupProbe": {"enabled": True},
                                      "readinessProbe": {"timeoutSeconds": 5}}))
                probes = dict(PROBE_SERVICES, startupProbe="liveness")
                self.assert_exec_probes(docs, probes)
                c = executor_container(deployment_pod(docs))
                self.assertEqual("4s", c["readinessProbe"]["exec"]["command"][7])
                self.assertEqual("1s", c["livenessProbe"]["exec"]["command"][7])
                self.assertEqual([port], [p["containerPort"] for p in c["ports"]
                                          if p["name"] == "grpc"])
                # The health port is no container port: nothing outside the pod reaches it.
                self.assertNotIn(8086, [p["containerPort"] for p in c["ports"]])
                # The TLS Secret needs only what `kubectl create secret tls` writes.
                tls_volume = [v for v in deployment_pod(docs)["volumes"]
                              if v["name"] == "kje-tls"][0]
                self.assertEqual(["tls.crt", "tls.key"],
                                 [i["path"] for i in tls_volume["secret"]["items"]])
        docs = render(merged({"tls": {"enabled": True, "existingSecret": "kje-tls"},
                              "probes": {"healthPort": 9100}}))
        self.assert_exec_probes(docs, health_port=9100)

    def test_probes_off_mount_no_probe_files(self):
        # A Secret item that isn't in the Secret fails the pod: only the server's files are listed.
        off = {p: {"enabled": False} for p in PROBE_SERVICES}
        docs = render(merged(off, {"tls": {"enabled": True, "existingSecret": "kje-tls",
                                           "clientCa": {"enabled": True}}}))
        pod = deployment_pod(docs)
        c = executor_container(pod)
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            self.assertNotIn(probe, c)
        tls_volume = [v for v in pod["volumes"] if v["name"] == "kje-tls"][0]
        self.assertEqual(["tls.crt", "tls.key", "ca.crt"],
                         [i["path"] for i in tls_volume["secret"]["items"]])
        # No probe, no health port.
        config, _ = config_of(docs)
        self.assertNotIn("healthListen", config["server"])

    def test_mutual_tls_probes_need_no_client_certificate(self):
        for ca_secret, ca_dir in (("", "tls"), ("kje-ca", "client-ca")):
            with self.subTest(client_ca_secret=ca_secret):
                docs = render(merged({"tls": {"enabled": True, "existingSecret": "kje-tls",
                                              "clientCa": {"enabled": True,
                                                           "existingSecret": ca_secret}}}))
                self.assert_exec_probes(docs)
                # The server's own client CA is still where its config points.
                config, _ = config_of(docs)
                self.assertEqual("/etc/k8s-job-executor/%s/ca.crt" % ca_dir,
                                 config["server"]["tls"]["clientCaFile"])
                self.files_in_secrets(deployment_pod(docs),
                                      executor_container(deployment_pod(docs)),
                                      [config["server"]["tls"]["clientCaFile"]])

    def assert_hardened(self, container, pod_security_context=None):
        sc = container["securityContext"]
        self.assertIs(True, sc["runAsNonRoot"])
        self.assertEqual(65532, sc["runAsUser"])
        self.assertEqual(65532, sc["runAsGroup"])
        self.assertIs(True, sc["readOnlyRootFilesystem"])
        self.assertIs(False, sc["allowPrivilegeEscalation"])
        self.assertIs(False, sc.get("privileged", False))
        self.assertEqual(["ALL"], sc["capabilities"]["drop"])
        self.assertNotIn("add", sc["capabilities"])
        self.assertEqual({"type": "RuntimeDefault"}, sc["seccompProfile"])
        if pod_security_context is not None:
            self.assertIs(True, pod_security_context["runAsNonRoot"])
            self.assertEqual(65532, pod_security_context["runAsUser"])
            self.assertEqual({"type": "RuntimeDefault"}, pod_security_context["seccompProfile"])
        # The root filesystem is read-only: /tmp is the one writable place, and bounded.
        mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
        self.assertIn("/tmp", mounts)
        res = container["resources"]
        self.assertTrue(res["requests"]["cpu"])
        self.assertTrue(res["requests"]["memory"])
        self.assertTrue(res["limits"]["memory"])

    def test_security_context_holds(self):
        docs = render(MINIMAL)
        pod = deployment_pod(docs)
        self.assert_hardened(executor_container(pod), pod["securityContext"])
        tmp = [v for v in pod["volumes"] if v["name"] == "kje-tmp"][0]
        self.assertTrue(tmp["emptyDir"]["sizeLimit"])
        self.assertIs(False, pod["enableServiceLinks"])
        self.assertIs(True, pod["automountServiceAccountToken"])  # in-cluster API access
        self.assert_hardened(sidecar_spec(render(merged({"mode": "sidecar"})))["containers"][0])

    def test_config_is_accepted_by_the_server(self):
        known = known_config_keys()
        value_sets = {
            "deployment": MINIMAL,
            "sidecar": merged({"mode": "sidecar"}),
            "namespaces": merged({"jobNamespaces": ["spark-a", "spark-b"],
                                  "config": {"namespace": "spark-b"}}),
            "no-metrics": merged({"metrics": {"enabled": False}}),
            "ipv6": merged({"grpc": {"listenHost": "::"}, "metrics": {"listenHost": "::"}}),

            "spark-conf": merged({"config": {
                "spark": {"conf": {"spark.kubernetes.scheduler.name": "yunikorn"},
                          "ttlAfterStopMs": 12345678901},
                "statusCacheTtlMs": 0}}),
            "tls-token": merged({"tls": {"enabled": True, "existingSecret": "kje-tls",
                                         "clientCa": {"enabled": True}},
                                 "auth": {"token": {"enabled": True,
                                                    "existingSecret": "kje-token"}}}),
            "tls-separate-ca": merged({"tls": {"enabled": True, "existingSecret": "kje-tls",
                                               "clientCa": {"enabled": True,
                                                            "existingSecret": "kje-ca"}}}),
        }
        for name, values in value_sets.items():
            with self.subTest(values=name):
                docs = render(values)
                config, text = config_of(docs)
                self.assertNotRegex(text, r"\de[+-]\d", "a number in float notation")
                for key in flatten(config):
                    if not key.startswith("spark.conf."):
                        self.assertIn(key, known)
                files = self.mounted_files(docs, config)
                result = self.run_server_config_check(text, files)
                self.assertIn("can't use the Kubernetes connection", result, name)
        # The check above can fail: a value the server rejects is reported as such.
        bad = render(merged({"config": {"namePrefix": "Bad_Prefix"}}))
        _, text = config_of(bad)
        self.assertIn("invalid configuration: namePrefix", self.run_server_config_check(text, {}))

    def mounted_files(self, docs, config):
        """The files config names, checked against the pod's mounts: {path in pod: secret key}."""
        pod = deployment_pod(docs) if of_kind(docs, "Deployment") else sidecar_spec(docs)
        c = executor_container(pod)
        server = config["server"]
        paths = [server.get("tokenFile")] + list(server.get("tls", {}).values())
        return self.files_in_secrets(pod, c, filter(None, paths))

    def files_in_secrets(self, pod, c, paths):
        """{path in pod: (Secret, key)}, asserting each path is one item of one mounted Secret."""
        volumes = {v["name"]: v for v in pod["volumes"]}
        files = {}
        for path in paths:
            mount = [m for m in c["volumeMounts"]
                     if path.startswith(m["mountPath"].rstrip("/") + "/")]
            self.assertEqual(1, len(mount), "%s is not in exactly one mount" % path)
            self.assertNotIn("subPath", mount[0])  # a subPath mount never sees a rotated Secret
            secret = volumes[mount[0]["name"]]["secret"]
            item = [i for i in secret["items"]
                    if i["path"] == path[len(mount[0]["mountPath"]) + 1:]]
            self.assertEqual(1, len(item), "%s is not a key of Secret %s" % (path,
                                                                             secret["secretName"]))
            files[path] = (secret["secretName"], item[0]["key"])
        return files

    def run_server_config_check(self, config_text, files):
        """Runs the binary on the config, in an environment with no Kubernetes connection: a valid
        config gets as far as the connection and stops there, before anything listens."""
        with tempfile.TemporaryDirectory(dir=_home) as d:
            for path in files:
                local = os.path.join(d, path.lstrip("/").replace("/", "_"))
                with open(local, "w") as f:
                    f.write("placeholder\n")
                config_text = config_text.replace(path, local)
            path = os.path.join(d, "config.yaml")
            with open(path, "w") as f:
                f.write(config_text)
            out = subprocess.run([BINARY, "serve", "--config", path], capture_output=True,
                                 text=True, timeout=30, env={"HOME": d, "PATH": "/usr/bin:/bin"})
            self.assertEqual(2, out.returncode, out.stderr)
            return out.stderr

    def test_the_server_answers_the_probes_on_the_rendered_ports(self):
        """The real binary, started with the rendered ConfigMap, answers each rendered probe
        exactly as the kubelet sends it (gRPC health Check of the probe's service on the probe's
        port), and serves /metrics on the port named metrics."""
        import grpc  # Debian's python3-grpcio; imported here so the other tests don't need it
        for attempt in range(3):
            grpc_port, metrics_port = free_port(), free_port()
            docs = render(merged({"grpc": {"port": grpc_port}, "metrics": {"port": metrics_port},
                                  "service": {"grpcPort": grpc_port}}))
            _, text = config_of(docs)
            c = executor_container(deployment_pod(docs))
            # Loopback instead of every interface; the ports stay the rendered ones.
            text = text.replace("0.0.0.0:", "127.0.0.1:")
            with tempfile.TemporaryDirectory(dir=_home) as d:
                config = os.path.join(d, "config.yaml")
                with open(config, "w") as f:
                    f.write(text)
                kubeconfig = os.path.join(d, "kubeconfig")
                with open(kubeconfig, "w") as f:
                    f.write(UNREACHABLE_KUBECONFIG)
                log = open(os.path.join(d, "server.log"), "w+")
                proc = subprocess.Popen([BINARY] + c["args"][:-1] + [config], stdout=log,
                                        stderr=subprocess.STDOUT,
                                        env={"HOME": d, "KUBECONFIG": kubeconfig})
                try:
                    answers = {}
                    for probe in ("livenessProbe", "readinessProbe"):
                        spec = c[probe]["grpc"]
                        self.assertEqual(grpc_port, spec["port"])
                        with grpc.insecure_channel("127.0.0.1:%d" % spec["port"]) as channel:
                            check = channel.unary_unary("/grpc.health.v1.Health/Check")
                            request = spec["service"].encode()
                            answers[probe] = check(b"\x0a" + bytes([len(request)]) + request,
                                                   timeout=20, wait_for_ready=True)
                    metrics = [p for p in c["ports"] if p["name"] == "metrics"][0]
                    with urllib.request.urlopen("http://127.0.0.1:%d/metrics"
                                                % metrics["containerPort"], timeout=10) as r:
                        body = r.read(1 << 20).decode()
                except grpc.RpcError:
                    if proc.poll() is not None and attempt < 2:
                        continue  # a port taken between free_port() and the server's bind
                    log.seek(0)
                    raise AssertionError("no health answer; server log:\n" + log.read())
                finally:
                    proc.terminate()
                    proc.wait(30)
                    log.close()
            # HealthCheckResponse{status: SERVING}: field 1, varint 1 (NOT_SERVING: 2). The cluster
            # is unreachable, so the informers never sync: alive, but the replica takes no traffic
            # (readinessRequiresSync, on in Deployment mode).
            self.assertEqual({"livenessProbe": b"\x08\x01", "readinessProbe": b"\x08\x02"},
                             answers)
            self.assertIn("grpc_server_started_total", body)
            return

    def test_the_rendered_exec_probes_pass_against_the_real_server(self):
        """The real binary, started with a rendered TLS (and mutual TLS, and token) config, passes
        each rendered exec probe command, run as the kubelet would with the pod's files mapped to
        a temporary directory: the probes check the loopback health port, so a server certificate
        without `localhost` and a TLS Secret without ca.crt do; that port answers health alone,
        and the gRPC port still refuses plaintext. So does the sidecar's, on loopback."""
        with tempfile.TemporaryDirectory(dir=_home) as d:
            make_certificates(d, server_san="DNS:kje.catalog.svc")
            mtls = {"tls": {"clientCa": {"enabled": True}}}
            sidecar = {"mode": "sidecar", "tls": {"enabled": False}}
            for name, extra in (("tls", {}), ("mtls", mtls), ("sidecar-plaintext", sidecar)):
                with self.subTest(name):
                    self.run_exec_probes(d, extra)

    def run_exec_probes(self, d, extra):
        # The pod's Secret files, as the kubelet writes them: (Secret, key) -> a local file.
        secret_files = {("kje-tls", "tls.crt"): "server.crt", ("kje-tls", "tls.key"): "server.key",
                        ("kje-tls", "ca.crt"): "ca.crt", ("kje-token", "token"): "token"}
        for attempt in range(3):
            port, health_port = free_port(), free_port()
            docs = render(merged({"grpc": {"port": port}, "service": {"grpcPort": port},
                                  "probes": {"healthPort": health_port},
                                  "tls": {"enabled": True, "existingSecret": "kje-tls"},
                                  "auth": {"token": {"enabled": True,
                                                     "existingSecret": "kje-token"}},
                                  "metrics": {"enabled": False},
                                  # The cluster is unreachable here: readiness may not wait for
                                  # the informers, or no probe could pass.
                                  "config": {"server": {"readinessRequiresSync": False}}},
                                 extra))
            config, text = config_of(docs)
            files = self.mounted_files(docs, config)
            pod = deployment_pod(docs) if of_kind(docs, "Deployment") else sidecar_spec(docs)
            c = executor_container(pod)
            commands = {}
            for probe in PROBE_SERVICES:
                command = c[probe]["exec"]["command"]
                self.assertEqual(IMAGE_BINARY, command[0])
                commands[probe] = [BINARY] + command[1:]
            local = {path: os.path.join(d, secret_files[key]) for path, key in files.items()}
            text = text.replace("0.0.0.0:", "127.0.0.1:")
            for path, file in local.items():
                text = text.replace(path, file)
            self.assertNotIn("/etc/k8s-job-executor", text + repr(commands))
            config_path = os.path.join(d, "config.yaml")
            with open(config_path, "w") as f:
                f.write(text)
            kubeconfig = os.path.join(d, "kubeconfig")
            with open(kubeconfig, "w") as f:
                f.write(UNREACHABLE_KUBECONFIG)
            env = {"HOME": d, "PATH": "/usr/bin:/bin"}
            log = open(os.path.join(d, "server.log"), "w+")
            proc = subprocess.Popen([BINARY, "serve", "--config", config_path], stdout=log,
                                    stderr=subprocess.STDOUT, env=dict(env, KUBECONFIG=kubeconfig))
            try:
                # The kubelet repeats a probe until it passes: so does the test, while the server
                # starts, with a deadline.
                deadline = time.monotonic() + 30
                results = {}
                for probe, command in commands.items():
                    while True:
                        out = subprocess.run(command, capture_output=True, text=True, timeout=30,
                                             env=env)
                        if out.returncode == 0 or time.monotonic() > deadline \
                                or proc.poll() is not None:
                            break
                    results[probe] = (out.returncode, out.stdout.strip())
                if proc.poll() is not None and attempt < 2:
                    continue  # a port taken between free_port() and the server's bind
                log.seek(0)
                server_log = log.read()
                self.assertEqual({p: (0, "SERVING") for p in commands}, results, server_log)
                health = "127.0.0.1:%d" % health_port
                # The health port opens nothing else: the job API isn't there, token or not.
                out = subprocess.run([BINARY, "status", "c/sparkapp/default/x", "--server",
                                      health, "--timeout", "10s"],
                                     capture_output=True, text=True, timeout=30, env=env)
                self.assertNotEqual(0, out.returncode, out.stdout)
                self.assertIn("UNIMPLEMENTED", out.stderr)
                if "tls" in config["server"]:
                    # The gRPC port still speaks TLS only: a plaintext check there fails.
                    out = subprocess.run([BINARY, "health", "--server", "127.0.0.1:%d" % port,
                                          "--timeout", "5s"],
                                         capture_output=True, text=True, timeout=30, env=env)
                    self.assertNotEqual(0, out.returncode, out.stdout)
                return
            finally:
                proc.terminate()
                proc.wait(30)
                log.close()
        self.fail("the server didn't start in 3 attempts")

    def test_secrets_are_mounted_where_the_config_points(self):
        docs = render(merged({
            "tls": {"enabled": True, "existingSecret": "kje-tls", "certKey": "cert.pem",
                    "keyKey": "key.pem", "clientCa": {"enabled": True, "existingSecret": "kje-ca",
                                                       "key": "root.pem"}},
            "auth": {"token": {"enabled": True, "existingSecret": "kje-token", "key": "t"}}}))
        config, _ = config_of(docs)
        files = self.mounted_files(docs, config)
        tls = config["server"]["tls"]
        self.assertEqual(("kje-tls", "cert.pem"), files[tls["certFile"]])
        self.assertEqual(("kje-tls", "key.pem"), files[tls["keyFile"]])
        self.assertEqual(("kje-ca", "root.pem"), files[tls["clientCaFile"]])
        self.assertEqual(("kje-token", "t"), files[config["server"]["tokenFile"]])
        # Without them, nothing is mounted and the server runs plaintext without caller auth.
        config, _ = config_of(render(MINIMAL))
        self.assertNotIn("tls", config["server"])
        self.assertNotIn("tokenFile", config["server"])

    def test_metrics_port(self):
        docs = render(merged({"metrics": {"port": 9191}, "service": {"metricsPort": 9292}}))
        config, _ = config_of(docs)
        c = executor_container(deployment_pod(docs))
        metrics = [p for p in c["ports"] if p["name"] == "metrics"]
        self.assertEqual([port_of(config["server"]["metricsListen"])],
                         [p["containerPort"] for p in metrics])
        self.assertEqual(9191, metrics[0]["containerPort"])
        svc = [p for p in one(docs, "Service")["spec"]["ports"] if p["name"] == "metrics"]
        self.assertEqual([(9292, "metrics")], [(p["port"], p["targetPort"]) for p in svc])
        self.assertEqual([], of_kind(docs, "ServiceMonitor"))

        docs = render(merged({"metrics": {"serviceMonitor": {"enabled": True,
                                                             "labels": {"release": "prom"}}}}))
        sm = one(docs, "ServiceMonitor")
        self.assertEqual("prom", sm["metadata"]["labels"]["release"])
        self.assertEqual([("metrics", "/metrics")],
                         [(e["port"], e["path"]) for e in sm["spec"]["endpoints"]])
        self.assertEqual(one(docs, "Service")["spec"]["selector"],
                         sm["spec"]["selector"]["matchLabels"])

        docs = render(merged({"metrics": {"enabled": False}}))
        config, _ = config_of(docs)
        self.assertNotIn("metricsListen", config["server"])
        self.assertEqual(["grpc"], [p["name"] for p in executor_container(
            deployment_pod(docs))["ports"]])
        self.assertEqual(["grpc"], [p["name"] for p in one(docs, "Service")["spec"]["ports"]])

    def test_the_grafana_dashboard_is_an_optional_config_map_for_the_sidecar(self):
        dashboards = [d for d in render(MINIMAL) if d["metadata"]["name"].endswith("-dashboard")]
        self.assertEqual([], dashboards)
        docs = render(merged({"metrics": {"grafanaDashboard": {
            "enabled": True, "namespace": "monitoring",
            "annotations": {"grafana_folder": "Spark"}}}}))
        cm = one(docs, "ConfigMap", FULLNAME + "-dashboard")
        self.assertEqual("monitoring", cm["metadata"]["namespace"])
        self.assertEqual("1", cm["metadata"]["labels"]["grafana_dashboard"])
        self.assertEqual("Spark", cm["metadata"]["annotations"]["grafana_folder"])
        path = os.path.join(SOURCE_DIR, "deploy", "grafana", "k8s-job-executor.json")
        with open(path) as f:
            shipped = json.load(f)
        self.assertEqual(shipped, json.loads(cm["data"]["k8s-job-executor.json"]))
        # Without metrics there is nothing for it to show.
        docs = render(merged({"metrics": {"enabled": False, "grafanaDashboard": {"enabled": True}}}))
        self.assertEqual([], [d for d in docs if d["metadata"]["name"].endswith("-dashboard")])

    def test_pod_disruption_budget(self):
        cases = [({"replicaCount": 1}, False), ({"replicaCount": 2}, True),
                 ({"replicaCount": 1, "podDisruptionBudget": {"enabled": True}}, True),
                 ({"replicaCount": 3, "podDisruptionBudget": {"enabled": False}}, False),
                 ({"mode": "sidecar", "podDisruptionBudget": {"enabled": True}}, False)]
        for override, expected in cases:
            with self.subTest(override=override):
                docs = render(merged(override))
                self.assertEqual(expected, len(of_kind(docs, "PodDisruptionBudget")) == 1)
                if expected:
                    pdb = one(docs, "PodDisruptionBudget")
                    self.assertEqual(1, pdb["spec"]["maxUnavailable"])
                    pod_labels = one(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
                    for k, v in pdb["spec"]["selector"]["matchLabels"].items():
                        self.assertEqual(v, pod_labels.get(k))
        pdb = one(render(merged({"podDisruptionBudget": {"minAvailable": 1}})),
                  "PodDisruptionBudget")
        self.assertEqual({"minAvailable"}, set(pdb["spec"]) - {"selector"})

    def test_sidecar_mode_renders_no_workload(self):
        docs = render(merged({"mode": "sidecar"}))
        self.assertEqual(sorted(["ServiceAccount", "ConfigMap", "ConfigMap", "Role",
                                 "RoleBinding"]), sorted(d["kind"] for d in docs))
        config, _ = config_of(docs)
        self.assertEqual("127.0.0.1:50051", config["server"]["listen"])
        self.assertIs(config["server"]["readinessRequiresSync"], False)  # ready at once
        spec = sidecar_spec(docs)
        self.assertEqual(one(docs, "ServiceAccount")["metadata"]["name"],
                         spec["serviceAccountName"])
        c = executor_container(spec)
        self.assertEqual(["serve", "--config", CONFIG_PATH], c["args"])
        # The kubelet probes the pod IP, which loopback never answers: the probes run inside the
        # container. The port isn't reachable from outside the pod, so it isn't declared.
        self.assert_exec_probes(docs)
        self.assertNotIn("kje-grpc", [p["name"] for p in c["ports"]])
        mounted = {m["name"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in spec["volumes"]}
        self.assertEqual(mounted, set(volumes))
        self.assertEqual(FULLNAME, volumes["kje-config"]["configMap"]["name"])

        # Bound to the pod IP, it is probed like the Deployment.
        docs = render(merged({"mode": "sidecar", "grpc": {"listenHost": "0.0.0.0"}}))
        c = executor_container(sidecar_spec(docs))
        self.assertEqual({"port": 50051, "service": "jobexecutor.v1.JobExecutor"}, c["readinessProbe"]["grpc"])
        self.assertIn(50051, [p["containerPort"] for p in c["ports"]])
        config, _ = config_of(docs)
        self.assertEqual("0.0.0.0:50051", config["server"]["listen"])

    def test_sidecar_probes_on_loopback(self):
        cases = [({"grpc": {"port": 7000}}, "127.0.0.1:7000"),
                 ({"grpc": {"listenHost": "127.0.0.2"}}, "127.0.0.2:50051"),
                 ({"grpc": {"listenHost": "::1"}}, "[::1]:50051"),
                 ({"tls": {"enabled": True, "existingSecret": "kje-tls"}}, "127.0.0.1:50051")]
        for override, server in cases:
            with self.subTest(override=override):
                docs = render(merged({"mode": "sidecar"}, override))
                config, _ = config_of(docs)
                self.assertEqual(server, config["server"]["listen"])
                self.assert_exec_probes(docs)
                spec = sidecar_spec(docs)
                self.assertEqual({m["name"] for m in executor_container(spec)["volumeMounts"]},
                                 {v["name"] for v in spec["volumes"]})

    def test_parent_chart_embeds_the_sidecar(self):
        with tempfile.TemporaryDirectory(dir=_home) as parent:
            shutil.copytree(CHART, os.path.join(parent, "charts", "k8s-job-executor"))
            os.makedirs(os.path.join(parent, "templates"))
            with open(os.path.join(parent, "Chart.yaml"), "w") as f:
                yaml.safe_dump({"apiVersion": "v2", "name": "catalog", "version": "1.0.0",
                                "dependencies": [{"name": "k8s-job-executor",
                                                  "version": "0.1.0"}]}, f)
            with open(os.path.join(parent, "templates", "deployment.yaml"), "w") as f:
                f.write("""{{- $kje := index .Subcharts "k8s-job-executor" }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: catalog
spec:
  selector:
    matchLabels: {app: catalog}
  template:
    metadata:
      labels: {app: catalog}
    spec:
      serviceAccountName: {{ include "k8s-job-executor.serviceAccountName" $kje }}
      containers:
        - name: catalog
          image: gravitino
        {{- include "k8s-job-executor.sidecarContainer" $kje | nindent 8 }}
      volumes:
        - name: data
          emptyDir: {}
        {{- include "k8s-job-executor.sidecarVolumes" $kje | nindent 8 }}
""")
            docs = render({"k8s-job-executor": merged({"mode": "sidecar"})}, chart=parent)
        pod = one(docs, "Deployment", "catalog")["spec"]["template"]["spec"]
        self.assertEqual(["catalog", "k8s-job-executor"], [c["name"] for c in pod["containers"]])
        sidecar = sidecar_spec(docs)
        self.assertEqual(sidecar["containers"][0], executor_container(pod))
        self.assertEqual([{"name": "data", "emptyDir": {}}] + sidecar["volumes"], pod["volumes"])
        self.assertEqual(one(docs, "ServiceAccount")["metadata"]["name"],
                         pod["serviceAccountName"])
        self.assertEqual(FULLNAME, one(docs, "ConfigMap", FULLNAME)["metadata"]["name"])

    def test_config_change_rolls_the_pods(self):
        def checksum(values):
            dep = one(render(values), "Deployment")
            return dep["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
        self.assertEqual(checksum(MINIMAL), checksum(MINIMAL))
        self.assertNotEqual(checksum(MINIMAL),
                            checksum(merged({"config": {"server": {"logLevel": "debug"}}})))

    def test_install_notes_warn_of_an_image_no_registry_serves(self):
        # No image is published: the default names none, and the notes say what to do.
        def notes(values):
            out = helm("install", RELEASE, ".", "--dry-run=client", "--namespace",
                       RELEASE_NAMESPACE, "--values", _values_file(values))
            self.assertEqual(0, out.returncode, out.stderr)
            return out.stdout[out.stdout.index("NOTES:"):]
        self.assertIn("names no registry. No image is published", notes(MINIMAL))
        self.assertIn("set image.repository to it", notes(MINIMAL))
        for image in ({"repository": "registry.example.com/platform/k8s-job-executor"},
                      {"registry": "registry.example.com", "repository": "k8s-job-executor"}):
            with self.subTest(image=image):
                self.assertNotIn("No image is published", notes(merged({"image": image})))

    def test_values_that_cannot_work_fail_the_render(self):
        cases = [
            ({"config": {"spark": {"image": ""}}}, "config.spark.image is required"),
            ({"config": {"spark": {"sparkVersion": ""}}}, "config.spark.sparkVersion is required"),
            ({"config": {"server": {"listen": "0.0.0.0:1"}}}, "config.server.listen is set by"),
            ({"config": {"server": {"tokenFile": "/x"}}}, "config.server.tokenFile is set by"),
            ({"config": {"server.allowedNamespaces": ["a"]}},
             "config.server.allowedNamespaces: write configuration keys nested"),
            ({"config": {"spark.image": "x"}}, "config.spark.image: write configuration keys"),
            ({"tls": {"enabled": True}}, "tls.existingSecret is required"),
            ({"tls": {"clientCa": {"enabled": True}}}, "needs tls.enabled"),
            ({"auth": {"token": {"enabled": True}}}, "auth.token.existingSecret is required"),
            ({"jobNamespaces": ["a"], "config": {"namespace": "b"}},
             "must be one of jobNamespaces"),
            ({"jobNamespaces": ["Not_A_Label"]}, "is not a DNS-1123 label"),
            ({"mode": "daemonset"}, "mode must be deployment or sidecar"),
            ({"config": {"server": {"drainTimeoutMs": 30000}}}, "must be below"),
            ({"metrics": {"port": 50051}}, "metrics.port must differ"),
            ({"tls": {"enabled": True, "existingSecret": "kje-tls"},
              "probes": {"healthPort": 50051}}, "probes.healthPort must differ from grpc.port"),
            ({"config": {"server": {"healthListen": "127.0.0.1:1"}}},
             "config.server.healthListen is set by the chart"),
            ({"podDisruptionBudget": {"enabled": "maybe"}}, "podDisruptionBudget.enabled must"),
            ({"config": {"operator": "volcano"}}, "config.operator must be apache or kubeflow"),
        ]
        for override, message in cases:
            with self.subTest(override=override):
                out = render_raw(merged(override))
                self.assertNotEqual(0, out.returncode, out.stdout)
                self.assertIn(message, out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
