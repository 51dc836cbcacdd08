#!/usr/bin/env bash
# End-to-end: kubectl against kubesim with the real apache Spark operator CRDs.
# Usage: kubectl_test.sh <kubesim binary> <CRD dir> <examples dir> [pinned|machine]
#   pinned (default): the kubectl that scripts/fetch-tools.sh pins, so the result never depends on
#                     the machine's kubectl; exit 77 (skipped) when it can't be fetched.
#   machine:          whatever kubectl is on PATH (Debian 12's kubernetes-client is 1.20): users
#                     have it, so its essential checks run too; a check that needs a newer kubectl
#                     says so and is skipped. Exit 77 when no kubectl is installed.

KUBESIM_BIN="$1"
CRD_DIR="$2"
EXAMPLES="$3"
WHICH_KUBECTL="${4:-pinned}"
case "$WHICH_KUBECTL" in
  pinned)
    if ! KUBECTL="$("$(dirname "$0")/../../../scripts/fetch-tools.sh" --print-path kubectl)"; then
      echo "the pinned kubectl could not be fetched (scripts/fetch-tools.sh): skipped"
      exit 77
    fi
    ;;
  machine)
    KUBECTL="$(command -v kubectl)" || { echo "kubectl not installed: skipped"; exit 77; }
    ;;
  *) echo "usage: kubectl_test.sh KUBESIM CRD_DIR EXAMPLES [pinned|machine]" >&2; exit 2 ;;
esac
source "$(dirname "$0")/lib.sh"
# Every kubectl below, in subshells too, is the chosen one.
mkdir -p "$WORK/bin"
ln -s "$KUBECTL" "$WORK/bin/kubectl"
export PATH="$WORK/bin:$PATH"
kubectl_minor="$(kubectl version --client -o json 2>/dev/null | /usr/bin/python3 -c \
  'import json,re,sys; print(re.sub(r"\D", "", json.load(sys.stdin)["clientVersion"]["minor"]))')"
echo "kubectl: $KUBECTL (1.${kubectl_minor})"
# needs MINOR FEATURE: true when this kubectl has FEATURE; otherwise prints the skip and is false.
needs() {
  if ((kubectl_minor >= $1)); then return 0; fi
  echo "skip: $2 needs kubectl >= 1.$1 (this one is 1.${kubectl_minor})"
  return 1
}

start_kubesim "$KUBESIM_BIN" --crd-dir "$CRD_DIR" --namespaces spark-jobs,unwatched \
  --operator-namespaces default,spark-jobs --time-scale 20
k() { kubectl --kubeconfig "$KC" --request-timeout=20s "$@"; }
absent() { [[ -z "$(k get "$@" --ignore-not-found -o name)" ]]; }

# The token and namespace come from the written kubeconfig.
[[ "$(k config view --minify -o jsonpath='{.contexts[0].context.namespace}')" == default ]] ||
  fail "kubeconfig namespace"
k version -o json | grep_q '"gitVersion"' || fail "kubectl version"
pass "kubectl connects with the written kubeconfig"

# A bad token is refused with 401.
if kubectl --kubeconfig "$KC" --token wrong get pods 2>"$WORK/err"; then
  fail "a wrong token was accepted"
fi
grep -qi "unauthorized\|provide credentials" "$WORK/err" || fail "401 not reported: $(cat "$WORK/err")"
pass "a wrong token gets 401"

# The examples as shipped: pi.yaml stops after the driver's run and is deleted
# ttlAfterStopMillis later. Where the operator does not watch it stays as applied; a retained
# variant in a watched namespace keeps its driver pod for the pod and log checks.
/usr/bin/python3 - "$EXAMPLES/pi.yaml" "$WORK/pi-retained.yaml" <<'PY'
import sys, yaml
app = yaml.safe_load(open(sys.argv[1]))
app["metadata"]["name"] = "pi-retained"
app["spec"]["applicationTolerations"] = {"resourceRetainPolicy": "Always"}
yaml.safe_dump(app, open(sys.argv[2], "w"))
PY

# apply (client-side: GET 404, then POST with fieldValidation=Strict after OpenAPI v3 checks).
k apply -n unwatched -f "$EXAMPLES/pi.yaml" | grep_q "sparkapplication.spark.apache.org/pi created" ||
  fail "apply pi.yaml"
k apply -n unwatched -f "$EXAMPLES/pi.yaml" | grep_q -E "pi (unchanged|configured)" ||
  fail "re-apply"
pass "kubectl apply pi.yaml (create and re-apply)"

# get -o json
name="$(k get sparkapplications -n unwatched -o json | /usr/bin/python3 -c \
  'import json,sys; print(",".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]))')"
[[ "$name" == pi ]] || fail "get sparkapplications -o json: $name"
pass "kubectl get sparkapplications -o json"

