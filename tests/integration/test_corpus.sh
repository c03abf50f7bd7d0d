#!/usr/bin/env bash
# test_corpus.sh -- `harness corpus fetch --profile tiny` is deterministic from
# the seed, idempotent, contains the edge cases it promises, and writes a
# manifest; a missing corpus is reported with the command that fixes it.
source "$(dirname "$0")/../lib.sh"

"$HARNESS" corpus fetch --profile tiny --dir "$TMP/a" --seed 7 >/dev/null || fail "fetch a"
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/b" --seed 7 >/dev/null || fail "fetch b"
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/c" --seed 8 >/dev/null || fail "fetch c"
da=$(jq_ .trees.linux.digest "$TMP/a/tiny/manifest.json")
check_eq "same seed, same digest" "$da" "$(jq_ .trees.linux.digest "$TMP/b/tiny/manifest.json")"
check "different seed, different digest" test "$da" != "$(jq_ .trees.linux.digest "$TMP/c/tiny/manifest.json")"
check "same seed, same bytes" diff -r --no-dereference "$TMP/a/tiny" "$TMP/b/tiny"
"$HARNESS" corpus fetch --profile tiny --dir "$TMP/a" --seed 7 >/dev/null || fail "refetch"
check_eq "idempotent" "$da" "$(jq_ .trees.linux.digest "$TMP/a/tiny/manifest.json")"
for t in linux cpython; do
    m=$TMP/a/tiny/manifest.json
    check "$t: files and bytes in the manifest" test "$(jq_ ".trees.$t.files" "$m")" -gt 100 -a "$(jq_ ".trees.$t.bytes" "$m")" -gt 1000000
    d=$TMP/a/tiny/$t
    check "$t: symlinks to a file and a directory" test -L "$d/link_to_file.c" -a -L "$d/link_to_dir"
    check "$t: a hidden directory" test -d "$d/.tmp_versions"
    check "$t: an empty file" test -f "$d/scripts/empty0.h" -o -f "$d/scripts/empty0.py"
    check "$t: NUL past 64 KiB" python3 -c "import sys; b=open('$d/firmware/blob_late.bin','rb').read(); sys.exit(not b.index(b'\0') > 65536)"
    check "$t: CRLF" grep -rlq $'\r$' "$d"
    check "$t: a file past the 1 MiB search buffer" test -n "$(find "$d" -size +1100k -type f)"
    check "$t: 40 levels deep" test -n "$(find "$d" -mindepth 41 -type f)"
done
# The --dir is data, never shell: a quote in it runs nothing, and the old
# trees are removed as trees (a symlink in them goes, its target stays).
Q="$TMP/q'; touch $TMP/pwned; echo '"
mkdir -p "$Q"
"$HARNESS" corpus fetch --profile tiny --dir "$Q" --seed 7 >/dev/null 2>&1
check_eq "a --dir with a quote in it: fetched" "$da" "$(jq_ .trees.linux.digest "$Q/tiny/manifest.json" 2>/dev/null)"
check "and no command in the path ran" test ! -e "$TMP/pwned"
echo keep >"$TMP/outside"
ln -s "$TMP/outside" "$Q/tiny/linux/planted_link"
mkdir -p "$Q/tiny/cpython/planted/dir" && echo x >"$Q/tiny/cpython/planted/dir/f"
"$HARNESS" corpus fetch --profile tiny --dir "$Q" --seed 8 >/dev/null 2>&1
check_eq "regenerated for another seed" "$(jq_ .trees.linux.digest "$TMP/c/tiny/manifest.json")" "$(jq_ .trees.linux.digest "$Q/tiny/manifest.json" 2>/dev/null)"
check "the old trees removed, planted files and links with them" test ! -e "$Q/tiny/linux/planted_link" -a ! -e "$Q/tiny/cpython/planted"
check_eq "a symlink's target outside the tree untouched" keep "$(cat "$TMP/outside")"
check "still nothing ran" test ! -e "$TMP/pwned"

out=$("$HARNESS" search --count x /nonexistent/dir 2>&1); rc=$?
check_eq "a missing path exits 2" 2 $rc
check_contains "and says so" "No such file or directory" "$out"
out=$("$HARNESS" search --count 'foo(' "$TMP/a" 2>&1); rc=$?
check_eq "an invalid pattern exits 2" 2 $rc
check_contains "with the pattern, PCRE2's message and the offset" "'foo(': missing closing parenthesis at offset 4" "$out"
finish
