#!/usr/bin/env bash
# test_search_rg.sh -- `harness search --count` / `--files-with-matches` print
# exactly what `rg -P -c` / `rg -P -l` print, file by file, on one thread and on
# ripgrep's default (a parallel walk over min(CPUs, 12) threads): for every pattern
# of corpus/patterns on the generated tiny corpus always, and on the real
# trees (corpus/data/full) when they have been fetched, as AOPS_RG_REAL says:
#   sample (default, in `make test`): 5 patterns per tree, chosen to cover the
#          matcher's paths (whole buffer, line by line, literal prefilter,
#          end-anchored, Unicode), over CPython and four Linux subsystems
#          (kernel, mm, fs/ext4, lib: 28 MB) -- bounded whatever is fetched;
#   all    (`make test-corpus`): every pattern -- tens of minutes with rg -P;
#   none   the generated corpus only.
# The expected counts `corpus fetch` records in the manifest (what every search
# of a run is checked against) are compared with rg -P's too: the sum of the
# -c counts and the number of files it lists, per pattern and tree.
source "$(dirname "$0")/../lib.sh"
REAL=${AOPS_RG_REAL:-sample}
case "$REAL" in sample | all | none) ;; *) fail "AOPS_RG_REAL='$REAL': expected sample, all or none"; finish ;; esac
unset RIPGREP_CONFIG_PATH
command -v rg >/dev/null || { fail "ripgrep (rg) is not installed: apt-get install ripgrep"; finish; }

"$HARNESS" corpus fetch --profile tiny --dir "$TMP/corpus" >/dev/null || fail "corpus fetch --profile tiny"

# The real-tree sample: each must be a pattern of corpus/patterns for its tree.
SAMPLE_linux=('GFP_KERNEL' 'WARN_ON\(.*refcount' '(?<=struct )inode\b' '\s+$' '(?i)straße|naïve|café')
SAMPLE_cpython=('PyErr_Occurred\(\)' '(?<=def )\w+(?=\(self)' '\d+\.\d+\.\d+' '(?i)todo|fixme|xxx' '\p{L}+\x{FFFD}')
SAMPLE_DIRS_linux=(kernel mm fs/ext4 lib)
SAMPLE_DIRS_cpython=(.)

