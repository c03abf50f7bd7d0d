#!/usr/bin/env bash
# harness capacity (fleet/capacity.c) on a machine whose knee is known in advance:
#   - the sleep workload with AOPS_SLEEP_PER_AGENT_US=30000 sleeps 30 ms x the run's containers
#     per operation, and nanosleep never returns early, so with --slo 'sleep.p50<=75ms' the
#     SLO is met at N agents exactly when 30 N ms (plus the median wake-up lateness) <= 75 ms:
#     N <= 2, with 15 ms of margin for the median lateness (a median, so a few late wake-ups
#     on a loaded machine do not move it: 0.05 ms here at a load average of 18), and N = 3
#     (90 ms) can never meet it. By the search's rule (double from 1, bisect, repeat both
#     ends 3 times) the points are, worked out by hand: 1, 2, 4 (fails), 3 (fails), 2 x 3,
#     3 x 3; agents at SLO 2, limited by sleep p50;
#   - each point is a full run in its own directory that `harness check` recomputes from its
#     log, made with the options given (--seed, --cycles, --sample-interval reach every
#     point; only the container count differs);
#   - a point that fails (a worker crashed) stops the search with one line, and what was run
#     is kept in capacity.json, valid false;
#   - the report draws the curve; compare sets agents at SLO side by side (3 at 20 ms per agent
#     against 2 at 30 ms: 1.50x) beside the AOPS ratio;
#   - bad usage exits 2 with one line and nothing run.
source "$(dirname "$0")/../lib.sh"

# FILE's capacity{} against result.schema.json's (Debian's python3-jsonschema), and every null
# in it with the reason key the schema names beside it (tests/schema/validate.py's rule). Only
# capacity{}: the rest of a result of the sleep workload is a run's, which the schema does not
# describe (it has no workloads.sleep; test_schema validates real runs' results).
valid_capacity() {
    /usr/bin/python3 - "$ROOT" "$1" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1] + "/tests/schema")
import validate
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1] + "/result.schema.json"))
res = json.load(open(sys.argv[2]))
node = schema["properties"]["capacity"]
errs = ["%s: %s" % (validate.show(["capacity"] + list(e.path)), e.message)
        for e in Draft202012Validator(node).iter_errors(res["capacity"])]
validate.nulls(schema, node, res["capacity"], ["capacity"], [res], errs)
print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
}

export AOPS_SLEEP_PER_AGENT_US=30000
"$HARNESS" capacity --workloads sleep --slo 'sleep.p50<=75ms' --containers 1..64 --seed 7 \
    --sample-interval 0.5 --out "$TMP/cap" >"$TMP/cap.out" 2>"$TMP/cap.err"
rc=$?
C=$TMP/cap/capacity.json
check_eq "capacity over the sleep workload exits 1 (a test workload is never valid) ($(tail -1 "$TMP/cap.err"))" 1 $rc
check "the points, as worked out by hand: 1 2 4 3, then 2 and 3 repeated" jq -e \
    '[.capacity.points[] | [.agents, .repeat]] == [[1,1],[2,1],[4,1],[3,1],[2,3],[3,3]]' $C
check "met where 30 N ms <= 75 ms, not where it is over" jq -e \
    '[.capacity.points[] | .met] == [true, true, false, false, true, false]' $C
check "agents at SLO 2, limited by sleep p50, AOPS from the repeated 2-agent point" jq -e '
    .capacity.agents_at_slo == 2 and .capacity.at_least == false
    and .capacity.limiting.workload == "sleep" and .capacity.limiting.percentile == "p50"
    and .capacity.aops_at_slo == (.capacity.points[4].aops)
    and .capacity.limiting.measured_ms >= 90' $C
check "a closed loop offers no rate of its own: null, with why" jq -e \
    '.capacity.offered_ops_per_s == null and (.capacity.offered_ops_per_s_reason | test("closed loop"))' $C
check "invalid only for what every point shares (a test workload)" jq -e \
    '.capacity.valid == false and .capacity.invalid_reasons == ["a test-only workload ran: not a benchmark"]' $C
