#!/usr/bin/env bash
# test_db.sh -- the db workload against real MariaDB servers.
#
# 1. The unit driver in live mode against the stack's server: prepare the tiny
#    profile, every query of two cycles for two workers with its row count
#    checked against the mariadb client, and the open() errors.
# 2. ./harness prepare + run --workloads db: exact per-pattern operation
#    counts in result.json and the rows the mariadb client finds for the same
#    queries; wrong password and unknown database fail with one clear line.
# 3. Faults on a throwaway server of our own (never the shared stack's): a
#    stopped server makes a query fail within --op-timeout, a killed one is
#    fatal, a query waiting on a locked table is stopped at --op-timeout and
#    the connection goes on, and a run whose server is killed midway ends
#    invalid, promptly.
. "$(dirname "$0")/../lib.sh"

DRIVER=$ROOT/build/asan/tests/test_db
CREDS=${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}
export AOPS_CREDENTIALS=$CREDS
[ -x "$DRIVER" ] || { fail "no $DRIVER: run make asan"; finish; }

# ---- 1. the driver against the stack ----------------------------------------------------------
out=$("$DRIVER" --live 2>&1)
check "driver --live: rows match the mariadb client, open errors are clear" \
    grep -q ' 0 failed' <<<"$out"
echo "$out" | sed 's/^/    /'

# ---- 2. through ./harness ----------------------------------------------------------------------
N=2 C=2
out=$("$HARNESS" prepare --containers $N --profile tiny --workloads db 2>&1)
check "harness prepare --profile tiny --workloads db" test $? -eq 0
run=$TMP/run
out=$("$HARNESS" --containers $N --cycles $C --profile tiny --workloads db --out "$run" --quiet 2>&1)
J=$run/result.json
if [ -f "$J" ]; then
    # A db-only run is a partial cycle: that must be the only reason it is not valid.
    check_eq "no invalid reason but the partial cycle" "[]" \
        "$(jq -c '[.invalid_reasons[] | select(startswith("partial cycle") | not)]' "$J")"
    check_eq "db ops = 50 x containers x cycles" $((50 * N * C)) "$(jq_ .workloads.db.ops "$J")"
    check_eq "db errors" 0 "$(jq_ .workloads.db.errors "$J")"
    total=0
    # Expected rows per pattern, from the mariadb client running the same SQL.
    declare -A want
    while read -r pat rows; do want[$pat]=$rows; done < <("$DRIVER" --expect $N $C 2>/dev/null)
    for p in point range aggregate ordered distinct; do
        check_eq "patterns.$p.ops" $((10 * N * C)) "$(jq_ ".workloads.db.patterns.$p.ops" "$J")"
        check_eq "patterns.$p.errors" 0 "$(jq_ ".workloads.db.patterns.$p.errors" "$J")"
        check_eq "patterns.$p.rows = mariadb client's" "${want[$p]:-?}" \
            "$(jq_ ".workloads.db.patterns.$p.rows" "$J")"
        total=$((total + ${want[$p]:-0}))
        check "patterns.$p.latency_ms.p99 > 0" \
            jq -e ".workloads.db.patterns.$p.latency_ms.p99 > 0" "$J"
    done
    check_eq "workloads.db.rows = mariadb client's" "$total" "$(jq_ .workloads.db.rows "$J")"
    check_eq "point rows = one per lookup" $((10 * N * C)) "$(jq_ .workloads.db.patterns.point.rows "$J")"
    check_eq "range rows = 100 per scan" $((1000 * N * C)) "$(jq_ .workloads.db.patterns.range.rows "$J")"
    check_eq "ordered rows = LIMIT 50" $((500 * N * C)) "$(jq_ .workloads.db.patterns.ordered.rows "$J")"
    check "no secret in result.json" bash -c "! grep -qF \"\$(sed -n 's/^MARIADB_PASSWORD=//p' '$CREDS')\" '$J'"
else
    fail "no result.json in $run"
fi

