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
check_refused() { # check_refused "description" "expected message" command...
    # A refusal as the harness makes them: exit 2 and one line on stderr that says why.
    local what=$1 msg=$2; shift 2
    local err rc
    err=$("$@" 2>&1 >/dev/null); rc=$?
    check_eq "$what: exit 2" 2 $rc
    check_contains "$what: says why" "$msg" "$err"
    check_eq "$what: one line" 1 "$(printf '%s\n' "$err" | wc -l)"
}
jq_() { jq -r "$@"; }
finish() { [ "$FAILS" -eq 0 ]; exit $?; }

# free_port BASE: a port nothing listens on, from BASE + a random offset below 500 upwards. The
# random start is for two suites on one machine (a developer's beside CI, or --repeat beside a
# helper's): scanning both from BASE at the same instant, both took the same port, and the
# second server to bind failed ("Bind on TCP/IP port ... Address already in use", test_checks).
free_port() {
    local p=$(($1 + RANDOM % 500))
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
    echo "$p"
}

# A throwaway MariaDB of the test's own, never the shared stack's:
#   db_init DIR BASEPORT   a data directory in DIR and a free port from BASEPORT (free_port; DB_DIR, DB_PORT)
#   db_start               start it (SERVER = its pid) and wait until it answers; 1 when it never does
#   db_user PASSWORD       the harness user and the aops database; DB_DIR/creds for AOPS_CREDENTIALS
db_init() {
    DB_DIR=$1 DB_PORT=$(free_port "$2")
    mkdir -p "$DB_DIR/data"
    mariadb-install-db --no-defaults --datadir="$DB_DIR/data" --user="$(id -un)" \
        --auth-root-authentication-method=socket --skip-test-db >"$DB_DIR/install.log" 2>&1
}
db_start() { # not a job of the test's shell, so killing it prints no "Killed" line
    SERVER=$( (/usr/sbin/mariadbd --no-defaults --datadir="$DB_DIR/data" --port="$DB_PORT" \
        --bind-address=127.0.0.1 --socket="$DB_DIR/s.sock" --user="$(id -un)" \
        --log-error="$DB_DIR/err.log" --skip-name-resolve --innodb-buffer-pool-size=32M \
        </dev/null >>"$DB_DIR/err.log" 2>&1 &
        echo $!) )
    for _ in $(seq 100); do
        mariadb-admin --no-defaults --socket="$DB_DIR/s.sock" ping >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}
db_user() {
    mariadb --no-defaults --socket="$DB_DIR/s.sock" -u "$(id -un)" -e "CREATE USER harness@'127.0.0.1' \
        IDENTIFIED BY '$1'; GRANT ALL ON aops.* TO harness@'127.0.0.1'; CREATE DATABASE aops;" || return 1
    printf 'MARIADB_HOST=127.0.0.1\nMARIADB_PORT=%s\nMARIADB_USER=harness\nMARIADB_PASSWORD=%s\nMARIADB_DATABASE=aops\n' \
        "$DB_PORT" "$1" >"$DB_DIR/creds"
}

# The stack's S3 by curl's own SigV4 (not the harness's code), for the objects a test puts:
#   s3_as_stack                         the stack's credentials into the environment, unless set
#   s3_curl BUCKET METHOD PATH [args]   one request; PATH follows the bucket ("/key", "?list-type=2")
#   s3_rm_prefix BUCKET PREFIX          every object under PREFIX/ removed
s3_as_stack() {
    local cred=${AOPS_STACK_DIR:-$ROOT/.local/stack}/credentials
    if [ -z "${AWS_ACCESS_KEY_ID:-}" ] && [ -f "$cred" ]; then
        set -a; . "$cred"; set +a
    fi
}
s3_curl() {
    local b=$1 m=$2 p=$3; shift 3
    curl -sf -X "$m" --aws-sigv4 "aws:amz:us-east-1:s3" -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
        -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
        "${S3_ENDPOINT:-http://127.0.0.1:9000}/$b$p" "$@"
}
s3_rm_prefix() {
    local k
    for k in $(s3_curl "$1" GET "?list-type=2&prefix=${2//\//%2F}%2F" 2>/dev/null | grep -o '<Key>[^<]*</Key>' | sed 's/<[^>]*>//g'); do
        s3_curl "$1" DELETE "/$k" >/dev/null 2>&1
    done
}
