#!/usr/bin/env bash
# Paced agents (issue 38): coordinated omission, and valid paced and think-time runs (queueing
# theory: test_pacing_queue.sh). Every reference is from outside the harness: the ops.log is
# read by its own small reader below (the format of common/oplog.h) and the figures worked out
# from its timestamps.
#   - Coordinated omission: a paced tiny s3-only run during which MinIO is SIGSTOPped for 1 s:
#     every GET scheduled inside the stop has a response time of at least the time left to the
#     resume (from ops.log), and the response p99 shows the stall. The same stall under the
#     closed loop is printed for comparison (not asserted: one GET of thousands waits there).
#   - A paced tiny run and a think-time tiny run (one worker, all workloads, one search thread)
#     send as precisely as a sleeping process beside them wakes (tests/wake_probe.py), are
#     valid whenever that process woke within 1 ms 97 % of the time, ran exactly 1,340
#     operations, carry both latencies and the pacer, validate against result.schema.json, and
#     harness check recomputes them from the log.
#   - Bad values exit 2 with one line.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
STACK=${AOPS_STACK_DIR:-$ROOT/.local/stack}

# The ops.log reader of the tests (tests/oplog.py), not the harness's.
cp "$ROOT/tests/oplog.py" "$TMP/oplog.py"

# ---- the tiny profile: corpus and data ----
C=$TMP/corpus
B=aops-it-pacing
COMMON=(--profile tiny --bucket "$B" --corpus "$C" --patterns "$ROOT/corpus/patterns" --dataset shared)
"$HARNESS" corpus fetch --profile tiny --dir "$C" >/dev/null 2>&1 || fail "corpus fetch --profile tiny"
out=$("$HARNESS" prepare "${COMMON[@]}" --containers 2 2>&1) || { fail "prepare"; echo "$out"; }

# ---- coordinated omission: MinIO stopped for 1 s during a paced run ----
MPID=$(cat "$STACK/minio/minio.pid" 2>/dev/null)
trap '[ -n "$MPID" ] && kill -CONT "$MPID" 2>/dev/null' EXIT
stall_run() { # NAME OPTIONS...: released by --start-at 6 s ahead, MinIO stopped 3 s after
    local name=$1; shift
    local start=$(($(date +%s) + 6))
    # --op-timeout 10: a GET that MinIO never answers after the resume (seen once here with
    # the closed loop) ends as an error instead of holding the test for 120 s.
    "$HARNESS" "${COMMON[@]}" --containers 1 --workloads s3 --op-timeout 10 --start-at "$start" \
        "$@" --out "$TMP/$name" --quiet >"$TMP/$name.log" 2>&1 &
    local pid=$!
    sleep "$(awk -v s="$start" -v now="$(date +%s.%N)" 'BEGIN { printf "%.3f", s + 3 - now }')"
    kill -STOP "$MPID"
    local t_stop t_resume
    t_stop=$(date +%s%N) # after the stop: an instant here is surely inside it
    sleep 1
    t_resume=$(date +%s%N) # before the resume: the time left is not overstated
    kill -CONT "$MPID"
    wait $pid
    echo "$t_stop $t_resume" >"$TMP/$name.stall"
}
if [ -z "$MPID" ] || ! kill -0 "$MPID" 2>/dev/null; then
    fail "no MinIO pid in $STACK/minio/minio.pid"
else
    # 100 GETs a second: 1,190 take 12 s, so the stop at 4 s falls inside.
    stall_run co --arrival poisson --agent-rate 100
    stall_run closed --cycles 2
    out=$(python3 - "$TMP" <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); import oplog
T = sys.argv[1]
def load(name):
    rel, rel_epoch, names, recs = oplog.read(f"{T}/{name}/ops.log")
    t_stop, t_resume = (int(x) for x in open(f"{T}/{name}.stall").read().split())
    # The wall clock of the stop and resume onto the log's monotonic clock, by the release,
    # which the header holds on both.
    return recs, t_stop - rel_epoch + rel, t_resume - rel_epoch + rel, names.index("s3")
recs, stop, resume, s3 = load("co")
inside = [r for r in recs if r[5] == s3 and stop <= r[7] < resume]
short = [r for r in inside if r[1] - r[7] < resume - r[7]]
ends = max(r[1] for r in recs)
ok = len(inside) >= 50 and not short and stop > min(r[7] for r in recs) and resume < ends
print(f"{'ok' if ok else 'FAIL'}: paced: {len(inside)} GETs scheduled inside the 1 s stop, "
      f"{len(short)} of them answered before the time left to the resume "
      f"(the least margin {min((r[1] - resume) / 1e6 for r in inside) if inside else 0:.1f} ms)")
