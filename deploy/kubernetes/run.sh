#!/usr/bin/env bash
# One sharded run on a Kubernetes cluster, start to finish, with kubectl:
#   1. apply everything but the Jobs (namespace, aops-config, the headless Service, and
#      MinIO/MariaDB where the overlay has them), and wait for the StatefulSets;
#   2. run the prepare Job (all shards' objects and rows) and wait for it;
#   3. create the shard Job and wait until every shard pod has its corpus and is held only
#      by the missing ConfigMap aops-run; then create aops-run with AOPS_START_AT = now +
#      margin, so every pod starts its workers and waits for that one instant;
#   4. wait for the shards, then run the merge Job and save its result.json and the logs.
#
# Why the start time is set this late, and by one clock: --start-at is absolute and must be
# the same for every shard, so it is written once into a ConfigMap that all pods read. A pod
# reads it when its main container starts, i.e. after its init container has fetched the
# corpus, which on a fresh node takes anything from seconds to many minutes. Setting T before
# the pods exist would need a margin that covers the slowest fetch; setting it once they are
# all waiting needs only a margin that covers the kubelet's retry (10-15 s) and the workers
# opening their connections, so the default margin is 30 s. A shard that still misses T ends
# at once as "missed start by X s" and the merged result says so.
#
# Usage: deploy/kubernetes/run.sh [-k OVERLAY_DIR] [--name RUN] [--margin SECONDS]
#                                 [--out DIR] [--timeout SECONDS]
# kubectl from $KUBECTL (default kubectl), cluster from $KUBECONFIG as usual. The Secret
# aops-credentials is used as it is when it exists; else it is made from AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY and MARIADB_PASSWORD in the environment, or, for an overlay with the
# in-cluster stack, from random values. Exit status: 0 for a valid merged result, 1 for an
# invalid one or a failed step, 2 for bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NS=aops
OVERLAY="$HERE/overlays/cluster"
RUN_NAME=""
MARGIN=30
OUT=""
TIMEOUT=3600
read -r -a KUBECTL <<<"${KUBECTL:-kubectl}"

die() { echo "run.sh: $*" >&2; exit 1; }
usage() { echo "usage: run.sh [-k OVERLAY_DIR] [--name RUN] [--margin SECONDS] [--out DIR] [--timeout SECONDS]" >&2; exit 2; }
say() { echo "run.sh: $*"; }
k() { "${KUBECTL[@]}" "$@"; }

