"""Pods as users need them with no webhook, end to end on either backend: a template mounting a
ConfigMap of Spark config, a PVC for event logs, tolerations and node affinity through the pod
template custom fields, and an environment variable from a Secret, runs to SUCCEEDED; its
driver and executor pods carry all of it (read back with kubectl); the variable's value is in
the Secret only, never in the application, an answer or a server log line; the Secret is owned by
the application; each malformed key is refused with nothing created."""

import json
import os
import subprocess
import unittest

import grpc
import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
NS = "spark-jobs"
SECRET_VALUE = "pa55-w0rd-8c1d4e"
OPERATOR_WAIT = 60

POD_TEMPLATE = {
    "metadata": {"labels": {"team": "analytics"}},
    "spec": {
        "volumes": [
            {"name": "spark-events", "persistentVolumeClaim": {"claimName": "spark-history"}},
            {"name": "log4j", "configMap": {"name": "log4j-conf"}}],
        "containers": [{
            "volumeMounts": [{"name": "spark-events", "mountPath": "/spark-events"},
                             {"name": "log4j", "mountPath": "/etc/log4j", "readOnly": True}]}],
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "spark",
                         "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{
                "key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}]}}},
    },
}


def spark_template(custom_fields, environments=None):
    # Long enough (operator time) for the test to read the executors while they run.
    configs = {"kubesim.outcome": "succeed", "kubesim.durationMs": "60000",
               "spark.executor.instances": "1",
               "spark.eventLog.enabled": "true", "spark.eventLog.dir": "file:///spark-events"}
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["10"], custom_fields=custom_fields, environments=environments or {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=configs))


class PodTemplateTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.config = kje.write_temp("""
kubeconfig: %s
namespace: spark-jobs
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  environmentSecrets: true
server:
  allowedNamespaces: [default, spark-jobs]
""" % cls.cluster.kubeconfig)
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)
        from kubernetes import client
        core = cls.cluster.core
        core.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="log4j-conf"),
            data={"log4j2.properties": "rootLogger.level = info\n"}))
        core.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="spark-defaults"),
            data={"spark-defaults.conf": "spark.ui.enabled false\n"}))
        cls.cluster.custom.api_client.call_api(
            "/api/v1/namespaces/{namespace}/persistentvolumeclaims", "POST",
            path_params={"namespace": NS}, body={
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "spark-history"},
                "spec": {"accessModes": ["ReadWriteMany"],
                         "resources": {"requests": {"storage": "10Gi"}}}},
            auth_settings=["BearerToken"], _return_http_data_only=True)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.terminate()
        cls.cluster.stop()
        os.unlink(cls.config)
        assert code == 0, code

    def submit(self, job_id, template):
        return self.stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                                 template=template), timeout=kje.RPC_TIMEOUT)

    def status(self, execution_id):
        return self.stub.Status(pb.StatusRequest(execution_id=execution_id),
                                timeout=kje.RPC_TIMEOUT)

    def kubectl(self, *args):
        out = subprocess.run(["kubectl", "--kubeconfig", self.cluster.kubeconfig, "-n", NS]
                             + list(args), capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def pod(self, name):
        return json.loads(self.kubectl("get", "pod", name, "-o", "json"))

    def spark_pods(self, app, role):
        label = kje.OPERATOR_UNDER_TEST.app_name_label
        return json.loads(self.kubectl("get", "pods", "-l", "%s=%s,spark-role=%s"
                                       % (label, app, role), "-o", "json"))["items"]

    def assert_customised(self, pod, container_name, secret_name):
        spec = pod["spec"]
        volumes = {v["name"]: v for v in spec["volumes"]}
        self.assertEqual(volumes["spark-events"]["persistentVolumeClaim"]["claimName"],
                         "spark-history")
        self.assertEqual(volumes["log4j"]["configMap"]["name"], "log4j-conf")
        self.assertEqual(volumes["spark-configmap-volume"]["configMap"]["name"], "spark-defaults")
        self.assertIn({"key": "dedicated", "operator": "Equal", "value": "spark",
                       "effect": "NoSchedule"}, spec["tolerations"])
        terms = spec["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        self.assertEqual(terms[0]["matchExpressions"][0]["key"], "kubernetes.io/os")
        self.assertEqual(pod["metadata"]["labels"]["team"], "analytics")
        container = next(c for c in spec["containers"] if c["name"] == container_name)
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        self.assertEqual(mounts["/spark-events"], "spark-events")
        self.assertEqual(mounts["/etc/log4j"], "log4j")
        self.assertEqual(mounts["/etc/spark/conf"], "spark-configmap-volume")
        self.assertIn({"secretRef": {"name": secret_name}}, container["envFrom"])
        # What Spark sets wins over the template: its image and its entry point.
        self.assertEqual(container["image"], "apache/spark:4.0.0")
        self.assertEqual(container["args"][0], container_name.split("-")[-1])
        self.assertNotIn(SECRET_VALUE, json.dumps(pod))

    def test_customised_pods_run_with_no_webhook(self):
        fields = {"podTemplate": json.dumps(POD_TEMPLATE), "sparkConfigMap": "spark-defaults"}
        answer = self.submit("4301", spark_template(fields, {"DB_PASSWORD": SECRET_VALUE}))
        apps = [a for a in self.cluster.apps(NS)
                if a["metadata"]["labels"].get("gravitino.apache.org/job-id") == "4301"]
        self.assertEqual(len(apps), 1)
        app_name = apps[0]["metadata"]["name"]
        secret_name = app_name + "-env"
        # The executors while they run (they may go when the job ends).
        executors = kje.wait_until(lambda: self.spark_pods(app_name, "executor"), OPERATOR_WAIT,
                                   "the executor pods")
        for e in executors:
            self.assert_customised(e, "spark-kubernetes-executor", secret_name)
        info = kje.wait_until(
            lambda: (lambda i: i if i.status in (S.SUCCEEDED, S.FAILED) else None)(
                self.status(answer.execution_id)), OPERATOR_WAIT, "the job to end")
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)
        self.assertNotIn(SECRET_VALUE, str(info))
        app = self.cluster.app(NS, app_name)
        self.assertNotIn(SECRET_VALUE, json.dumps(app))
        # The Secret: the app's labels, owned by the app, the value its only holder.
        secret = json.loads(self.kubectl("get", "secret", secret_name, "-o", "json"))
        self.assertEqual(secret["metadata"]["labels"]["gravitino.apache.org/job-id"], "4301")
        owners = secret["metadata"]["ownerReferences"]
        self.assertEqual([(o["kind"], o["name"], o["uid"]) for o in owners],
                         [("SparkApplication", app_name, app["metadata"]["uid"])])
        self.assertIn(SECRET_VALUE, json.dumps(secret))
        drivers = self.spark_pods(app_name, "driver")
        self.assertEqual(len(drivers), 1)
        self.assert_customised(drivers[0], "spark-kubernetes-driver", secret_name)
        described = self.kubectl("describe", "pod", drivers[0]["metadata"]["name"])
        self.assertIn("spark-history", described)
        self.assertIn("dedicated=spark:NoSchedule", described)
        self.assertNotIn(SECRET_VALUE, described)
        # No answer, object or log line but the Secret holds the value.
        listed = self.stub.ListJobs(pb.ListJobsRequest(), timeout=kje.RPC_TIMEOUT)
        self.assertNotIn(SECRET_VALUE, str(listed))
        output = self.stub.Output(pb.OutputRequest(execution_id=answer.execution_id,
                                                   max_lines=1000), timeout=kje.RPC_TIMEOUT)
        self.assertNotIn(SECRET_VALUE, str(output))
        everything = self.kubectl("get", "sparkapplications,pods,configmaps,events", "-o", "json")
        self.assertNotIn(SECRET_VALUE, everything)
        self.assertFalse([line for line in self.server.lines if SECRET_VALUE in line])
        # A retry of the same job adopts the app and its Secret.
        again = self.submit("4301", spark_template(fields, {"DB_PASSWORD": SECRET_VALUE}))
        self.assertEqual(again.execution_id, answer.execution_id)
        # Deleting the app takes the Secret with it (the garbage collector follows the owner).
        self.kubectl("delete", "sparkapplication", app_name, "--wait=true")
        kje.wait_until(
            lambda: secret_name not in self.kubectl("get", "secrets", "-o", "name"),
            OPERATOR_WAIT, "the Secret to go with its application")

    def test_each_malformed_key_is_refused_with_nothing_created(self):
        bad = [
            ({"podTemplate": "{not json"}, None, "podTemplate"),
            ({"podTemplate.drivr": "{}"}, None, "podTemplate.drivr"),
            ({"podTemplate": json.dumps({"spec": {"hostNetwork": True}})}, None, "hostNetwork"),
            ({"podTemplate.driver": json.dumps({"spec": {"volumes": [
                {"name": "Bad_Name", "emptyDir": {}}]}})}, None, "spec.volumes[0].name"),
            ({"podTemplate.executor": json.dumps({"spec": {"containers": [{"volumeMounts": [
                {"name": "missing", "mountPath": "/x"}]}]}})}, None,
             "spec.containers[0].volumeMounts[0].name"),
            ({"podTemplate": json.dumps({"spec": {"tolerations": [
                {"key": "k", "operator": "Sometimes"}]}})}, None, "spec.tolerations[0].operator"),
            ({"sparkConfigMap": "Not_A_Name"}, None, "sparkConfigMap"),
            ({}, {"1BAD": SECRET_VALUE}, "1BAD"),
        ]
        before_apps = len(self.cluster.apps(NS))
        before_secrets = self.kubectl("get", "secrets", "-o", "name")
        for i, (fields, env, named) in enumerate(bad):
            with self.subTest(named=named):
                with self.assertRaises(grpc.RpcError) as caught:
                    self.submit("43%02d" % (50 + i), spark_template(fields, env))
                self.assertEqual(caught.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
                self.assertIn(named, caught.exception.details())
                self.assertNotIn(SECRET_VALUE, caught.exception.details())
        self.assertEqual(len(self.cluster.apps(NS)), before_apps)
        self.assertEqual(self.kubectl("get", "secrets", "-o", "name"), before_secrets)


if __name__ == "__main__":
    unittest.main()
