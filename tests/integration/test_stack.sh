#!/usr/bin/env bash
# Integration test for scripts/stack on a second, private stack (own dir, own ports), so the
# main stack under .local/stack is not disturbed: up -> healthy, up twice is a no-op, a query
# as the harness user, MinIO health and an authenticated S3 call, each server in a cgroup of its
# own (recorded in the stack dir, holding its pid, removed on down), no descriptor of the
# caller's kept open by the servers, MinIO's metrics readable without a token, down leaves nothing, stale pid files, a port already in use, credentials
# file format and mode.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
STACK="$ROOT/scripts/stack"

export AOPS_STACK_DIR="$TMP/stack"
export AOPS_MINIO_PORT="${TEST_MINIO_PORT:-$(free_port 19000)}"
export AOPS_MINIO_CONSOLE_PORT="${TEST_MINIO_CONSOLE_PORT:-$(free_port $((AOPS_MINIO_PORT + 1)))}"
export AOPS_MARIADB_PORT="${TEST_MARIADB_PORT:-$(free_port 13307)}"
MP="$AOPS_STACK_DIR/minio/minio.pid"
DP="$AOPS_STACK_DIR/mariadb/mariadbd.pid"
BLOCKER=""

cleanup() {
    [ -n "$BLOCKER" ] && kill "$BLOCKER" 2>/dev/null
    "$STACK" down >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT

# every aops-stack cgroup of this test's ports, in any hierarchy
cg_left() {
    find /sys/fs/cgroup -maxdepth 8 -type d \( -name "aops-stack-minio-$AOPS_MINIO_PORT" \
        -o -name "aops-stack-mariadb-$AOPS_MARIADB_PORT" \) 2>/dev/null
}
perf_cgroups() { # the kernel has the perf_event cgroup controller
    awk '$1 == "perf_event" && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups
}
cg_cpu_usec() { # CPU time in microseconds of a cgroup directory (v2 or v1 cpuacct)
    if grep -q '^usage_usec ' "$1/cpu.stat" 2>/dev/null; then awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"
    else echo $(($(cat "$1/cpuacct.usage") / 1000)); fi
}

gone() { # gone PID: true once PID is no live process (absent or a zombie), waiting up to 5 s
    local i
    for ((i = 0; i < 50; i++)); do
        [ -d "/proc/$1" ] || return 0
        [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ] && return 0
        sleep 0.1
    done
    return 1
}

# A refused up's servers are killed on the way out and their exit and cgroup
# removal may trail it a little (more on a loaded box): wait for nothing to be
# left, seen, up to 10 s, instead of sleeping a fixed time, then assert.
settled() {
    local i
    for ((i = 0; i < 100; i++)); do
        ! ps -eo args | grep -F "$AOPS_STACK_DIR" | grep -qv grep && [ -z "$(cg_left)" ] && return 0
        sleep 0.1
    done
    return 1
}

for p in "$AOPS_MINIO_PORT" "$AOPS_MINIO_CONSOLE_PORT" "$AOPS_MARIADB_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        echo "FAIL: test port $p is already in use; set TEST_MINIO_PORT/TEST_MARIADB_PORT" >&2; exit 1
    fi
done

# --- up, status ------------------------------------------------------------------------------
# Under a lock the caller holds (/usr/bin/flock without -o: the lock's descriptor is open in
# `stack up`): the servers it starts must not inherit the descriptor and keep the lock after
# the command ends (everyone waiting on that lock then waited for the stack to stop).
# The first up also takes its MariaDB password from the environment: one with a backslash,
# quotes and SQL after them, which provisioning must store as a password and never run.
HOSTILE_PW="p\\'; CREATE DATABASE pwned; -- \\x\"y z"
out="$(MARIADB_PASSWORD="$HOSTILE_PW" /usr/bin/flock "$TMP/caller.lock" "$STACK" up 2>&1)"; rc=$?
check_eq "stack up exits 0 ($out)" 0 "$rc"
check "the servers do not hold a lock their caller held around stack up" \
    timeout 5 /usr/bin/flock "$TMP/caller.lock" true
out="$("$STACK" status 2>&1)"; rc=$?
check_eq "status exits 0 when up ($out)" 0 "$rc"
check_contains "status: minio healthy" "minio: healthy" "$out"
check_contains "status: mariadb healthy" "mariadb: healthy" "$out"
mpid="$(cat "$MP" 2>/dev/null)"; dpid="$(cat "$DP" 2>/dev/null)"
check "minio pid file names a live process" test -n "$mpid" -a -d "/proc/$mpid"
check "mariadb pid file names a live process" test -n "$dpid" -a -d "/proc/$dpid"
check "the stack's processes name the stack dir (so the check after down means something)" \
    bash -c "ps -eo pid,args | grep -F '$AOPS_STACK_DIR' | grep -v grep | grep -q ."

# Another checkout's status on this stack (AOPS_STACK_DIR pointing here): its MINIO_BIN is its
# own .local/bin/minio, which is not what this MinIO runs; the pid check must go by the binary
# the stack recorded, or it calls the live MinIO stale and deletes its pid file.
OTHER="$TMP/other-checkout"; mkdir -p "$OTHER"
cp -r "$ROOT/scripts" "$ROOT/containers" "$OTHER/"
out="$("$OTHER/scripts/stack" status 2>&1)"; rc=$?
check_eq "another checkout's status on this stack exits 0 ($out)" 0 "$rc"
check_contains "another checkout's status sees minio healthy" "minio: healthy" "$out"
check_eq "another checkout's status keeps minio's pid file" "$mpid" "$(cat "$MP" 2>/dev/null)"
out="$("$STACK" status 2>&1)"
check_contains "this checkout's status still sees minio after it" "minio: healthy" "$out"

# --- each server in a cgroup of its own ------------------------------------------------------
for s in minio:$mpid:$AOPS_MINIO_PORT mariadb:$dpid:$AOPS_MARIADB_PORT; do
    IFS=: read -r name pid port <<<"$s"
    sd="$AOPS_STACK_DIR/$name"
    cg="$(cat "$sd/cgroup" 2>/dev/null)"
    check "$name: the stack dir records its cgroup ($(cat "$sd/cgroup.unavailable" 2>/dev/null))" test -n "$cg"
    check_eq "$name: cgroup named after the server and its port" "aops-stack-$name-$port" "$(basename "$cg")"
    check "$name: cgroup $cg exists" test -d "$cg"
    check "$name: its cgroup holds the server pid $pid" grep -qx "$pid" "$cg/cgroup.procs"
    check_eq "$name: nothing else in its cgroup" "$pid" "$(cat "$cg/cgroup.procs" 2>/dev/null)"
    check "$name: its CPU time is read from the cgroup (> 0 us)" test "$(cg_cpu_usec "$cg")" -gt 0
    n=0; while read -r role dir; do
        n=$((n + 1))
        check "$name: $role cgroup $dir holds pid $pid" grep -qx "$pid" "$dir/cgroup.procs"
    done <"$sd/cgroups"
    check "$name: the cgroup list names at least one cgroup" test "$n" -ge 1
    if perf_cgroups; then
        pc="$(cat "$sd/perf_cgroup" 2>/dev/null)"
        check "$name: perf_event cgroup recorded and holds pid $pid" grep -qx "$pid" "$pc/cgroup.procs"
    else
        check "$name: no perf_event cgroup recorded without the controller" test ! -e "$sd/perf_cgroup"
    fi
done
out="$("$STACK" status 2>&1)"
check_contains "status names minio's cgroup" "cgroup $(cat "$AOPS_STACK_DIR/minio/cgroup")" "$out"

# --- credentials -----------------------------------------------------------------------------
C="$AOPS_STACK_DIR/credentials"
check_eq "credentials mode 0600" 600 "$(stat -c %a "$C")"
keys="$(cut -d= -f1 "$C" | tr '\n' ' ')"
check_eq "credentials keys in order" "AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY S3_ENDPOINT MARIADB_HOST MARIADB_PORT MARIADB_SOCKET MARIADB_USER MARIADB_PASSWORD MARIADB_DATABASE " "$keys"
kv() { sed -n "s/^$1=//p" "$C"; }
check_eq "S3_ENDPOINT uses the chosen port" "http://127.0.0.1:$AOPS_MINIO_PORT" "$(kv S3_ENDPOINT)"
check_eq "MARIADB_PORT is the chosen port" "$AOPS_MARIADB_PORT" "$(kv MARIADB_PORT)"
check_eq "MARIADB_SOCKET absolute" "$AOPS_STACK_DIR/mariadb/mysqld.sock" "$(kv MARIADB_SOCKET)"
check "secrets are long enough" test "$(kv AWS_SECRET_ACCESS_KEY | wc -c)" -gt 30 -a "$(kv MARIADB_PASSWORD | wc -c)" -gt 20
secret="$(kv AWS_SECRET_ACCESS_KEY)"; dbpw="$(kv MARIADB_PASSWORD)"
if ps -eo args | grep -F -e "$secret" -e "$dbpw" | grep -vq grep; then
    fail "a secret appears on a process command line"
else
    pass "no secret on any command line"
fi

# --- up twice is a no-op ---------------------------------------------------------------------
cp "$C" "$TMP/creds.before"
out="$("$STACK" up 2>&1)"; rc=$?
check_eq "second up exits 0" 0 "$rc"
check_contains "second up says already up" "already up" "$out"
check_eq "second up keeps the minio pid" "$mpid" "$(cat "$MP" 2>/dev/null)"
check_eq "second up keeps the mariadb pid" "$dpid" "$(cat "$DP" 2>/dev/null)"
check "second up keeps the credentials" cmp -s "$C" "$TMP/creds.before"

# --- MariaDB as the harness user, over TCP and over the socket ------------------------------
# The password reaches the client through MYSQL_PWD: no option-file quoting of its own here.
check_eq "the password from the environment kept verbatim in the credentials" "$HOSTILE_PW" "$dbpw"
q="$(MYSQL_PWD="$dbpw" mariadb --no-defaults -u harness --protocol=tcp -h 127.0.0.1 -P "$AOPS_MARIADB_PORT" -N -B aops \
    -e 'CREATE TABLE IF NOT EXISTS t_stack (x INT); INSERT INTO t_stack VALUES (41); SELECT x+1 FROM t_stack; DROP TABLE t_stack;' 2>&1)"
check_eq "harness user can create, insert and query in aops over TCP" 42 "$q"
q="$(MYSQL_PWD="$dbpw" mariadb --no-defaults -u harness --socket="$AOPS_STACK_DIR/mariadb/mysqld.sock" -N -B aops -e 'SELECT CURRENT_USER()' 2>&1)"
check_eq "harness user over the socket" "harness@localhost" "$q"
q="$(mariadb --no-defaults -u "$(id -un)" --socket="$AOPS_STACK_DIR/mariadb/mysqld.sock" -N -B -e "SHOW DATABASES LIKE 'pwned'" 2>&1)"
check_eq "the SQL in the password was never run" "" "$q"
q="$(mariadb --defaults-extra-file="$AOPS_STACK_DIR/harness.cnf" -N -B -e 'SELECT DATABASE()' 2>&1)"
check_eq "harness.cnf works as a client option file" aops "$q"

# --- MinIO: health and an authenticated S3 request -------------------------------------------
code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$AOPS_MINIO_PORT/minio/health/live")"
check_eq "minio health/live answers 200" 200 "$code"
CURLCFG="$TMP/curl.cfg"
(umask 077; printf 'user = "%s:%s"\n' "$(kv AWS_ACCESS_KEY_ID)" "$secret" >"$CURLCFG")
code="$(curl -s -o /dev/null -w '%{http_code}' -K "$CURLCFG" --aws-sigv4 "aws:amz:us-east-1:s3" "http://127.0.0.1:$AOPS_MINIO_PORT/")"
check_eq "S3 ListBuckets with the generated keys answers 200" 200 "$code"
code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$AOPS_MINIO_PORT/")"
check_eq "S3 without keys is refused (403)" 403 "$code"
m="$(curl -s "http://127.0.0.1:$AOPS_MINIO_PORT/minio/v2/metrics/node")"
check_contains "MinIO metrics (v2 node) readable without a token" "# TYPE minio_s3_requests_total counter" "$m"
m="$(curl -s "http://127.0.0.1:$AOPS_MINIO_PORT/minio/metrics/v3/api/requests")"
check_contains "MinIO metrics (v3 api/requests) readable without a token" "# TYPE minio_api_requests_total counter" "$m"

# --- down leaves nothing --------------------------------------------------------------------
out="$("$STACK" down 2>&1)"; rc=$?
check_eq "down exits 0" 0 "$rc"
check "minio pid $mpid is gone after down" gone "$mpid"
check "mariadb pid $dpid is gone after down" gone "$dpid"
check "no pid files after down" test ! -e "$MP" -a ! -e "$DP"
check_eq "down removes the servers' cgroups" "" "$(cg_left)"
check "down removes the cgroup records" test ! -e "$AOPS_STACK_DIR/minio/cgroup" -a ! -e "$AOPS_STACK_DIR/minio/cgroups" \
    -a ! -e "$AOPS_STACK_DIR/mariadb/cgroup" -a ! -e "$AOPS_STACK_DIR/mariadb/cgroups"
left="$(ps -eo pid,args | grep -F "$AOPS_STACK_DIR" | grep -v grep || true)"
check_eq "no process uses the stack dir" "" "$left"
out="$("$STACK" status 2>&1)"; rc=$?
check "status exits non-zero when down" test "$rc" -ne 0
check_contains "status says minio down" "minio: down" "$out"

# --- stale pid files ------------------------------------------------------------------------
sleep 30 & sl=$!
echo "$sl" >"$MP"           # a live pid that is not minio
echo 4194300 >"$DP"         # a pid that does not exist
out="$("$STACK" status 2>&1)"; rc=$?
check "status with stale pid files exits non-zero" test "$rc" -ne 0
check "a stale pid file does not stop the unrelated process" test -d "/proc/$sl"
echo "$sl" >"$MP"; echo 4194300 >"$DP"
out="$("$STACK" down 2>&1)"; rc=$?
check_eq "down with stale pid files exits 0" 0 "$rc"
check "down did not kill the unrelated process" test -d "/proc/$sl"
kill "$sl" 2>/dev/null; wait "$sl" 2>/dev/null
echo 4194300 >"$MP"; echo 4194301 >"$DP"
out="$("$STACK" up 2>&1)"; rc=$?
check_eq "up over stale pid files starts the stack ($out)" 0 "$rc"
check "status healthy after up over stale pid files" "$STACK" status
mpid="$(cat "$MP" 2>/dev/null)"; dpid="$(cat "$DP" 2>/dev/null)"
"$STACK" down >/dev/null 2>&1
check "down after restart leaves minio gone" gone "$mpid"
check "down after restart leaves mariadb gone" gone "$dpid"

# --- two concurrent ups start one stack -------------------------------------------------------
"$STACK" up >"$TMP/up1.log" 2>&1 & u1=$!
"$STACK" up >"$TMP/up2.log" 2>&1 & u2=$!
wait "$u1"; r1=$?; wait "$u2"; r2=$?
check_eq "two concurrent ups both exit 0" "0 0" "$r1 $r2"
n="$(ps -eo args | grep -F "$AOPS_STACK_DIR/minio/data" | grep -vc grep)"
check_eq "two concurrent ups start one MinIO" 1 "$n"
n="$(ps -eo args | grep -F -- "--datadir=$AOPS_STACK_DIR/mariadb/data" | grep -vc grep)"
check_eq "two concurrent ups start one MariaDB" 1 "$n"
"$STACK" down >/dev/null 2>&1

# --- a port in use --------------------------------------------------------------------------
python3 -m http.server "$AOPS_MINIO_PORT" --bind 127.0.0.1 >/dev/null 2>&1 & BLOCKER=$!
for ((i = 0; i < 50; i++)); do (exec 3<>"/dev/tcp/127.0.0.1/$AOPS_MINIO_PORT") 2>/dev/null && break; sleep 0.1; done
out="$("$STACK" up 2>&1)"; rc=$?
check "up with the MinIO port taken fails" test "$rc" -ne 0
check_eq "port-in-use message is one line" 1 "$(printf '%s\n' "$out" | wc -l)"
check_contains "port-in-use message names the port" "port $AOPS_MINIO_PORT" "$out"
check_contains "port-in-use message says how to choose another" "AOPS_MINIO_PORT=" "$out"
check "the blocker is untouched" test -d "/proc/$BLOCKER"
left="$(ps -eo pid,args | grep -F "$AOPS_STACK_DIR" | grep -v grep || true)"
check_eq "nothing left running after a refused up" "" "$left"
check_eq "no cgroup left after a refused up" "" "$(cg_left)"
kill "$BLOCKER" 2>/dev/null; wait "$BLOCKER" 2>/dev/null; BLOCKER=""

python3 -m http.server "$AOPS_MARIADB_PORT" --bind 127.0.0.1 >/dev/null 2>&1 & BLOCKER=$!
for ((i = 0; i < 50; i++)); do (exec 3<>"/dev/tcp/127.0.0.1/$AOPS_MARIADB_PORT") 2>/dev/null && break; sleep 0.1; done
out="$("$STACK" up 2>&1)"; rc=$?
check "up with the MariaDB port taken fails" test "$rc" -ne 0
check_contains "MariaDB port-in-use message names the port" "port $AOPS_MARIADB_PORT" "$out"
check_contains "MariaDB port-in-use message says how to choose another" "AOPS_MARIADB_PORT=" "$out"
settled
left="$(ps -eo pid,args | grep -F "$AOPS_STACK_DIR" | grep -v grep || true)"
check_eq "a refused up stops the MinIO it had started" "" "$left"
check_eq "a refused up removes the cgroup of the MinIO it had started" "" "$(cg_left)"
kill "$BLOCKER" 2>/dev/null; wait "$BLOCKER" 2>/dev/null; BLOCKER=""

# --- no cgroup hierarchy (a private mount namespace without /sys/fs/cgroup): the servers start
# anyway, the stack dir says why they have no cgroup, down cleans up -------------------------
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
    out="$(unshare -m --propagation private bash -c 'umount -R /sys/fs/cgroup && "$0" up' "$STACK" 2>&1)"; rc=$?
    check_eq "up without cgroup hierarchies exits 0 ($out)" 0 "$rc"
    check_contains "and warns that MinIO's CPU will not be attributed" "minio runs without a cgroup of its own" "$out"
    check_eq "the stack dir says why" "no cgroup2 or v1 cpuacct hierarchy is mounted" "$(cat "$AOPS_STACK_DIR/minio/cgroup.unavailable" 2>/dev/null)"
    check "and records no cgroup" test ! -e "$AOPS_STACK_DIR/minio/cgroup" -a ! -e "$AOPS_STACK_DIR/mariadb/cgroups"
    check "the servers are healthy all the same" "$STACK" status
    "$STACK" down >/dev/null 2>&1
    check "down removes the note" test ! -e "$AOPS_STACK_DIR/minio/cgroup.unavailable" -a ! -e "$AOPS_STACK_DIR/mariadb/cgroup.unavailable"
    left="$(ps -eo pid,args | grep -F "$AOPS_STACK_DIR" | grep -v grep || true)"
    check_eq "nothing left running" "" "$left"
else
    fail "the no-cgroup case cannot run: it needs root and unshare (run the tests as root)"
fi

# --- readiness timeout: one line naming the log, nothing left --------------------------------
out="$(AOPS_STACK_TIMEOUT=0 "$STACK" up 2>&1)"; rc=$?
check "up with a 0 s timeout fails" test "$rc" -ne 0
check_contains "timeout message names a log file" ".log" "$out"
check_eq "timeout message is one line" 1 "$(printf '%s\n' "$out" | wc -l)"
settled
left="$(ps -eo pid,args | grep -F "$AOPS_STACK_DIR" | grep -v grep || true)"
check_eq "nothing left running after a timeout" "" "$left"
check_eq "no cgroup left after a timeout" "" "$(cg_left)"

finish