out=$(MARIADB_PASSWORD=not-the-password "$HARNESS" --containers 1 --profile tiny --workloads db \
    --out "$TMP/denied" --quiet 2>&1)
check "wrong password: run fails" test $? -ne 0
check_contains "wrong password: says access denied" "access denied" "$out"
check "wrong password: no password in output" bash -c "! grep -q not-the-password <<<\"\$1\"" _ "$out"
out=$("$HARNESS" --containers 1 --profile tiny --workloads db --db-name aops_no_such_db \
    --out "$TMP/nodb" --quiet 2>&1)
check "unknown database: run fails" test $? -ne 0
check_contains "unknown database: says to run prepare" "run ./harness prepare" "$out"

# ---- 3. faults on a throwaway server ------------------------------------------------------------
D=$TMP/db
db_init "$D" $((33000 + $$ % 2000)) || { fail "mariadb-install-db: $(tail -3 "$D/install.log")"; finish; }
port=$DB_PORT
start_server() { db_start; }
gone() { for _ in $(seq 100); do [ -d /proc/$SERVER ] || return 0; sleep 0.1; done; return 1; }
stop_server() { kill -CONT "$SERVER" 2>/dev/null; kill -KILL "$SERVER" 2>/dev/null; gone; }
trap 'stop_server; rm -rf "$TMP"' EXIT
check "throwaway MariaDB starts on port $port" start_server
pw=fault-test-$$
db_user "$pw"
export AOPS_DB_HOST=127.0.0.1 AOPS_DB_PORT=$port

out=$(AOPS_CREDENTIALS=$D/creds MARIADB_PASSWORD=$pw "$DRIVER" --fault $SERVER 2>&1)
check "locked table: server stops the query at --op-timeout; stopped server: fails within --op-timeout + 1 s; killed server: fatal" \
    grep -q ' 0 failed' <<<"$out"
echo "$out" | sed 's/^/    /'
check "the killed server is gone" gone

# A whole run whose server dies midway: invalid, errors counted, no hang.
check "throwaway MariaDB restarts" start_server
# --prepare-jobs: one connection and three load the same rows, the same answers (the
# mariadb client's CHECKSUM TABLE of each database, the server's own reckoning). The
# tiny tables are 5 chunks of 2,000 rows, two of them sent before the loaders start:
# three loaders have work.
mariadb --no-defaults --socket="$D/s.sock" -u "$(id -un)" -e \
    "GRANT ALL ON aops_pj1.* TO harness@'127.0.0.1'; GRANT ALL ON aops_pj3.* TO harness@'127.0.0.1'"
