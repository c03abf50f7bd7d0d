#!/usr/bin/env bash
# Offline test of deploy/kubernetes: every overlay renders with a real kustomize, passes
# `kubernetes-validate --strict` against the Kubernetes version the project targets (unknown
# fields and wrong types are errors), and keeps the facts a sharded run depends on:
#   - aops-shard is an Indexed Job with backoffLimit 0 and completions = parallelism =
#     aops-config's AOPS_SHARDS, its pod index feeding --shard, one common --start-at from
#     ConfigMap aops-run, its result PUT under the run's prefix;
#   - a headless Service matching the --rendezvous pattern; one shard per node (cluster
#     overlays); the shard memory limit covers its workers' limits;
#   - prepare covers all shards' workers; merge reads and writes the run's prefix;
#   - secrets only through secretKeyRef, never a literal, never on argv, no Secret rendered;
#   - the local overlay pulls nothing, runs on the host network and writes nothing to the host;
#   - the shard pod's shell, run with a stand-in harness: an invalid shard (exit 1) succeeds,
#     so it cannot fail the Job and stop the other shards; SIGTERM reaches the harness.
# Then it feeds broken variants to the same checks and requires each to be caught, so a check
# that stopped biting fails the test. Needs deploy/kubernetes/tools.sh (kustomize,
# kubernetes-validate). Takes a few seconds.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"

K8S_SCHEMA_VERSION=1.34.0   # tests/k8s/run-local-cluster.sh runs v1.34.x
DEPLOY="$ROOT/deploy/kubernetes"
OVERLAYS=(cluster external local)
TOOLS="$ROOT/.local/k8s-tools"

# ---- tools: a real kustomize and kubernetes-validate, or a clear failure -------------------
# Installed here on first use (a second run only checks; make test's setup installs them too).
"$ROOT/deploy/kubernetes/tools.sh" || { echo "FAIL: deploy/kubernetes/tools.sh could not install kustomize and kubernetes-validate (above)" >&2; exit 1; }
KUSTOMIZE=()
if [ -x "$TOOLS/bin/kustomize" ]; then KUSTOMIZE=("$TOOLS/bin/kustomize" build)
elif command -v kustomize >/dev/null 2>&1; then KUSTOMIZE=(kustomize build)
elif command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then KUSTOMIZE=(kubectl kustomize)
fi
VALIDATE="$TOOLS/venv/bin/kubernetes-validate"
PY="$TOOLS/venv/bin/python"
if [ ${#KUSTOMIZE[@]} -eq 0 ] || [ ! -x "$VALIDATE" ] || [ ! -x "$PY" ]; then
    echo "FAIL: kustomize or kubernetes-validate missing: deploy/kubernetes/tools.sh did not install them" >&2
    exit 1
fi
command -v jq >/dev/null 2>&1 || { echo "FAIL: jq missing" >&2; exit 1; }

yaml2json() { # FILE.yaml -> a JSON array of its documents
    "$PY" -c 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], sys.stdout)' "$1"
}

