#!/usr/bin/env bash
# MinIO's own GetObject count (workloads/minio_metrics.c) against the real MinIO of the
# stack (scripts/stack up serves its metrics without a token): N GETs made with curl raise the
# count by exactly N, a GET of a missing key raises requests and errors by one, the live v3
# counter is the one read, and an unreachable endpoint fails with one clear line.
. "$(dirname "$0")/../lib.sh"

DRIVER=$ROOT/build/asan/tests/test_minio_metrics
CREDS=${AOPS_CREDENTIALS:-$ROOT/.local/stack/credentials}
[ -x "$DRIVER" ] || { fail "no $DRIVER: run make asan"; finish; }
[ -r "$CREDS" ] || { fail "no credentials at $CREDS: scripts/stack up"; finish; }
kv() { sed -n "s/^$1=//p" "$CREDS" | head -n1; }
E="$(kv S3_ENDPOINT)"
CURLCFG="$TMP/curl.cfg"
(umask 077; printf 'user = "%s:%s"\n' "$(kv AWS_ACCESS_KEY_ID)" "$(kv AWS_SECRET_ACCESS_KEY)" >"$CURLCFG")
s3() { curl -s -K "$CURLCFG" --aws-sigv4 "aws:amz:us-east-1:s3" "$@"; }
BUCKET=aops-it-metrics

count() { # count -> "requests errors" from the driver, or FAIL
    local out
    out="$("$DRIVER" count "$E" 2>&1)" || { echo "FAIL $out"; return; }
    sed -E 's/^requests=([0-9]+) errors=([0-9]+).*/\1 \2/' <<<"$out"
}

out="$("$DRIVER" count "$E" 2>&1)"; rc=$?
check_eq "the driver reads the count ($out)" 0 "$rc"
case "$out" in *"HTTP 403"*) echo "MinIO at $E predates MINIO_PROMETHEUS_AUTH_TYPE=public: scripts/stack down && scripts/stack up" >&2 ;; esac
check_contains "the live v3 counter is read at the pinned version" "url=$E/minio/metrics/v3/api/requests" "$out"
check_contains "v3 is not the cached v2 page" "cached=0" "$out"

code="$(s3 -o /dev/null -w '%{http_code}' -X PUT "$E/$BUCKET")"
check "bucket $BUCKET created or already ours ($code)" test "$code" = 200 -o "$code" = 409
head -c 4096 /dev/urandom >"$TMP/obj"
code="$(s3 -o /dev/null -w '%{http_code}' -T "$TMP/obj" "$E/$BUCKET/obj")"
check_eq "object uploaded" 200 "$code"

N=25
read -r r0 e0 <<<"$(count)"
ok=0
for ((i = 0; i < N; i++)); do
    [ "$(s3 -o /dev/null -w '%{http_code}' "$E/$BUCKET/obj")" = 200 ] && ok=$((ok + 1))
done
read -r r1 e1 <<<"$(count)"
check_eq "$N GETs answered 200" "$N" "$ok"
check_eq "$N GETs raise MinIO's GetObject count by $N ($r0 -> $r1)" "$N" "$((r1 - r0))"
check_eq "and no error ($e0 -> $e1)" 0 "$((e1 - e0))"

code="$(s3 -o /dev/null -w '%{http_code}' "$E/$BUCKET/no-such-key")"
check_eq "a missing key answers 404" 404 "$code"
read -r r2 e2 <<<"$(count)"
check_eq "a failed GET is counted as a request" 1 "$((r2 - r1))"
check_eq "and as an error" 1 "$((e2 - e1))"

s3 -o /dev/null -X DELETE "$E/$BUCKET/obj"

# nobody listens on port 1: one line naming the URL, non-zero exit
out="$("$DRIVER" count http://127.0.0.1:1 2>&1)"; rc=$?
check "an unreachable MinIO fails" test "$rc" -ne 0
check_eq "with one line" 1 "$(printf '%s\n' "$out" | wc -l)"
check_contains "naming the URL" "http://127.0.0.1:1/minio/metrics/v3/api/requests" "$out"
finish