# Where the operator watches, pi.yaml runs to its end and is deleted after ttlAfterStopMillis.
k apply -f "$EXAMPLES/pi.yaml" >/dev/null || fail "apply pi.yaml in default"
wait_for 40 "pi in default to be deleted after its TTL" bash -c \
  "[[ -z \$(kubectl --kubeconfig '$KC' get sparkapp pi --ignore-not-found -o name) ]]"
pass "pi.yaml ran and was deleted after ttlAfterStopMillis"

# The retained variant: a driver pod labelled spark-role=driver that logs Pi.
k apply -n spark-jobs -f "$WORK/pi-retained.yaml" >/dev/null || fail "apply pi-retained"
wait_for 30 "a driver pod" bash -c \
  "kubectl --kubeconfig '$KC' get pods -n spark-jobs -l spark-role=driver -o name | grep pod/ >/dev/null"
driver="$(k get pods -n spark-jobs -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')"
[[ "$driver" == pi-retained-0-driver ]] || fail "driver pod name: $driver"
k get pods -n spark-jobs -l spark-role=driver | grep_q "^pi-retained-0-driver " ||
  fail "get pods -l table output"
if k get pods -n spark-jobs -l spark-role=executor -o name | grep_q driver; then
  fail "selector mismatch"
fi
pass "kubectl get pods -l spark-role=driver"
wait_for 40 "Pi in the driver log" bash -c \
  "kubectl --kubeconfig '$KC' logs -n spark-jobs '$driver' | grep 'Pi is roughly 3\.' >/dev/null"
pass "kubectl logs $driver shows 'Pi is roughly 3\.'"

# The driver's events as a cluster records them: the scheduler's, then the kubelet's per
# container. Their names are hashes, so the reasons are compared sorted.
ev_reasons() {
  kubectl --kubeconfig "$KC" get events -n spark-jobs --field-selector "involvedObject.name=$driver" \
    -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | sort | tr '\n' ' '
}
wait_for 20 "the driver's Started event" bash -c \
  "kubectl --kubeconfig '$KC' get events -n spark-jobs --field-selector involvedObject.name='$driver' -o jsonpath='{.items[*].reason}' | grep -w Started"
reasons="$(ev_reasons)"
[[ "$reasons" == "Created Pulled Pulling Scheduled Started " ]] || fail "driver events: $reasons"
k get events -n spark-jobs --field-selector "involvedObject.name=$driver,reason=Scheduled" \
  -o jsonpath='{.items[0].message}' | grep_q "^Successfully assigned spark-jobs/$driver to kubesim-node-" ||
  fail "the Scheduled event's message"
k get events -n spark-jobs --field-selector "involvedObject.name=$driver,reason=Started" -o name |
  grep_q "^event/$driver\." || fail "event names: <involved>.<hex>"
k describe pod -n spark-jobs "$driver" |
  grep_q -E "Started .*kubelet.* Started container spark-kubernetes-driver" || fail "describe pod: no Events"
pass "kubectl get events --field-selector involvedObject.name=$driver; describe pod shows them"

# Table output has the CRD's printer columns; the state column is filled by the operator.
k get sparkapp -n spark-jobs pi-retained | grep_q "CURRENT STATE" ||
  fail "printer columns"
[[ -n "$(k get sparkapp -n spark-jobs pi-retained -o jsonpath='{.status.currentState.currentStateSummary}')" ]] ||
  fail "pi-retained has no status"
pass "kubectl get shows the printer columns and the operator's state"

# The unwatched application never got a status, though the others ran meanwhile.
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
k get sparkapp -n unwatched -l team=blue -o name | grep_q sparkapplication.spark.apache.org/pi ||
  fail "label from merge patch not selectable"
if needs 24 "patch --subresource=status"; then
  k patch sparkapp pi -n unwatched --subresource=status --type=merge \
    -p '{"status":{"currentState":{"currentStateSummary":"Submitted"}},"spec":{"mainClass":"ignored"}}' \
    >/dev/null || fail "patch --subresource=status"
  [[ "$(k get sparkapp pi -n unwatched -o jsonpath='{.status.currentState.currentStateSummary}')" == Submitted ]] ||
    fail "status patch not stored"
  [[ "$(k get sparkapp pi -n unwatched -o jsonpath='{.spec.mainClass}')" == org.apache.spark.examples.SparkPi ]] ||
    fail "a status patch changed the spec"
fi
pass "kubectl annotate, patch --type=merge (and --subresource=status unless skipped above)"

# kubectl's typed clients send core objects as protobuf.
k create namespace made-by-kubectl >/dev/null || fail "kubectl create namespace"
k create configmap cfg -n made-by-kubectl --from-literal=a=1 --from-literal=b=two >/dev/null ||
  fail "kubectl create configmap"
