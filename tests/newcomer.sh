#!/usr/bin/env bash
# tests/newcomer.sh [--keep] -- the README's two commands, run as a newcomer runs them.
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
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[ "${1:-}" = --keep ] && keep=1

WORK=$(mktemp -d /tmp/aops-newcomer.XXXXXX)
CLONE=$WORK/aops-harness
export AOPS_MINIO_PORT=${AOPS_NEWCOMER_MINIO_PORT:-19400}
export AOPS_MARIADB_PORT=${AOPS_NEWCOMER_MARIADB_PORT:-19406}
export AOPS_STACK_DIR=$CLONE/.local/stack
unset AOPS_CREDENTIALS AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY MARIADB_PASSWORD S3_ENDPOINT

cleanup() {
    [ -x "$CLONE/scripts/stack" ] && "$CLONE/scripts/stack" down >/dev/null 2>&1 || true
    if [ $keep = 0 ]; then rm -rf "$WORK"; else echo "newcomer: kept $CLONE"; fi
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
    tail -n $([ $rc = 0 ] && echo 5 || echo 40) "$WORK/$(echo "$c" | tr -c 'a-z0-9' _).log" | sed 's/^/    /'
    [ $rc = 0 ] || break
done
echo
printf 'newcomer: %s\n' "${times[@]}"
exit $rc
