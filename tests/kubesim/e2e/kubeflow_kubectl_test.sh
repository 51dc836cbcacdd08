#!/usr/bin/env bash
# End-to-end: kubectl against kubesim's Kubeflow Spark operator (v2.5.2) with the real CRD, the
# Apache operator beside it in one namespace.
# Usage: kubeflow_kubectl_test.sh <kubesim binary> <CRD root> [pinned|machine]
#   <CRD root> holds apache-spark-operator/ and kubeflow-spark-operator/ (the repo's crds/).
#   pinned (default): the kubectl scripts/fetch-tools.sh pins; exit 77 when it can't be fetched.
#   machine:          the kubectl on PATH; exit 77 when there is none.

KUBESIM_BIN="$1"
CRDS="$2"
WHICH_KUBECTL="${3:-pinned}"
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
  *) echo "usage: kubeflow_kubectl_test.sh KUBESIM CRD_ROOT [pinned|machine]" >&2; exit 2 ;;
esac
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/bin"
ln -s "$KUBECTL" "$WORK/bin/kubectl"
export PATH="$WORK/bin:$PATH"
KF_CRDS="$CRDS/kubeflow-spark-operator/v2.5.2"
KF_EXAMPLES="$CRDS/kubeflow-spark-operator/examples"

# Without the CRD the flag is refused at start, saying what is missing.
if "$KUBESIM_BIN" --kubeflow-namespaces default >"$WORK/out" 2>&1; then
  fail "--kubeflow-namespaces without the CRD started"
fi
grep_q "needs the Kubeflow SparkApplication CRD" "$WORK/out" || fail "message: $(cat "$WORK/out")"
pass "--kubeflow-namespaces without the sparkoperator.k8s.io CRD fails at start"

start_kubesim "$KUBESIM_BIN" --crd-dir "$CRDS/apache-spark-operator/1.0.0" --crd-dir "$KF_CRDS" \
  --namespaces spark-jobs,unwatched --operator-namespaces spark-jobs \
  --kubeflow-namespaces default,spark-jobs --time-scale 20
k() { kubectl --kubeconfig "$KC" --request-timeout=20s "$@"; }
# Both CRDs have the short name sparkapp: the group tells them apart.
KF=sparkapplications.sparkoperator.k8s.io
state() { k get "$KF" "$@" -o jsonpath='{.status.applicationState.state}'; }

# The example as shipped (namespace default, serviceAccount spark-operator-spark, which need not
# exist) runs to COMPLETED.
k apply -f "$KF_EXAMPLES/spark-pi.yaml" |
  grep_q "sparkapplication.sparkoperator.k8s.io/spark-pi created" || fail "apply spark-pi.yaml"
wait_for 30 "spark-pi COMPLETED" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $KF spark-pi -o jsonpath='{.status.applicationState.state}') == COMPLETED ]]"
pass "kubectl apply spark-pi.yaml reaches COMPLETED"

k get sparkapp.sparkoperator.k8s.io spark-pi >"$WORK/table" || fail "get sparkapp.sparkoperator.k8s.io"
head -1 "$WORK/table" | grep_q -E "^NAME +SUSPEND +STATUS +ATTEMPTS +START +FINISH +AGE" ||
  fail "printer columns: $(cat "$WORK/table")"
grep_q -E "^spark-pi +COMPLETED +1 +[0-9-]+T[0-9:]+Z +[0-9-]+T[0-9:]+Z " "$WORK/table" ||
  fail "row: $(cat "$WORK/table")"
pass "kubectl get sparkapp shows Status/Attempts/Start/Finish"

k logs spark-pi-driver | grep_q "Pi is roughly 3\.14" || fail "driver log"
k logs spark-pi-driver -c spark-kubernetes-driver | grep_q "Running Spark version 4.0.4" ||
  fail "driver log by container"
pass "kubectl logs spark-pi-driver shows Pi"

sel="sparkoperator.k8s.io/app-name=spark-pi,spark-role=driver"
sel+=",sparkoperator.k8s.io/submission-id=$(k get "$KF" spark-pi -o jsonpath='{.status.submissionID}')"
[[ "$(k get pods -l "$sel" -o name)" == pod/spark-pi-driver ]] || fail "driver by selector"
[[ "$(k get pod spark-pi-driver -o jsonpath='{.metadata.ownerReferences[0].kind}')" == SparkApplication ]] ||
  fail "driver owner"
k get events --field-selector involvedObject.name=spark-pi -o jsonpath='{.items[*].reason}' |
  grep_q SparkApplicationCompleted || fail "events"
