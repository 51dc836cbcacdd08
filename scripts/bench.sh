#!/usr/bin/env bash
# `make bench`: the figures of issue #7 (bench/run.py) from the given Release build directory.
# Prints the table and writes build/bench/results.json. Exits 0 when every figure was measured,
# goal met or not (extra arguments go to run.py, e.g. --strict to fail on a missed goal, or
# --only P1,P3).
set -euo pipefail
build_dir=${1:-build-release}
shift || true
exec /usr/bin/python3 "$(dirname "$0")/../bench/run.py" "$build_dir" "$@"