while [ $# -gt 0 ]; do
    case "$1" in
    -k) [ $# -ge 2 ] || usage; OVERLAY="$2"; shift 2 ;;
    --name) [ $# -ge 2 ] || usage; RUN_NAME="$2"; shift 2 ;;
    --margin) [ $# -ge 2 ] || usage; MARGIN="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; OUT="$2"; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; TIMEOUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
    esac
done
[[ "$MARGIN" =~ ^[0-9]+$ ]] || { echo "run.sh: --margin must be whole seconds, not '$MARGIN'" >&2; exit 2; }
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || { echo "run.sh: --timeout must be whole seconds, not '$TIMEOUT'" >&2; exit 2; }
[ -f "$OVERLAY/kustomization.yaml" ] || { echo "run.sh: no kustomization.yaml in $OVERLAY" >&2; exit 2; }
RUN_NAME="${RUN_NAME:-run-$(date -u +%Y%m%d-%H%M%S)}"
[[ "$RUN_NAME" =~ ^[a-z0-9][a-z0-9.-]*$ ]] || { echo "run.sh: --name must be lower-case letters, digits, '.' and '-' (an S3 prefix), not '$RUN_NAME'" >&2; exit 2; }
OUT="${OUT:-$ROOT/results/k8s-$RUN_NAME}"
command -v "${KUBECTL[0]}" >/dev/null 2>&1 || die "kubectl not found (set KUBECTL)"
command -v jq >/dev/null 2>&1 || die "jq not found"

TMP="$(mktemp -d /tmp/aops-k8s-run.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

# ---- 1. render and apply everything but the Jobs ----------------------------------------------
if [ -n "${KUSTOMIZE:-}" ]; then
    "$KUSTOMIZE" build "$OVERLAY" >"$TMP/all.yaml" || die "kustomize build $OVERLAY failed"
else
    k kustomize "$OVERLAY" >"$TMP/all.yaml" || die "kubectl kustomize $OVERLAY failed"
fi
JOBS='app.kubernetes.io/component in (prepare,shard,merge)'
NOT_JOBS='app.kubernetes.io/component notin (prepare,shard,merge)'

# A previous run's Jobs, pods and start time go first: Job specs are immutable, and a stale
# aops-run would release the new shards at an instant in the past.
k -n "$NS" delete job aops-prepare aops-shard aops-merge --ignore-not-found --cascade=foreground --wait=true >/dev/null 2>&1 || true
k -n "$NS" delete configmap aops-run --ignore-not-found >/dev/null 2>&1 || true

k apply -f "$TMP/all.yaml" -l "$NOT_JOBS" >/dev/null || die "kubectl apply of $OVERLAY failed"

if ! k -n "$NS" get secret aops-credentials >/dev/null 2>&1; then
    stack_inside="$(k -n "$NS" get statefulset -o name 2>/dev/null | wc -l)"
    umask 077
    if [ -n "${AWS_ACCESS_KEY_ID:-}" ] && [ -n "${AWS_SECRET_ACCESS_KEY:-}" ] && [ -n "${MARIADB_PASSWORD:-}" ]; then
        printf 'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nMARIADB_PASSWORD=%s\n' \
            "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$MARIADB_PASSWORD" >"$TMP/creds.env"
    elif [ "$stack_inside" -gt 0 ]; then
        rnd() { head -c 18 /dev/urandom | base64 | tr '+/' 'xy'; }
        printf 'AWS_ACCESS_KEY_ID=aops%s\nAWS_SECRET_ACCESS_KEY=%s\nMARIADB_PASSWORD=%s\n' \
            "$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')" "$(rnd)" "$(rnd)" >"$TMP/creds.env"
        say "made Secret aops-credentials with random credentials for the in-cluster stack"
    else
        die "Secret aops-credentials is missing in namespace $NS: create it (README.md) or export AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and MARIADB_PASSWORD"
    fi
    umask 022
    # From a file, so no secret is ever on a command line.
    k -n "$NS" create secret generic aops-credentials --from-env-file="$TMP/creds.env" >/dev/null ||
        die "cannot create Secret aops-credentials"
    rm -f "$TMP/creds.env"
fi

for sts in $(k -n "$NS" get statefulset -o name 2>/dev/null); do
    say "waiting for $sts"
    k -n "$NS" rollout status "$sts" --timeout="${TIMEOUT}s" >/dev/null || die "$sts did not become ready"
done

# Waits for Job $1 to end; prints Complete or Failed.
wait_job() {
    local job="$1" deadline=$(($(date +%s) + TIMEOUT)) c
    while :; do
        c="$(k -n "$NS" get job "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null || true)"
        case " $c " in *" Complete "*) echo Complete; return ;; *" Failed "*) echo Failed; return ;; esac
        [ "$(date +%s)" -lt "$deadline" ] || die "Job $job did not end within ${TIMEOUT}s"
        sleep 1
    done
}
logs() { # logs JOB CONTAINER: every pod's log, each line prefixed with its pod
    k -n "$NS" logs -l "batch.kubernetes.io/job-name=$1" -c "$2" --prefix --tail=-1 --max-log-requests=1000 2>&1 || true
}

# ---- 2. prepare ---------------------------------------------------------------------------------
say "preparing (Job aops-prepare)"
k apply -f "$TMP/all.yaml" -l 'app.kubernetes.io/component=prepare' >/dev/null || die "cannot create Job aops-prepare"
st="$(wait_job aops-prepare)"
logs aops-prepare prepare >"$OUT/prepare.log"
[ "$st" = Complete ] || { tail -n 20 "$OUT/prepare.log" >&2; die "Job aops-prepare failed; log: $OUT/prepare.log"; }

