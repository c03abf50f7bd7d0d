#!/bin/sh
# containers/mariadb/entrypoint.sh -- start Debian's mariadbd for the compose demo. On the first
# start (an empty /var/lib/mysql) it makes the datadir, then, with a server that listens on no
# port, creates MARIADB_DATABASE and MARIADB_USER (password MARIADB_PASSWORD, from anywhere)
# with every right on that database. root has no password and no network login: only the
# unix socket inside this container (Debian's default). The server reads /etc/mysql/aops.cnf only
# (containers/mariadb/aops.cnf, the configuration the local stack uses too), with the buffer pool
# and max_connections that aops-sizing.sh works out from AOPS_MARIADB_BUFFER_POOL, the
# container's memory limit and AOPS_CONTAINERS (x AOPS_SHARDS). Arguments go to mariadbd.
set -eu
die() { echo "mariadb entrypoint: $*" >&2; exit 1; }

DATA=/var/lib/mysql
: "${MARIADB_DATABASE:=aops}"
: "${MARIADB_USER:=harness}"
[ -n "${MARIADB_PASSWORD:-}" ] || die "MARIADB_PASSWORD is not set"
# Names go into SQL as identifiers: plain ones only. The password is quoted below.
echo "$MARIADB_DATABASE" | grep -Eqx '[A-Za-z0-9_]{1,64}' || die "MARIADB_DATABASE must be [A-Za-z0-9_], got '$MARIADB_DATABASE'"
echo "$MARIADB_USER" | grep -Eqx '[A-Za-z0-9_]{1,80}' || die "MARIADB_USER must be [A-Za-z0-9_], got '$MARIADB_USER'"

install -d -o mysql -g mysql /run/mysqld "$DATA"
CNF=/etc/mysql/aops.cnf
sizing=$(aops-sizing.sh) || die "cannot size the server (see above)"

if [ ! -d "$DATA/mysql" ]; then
    echo "mariadb entrypoint: first start: making $DATA and user '$MARIADB_USER'"
    mariadb-install-db --user=mysql --datadir="$DATA" --skip-test-db >/tmp/install-db.log 2>&1 ||
        { cat /tmp/install-db.log >&2; die "mariadb-install-db failed"; }
    sock=/run/mysqld/init.sock
    mariadbd --defaults-file="$CNF" --user=mysql --datadir="$DATA" --skip-networking --socket="$sock" &
    pid=$!
    i=0
    until mariadb-admin --socket="$sock" ping >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || die "mariadbd exited during the first start"
        i=$((i + 1)); [ "$i" -lt 600 ] || die "mariadbd did not answer within 60s during the first start"
        sleep 0.1
    done
    # SQL string literal: double every backslash and single quote.
    pw=$(printf '%s' "$MARIADB_PASSWORD" | sed -e 's/\\/\\\\/g' -e "s/'/''/g")
    mariadb --socket="$sock" <<SQL
CREATE DATABASE IF NOT EXISTS \`$MARIADB_DATABASE\`;
CREATE USER '$MARIADB_USER'@'%' IDENTIFIED BY '$pw';
GRANT ALL PRIVILEGES ON \`$MARIADB_DATABASE\`.* TO '$MARIADB_USER'@'%';
SQL
    mariadb-admin --socket="$sock" shutdown
    wait "$pid" || true
fi

echo "mariadb entrypoint: $CNF with $sizing"
# shellcheck disable=SC2086
exec mariadbd --defaults-file="$CNF" --user=mysql --datadir="$DATA" --bind-address=0.0.0.0 $sizing "$@"
