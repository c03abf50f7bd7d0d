#!/usr/bin/env bash
# The stack's servers measured from their own cgroups (scripts/stack up records them in the
# stack dir): while MinIO serves GETs and MariaDB runs queries, the software counters of
# perf_event_open on the server's cgroup (coordinator/perfctr.c) agree with the CPU time of
# its cgroup files (containers/cgroup_stat.c) within 10 %, and the CPU seen is the load's.
# (task-clock also holds time the hypervisor stole while the server ran, which the cgroup's
# CPU time leaves out: the machine's steal over the window is allowed on top.)
. "$(dirname "$0")/../lib.sh"

DRIVER=$ROOT/build/asan/tests/test_perfctr
SD=${AOPS_STACK_DIR:-$ROOT/.local/stack}
CREDS=${AOPS_CREDENTIALS:-$SD/credentials}
[ -x "$DRIVER" ] || { fail "no $DRIVER: run make asan"; finish; }
kv() { sed -n "s/^$1=//p" "$CREDS" | head -n1; }
SECS=3

watch() { # watch SERVER -> the driver's output over SECS seconds, in $TMP/SERVER.watch
    local cg pc
    cg="$(cat "$SD/$1/cgroup" 2>/dev/null)"; pc="$(cat "$SD/$1/perf_cgroup" 2>/dev/null)"
    "$DRIVER" watch "${pc:-none}" "${cg:-none}" "$SECS" >"$TMP/$1.watch" 2>&1
}

agree() { # agree SERVER MIN_CPU_S
    local name=$1 min=$2 out tc cpu st
    out="$(cat "$TMP/$name.watch")"
    tc="$(sed -n 's/.*task_clock_s=\([0-9.-]*\).*/\1/p' <<<"$out")"
    cpu="$(sed -n 's/.*cgroup_cpu_s=\([0-9.-]*\).*/\1/p' <<<"$out")"
    st="$(sed -n 's/.*steal_s=\([0-9.-]*\).*/\1/p' <<<"$out")"
    check "$name: counted (${out:0:300})" test -n "$tc" -a -n "$cpu"
    [ -n "$tc" ] && [ -n "$cpu" ] || return
    check "$name: its cgroup used at least ${min} s CPU under load ($cpu s)" awk -v c="$cpu" -v m="$min" 'BEGIN { exit !(c >= m) }'
    check "$name: task-clock $tc s within 10 % of cgroup CPU $cpu s (+ steal $st s)" \
        awk -v t="$tc" -v c="$cpu" -v s="${st:-0}" 'BEGIN { exit !(c > 0 && t >= 0.9 * c && t <= 1.1 * c + s) }'
    local hw; hw="$(jq -r '.cycles.status' <<<"$(head -n1 <<<"$out")")"
    if [ -e /sys/bus/event_source/devices/cpu ]; then
        check "$name: cycles counted or explained ($hw)" test -n "$hw"
    else
        check_eq "$name: no PMU here, cycles unsupported" unsupported "$hw"
    fi
    echo "$name: $(tail -n1 <<<"$out")"
}

for s in minio mariadb; do
    check "$s: the stack recorded its cgroup ($(cat "$SD/$s/cgroup.unavailable" 2>/dev/null))" test -s "$SD/$s/cgroup"
done

# --- MinIO under GETs ----------------------------------------------------------------------
E="$(kv S3_ENDPOINT)"
CURLCFG="$TMP/curl.cfg"
(umask 077; printf 'user = "%s:%s"\n' "$(kv AWS_ACCESS_KEY_ID)" "$(kv AWS_SECRET_ACCESS_KEY)" >"$CURLCFG")
s3() { curl -s -K "$CURLCFG" --aws-sigv4 "aws:amz:us-east-1:s3" "$@"; }
BUCKET=aops-it-servercpu
s3 -o /dev/null -X PUT "$E/$BUCKET"
head -c $((1 << 20)) /dev/urandom >"$TMP/obj"
check_eq "object uploaded" 200 "$(s3 -o /dev/null -w '%{http_code}' -T "$TMP/obj" "$E/$BUCKET/obj")"
watch minio & w=$!
end=$((SECONDS + SECS))
while [ "$SECONDS" -lt "$end" ]; do s3 -o /dev/null "$E/$BUCKET/obj"; done
wait "$w"
agree minio 0.05
s3 -o /dev/null -X DELETE "$E/$BUCKET/obj"
s3 -o /dev/null -X DELETE "$E/$BUCKET"

# --- MariaDB under queries -----------------------------------------------------------------
CNF="$TMP/client.cnf"
(umask 077; printf '[client]\nuser=%s\npassword=%s\nhost=127.0.0.1\nport=%s\n' "$(kv MARIADB_USER)" \
    "$(kv MARIADB_PASSWORD)" "$(kv MARIADB_PORT)" >"$CNF")
watch mariadb & w=$!
mariadb --defaults-extra-file="$CNF" --protocol=tcp -N -B -e "SELECT BENCHMARK(20000000, MD5('aops'))" >/dev/null 2>&1 &
q=$!
wait "$w"; wait "$q" # the query ends by itself a little after the window
agree mariadb 0.3
finish
