#!/usr/bin/env bash
# Paced agents (issue 38) against queueing theory: the sleep test workload (a fixed service time
# S = AOPS_SLEEP_US) on one worker with --agent-concurrency 1 (one server), Poisson arrivals at
# utilisation 0.5 and 0.8, the rates set from S as a closed-loop run of the same workload
# measures it first. The ops.log is read by its own small reader below (common/oplog.h's
# format) and every figure is worked out from its timestamps.
#   - On this shared machine the sleep's service time is S plus a wake-up of varying length, so
#     it is not quite deterministic: the reference is the Pollaczek-Khinchine mean of M/G/1,
#     E[R] = E[X] + lam E[X^2] / (2 (1 - lam E[X])), with X each operation's time on the server
#     (from when it could start, max(its instant, the previous end), to its end) from the same
#     run; with X constant that is M/D/1's S + rho S / (2 (1 - rho)), printed beside it.
#     Tolerance: 4 standard errors of the mean response time by batch means (20 batches of 200:
#     successive response times are correlated over some 45 services at rho 0.8, (1 + rho) /
#     (1 - rho)^2, so a batch of 200 is nearly independent of the next; Student's t with 19
#     degrees of freedom exceeds 4 with probability 0.08 %), plus 3 % of E[X] for the model (an
#     idle server's wake-up is an exceptional first service, which P-K does not cover).
#   - The instants: Poisson gaps of mean 1/R (4 standard errors of 1/(R sqrt n)); fixed ones
#     exactly 1/R apart (to the nanosecond of rounding).
#   - Fixed arrivals at rho 0.8 barely queue: the mean wait is under Kingman's bound for G/G/1
#     with no arrival variance, lam Var(X) / (2 (1 - rho)) (+ the same tolerance), and under a
#     third of the Poisson run's at the same rate.
#   - result.json's latency_ms (the response time) and service_ms agree with the log
#     (harness check).
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
STACK=${AOPS_STACK_DIR:-$ROOT/.local/stack}

# The ops.log reader of the tests (tests/oplog.py), not the harness's.
cp "$ROOT/tests/oplog.py" "$TMP/oplog.py"

