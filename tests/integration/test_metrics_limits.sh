#!/usr/bin/env bash
# The /metrics endpoint's limits (metrics/metrics_http.c), against a real run of the test
# workload (no stack needed), with curl, ss and the kernel as the references:
#   - `--metrics-listen :PORT` listens on 127.0.0.1 only (ss shows the socket's address);
#   - eight connections that send nothing (every slot taken) delay a real scrape by 2 s at
#     most: it is answered within 3 s, where it used to wait out their 10 s;
#   - a client reconnecting in a loop for a second gets its answers, but the exposition is
#     rendered at most once per 100 ms: aops_metrics_renders_total grows by at most
#     elapsed/0.1 + 1 over the loop, however many scrapes it made (at least 30);
#   - a request over 8 KiB is answered 431 and the server goes on serving.
# Takes about 10 s.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"

RUN=""
cleanup() {
    [ -n "$RUN" ] && kill -INT "$RUN" 2>/dev/null && wait "$RUN" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
for tool in curl ss; do
    command -v $tool >/dev/null 2>&1 || { fail "$tool is not installed (make setup installs it)"; finish; }
done

MPORT=$(free_port 19530)
URL="http://127.0.0.1:$MPORT/metrics"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
renders() { # the counter as the endpoint reports it now
    curl -sf --max-time 5 "$URL" | sed -n 's/^aops_metrics_renders_total{[^}]*} //p'
}

# A run that lasts far longer than the checks (2,000 cycles of 20 x 1 ms sleeps, ~40 s): it
# is interrupted once they are done.
AOPS_SLEEP_US=1000 "$HARNESS" --containers 1 --cycles 2000 --workloads sleep --no-cgroups \
    --metrics-listen ":$MPORT" --metrics-linger 0 --out "$TMP/run" --quiet >"$TMP/run.log" 2>&1 &
RUN=$!
up=""
for _ in $(seq 200); do
    curl -sf --max-time 2 "$URL" -o "$TMP/first.txt" 2>/dev/null &&
        grep -q 'aops_containers{.*state="running"} 1' "$TMP/first.txt" && { up=1; break; }
    kill -0 "$RUN" 2>/dev/null || break
    sleep 0.1
done
check "the endpoint serves while the worker runs ($(tail -n2 "$TMP/run.log" | tr '\n' ' '))" test -n "$up"
[ -n "$up" ] || finish

# ---- :PORT is this host only ----------------------------------------------------------------------
listen=$(ss -Hltn "sport = :$MPORT" | awk '{print $4}')
check_eq ":$MPORT listens on 127.0.0.1 only (ss)" "127.0.0.1:$MPORT" "$listen"

# ---- eight idle connections do not shut out a scrape ----------------------------------------------
idle=()
for _ in $(seq 8); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$MPORT" || fail "cannot open an idle connection"
    idle+=("$fd")
done
# The server has taken all eight when the listener's accept queue is empty again (Recv-Q).
queued=""
for _ in $(seq 100); do
    queued=$(ss -Hltn "sport = :$MPORT" | awk '{print $2}')
    [ "$queued" = 0 ] && break
    sleep 0.05
done
check_eq "the eight idle connections are accepted (accept queue empty)" 0 "$queued"
t0=$(now_ms)
code=$(curl -s --max-time 12 -o "$TMP/late.txt" -w '%{http_code}' "$URL")
took=$(($(now_ms) - t0))
check_eq "a scrape behind 8 idle connections is answered 200" 200 "$code"
check "... within 3 s, not their 10 s (took ${took} ms)" test "$took" -le 3000
check "... with the exposition" grep -q '^aops_operations_total{' "$TMP/late.txt"
for fd in "${idle[@]}"; do exec {fd}>&-; done

# ---- a reconnect loop: at most one render per 100 ms ----------------------------------------------
t0=$(now_ms)
r0=$(renders)
n=0
# Each URL of the glob is a connection of its own: the server closes every one after its answer.
while [ $(($(now_ms) - t0)) -lt 1000 ]; do
    k=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}\n' "$URL?[1-20]" | grep -c '^200$')
    n=$((n + k))
done
r1=$(renders)
el=$(($(now_ms) - t0))
check "the counter is exposed (aops_metrics_renders_total: '$r0', '$r1')" test -n "$r0" -a -n "$r1"
if [ -n "$r0" ] && [ -n "$r1" ]; then
    max=$((el / 100 + 1))
    check "a reconnect loop made at least 30 scrapes in its second (made $n)" test "$n" -ge 30
    check "... which took at most ${max} renders in ${el} ms (took $((r1 - r0)))" test $((r1 - r0)) -le "$max"
    check "... and at least one (the counter moves)" test $((r1 - r0)) -ge 1
fi

# ---- a bounded request ------------------------------------------------------------------------------
big=$(head -c 9000 /dev/zero | tr '\0' a)
code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' -H "X-Big: $big" "$URL")
check_eq "a request over 8 KiB: 431" 431 "$code"
check "the endpoint still serves after it" curl -sf --max-time 5 -o /dev/null "$URL"
check "the run is still going" kill -0 "$RUN"

kill -INT "$RUN" 2>/dev/null
wait "$RUN" 2>/dev/null
RUN=""
finish
