#!/usr/bin/python3
"""End-to-end: Debian's python3-kubernetes against kubesim's Kubeflow Spark operator (v2.5.2):
create the example SparkApplication with CustomObjectsApi, watch its states, read its status,
driver pod and log, restart it with a spec change (INVALIDATING), and patch suspend.

Usage: kubeflow_python_client_test.py <kubesim binary> <CRD root>
Exit 77 (skipped) when python3-kubernetes is not installed.
"""

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import yaml
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    print("python3-kubernetes not installed: skipped")
    sys.exit(77)

GROUP, VERSION, PLURAL = "sparkoperator.k8s.io", "v1beta2", "sparkapplications"
NS = "jobs"


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
    kubesim, crds = sys.argv[1:3]
    work = tempfile.mkdtemp(prefix="kubesim-kf-py-")
    proc = None
    try:
        token_file = os.path.join(work, "token")
        with open(token_file, "w") as f:
            f.write(secrets.token_hex(16))
        kubeconfig = os.path.join(work, "kubeconfig")
        out_path = os.path.join(work, "kubesim.out")
        with open(out_path, "w") as out, open(os.path.join(work, "kubesim.err"), "w") as err:
            proc = subprocess.Popen(
                [kubesim, "--listen", "127.0.0.1:0", "--token-file", token_file,
                 "--write-kubeconfig", kubeconfig,
                 "--crd-dir", os.path.join(crds, "kubeflow-spark-operator", "v2.5.2"),
                 "--namespaces", NS, "--operator-namespaces=", "--kubeflow-namespaces", NS,
                 "--time-scale", "20"],
                stdout=out, stderr=err)
        deadline = time.monotonic() + 20
        while "listening on" not in open(out_path).read():
            if proc.poll() is not None or time.monotonic() > deadline:
                fail("kubesim did not become ready")
            time.sleep(0.1)

        api_client = config.new_client_from_config(config_file=kubeconfig)
        custom = client.CustomObjectsApi(api_client)
        core = client.CoreV1Api(api_client)
        with open(os.path.join(crds, "kubeflow-spark-operator", "examples", "spark-pi.yaml")) as f:
            body = yaml.safe_load(f)
        body["metadata"]["namespace"] = NS

        # Every state the operator writes is a watch event.
        rv = custom.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)["metadata"][
            "resourceVersion"]
        states = []

        def watch_app():
            w = watch.Watch()
            for ev in w.stream(custom.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL,
                               resource_version=rv, timeout_seconds=15):
                state = ((ev["object"].get("status") or {}).get("applicationState") or {})
                s = state.get("state")
                if s is not None and (not states or states[-1] != s):
                    states.append(s)
                if s == "COMPLETED":
                    w.stop()

        watcher = threading.Thread(target=watch_app)
        watcher.start()
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, body)
        watcher.join(20)
        if states != ["SUBMITTED", "RUNNING", "SUCCEEDING", "COMPLETED"]:
            fail("watched states: %r" % states)
        print("ok: watch SparkApplication states %s" % states)

        app = custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "spark-pi")
        status = app["status"]
        driver_info = dict(status["driverInfo"])
        # The UI service's cluster IP and port, in kubeadm's service range 10.96.0.0/12.
        if not re.fullmatch(r"10\.(9[6-9]|10[0-9]|11[01])\.\d{1,3}\.\d{1,3}:4040",
                            driver_info.pop("webUIAddress", "")):
            fail("driverInfo.webUIAddress: %r" % status["driverInfo"])
        if driver_info != {"podName": "spark-pi-driver", "webUIPort": 4040,
                           "webUIServiceName": "spark-pi-ui-svc"}:
            fail("driverInfo: %r" % status["driverInfo"])
        if not re.fullmatch(r"spark-[0-9a-f]{32}", status["sparkApplicationId"]):
            fail("sparkApplicationId: %r" % status["sparkApplicationId"])
        if status["executionAttempts"] != 1 or status["submissionAttempts"] != 1:
            fail("attempts: %r" % status)
        for key in ("lastSubmissionAttemptTime", "terminationTime"):
            if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", status[key]):
                fail("%s: %r" % (key, status[key]))
        print("ok: CustomObjectsApi reads the status")

        pod = core.read_namespaced_pod("spark-pi-driver", NS)
        if pod.metadata.labels["sparkoperator.k8s.io/submission-id"] != status["submissionID"]:
            fail("driver submission-id label")
        log = core.read_namespaced_pod_log("spark-pi-driver", NS,
                                           container="spark-kubernetes-driver")
        if "Pi is roughly 3.14" not in log:
            fail("driver log: %r" % log[-300:])
        print("ok: the driver pod and its log")

        # A spec change reruns a COMPLETED app with a fresh status.
        first = status["submissionID"]
        custom.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "spark-pi",
                                              {"spec": {"arguments": ["100"]}})

        def rerun_done():
            s = custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "spark-pi")[
                "status"]
            return s["applicationState"]["state"] == "COMPLETED" and s["submissionID"] != first

        wait_for(20, "the rerun after a spec change", rerun_done)
        s = custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "spark-pi")["status"]
        if s["executionAttempts"] != 1:
            fail("the invalidated app's counters were not reset: %r" % s)
        print("ok: a spec change reruns the app (attempts reset)")

        # Suspend a hanging app through the status-reading client.
        hang = dict(body, metadata={"name": "hang", "namespace": NS})
        hang["spec"] = dict(body["spec"], sparkConf={"kubesim.outcome": "hang"})
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, hang)

        def state_is(name, want):
            return lambda: custom.get_namespaced_custom_object(
                GROUP, VERSION, NS, PLURAL, name).get("status", {}).get(
                    "applicationState", {}).get("state") == want

        wait_for(20, "hang RUNNING", state_is("hang", "RUNNING"))
        custom.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "hang",
                                              {"spec": {"suspend": True}})
        wait_for(20, "hang SUSPENDED", state_is("hang", "SUSPENDED"))
        print("ok: suspend through a merge patch")
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
