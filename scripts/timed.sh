#!/usr/bin/env bash
# Runs a command and says how long it took: the sanitizer targets are long, and CI plans its
# runners from these lines (README, "Testing").
# Usage: scripts/timed.sh LABEL COMMAND [ARGS...]
set -uo pipefail

label=${1:?usage: timed.sh LABEL COMMAND [ARGS...]}
shift
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
printf '%s took %dm%02ds\n' "$label" $((secs / 60)) $((secs % 60)) >&2
exit $rc
