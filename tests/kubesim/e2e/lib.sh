# Shared by the kubesim end-to-end tests: start kubesim in a temp dir (port 0, token file,
# kubeconfig), wait for readiness with a deadline, and stop it on exit.
# Usage: source lib.sh; start_kubesim <kubesim binary> [kubesim flags...]
# Sets WORK, KC (kubeconfig path), TOKEN_FILE, KUBESIM_URL, KUBESIM_PID.

set -euo pipefail

WORK="$(mktemp -d /tmp/kubesim-e2e.XXXXXX)"
KC="$WORK/kubeconfig"
TOKEN_FILE="$WORK/token"
KUBESIM_PID=""
# kubectl caches discovery per host:port for hours; a port reused by a later kubesim with other
# CRDs must not see a stale cache.
export KUBECACHEDIR="$WORK/kube-cache"

cleanup() {
  if [[ -n "$KUBESIM_PID" ]] && kill -0 "$KUBESIM_PID" 2>/dev/null; then
    kill -TERM "$KUBESIM_PID" 2>/dev/null || true
    wait "$KUBESIM_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  if [[ -s "$KC" ]] && command -v kubectl >/dev/null; then
    echo "--- cluster state ---" >&2
    kubectl --kubeconfig "$KC" --request-timeout=5s get sparkapplications,pods -A >&2 || true
  fi
  if [[ -f "$WORK/kubesim.err" ]]; then
    echo "--- kubesim stderr (last 20 lines) ---" >&2
    tail -20 "$WORK/kubesim.err" >&2 || true
  fi
  exit 1
}

pass() { echo "ok: $*"; }

start_kubesim() {
  local bin="$1"
  shift
  head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TOKEN_FILE"
  "$bin" --listen 127.0.0.1:0 --token-file "$TOKEN_FILE" --write-kubeconfig "$KC" \
    --write-ca "$WORK/ca.pem" "$@" >"$WORK/kubesim.out" 2>"$WORK/kubesim.err" &
  KUBESIM_PID=$!
  local deadline=$((SECONDS + 20))
  until grep -q "kubesim listening on https://127.0.0.1:" "$WORK/kubesim.out" 2>/dev/null; do
    kill -0 "$KUBESIM_PID" 2>/dev/null || fail "kubesim exited before it was ready"
    ((SECONDS < deadline)) || fail "kubesim not ready within 20 s"
    sleep 0.1
  done
  KUBESIM_URL="$(grep -o 'https://127.0.0.1:[0-9]*' "$WORK/kubesim.out" | head -1)"
  [[ -s "$KC" ]] || fail "kubesim did not write the kubeconfig"
}

# wait_for <seconds> <description> <command...>: retries the command until it succeeds.
wait_for() {
  local seconds="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out after ${seconds}s waiting for: $what"
    sleep 0.2
  done
}

# grep -q exits at the first match, and under pipefail the writer's SIGPIPE fails the pipeline:
# read all of the input instead.
grep_q() { grep "$@" >/dev/null; }

# Sends SIGTERM and fails unless kubesim exits 0 within 5 s.
sigterm_kubesim() {
  kill -TERM "$KUBESIM_PID"
  local deadline=$((SECONDS + 5)) rc
  while kill -0 "$KUBESIM_PID" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "kubesim did not exit within 5 s of SIGTERM"
    sleep 0.1
  done
  wait "$KUBESIM_PID" && rc=0 || rc=$?
  KUBESIM_PID=""
  [[ $rc -eq 0 ]] || fail "kubesim exited $rc on SIGTERM"
}