# compare TREE_DIR TAG ONLY MANIFEST RG_EXTRA...: every pattern tagged for this
# tree (or any); with ONLY=sample just those of SAMPLE_<tag>. With a MANIFEST
# (its profile's manifest.json), its expected counts against rg's whole-tree
# totals too. Comparing none fails.
compare() {
    local dir=$1 tag=$2 only=$3 manifest=$4; shift 4
    local n=0 bad=0 idx=-1 nexp=0
    declare -A exp=()
    if [ -n "$manifest" ]; then
        while read -r i l f; do exp[$i]="$l $f"; done < <(jq -r --arg t "$tag" \
            '.expected.patterns | to_entries[] | select(.value[$t] != null) | "\(.key) \(.value[$t].lines) \(.value[$t].files)"' "$manifest")
        [ ${#exp[@]} -gt 0 ] || fail "$manifest records no expected counts for $tag"
    fi
    local -n sample="SAMPLE_$tag"
    local paths=(.)
    if [ "$only" = sample ]; then local -n sdirs="SAMPLE_DIRS_$tag"; paths=("${sdirs[@]}"); fi
    while IFS=$'\t' read -r tree pat; do
        case "$tree" in '#'*|'') continue ;; esac
        idx=$((idx + 1))
        [ "$tree" = "$tag" ] || [ "$tree" = any ] || continue
        if [ "$only" = sample ]; then
            local hit=0 p
            for p in "${sample[@]}"; do [ "$p" = "$pat" ] && hit=1; done
            [ $hit = 1 ] || continue
        fi
        n=$((n + 1))
        for mode in -c -l; do
            local long=--count; [ $mode = -l ] && long=--files-with-matches
            local want got
            want=$(cd "$dir" && rg -P $mode --sort path "$@" -- "$pat" "${paths[@]}" 2>/dev/null)
            # One thread, and ripgrep's default (min(CPUs, 12)): the same output.
            for j in 1 default; do
                local jarg=(); [ $j = 1 ] && jarg=(-j 1)
                got=$(cd "$dir" && "$HARNESS" search "${jarg[@]}" $long -- "$pat" "${paths[@]}" 2>/dev/null)
                if [ "$want" != "$got" ]; then
                    bad=$((bad + 1))
                    fail "$tag $mode -j $j '$pat': $(diff <(echo "$want") <(echo "$got") | head -5 | tr '\n' ' ')"
                fi
            done
            if [ $mode = -c ] && [ -n "$manifest" ]; then
                local rgsum
                rgsum=$(awk -F: 'NF { s += $NF; n++ } END { print s + 0, n + 0 }' <<<"$want")
                nexp=$((nexp + 1))
                if [ "${exp[$idx]:-none}" != "$rgsum" ]; then
                    bad=$((bad + 1))
                    fail "$tag pattern $((idx + 1)) '$pat': manifest expects '${exp[$idx]:-none}' (lines files), rg -P -c gives '$rgsum'"
                fi
            fi
        done
    done < "$ROOT/corpus/patterns"
    if [ $n = 0 ]; then
        fail "$tag ($dir): no pattern compared"
    elif [ "$only" = sample ] && [ $n != ${#sample[@]} ]; then
        fail "$tag: $n of the ${#sample[@]} sample patterns found in corpus/patterns"
    elif [ $bad = 0 ]; then
        pass "$tag ($dir: ${paths[*]}): $n patterns, -c and -l equal to rg -P file by file, -j 1 and default${manifest:+; the manifest's $nexp expected counts equal rg's}"
    fi
}

compare "$TMP/corpus/tiny/linux" linux all "$TMP/corpus/tiny/manifest.json"
compare "$TMP/corpus/tiny/cpython" cpython all "$TMP/corpus/tiny/manifest.json"

# The edge cases are really there and really handled as ripgrep does.
out=$("$HARNESS" search --count 'TODO' "$TMP/corpus/tiny/linux")
check_lacks "a NUL past 64 KiB hides the file from -c" 'blob_late' "$out"
out=$("$HARNESS" search --files-with-matches 'TODO' "$TMP/corpus/tiny/linux")
check_contains "-l lists a file whose match precedes a late NUL" blob_late.bin "$out"
check "the corpus has a hidden file that matches" bash -c "rg -l --hidden --no-ignore TODO '$TMP/corpus/tiny/linux' | grep -q '/\.'"
check_contains "-l lists a file whose match is an 8 KiB read before the NUL" blob_mid.bin "$out"
check_lacks "-l does not list one whose match shares the NUL's read" 'blob_mid_near' "$out"
check_lacks "hidden files are skipped" '/\.' "$out"
check "the corpus has a symlink to a file that matches" bash -c "rg -L -l --no-ignore TODO '$TMP/corpus/tiny/linux' | grep -q link_to"
check_lacks "symlinks are not followed" 'link_to' "$out"
check_contains "the deep file is found" "d39/bottom.c" "$("$HARNESS" search -c return "$TMP/corpus/tiny/linux")"
# UTF-16 with a BOM: transcoded and its text searched, as ripgrep does.
out=$(cd "$TMP/corpus/tiny/linux" && "$HARNESS" search --count 'TODO' .)
check_contains "UTF-16LE text is searched" "./Documentation/utf16/le.txt:2" "$out"
check_contains "UTF-16BE text is searched" "./Documentation/utf16/be.txt:2" "$out"
check_contains "unpaired surrogates and an odd byte decode as rg decodes them" "./Documentation/utf16/bad.txt:4" \
    "$(cd "$TMP/corpus/tiny/linux" && "$HARNESS" search --count '\x{FFFD}' .)"
check_contains "a surrogate pair across two reads" "./drivers/utf16/big.c:1" \
    "$(cd "$TMP/corpus/tiny/linux" && "$HARNESS" search --count '\x{1F600} TODO across' .)"
check_lacks "U+0000 makes a UTF-16 file binary for -c" 'utf16_' "$out"
check_contains "-l lists a UTF-16 file whose match precedes a late U+0000" utf16_late_nul.bin \
    "$("$HARNESS" search --files-with-matches 'TODO' "$TMP/corpus/tiny/linux")"

# Where io_uring is refused (Docker's seccomp profile, io_uring_disabled=2):
# the same output through the pread reader, said once on stderr.
want=$("$HARNESS" search --count 'TODO' "$TMP/corpus/tiny/linux" 2>/dev/null)
got=$("$ROOT/tests/no-io-uring" "$HARNESS" search --count 'TODO' "$TMP/corpus/tiny/linux" 2>"$TMP/nouring.err")
rc=$?
check_eq "io_uring refused: search still exits 0" 0 "$rc"
check "io_uring refused: the same counts as with io_uring" test -n "$want" -a "$want" = "$got"
check_eq "io_uring refused: said once" 1 "$(grep -c 'searching with the pread reader' "$TMP/nouring.err")"
# EPERM from the filter; under qemu-user (make test-arm64) io_uring is not emulated at all and
# the kernel's ENOSYS comes first: either way the reason is said.
check "io_uring refused: and why ($(head -c 300 "$TMP/nouring.err"))" \
    grep -qE 'Operation not permitted|Function not implemented' "$TMP/nouring.err"

# The real trees, when fetched (inside a git checkout: tell rg to ignore .gitignore).
if [ "$REAL" != none ]; then
    for t in linux cpython; do
        d="$ROOT/corpus/data/full/$t"
        m=""
        [ "$REAL" = all ] && jq -e .expected "$ROOT/corpus/data/full/manifest.json" >/dev/null 2>&1 && m="$ROOT/corpus/data/full/manifest.json"
        if [ -d "$d" ]; then
            compare "$d" $t "$REAL" "$m" --no-ignore-vcs
        elif [ "$REAL" = all ]; then
            fail "AOPS_RG_REAL=all but $d is not fetched"
        fi
    done
fi
finish
