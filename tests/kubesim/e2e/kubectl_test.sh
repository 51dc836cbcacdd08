#!/usr/bin/env bash
# End-to-end: the machine's kubectl against kubesim with the real apache Spark operator CRDs.
# Usage: kubectl_test.sh <kubesim binary> <CRD dir> <examples dir>
# Exit 77 (skipped) when no kubectl is installed.

KUBESIM_BIN="$1"
CRD_DIR="$2"
EXAMPLES="$3"
command -v kubectl >/dev/null || { echo "kubectl not installed: skipped"; exit 77; }
source "$(dirname "$0")/lib.sh"

start_kubesim "$KUBESIM_BIN" --crd-dir "$CRD_DIR" --namespaces spark-jobs,unwatched \
  --operator-namespaces default,spark-jobs --time-scale 50
k() { kubectl --kubeconfig "$KC" --request-timeout=20s "$@"; }

# The token and namespace come from the written kubeconfig.
[[ "$(k config view --minify -o jsonpath='{.contexts[0].context.namespace}')" == default ]] ||
  fail "kubeconfig namespace"
k version -o json | grep -q '"gitVersion"' || fail "kubectl version"
pass "kubectl connects with the written kubeconfig"

# A bad token is refused with 401.
if kubectl --kubeconfig "$KC" --token wrong get pods 2>"$WORK/err"; then
  fail "a wrong token was accepted"
fi
grep -qi "unauthorized\|provide credentials" "$WORK/err" || fail "401 not reported: $(cat "$WORK/err")"
pass "a wrong token gets 401"

# apply (client-side: GET 404, then POST with fieldValidation=Strict after OpenAPI v3 checks).
k apply -f "$EXAMPLES/pi.yaml" | grep -q "sparkapplication.spark.apache.org/pi created" ||
  fail "apply pi.yaml"
k apply -f "$EXAMPLES/pi.yaml" | grep -Eq "pi (unchanged|configured)" || fail "re-apply"
pass "kubectl apply pi.yaml (create and re-apply)"

# An application in a namespace the operator does not watch.
k apply -n unwatched -f "$EXAMPLES/pi.yaml" >/dev/null || fail "apply in unwatched namespace"

# get -o json
name="$(k get sparkapplications -o json | /usr/bin/python3 -c \
  'import json,sys; print(",".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]))')"
[[ "$name" == pi ]] || fail "get sparkapplications -o json: $name"
pass "kubectl get sparkapplications -o json"

# The operator runs pi: a driver pod labelled spark-role=driver appears and logs Pi.
wait_for 30 "a driver pod" bash -c \
  "kubectl --kubeconfig '$KC' get pods -l spark-role=driver -o name | grep -q pod/"
driver="$(k get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')"
[[ "$driver" == pi-0-driver ]] || fail "driver pod name: $driver"
k get pods -l spark-role=driver | grep -q "^pi-0-driver " || fail "get pods -l table output"
k get pods -l spark-role=executor -o name | grep -q pi-0-driver && fail "selector mismatch"
pass "kubectl get pods -l spark-role=driver"
wait_for 40 "Pi in the driver log" bash -c \
  "kubectl --kubeconfig '$KC' logs '$driver' | grep -q 'Pi is roughly 3.14'"
pass "kubectl logs $driver shows 'Pi is roughly 3.14'"

# Table output has the CRD's printer columns; the state column is filled by the operator.
k get sparkapp pi | head -1 | grep -q "CURRENT STATE" || fail "printer columns"
[[ -n "$(k get sparkapp pi -o jsonpath='{.status.currentState.currentStateSummary}')" ]] ||
  fail "pi has no status"
pass "kubectl get shows the printer columns and the operator's state"

# The unwatched application never got a status, though pi ran meanwhile.
[[ -z "$(k get sparkapp pi -n unwatched -o jsonpath='{.status}')" ]] ||
  fail "an app in an unwatched namespace got a status"
pass "no status in a namespace the operator does not watch"

