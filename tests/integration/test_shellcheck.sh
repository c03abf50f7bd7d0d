#!/usr/bin/env bash
# Debian's shellcheck on every shell script of scripts/ and bench/ (picked by its first line, so
# scripts/logto, a Perl helper, and bench's C sources are not ones) and on the containers'
# entrypoints and helper scripts: nothing reported, at any severity (issue 35: an unquoted expansion in scripts/stack
# let a stack dir with a space in it delete files one directory up).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"

if ! command -v shellcheck >/dev/null; then
    fail "shellcheck is not installed (scripts/setup installs it: TEST_PACKAGES)"
    finish
fi
files=()
for f in "$ROOT"/scripts/* "$ROOT"/bench/* "$ROOT"/containers/*/*.sh "$ROOT"/containers/*/entrypoint*; do
    [ -f "$f" ] || continue
    case "$(head -n1 "$f")" in
    '#!'*bash* | '#!'*/sh | '#!'*' sh') files+=("$f") ;;
    *) case "$f" in *.sh) files+=("$f") ;; esac ;;
    esac
done
# the same file twice (an entrypoint*.sh) is checked once
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
check "shellcheck finds scripts to check (${#files[@]}: scripts/stack among them)" grep -qx "$ROOT/scripts/stack" <(printf '%s\n' "${files[@]}")
check "... and bench/search among them" grep -qx "$ROOT/bench/search" <(printf '%s\n' "${files[@]}")
out=$(cd "$ROOT" && shellcheck -x -P scripts "${files[@]}" 2>&1)
check_eq "shellcheck reports nothing on ${#files[@]} scripts ($(head -c 2000 <<<"$out"))" "" "$out"
finish
