#!/usr/bin/python3
"""End-to-end: Debian's python3-kubernetes against kubesim: list and watch custom objects, read
pods and logs, token rotation, client-certificate auth, a 410 on a compacted watch.

Usage: python_client_test.py <kubesim binary> <CRD dir> <examples dir>
Exit 77 (skipped) when python3-kubernetes is not installed.
"""

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import kubernetes
    import yaml
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    print("python3-kubernetes not installed: skipped")
    sys.exit(77)

GROUP, VERSION, PLURAL = "spark.apache.org", "v1", "sparkapplications"


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def wait_for(seconds, what, predicate):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except ApiException:
            pass
        time.sleep(0.2)
    fail("timed out after %ss waiting for %s" % (seconds, what))


def main():
    kubesim, crd_dir, examples = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="kubesim-py-")
    proc = None
    try:
        token_file = os.path.join(work, "token")
        with open(token_file, "w") as f:
            f.write(secrets.token_hex(16))
        kubeconfig = os.path.join(work, "kubeconfig")
        # A client CA and certificate, made with the openssl CLI (independent of kubesim's code).
        ca_key, ca_crt = os.path.join(work, "cca.key"), os.path.join(work, "cca.crt")
        cl_key, cl_csr, cl_crt = (os.path.join(work, n) for n in ("cl.key", "cl.csr", "cl.crt"))
        quiet = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key, "-out", ca_crt,
                        "-days", "2", "-subj", "/CN=test client CA"], **quiet)
        subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", cl_key, "-out", cl_csr, "-subj", "/CN=alice"], **quiet)
        subprocess.run(["openssl", "x509", "-req", "-in", cl_csr, "-CA", ca_crt, "-CAkey", ca_key,
                        "-CAcreateserial", "-out", cl_crt, "-days", "2"], **quiet)

        out_path = os.path.join(work, "kubesim.out")
        with open(out_path, "w") as out, open(os.path.join(work, "kubesim.err"), "w") as err:
            proc = subprocess.Popen(
                [kubesim, "--listen", "127.0.0.1:0", "--token-file", token_file,
                 "--write-kubeconfig", kubeconfig, "--crd-dir", crd_dir, "--client-ca", ca_crt,
                 "--namespaces", "jobs", "--operator-namespaces", "jobs", "--time-scale", "20"],
                stdout=out, stderr=err)
        deadline = time.monotonic() + 20
        while "listening on" not in open(out_path).read():
            if proc.poll() is not None or time.monotonic() > deadline:
                fail("kubesim did not become ready")
            time.sleep(0.1)

        api_client = config.new_client_from_config(config_file=kubeconfig)
        custom = client.CustomObjectsApi(api_client)
        core = client.CoreV1Api(api_client)

        with open(os.path.join(examples, "pi.yaml")) as f:
            body = yaml.safe_load(f)
        # Retained, so the driver pod and its log outlive the run (pi.yaml as shipped releases
        # them and is deleted ttlAfterStopMillis after it stops).
        body["spec"]["applicationTolerations"] = {"resourceRetainPolicy": "Always"}

        # Watch custom objects from now: ADDED, then the operator's MODIFIED status updates.
        listed = custom.list_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL)
        rv = listed["metadata"]["resourceVersion"]
        events = []

        def watch_apps():
            w = watch.Watch()
            for ev in w.stream(custom.list_namespaced_custom_object, GROUP, VERSION, "jobs",
                               PLURAL, resource_version=rv, timeout_seconds=8):
                state = ((ev["object"].get("status") or {}).get("currentState") or {})
                events.append((ev["type"], ev["object"]["metadata"]["name"],
                               state.get("currentStateSummary")))
                if state.get("currentStateSummary") in ("RunningHealthy", "Succeeded",
                                                        "ResourceReleased"):
                    w.stop()

        watcher = threading.Thread(target=watch_apps)
        watcher.start()
        created = custom.create_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL, body)
        if created["metadata"]["name"] != "pi" or not created["metadata"].get("uid"):
            fail("create returned %r" % created["metadata"])
        watcher.join(15)
        if watcher.is_alive():
            fail("the watch did not end at its timeout")
        if not events or events[0][:2] != ("ADDED", "pi"):
            fail("first watch event: %r" % events[:1])
        if not any(t == "MODIFIED" and s for t, _, s in events):
            fail("no MODIFIED event with an operator state: %r" % events)
        print("ok: watch custom objects (%d events, last state %s)" % (len(events), events[-1][2]))

        items = custom.list_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL)["items"]
        if [i["metadata"]["name"] for i in items] != ["pi"]:
            fail("list custom objects: %r" % items)
        got = custom.get_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL, "pi")
        if got["spec"]["mainClass"] != "org.apache.spark.examples.SparkPi":
            fail("get custom object")
        print("ok: list and get custom objects")

        # Paging across two pages.
        for i in range(3):
            b = dict(body, metadata={"name": "page-%d" % i})
            custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, b)
        page1 = custom.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, limit=2)
        cont = page1["metadata"].get("continue")
        if len(page1["items"]) != 2 or not cont:
            fail("first page: %r" % page1["metadata"])
        page2 = custom.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, limit=2,
                                                     _continue=cont)
        names = [i["metadata"]["name"] for i in page1["items"] + page2["items"]]
        if sorted(names) != ["page-0", "page-1", "page-2"]:
            fail("paging: %r" % names)
        print("ok: paged list")

        # Pods and logs through CoreV1Api.
        wait_for(30, "a driver log with Pi", lambda: "Pi is roughly 3." in
                 core.read_namespaced_pod_log("pi-0-driver", "jobs"))
        pods = core.list_namespaced_pod("jobs", label_selector="spark-role=driver")
        if [p.metadata.name for p in pods.items] != ["pi-0-driver"]:
            fail("driver pods: %r" % [p.metadata.name for p in pods.items])
        tail = core.read_namespaced_pod_log("pi-0-driver", "jobs", tail_lines=1)
        if tail.count("\n") > 1:
            fail("tailLines=1 returned %r" % tail)
        print("ok: list pods by label and read the driver log")

        # 404 and 422 as ApiException with a Status body.
        try:
            custom.get_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL, "nope")
            fail("get of a missing object succeeded")
        except ApiException as e:
            if e.status != 404 or '"reason":"NotFound"' not in e.body:
                fail("404: %s %s" % (e.status, e.body))
        try:
            bad = dict(body, metadata={"name": "bad"}, spec={"runtimeVersions": {}})
            custom.create_namespaced_custom_object(GROUP, VERSION, "jobs", PLURAL, bad)
            fail("an invalid object was created")
        except ApiException as e:
            if e.status != 422 or "spec.runtimeVersions.sparkVersion" not in e.body:
                fail("422: %s %s" % (e.status, e.body))
        print("ok: 404 and 422 Status errors")

        # A watch from a compacted resourceVersion gets 410, which the client raises.
        api_client.call_api("/kubesim/compact", "POST", auth_settings=["BearerToken"],
                            _preload_content=False)
        try:
            for _ in watch.Watch().stream(custom.list_namespaced_custom_object, GROUP, VERSION,
                                          "jobs", PLURAL, resource_version=rv,
                                          timeout_seconds=5):
                pass
            fail("a watch from a compacted resourceVersion did not fail")
        except ApiException as e:
            if e.status != 410:
                fail("expected 410, got %s" % e.status)
        print("ok: 410 Gone on a compacted watch")

        # RBAC: typed RBAC objects round-trip, a TokenRequest gives a ServiceAccount a token,
        # and its requests are judged by its bindings, with the API server's 403.
        rbac = client.RbacAuthorizationV1Api(api_client)
        core.create_namespaced_service_account("jobs", client.V1ServiceAccount(
            metadata=client.V1ObjectMeta(name="reader")))
        rbac.create_namespaced_role("jobs", client.V1Role(
            metadata=client.V1ObjectMeta(name="pod-reader"),
            rules=[client.V1PolicyRule(api_groups=[""], resources=["pods", "pods/log"],
                                       verbs=["get", "list"])]))
        rbac.create_namespaced_role_binding("jobs", client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="pod-reader"),
            role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role",
                                      name="pod-reader"),
            subjects=[client.V1Subject(kind="ServiceAccount", name="reader",
                                           namespace="jobs")]))
        role = rbac.read_namespaced_role("pod-reader", "jobs")
        if role.rules[0].resources != ["pods", "pods/log"] or role.rules[0].verbs != ["get", "list"]:
            fail("role round-trip: %r" % role.rules)
        binding = rbac.list_namespaced_role_binding("jobs").items[0]
        if binding.role_ref.name != "pod-reader" or binding.subjects[0].name != "reader":
            fail("binding round-trip: %r" % binding)
        if not [r for r in rbac.list_cluster_role().items if r.metadata.name == "system:discovery"]:
            fail("no bootstrap system:discovery ClusterRole")
        issued = core.create_namespaced_service_account_token("reader", "jobs", client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=["https://kubernetes.default.svc.cluster.local"],
                                           expiration_seconds=600)))
        sa_client = config.new_client_from_config(config_file=kubeconfig)
        sa_client.configuration.api_key["authorization"] = "Bearer " + issued.status.token
        sa_core = client.CoreV1Api(sa_client)
        sa_core.list_namespaced_pod("jobs")
        try:
            client.CustomObjectsApi(sa_client).list_namespaced_custom_object(
                GROUP, VERSION, "jobs", PLURAL)
            fail("the ServiceAccount listed sparkapplications without a binding")
        except ApiException as e:
            status = yaml.safe_load(e.body)
            want = ('sparkapplications.spark.apache.org is forbidden: User '
                    '"system:serviceaccount:jobs:reader" cannot list resource "sparkapplications" '
                    'in API group "spark.apache.org" in the namespace "jobs"')
            if e.status != 403 or status.get("reason") != "Forbidden" or status.get("message") != want:
                fail("forbidden: %s %s" % (e.status, e.body))
        try:
            sa_core.delete_namespaced_pod("pi-0-driver", "jobs")
            fail("the ServiceAccount deleted a pod it may only read")
        except ApiException as e:
            if e.status != 403:
                fail("delete: expected 403, got %s" % e.status)
        print("ok: RBAC objects, TokenRequest and 403s with python-kubernetes")

        # Token rotation: the old token stops working, the new one works.
        with open(token_file, "w") as f:
            f.write(secrets.token_hex(20))
        try:
            core.list_namespace()
            fail("the rotated-out token still works")
        except ApiException as e:
            if e.status != 401:
                fail("rotation: expected 401, got %s" % e.status)
        rotated = config.new_client_from_config(config_file=kubeconfig)
        rotated.configuration.api_key["authorization"] = "Bearer " + open(token_file).read()
        client.CoreV1Api(rotated).list_namespace()
        print("ok: token rotation")

        # Client-certificate authentication without a token.
        conf = client.Configuration()
        conf.host = api_client.configuration.host
        conf.ssl_ca_cert = api_client.configuration.ssl_ca_cert
        conf.cert_file, conf.key_file = cl_crt, cl_key
        names = [n.metadata.name for n in client.CoreV1Api(client.ApiClient(conf))
                 .list_namespace().items]
        if "jobs" not in names:
            fail("client-cert list_namespace: %r" % names)
        print("ok: client-certificate authentication")
        print("ALL PASSED")
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
