#!/usr/bin/env bash
# test_check_hostile.sh -- `harness check` and `harness verify` on run
# directories written by an adversary (issue 35, "Why" 1-5 and 13). From one
# real tiny run (the stack), each case is a copy crafted the way a forger
# would: every digest made consistent again (the canonical sha256 worked out
# here in Python, itself checked first against the harness's own on the
# untouched run), so that only the defect under test can make check fail:
#   - a forged headline over a log that was "never released" (release_ns 0,
#     totals.aops 5,000,000) fails, naming release_ns; so does a result whose
#     search answers have no expected count to be checked by;
#   - repeats{n: 3, runs: []}, one run listed three times, one run copied
#     under three names, and a headline that is none of the runs each fail,
#     and the first two are not reportable by the rules;
#   - a merge whose shards name 9 workloads is a finding, not a write past
#     two 8-entry arrays;
#   - a 544-byte log claiming 2^59+1 records: one line, exit 2;
#   - integrity.files naming ../../../../dev/zero or a FIFO, oplog.file
#     naming a path outside, ops.log a symlink out of RUN_DIR or a FIFO: one
#     line naming the path, exit 2 at once (a timeout of 20 s is a hang);
#   - check's verdict says that an unsigned result may be a consistent
#     forgery; verify names the key that verified, never the envelope's
#     unsigned keyid, and refuses a statement with no subject.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
B=aops-it-hostile
C=$TMP/corpus
COMMON=(--profile tiny --bucket $B --corpus "$C" --patterns "$ROOT/corpus/patterns" --dataset shared)
if [ -z "${AWS_ACCESS_KEY_ID:-}" ] && [ -f "$ROOT/.local/stack/credentials" ]; then
    set -a; . "$ROOT/.local/stack/credentials"; set +a
    unset MARIADB_HOST MARIADB_PORT MARIADB_SOCKET MARIADB_USER MARIADB_PASSWORD MARIADB_DATABASE
fi

"$HARNESS" corpus fetch --profile tiny --dir "$C" >"$TMP/fetch.log" 2>&1 || { fail "corpus fetch: $(tail -2 "$TMP/fetch.log")"; finish; }
"$HARNESS" prepare "${COMMON[@]}" --containers 1 >"$TMP/prep.log" 2>&1 || { fail "prepare: $(tail -2 "$TMP/prep.log")"; finish; }
"$HARNESS" --containers 1 "${COMMON[@]}" --out "$TMP/base" --quiet >"$TMP/run.log" 2>&1 || { fail "the base run: $(tail -2 "$TMP/run.log")"; finish; }

# forge.py canon FILE: result.json's canonical sha256 as the harness defines it
# (README, "integrity"): without "integrity", keys sorted, compact, reals as
# C's %.17g with jansson's spelling (".0" on an integral real, no "+" and no
# leading zeros in an exponent).
# forge.py reseal DIR: integrity.files' digests (regular files only) and
# integrity.result_sha256 made consistent again, as a forger would.
cat >"$TMP/forge.py" <<'EOF'
import hashlib, json, os, re, stat, sys

def real(x):
    s = '%.17g' % x
    if not re.search(r'[.eE]|inf|nan', s):
        s += '.0'
    return re.sub(r'e([-+]?)0*(\d)', lambda m: 'e' + ('-' if m.group(1) == '-' else '') + m.group(2), s)

def dump(v):
    if isinstance(v, bool): return 'true' if v else 'false'
    if v is None: return 'null'
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return real(v)
    if isinstance(v, str): return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list): return '[' + ','.join(dump(x) for x in v) + ']'
    return '{' + ','.join(json.dumps(k, ensure_ascii=False) + ':' + dump(v[k])
                          for k in sorted(v, key=lambda k: k.encode())) + '}'

def canon(res):
    res = {k: v for k, v in res.items() if k != 'integrity'}
    return hashlib.sha256(dump(res).encode()).hexdigest()