cr, cstop, cresume, _ = load("closed")
stalled = [r for r in cr if r[0] < cresume and r[1] > cresume]
print(f"note: closed loop, the same 1 s stop: {len(stalled)} GET(s) in flight across it, of {len(cr)}")
sys.exit(0 if ok else 1)
PY
)
    rc=$?
    echo "$out"
    [ $rc = 0 ] || fail "coordinated omission (above; $(tail -1 "$TMP/co.log"))"
    p99=$(jq -r '.workloads.s3.latency_ms.p99' "$TMP/co/result.json")
    sp99=$(jq -r '.workloads.s3.service_ms.p99' "$TMP/co/result.json")
    cp99=$(jq -r '.workloads.s3.latency_ms.p99' "$TMP/closed/result.json")
    cmax=$(jq -r '.workloads.s3.latency_ms.max' "$TMP/closed/result.json")
    # ~100 of 1,190 GETs fall in the stop; the 12 slowest (the p99) were due in its first
    # tenth, so each waited at least 0.9 s: 500 ms leaves room for a late stop.
    check "paced: response p99 $p99 ms shows the 1 s stall (>= 500 ms; service p99 $sp99 ms)" \
        awk -v p="$p99" 'BEGIN { exit !(p >= 500) }'
    echo "note: closed loop through the same stop: p99 $cp99 ms, max $cmax ms; paced: p99 $p99 ms"
    check "harness check recomputes the stalled paced run" "$HARNESS" check "$TMP/co"
fi
kill -0 "$MPID" 2>/dev/null && kill -CONT "$MPID" 2>/dev/null

# ---- valid paced and think-time tiny runs ----
# A paced run is valid only when its sender wakes within 1 ms of its instants, which is the
# machine's doing as much as the pacer's: here two workers' searches of two threads each held
# both cores often enough that 12-15 % of the sends came over 1 ms late (a cold newcomer's make
# test, load 3). So the run is one worker whose searches use one thread (at 100 calls a second,
# 7.5 searches of tens of ms on one core and 89 GETs of small objects: a core stays free), and
# tests/wake_probe.py measures beside it how late this machine wakes a sleeping process.
valid_run() { # NAME OPTIONS...
    local name=$1; shift
    rm -f "$TMP/$name.stop"
    python3 "$ROOT/tests/wake_probe.py" "$TMP/$name.stop" >"$TMP/$name.probe" &
    local probe_pid=$!
    "$HARNESS" "${COMMON[@]}" --containers 1 --search-threads 1 "$@" --out "$TMP/$name" --quiet \
        >"$TMP/$name.log" 2>&1
    local rc=$?
    touch "$TMP/$name.stop"
    wait $probe_pid
    local r=$TMP/$name/result.json
    check_eq "$name: exits 0 when valid, 1 when not ($(tail -1 "$TMP/$name.log"))" \
        "$(jq -r 'if .valid then 0 else 1 end' "$r" 2>/dev/null)" $rc
    read -r probe probe_n <"$TMP/$name.probe"
    local share
    share=$(jq -r '.pacer.late_over_1ms_share' "$r")
    echo "note: $name: sends over 1 ms late $share; a sleeping process beside the run: $probe of $probe_n wake-ups"
    # The pacer is as precise as this machine lets a sleeping thread be: its share of late sends
    # is at most twice the probe's plus 2 points (its 16 threads share the cores with the run's
    # own work, the probe is one; quiet runs here gave 1.3-2.3 % against the probe's 1.6 %, and
    # with a busy loop beside them 8.9 % against 8.0 %). A pacer that drifts or sleeps relative
    # to the last send comes late on every instant after one late wake-up, far above it.
    check "$name: the pacer's late share $share is within the machine's own (probe $probe): at most 2 x + 0.02" \
        awk -v s="$share" -v p="$probe" 'BEGIN { exit !(s <= 2 * p + 0.02) }'
    if awk -v p="$probe" 'BEGIN { exit !(p <= 0.03) }'; then
        # A machine that wakes a sleeper within 1 ms 97 % of the time: the pacer keeps the
        # bound (2 x 3 % + 2 % < 10 %), and the run is valid.
        check_eq "$name: valid ($(jq -c '.invalid_reasons' "$r"))" true "$(jq -r '.valid' "$r")"
    else
        # A machine that woke the probe late more often (a busy loop beside the run, a
        # loaded host) may push the pacer past its bound: the run may then be invalid, and the
        # pacer's lateness must be the only reason.
        echo "note: $name: this machine woke $probe of the probe's sleeps over 1 ms late: valid or invalid by the pacer's bound only"
        check "$name: valid, or invalid only by the pacer's lateness ($(jq -c '.invalid_reasons' "$r"))" \
            jq -e '.valid or (.invalid_reasons | length == 1 and (.[0] | startswith("the pacer fell behind")))' "$r"
    fi
    check_eq "$name: exactly 1,340 operations" 1340 "$(jq -r '.totals.ops' "$r")"
    check_eq "$name: s3, db, search counts" "1190 50 100" \
        "$(jq -r '[.workloads.s3.ops, .workloads.db.ops, .workloads.search.ops] | map(tostring) | join(" ")' "$r")"
    check "$name: both latencies per workload and class, and the pacer" jq -e '
        (.workloads | to_entries | all(.value.latency_ms.p99 != null and .value.service_ms.p99 != null))
        and (.workloads.db.patterns.point.service_ms.p99 != null)
        and (.pacer.lateness_ms.p99 != null) and (.pacer.late_over_1ms_share >= 0)' "$r"
    check "$name: validates against result.schema.json" python3 tests/schema/validate.py "$r"
    check "$name: harness check recomputes it from the log" "$HARNESS" check "$TMP/$name"
}
# Interleaved, as an agent's calls come: a phased cycle would offer its 100 searches at the
# full rate, more than two shared cores can search.
valid_run paced --arrival poisson --agent-rate 100 --schedule interleaved
check_eq "paced: recorded in config" "poisson 100 16" \
    "$(jq -r '.config | "\(.arrival) \(.agent_rate) \(.agent_concurrency)"' "$TMP/paced/result.json")"