A=$(jq -r '.capacity.aops_at_slo | . * 100 | round / 100 | tostring' $C)
check_contains "the verdict line" "agents at SLO: 2 (AOPS at SLO " "$(cat "$TMP/cap.out")"
check_contains "... with its AOPS and the limiting bound" ", limited by sleep p50)" "$(cat "$TMP/cap.out")"
check "... the AOPS it prints is capacity.json's ($A)" grep -q "AOPS at SLO $(printf '%.2f' "$A")" "$TMP/cap.out"
check_eq "one line per point on stderr" 6 "$(grep -c '^capacity: ' "$TMP/cap.err")"
for d in 1 2 4 3 2-x3 3-x3; do
    check "points/$d: a full run, recomputed by harness check" "$HARNESS" check "$TMP/cap/points/$d"
done
check "points/3-x3 is a --repeat 3 result (median)" jq -e '.repeats.n == 3' "$TMP/cap/points/3-x3/result.json"
check "every point has the options given; only the container count differs" jq -e -s '
    map(.config) as $c | all($c[]; .seed == 7 and .sample_interval == 0.5)
    and ([$c[] | del(.containers, .repeat)] | unique | length == 1)
    and ([$c[] | .containers] == [1, 2, 4, 3, 2, 3])' \
    "$TMP"/cap/points/{1,2,4,3,2-x3,3-x3}/result.json
check "each point judged by the SLO given" jq -e -s 'all(.[]; .slo.spec == "sleep.p50<=75ms")' \
    "$TMP"/cap/points/{1,2,4}/result.json

# ---- DIR/result.json: the run at agents at SLO, with capacity{} in it ----
R=$TMP/cap/result.json
H2=$TMP/cap/points/2-x3/result.json
check "its capacity{} validates against result.schema.json, every null with its reason" valid_capacity "$R"
jq '.capacity.agents_at_slo = "2" | .capacity.limiting = null' "$R" >"$TMP/bad-cap.json"
out=$(valid_capacity "$TMP/bad-cap.json")
check_eq "... no rubber stamp: agents_at_slo a string, limiting null without limiting_reason: exit 1" 1 $?
check_contains "... the string named" "capacity.agents_at_slo: '2' is not of type" "$out"
check_contains "... the null named" "capacity.limiting: null, reason key limiting_reason absent" "$out"
check "its capacity{} is capacity.json's" jq -e --slurpfile c "$C" '.capacity == $c[0].capacity' "$R"
check "its headline is the repeated 2-agent point's median run: that run's id, totals and SLO" jq -e \
    --slurpfile h "$H2" '.capacity.headline == {agents: 2, repeat: 3, dir: "points/2-x3"}
    and .run_id == $h[0].run_id and .totals == $h[0].totals and .slo == $h[0].slo
    and .repeats.aops == $h[0].repeats.aops and .repeats.median_run == $h[0].repeats.median_run' "$R"
check "... whose files it names under its point (the log, the runs)" jq -e '
    (.oplog.file | test("^points/2-x3/runs/[123]/ops.log$"))
    and .repeats.runs == ["points/2-x3/runs/1", "points/2-x3/runs/2", "points/2-x3/runs/3"]' "$R"
# Two agents sleep 2 x 30 ms per operation, 20 operations each: the run takes at least 20 x 60 ms
# (nanosleep never returns early), so its AOPS is at most 40 / 1.2 s = 33.33.
check "AOPS at SLO: at most 40 operations over 1.2 s = 33.33, by hand ($(jq_ .capacity.aops_at_slo "$R"))" \
    jq -e '.capacity.aops_at_slo == .totals.aops and .totals.aops <= 40 / 1.2 and .totals.aops > 10' "$R"
check "invalid for the test workload (the run's reason and the search's, said once)" jq -e \
    '.valid == false and .invalid_reasons == ["a test-only workload ran: not a benchmark"]' "$R"
out=$("$HARNESS" check "$TMP/cap" 2>&1)
st=$?; check_eq "harness check of the capacity directory: headline, every point and capacity{} agree ($(tail -1 <<<"$out"))" \
    0 $st
check_contains "... as a capacity search" "all agree (capacity search" "$out"
# A capacity{} that its points do not make: agents at SLO 3, whose verdict failed.
cp -r "$TMP/cap" "$TMP/forged"
jq '.capacity.agents_at_slo = 3 | .capacity.points[0].aops = 1' "$TMP/cap/result.json" >"$TMP/forged/result.json"
out=$("$HARNESS" check "$TMP/forged" 2>&1)
check_eq "check of a capacity{} its points do not make: exit 1" 1 $?
check_contains "... names agents_at_slo against the verdicts" \
    "capacity.agents_at_slo: 3, but the verdict of 3 agents is not met" "$out"