[[ "$(k get configmap cfg -n made-by-kubectl -o jsonpath='{.data.b}')" == two ]] ||
  fail "configmap data"
k create secret generic creds -n made-by-kubectl --from-literal=password=hunter2 >/dev/null ||
  fail "kubectl create secret"
[[ "$(k get secret creds -n made-by-kubectl -o jsonpath='{.data.password}' | base64 -d)" == hunter2 ]] ||
  fail "secret data"
pass "kubectl create namespace, configmap, secret (protobuf bodies)"

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
absent sparkapp bad || fail "the bad app was created"
pass "a bad spec gets 422 naming spec.runtimeVersions.sparkVersion"

# A fault is visible to kubectl.
echo '{"verb":"list","resource":"sparkapplications","status":503,"count":1}' >"$WORK/fault.json"
k create --raw /kubesim/faults -f "$WORK/fault.json" | grep_q '"id"' || fail "adding a fault"
if k get sparkapp 2>"$WORK/err"; then fail "the 503 fault did not reach kubectl"; fi
grep -q "ServiceUnavailable" "$WORK/err" || fail "fault error: $(cat "$WORK/err")"
k get sparkapp >/dev/null || fail "the fault outlived its count"
k get --raw /kubesim/stats | grep_q '"503":1' || fail "stats miss the 503"
pass "an injected 503 is visible to kubectl, and counted"

# delete --cascade=foreground waits for the operator's finalizer and the retained driver pod.
k get pod -n spark-jobs pi-retained-0-driver >/dev/null || fail "the retained driver pod is gone"
k delete sparkapp pi-retained -n spark-jobs --cascade=foreground --timeout=40s |
  grep_q '"pi-retained" deleted' || fail "delete --cascade=foreground"
absent sparkapp pi-retained -n spark-jobs ||
  fail "pi-retained still exists after delete"
if k get pods -n spark-jobs -o name | grep_q pi-retained; then
  fail "driver pod left behind"
fi
k delete sparkapp pi -n unwatched --cascade=foreground --timeout=20s >/dev/null ||
  fail "delete in the unwatched namespace"
absent sparkapp pi -n unwatched || fail "pi still exists after delete"
pass "kubectl delete --cascade=foreground"

# RBAC: kubectl applies a ServiceAccount, a Role and a RoleBinding; a token of the
# ServiceAccount (TokenRequest, as `kubectl create token`) is judged by them.
cat >"$WORK/rbac.yaml" <<'YAML'
apiVersion: v1
kind: ServiceAccount
metadata: {name: viewer, namespace: spark-jobs}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: app-viewer, namespace: spark-jobs}
rules:
- apiGroups: [spark.apache.org]
  resources: [sparkapplications]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: app-viewer, namespace: spark-jobs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: app-viewer}
subjects:
- {kind: ServiceAccount, name: viewer, namespace: spark-jobs}
YAML
k apply -f "$WORK/rbac.yaml" >"$WORK/out" 2>&1 || fail "apply rbac.yaml: $(cat "$WORK/out")"
grep_q "role.rbac.authorization.k8s.io/app-viewer created" "$WORK/out" ||
  fail "role: $(cat "$WORK/out")"
k get rolebinding app-viewer -n spark-jobs -o jsonpath='{.roleRef.name}' | grep_q '^app-viewer$' ||
  fail "get rolebinding"
if needs 24 "create token (the TokenRequest API)"; then
  token="$(k create token viewer -n spark-jobs 2>"$WORK/err")" || fail "create token: $(cat "$WORK/err")"
else
  # The same TokenRequest, made the way kubectl 1.20 can: create --raw on the subresource.
  token="$(echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}' |
    k create --raw /api/v1/namespaces/spark-jobs/serviceaccounts/viewer/token -f - 2>"$WORK/err" |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["token"])')" ||
    fail "TokenRequest through create --raw: $(cat "$WORK/err")"
fi
sa() { kubectl --kubeconfig "$KC" --token "$token" --request-timeout=20s "$@"; }
sa get sparkapp -n spark-jobs -o name >/dev/null || fail "the viewer can't list sparkapplications"
if sa get pods -n spark-jobs 2>"$WORK/err"; then fail "the viewer listed pods"; fi
grep -qF 'pods is forbidden: User "system:serviceaccount:spark-jobs:viewer" cannot list resource "pods" in API group "" in the namespace "spark-jobs"' \
  "$WORK/err" || fail "403: $(cat "$WORK/err")"
pass "kubectl: RBAC objects applied, a ServiceAccount token judged by them (403 as the API server)"

# SIGTERM exits 0 promptly.
sigterm_kubesim
pass "SIGTERM exits 0"
echo "ALL PASSED"
