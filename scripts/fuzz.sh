#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD_DIR (make fuzz) for SECONDS each, one after the other,
# and prints executions and crashes per target. New inputs go to BUILD_DIR/fuzz-corpus/<target>
# (the checked-in seeds in fuzz/corpus/<target> stay as they are); crashes, leaks, timeouts and
# broken invariants to BUILD_DIR/fuzz-artifacts/<target>/. Exit status 1 when anything crashed.
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]
set -uo pipefail

build=${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
if (($# == 0)); then
  set -- $(cd "$build/bin" && ls -- *_fuzz)
fi

summary=()
failed=0
for target in "$@"; do
  name=${target%_fuzz}
  work="$build/fuzz-corpus/$name"
  artifacts="$build/fuzz-artifacts/$name"
  mkdir -p "$work" "$artifacts"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$artifacts/")
  [[ -f "$src/fuzz/dict/$name.dict" ]] && args+=(-dict="$src/fuzz/dict/$name.dict")
  # Long lines and logs are the point of these two.
  [[ $name == watch_stream || $name == log_tail ]] && args+=(-max_len=65536)
  log="$build/fuzz-artifacts/$name.log"
  echo "fuzz: $target for ${seconds}s" >&2
  before=$(find "$artifacts" -type f | wc -l)
  "$build/bin/$target" "${args[@]}" "$work" "$src/fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  after=$(find "$artifacts" -type f | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  crashes=$((after - before))
  if ((rc != 0 && crashes == 0)); then crashes=1; fi  # died without an artifact
  ((crashes > 0)) && failed=1
  summary+=("$(printf '%-22s %12s execs %3d crashes  corpus %5d' "$target" "${execs:-?}" "$crashes" \
    "$(find "$work" -type f | wc -l)")")
done
echo
printf '%s\n' "${summary[@]}"
if ((failed)); then
  echo "fuzz: crashes found; inputs in $build/fuzz-artifacts/*/, logs in $build/fuzz-artifacts/*.log" >&2
fi
exit $failed
