#!/usr/bin/env bash
# `make bench`: runs every benchmark of bench/ from the given (Release) build directory.
set -euo pipefail
build_dir=${1:-build-release}
shopt -s nullglob
benches=("$build_dir"/bin/bench_*)
if ((${#benches[@]} == 0)); then
  echo "make bench: no benchmarks have been written yet (bench/ is empty)" >&2
  exit 1
fi
for b in "${benches[@]}"; do "$b"; done
