#!/usr/bin/env bash
# scripts/stack against a stack dir that someone else may have written to (issue 35), on
# private stacks of the test's own (own dirs, own ports; never the main stack):
#   - a stack dir with a space in its name: a failed up (mariadb-install-db cannot take such a
#     datadir, and MinIO's console is given its API's port) stops the MinIO it started and
#     removes nothing outside the stack dir (the word-split pid file path made it delete
#     cgroup* one directory up);
#   - a server log that is a symbolic link: refused, the file it points to is not written;
#   - restart mariadb with options put into mariadb/sizing: refused with one line before the
#     running server is stopped; a sizing file of the two numeric options restarts it;
#   - a stack dir others can write to: refused with one line.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"
STACK="$ROOT/scripts/stack"
export AOPS_MINIO_PORT="${TEST_MINIO_PORT:-19100}" AOPS_MARIADB_PORT="${TEST_MARIADB_PORT:-13407}"
export AOPS_MINIO_CONSOLE_PORT="${TEST_MINIO_CONSOLE_PORT:-$((AOPS_MINIO_PORT + 1))}"
export AOPS_MARIADB_BUFFER_POOL=64M AOPS_STACK_TIMEOUT=120
DIRS=()
cleanup() {
    local d
    for d in "${DIRS[@]}"; do AOPS_STACK_DIR="$d" "$STACK" down >/dev/null 2>&1; done
    rm -rf "$TMP"
}
trap cleanup EXIT
stack() { # stack DIR ARGS...: scripts/stack on that stack dir, its output in $OUT, its status in $RC
    local d=$1; shift
    DIRS+=("$d")
    OUT=$(AOPS_STACK_DIR="$d" "$STACK" "$@" 2>&1)
    RC=$?
}
db_alive() { # db_alive DIR: the pid of the mariadbd serving stack dir DIR, if one runs
    local p
    p=$(tr -dc 0-9 2>/dev/null <"$1/mariadb/mariadbd.pid") || return 1
    [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--datadir=$1/mariadb/data" && echo "$p"
}

# ---- a space in the stack dir: a failed up removes nothing one directory up ----------------
SD="$TMP/aops stack x"
for f in cgroup perf_cgroup cgroup.unavailable; do echo keep >"$TMP/$f"; done
mkdir "$TMP/victim"
echo "v2 $TMP/victim" >"$TMP/cgroups"
AOPS_MINIO_CONSOLE_PORT=$AOPS_MINIO_PORT stack "$SD" up
check "up fails when MinIO exits during startup (rc $RC: $(tail -1 <<<"$OUT"))" test "$RC" -ne 0
for f in cgroup perf_cgroup cgroup.unavailable cgroups; do
    check "the stack dir's parent keeps its $f" test -f "$TMP/$f"
done
check "and the directory that parent's cgroups file names" test -d "$TMP/victim"
check "the MinIO it started is stopped" test -z "$(pgrep -f -- "server $SD/minio/data")"
check "and no MariaDB of it runs" test -z "$(db_alive "$SD")"
check "and MinIO's pid file removed (the whole path, spaces and all)" test ! -e "$SD/minio/minio.pid"

# ---- a server log that is a symbolic link ------------------------------------------------------
SD2="$TMP/sd2"
mkdir -p "$SD2/minio" "$SD2/mariadb"
echo keep >"$TMP/victim-minio"
echo keep >"$TMP/victim-db"
ln -s "$TMP/victim-minio" "$SD2/minio/minio.log"
ln -s "$TMP/victim-db" "$SD2/mariadb/mariadbd.log"
stack "$SD2" up
check "up with a symlinked minio.log fails (rc $RC)" test "$RC" -ne 0
check_contains "and says why" "symbolic link" "$OUT"
check_eq "the file minio.log pointed to is not written" keep "$(cat "$TMP/victim-minio")"
check_eq "nor the one mariadbd.log pointed to" keep "$(cat "$TMP/victim-db")"
stack "$SD2" down

# ---- restart with options put into the sizing file ------------------------------------------------
SD3="$TMP/sd3"
stack "$SD3" up
check_eq "a clean stack comes up ($(tail -1 <<<"$OUT"))" 0 "$RC"
before=$(db_alive "$SD3")
check "mariadb runs" test -n "$before"
echo "--innodb-buffer-pool-size=67108864 --max-connections=20 --skip-grant-tables" >"$SD3/mariadb/sizing"
stack "$SD3" restart mariadb
check_eq "restart with an injected option: exit 1 ($OUT)" 1 "$RC"
check_eq "one line" 1 "$(grep -c . <<<"$OUT")"
check_contains "naming it" "'--skip-grant-tables' is not --innodb-buffer-pool-size=N or --max-connections=N" "$OUT"
check_eq "the running server was not stopped" "$before" "$(db_alive "$SD3")"
printf -- '--max-connections=20\n--init-file=%s\n' "$TMP/x.sql" >"$SD3/mariadb/sizing"
stack "$SD3" restart mariadb
check_eq "a second line in the sizing file: exit 1 ($OUT)" 1 "$RC"
echo "--max-connections=20;id" >"$SD3/mariadb/sizing"
stack "$SD3" restart mariadb
check_eq "a value that is not a number: exit 1 ($OUT)" 1 "$RC"
echo "--innodb-buffer-pool-size=67108864 --max-connections=21" >"$SD3/mariadb/sizing"
stack "$SD3" restart mariadb
check_eq "the two numeric options restart it ($OUT)" 0 "$RC"
after=$(db_alive "$SD3")
check "a new mariadbd, given them" grep -q -- "--max-connections=21" <(tr '\0' '\n' 2>/dev/null <"/proc/${after:-0}/cmdline")
check "and nothing injected" test -z "$(tr '\0' '\n' 2>/dev/null <"/proc/${after:-0}/cmdline" | grep -e skip-grant -e init-file)"
stack "$SD3" down

# ---- a stack dir others can write to ---------------------------------------------------------------
SD4="$TMP/sd4"
mkdir -p "$SD4"
chmod 0777 "$SD4"
stack "$SD4" status
check_eq "a world-writable stack dir: exit 1 ($OUT)" 1 "$RC"
check_contains "one line that says why" "no one else can write to" "$OUT"
finish
