#!/usr/bin/env bash
# tests/newcomer.sh [--cold] [--keep] -- the README's two commands, run as a newcomer runs them.
#
# Clones this repository's committed HEAD into a temporary directory, reads the
# two commands from the README's first code block, and runs them there in
# order, timing each, against a private stack on other ports (so a stack that
# is already up is left alone). Prints both times and exits non-zero when
# either command fails. Not part of `make test`: the first command installs
# packages, builds MinIO and downloads the corpus (minutes, cold).
#   AOPS_NEWCOMER_MINIO_PORT (19400), AOPS_NEWCOMER_MARIADB_PORT (19406)
#   AOPS_NEWCOMER_CORPUS=DIR  seed the clone's corpus/data from DIR (a warm
#                             newcomer who fetched before); default: none.
# --cold makes this machine a newcomer's first: it purges the demo's libraries and
# MariaDB (scripts/setup's DEMO_PACKAGES but the base tools a machine that cloned the
# repository has: gcc, make, git, curl, python3, ...), empties apt's cache and Go's
# module and build caches (MinIO and Go's toolchain are fetched and compiled again).
# Destructive for everything else on the machine that uses them: stop other stacks first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
keep=0
cold=0
for a in "$@"; do
    case "$a" in
    --keep) keep=1 ;;
    --cold) cold=1 ;;
    *) echo "newcomer: unknown option '$a' (--cold, --keep)" >&2; exit 2 ;;
    esac
done

if [ $cold = 1 ]; then
    # The libraries and servers that the demo installs; the base tools stay.
    # (DEMO_PACKAGES names the libraries through BUILD_LIBS: both lists are read.)
    mapfile -t purge < <(sed -n '/^BUILD_LIBS=(/,/^)/p; /^DEMO_PACKAGES=(/,/^)/p' "$ROOT/scripts/setup" | sed 's/#.*//' |
        tr ' ' '\n' | grep -E '^(lib[a-z0-9.+-]+-dev|mariadb-server|mariadb-client|dmidecode)$')
    echo "newcomer: --cold: purging ${purge[*]}; emptying apt's and Go's caches"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${purge[@]}" >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -q >/dev/null
    apt-get clean
    gobin=$(command -v go || true)
    for g in "$ROOT"/.local/go/bin/go /usr/local/go/bin/go; do [ -z "$gobin" ] && [ -x "$g" ] && gobin=$g; done
    if [ -n "$gobin" ]; then
        rm -rf "$("$gobin" env GOMODCACHE)" "$("$gobin" env GOCACHE)"
    fi
    rm -rf "${HOME:-/root}/go/pkg/mod" "${HOME:-/root}/.cache/go-build"
fi

WORK=$(mktemp -d /tmp/aops-newcomer.XXXXXX)
CLONE=$WORK/aops-harness
export AOPS_MINIO_PORT=${AOPS_NEWCOMER_MINIO_PORT:-19400}
export AOPS_MARIADB_PORT=${AOPS_NEWCOMER_MARIADB_PORT:-19406}
export AOPS_STACK_DIR=$CLONE/.local/stack
unset AOPS_CREDENTIALS AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY MARIADB_PASSWORD S3_ENDPOINT

cleanup() {
    # shellcheck disable=SC2317 # a trap handler
    if [ -x "$CLONE/scripts/stack" ]; then "$CLONE/scripts/stack" down >/dev/null 2>&1 || true; fi
    # shellcheck disable=SC2317
    if [ "$keep" = 0 ]; then rm -rf "$WORK"; else echo "newcomer: kept $CLONE"; fi
}
trap cleanup EXIT

git clone -q "$ROOT" "$CLONE"
if [ -n "${AOPS_NEWCOMER_CORPUS:-}" ]; then
    mkdir -p "$CLONE/corpus/data"
    cp -al "$AOPS_NEWCOMER_CORPUS"/. "$CLONE/corpus/data/"
fi

# The first fenced block of the README holds the two commands, one a line.
mapfile -t cmds < <(awk '/^```/{n++; next} n==1 && NF' "$CLONE/README.md")
if [ ${#cmds[@]} -ne 2 ]; then
    echo "newcomer: the README's first code block holds ${#cmds[@]} commands, expected 2" >&2
    exit 1
fi

rc=0
times=()
for c in "${cmds[@]}"; do
    echo "newcomer: \$ $c   (in $CLONE)"
    t0=$(date +%s)
    if (cd "$CLONE" && bash -c "$c") >"$WORK/$(echo "$c" | tr -c 'a-z0-9' _).log" 2>&1; then
        st=ok
    else
        st="FAILED (exit $?)"; rc=1
    fi
    dt=$(( $(date +%s) - t0 ))
    times+=("$c: $st in ${dt} s")
    tail -n "$([ $rc = 0 ] && echo 5 || echo 40)" "$WORK/$(echo "$c" | tr -c 'a-z0-9' _).log" | sed 's/^/    /'
    [ $rc = 0 ] || break
done
echo
printf 'newcomer: %s\n' "${times[@]}"
exit $rc
