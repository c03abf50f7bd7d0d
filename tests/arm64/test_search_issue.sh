#!/usr/bin/env bash
# test_search_issue.sh -- the searches issue 28 saw fail on aarch64 under qemu-user, against
# `rg -P -c` on the generated tiny corpus: three crashed with SIGSEGV (a build without
# -D_GNU_SOURCE: memmem/memrchr implicitly declared), and `harness search` printed nothing and
# exited 2 where io_uring is not emulated. Run with the default reader: io_uring refused,
# it must search with pread, say so once on stderr, and print rg's counts.
source "$(dirname "$0")/../lib.sh"
unset RIPGREP_CONFIG_PATH
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/corpus" >/dev/null || fail "corpus fetch --profile tiny"
for tree in linux cpython; do
    for pat in 'TODO|FIXME' '(?i)error' '\bstatic\s+int\b' '[A-Z]{3,}_[A-Z]+' 'Py_\w+\('; do
        want=$(cd "$TMP/corpus/tiny/$tree" && rg -P -c --sort path -- "$pat" .)
        got=$(cd "$TMP/corpus/tiny/$tree" && "$HARNESS" search --count -- "$pat" . 2>"$TMP/err")
        rc=$?
        exp=1; [ -n "$want" ] && exp=0 # rg's status: 0 when something matched
        check_eq "$tree '$pat': exit status ($(head -c 200 "$TMP/err"))" $exp $rc
        check_eq "$tree '$pat': -c as rg -P -c ($(echo "$want" | grep -c .) files)" "$want" "$got"
    done
done
if grep -q "io_uring setup failed" "$TMP/err"; then
    check_contains "io_uring refused: the fallback is said" "searching with the pread reader" "$(cat "$TMP/err")"
else
    pass "io_uring available here: no fallback needed"
fi
finish