# ---- M/D/1 (M/G/1) on the sleep workload ----
# S = 5 ms: long against the wake-up of a loaded machine (about 1 ms here), short enough for
# 4,000 operations per point (44 s at rho 0.5). The rate for each rho is set from the service time a short
# closed-loop run of the same workload measures first (the wake-ups lengthen S).
S_US=5000
sleep_run() { # NAME CYCLES OPTIONS...
    local name=$1 cycles=$2; shift 2
    AOPS_SLEEP_US=$S_US "$HARNESS" --workloads sleep --containers 1 --cycles "$cycles" "$@" \
        --no-cgroups --out "$TMP/$name" --quiet >"$TMP/$name.log" 2>&1
    [ -s "$TMP/$name/ops.log" ] || { fail "$name: no ops.log ($(tail -1 "$TMP/$name.log"))"; return 1; }
}
sleep_run cal 20
S=$(python3 -c "
import sys; sys.path.insert(0, '$TMP'); import oplog
recs = oplog.read('$TMP/cal/ops.log')[3]
print(oplog.mean([(r[1] - r[0]) / 1e9 for r in recs]))")
R50=$(awk -v s="$S" 'BEGIN { printf "%.3f", 0.5 / s }')
R80=$(awk -v s="$S" 'BEGIN { printf "%.3f", 0.8 / s }')
echo "note: the sleep of $S_US us takes $S s on this machine now: rho 0.5 at $R50/s, 0.8 at $R80/s"
sleep_run p50 200 --arrival poisson --agent-rate "$R50" --agent-concurrency 1
sleep_run p80 200 --arrival poisson --agent-rate "$R80" --agent-concurrency 1
sleep_run f80 100 --arrival fixed --agent-rate "$R80" --agent-concurrency 1
out=$(python3 - "$TMP" "$R50" "$R80" <<'PY'
import math, sys
sys.path.insert(0, sys.argv[1]); import oplog
R50, R80 = float(sys.argv[2]), float(sys.argv[3])
def analyse(name, lam):
    rel, _, _, recs = oplog.read(f"{sys.argv[1]}/{name}/ops.log")
    recs = sorted(recs, key=lambda r: r[7])  # one server: in the order of the instants
    X, resp, wait, prev = [], [], [], -1
    for r in recs:
        begin = max(r[7], prev)  # the server is free for it here
        X.append((r[1] - begin) / 1e9); resp.append((r[1] - r[7]) / 1e9); wait.append((begin - r[7]) / 1e9)
        prev = r[1]
    n = len(resp); EX = oplog.mean(X); EX2 = oplog.mean([x * x for x in X]); rho = lam * EX
    k = 20; b = n // k; bm = [oplog.mean(resp[i * b:(i + 1) * b]) for i in range(k)]
    se = math.sqrt(sum((m - oplog.mean(bm)) ** 2 for m in bm) / (k - 1) / k)
    gaps = [(recs[i + 1][7] - recs[i][7]) for i in range(n - 1)]
    return dict(n=n, EX=EX, EX2=EX2, rho=rho, R=oplog.mean(resp), W=oplog.mean(wait), se=se,
                svc=oplog.mean([(r[1] - r[0]) / 1e9 for r in recs]), gaps=gaps,
                pk=EX + lam * EX2 / (2 * (1 - rho)), md1=EX + rho * EX / (2 * (1 - rho)),
                kingman=lam * (EX2 - EX * EX) / (2 * (1 - rho)), tol=4 * se + 0.03 * EX)
ok = True
for name, lam in (("p50", R50), ("p80", R80)):
    a = analyse(name, lam)
    good = a["rho"] < 0.95 and abs(a["R"] - a["pk"]) <= a["tol"]
    ok &= good
    print(f"{'ok' if good else 'FAIL'}: {name}: Poisson rho {a['rho']:.3f} (E[X] {a['EX']*1e3:.3f} ms, "
          f"CV {math.sqrt(max(a['EX2'] - a['EX']**2, 0)) / a['EX']:.2f}), {a['n']} ops: mean response "
          f"{a['R']*1e3:.3f} ms, M/G/1 (P-K) {a['pk']*1e3:.3f} ms +- {a['tol']*1e3:.3f} "
          f"(M/D/1 with S = E[X]: {a['md1']*1e3:.3f} ms; mean service time {a['svc']*1e3:.3f} ms)")
    gm = oplog.mean(a["gaps"]) / 1e9
    good = abs(gm * lam - 1) < 4 / math.sqrt(len(a["gaps"]))  # exponential gaps: SE 1/(lam sqrt n)
    ok &= good
    print(f"{'ok' if good else 'FAIL'}: {name}: mean gap between instants {gm*1e3:.3f} ms, 1/R = {1e3/lam:.3f} ms")
a = analyse("f80", R80)
gap = 1e9 / R80
good = all(abs(g - gap) <= 1 for g in a["gaps"])
ok &= good
print(f"{'ok' if good else 'FAIL'}: f80: fixed instants 1/R = {gap:.0f} ns apart (+-1 ns of rounding): "
      f"{min(a['gaps'])}..{max(a['gaps'])} ns")
p80 = analyse("p80", R80)
good = a["W"] <= a["kingman"] + a["tol"] and a["W"] < p80["W"] / 3
ok &= good
print(f"{'ok' if good else 'FAIL'}: f80: fixed arrivals at rho {a['rho']:.3f}: mean wait {a['W']*1e3:.3f} ms, "
      f"Kingman's G/G/1 bound with no arrival variance {a['kingman']*1e3:.3f} ms (+{a['tol']*1e3:.3f}); "
      f"Poisson at the same rate waited {p80['W']*1e3:.3f} ms")
sys.exit(0 if ok else 1)
PY
)
rc=$?
echo "$out"
[ $rc = 0 ] || fail "M/D/1 and fixed arrivals (above)"
resp=$(jq -r '.workloads.sleep.latency_ms.mean' "$TMP/p80/result.json")
svc=$(jq -r '.workloads.sleep.service_ms.mean' "$TMP/p80/result.json")
check "p80: result.json's latency_ms (response) exceeds its service_ms ($resp > $svc ms)" \
    awk -v r="$resp" -v s="$svc" 'BEGIN { exit !(r > s) }'
check "harness check recomputes the Poisson run's both latencies and its pacer" \
    "$HARNESS" check "$TMP/p80"

finish
