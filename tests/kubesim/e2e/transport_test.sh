#!/usr/bin/env bash
# End-to-end: kubesim's transport with curl: body limit (413), injected latency and connection
# reset, chunked watch, keep-alive, TLS names, token rotation, SIGTERM with a watch open.
# Usage: transport_test.sh <kubesim binary>
# Exit 77 (skipped) when curl is not installed.

KUBESIM_BIN="$1"
command -v curl >/dev/null || { echo "curl not installed: skipped"; exit 77; }
source "$(dirname "$0")/lib.sh"

start_kubesim "$KUBESIM_BIN" --max-body-bytes 65536
PORT="${KUBESIM_URL##*:}"
c() { curl -sS --max-time 10 --cacert "$WORK/ca.pem" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" "$@"; }
CM="$KUBESIM_URL/api/v1/namespaces/default/configmaps"
add_fault() { c -X POST -H 'Content-Type: application/json' -d "$1" "$KUBESIM_URL/kubesim/faults" >/dev/null; }

# The certificate names localhost and 127.0.0.1, not other names.
curl -sS --max-time 5 --cacert "$WORK/ca.pem" "https://localhost:$PORT/version" | grep_q gitVersion ||
  fail "https://localhost with the CA"
if curl -sS --max-time 5 --cacert "$WORK/ca.pem" --resolve "kubesim.example:$PORT:127.0.0.1" \
  "https://kubesim.example:$PORT/version" >/dev/null 2>&1; then
  fail "a name outside the certificate was accepted"
fi
pass "server certificate for localhost/127.0.0.1 only"

# 401 is a Status object.
body="$(curl -sS --max-time 5 --cacert "$WORK/ca.pem" "$CM")"
[[ "$body" == *'"kind":"Status"'* && "$body" == *'"code":401'* ]] || fail "401 body: $body"
pass "401 Status without a token"

# Body limit.
head -c 100000 /dev/zero | tr '\0' 'a' >"$WORK/big"
code="$(c -o "$WORK/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$WORK/big" "$CM")"
[[ "$code" == 413 ]] || fail "oversized body got $code"
grep_q RequestEntityTooLarge "$WORK/out" || fail "413 body: $(cat "$WORK/out")"
grep_q "Request entity too large: limit is" "$WORK/out" || fail "413 message: $(cat "$WORK/out")"
code="$(c -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d '{"metadata":{"name":"small"}}' "$CM")"
[[ "$code" == 201 ]] || fail "small body got $code"
pass "413 beyond --max-body-bytes"

# Keep-alive: two requests, one connection.
c -v "$KUBESIM_URL/version" "$KUBESIM_URL/healthz" -o /dev/null -o /dev/null 2>"$WORK/verbose"
grep -qi "re-using existing connection\|reusing existing connection" "$WORK/verbose" ||
  fail "the connection was not reused"
pass "keep-alive"

# Latency.
add_fault '{"verb":"list","resource":"configmaps","latencyMs":800,"count":1}'
start=$(date +%s%N)
c -o /dev/null "$CM"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
((elapsed_ms >= 800)) || fail "latency fault: answered in ${elapsed_ms} ms"
start=$(date +%s%N)
c -o /dev/null "$CM"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
((elapsed_ms < 800)) || fail "latency outlived its count: ${elapsed_ms} ms"
pass "latency fault"

# Connection reset mid-body.
add_fault '{"verb":"list","resource":"configmaps","resetMidBody":true,"count":1}'
if c -o /dev/null "$CM" 2>"$WORK/err"; then fail "the reset fault did not break the response"; fi
rc_ok=0
grep -qi "reset\|partial\|transfer closed\|unexpected eof\|connection" "$WORK/err" && rc_ok=1
((rc_ok)) || fail "reset error: $(cat "$WORK/err")"
c -o /dev/null "$CM" || fail "the reset outlived its count"
pass "connection reset mid-body"

# A chunked watch: the event arrives while the stream is open; the stream ends at its timeout.
c -N -D "$WORK/headers" "$CM?watch=1&timeoutSeconds=3&resourceVersion=0" >"$WORK/watch" &
watch_pid=$!
wait_for 5 "the initial ADDED event" grep -q '"ADDED"' "$WORK/watch"
c -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"metadata":{"name":"later"}}' "$CM"
wait_for 5 "the event for the new object" grep -q '"name":"later"' "$WORK/watch"
start=$(date +%s)
wait $watch_pid || fail "the watch ended with an error"
grep -qi "transfer-encoding: chunked" "$WORK/headers" || fail "watch not chunked"
pass "chunked watch ends at timeoutSeconds"

# A client that goes away from a quiet watch is noticed at once, not at the next event.
stat_streams() { c "$KUBESIM_URL/kubesim/stats" | /usr/bin/python3 -c \
  'import json,sys; print(json.load(sys.stdin)["activeStreams"])'; }
[[ "$(stat_streams)" == 0 ]] || fail "streams alive before the test: $(stat_streams)"
# curl itself, not a subshell running c(): the kill must close the connection.
curl -sS -N --cacert "$WORK/ca.pem" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
  "$CM?watch=1&resourceVersion=0" >/dev/null 2>&1 &
quiet_pid=$!
wait_for 5 "the watch to be counted" bash -c "[[ \$(curl -sS --cacert '$WORK/ca.pem' \
  -H 'Authorization: Bearer $(cat "$TOKEN_FILE")' '$KUBESIM_URL/kubesim/stats') == *'\"activeStreams\":1'* ]]"
kill "$quiet_pid"
wait "$quiet_pid" 2>/dev/null || true
wait_for 3 "the server to notice the closed watch" bash -c "[[ \$(curl -sS --cacert '$WORK/ca.pem' \
  -H 'Authorization: Bearer $(cat "$TOKEN_FILE")' '$KUBESIM_URL/kubesim/stats') == *'\"activeStreams\":0'* ]]"
pass "a closed watch connection is released without waiting for an event"

# Token rotation.
old="$(cat "$TOKEN_FILE")"
echo "rotated-$RANDOM$RANDOM" >"$TOKEN_FILE"
code="$(curl -sS --max-time 5 --cacert "$WORK/ca.pem" -H "Authorization: Bearer $old" \
  -o /dev/null -w '%{http_code}' "$CM")"
[[ "$code" == 401 ]] || fail "the old token still works ($code)"
code="$(c -o /dev/null -w '%{http_code}' "$CM")"
[[ "$code" == 200 ]] || fail "the new token does not work ($code)"
pass "token file rotation"

# SIGTERM with a watch open exits 0 promptly.
c -N "$CM?watch=1" >/dev/null 2>&1 &
wait_for 5 "the watch to be open" bash -c "[[ \$(curl -sS --cacert '$WORK/ca.pem' \
  -H 'Authorization: Bearer $(cat "$TOKEN_FILE")' '$KUBESIM_URL/kubesim/stats') == *'\"activeStreams\":1'* ]]"
sigterm_kubesim
pass "SIGTERM with an open watch exits 0"
echo "ALL PASSED"
