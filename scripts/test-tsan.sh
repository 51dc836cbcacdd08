#!/usr/bin/env bash
# Runs the tests labelled tsan (C++ tests of async/, grpc_util/, server/, app/, executor/, cache/,
# k8s/ and the end-to-end tests that start the server) from a ThreadSanitizer build, against the
# instrumented Abseil in BUILD_DIR/absl-tsan. Every process writes its reports to
# BUILD_DIR/tsan-reports (child processes too: the server and kubesim started by the e2e tests),
# and any report fails the run.
# Usage: scripts/test-tsan.sh BUILD_DIR [ctest args...]
set -uo pipefail

build=$(realpath "${1:?usage: test-tsan.sh BUILD_DIR [ctest args]}")
shift
src=$(cd "$(dirname "$0")/.." && pwd)
reports="$build/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"

# The instrumented Abseil carries the system one's sonames, and the binaries' RUNPATH names it:
# loaded first, it serves our code and the uninstrumented gRPC alike (a soname is loaded once),
# so each process holds one Abseil whose locks TSan sees. Not LD_LIBRARY_PATH: the e2e tests'
# Python grpcio would load it too, and libtsan cannot be loaded into an uninstrumented process.
for bin in "$build"/bin/*; do
  if [[ -x "$bin" ]] && ldd "$bin" 2>/dev/null | grep -q 'libabsl_base.*=> /usr/lib\|libabsl_base.*=> /lib'; then
    echo "test-tsan: $bin loads the system Abseil, not $build/absl-tsan" >&2
    exit 1
  fi
done
# history_size=7: the most access history TSan keeps, so the earlier access of a report has its
# stack (the suppressions match on it) even in the long e2e processes.
export TSAN_OPTIONS="suppressions=$src/tests/sanitizers/tsan.supp:log_path=$reports/tsan:second_deadlock_stack=1:halt_on_error=0:history_size=7"
# Left out: the 100k-object LIST, a scale test whose own 5-minute bound TSan's slowdown (5-15x)
# exceeds; the other kubesim tests run the same client paths concurrently.
(cd "$build" && ctest -L tsan -E '100k objects' --output-on-failure --timeout 1200 "$@")
rc=$?

shopt -s nullglob
found=("$reports"/tsan.*)
if ((${#found[@]} > 0)); then
  echo "test-tsan: ${#found[@]} process(es) reported (in $reports):" >&2
  for f in "${found[@]}"; do
    echo "== $f" >&2
    grep -m 3 -A 12 '^WARNING: ThreadSanitizer' "$f" >&2
  done
  rc=1
fi
exit $rc