def reseal(d):
    p = os.path.join(d, 'result.json')
    res = json.load(open(p))
    files = res.setdefault('integrity', {}).setdefault('files', {})
    for name in files:
        f = os.path.join(d, name)
        if '..' not in name and os.path.lexists(f) and stat.S_ISREG(os.lstat(f).st_mode):
            files[name] = hashlib.sha256(open(f, 'rb').read()).hexdigest()
    res['integrity']['result_sha256'] = canon(res)
    json.dump(res, open(p, 'w'), indent=2)

if sys.argv[1] == 'canon':
    print(canon(json.load(open(sys.argv[2]))))
else:
    reseal(sys.argv[2])
EOF
forge() { python3 "$TMP/forge.py" "$@"; }
edit() { # edit DIR JQ-FILTER [jq args]: result.json through jq, then resealed
    local d=$1 f=$2; shift 2
    jq "$@" "$f" "$d/result.json" >"$d/r.tmp" && mv "$d/r.tmp" "$d/result.json" && forge reseal "$d"
}
fresh() { rm -rf "$TMP/$1"; cp -a "$TMP/base" "$TMP/$1"; echo "$TMP/$1"; }
run_check() { # run_check DIR [args]: out and rc of check, a hang (20 s) is rc 124
    out=$(timeout -k 5 20 "$HARNESS" check "$@" 2>&1)
    rc=$?
}
lines() { printf '%s\n' "$1" | grep -c .; }

R=$TMP/base/result.json
check_eq "the canonical digest worked out here is the harness's own" \
    "$(jq -r .integrity.result_sha256 "$R")" "$(forge canon "$R")"
run_check "$TMP/base"
check_eq "check passes on the untouched run ($out)" 0 $rc
check_contains "and says it is consistent and unsigned" "consistent, unsigned" "$out"
check_contains "and that a consistent forgery of both files is possible" "not forgers" "$out"
A=$(jq -r .totals.aops "$R")

# ---- 1. a forged headline over a log never released -------------------------------------------------
D=$(fresh forged)
# ops.log header: magic 8, 4 x u32, records u64, run_id[40], then release_ns (i64) at byte 72.
printf '\0\0\0\0\0\0\0\0' | dd of="$D/ops.log" bs=1 seek=72 conv=notrunc status=none
edit "$D" '.totals.aops = 5000000 | .totals.aops_per_core = 5000000'
run_check "$D"
check_eq "a forged headline over release_ns 0 fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "naming the missing release" "release_ns 0" "$out"

D=$(fresh noexpected) # the search answers' expected counts taken out: nothing to check them by
edit "$D" 'del(.config.corpus.manifest.expected)'
run_check "$D"
check_eq "a result without the expected search counts fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "saying the answers cannot be checked" "records no expected count" "$out"

# ---- 2. repeats that are not three runs --------------------------------------------------------------
rep() { # rep DIR RUNS-JSON: a --repeat 3 headline over the listed runs, resealed
    edit "$1" '.repeats = {n: 3, runs_asked: 3,
        aops: [$runs[] | $a], aops_median: $a, aops_min: $a, aops_max: $a, aops_mean: $a,
        aops_cv: 0, median_run: 1, runs: $runs}
        | .nonreportable_reasons |= map(select(test("single run") | not))' \
        --argjson runs "$2" --argjson a "$A"
}
D=$(fresh rep0)
rep "$D" '[]'
run_check "$D"
check_eq "repeats{n: 3, runs: []} fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "naming repeats.n" "repeats.n: result.json 3, the result lists 0 distinct" "$out"
check_contains "and the rules do not call it a repeat" "repeats.n 3, but 0 distinct" "$out"

D=$(fresh rep1x3)
mkdir -p "$D/runs" && cp -a "$TMP/base" "$D/runs/1"
rep "$D" '["runs/1", "runs/1", "runs/1"]'
run_check "$D"
check_eq "one run listed three times fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "naming the repeated entry" "repeats.runs.1: runs/1 is listed again" "$out"