sums=()
for j in 1 3; do
    # The server's general log (a table) says who sent which INSERT, in order.
    [ $j -eq 3 ] && mariadb --no-defaults --socket="$D/s.sock" -u "$(id -un)" -e "SET GLOBAL general_log = 0;
        TRUNCATE TABLE mysql.general_log; SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1"
    out=$(AOPS_CREDENTIALS=$D/creds MARIADB_PASSWORD=$pw "$HARNESS" prepare --containers 1 --profile tiny \
        --workloads db --db-host 127.0.0.1 --db-port "$port" --db-name "aops_pj$j" --prepare-jobs $j 2>&1)
    check "prepare --prepare-jobs $j exits 0" test $? -eq 0
    c=connections; [ $j -eq 1 ] && c=connection
    check_contains "... says it loaded" "events into 'aops_pj$j' in" "$out"
    check_contains "... says $j $c" "($j $c)" "$out"
    if [ $j -eq 3 ]; then
        # MariaDB makes an INSERT into an empty table (unique_checks and
        # foreign_key_checks off, as the loaders set them) a bulk load that
        # takes the table's X lock: loaders whose first INSERTs met there
        # deadlocked (a newcomer's first make demo). So the connection that
        # created the tables sends each one's first chunk, before any loader.
        order=$(mariadb --no-defaults --socket="$D/s.sock" -u "$(id -un)" -N -e "SET GLOBAL general_log = 0;
            SELECT thread_id, LEFT(argument, 21) FROM mysql.general_log WHERE command_type = 'Query'
            AND (argument LIKE 'INSERT INTO sessions %' OR argument LIKE 'INSERT INTO events %'
            OR argument LIKE 'CREATE TABLE sessions %')" |
            awk -F'\t' '$2 ~ /^CREATE TABLE sessions/ { c = $1; next }
                $1 == c { seeds++; last = NR; next }
                !first { first = NR }
                END { printf "creator thread %s sent %d INSERTs, the last at log line %d; the loaders from line %d: %s\n", c, seeds, last, first, (seeds == 2 && first > last ? "in order" : "out of order") }')
        check "... each table's first rows from the creating connection ($order)" grep -q ' sent 2 INSERTs' <<<"$order"
        check "... ... and every loader's INSERT after them" grep -q ': in order$' <<<"$order"
    fi
    sums+=("$(mariadb --no-defaults --socket="$D/s.sock" -u "$(id -un)" -N -e \
        "CHECKSUM TABLE aops_pj$j.sessions, aops_pj$j.events, aops_pj$j.aops_answers EXTENDED" | cut -f2 | tr '\n' ' ')")
done
check "3 connections' tables hold what 1 connection's hold (checksums ${sums[0]})" \
    test -n "${sums[0]// /}" -a "${sums[0]}" = "${sums[1]}"

db="--db-host 127.0.0.1 --db-port $port"
AOPS_CREDENTIALS=$D/creds MARIADB_PASSWORD=$pw "$HARNESS" prepare --containers 2 --profile tiny \
    --workloads db $db >/dev/null 2>&1
# "Midway" is a state seen, not a time slept: the server is killed once both
# workers hold a connection to it (its processlist) and queries have been
# answered (the run's /metrics), waited for up to 30 s.
mport=$port
while (exec 3<>"/dev/tcp/127.0.0.1/$mport") 2>/dev/null; do mport=$((mport + 1)); done
AOPS_CREDENTIALS=$D/creds MARIADB_PASSWORD=$pw timeout 60 "$HARNESS" --containers 2 --cycles 100000 \
    --profile tiny --workloads db $db --op-timeout 2 --metrics-listen "127.0.0.1:$mport" --metrics-linger 0 \
    --out "$TMP/killed" --quiet >"$TMP/killed.log" 2>&1 &
hp=$!
conns() {
    mariadb --no-defaults --socket="$D/s.sock" -u "$(id -un)" -N -e \
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'harness'" 2>/dev/null
}
db_ops() {
    curl -s --max-time 2 "http://127.0.0.1:$mport/metrics" |
        awk '/^aops_operations_total\{.*workload="db"/ { s += $2 } END { print s + 0 }'
}
midway() { kill -0 $hp 2>/dev/null && [ "$(conns)" -ge 2 ] && [ "$(db_ops)" -gt 0 ]; }
end=$((SECONDS + 30))
until midway || [ $SECONDS -ge $end ]; do sleep 0.05; done
midway || fail "killed server: the test's own precondition: within 30 s the run never had 2 connections and a query answered (connections $(conns), db ops $(db_ops); $(tail -1 "$TMP/killed.log"))"
kill -KILL "$SERVER"
t0=$SECONDS
gone
wait $hp
rc=$?
check "run with a killed server ends within 20 s (took $((SECONDS - t0)) s)" test $((SECONDS - t0)) -lt 20
check "run with a killed server exits non-zero (not timeout's 124)" test $rc -ne 0 -a $rc -ne 124
K=$TMP/killed/result.json
check_eq "killed server: valid=false" false "$(jq_ .valid "$K" 2>/dev/null)"
check "killed server: db errors counted" jq -e '.workloads.db.errors > 0' "$K"
check_contains "killed server: reason names the lost connection" "connection lost" \
    "$(jq -c .invalid_reasons "$K" 2>/dev/null)"
finish
