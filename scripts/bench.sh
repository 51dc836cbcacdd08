#!/usr/bin/env bash
# `make bench`: the figures of issue #7 (bench/run.py), then the soak of issue #13
# (bench/soak.py, SOAK_SECONDS of steady load, default 120; 0 skips it), from the given Release
# build directory. Prints the tables and writes build/bench/results.json (with the scale curves'
# plots and index.html beside it) and build/bench/soak.json. Exits 0 when everything was
# measured, goals met or not; 1 when something could not be measured; 3 with --strict when a goal
# was missed. Extra arguments go to run.py (e.g. --only P1,P3, or --quick for small curves);
# --strict goes to both.
set -euo pipefail
build_dir=${1:-build-release}
shift || true
here=$(dirname "$0")
soak_args=()
for arg in "$@"; do
  if [[ $arg == --strict ]]; then soak_args+=(--strict); fi
done
# Both run whatever the other's outcome; the worse status wins (1, could not measure, over 3).
run=0
/usr/bin/python3 "$here/../bench/run.py" "$build_dir" "$@" || run=$?
soak=0
/usr/bin/python3 "$here/../bench/soak.py" "$build_dir" --seconds "${SOAK_SECONDS:-120}" \
  "${soak_args[@]}" || soak=$?
if [[ $run == 1 || $soak == 1 ]]; then exit 1; fi
if [[ $run != 0 ]]; then exit "$run"; fi
exit "$soak"
