#!/usr/bin/env bash
# `make demo`: see scripts/demo.py. Leaves nothing running.
set -euo pipefail
build_dir=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
export KJE_BINARY="$root/$build_dir/bin/k8s-job-executor"
export KJE_KUBESIM="$root/$build_dir/bin/kubesim"
export KJE_PYTHON_STUBS="$root/$build_dir/python"
export KJE_SOURCE_DIR="$root"
export PYTHONPATH="$root/tests/e2e"
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 "$root/scripts/demo.py"