D=$(fresh rep3copies)
mkdir -p "$D/runs" && for i in 1 2 3; do cp -a "$TMP/base" "$D/runs/$i"; done
rep "$D" '["runs/1", "runs/2", "runs/3"]'
run_check "$D"
check_eq "one run copied under three names fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "naming the shared run id" "the same run listed twice" "$out"

D=$(fresh repelse)
mkdir -p "$D/runs"
# Three distinct runs (their own run ids, logs and digests): the id's last hex
# digit replaced by one that is none of the headline's, whatever the base run's
# id happens to end in (a digit i would make run i the headline again).
base_id=$(jq -r .run_id "$TMP/base/result.json")
pool=$(printf '%s' 0123456789abcdef | tr -d "${base_id: -1}")
for i in 1 2 3; do
    cp -a "$TMP/base" "$D/runs/$i"
    id=${base_id%?}${pool:$i:1}
    printf '%s' "$id" | dd of="$D/runs/$i/ops.log" bs=1 seek=32 conv=notrunc status=none
    edit "$D/runs/$i" '.run_id = $id' --arg id "$id"
done
rep "$D" '["runs/1", "runs/2", "runs/3"]' # ...under a headline that is none of them
run_check "$D"
check_eq "a headline that is none of the runs fails check ($(tail -1 <<<"$out"))" 1 $rc
check_contains "naming it" "is none of repeats.runs" "$out"

# ---- 3. a merge whose shards name more than 8 workloads ---------------------------------------------
D=$TMP/wide
mkdir -p "$D/shards"
python3 - "$D" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
shards = []
for k in range(9):
    rid = 'shard-%d' % k
    h = b'AOPSLOG1' + struct.pack('<IIIIQ', 1, 512, 32, 1, 1) + rid.encode().ljust(40, b'\0')
    h += struct.pack('<qqIIII', 1000, 1700000000000000000, 1, 0, 1, 1)
    h += ('w%d' % k).encode().ljust(16, b'\0') + b'\0' * 16 * 7 + b'\0' * 24 * 8
    h = h.ljust(512, b'\0')
    rec = struct.pack('<qqQIHBB', 2000, 3000, 0, k, 0, 0, 0x7f)
    open(os.path.join(d, 'shards/%d.log' % k), 'wb').write(h + rec)
    json.dump({'schema_version': 2, 'run_id': rid, 'oplog': {'records': 1}}, open(os.path.join(d, 'shards/%d.json' % k), 'w'))
    shards.append({'shard': k, 'result': 'shards/%d.json' % k, 'file': 'shards/%d.log' % k})
json.dump({'schema_version': 2, 'run_id': 'merged', 'merge': {}, 'oplog': {'shards': shards}}, open(os.path.join(d, 'result.json'), 'w'))
EOF
run_check "$D"
check_eq "a merge naming 9 workloads is checked, not a crash ($(tail -1 <<<"$out"))" 1 $rc
check_contains "and named as a finding" "more than 8 workloads" "$out"

# ---- 4. a record count that wraps -------------------------------------------------------------------
D=$(fresh wrap)
python3 - "$D/ops.log" <<'EOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read()[:544])
b[24:32] = struct.pack('<Q', (1 << 59) + 1)
open(p, 'wb').write(b)
EOF
run_check "$D"
check_eq "a 544-byte log claiming 2^59+1 records: exit 2 ($out)" 2 $rc
check_eq "in one line" 1 "$(lines "$out")"

# ---- 5. paths from result.json ----------------------------------------------------------------------
D=$(fresh devzero)
edit "$D" '.integrity.files["../../../../dev/zero"] = "x"'
run_check "$D"
check_eq "integrity.files naming ../../../../dev/zero: exit 2, no hang ($out)" 2 $rc
check_contains "naming the path" "../../../../dev/zero" "$out"
check_eq "in one line" 1 "$(lines "$out")"