# get -w prints the initial row and then the change an annotate makes.
(timeout 6 kubectl --kubeconfig "$KC" get sparkapp pi -n unwatched -w >"$WORK/watch.out" 2>&1 || true) &
watcher=$!
wait_for 10 "the watch's first row" grep -q "^pi " "$WORK/watch.out"
k annotate sparkapp pi -n unwatched kubesim.test/watched=yes >/dev/null || fail "annotate"
wait $watcher
[[ "$(grep -c '^pi ' "$WORK/watch.out")" -ge 2 ]] || fail "get -w saw no update: $(cat "$WORK/watch.out")"
pass "kubectl get -w"

# annotate, patch --type=merge, patch --subresource=status
[[ "$(k get sparkapp pi -n unwatched -o jsonpath='{.metadata.annotations.kubesim\.test/watched}')" == yes ]] ||
  fail "annotation not stored"
k patch sparkapp pi -n unwatched --type=merge -p '{"metadata":{"labels":{"team":"blue"}}}' >/dev/null ||
  fail "patch --type=merge"
k get sparkapp -n unwatched -l team=blue -o name | grep -q sparkapplication.spark.apache.org/pi ||
  fail "label from merge patch not selectable"
k patch sparkapp pi -n unwatched --subresource=status --type=merge \
  -p '{"status":{"currentState":{"currentStateSummary":"Submitted"}},"spec":{"mainClass":"ignored"}}' \
  >/dev/null || fail "patch --subresource=status"
[[ "$(k get sparkapp pi -n unwatched -o jsonpath='{.status.currentState.currentStateSummary}')" == Submitted ]] ||
  fail "status patch not stored"
[[ "$(k get sparkapp pi -n unwatched -o jsonpath='{.spec.mainClass}')" == org.apache.spark.examples.SparkPi ]] ||
  fail "a status patch changed the spec"
pass "kubectl annotate, patch --type=merge, patch --subresource=status"

# A bad spec gets 422 naming the field.
cat >"$WORK/bad.yaml" <<'YAML'
apiVersion: spark.apache.org/v1
kind: SparkApplication
metadata:
  name: bad
spec:
  mainClass: org.example.Main
  runtimeVersions:
    scalaVersion: "2.13"
YAML
if k apply -f "$WORK/bad.yaml" 2>"$WORK/err"; then fail "a bad spec was accepted"; fi
grep -q "is invalid" "$WORK/err" || fail "no Invalid error: $(cat "$WORK/err")"
grep -q "spec.runtimeVersions.sparkVersion" "$WORK/err" || fail "field not named: $(cat "$WORK/err")"
k get sparkapp bad 2>&1 | grep -q NotFound || fail "the bad app was created"
pass "a bad spec gets 422 naming spec.runtimeVersions.sparkVersion"

# A fault is visible to kubectl.
echo '{"verb":"list","resource":"sparkapplications","status":503,"count":1}' >"$WORK/fault.json"
k create --raw /kubesim/faults -f "$WORK/fault.json" | grep -q '"id"' || fail "adding a fault"
if k get sparkapp 2>"$WORK/err"; then fail "the 503 fault did not reach kubectl"; fi
grep -q "ServiceUnavailable" "$WORK/err" || fail "fault error: $(cat "$WORK/err")"
k get sparkapp >/dev/null || fail "the fault outlived its count"
k get --raw /kubesim/stats | grep -q '"503":1' || fail "stats miss the 503"
pass "an injected 503 is visible to kubectl, and counted"

# delete --cascade=foreground waits for the operator's finalizer and the driver pod.
k delete sparkapp pi --cascade=foreground --timeout=40s | grep -q '"pi" deleted' ||
  fail "delete --cascade=foreground"
k get sparkapp pi 2>&1 | grep -q NotFound || fail "pi still exists after delete"
k get pods -l spark-role=driver -o name | grep -q . && fail "driver pod left behind"
pass "kubectl delete --cascade=foreground"

# SIGTERM exits 0 promptly.
kill -TERM "$KUBESIM_PID"
deadline=$((SECONDS + 5))
while kill -0 "$KUBESIM_PID" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "kubesim did not exit within 5 s of SIGTERM"
  sleep 0.1
done
wait "$KUBESIM_PID" && rc=0 || rc=$?
KUBESIM_PID=""
[[ $rc -eq 0 ]] || fail "kubesim exited $rc on SIGTERM"
pass "SIGTERM exits 0"
echo "ALL PASSED"