check_contains "... and a point's figure against its run's" "capacity.points.0.aops: result.json 1," "$out"
jq '.capacity.aops_at_slo = 1000 | .capacity.limiting.percentile = "p99"' "$TMP/cap/result.json" >"$TMP/forged/result.json"
out=$("$HARNESS" check "$TMP/forged" 2>&1)
check_contains "... an AOPS at SLO not the 2-agent run's" "capacity.aops_at_slo: result.json 1000," "$out"
check_contains "... a limiting bound not the one 3 agents failed furthest" \
    "capacity.limiting: sleep p99, but the bound furthest over at 3 agents is sleep p50" "$out"

# ---- the report draws the curve ----
"$HARNESS" report "$TMP/cap" >/dev/null 2>"$TMP/rep.err"
st=$?; check_eq "harness report of a capacity directory exits 0 ($(tail -1 "$TMP/rep.err"))" 0 $st
H=$TMP/cap/report.html
check "... the verdict, with capacity.json's figures" grep -q \
    'data-key="capacity.agents_at_slo" data-value="2"' "$H"
check "... a chart of the bound's percentile against the agents (4 counts, curve and bound: 8 marks), and one of AOPS" \
    bash -c "grep -q 'capacity-bound-0\" data-marks=\"8\"' '$H' && grep -q 'capacity-aops\" data-marks=\"4\"' '$H'"
check_eq "... one row per count run (1 2 3 4), the repeated ones at their median" 4 \
    "$(grep -o 'data-key="capacity.points.agents=[0-9]*.aops"' "$H" | sort -u | wc -l)"
check "... the 2-agent row is the repeated run's AOPS" grep -q \
    "data-key=\"capacity.points.agents=2.aops\" data-value=\"$(jq -r '.capacity.points[4].aops' "$TMP/cap/capacity.json")\"" "$H"

# ---- compare: agents at SLO beside AOPS ----
# 20 ms per agent: 20 N ms <= 75 ms for N <= 3 (15 ms of margin again), and 4 gives 80 ms.
AOPS_SLEEP_PER_AGENT_US=20000 "$HARNESS" capacity --workloads sleep --slo 'sleep.p50<=75ms' \
    --containers 1..64 --out "$TMP/cap2" >/dev/null 2>&1
check "at 20 ms per agent: points 1 2 4 3, then 3 and 4 repeated; agents at SLO 3" jq -e \
    '.capacity.agents_at_slo == 3 and ([.capacity.points[] | .agents] == [1, 2, 4, 3, 3, 4])' \
    "$TMP/cap2/capacity.json"
out=$("$HARNESS" compare "$TMP/cap" "$TMP/cap2" --html "$TMP/cmp.html" 2>&1)
check_contains "compare of two capacity directories: agents at SLO side by side, with the ratio" \
    "3 (1.50×)" "$(grep '^agents at SLO' <<<"$out")"
check_contains "... beside the AOPS ratio" "B vs A: AOPS " "$out"
check_contains "... in the same line" ", agents at SLO 1.50×" "$out"
check "... and in the HTML" grep -q 'data-key="ratio.1.agents_at_slo" data-value="1.5"' "$TMP/cmp.html"
out=$("$HARNESS" compare "$TMP/cap" "$TMP/cap/points/1" 2>&1)
check_contains "a capacity beside a plain run: refused, not the same SLO" "not searched against the same SLO" "$out"
# compare and report read capacity{} from result.json; a directory of an earlier build has only
# capacity.json, and reads as before.
cp -r "$TMP/cap2" "$TMP/new" && rm "$TMP/new/capacity.json"
cp -r "$TMP/cap2" "$TMP/old" && rm "$TMP/old/result.json"
for d in new old; do
    out=$("$HARNESS" compare "$TMP/cap" "$TMP/$d" 2>&1)
    check_contains "compare of a directory with only its $([ $d = new ] && echo result.json || echo capacity.json): agents at SLO 1.50x" \
        ", agents at SLO 1.50×" "$out"
    "$HARNESS" report "$TMP/$d" >/dev/null 2>&1
    check "report of it: the verdict, 3 agents" grep -q 'data-key="capacity.agents_at_slo" data-value="3"' "$TMP/$d/report.html"
done

# ---- no count within the SLO: what was measured, valid false ----
# 80 ms per agent: one agent's p50 is already over 75 ms. Points: 1, then 1 repeated.
AOPS_SLEEP_PER_AGENT_US=80000 "$HARNESS" capacity --workloads sleep --slo 'sleep.p50<=75ms' \
    --containers 1..8 --out "$TMP/none" >"$TMP/none.out" 2>&1
