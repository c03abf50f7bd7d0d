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

# ---- the report draws the curve ----
"$HARNESS" report "$TMP/cap" >/dev/null 2>"$TMP/rep.err"
check_eq "harness report of a capacity directory exits 0 ($(tail -1 "$TMP/rep.err"))" 0 $?
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
finish
