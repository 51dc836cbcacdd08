"""A template's restart policy, its masked secrets and its metrics, end to end on either backend:
a job whose first attempt fails is retried by the operator and ends SUCCEEDED with attempts 2
(no answer calling it over before), one out of retries ends FAILED; a secret-looking conf value
and arguments reach the pod but no answer, error or log line of the service (the job's own log
shows them masked); the monitoring option lands on the created application and its pods."""

import json
import os
import unittest

import grpc
import kje
from google.protobuf import json_format
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)
OPERATOR_WAIT = 90
CONF_SECRET = "Conf-Secret-7f3a"
ARG_SECRETS = ("Arg-Secret-19c2", "Arg-Secret-5d8e")


def spark_template(configs=None, custom_fields=None, arguments=("10",)):
    all_configs = {"kubesim.durationMs": "1500"}
    all_configs.update(configs or {})
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=list(arguments), custom_fields=custom_fields or {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi", configs=all_configs))


def retrying(retries):
    return {"restartPolicy": "OnFailure", "onFailureRetries": str(retries),
            "onFailureRetryIntervalSeconds": "1"}


class JobOptionsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.log_path = os.path.join(cls.cluster.dir, "server.log")
        cls.config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
  resourceRetainDurationMs: 600000
monitoring:
  expose: driver
  jmxExporterJar: /prometheus/jmx_prometheus_javaagent-1.0.1.jar
  port: 8091
""" % cls.cluster.kubeconfig)
        cls.server = kje.Server(["--config", cls.config, "--set", "server.logLevel=debug"],
                                log_path=cls.log_path)
        cls.channel = cls.server.channel()
        cls.stub = pb_grpc.JobExecutorStub(cls.channel)

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

    def wait_terminal(self, execution_id, seen):
        """Polls Status until it is terminal, recording each answer in `seen`."""
        def poll():
            info = self.status(execution_id)
            seen.append(info)
            return info if info.status in TERMINAL else None
        return kje.wait_until(poll, OPERATOR_WAIT, "%s to finish" % execution_id, interval=0.02)

    def app(self, name):
        app = self.cluster.app("default", name)
        self.assertIsNotNone(app)
        return app

    # --- retries ---------------------------------------------------------------------------------

    def test_a_failed_first_attempt_is_retried_and_succeeds_with_attempts_2(self):
        resp = self.submit("5101", spark_template({"kubesim.failAttempts": "1"}, retrying(1)))
        seen = []
        info = self.wait_terminal(resp.execution_id, seen)
        # No answer called the job over before the retry's outcome: the failed attempt was not
        # final, and the first terminal answer is the success.
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)
        self.assertEqual(info.attempts, 2, info)
        self.assertEqual([S.Name(i.status) for i in seen if i.status in TERMINAL], ["SUCCEEDED"])
        self.assertTrue(any(i.attempts == 1 for i in seen), [i.attempts for i in seen])
        # Output follows the current (second) attempt's driver: SparkPi's result, not the first
        # attempt's exception.
        out = self.stub.Output(pb.OutputRequest(execution_id=resp.execution_id),
                               timeout=kje.RPC_TIMEOUT)
        text = "\n".join(out.lines)
        self.assertIn("Pi is roughly", text)
        self.assertNotIn("the job failed as requested", text)
        # Status names the current attempt's driver.
        app = self.app("gravitino-job-5101")
        if kje.OPERATOR == "kubeflow":
            pod = self.cluster.core.read_namespaced_pod(info.driver_pod, "default")
            self.assertEqual(pod.metadata.labels["sparkoperator.k8s.io/submission-id"],
                             app["status"]["submissionID"])
        else:
            self.assertEqual(info.driver_pod, "gravitino-job-5101-1-driver")

    def test_a_job_out_of_retries_ends_failed(self):
        resp = self.submit("5102", spark_template({"kubesim.failAttempts": "5"}, retrying(1)))
        seen = []
        info = self.wait_terminal(resp.execution_id, seen)
        self.assertEqual(S.Name(info.status), "FAILED", info)
        self.assertEqual(info.attempts, 2, info)
        self.assertEqual([S.Name(i.status) for i in seen if i.status in TERMINAL], ["FAILED"])

    def test_the_restart_policy_is_written_as_the_operator_expects(self):
        resp = self.submit("5103", spark_template({"kubesim.outcome": "hang"}, retrying(2)))
        self.addCleanup(self.stub.Cancel, pb.CancelRequest(execution_id=resp.execution_id),
                        timeout=kje.RPC_TIMEOUT)
        spec = self.app("gravitino-job-5103")["spec"]
        # What the service wrote (the API server adds the CRD's defaults for the rest).
        if kje.OPERATOR == "kubeflow":
            wanted, written = {
                "type": "OnFailure", "onFailureRetries": 2, "onFailureRetryInterval": 1,
                "onSubmissionFailureRetries": 0, "onSubmissionFailureRetryInterval": 5,
            }, spec["restartPolicy"]
        else:
            wanted, written = {
                "restartPolicy": "OnFailure", "maxRestartAttempts": 2,
                "restartBackoffMillis": 1000,
            }, spec["applicationTolerations"]["restartConfig"]
        self.assertEqual({k: written.get(k) for k in wanted}, wanted)

    def test_a_malformed_retry_field_is_refused_and_creates_nothing(self):
        for fields, named in [({"restartPolicy": "Sometimes"}, "restartPolicy"),
                              ({"onFailureRetries": "2"}, "onFailureRetries"),
                              (dict(retrying(1), onFailureRetries="1000"), "onFailureRetries")]:
            with self.assertRaises(grpc.RpcError) as err:
                self.submit("5104", spark_template(custom_fields=fields))
            self.assertEqual(err.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn(named, err.exception.details())
        self.assertIsNone(self.cluster.app("default", "gravitino-job-5104"))

    # --- masking ---------------------------------------------------------------------------------

    def test_secrets_reach_the_pod_but_no_answer_or_log_line(self):
        arguments = ["10", "--password", ARG_SECRETS[0], "--api-token=" + ARG_SECRETS[1]]
        template = spark_template({"spark.hadoop.fs.s3a.secret.key": CONF_SECRET,
                                   "kubesim.logArgs": "true"}, arguments=arguments)
        resp = self.submit("5105", template)
        seen = []
        info = self.wait_terminal(resp.execution_id, seen)
        self.assertEqual(S.Name(info.status), "SUCCEEDED", info)
        # The job gets the real values: the application and the driver pod carry them.
        app = self.app("gravitino-job-5105")
        self.assertEqual(app["spec"]["sparkConf"]["spark.hadoop.fs.s3a.secret.key"], CONF_SECRET)
        pod = self.cluster.core.read_namespaced_pod(info.driver_pod, "default")
        self.assertEqual(pod.spec.containers[0].args[-4:], arguments)
        # The job's own log prints its arguments: Output shows them masked.
        out = self.stub.Output(pb.OutputRequest(execution_id=resp.execution_id),
                               timeout=kje.RPC_TIMEOUT)
        line = next(l for l in out.lines if "Application arguments:" in l)
        self.assertIn("--password ****** --api-token=******", line)
        answers = [json_format.MessageToJson(m) for m in seen + [out]]
        answers.append(json_format.MessageToJson(self.stub.ListJobs(
            pb.ListJobsRequest(label_selector="gravitino.apache.org/job-id=5105"),
            timeout=kje.RPC_TIMEOUT)))
        answers.append(json_format.MessageToJson(self.stub.Events(
            pb.EventsRequest(execution_id=resp.execution_id), timeout=kje.RPC_TIMEOUT)))
        if kje.OPERATOR == "kubeflow":
            created = self.stub.CreateSchedule(pb.CreateScheduleRequest(
                schedule_id="masked", metalake="lake", template=template,
                spec=pb.ScheduleSpec(schedule="@every 1h", suspend=True)),
                timeout=kje.RPC_TIMEOUT)
            answers.append(json_format.MessageToJson(created))
            answers.append(json_format.MessageToJson(self.stub.GetSchedule(
                pb.GetScheduleRequest(schedule_id="masked"), timeout=kje.RPC_TIMEOUT)))
            answers.append(json_format.MessageToJson(self.stub.ListSchedules(
                pb.ListSchedulesRequest(), timeout=kje.RPC_TIMEOUT)))
        for secret in (CONF_SECRET,) + ARG_SECRETS:
            for answer in answers:
                self.assertNotIn(secret, answer)
            self.assertFalse([l for l in self.server.lines if secret in l])

    def test_an_error_quoting_a_secret_masks_it(self):
        # A resource URI carrying a token, malformed: the refusal quotes the URI, masked.
        template = spark_template()
        template.spark.jars.append("https://repo.example/lib.jar?token=%s x" % ARG_SECRETS[0])
        with self.assertRaises(grpc.RpcError) as err:
            self.submit("5106", template)
        self.assertEqual(err.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("token=******", err.exception.details())
        self.assertNotIn(ARG_SECRETS[0], err.exception.details())
        self.assertFalse([l for l in self.server.lines if ARG_SECRETS[0] in l])

    # --- monitoring ------------------------------------------------------------------------------

    def test_the_deployments_monitoring_lands_on_the_app_and_the_driver(self):
        resp = self.submit("5107", spark_template())
        seen = []
        info = self.wait_terminal(resp.execution_id, seen)
        spec = self.app("gravitino-job-5107")["spec"]
        pod = self.cluster.core.read_namespaced_pod(info.driver_pod, "default")
        annotations = pod.metadata.annotations or {}
        self.assertEqual(annotations.get("prometheus.io/scrape"), "true")
        if kje.OPERATOR == "kubeflow":
            self.assertEqual(spec["monitoring"], {
                "exposeDriverMetrics": True, "exposeExecutorMetrics": False,
                "prometheus": {"jmxExporterJar": "/prometheus/jmx_prometheus_javaagent-1.0.1.jar",
                               "port": 8091}})
            self.assertEqual(annotations.get("prometheus.io/port"), "8091")
            self.assertEqual(annotations.get("prometheus.io/path"), "/metrics")
        else:
            conf = spec["sparkConf"]
            self.assertEqual(conf["spark.metrics.conf.*.sink.prometheusServlet.class"],
                             "org.apache.spark.metrics.sink.PrometheusServlet")
            self.assertEqual(annotations.get("prometheus.io/port"), "4040")
            self.assertEqual(annotations.get("prometheus.io/path"), "/metrics/prometheus")

    def test_a_template_turns_monitoring_off_or_to_executors(self):
        resp = self.submit("5108", spark_template(custom_fields={"monitoring": "none"}))
        spec = self.app("gravitino-job-5108")["spec"]
        self.assertNotIn("monitoring", spec)
        self.assertFalse([k for k in spec["sparkConf"] if "prometheus" in k])
        self.wait_terminal(resp.execution_id, [])
        resp = self.submit("5109", spark_template(custom_fields={"monitoring": "executor"}))
        spec = self.app("gravitino-job-5109")["spec"]
        if kje.OPERATOR == "kubeflow":
            self.assertEqual(spec["monitoring"]["exposeExecutorMetrics"], True)
            self.assertEqual(spec["monitoring"]["exposeDriverMetrics"], False)
        else:
            self.assertEqual(spec["sparkConf"]["spark.ui.prometheus.enabled"], "true")
        self.wait_terminal(resp.execution_id, [])


if __name__ == "__main__":
    unittest.main()