pass "the driver pod carries the operator's labels and owner; events are recorded"

# COMPLETED is written after the driver's kubelet events: they are all there. Names are hashes,
# so the reasons are compared sorted.
reasons="$(k get events --field-selector involvedObject.name=spark-pi-driver \
  -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | sort | tr '\n' ' ')"
[[ "$reasons" == "Created Pulled Pulling Scheduled Started " ]] || fail "driver events: $reasons"
k get events --field-selector involvedObject.name=spark-pi-driver,reason=Started \
  -o jsonpath='{.items[0].involvedObject.fieldPath}' | grep_q '^spec.containers{spark-kubernetes-driver}$' ||
  fail "Started event's fieldPath"
pass "kubectl get events --field-selector involvedObject.name=spark-pi-driver"

# Both operators in one namespace, each on its own resource type; meanwhile an app where neither
# watches gets no status.
sed 's/namespace: default/namespace: unwatched/' "$KF_EXAMPLES/spark-pi.yaml" | k apply -f - >/dev/null ||
  fail "apply in unwatched"
# Without the example's 10 s TTL (half a second at --time-scale 20), which could delete the app
# between two polls of a loaded machine before one saw it Succeeded.
sed '/ttlAfterStopMillis/d' "$CRDS/apache-spark-operator/examples/pi.yaml" |
  k apply -n spark-jobs -f - >/dev/null || fail "apache pi"
sed 's/namespace: default/namespace: spark-jobs/' "$KF_EXAMPLES/spark-pi.yaml" |
  k apply -f - >/dev/null || fail "kubeflow spark-pi in spark-jobs"
wait_for 30 "both apps to finish" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $KF spark-pi -n spark-jobs -o jsonpath='{.status.applicationState.state}') == COMPLETED ]] &&
   kubectl --kubeconfig '$KC' get sparkapplications.spark.apache.org pi -n spark-jobs -o jsonpath='{.status.stateTransitionHistory}' | grep -q Succeeded"
pass "the Apache and Kubeflow operators share a namespace"
[[ -z "$(k get "$KF" spark-pi -n unwatched -o jsonpath='{.status}')" ]] ||
  fail "an app in an unwatched namespace got a status"
pass "no status where the Kubeflow operator does not watch"

# Suspend and resume with kubectl patch.
sed 's/name: spark-pi$/name: long-pi/' "$KF_EXAMPLES/spark-pi.yaml" |
  /usr/bin/python3 -c 'import sys, yaml
app = yaml.safe_load(sys.stdin)
app["spec"]["sparkConf"] = {"kubesim.outcome": "hang"}
yaml.safe_dump(app, sys.stdout)' | k apply -f - >/dev/null || fail "apply long-pi"
wait_for 30 "long-pi RUNNING" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $KF long-pi -o jsonpath='{.status.applicationState.state}') == RUNNING ]]"
first_id="$(k get "$KF" long-pi -o jsonpath='{.status.submissionID}')"
k patch "$KF" long-pi --type=merge -p '{"spec":{"suspend":true}}' >/dev/null || fail "suspend"
wait_for 30 "long-pi SUSPENDED" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $KF long-pi -o jsonpath='{.status.applicationState.state}') == SUSPENDED ]]"
[[ -z "$(k get pod long-pi-driver --ignore-not-found -o name)" ]] || fail "driver left after suspend"
# v2.5.2: the executors are the app's too, and outlive the suspended driver.
[[ -n "$(k get pods -l sparkoperator.k8s.io/app-name=long-pi,spark-role=executor -o name)" ]] ||
  fail "executors gone after suspend"
k patch "$KF" long-pi --type=merge -p '{"spec":{"suspend":false}}' >/dev/null || fail "resume"
wait_for 30 "long-pi RUNNING again" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $KF long-pi -o jsonpath='{.status.applicationState.state}') == RUNNING ]]"
[[ "$(k get "$KF" long-pi -o jsonpath='{.status.submissionID}')" != "$first_id" ]] ||
  fail "resume kept the submission id"
pass "kubectl patch suspend: SUSPENDED, then RUNNING as a new submission"

# Foreground deletion takes the driver and every executor with the app.
k delete "$KF" long-pi --cascade=foreground --timeout=30s | grep_q '"long-pi" deleted' ||
  fail "delete --cascade=foreground"
if k get pods -o name | grep_q long-pi; then fail "pods left after deleting long-pi"; fi
pass "kubectl delete --cascade=foreground takes the app's pods"

sigterm_kubesim
echo "ALL PASSED"
