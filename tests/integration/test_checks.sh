#!/usr/bin/env bash
# test_checks.sh -- results anyone can check (issue 25), against the real stack:
#   - a tiny run: its log, provenance (against sha256sum, git, curl-config, the
#     objects manifest fetched with curl), `harness check` passing, its
#     non-reportable reasons, a signature `harness verify` accepts;
#   - a hand-edited number makes check fail naming it with both values; the
#     signature over the edited result fails, so do another key and none;
#   - check refuses a missing, truncated or foreign log in one line;
#   - an object overwritten through the S3 API with other bytes of the same
#     size makes the run invalid with a checksum error; prepare repairs it;
#   - a MariaDB row changed with the mariadb client (a throwaway server of the
#     test's own) makes the run invalid, naming the query;
#   - check passes on a --repeat 3 and on a merge of two shards (and on the
#     small profile when its corpus is fetched), and rerun runs the same job.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
B=aops-it-checks
C=$TMP/corpus
COMMON=(--profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns" --dataset shared)
if [ -z "${AWS_ACCESS_KEY_ID:-}" ] && [ -f "$ROOT/.local/stack/credentials" ]; then
    set -a; . "$ROOT/.local/stack/credentials"; set +a
    # Only the S3 keys for curl: the harness reads MariaDB's from its credentials file.
    unset MARIADB_HOST MARIADB_PORT MARIADB_SOCKET MARIADB_USER MARIADB_PASSWORD MARIADB_DATABASE
fi
EP=${S3_ENDPOINT:-http://127.0.0.1:9000}
s3() { # s3 METHOD KEY [curl args...]: a signed request of curl's own
    local m=$1 k=$2; shift 2
    curl -sf -X "$m" --aws-sigv4 "aws:amz:us-east-1:s3" -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$EP/$B/$k" "$@"
}
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

"$HARNESS" corpus fetch --profile tiny --dir "$C" >"$TMP/fetch.log" 2>&1 || { fail "corpus fetch: $(tail -2 "$TMP/fetch.log")"; finish; }
check "corpus fetch records the expected counts" jq -e '.expected.patterns | length == 100' "$C/tiny/manifest.json"
out=$("$HARNESS" prepare "${COMMON[@]}" --containers 2 2>&1)
rc=$?; check_eq "prepare exits 0" 0 $rc; [ $rc = 0 ] || echo "$out"
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
openssl pkey -in "$TMP/key.pem" -pubout -out "$TMP/pub.pem" 2>/dev/null
openssl genpkey -algorithm ed25519 -out "$TMP/other.pem" 2>/dev/null
openssl pkey -in "$TMP/other.pem" -pubout -out "$TMP/other.pub" 2>/dev/null

# ---- a run, checked -----------------------------------------------------------------------------
A=$TMP/a
"$HARNESS" --containers 2 "${COMMON[@]}" --sign "$TMP/key.pem" --out "$A" --quiet >"$TMP/a.log" 2>&1
rc=$?
check_eq "tiny run exits 0 ($(tail -2 "$TMP/a.log" | tr '\n' ' '))" 0 $rc
R=$A/result.json
check "valid, every answer verified" jq -e '.valid and ([.verification[] | .verified] | all) and (.verification | length == 3)' "$R"
check_eq "ops.log: a 512-byte header and 40 bytes per operation (format 2)" $((512 + 2 * 1340 * 40)) "$(stat -c %s "$A/ops.log")"
check_eq "the log's run id is the result's" "$(jq_ .run_id "$R")" "$(dd if="$A/ops.log" bs=1 skip=32 count=32 2>/dev/null)"
check_eq "provenance: sha256 of the executable" "$(sha256sum "$HARNESS" | cut -d' ' -f1)" "$(jq_ .provenance.build.exe_sha256 "$R")"
check_eq "provenance: the commit" "$(git rev-parse HEAD)" "$(jq_ .provenance.build.commit "$R")"
check_eq "provenance: libcurl as loaded" "$(curl-config --version | sed 's/libcurl //')" "$(jq_ .provenance.libraries.libcurl "$R")"
check_eq "provenance: jansson" "$(pkg-config --modversion jansson)" "$(jq_ .provenance.libraries.jansson "$R")"
check_eq "provenance: the patterns file" "$(sha256sum corpus/patterns | cut -d' ' -f1)" "$(jq_ .provenance.data.patterns.sha256 "$R")"
check_eq "provenance: the corpus manifest" "$(sha256sum "$C/tiny/manifest.json" | cut -d' ' -f1)" "$(jq_ .provenance.data.corpus_manifest.sha256 "$R")"
s3 GET tiny/objects-manifest -o "$TMP/objects-manifest"
check_eq "provenance: the objects manifest as curl gets it" "$(sha256sum "$TMP/objects-manifest" | cut -d' ' -f1)" "$(jq_ .provenance.data.objects_manifest.sha256 "$R")"
check_eq "worker 0's section is the generator's (harness objects-manifest)" \
    "$("$HARNESS" objects-manifest --profile tiny --seed 1 | sha256sum | cut -d' ' -f1)" "$(jq_ .provenance.data.objects_manifest.worker0_sha256 "$R")"
check "no secret in the result" bash -c "! grep -qF \"$AWS_SECRET_ACCESS_KEY\" $R"
out=$("$HARNESS" check "$A" 2>&1)
check_eq "check passes on the untouched run ($out)" 0 $?
check "a tiny run is not reportable, and says why" jq -e '.reportable == false and
    (.nonreportable_reasons | any(test("profile tiny, not full"))) and (.nonreportable_reasons | any(test("a single run")))
    and (.nonreportable_reasons | any(test("objects manifest differs")))' "$R"
"$HARNESS" report "$A" -o "$TMP/a.html" >/dev/null 2>&1
check_contains "the report says it" 'data-reportable="false">not reportable' "$(cat "$TMP/a.html")"
out=$("$HARNESS" verify "$A" --key "$TMP/pub.pem" 2>&1)
check_eq "verify accepts the signed run ($out)" 0 $?

# ---- edited after the run ----------------------------------------------------------------------
E=$TMP/edited
cp -r "$A" "$E"
jq '.totals.aops = 12345.5' "$R" >"$E/result.json"
out=$("$HARNESS" check "$E" 2>&1)
check_eq "check fails on a hand-edited number" 1 $?
check_contains "naming it with both values" "totals.aops: result.json 12345.5, recomputed from the log $(jq_ .totals.aops "$R" | cut -c1-6)" "$out"
check_contains "and the integrity digest" "integrity.result_sha256" "$out"
jq '.workloads.db.latency_ms.p99 *= 3' "$R" >"$E/result.json"
out=$("$HARNESS" check "$E" 2>&1)
check_contains "a latency percentile edited is named" "workloads.db.latency_ms.p99: result.json" "$out"
out=$("$HARNESS" verify "$E" --key "$TMP/pub.pem" 2>&1)
rc=$?
check_eq "verify fails on a result changed after signing" 1 $rc
check_eq "in one line" 1 "$(wc -l <<<"$out")"
check_contains "saying so" "result.json changed after it was signed" "$out"
out=$("$HARNESS" verify "$A" --key "$TMP/other.pub" 2>&1)
check_eq "another key does not verify" 1 $?
check_contains "saying so" "does not verify with" "$out"
rm "$E/result.dsse.json"
check_contains "a missing signature is said" "has no signature" "$("$HARNESS" verify "$E" --key "$TMP/pub.pem" 2>&1)"

# ---- bad logs ------------------------------------------------------------------------------------
cp "$R" "$E/result.json"
rm "$E/ops.log"
out=$("$HARNESS" check "$E" 2>&1)
check_eq "no log: exit 2" 2 $?
check_contains "no log: one line saying so" "ops.log: missing" "$out"
head -c 2000 "$A/ops.log" >"$E/ops.log"
check_contains "a truncated log is said" "truncated" "$("$HARNESS" check "$E" 2>&1)"

# ---- an object overwritten through the S3 API -------------------------------------------------------
# Other bytes of the same size (1 KiB), put with curl as any client would.
head -c 1024 /dev/urandom >"$TMP/junk"
s3 PUT tiny/w0/1MiB/7 -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --data-binary @"$TMP/junk" >/dev/null
check_eq "the overwritten object keeps its size" 1024 "$(s3 HEAD tiny/w0/1MiB/7 -I | tr -d '\r' | sed -n 's/^Content-Length: //Ip')"
T=$TMP/tampered
"$HARNESS" --containers 1 "${COMMON[@]}" --out "$T" --quiet >"$TMP/t.log" 2>&1
check_eq "the run exits 1 (invalid)" 1 $?
check "invalid with a checksum error naming the object" jq -e '.valid == false and
    (.invalid_reasons | any(test("1 operations failed"))) and
    (.containers[0].error | test("GET tiny/w0/1MiB/7: checksum error"))' "$T/result.json"
check_eq "one GET failed, the others not" "1 1189" "$(jq -r '"\(.workloads.s3.errors) \(.workloads.s3.ops)"' "$T/result.json")"
check_contains "the summary says it is not reportable" "reportable: no" "$(cat "$TMP/t.log")"
out=$("$HARNESS" check "$T" 2>&1)
check_eq "check agrees with the invalid run" 0 $?
out=$("$HARNESS" prepare "${COMMON[@]}" --containers 2 2>&1)
check_contains "prepare puts the object back" "1 uploaded" "$out"

# ---- a changed MariaDB row (a server of the test's own) ----------------------------------------------
if db_init "$TMP/db" 13407 && db_start && db_user "chk-$$"; then
    grep -v '^MARIADB_' "$ROOT/.local/stack/credentials" >"$TMP/creds"
    cat "$TMP/db/creds" >>"$TMP/creds"
    echo "MARIADB_SOCKET=" >>"$TMP/creds"
    export AOPS_CREDENTIALS=$TMP/creds
    out=$("$HARNESS" prepare "${COMMON[@]}" --containers 4 --workloads db 2>&1)
    rc=$?
    check_eq "prepare on the throwaway server ($(tail -1 <<<"$out"))" 0 $rc
    # The last event: in its agent's ordered scan (the 50 newest) and aggregate;
    # 4 workers x 20 of those over the tiny profile's 8 agents all but surely meet it.
    mariadb --no-defaults --socket="$DB_DIR/s.sock" -u "$(id -un)" aops -e \
        "UPDATE events SET tool = 'tampered', latency_ms = latency_ms + 1 ORDER BY id DESC LIMIT 1"
    check_eq "the mariadb client changed one row" 1 "$(mariadb --no-defaults --socket="$DB_DIR/s.sock" -u "$(id -un)" aops -N -e "SELECT COUNT(*) FROM events WHERE tool = 'tampered'")"
    "$HARNESS" --containers 4 "${COMMON[@]}" --out "$TMP/dbt" --quiet >"$TMP/dbt.log" 2>&1
    check_eq "the run exits 1 (invalid)" 1 $?
    check "invalid, a query's answer named" jq -e '.valid == false and .workloads.db.errors > 0 and .workloads.s3.errors == 0
        and ([.containers[].error // "" | test("db: MariaDB: wrong answer from the (ordered|aggregate) query \\(agent")] | any)' "$TMP/dbt/result.json"
    unset AOPS_CREDENTIALS
    kill "$SERVER"; SERVER=
else
    fail "the throwaway MariaDB did not start: $(tail -3 "$TMP/db/err.log" 2>/dev/null)"
fi

# ---- repeated, merged, small, rerun: check passes on each ---------------------------------------------
"$HARNESS" --containers 1 "${COMMON[@]}" --repeat 3 --out "$TMP/rep" --quiet >"$TMP/rep.log" 2>&1
check_eq "--repeat 3 exits 0" 0 $?
out=$("$HARNESS" check "$TMP/rep" 2>&1)
check_eq "check passes on a repeated result ($out)" 0 $?
check "repeated: no 'single run' reason" jq -e '.nonreportable_reasons | any(test("single run|--repeat")) | not' "$TMP/rep/result.json"

at=$(( $(date +%s) + 3 ))
for i in 0 1; do
    "$HARNESS" --containers 1 "${COMMON[@]}" --shard $i/2 --start-at $at --out "$TMP/s$i" --quiet >"$TMP/s$i.log" 2>&1 &
    pids[$i]=$!
done
for i in 0 1; do wait ${pids[$i]}; rc=$?; check_eq "shard $i exits 0 ($(tail -1 "$TMP/s$i.log"))" 0 $rc; done
"$HARNESS" merge "$TMP/s0" "$TMP/s1" --out "$TMP/merged" --quiet >"$TMP/m.log" 2>&1
rc=$?
check_eq "merge exits 0 ($(tail -1 "$TMP/m.log"))" 0 $rc
out=$("$HARNESS" check "$TMP/merged" 2>&1)
check_eq "check passes on a merged result ($out)" 0 $?
jq '.totals.ops += 1' "$TMP/merged/result.json" >"$TMP/m.json" && cp "$TMP/m.json" "$TMP/merged/result.json"
check_contains "and names an edited merged figure" "totals.ops: result.json 2681" "$("$HARNESS" check "$TMP/merged" 2>&1)"

out=$("$HARNESS" rerun "$A" --out "$TMP/rr" --quiet 2>&1)
rc=$?
check_eq "rerun exits 0 ($(tail -2 <<<"$out" | tr '\n' ' '))" 0 $rc
check "rerun ran the recorded job" jq -e --slurpfile a "$R" '.config.containers == $a[0].config.containers and
    .config.seed == $a[0].config.seed and .config.s3.bucket == $a[0].config.s3.bucket and .valid' "$TMP/rr/result.json"
check_contains "and says how far apart the two are" "rerun: AOPS" "$out"
if [ -f corpus/data/small/manifest.json ] && [ "${AOPS_TEST_SMALL:-1}" != 0 ]; then
    SMALL=(--profile small --bucket $B --patterns "$ROOT/corpus/patterns" --dataset shared --containers 1)
    "$HARNESS" prepare "${SMALL[@]}" >"$TMP/sp.log" 2>&1
    "$HARNESS" "${SMALL[@]}" --out "$TMP/small" --quiet >"$TMP/small.log" 2>&1
    rc=$?
    check_eq "small run exits 0 ($(tail -1 "$TMP/small.log"))" 0 $rc
    out=$("$HARNESS" check "$TMP/small" 2>&1)
    check_eq "check passes on a small result ($out)" 0 $?
    echo "small profile, 1 container: ops.log $(stat -c %s "$TMP/small/ops.log") bytes"
    # The stack's database holds one profile's rows: give the next tests tiny's back.
    "$HARNESS" prepare "${COMMON[@]}" --containers 1 --workloads db >/dev/null 2>&1
else
    echo "skipped: the small profile's corpus is not fetched"
fi

finish
