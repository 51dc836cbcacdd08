#!/usr/bin/env bash
# `make demo`: starts the service and shows what it offers, then stops it, leaving nothing running.
# The Spark job walk-through (SparkPi, a failing job, a cancelled job against kubesim) joins this
# demo when the executor lands.
set -euo pipefail
build_dir=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
export KJE_BINARY="$root/$build_dir/bin/k8s-job-executor"
export KJE_PYTHON_STUBS="$root/$build_dir/python"
export KJE_SOURCE_DIR="$root"
export PYTHONPATH="$root/tests/e2e"
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 - <<'PY'
import os
import kje

server = kje.Server(["--config", os.path.join(kje.SOURCE_DIR, "examples", "config.yaml")])
try:
    print("k8s-job-executor is listening on %s" % server.address)
    with server.channel() as ch:
        for name in ("", "liveness", "readiness"):
            print("  health %-11r %s" % (name, kje.health(ch, name)))
        for svc in kje.list_services(ch):
            methods = kje.describe_service(ch, svc) if svc != "grpc.reflection.v1alpha.ServerReflection" else ["ServerReflectionInfo"]
            print("  service %s: %s" % (svc, ", ".join(methods)))
finally:
    code = server.terminate()
print("stopped with SIGTERM, exit code %d" % code)
raise SystemExit(code)
PY