D=$(fresh fifo)
mkfifo "$D/fifo"
edit "$D" '.integrity.files.fifo = "x"'
run_check "$D"
check_eq "integrity.files naming a FIFO: exit 2, no hang ($out)" 2 $rc
check_contains "saying it is not a regular file" "not a regular file" "$out"

D=$(fresh logfifo)
rm "$D/ops.log" && mkfifo "$D/ops.log"
run_check "$D"
check_eq "ops.log a FIFO: exit 2, no hang ($out)" 2 $rc

D=$(fresh symlink)
mkdir -p "$TMP/outside" && mv "$D/ops.log" "$TMP/outside/ops.log" && ln -s "$TMP/outside/ops.log" "$D/ops.log"
run_check "$D"
check_eq "ops.log a symlink out of RUN_DIR: exit 2 ($out)" 2 $rc
check_contains "saying why" "symbolic link" "$out"

D=$(fresh dotdot)
mkdir -p "$TMP/outside2" && mv "$D/ops.log" "$TMP/outside2/ops.log"
edit "$D" '.oplog.file = "../outside2/ops.log" | .integrity.files = {}'
run_check "$D"
check_eq "oplog.file naming ../outside2/ops.log: exit 2 ($out)" 2 $rc
check_contains "refused, naming it" "../outside2/ops.log" "$out"

# ---- 13. verify: the signer, a statement without subjects -------------------------------------------
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
openssl pkey -in "$TMP/key.pem" -pubout -out "$TMP/pub.pem" 2>/dev/null
sign() { # sign DIR SUBJECTS-JSON: a DSSE envelope with an unsigned keyid of the forger's choosing
    local d=$1 body
    body=$(jq -cn --argjson s "$2" --arg c "$(jq -r .integrity.result_sha256 "$d/result.json")" \
        '{_type: "https://in-toto.io/Statement/v1", subject: $s, predicateType: "x", predicate: {canonical_sha256: $c}}')
    printf '%s' "$body" >"$TMP/body"
    printf 'DSSEv1 %d %s %d ' 28 application/vnd.in-toto+json "$(stat -c %s "$TMP/body")" >"$TMP/pae"
    cat "$TMP/body" >>"$TMP/pae"
    openssl pkeyutl -sign -inkey "$TMP/key.pem" -rawin -in "$TMP/pae" -out "$TMP/sig" || return 1
    jq -n --arg p "$(base64 -w0 "$TMP/body")" --arg s "$(base64 -w0 "$TMP/sig")" \
        '{payloadType: "application/vnd.in-toto+json", payload: $p,
          signatures: [{keyid: "TRUSTED-VENDOR-KEY", sig: $s}]}' >"$d/result.dsse.json"
}
D=$(fresh signed)
sign "$D" "[{\"name\": \"result.json\", \"digest\": {\"sha256\": \"$(sha256sum "$D/result.json" | cut -d' ' -f1)\"}}]"
out=$("$HARNESS" verify "$D" --key "$TMP/pub.pem" 2>&1)
check_eq "verify accepts the signed run ($out)" 0 $?
check_lacks "and does not name the envelope's unsigned keyid as the signer" "TRUSTED-VENDOR" "$out"
check_contains "but the key that verified" "$TMP/pub.pem" "$out"
check_contains "and its fingerprint" "$(openssl pkey -pubin -in "$TMP/pub.pem" -outform DER | sha256sum | cut -c1-16)" "$out"
run_check "$D" --key "$TMP/pub.pem"
check_eq "check --key passes on it ($out)" 0 $rc
check_contains "calling it signed and verified" "signed and verified" "$out"

D=$(fresh nosub)
sign "$D" '[]'
out=$("$HARNESS" verify "$D" --key "$TMP/pub.pem" 2>&1)
check_eq "a statement without subjects is refused ($out)" 1 $?
check_contains "saying so" "names no subject" "$out"
run_check "$D" --key "$TMP/pub.pem"
check_eq "and check --key fails on it" 1 $rc

finish