valid_run think --think-time exp:0.002
check_eq "think: recorded in config and pacer" "closed exp:0.002 exp:0.002" \
    "$(jq -r '"\(.config.arrival) \(.config.think_time) \(.pacer.think_time)"' "$TMP/think/result.json")"
echo "note: paced lateness p99 $(jq -r .pacer.lateness_ms.p99 "$TMP/paced/result.json") ms," \
    "share >1 ms late $(jq -r .pacer.late_over_1ms_share "$TMP/paced/result.json");" \
    "think-time: $(jq -r .pacer.lateness_ms.p99 "$TMP/think/result.json") ms," \
    "$(jq -r .pacer.late_over_1ms_share "$TMP/think/result.json")"

# ---- a paced worker that dies with operations in flight ----
# Worker 0 crashes at its 5th operation on one of its 2 agent threads while the other may have
# finished later ones: the log holds exactly the completed operations (no empty slot read as
# one), so harness check agrees with the result.
AOPS_TEST_CRASH_WORKER=0 AOPS_SLEEP_US=2000 "$HARNESS" --workloads sleep --containers 2 --cycles 2 \
    --arrival fixed --agent-rate 400 --agent-concurrency 2 --no-cgroups --out "$TMP/crash" \
    --quiet >"$TMP/crash.log" 2>&1
check_contains "crash: container 0 crashed" "container 0 crashed" "$(jq -r '.invalid_reasons[]' "$TMP/crash/result.json")"
check "crash: harness check recomputes it from the log" "$HARNESS" check "$TMP/crash"

# ---- bad values: exit 2, one line ----
bad() { # WHAT NEEDLE OPTIONS...
    local what=$1 needle=$2; shift 2
    check_refused "$what" "$needle" "$HARNESS" --workloads sleep --no-cgroups --out "$TMP/bad" "$@"
}
bad "--arrival without a rate" "--agent-rate" --arrival poisson
bad "--agent-rate without --arrival" "--arrival" --agent-rate 10
bad "--think-time garbage" "--think-time 'gauss:1'" --think-time gauss:1
bad "--arrival bogus" "--arrival 'bursty'" --arrival bursty --agent-rate 1
bad "--agent-concurrency 0" "--agent-concurrency" --arrival fixed --agent-rate 10 --agent-concurrency 0
bad "both pacings" "--think-time" --arrival fixed --agent-rate 10 --think-time fixed:1
finish