check_eq "nothing met the SLO: capacity exits 1" 1 $?
R=$TMP/none/result.json
check "... result.json: agents at SLO null with the reason, the lowest count's repeated run" jq -e '
    .capacity.agents_at_slo == null and (.capacity.agents_at_slo_reason | test("even the fewest"))
    and .capacity.aops_at_slo == null and .capacity.headline.dir == "points/1-x3"
    and ([.capacity.points[] | [.agents, .repeat]] == [[1,1],[1,3]])
    and .capacity.limiting.workload == "sleep"' "$R"
check "... valid false, saying no count met the SLO" jq -e \
    '.valid == false and (.invalid_reasons | any(test("no count met the SLO"))) and .capacity.valid == false' "$R"
check "... its capacity{} validates, nulls with their reasons" valid_capacity "$R"
check "... and harness check passes on it" "$HARNESS" check "$TMP/none"
check_contains "... the verdict line" "agents at SLO: none from 1 on (limited by sleep p50)" "$(cat "$TMP/none.out")"

# ---- an invalid point stops the search; nothing is lost ----
AOPS_TEST_CRASH_WORKER=1 "$HARNESS" capacity --workloads sleep --slo 'sleep.p50<=75ms' \
    --containers 1..8 --out "$TMP/crash" >"$TMP/crash.out" 2>"$TMP/crash.err"
check_eq "a crashed worker at 2 agents: capacity exits 1" 1 $?
C=$TMP/crash/capacity.json
check "... the points run so far are kept, the search stopped at 2" jq -e \
    '[.capacity.points[] | .agents] == [1, 2] and .capacity.valid == false and .capacity.agents_at_slo == null' $C
check "... and it says why, naming the point" jq -e \
    '.capacity.invalid_reasons | any(test("the point of 2 agents \\(points/2\\) is invalid: container 1 crashed"))' $C
check_eq "... in one line on stderr" 1 "$(grep -c 'the search stops at the invalid point of 2 agents' "$TMP/crash.err")"
check "... result.json: what was measured last, the crashed point, valid false" jq -e '
    .valid == false and .capacity.headline.dir == "points/2" and .capacity.agents_at_slo == null
    and (.invalid_reasons | any(test("the point of 2 agents")))' "$TMP/crash/result.json"
check "... its capacity{} validates" valid_capacity "$TMP/crash/result.json"