# ---- the facts, as one jq program over the rendered documents: prints one line per broken
# fact (nothing when all hold). $overlay says which overlay's rules apply. ---------------------
read -r -d '' FACTS <<'JQ'
def q2bytes:   # a Kubernetes quantity or a harness size (4G, 256M: binary) in bytes
  tostring | capture("^(?<n>[0-9]+)(?<u>[A-Za-z]*)$") as $m
  | ($m.n | tonumber) * ({"": 1, "Ki": 1024, "Mi": 1048576, "Gi": 1073741824,
                           "K": 1024, "M": 1048576, "G": 1073741824}[$m.u]
                          // error("unsupported unit in \(.)"));
def one($k; $n): [.[] | select(.kind == $k and .metadata.name == $n)]
  | if length == 1 then .[0] else error("expected one \($k) \($n), found \(length)") end;
def pod: .spec.template.spec;
def containers: (pod.initContainers // []) + pod.containers;
def argv: (.command // []) + (.args // []);
def after($flag): . as $a | ($a | index([$flag])) as $i | if $i == null then null else $a[$i + 1] end;
def secretkeys: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "MARIADB_PASSWORD",
                 "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "MARIADB_ROOT_PASSWORD"];

. as $docs
| one("ConfigMap"; "aops-config").data as $cfg
| one("Job"; "aops-shard") as $shard
| one("Job"; "aops-prepare") as $prep
| one("Job"; "aops-merge") as $merge
| ($shard | pod.containers[] | select(.name == "harness")) as $h
| [ .[] | select(.spec.template.spec) ] as $workloads
| [
  # the Indexed Job
  (if $shard.spec.completionMode != "Indexed" then "aops-shard: completionMode is \($shard.spec.completionMode), not Indexed" else empty end),
  (if $shard.spec.backoffLimit != 0 then "aops-shard: backoffLimit is \($shard.spec.backoffLimit), not 0" else empty end),
  (if $shard.spec.completions != $shard.spec.parallelism then "aops-shard: completions \($shard.spec.completions) != parallelism \($shard.spec.parallelism)" else empty end),
  (if ($shard.spec.completions | tostring) != $cfg.AOPS_SHARDS then "aops-shard: completions \($shard.spec.completions) != AOPS_SHARDS \($cfg.AOPS_SHARDS)" else empty end),
  (if ($shard | pod.restartPolicy) != "Never" then "aops-shard: restartPolicy is not Never" else empty end),
  ($h | argv) as $a
  | (if $a | index(["run"]) | not then "aops-shard: not `harness run`" else empty end),
    (if ($a | after("--shard")) != "$(JOB_COMPLETION_INDEX)/$(AOPS_SHARDS)" then "aops-shard: --shard is \($a | after("--shard")), not $(JOB_COMPLETION_INDEX)/$(AOPS_SHARDS)" else empty end),
    (if ($a | after("--containers")) != "$(AOPS_CONTAINERS)" then "aops-shard: --containers is not $(AOPS_CONTAINERS)" else empty end),
    (if ($a | after("--profile")) != "$(AOPS_PROFILE)" then "aops-shard: --profile is not $(AOPS_PROFILE)" else empty end),
    (if ($a | after("--start-at")) != "$(AOPS_START_AT)" then "aops-shard: --start-at is not $(AOPS_START_AT)" else empty end),
    (if ($a | after("--results-url")) != "s3://aops-results/$(AOPS_RUN_NAME)/" then "aops-shard: --results-url is \($a | after("--results-url"))" else empty end),
    (if $overlay == "local" then
       (if $a | index(["--rendezvous"]) then "local: --rendezvous needs cluster DNS, which the local cluster has not" else empty end)
     else
       (if ($a | after("--peers")) != "$(AOPS_SHARDS)" then "aops-shard: --peers is not $(AOPS_SHARDS)" else empty end),
       (if ($a | after("--rendezvous")) != "\($shard.metadata.name)-{i}.\($shard | pod.subdomain)" then "aops-shard: --rendezvous \($a | after("--rendezvous")) does not match the pod names \($shard.metadata.name)-<i>.\($shard | pod.subdomain)" else empty end)
     end),
  ($h.env // [] | map(select(.name == "JOB_COMPLETION_INDEX"))[0].valueFrom.fieldRef.fieldPath) as $ix
  | (if $ix != "metadata.annotations['batch.kubernetes.io/job-completion-index']" then "aops-shard: JOB_COMPLETION_INDEX does not come from the completion index annotation" else empty end),
  ($h.env // [] | map(select(.name == "AOPS_START_AT"))[0].valueFrom.configMapKeyRef.name) as $st
  | (if $st != "aops-run" then "aops-shard: AOPS_START_AT does not come from ConfigMap aops-run (one value for every pod)" else empty end),
  # the live metrics: --metrics-listen's port = container port "metrics" = the scrape
  # annotations; one run_id for every shard (the run directory's name); a linger that
  # outlasts a scrape interval (the local overlay's shards share one host network: none)
  (if $overlay != "local" then
     (($h | argv | after("--metrics-listen")) // "") as $ml
     | ([$ml | capture(":(?<p>[0-9]+)$")? | .p] | .[0]) as $mp
     | ($h.ports // [] | map(select(.name == "metrics")) | .[0].containerPort | tostring) as $cp
     | ($shard.spec.template.metadata.annotations // {}) as $an
     | (if $mp == null then "aops-shard: no --metrics-listen :PORT (\($ml))" else empty end),
       (if $mp != null and $cp != $mp then "aops-shard: container port metrics (\($cp)) is not --metrics-listen's \($mp)" else empty end),
       (if $an["prometheus.io/scrape"] != "true" or $an["prometheus.io/port"] != $mp or $an["prometheus.io/path"] != "/metrics"
        then "aops-shard: the prometheus.io/* annotations do not name --metrics-listen's port and /metrics" else empty end),
       (if ($h | argv | after("--out")) != "results/$(AOPS_RUN_NAME)" then "aops-shard: --out is not results/$(AOPS_RUN_NAME) (the run_id label all shards share)" else empty end),
       (if (($h | argv | after("--metrics-linger")) // "0" | tonumber) < 15 then "aops-shard: --metrics-linger under 15 s: the last scrape may miss the final figures" else empty end)
   else empty end),
  # its memory covers its workers
  (($h.resources.limits.memory // "0" | q2bytes) as $lim
   | (($cfg.AOPS_CONTAINERS | tonumber) * ($cfg.AOPS_MEMORY_LIMIT | q2bytes) + 536870912) as $need
   | if $lim < $need then "aops-shard: memory limit \($h.resources.limits.memory) < AOPS_CONTAINERS x AOPS_MEMORY_LIMIT + 512Mi = \($need / 1048576) Mi" else empty end),
  (if $h.resources.requests.memory != $h.resources.limits.memory then "aops-shard: memory request != limit" else empty end),
  # the headless Service behind the rendezvous names
  (one("Service"; $shard | pod.subdomain) as $svc
   | (if $svc.spec.clusterIP != "None" then "Service \($svc.metadata.name): not headless" else empty end),
     (if $svc.spec.publishNotReadyAddresses != true then "Service \($svc.metadata.name): publishNotReadyAddresses is not true" else empty end),
     (if $svc.spec.selector != {"batch.kubernetes.io/job-name": $shard.metadata.name} then "Service \($svc.metadata.name): selector does not select the shard pods" else empty end)),
  # one shard per node, except on the single-node cluster
  ($shard | pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution // []
   | map(select(.topologyKey == "kubernetes.io/hostname"
                and .labelSelector.matchLabels["batch.kubernetes.io/job-name"] == $shard.metadata.name))
   | length) as $spread
  | (if $overlay != "local" and $spread == 0 then "aops-shard: no one-pod-per-node anti-affinity" else empty end),
    (if $overlay == "local" and ($shard | pod.affinity) != null then "local: aops-shard keeps an affinity the single node cannot satisfy" else empty end),
  # prepare covers every shard's workers; merge reads and writes the run's prefix
  (($prep | pod.containers[0] | argv | join(" ")) as $p
   | if ($p | test("harness prepare --containers \"?\\$\\(\\(AOPS_CONTAINERS \\* AOPS_SHARDS\\)\\)\"? --profile \"?\\$AOPS_PROFILE")) | not
     then "aops-prepare: does not prepare AOPS_CONTAINERS x AOPS_SHARDS workers: \($p)" else empty end),
  (($merge | containers | map(select((argv | index(["merge"])) != null)) | .[0] // {} | argv) as $m
   | if ($m | index(["merge", "s3://aops-results/$(AOPS_RUN_NAME)/"])) == null
        or ($m | after("--out")) != "/tmp/merged"
        or ($m | after("--results-url")) != "s3://aops-results/$(AOPS_RUN_NAME)/merged/"
     then "aops-merge: not `harness merge s3://aops-results/<run>/ --out /tmp/merged --results-url .../merged/`: \($m)" else empty end),
  # secrets: secretKeyRef only, never literal, never on argv, never rendered
  ($workloads[] | .kind as $k | .metadata.name as $n | containers[] | .name as $c
   | ((.env // [])[] | select(.name as $e | secretkeys | index([$e]))
      | select(.valueFrom.secretKeyRef.name != "aops-credentials")
      | "\($k) \($n)/\($c): \(.name) is not from Secret aops-credentials"),
     (argv[] | select(test("AWS_SECRET_ACCESS_KEY|AWS_ACCESS_KEY_ID|MARIADB_PASSWORD|MINIO_ROOT_PASSWORD|--password|--secret"))
      | "\($k) \($n)/\($c): a secret on argv: \(.)"),
     (.envFrom // [] | .[] | select(.secretRef) | "\($k) \($n)/\($c): envFrom a whole Secret (name each key)")),
  ($cfg | keys[] | select(. as $e | secretkeys | index([$e])) | "ConfigMap aops-config holds secret \(.)"),
  (.[] | select(.kind == "Secret") | "a Secret is rendered (\(.metadata.name)): credentials must not be committed"),
  # everything in namespace aops
  (.[] | select(.kind != "Namespace" and .metadata.namespace != "aops") | "\(.kind) \(.metadata.name) is not in namespace aops"),
  # images: local pulls nothing; the rest may
  (if $overlay == "local" then
     ($workloads[] | .metadata.name as $n | pod as $p | containers[]
      | (select(.imagePullPolicy != "Never") | "local: \($n)/\(.name) imagePullPolicy \(.imagePullPolicy), not Never"),
        (select(.image | endswith(":local") | not) | "local: \($n)/\(.name) image \(.image) is not a :local image"),
        (select($p.hostNetwork != true) | "local: \($n) is not on the host network (the stack listens on 127.0.0.1)")),
     ($workloads[] | .metadata.name as $n | pod.volumes // [] | .[] | select(.hostPath)
      | "local: \($n) mounts hostPath \(.hostPath.path): the test cluster must leave nothing on the host")
   else empty end),
  # the in-cluster stack, where there is one
  (if $overlay == "cluster" then
     (one("StatefulSet"; "aops-minio") | empty),
     (one("StatefulSet"; "aops-mariadb") | empty),
     (if $cfg.S3_ENDPOINT != "http://\(one("Service"; "aops-minio").metadata.name):\(one("Service"; "aops-minio").spec.ports[0].port)" then "cluster: S3_ENDPOINT \($cfg.S3_ENDPOINT) is not the aops-minio Service" else empty end),
     (if $cfg.MARIADB_HOST != one("Service"; "aops-mariadb").metadata.name or ($cfg.MARIADB_PORT | tonumber) != one("Service"; "aops-mariadb").spec.ports[0].port then "cluster: MARIADB_HOST:PORT is not the aops-mariadb Service" else empty end)
   else
     (.[] | select(.kind == "StatefulSet") | "\($overlay): StatefulSet \(.metadata.name) where the stack is external")
   end)
] | .[]
JQ

facts() { # facts OVERLAY FILE.json: prints broken facts; non-zero when jq itself failed
    jq -r --arg overlay "$1" "$FACTS" "$2"
}

# ---- render, validate, check each overlay ------------------------------------------------
for o in "${OVERLAYS[@]}"; do
    if "${KUSTOMIZE[@]}" "$DEPLOY/overlays/$o" >"$TMP/$o.yaml" 2>"$TMP/$o.err"; then
        pass "$o: kustomize build"
    else
        fail "$o: kustomize build: $(head -n 3 "$TMP/$o.err")"
        continue
    fi
    yaml2json "$TMP/$o.yaml" >"$TMP/$o.json" || { fail "$o: rendered YAML does not parse"; continue; }
    check_eq "$o: rendered the expected objects" \
        "$(case $o in cluster) echo 'ConfigMap Job Job Job Namespace Service Service Service StatefulSet StatefulSet';; *) echo 'ConfigMap Job Job Job Namespace Service';; esac)" \
        "$(jq -r '[.[].kind] | sort | join(" ")' "$TMP/$o.json")"
    out="$(facts "$o" "$TMP/$o.json" 2>&1)"; rc=$?
    if [ $rc -eq 0 ] && [ -z "$out" ]; then pass "$o: sharded-run facts hold"; else fail "$o: $out"; fi
done
rendered=()
for o in "${OVERLAYS[@]}"; do [ -s "$TMP/$o.yaml" ] && rendered+=("$TMP/$o.yaml"); done
if [ ${#rendered[@]} -ne ${#OVERLAYS[@]} ]; then
    fail "kubernetes-validate: not every overlay rendered"
elif "$VALIDATE" --strict --quiet -k "$K8S_SCHEMA_VERSION" "${rendered[@]}" >"$TMP/validate.out" 2>&1; then
    pass "kubernetes-validate --strict (Kubernetes $K8S_SCHEMA_VERSION): ${OVERLAYS[*]}"
else
    fail "kubernetes-validate --strict: $(grep -v '^INFO' "$TMP/validate.out" | head -n 5)"
fi

# ---- components/podmonitor on the cluster overlay: a PodMonitor (the Prometheus operator's CRD,
# which kubernetes-validate has no schema for: it only warns) whose selector and port are the
# shard pods' -------------------------------------------------------------------------------------
read -r -d '' PMFACTS <<'JQ'
. as $docs
| [.[] | select(.kind == "PodMonitor")] as $pm
| (.[] | select(.kind == "Job" and .metadata.name == "aops-shard")) as $shard
| ($shard.spec.template.spec.containers[] | select(.name == "harness")) as $h
| if ($pm | length) != 1 then "expected one PodMonitor, found \($pm | length)" else
  $pm[0] as $m
  | (if $m.metadata.namespace != "aops" then "PodMonitor not in namespace aops" else empty end),
    (if $m.spec.selector.matchLabels != {"batch.kubernetes.io/job-name": $shard.metadata.name} then "PodMonitor: selector does not select the shard pods" else empty end),
    (if ($m.spec.namespaceSelector.matchNames // []) != ["aops"] then "PodMonitor: namespaceSelector is not [aops]" else empty end),
    ($m.spec.podMetricsEndpoints[0] as $e
     | (if ($h.ports // [] | map(.name) | index([$e.port])) == null then "PodMonitor: port \($e.port) is not a port of the shard container" else empty end),
       (if $e.path != "/metrics" then "PodMonitor: path \($e.path), not /metrics" else empty end))
  end
JQ
KM="$TMP/monitored"
mkdir -p "$KM"
rel="$(realpath --relative-to="$KM" "$DEPLOY")"
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s/overlays/cluster\ncomponents:\n  - %s/components/podmonitor\n' "$rel" "$rel" >"$KM/kustomization.yaml"
if "${KUSTOMIZE[@]}" "$KM" >"$TMP/monitored.yaml" 2>"$TMP/monitored.err" && yaml2json "$TMP/monitored.yaml" >"$TMP/monitored.json"; then
    out="$(jq -r "$PMFACTS" "$TMP/monitored.json" 2>&1)"
    if [ -z "$out" ]; then pass "components/podmonitor: one PodMonitor on the shard pods' metrics port"; else fail "components/podmonitor: $out"; fi
    jq '(.[] | select(.kind == "PodMonitor")).spec.podMetricsEndpoints[0].port = "http"' "$TMP/monitored.json" >"$TMP/pm-mutant.json"
    out="$(jq -r "$PMFACTS" "$TMP/pm-mutant.json" 2>&1)"
    if [ -n "$out" ]; then pass "caught: a PodMonitor on another port ($out)"; else fail "not caught: a PodMonitor on another port"; fi
    if "$VALIDATE" --strict --quiet -k "$K8S_SCHEMA_VERSION" "$TMP/monitored.yaml" >"$TMP/validate-pm.out" 2>&1; then
        pass "kubernetes-validate --strict: the cluster overlay with components/podmonitor"
    else
        fail "kubernetes-validate --strict (podmonitor): $(grep -v '^INFO' "$TMP/validate-pm.out" | head -n 5)"
    fi
else
    fail "components/podmonitor: kustomize build: $(head -n 3 "$TMP/monitored.err")"
fi

# ---- MinIO's drives and MariaDB's sizing: the cluster overlay with components/minio-drives-4
# renders, validates, and mounts a volume at every path AOPS_MINIO_DATA_DIRS names (the image's
# entrypoint refuses a path with nothing mounted); MariaDB is sized from aops-config, not argv. --
mkdir -p "$TMP/drives4"
rel4="$(realpath --relative-to="$TMP/drives4" "$DEPLOY")"
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s/overlays/cluster\ncomponents:\n  - %s/components/minio-drives-4\n' \
    "$rel4" "$rel4" >"$TMP/drives4/kustomization.yaml"
drive_facts() { # FILE.json WANT-DRIVES: prints what is wrong with MinIO's drives and MariaDB's sizing
    jq -r --argjson want "$2" '
      (.[] | select(.kind == "StatefulSet" and .metadata.name == "aops-minio")) as $m
      | ($m.spec.template.spec.containers[0]) as $c
      | ([$c.env[] | select(.name == "AOPS_MINIO_DATA_DIRS") | .value][0] // "" | split(",")) as $dirs
      | ([$c.volumeMounts[].mountPath]) as $mounts
      | ([$c.volumeMounts[].name]) as $vols
      | ([$m.spec.volumeClaimTemplates[].metadata.name]) as $claims
      | (.[] | select(.kind == "StatefulSet" and .metadata.name == "aops-mariadb") | .spec.template.spec.containers[0]) as $db
      | (if ($dirs | length) != $want then "minio: \($dirs | length) drives in AOPS_MINIO_DATA_DIRS, want \($want)" else empty end),
        ($dirs[] | select(. as $d | $mounts | index([$d]) | not) | "minio: drive \(.) has no volume mounted"),
        ($vols[] | select(. as $v | $claims | index([$v]) | not) | "minio: mount of \(.) has no volumeClaimTemplate"),
        (if ($claims | unique | length) != $want then "minio: \($claims | unique | length) volumes, want \($want)" else empty end),
        (if ($c.command // []) | length > 0 then "minio: a command replaces the entrypoint that checks the drives" else empty end),
        (if (($db.args // []) | map(select(startswith("--max-connections"))) | length) > 0 then "mariadb: max-connections on argv instead of aops-sizing.sh" else empty end),
        ([$db.env[].name] as $e | ["AOPS_CONTAINERS", "AOPS_SHARDS"][] | select(. as $k | $e | index([$k]) | not) | "mariadb: no \(.) for its sizing")
    ' "$1"
}
if "${KUSTOMIZE[@]}" "$TMP/drives4" >"$TMP/drives4.yaml" 2>"$TMP/drives4.err"; then
    pass "cluster + components/minio-drives-4: kustomize build"
    yaml2json "$TMP/drives4.yaml" >"$TMP/drives4.json"
    out="$(drive_facts "$TMP/drives4.json" 4 2>&1)"
    if [ -z "$out" ]; then pass "minio-drives-4: 4 drives, each a volume of its own, mounted where AOPS_MINIO_DATA_DIRS says; mariadb sized from aops-config"
    else fail "minio-drives-4: $out"; fi
    out="$(drive_facts "$TMP/cluster.json" 1 2>&1)"
    if [ -z "$out" ]; then pass "cluster: MinIO on its one drive, mounted where AOPS_MINIO_DATA_DIRS says"; else fail "cluster: $out"; fi
    if "$VALIDATE" --strict --quiet -k "$K8S_SCHEMA_VERSION" "$TMP/drives4.yaml" >"$TMP/validate4.out" 2>&1; then
        pass "minio-drives-4: kubernetes-validate --strict"
    else
        fail "minio-drives-4: kubernetes-validate --strict: $(grep -v '^INFO' "$TMP/validate4.out" | head -n 5)"
    fi
    # the check bites: a mount path that is not in the list
    jq '(.[] | select(.kind == "StatefulSet" and .metadata.name == "aops-minio") | .spec.template.spec.containers[0].volumeMounts[3].mountPath) = "/elsewhere"' \
        "$TMP/drives4.json" >"$TMP/drives4-bad.json"
    check_contains "a drive without its mount is caught" "drive /data4 has no volume mounted" "$(drive_facts "$TMP/drives4-bad.json" 4)"
else
    fail "cluster + components/minio-drives-4: kustomize build: $(head -n 3 "$TMP/drives4.err")"
fi

# ---- the shard's shell, run: exit 1 (an invalid shard) must not fail the pod, and SIGTERM must
# reach the harness. Run with a stand-in ./harness, and without the cgroup v2 leaf move at its
# top, which must only ever run inside a container. ---------------------------------------------
wrapper_facts() { # wrapper_facts SCRIPT-BODY: prints what is wrong with it
    local body="$1" d="$TMP/wrap" rc out pid i
    rm -rf "$d"; mkdir -p "$d"
    cat >"$d/harness" <<'SH'
#!/bin/sh
# stand-in: "exit N" exits N; "sleep" waits for SIGTERM and exits 130 like the harness
printf '%s\n' "$*" >args
trap 'echo term >got-term; exit 130' TERM
: >trapped
case "$1" in exit) exit "$2" ;; sleep) sleep 30 & wait $! ;; esac
SH
    chmod +x "$d/harness"
    for n in 0 1 2 139; do
        out="$(cd "$d" && sh -c "$body" harness exit "$n" 2>&1)"; rc=$?
        want=$n; [ "$n" -le 1 ] && want=0
        [ "$rc" -eq "$want" ] || echo "harness exit $n: pod would exit $rc, not $want"
        [ "$(cat "$d/args" 2>/dev/null)" = "exit $n" ] || echo "harness exit $n: the harness got '$(cat "$d/args" 2>/dev/null)', not its arguments"
    done
    rm -f "$d/trapped" "$d/args" # the exit cases' leave them
    (cd "$d" && exec sh -c "$body" harness sleep) >/dev/null 2>&1 &
    pid=$!
    # SIGTERM goes once the stand-in's trap is set (it says so in "trapped"), not after a
    # sleep: sent before, it would kill the stand-in and look like a wrapper's fault.
    for ((i = 0; i < 300; i++)); do
        [ -e "$d/trapped" ] && [ "$(cat "$d/args" 2>/dev/null)" = sleep ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$pid"; wait "$pid"; rc=$?
    [ -f "$d/got-term" ] || echo "SIGTERM to the pod's shell did not reach the harness"
    [ "$rc" -eq 130 ] || echo "after SIGTERM the pod exits $rc, not the harness's 130"
}
if [ -f "$TMP/cluster.json" ]; then
    script="$(jq -r '.[] | select(.kind == "Job" and .metadata.name == "aops-shard") | .spec.template.spec.containers[0].command[2]' "$TMP/cluster.json")"
    head="$(sed '/^fi$/q' <<<"$script")"
    body="$(sed '1,/^fi$/d' <<<"$script")"
    check_contains "shard shell: starts with the cgroup v2 leaf move (left out here)" "cgroup.procs" "$head"
    out="$(wrapper_facts "$body")"
    if [ -n "$body" ] && [ -z "$out" ]; then pass "shard shell: exit 0/1 succeed, 2 and 139 fail, SIGTERM reaches the harness"; else fail "shard shell: ${out:-empty}"; fi
    out="$(wrapper_facts 'exec ./harness "$@"')"
    if [ -n "$out" ]; then pass "caught: a plain exec shell ($(head -n 1 <<<"$out"))"; else fail "not caught: a plain exec shell"; fi
fi

# ---- broken variants must be caught ----------------------------------------------------------
mutant() { # mutant "what" OVERLAY JQ-EDIT: the facts must report something for the edited docs
    jq "$3" "$TMP/$2.json" >"$TMP/mutant.json" || { fail "mutant '$1': jq edit failed"; return; }
    out="$(facts "$2" "$TMP/mutant.json" 2>&1)"
    if [ -n "$out" ]; then pass "caught: $1 ($(head -n 1 <<<"$out"))"; else fail "not caught: $1"; fi
}
if [ -f "$TMP/cluster.json" ] && [ -f "$TMP/local.json" ]; then
    SHARD='(.[] | select(.kind == "Job" and .metadata.name == "aops-shard"))'
    H="$SHARD.spec.template.spec.containers[0]"
    mutant "backoffLimit 1" cluster "$SHARD.spec.backoffLimit = 1"
    mutant "NonIndexed" cluster "$SHARD.spec.completionMode = \"NonIndexed\""
    mutant "parallelism != completions" cluster "$SHARD.spec.parallelism = 2"
    mutant "AOPS_SHARDS != completions" cluster '(.[] | select(.kind == "ConfigMap")).data.AOPS_SHARDS = "4"'
    mutant "fixed shard index" cluster "$H.args |= map(if . == \"\$(JOB_COMPLETION_INDEX)/\$(AOPS_SHARDS)\" then \"0/3\" else . end)"
    mutant "start time per pod" cluster "$H.env |= map(if .name == \"AOPS_START_AT\" then {name, value: \"2026-01-01T00:00:00Z\"} else . end)"
    mutant "literal secret in env" cluster "$H.env |= map(if .name == \"MARIADB_PASSWORD\" then {name, value: \"hunter2\"} else . end)"
    mutant "secret on argv" cluster "$H.args += [\"--db-password\", \"\$(MARIADB_PASSWORD)\"]"
    mutant "secret in the ConfigMap" external '(.[] | select(.kind == "ConfigMap")).data.AWS_SECRET_ACCESS_KEY = "x"'
    mutant "rendered Secret" external '. + [{kind: "Secret", apiVersion: "v1", metadata: {name: "aops-credentials", namespace: "aops"}, stringData: {MARIADB_PASSWORD: "x"}}]'
    mutant "memory limit below the workers'" cluster "$H.resources.limits.memory = \"4Gi\" | $H.resources.requests.memory = \"4Gi\""
    mutant "no anti-affinity" cluster "$SHARD.spec.template.spec |= del(.affinity)"
    mutant "rendezvous pattern off the pod names" cluster "$H.args |= map(if . == \"aops-shard-{i}.aops-shard\" then \"shard-{i}.aops-shard\" else . end)"
    mutant "Service not headless" cluster '(.[] | select(.kind == "Service" and .metadata.name == "aops-shard")).spec.clusterIP = "10.0.0.9"'
    mutant "prepare covers one shard" cluster '(.[] | select(.kind == "Job" and .metadata.name == "aops-prepare")).spec.template.spec.containers[0].command[2] = "exec ./harness prepare --containers \"$AOPS_CONTAINERS\" --profile \"$AOPS_PROFILE\""'
    mutant "merge reads another prefix" cluster '(.[] | select(.kind == "Job" and .metadata.name == "aops-merge")).spec.template.spec.initContainers[0].args[1] = "s3://aops-results/"'
    mutant "metrics port off the container port" cluster "$H.ports[0].containerPort = 9471"
    mutant "scrape annotation on another port" cluster "$SHARD.spec.template.metadata.annotations[\"prometheus.io/port\"] = \"9100\""
    mutant "no --metrics-listen" cluster "$H.args |= (index([\"--metrics-listen\"]) as \$i | del(.[\$i, \$i + 1]))"
    mutant "a run_id per shard (default --out)" cluster "$H.args |= (index([\"--out\"]) as \$i | del(.[\$i, \$i + 1]))"
    mutant "local pulls an image" local "$H.imagePullPolicy = \"IfNotPresent\""
    mutant "local off the host network" local "$SHARD.spec.template.spec.hostNetwork = false"
    mutant "local writes to the host" local "$SHARD.spec.template.spec.volumes[0] = {name: \"corpus\", hostPath: {path: \"/var/lib/aops/corpus\"}}"
    # and the schema check bites: an unknown field, a wrong type
    for edit in 's/completionMode: Indexed/completionMod: Indexed/' 's/backoffLimit: 0/backoffLimit: "0"/'; do
        sed "$edit" "$TMP/local.yaml" >"$TMP/mutant.yaml"
        if cmp -s "$TMP/local.yaml" "$TMP/mutant.yaml"; then
            fail "schema mutant '$edit' changed nothing"
        elif "$VALIDATE" --strict --quiet -k "$K8S_SCHEMA_VERSION" "$TMP/mutant.yaml" >"$TMP/mutant.out" 2>&1; then
            fail "kubernetes-validate --strict accepted: $edit"
        else
            pass "kubernetes-validate caught: $edit"
        fi
    done
else
    fail "no rendered overlay to break"
fi

finish