# ---- 3. shards: create, wait until each holds for aops-run, then set the start ----------------
shards="$(k -n "$NS" get configmap aops-config -o jsonpath='{.data.AOPS_SHARDS}')"
[[ "$shards" =~ ^[0-9]+$ ]] || die "cannot read AOPS_SHARDS from ConfigMap aops-config"
k apply -f "$TMP/all.yaml" -l 'app.kubernetes.io/component=shard' >/dev/null || die "cannot create Job aops-shard"
say "Job aops-shard: waiting for $shards pods to have their corpus"
deadline=$(($(date +%s) + TIMEOUT))
while :; do
    # Pods whose init containers all ended with 0 and whose main container waits for aops-run
    # and nothing else (any other config error is a failure, not a wait).
    ready="$(k -n "$NS" get pods -l batch.kubernetes.io/job-name=aops-shard -o json | jq '[.items[]
        | select(all(.status.initContainerStatuses[]?; .state.terminated.exitCode == 0)
                 and any(.status.containerStatuses[]?; .state.waiting.reason == "CreateContainerConfigError"
                                                      and (.state.waiting.message | test("aops-run"))))] | length')"
    failed="$(k -n "$NS" get pods -l batch.kubernetes.io/job-name=aops-shard -o json | jq '[.items[]
        | select(.status.phase == "Failed"
                 or any(.status.initContainerStatuses[]?; (.state.terminated.exitCode // 0) != 0)
                 or any(.status.containerStatuses[]?; .state.waiting.reason == "CreateContainerConfigError"
                                                      and (.state.waiting.message | test("aops-run") | not))
                 or any(.status.containerStatuses[]?; .state.waiting.reason == "ErrImageNeverPull"))] | length')"
    if [ "$failed" -ne 0 ]; then
        logs aops-shard corpus >&2
        k -n "$NS" get pods -l batch.kubernetes.io/job-name=aops-shard -o json |
            jq -r '.items[] | .metadata.name + ": " + ([.status.containerStatuses[]?.state.waiting | select(.) | .reason + " " + (.message // "")] | join("; "))' >&2
        die "a shard pod failed before the start (above)"
    fi
    [ "$ready" -lt "$shards" ] || break
    [ "$(date +%s)" -lt "$deadline" ] || die "only $ready of $shards shard pods got ready within ${TIMEOUT}s"
    sleep 1
done
start=$(($(date +%s) + MARGIN))
START_AT="$(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
k -n "$NS" create configmap aops-run --from-literal=AOPS_RUN_NAME="$RUN_NAME" --from-literal=AOPS_START_AT="$START_AT" >/dev/null ||
    die "cannot create ConfigMap aops-run"
k -n "$NS" label configmap aops-run app.kubernetes.io/part-of=aops-harness >/dev/null || true
say "run $RUN_NAME: $shards shards start at $START_AT (in ${MARGIN}s)"
st="$(wait_job aops-shard)"
for i in $(seq 0 $((shards - 1))); do
    pod="$(k -n "$NS" get pods -l "batch.kubernetes.io/job-name=aops-shard,batch.kubernetes.io/job-completion-index=$i" -o name | head -n1)"
    [ -n "$pod" ] && k -n "$NS" logs "$pod" -c harness >"$OUT/shard-$i.log" 2>&1 || true
done
say "Job aops-shard: $st (logs: $OUT/shard-*.log)"

# ---- 4. merge -----------------------------------------------------------------------------------
k apply -f "$TMP/all.yaml" -l 'app.kubernetes.io/component=merge' >/dev/null || die "cannot create Job aops-merge"
st="$(wait_job aops-merge)"
logs aops-merge merge >"$OUT/merge.log"
[ "$st" = Complete ] || { tail -n 20 "$OUT/merge.log" >&2; die "Job aops-merge failed; log: $OUT/merge.log"; }
k -n "$NS" logs job/aops-merge -c result >"$OUT/result.json" || die "cannot read the merged result from Job aops-merge"
jq -e . "$OUT/result.json" >/dev/null 2>&1 || die "the merged result is not JSON; see $OUT/result.json"
if [ -x "$ROOT/harness" ]; then
    "$ROOT/harness" report "$OUT" -o "$OUT/report.html" >/dev/null 2>&1 && say "report: $OUT/report.html"
fi
valid="$(jq -r .valid "$OUT/result.json")"
say "merged result: $OUT/result.json (also s3://aops-results/$RUN_NAME/merged/); valid: $valid; AOPS $(jq -r '.totals.aops // "?"' "$OUT/result.json")"
[ "$valid" = true ] || { jq -r '.invalid_reasons[]? | "run.sh: invalid: " + .' "$OUT/result.json" >&2; exit 1; }