# ---- a fleet: two shards of one capacity search, on this machine, against the real store ----
# Each host runs the same command with its own --shard I/2, as test_shards.sh runs shards. A
# point of c containers per host is a fleet run of 2c agents; each agent sleeps 30 ms x c (its
# shard's containers) per operation, so the merged p50 is about 30 c ms and sleep.p50<=75ms holds
# for c <= 2: agents at SLO 4, limited by sleep p50. With --repeat 2 the points are, by hand
# (agents): 2, 4, 8 (fails), 6 (fails), then 4 and 6 repeated twice; each host merges every fleet
# run of both shards from the store and takes the next start from the merge: its last completion
# plus --lead, up to a whole second.
s3_as_stack
FB=aops-it-capacity
FP=capacity/$$-$RANDOM
cleanup() { # the result objects this test put
    s3_rm_prefix "$FB" "$FP"
    rm -rf "$TMP"
}
trap cleanup EXIT
fleet() { # fleet DIR-PREFIX URL T LEAD: both shards, waited for
    local d=$1 url=$2 t=$3 lead=$4 i
    for i in 0 1; do
        rm -rf "$d$i"
        AOPS_SLEEP_PER_AGENT_US=30000 "$HARNESS" capacity \
            --workloads sleep --slo 'sleep.p50<=75ms' --containers 1..64 --repeat 2 \
            --shard $i/2 --start-at "$t" --results-url "$url" --lead "$lead" \
            --out "$d$i" >"$d$i.out" 2>"$d$i.err" &
        fpids[$i]=$!
    done
    frc=""
    for i in 0 1; do wait "${fpids[$i]}"; frc="$frc$? "; done
}
lead=5
for try in 1 2 3; do # a loaded machine may make a host late: the pair again with twice the lead
    fleet "$TMP/f" "s3://$FB/$FP/try$try/" $(( $(date +%s) + 3 )) $lead
    grep -qs "missed start" "$TMP"/f?/host/points/*/result.json "$TMP"/f?/host/points/*/runs/*/result.json || break
    echo "info: a shard missed its start with --lead $lead; again with $((lead * 2))"
    lead=$((lead * 2))
done
F0=$TMP/f0/result.json F1=$TMP/f1/result.json
check_eq "two shards of a fleet capacity: both exit 1 (a test workload) ($(tail -1 "$TMP/f0.err") / $(tail -1 "$TMP/f1.err"))" "1 1 " "$frc"
check "the fleet's points, as worked out by hand: 2 4 8 6 agents, then 4 and 6 repeated" jq -e \
    '[.capacity.points[] | [.agents, .repeat]] == [[2,1],[4,1],[8,1],[6,1],[4,2],[6,2]] and .capacity.shards == 2' "$F0"
check "met where each host's 30 ms x c <= 75 ms (c = agents / 2)" jq -e \
    '[.capacity.points[] | .met] == [true, true, false, false, true, false]' "$F0"
check "agents at SLO 4, limited by sleep p50, the AOPS of the repeated 4-agent merge" jq -e '
    .capacity.agents_at_slo == 4 and .capacity.limiting.workload == "sleep" and .capacity.limiting.percentile == "p50"
    and .capacity.headline.dir == "points/4-x2" and .capacity.aops_at_slo == .totals.aops' "$F0"
check "the two hosts agree: the same capacity{} (but the command line each was given)" \
    jq -e -n --slurpfile a "$F0" --slurpfile b "$F1" '($a[0].capacity | del(.command)) == ($b[0].capacity | del(.command))'
check_contains "host 0's verdict line" "agents at SLO: 4 (AOPS at SLO " "$(cat "$TMP/f0.out")"
check_contains "host 1's, the same" "agents at SLO: 4 (AOPS at SLO " "$(cat "$TMP/f1.out")"
# The merged verdict by hand: each point merges both shards (2 x c agents, 20 operations each), and
# its p50 is the fleet histogram's: at 4 agents 60 ms to below 75 (met), at 6 agents 90 ms or more.
for p in 2 4 8 6 4-x2/runs/1 4-x2/runs/2 6-x2/runs/1 6-x2/runs/2; do
    check "points/$p: a merge of both shards, every agent's 20 operations" jq -e \
        '(.shards | length) == 2 and .totals.ops == .config.containers * 20 and .merge.shards == 2' \
        "$TMP/f0/points/$p/result.json"
done
check "the 4-agent merges meet sleep p50 at 60 to 75 ms, the 6-agent ones miss at 90 ms or more" jq -e -s '
    all(.[0:3][]; .slo.met == true and .slo.checks[0].measured_ms >= 60 and .slo.checks[0].measured_ms < 75)
    and all(.[3:6][]; .slo.met == false and .slo.checks[0].measured_ms >= 90)' \
    "$TMP"/f0/points/{4,4-x2/runs/1,4-x2/runs/2,6,6-x2/runs/1,6-x2/runs/2}/result.json
# Two agents at 2 x 30 ms, 20 operations each: at most 80 operations in 1.2 s, 66.7 AOPS.
check "AOPS at SLO at most 80 / 1.2 s = 66.7, by hand ($(jq_ .capacity.aops_at_slo "$F0"))" \
    jq -e '.capacity.aops_at_slo <= 80 / 1.2 and .capacity.aops_at_slo > 20' "$F0"
# Each next start: the last merge's last completion (on the common clock) plus --lead, rounded up.
want=$(jq -r --argjson l $lead '((.merge.released_at_ns / 1e9 + .totals.wall_seconds + $l) | ceil) * 1e9 | floor' "$TMP/f0/points/2/result.json")
check_eq "the 4-agent run started where the 2-agent merge said, on both hosts" "$want $want" \
    "$(jq -r '.shard.start_at_ns' "$TMP/f0/host/points/4/result.json") $(jq -r '.shard.start_at_ns' "$TMP/f1/host/points/4/result.json")"
check "the fleet's capacity{} validates" valid_capacity "$F0"
for d in f0 f1; do
    out=$("$HARNESS" check "$TMP/$d" 2>&1)
    st=$?; check_eq "harness check of host ${d#f}'s capacity directory (the merged points from the shards' logs) ($(tail -2 <<<"$out" | head -1))" 0 $st
done
"$HARNESS" report "$TMP/f0" >/dev/null 2>&1
check "its report draws the fleet's curve" grep -q 'data-key="capacity.agents_at_slo" data-value="4"' "$TMP/f0/report.html"

# A host that is late: shard 1 starts after --start-at, so its first run misses its start. Both
# hosts merge that point, find it invalid, and stop there with one line, what they ran kept.
T=$(( $(date +%s) + 3 ))
late() { # late I AT: shard I of the pair, started once the clock reads AT
    while [ "$(date +%s)" -lt "$2" ]; do sleep 0.2; done
    rm -rf "$TMP/l$1"
    AOPS_SLEEP_PER_AGENT_US=30000 "$HARNESS" capacity --workloads sleep --slo 'sleep.p50<=75ms' \
        --containers 1..64 --shard "$1"/2 --start-at $T --results-url "s3://$FB/$FP/late/" --lead 5 \
        --out "$TMP/l$1" >"$TMP/l$1.out" 2>"$TMP/l$1.err"
}
late 0 0 & fpids[0]=$!
late 1 $((T + 2)) & fpids[1]=$!
frc=""
for i in 0 1; do wait "${fpids[$i]}"; frc="$frc$? "; done
check_eq "a late host: both exit 1" "1 1 " "$frc"
for i in 0 1; do
    check "host $i stopped at the first point, valid false, the late shard named" jq -e '
        [.capacity.points[] | .agents] == [2] and .valid == false and .capacity.agents_at_slo == null
        and (.invalid_reasons | any(test("the point of 2 agents \\(points/2\\) is invalid: shard 1 .* is invalid: missed start by")))' \
        "$TMP/l$i/result.json"
    check_eq "... in one line on host $i's stderr" 1 "$(grep -c 'the search stops at the invalid point of 2 agents' "$TMP/l$i.err")"
done

# A host that fails: shard 1's worker 1 (its first, at one container per host) crashes at its
# 5th operation. Both hosts merge that point, find shard 1 invalid, and stop there.
T=$(( $(date +%s) + 3 ))
for i in 0 1; do
    rm -rf "$TMP/c$i"
    env $([ $i = 1 ] && echo AOPS_TEST_CRASH_WORKER=1) AOPS_SLEEP_PER_AGENT_US=30000 "$HARNESS" capacity \
        --workloads sleep --slo 'sleep.p50<=75ms' --containers 1..64 --shard $i/2 --start-at $T \
        --results-url "s3://$FB/$FP/crash/" --lead 5 --out "$TMP/c$i" >"$TMP/c$i.out" 2>"$TMP/c$i.err" &
    fpids[$i]=$!
done
frc=""
for i in 0 1; do wait "${fpids[$i]}"; frc="$frc$? "; done
check_eq "a host whose worker crashed: both exit 1" "1 1 " "$frc"
for i in 0 1; do
    check "host $i stopped at the first point, naming shard 1's crash" jq -e '
        [.capacity.points[] | .agents] == [2] and .valid == false
        and (.invalid_reasons | any(test("the point of 2 agents \\(points/2\\) is invalid: shard 1 .* is invalid: .*container 1 crashed")))' \
        "$TMP/c$i/result.json"
done

# ---- bad usage: exit 2, one line, nothing run ----
bad() { # bad "description" "expected message" args...
    local what=$1 msg=$2; shift 2
    check_refused "$what" "$msg" "$HARNESS" capacity "$@" --out "$TMP/bad"
    check "$what: nothing run" test ! -e "$TMP/bad/points"
}
bad "a range upside down" "expected LO..HI" --workloads sleep --slo 'sleep.p50<=1s' --containers 5..2
bad "a bad SLO" "SLO term 1" --workloads sleep --slo 'sleep.p50<1s'
bad "an option no run knows" "--nosuch" --workloads sleep --slo 'sleep.p50<=1s' --nosuch
bad "the default SLO on a test workload" "give --slo" --workloads sleep
bad "a fleet without --start-at" "needs --start-at T" --workloads sleep --slo 'sleep.p50<=1s' --shard 0/2 \
    --results-url "s3://$FB/$FP/bad/"
bad "a fleet without --results-url" "needs --results-url URL" --workloads sleep --slo 'sleep.p50<=1s' \
    --shard 0/2 --start-at $(( $(date +%s) + 60 ))
bad "--lead on one host" "--lead is for a fleet" --workloads sleep --slo 'sleep.p50<=1s' --lead 5
finish
