# tests/lib.sh -- sourced by integration tests: where things are, and checks
# that say what failed. A test script exits non-zero when any check failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=${HARNESS:-$ROOT/harness}
TMP=$(mktemp -d /tmp/aops-test.XXXXXX)
FAILS=0
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
check() { # check "description" command...
    local what=$1; shift
    if "$@" >/dev/null; then pass "$what"; else fail "$what"; fi
}
check_eq() { # check_eq "description" expected actual
    if [ "$2" == "$3" ]; then pass "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
check_contains() { # check_contains "description" needle haystack
    case "$3" in *"$2"*) pass "$1" ;; *) fail "$1: '$2' not in: $3" ;; esac
}
check_lacks() { # check_lacks "description" grep-pattern haystack
    if grep -q -- "$2" <<<"$3"; then fail "$1: '$2' found in: $3"; else pass "$1"; fi
}
jq_() { jq -r "$@"; }
finish() { [ "$FAILS" -eq 0 ]; exit $?; }
