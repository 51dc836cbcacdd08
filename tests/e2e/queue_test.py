"""Queues end to end: a deployment with a batch scheduler submits each job to its queue (the
deployment's, or the one its template names), and Status reads the queue back from the
application. kubesim simulates no YuniKorn or Volcano, so only what the application carries is
checked: the queue Status reports, and the fields the operator's scheduler would read."""

import os
import unittest

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

# Per scheduler: the deployment's default queue and one a template names instead.
QUEUES = {"kueue": ("team-a", "team-b"),
          "yunikorn": ("root.default", "root.etl"),
          "volcano": ("default", "batch")}


def template(queue=None):
    return pb.JobTemplate(
        name="spark-pi", executable="local:///opt/spark/examples/jars/spark-examples.jar",
        custom_fields={"queue": queue} if queue else {},
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": "succeed", "kubesim.durationMs": "2000"}))


class QueueTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cluster = kje.Kubesim()
        cls.op = kje.Operator(kje.OPERATOR)
        cls.configs, cls.servers, cls.channels, cls.stubs = {}, {}, {}, {}
        for scheduler, (default, _) in QUEUES.items():
            cls.configs[scheduler] = kje.write_temp("""
kubeconfig: %s
spark: {image: apache/spark:4.0.0, sparkVersion: 4.0.0}
queue: {scheduler: %s, name: %s}
""" % (cls.cluster.kubeconfig, scheduler, default))
            cls.servers[scheduler] = kje.Server(["--config", cls.configs[scheduler]])
            cls.channels[scheduler] = cls.servers[scheduler].channel()
            cls.stubs[scheduler] = pb_grpc.JobExecutorStub(cls.channels[scheduler])

    @classmethod
    def tearDownClass(cls):
        for c in cls.channels.values():
            c.close()
        codes = [s.terminate() for s in cls.servers.values()]
        cls.cluster.stop()
        for path in cls.configs.values():
            os.unlink(path)
        assert codes == [0] * len(codes), codes

    def submit(self, stub, job_id, t):
        return stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="lake", template=t),
                           timeout=kje.RPC_TIMEOUT).execution_id

    def app(self, execution_id):
        _, _, namespace, name = execution_id.split("/")
        app = self.cluster.app(namespace, name)
        self.assertIsNotNone(app, execution_id)
        return app

    def test_status_reports_the_queue_the_app_was_submitted_to(self):
        job = 900
        for scheduler, (default, named) in QUEUES.items():
            stub = self.stubs[scheduler]
            for queue, t in ((default, template()), (named, template(named))):
                with self.subTest(scheduler=scheduler, queue=queue):
                    job += 1
                    execution_id = self.submit(stub, str(job), t)
                    info = stub.Status(pb.StatusRequest(execution_id=execution_id),
                                       timeout=kje.RPC_TIMEOUT)
                    self.assertEqual(queue, info.queue)
                    app = self.app(execution_id)
                    labels = app["metadata"].get("labels", {})
                    spec = app["spec"]
                    if scheduler == "kueue":
                        self.assertEqual(queue, labels["kueue.x-k8s.io/queue-name"])
                    else:
                        self.assertNotIn("kueue.x-k8s.io/queue-name", labels)
                        if kje.OPERATOR == "kubeflow":
                            self.assertEqual(scheduler, spec["batchScheduler"])
                            self.assertEqual(queue, spec["batchSchedulerOptions"]["queue"])
                        else:
                            conf = spec["sparkConf"]
                            self.assertEqual(scheduler, conf["spark.kubernetes.scheduler.name"])

    def test_a_rule_refused_creates_nothing(self):
        t = template()
        if kje.OPERATOR == "apache":
            t.spark.configs["spark.kubernetes.driver.podTemplateFile"] = "s3a://b/pod.yaml"
        else:
            t.spark.configs["spark.dynamicAllocation.enabled"] = "true"
        with self.assertRaises(grpc.RpcError) as raised:
            self.submit(self.stubs["kueue"], "950", t)
        self.assertEqual(grpc.StatusCode.INVALID_ARGUMENT, raised.exception.code())
        self.assertIn("the Kueue queue \"team-a\"", raised.exception.details())
        self.assertIsNone(self.cluster.app("default", "gravitino-job-950"))
        # An invalid queue named by a template: refused the same way, nothing created.
        with self.assertRaises(grpc.RpcError) as raised:
            self.submit(self.stubs["yunikorn"], "951", template("etl"))
        self.assertEqual(grpc.StatusCode.INVALID_ARGUMENT, raised.exception.code())
        self.assertIn("custom field queue", raised.exception.details())
        self.assertIsNone(self.cluster.app("default", "gravitino-job-951"))

if __name__ == "__main__":
    unittest.main()
