#!/usr/bin/env bash
# The compose demo brought up for real on the local Docker engine: `docker-compose up --build`
# of docker-compose.yml (MinIO, MariaDB and the harness, all built from debian:bookworm) on the
# tiny profile with 2 containers, under a project name of its own. The run must leave a valid
# result.json with 2 x 1,340 operations in its results folder, with the worker cgroups made
# inside the harness container, the compose Prometheus must hold the run's last scraped
# operation counts (= result.json's), and a memhog run in the same service must see its workers
# OOM-killed (the limit is real); `docker-compose down -v` must leave no container, network
# or volume of the project. When no engine answers, scripts/docker up starts dockerd and this
# test stops it again; an engine that cannot start is a failure, never a skip.
# The images are built before the suite by make test's setup (scripts/setup --tests runs
# scripts/docker images); then this takes well under a minute. Cold (nothing built) it would
# build them itself (`up --build`), which takes longer than the per-test timeout.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
cd "$ROOT" || exit 1

PROJECT="aopstest$$"
N=2
STARTED_ENGINE=0
COMPOSE=(docker-compose -f "$ROOT/docker-compose.yml" --project-directory "$ROOT" -p "$PROJECT")

cleanup() {
    "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
    if [ "$STARTED_ENGINE" = 1 ]; then scripts/docker down >/dev/null 2>&1 || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v docker-compose >/dev/null 2>&1 || { fail "docker-compose is not installed (make setup installs it)"; finish; }
command -v docker >/dev/null 2>&1 || { fail "docker is not installed (make setup installs docker.io)"; finish; }

if ! timeout 10 docker info >/dev/null 2>&1; then
    if ! out="$(scripts/docker up 2>&1)"; then
        fail "the Docker engine cannot start: $out"
        finish
    fi
    STARTED_ENGINE=1
fi
pass "a Docker engine answers ($(docker info -f '{{.ServerVersion}}, cgroup v{{.CgroupVersion}}, {{.Driver}}' 2>/dev/null))"

if out="$(scripts/docker base 2>&1)"; then pass "debian:bookworm is there ($out)"; else fail "$out"; finish; fi
scripts/docker certs >/dev/null || fail "scripts/docker certs failed"

# Secrets of this run only; the results folder is the test's own.
export AWS_ACCESS_KEY_ID="aopstest$RANDOM$RANDOM"
export AWS_SECRET_ACCESS_KEY="secret-$RANDOM$RANDOM$RANDOM"
export MARIADB_PASSWORD="db'pw\\$RANDOM$RANDOM"   # a quote and a backslash: the entrypoint must quote
export AOPS_RESULTS="$TMP/results" AOPS_PROFILE=tiny AOPS_CONTAINERS=$N
mkdir -p "$AOPS_RESULTS"

t0=$SECONDS
timeout 1800 "${COMPOSE[@]}" up --build --abort-on-container-exit --exit-code-from harness \
    >"$TMP/up.log" 2>&1
rc=$?
echo "docker-compose up took $((SECONDS - t0))s"
if [ "$rc" -eq 0 ]; then
    pass "docker-compose up: the harness exited 0"
else
    fail "docker-compose up exited $rc; its last lines:"
    grep -v -E '^ ---> |^Step |^Removing intermediate' "$TMP/up.log" | tail -n 25 >&2
fi

mapfile -t results < <(find "$AOPS_RESULTS" -name result.json)
check_eq "one result.json in the results folder" 1 "${#results[@]}"
if [ "${#results[@]}" -ge 1 ]; then
    R="${results[0]}"
    check "result.json is valid JSON, the run valid with no reasons" jq -e '.valid == true and (.invalid_reasons | length == 0)' "$R"
    check_eq "$N x 1,340 operations" $((1340 * N)) "$(jq_ .totals.ops "$R")"
    check_eq "no errors" 0 "$(jq_ .totals.errors "$R")"
    check_eq "s3 / db / search ops" "$((1190 * N)) $((50 * N)) $((100 * N))" \
        "$(jq_ '"\(.workloads.s3.ops) \(.workloads.db.ops) \(.workloads.search.ops)"' "$R")"
    check_eq "$N containers, none OOM-killed, all exited 0" "$N 0 0" \
        "$(jq_ '"\(.containers | length) \([.containers[] | select(.oom_killed)] | length) \([.containers[] | select(.exit_status != 0)] | length)"' "$R")"
    cg="$(jq_ .config.cgroups "$R")"
    check_contains "worker cgroups made inside the container (config.cgroups: $cg)" "cgroup v" "$cg"
    check "a memory limit per worker" jq -e '.config.memory_limit_bytes > 0' "$R"
    check "servers are the images' MinIO and MariaDB" jq -e '(.system.backends.s3 | test("MinIO")) and (.system.backends.db | test("MariaDB"))' "$R"
    if grep -qF -e "$AWS_SECRET_ACCESS_KEY" -e "$MARIADB_PASSWORD" "$R"; then
        fail "a secret appears in result.json"
    else
        pass "no secret in result.json"
    fi
fi

# Prometheus scraped the run: restarted on its own volume after the harness exited (which
# stopped every service), it holds as the last scraped aops_operations_total per workload
# exactly result.json's ops.
"${COMPOSE[@]}" start prometheus >"$TMP/prom-start.log" 2>&1 || fail "docker-compose start prometheus: $(tail -n1 "$TMP/prom-start.log")"
PQ=("${COMPOSE[@]}" exec -T prometheus promtool query instant -o json http://localhost:9090)
for _ in $(seq 120); do "${PQ[@]}" up >/dev/null 2>&1 && break; sleep 0.5; done
prom="$("${PQ[@]}" 'last_over_time(aops_operations_total[1h])' 2>"$TMP/prom.err" |
    jq -c -S 'map({(.metric.workload): (.value[1] | tonumber)}) | add // {}' 2>/dev/null)"
echo "Prometheus: last_over_time(aops_operations_total[1h]) by workload = $prom"
if [ "${#results[@]}" -ge 1 ]; then
    check_eq "Prometheus' last scraped aops_operations_total per workload = result.json's ops" \
        "$(jq -c -S '.workloads | map_values(.ops)' "${results[0]}")" "$prom"
fi
check_eq "Prometheus saw the run end valid (aops_run_valid)" 1 \
    "$("${PQ[@]}" 'last_over_time(aops_run_valid[1h])' 2>/dev/null | jq -r '.[0].value[1]' 2>/dev/null)"
"${COMPOSE[@]}" stop prometheus >/dev/null 2>&1

# The limit is enforced inside the container: memhog workers under a 96 MiB limit are
# OOM-killed, and the harness says so (an invalid run, exit 1).
"${COMPOSE[@]}" run --rm --no-deps harness containers/entrypoint.sh --containers 2 \
    --workloads memhog --memory-limit 96M --out /opt/aops/results/oom --quiet --metrics-linger 0 >"$TMP/oom.log" 2>&1
rc=$?
check_eq "memhog run exits 1 (invalid)" 1 "$rc"
O="$AOPS_RESULTS/oom/result.json"
if [ -f "$O" ]; then
    check_eq "both memhog workers OOM-killed inside the container" 2 "$(jq_ '[.containers[] | select(.oom_killed)] | length' "$O")"
    check "the run is invalid, OOM named in the reasons" jq -e '.valid == false and (.invalid_reasons | any(test("OOM-killed")))' "$O"
else
    fail "the memhog run left no result.json: $(tail -n3 "$TMP/oom.log")"
fi

# The images the project used are the ones scripts/docker images names.
for img in aops-harness:local aops-minio:local aops-mariadb:local aops-prometheus:local; do
    check "image $img exists" docker image inspect "$img"
done

"${COMPOSE[@]}" down -v --remove-orphans >"$TMP/down.log" 2>&1 || fail "docker-compose down -v failed: $(tail -n1 "$TMP/down.log")"
label="label=com.docker.compose.project=$PROJECT"
check_eq "no container of the project left" "" "$(docker ps -aq --filter "$label")"
check_eq "no network of the project left" "" "$(docker network ls -q --filter "$label")"
check_eq "no volume of the project left" "" "$(docker volume ls -q --filter "$label")"

finish
