"""`make demo`: kubesim with its Spark operator as the cluster, k8s-job-executor in front of it, and
three jobs through the gRPC API as a catalog server would run them: SparkPi, a failing job and a
cancelled job. Prints each job's status transitions with times, then SparkPi's output."""

import os
import sys
import time

import grpc

import kje
from jobexecutor.v1 import job_executor_pb2 as pb
from jobexecutor.v1 import job_executor_pb2_grpc as pb_grpc

S = pb.JobInfo.Status
TERMINAL = (S.SUCCEEDED, S.FAILED, S.CANCELLED)


def template(name, outcome, duration_ms):
    return pb.JobTemplate(
        name=name, executable="local:///opt/spark/examples/jars/spark-examples.jar",
        arguments=["1000"],
        spark=pb.SparkJob(class_name="org.apache.spark.examples.SparkPi",
                          configs={"kubesim.outcome": outcome,
                                   "kubesim.durationMs": str(duration_ms),
                                   "spark.executor.instances": "2"}))


def stamp(info, field):
    if not info.HasField(field):
        return "-"
    return time.strftime("%H:%M:%S", time.gmtime(getattr(info, field).seconds))


class Job:
    def __init__(self, stub, job_id, tmpl, cancel_when_started=False):
        self.stub = stub
        self.cancel_when_started = cancel_when_started
        self.start = time.monotonic()
        resp = stub.Submit(pb.SubmitRequest(job_id=job_id, metalake="demo", template=tmpl),
                           timeout=10)
        self.id = resp.execution_id
        self.last = None
        self.done = False
        self.cancel_requested = False
        print("submitted job %s as %s" % (job_id, self.id))

    def poll(self):
        try:
            info = self.stub.Status(pb.StatusRequest(execution_id=self.id), timeout=10)
            status, state = info.status, info.operator_state
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND or not self.cancel_requested:
                raise
            # A cancelled application is deleted; an operator without a finalizer on it
            # (kubeflow's) removes it at once, possibly before a poll saw CANCELLED.
            if self.last != S.CANCELLED:
                self.last = S.CANCELLED
                print("  +%5.2fs  %-40s %-10s (the application is deleted)" % (
                    time.monotonic() - self.start, self.id, S.Name(S.CANCELLED)))
            self.done = True
            return
        if status != self.last:
            self.last = status
            print("  +%5.2fs  %-40s %-10s operator=%-32s started=%s finished=%s" % (
                time.monotonic() - self.start, self.id, S.Name(status), state or "(none)",
                stamp(info, "started_at"), stamp(info, "finished_at")))
            if status == S.STARTED and self.cancel_when_started:
                self.stub.Cancel(pb.CancelRequest(execution_id=self.id), timeout=10)
                self.cancel_requested = True
                print("  +%5.2fs  %-40s cancel requested" % (time.monotonic() - self.start,
                                                             self.id))
        self.done = status in TERMINAL


def main():
    cluster = kje.Kubesim(time_scale=4)
    config = kje.write_temp("""
kubeconfig: %s
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
""" % cluster.kubeconfig)
    server = None
    try:
        print("kubesim (Kubernetes API + %s Spark operator, %s/%s) at %s" % (
            cluster.operator.name, cluster.operator.group, cluster.operator.version, cluster.url))
        server = kje.Server(["--config", config])
        print("k8s-job-executor at %s\n" % server.address)
        with server.channel() as channel:
            stub = pb_grpc.JobExecutorStub(channel)
            jobs = [Job(stub, "1", template("spark-pi", "succeed", 12000)),
                    Job(stub, "2", template("failing-job", "fail", 8000)),
                    Job(stub, "3", template("long-job", "hang", 0), cancel_when_started=True)]
            print()
            deadline = time.monotonic() + 120
            while not all(j.done for j in jobs):
                if time.monotonic() > deadline:
                    raise SystemExit("the demo jobs did not finish in time")
                for j in jobs:
                    if not j.done:
                        j.poll()
                time.sleep(0.1)
            out = stub.Output(pb.OutputRequest(execution_id=jobs[0].id, max_lines=12), timeout=10)
            print("\nOutput of %s (the last %d lines of its driver log):" % (jobs[0].id,
                                                                           len(out.lines)))
            for line in out.lines:
                print("  | " + line)
            if not any(l.startswith("Pi is roughly 3.14") for l in out.lines):
                raise SystemExit("SparkPi's output is missing")
            outcomes = [j.last for j in jobs]
            if outcomes != [S.SUCCEEDED, S.FAILED, S.CANCELLED]:
                raise SystemExit("unexpected outcomes: %s" % [S.Name(o) for o in outcomes])
    finally:
        code = server.terminate() if server else 0
        cluster.stop()
        os.unlink(config)
    print("\ndone: everything stopped (server exit code %d)" % code)
    return code


if __name__ == "__main__":
    sys.exit(main())
