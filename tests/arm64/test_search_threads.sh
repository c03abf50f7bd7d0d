#!/usr/bin/env bash
# test_search_threads.sh -- the aarch64 search on several threads under qemu-user (issue 36:
# with -j 2, -j 4 and the default it printed nothing and spun a core; -j 1 worked; the cause
# was the emulation's mixed glibc, see tests/arm64/run). `harness search --count` on the
# generated tiny corpus with -j 1, -j 2, -j 4 and the default thread count (the workers'
# rule, min(CPUs, 12)), each against the x86-64 build's output for the same -j: the same
# files, the same counts. Each search runs under `timeout` (AOPS_ARM64_SEARCH_TIMEOUT, 30 s;
# it takes well under a second): a hang fails this test, it cannot hang it.
source "$(dirname "$0")/../lib.sh"
unset RIPGREP_CONFIG_PATH
LIMIT=${AOPS_ARM64_SEARCH_TIMEOUT:-30}
X86=$ROOT/harness
[ -x "$X86" ] || { fail "no x86-64 ./harness to compare with: make harness"; finish; }
"$X86" corpus fetch --profile tiny --dir "$TMP/corpus" >/dev/null || fail "corpus fetch --profile tiny"
D=$TMP/corpus/tiny
for pat in 'static|struct' '(?i)error' 'Py_\w+\('; do
    for j in 1 2 4 default; do
        opt=(-j "$j")
        [ "$j" = default ] && opt=()
        want=$("$X86" search --count "${opt[@]}" -- "$pat" "$D" 2>/dev/null | sort)
        t0=$(date +%s%N)
        timeout "$LIMIT" "$HARNESS" search --count "${opt[@]}" -- "$pat" "$D" >"$TMP/out" 2>"$TMP/err"
        rc=$?
        got=$(sort "$TMP/out")
        ms=$((($(date +%s%N) - t0) / 1000000))
        if [ "$rc" = 124 ]; then
            fail "-j $j '$pat': no answer within $LIMIT s under qemu (the spin of issue 36)"
            continue
        fi
        check_eq "-j $j '$pat': exit 0 in $ms ms ($(grep -v 'io_uring setup failed' "$TMP/err" | head -c 200))" 0 "$rc"
        check "-j $j '$pat': the x86 build found matches to compare" test -n "$want"
        check_eq "-j $j '$pat': aarch64 counts = x86-64's ($(grep -c . <<<"$want") files)" "$want" "$got"
    done
done
finish
