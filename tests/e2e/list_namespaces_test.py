"""ListJobs across namespaces (`list -A`) end to end, on either backend: with an allow-list, the
allowed namespaces one after another, through every page; without one, the whole cluster through
a cluster-scope LIST, which a service account bound only to namespaced Roles is refused, with an
error that says what it needs."""

import json
import os
import subprocess
import unittest

import grpc
import kje
import yaml
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

CLI_TIMEOUT = 120
RBAC_GROUP = "rbac.authorization.k8s.io"
# One job in each namespace the operator watches, and one the allow-list leaves out.
JOBS = {"default": "ns-1", "spark-jobs": "ns-2", "unwatched": "ns-3"}


def spark_template(ns):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": "hang", "spark.kubernetes.namespace": ns}))


def server_config(kubeconfig, allowed=None):
    return kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
%s""" % (kubeconfig, "server:\n  allowedNamespaces: [%s]\n" % ", ".join(allowed)
         if allowed else ""))


class ListNamespacesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim(operator_namespaces=("default", "spark-jobs", "unwatched"))
        cls.configs = []
        cls.servers = []
        # Its jobs are made by a server that may name every namespace.
        maker = cls.start_server(cls.cluster.kubeconfig)
        with maker.channel() as channel:
            stub = pb_grpc.JobExecutorStub(channel)
            for ns, job_id in JOBS.items():
                stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake",
                                             template=spark_template(ns)),
                            timeout=kje.RPC_TIMEOUT)

    @classmethod
    def start_server(cls, kubeconfig, allowed=None):
        cls.configs.append(server_config(kubeconfig, allowed))
        server = kje.Server(["--config", cls.configs[-1]])
        cls.servers.append(server)
        return server

    @classmethod
    def tearDownClass(cls):
        codes = [s.terminate() for s in cls.servers]
        cls.cluster.stop()
        for path in cls.configs:
            os.unlink(path)
        assert codes == [0] * len(codes), codes

    def cli(self, server, *args):
        p = subprocess.run([kje.BINARY, *args, "--server", server.address],
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
        return p.returncode, p.stdout, p.stderr

    def list_all(self, server, page_size):
        """Every page of ListJobs(all_namespaces): the jobs' (namespace, job id), page by page."""
        pages = []
        token = ""
        with server.channel() as channel:
            stub = pb_grpc.JobExecutorStub(channel)
            while True:
                r = stub.ListJobs(pb.ListJobsRequest(all_namespaces=True, page_size=page_size,
                                                     page_token=token), timeout=kje.RPC_TIMEOUT)
                pages.append([(j.namespace, j.job_id) for j in r.jobs])
                token = r.next_page_token
                if not token:
                    return pages
                self.assertLess(len(pages), 20, "the pages don't end")

    def test_an_allow_list_is_listed_namespace_by_namespace(self):
        server = self.start_server(self.cluster.kubeconfig, ["spark-jobs", "default"])
        want = [("default", "ns-1"), ("spark-jobs", "ns-2")]
        # The pages in name order; the informers may still be syncing (then from the API server).
        pages = self.list_all(server, 1)
        self.assertEqual(want, [j for page in pages for j in page])
        # The CLI: a NAMESPACE column, and JSON naming each job's namespace.
        code, out, err = self.cli(server, "list", "-A")
        self.assertEqual(0, code, err)
        rows = [l.split() for l in out.splitlines()]
        self.assertEqual(["NAMESPACE", "EXECUTION", "ID"], rows[0][:3])
        self.assertEqual(["default", "spark-jobs"], [r[0] for r in rows[1:]])
        code, out, err = self.cli(server, "list", "-A", "-o", "json", "--page-size", "1")
        self.assertEqual(0, code, err)
        self.assertEqual(want, [(j["namespace"], j["jobId"]) for j in json.loads(out)["jobs"]])
        # A namespace and -A together is the caller's mistake.
        code, _, err = self.cli(server, "list", "-A", "-n", "default")
        self.assertEqual(2, code, err)
        with server.channel() as channel, self.assertRaises(grpc.RpcError) as refused:
            pb_grpc.JobExecutorStub(channel).ListJobs(
                pb.ListJobsRequest(all_namespaces=True, namespace="default"),
                timeout=kje.RPC_TIMEOUT)
        self.assertEqual(grpc.StatusCode.INVALID_ARGUMENT, refused.exception.code())

    def test_without_an_allow_list_the_cluster_is_listed(self):
        server = self.start_server(self.cluster.kubeconfig)
        pages = self.list_all(server, 2)
        self.assertEqual(sorted(JOBS.items()), sorted(j for page in pages for j in page))
        code, out, err = self.cli(server, "list", "-A", "-o", "name")
        self.assertEqual(0, code, err)
        self.assertEqual(3, len(out.split()), out)

    def test_a_service_account_without_a_cluster_role_is_told_what_it_needs(self):
        from kubernetes import client, config
        api = config.new_client_from_config(config_file=self.cluster.kubeconfig)
        core, rbac = client.CoreV1Api(api), client.RbacAuthorizationV1Api(api)
        core.create_namespaced_service_account("default", {"metadata": {"name": "lister"}})
        # Every right in its namespace, none at the cluster scope.
        rbac.create_namespaced_role("default", {
            "metadata": {"name": "lister"},
            "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]})
        rbac.create_namespaced_role_binding("default", {
            "metadata": {"name": "lister"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "lister"},
            "subjects": [{"kind": "ServiceAccount", "name": "lister", "namespace": "default"}]})
        token = core.create_namespaced_service_account_token(
            "lister", "default", client.AuthenticationV1TokenRequest(
                spec=client.V1TokenRequestSpec(
                    audiences=["https://kubernetes.default.svc.cluster.local"],
                    expiration_seconds=3600))).status.token
        api.close()
        with open(self.cluster.kubeconfig) as f:
            kubeconfig = yaml.safe_load(f)
        kubeconfig["users"][0]["user"] = {"token": token}
        self.configs.append(kje.write_temp(yaml.safe_dump(kubeconfig)))
        server = self.start_server(self.configs[-1])
        code, _, err = self.cli(server, "list", "-A")
        self.assertEqual(8, code, err)  # the CLI's exit code for an auth error
        self.assertIn("PERMISSION_DENIED", err)
        self.assertIn("cluster scope", err)
        # Its own namespace still lists.
        code, out, err = self.cli(server, "list", "-n", "default", "-o", "name")
        self.assertEqual(0, code, err)
        self.assertEqual(1, len(out.split()), out)


if __name__ == "__main__":
    unittest.main()
