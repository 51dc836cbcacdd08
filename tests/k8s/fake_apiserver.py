#!/usr/bin/python3
"""A scripted HTTPS server standing in for the Kubernetes API server in the k8s client's transport
tests. It knows nothing of Kubernetes semantics (kubesim does that): tests script the answers.

Usage: fake_apiserver.py --dir DIR [--client-ca] [--plain]
  Generates a CA and a server certificate for 127.0.0.1/localhost in DIR (ca.crt, and with
  --client-ca also client.crt/client.key signed by the same CA), reads the accepted bearer token
  from DIR/token on every request, and prints "READY <port>" once it listens on 127.0.0.1:0.

Control endpoints (no auth):
  POST /_ctl/script   {"path": P, "responses": [R, ...]}: the next requests whose path (without
                      query) equals P get these responses in order; then the default answer.
     R: {"status": 200, "body": "...", "headers": {..}, "delayMs": N, "reset": true (close the
         connection after sending half the body), "stream": ["line", ...] (chunked, one chunk per
         item), "streamEnd": "close" | "drop" | "reset" | "hang", "chunkDelayMs": N,
         "holdUntil": N (answer once N requests are recorded, or after 20 s: requests in flight
         together)}
  GET  /_ctl/requests -> [{"method","path","query","auth","body","conn"}] of every API request;
       with ?atLeast=N, once N are recorded (or after timeoutMs, default 20000)
  DELETE /_ctl/requests
Default answer: 404 Status NotFound.
"""

import argparse
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
RECORDED = threading.Condition(LOCK)  # notified on every request recorded
SCRIPTS = {}
REQUESTS = []
NEXT_CONN = [0]


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def make_certs(d, client):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{d}/ca.key", "-out",
            f"{d}/ca.crt", "-days", "2", "-subj", "/CN=fake-apiserver-ca", "-addext",
            "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    with open(f"{d}/server.ext", "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                "extendedKeyUsage=serverAuth\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{d}/server.key", "-out",
            f"{d}/server.csr", "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", f"{d}/server.csr", "-CA", f"{d}/ca.crt", "-CAkey",
            f"{d}/ca.key", "-CAcreateserial", "-out", f"{d}/server.crt", "-days", "2", "-extfile",
            f"{d}/server.ext")
    if client:
        with open(f"{d}/client.ext", "w") as f:
            f.write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{d}/client.key", "-out",
                f"{d}/client.csr", "-subj", "/CN=test-user/O=testers")
        openssl("x509", "-req", "-in", f"{d}/client.csr", "-CA", f"{d}/ca.crt", "-CAkey",
                f"{d}/ca.key", "-CAcreateserial", "-out", f"{d}/client.crt", "-days", "2",
                "-extfile", f"{d}/client.ext")


def status_body(code, reason, message):
    return json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                       "message": message, "reason": reason, "code": code})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_dir = "."

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with LOCK:
            NEXT_CONN[0] += 1
            self.conn_id = NEXT_CONN[0]

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def _send(self, status, body, headers=None):
        data = body.encode()
        self.send_response(status)
        if "Content-Type" not in (headers or {}):
            self.send_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _reset(self):
        # An abortive close (RST), as a crashing proxy or server would do.
        try:
            self.wfile.flush()
        except Exception:
            pass
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.connection.close()
        self.close_connection = True

    def _control(self, method, path, query):
        if method == "POST" and path == "/_ctl/script":
            spec = json.loads(self._body())
            with LOCK:
                SCRIPTS.setdefault(spec["path"], []).extend(spec["responses"])
            self._send(200, "{}")
        elif method == "GET" and path == "/_ctl/requests":
            params = urllib.parse.parse_qs(query)
            at_least = int(params.get("atLeast", ["0"])[0])
            timeout = int(params.get("timeoutMs", ["20000"])[0]) / 1000.0
            with LOCK:
                RECORDED.wait_for(lambda: len(REQUESTS) >= at_least, timeout)
                self._send(200, json.dumps(REQUESTS))
        elif method == "DELETE" and path == "/_ctl/requests":
            with LOCK:
                REQUESTS.clear()
            self._send(200, "{}")
        else:
            self._send(404, "{}")

    def _handle(self, method):
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/_ctl/"):
            return self._control(method, url.path, url.query)
        body = self._body()
        with LOCK:
            conn = self.conn_id
            REQUESTS.append({"method": method, "path": url.path, "query": url.query,
                             "auth": self.headers.get("Authorization", ""), "body": body,
                             "conn": conn, "contentType": self.headers.get("Content-Type", ""),
                             "host": self.headers.get("Host", "")})
            RECORDED.notify_all()
        try:
            with open(os.path.join(self.server_dir, "token")) as f:
                token = f.read().strip()
        except OSError:
            token = ""
        has_cert = False
        try:
            has_cert = bool(self.connection.getpeercert())
        except Exception:
            pass
        if not has_cert and self.headers.get("Authorization", "") != f"Bearer {token}":
            return self._send(401, status_body(401, "Unauthorized", "Unauthorized"))
        with LOCK:
            script = SCRIPTS.get(url.path)
            response = script.pop(0) if script else None
        if response is None:
            return self._send(404, status_body(404, "NotFound", f"{url.path} not found"))
        if response.get("holdUntil"):
            with LOCK:
                RECORDED.wait_for(lambda: len(REQUESTS) >= response["holdUntil"], 20)
        if response.get("delayMs"):
            time.sleep(response["delayMs"] / 1000.0)
        status = response.get("status", 200)
        if "stream" in response:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for item in response["stream"]:
                data = item.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                if response.get("chunkDelayMs"):
                    time.sleep(response["chunkDelayMs"] / 1000.0)
            end = response.get("streamEnd", "close")
            if end == "reset":
                return self._reset()
            if end == "drop":
                # The connection ends without the last chunk: an orderly FIN, so everything
                # sent before it still arrives (an RST could discard it).
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if end == "hang":
                time.sleep(30)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        text = response.get("body", "{}")
        if response.get("reset"):
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            return self._reset()
        self._send(status, text, response.get("headers"))

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_DELETE(self):
        self._handle("DELETE")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--client-ca", action="store_true")
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    Handler.server_dir = args.dir
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if not args.plain:
        make_certs(args.dir, args.client_ca)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(f"{args.dir}/server.crt", f"{args.dir}/server.key")
        if args.client_ca:
            ctx.load_verify_locations(f"{args.dir}/ca.crt")
            ctx.verify_mode = ssl.CERT_OPTIONAL
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
