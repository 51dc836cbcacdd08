#!/usr/bin/env bash
# End-to-end: kubectl against kubesim's Kubeflow ScheduledSparkApplication controller (v2.5.2)
# with the real CRDs: the shipped example's runs appear, finish and are pruned, a bad time zone
# is FailedValidation, and deleting the schedule takes its runs.
# Usage: scheduled_kubectl_test.sh <kubesim binary> <CRD root> [pinned|machine]
#   <CRD root> holds kubeflow-spark-operator/ (the repo's crds/).
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
  *) echo "usage: scheduled_kubectl_test.sh KUBESIM CRD_ROOT [pinned|machine]" >&2; exit 2 ;;
esac
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/bin"
ln -s "$KUBECTL" "$WORK/bin/kubectl"
export PATH="$WORK/bin:$PATH"
KF_CRDS="$CRDS/kubeflow-spark-operator/v2.5.2"
KF_EXAMPLES="$CRDS/kubeflow-spark-operator/examples"

# The example runs `@every 3m`: at 180x, one run a second.
start_kubesim "$KUBESIM_BIN" --crd-dir "$KF_CRDS" --kubeflow-namespaces default --time-scale 180
k() { kubectl --kubeconfig "$KC" --request-timeout=20s "$@"; }
KF=sparkapplications.sparkoperator.k8s.io
SSA=scheduledsparkapplications.sparkoperator.k8s.io
SEL=sparkoperator.k8s.io/scheduled-app-name=spark-pi-scheduled
export KC KF SSA SEL
runs() { kubectl --kubeconfig "$KC" get "$KF" -l "$SEL" -o name | wc -l; }
export -f runs

k apply -f "$KF_EXAMPLES/spark-pi-scheduled.yaml" |
  grep_q "scheduledsparkapplication.sparkoperator.k8s.io/spark-pi-scheduled created" ||
  fail "apply spark-pi-scheduled.yaml"
wait_for 30 "scheduleState Scheduled" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $SSA spark-pi-scheduled -o jsonpath='{.status.scheduleState}') == Scheduled ]]"
[[ -n "$(k get "$SSA" spark-pi-scheduled -o jsonpath='{.status.nextRun}')" ]] || fail "no nextRun"
pass "kubectl apply spark-pi-scheduled.yaml: Scheduled with a nextRun"

wait_for 30 "two runs" bash -c '(( $(runs) >= 2 ))'
first="$(k get "$KF" -l "$SEL" -o jsonpath='{.items[0].metadata.name}')"
[[ "$first" =~ ^spark-pi-scheduled-[0-9]{19}$ ]] || fail "run name $first"
# The newest run: older ones may be pruned at any moment.
last="$(k get "$SSA" spark-pi-scheduled -o jsonpath='{.status.lastRunName}')"
[[ "$last" =~ ^spark-pi-scheduled-[0-9]{19}$ ]] || fail "lastRunName $last"
[[ "$(k get "$KF" "$last" -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].blockOwnerDeletion}')" == \
  ScheduledSparkApplication/spark-pi-scheduled/true ]] || fail "run owner"
[[ "$(k get "$KF" "$last" -o jsonpath='{.spec.mainClass}')" == org.apache.spark.examples.SparkPi ]] ||
  fail "run spec"
pass "runs appear, named by their start, owned by the schedule, with its template"

wait_for 60 "a run COMPLETED and listed" bash -c \
  "[[ -n \$(kubectl --kubeconfig '$KC' get $SSA spark-pi-scheduled -o jsonpath='{.status.pastSuccessfulRunNames[0]}') ]]"
done_run="$(k get "$SSA" spark-pi-scheduled -o jsonpath='{.status.pastSuccessfulRunNames[0]}')"
# At one run a second it may be pruned already; if not, it is COMPLETED.
done_state="$(k get "$KF" "$done_run" --ignore-not-found -o jsonpath='{.status.applicationState.state}')"
[[ -z "$done_state" || "$done_state" == COMPLETED ]] || fail "$done_run is $done_state"
# With the default history limit of 1, the first run goes once a newer one has completed.
wait_for 60 "the first run pruned" bash -c \
  "! kubectl --kubeconfig '$KC' get $KF $first >/dev/null 2>&1"
[[ "$(k get "$SSA" spark-pi-scheduled -o jsonpath='{.status.pastSuccessfulRunNames}')" =~ ^\[\"[^,]*\"\]$ ]] ||
  fail "pastSuccessfulRunNames: $(k get "$SSA" spark-pi-scheduled -o jsonpath='{.status.pastSuccessfulRunNames}')"
pass "finished runs are listed and pruned to the history limit"

k get scheduledsparkapp >"$WORK/table" || fail "get scheduledsparkapp"
head -1 "$WORK/table" | grep_q -E "^NAME +SCHEDULE +TIMEZONE +SUSPEND +LAST RUN +LAST RUN NAME +AGE" ||
  fail "printer columns: $(cat "$WORK/table")"
# Last Run is in operator time, ahead of the wall clock at 180x: kubectl shows a future date as
# <invalid>.
grep_q -E "^spark-pi-scheduled +@every 3m +(<none> +)*(<invalid>|[0-9]+[smh]) +spark-pi-scheduled-[0-9]+ " \
  "$WORK/table" || fail "row: $(cat "$WORK/table")"
pass "kubectl get scheduledsparkapp shows Schedule/Last Run/Last Run Name"

sed -e 's/name: spark-pi-scheduled$/name: bad-zone/' -e 's/concurrencyPolicy: Allow/timeZone: Mars\/Olympus/' \
  "$KF_EXAMPLES/spark-pi-scheduled.yaml" | k apply -f - >/dev/null || fail "apply bad-zone"
wait_for 30 "bad-zone FailedValidation" bash -c \
  "[[ \$(kubectl --kubeconfig '$KC' get $SSA bad-zone -o jsonpath='{.status.scheduleState}') == FailedValidation ]]"
[[ "$(k get "$SSA" bad-zone -o jsonpath='{.status.reason}')" == \
  "Invalid timezone: unknown time zone Mars/Olympus" ]] || fail "bad-zone reason"
pass "an unknown time zone is FailedValidation with Go's reason"

k delete "$SSA" spark-pi-scheduled | grep_q '"spark-pi-scheduled" deleted' || fail "delete"
wait_for 30 "the runs garbage-collected" bash -c '(( $(runs) == 0 ))'
pass "deleting the schedule takes its runs"

sigterm_kubesim
echo "ALL PASSED"
