"""Readiness tells the truth, end to end against the real binary over kubesim.

The server follows namespace `default` and is ready once its informer has synced. Then the API
server stops answering (kubesim is SIGSTOPped: connections stay open, nothing arrives, as with a
hung API server): once the informer has heard nothing for server.staleAfterMs, the
`jobexecutor.v1.JobExecutor` health service (and its alias `readiness`) is NOT_SERVING while `""`
and `liveness` stay SERVING, and the server logs why. When the API server answers again
(SIGCONT), the replica is SERVING again, with no restart. The same when the API server answers,
but only with errors (500 for every request for applications, the open watch cut).

Without the cache (statusCacheTtlMs 0) there is no informer: a replica nobody calls asks the API
server itself (GET /version) once it has heard nothing for half the bound, and is NOT_SERVING once
every request has failed for server.staleAfterMs, SERVING again at the first answer.
"""

import os
import signal
import unittest

import kje

STALE_AFTER_MS = 2000
READINESS = ("jobexecutor.v1.JobExecutor", "readiness")
LIVENESS = ("", "liveness")


class ReadinessTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # Bookmarks every 200 ms: a healthy watch is heard from well within the bound.
        cls.cluster = kje.Kubesim(extra_args=["--bookmark-interval-ms", "200"])
        cls.config = kje.write_temp("""
kubeconfig: %s
namespace: default
spark:
  image: apache/spark:4.0.0
  sparkVersion: 4.0.0
server:
  readinessRequiresSync: true
  staleAfterMs: %d
""" % (cls.cluster.kubeconfig, STALE_AFTER_MS))
        cls.server = kje.Server(["--config", cls.config])
        cls.channel = cls.server.channel()
        # The same cluster, a second replica without the cache.
        cls.no_cache = kje.Server(["--config", cls.config, "--set", "statusCacheTtlMs=0"])
        cls.no_cache_channel = cls.no_cache.channel()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.proc.send_signal(signal.SIGCONT)  # whatever the test left it in
        codes = [cls.server.terminate(), cls.no_cache.terminate()]
        cls.cluster.stop()
        os.unlink(cls.config)
        assert codes == [0, 0], codes

    def statuses(self, services, channel=None):
        return {s: kje.health(channel or self.channel, s) for s in services}

    def log_lines(self, msg, server=None):
        return [line for line in (server or self.server).lines
                if 'msg="%s"' % msg in line or "msg=%s " % msg in line]

    def test_a_silent_api_server_takes_the_replica_out_and_its_return_brings_it_back(self):
        kje.wait_until(lambda: set(self.statuses(READINESS).values()) == {"SERVING"}, 30,
                       "the server to be ready after its informer synced")
        ready_lines = len(self.log_lines("ready"))
        self.assertGreaterEqual(ready_lines, 1, "\n".join(self.server.lines))

        self.cluster.proc.send_signal(signal.SIGSTOP)
        try:
            kje.wait_until(
                lambda: set(self.statuses(READINESS).values()) == {"NOT_SERVING"}, 30,
                "readiness to turn NOT_SERVING while the API server is silent")
            # The process itself is alive: a liveness probe restarts nothing.
            self.assertEqual({s: "SERVING" for s in LIVENESS}, self.statuses(LIVENESS))
            not_ready = kje.wait_until(lambda: self.log_lines("not ready"), 10,
                                       "the 'not ready' log line")
            self.assertIn("the informer of namespace default has heard nothing from the API "
                          "server for ", not_ready[-1])
            self.assertIn("server.staleAfterMs: %d" % STALE_AFTER_MS, not_ready[-1])
        finally:
            self.cluster.proc.send_signal(signal.SIGCONT)

        kje.wait_until(lambda: set(self.statuses(READINESS).values()) == {"SERVING"}, 30,
                       "readiness to turn SERVING again once the API server answers")
        self.assertEqual({s: "SERVING" for s in LIVENESS}, self.statuses(LIVENESS))
        self.assertGreater(len(self.log_lines("ready")), ready_lines)
        self.assertIsNone(self.server.proc.poll())

    def test_an_api_server_answering_only_errors_takes_the_replica_out(self):
        kje.wait_until(lambda: set(self.statuses(READINESS).values()) == {"SERVING"}, 30,
                       "the server to be ready")
        # Every request for applications is a 500, and the open watch is cut: the informer
        # can list or watch again only once the errors stop.
        fault = kje.add_fault(self.cluster, {"verb": "*", "resource": "sparkapplications",
                                             "status": 500})
        try:
            kje._kubesim_request(self.cluster, "POST", "/kubesim/watches/expire")
            kje.wait_until(
                lambda: set(self.statuses(READINESS).values()) == {"NOT_SERVING"}, 30,
                "readiness to turn NOT_SERVING while the API server answers only errors")
            self.assertEqual({s: "SERVING" for s in LIVENESS}, self.statuses(LIVENESS))
            failing = [r for r in kje.kubesim_stats(self.cluster)["requests"]
                       if r["resource"] == "sparkapplications" and r["code"] == 500]
            self.assertTrue(failing, "the informer kept asking")
        finally:
            kje.remove_fault(self.cluster, fault)
        kje.wait_until(lambda: set(self.statuses(READINESS).values()) == {"SERVING"}, 30,
                       "readiness to turn SERVING again once the API server answers")
        self.assertIsNone(self.server.proc.poll())

    def test_without_the_cache_failing_requests_take_the_replica_out(self):
        channel, server = self.no_cache_channel, self.no_cache
        kje.wait_until(lambda: set(self.statuses(READINESS, channel).values()) == {"SERVING"}, 30,
                       "the replica without cache to be ready")
        self.cluster.proc.send_signal(signal.SIGSTOP)
        try:
            # Nobody calls it: its own probes find the API server silent.
            kje.wait_until(
                lambda: set(self.statuses(READINESS, channel).values()) == {"NOT_SERVING"}, 30,
                "readiness without cache to turn NOT_SERVING while the API server is silent")
            self.assertEqual({s: "SERVING" for s in LIVENESS}, self.statuses(LIVENESS, channel))
            not_ready = kje.wait_until(lambda: self.log_lines("not ready", server), 10,
                                       "the 'not ready' log line")
            self.assertIn("every request to the API server has failed for ", not_ready[-1])
        finally:
            self.cluster.proc.send_signal(signal.SIGCONT)
        kje.wait_until(lambda: set(self.statuses(READINESS, channel).values()) == {"SERVING"}, 30,
                       "readiness without cache to turn SERVING again")
        self.assertIsNone(server.proc.poll())


if __name__ == "__main__":
    unittest.main()
