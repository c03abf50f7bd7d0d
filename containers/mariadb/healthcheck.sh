#!/bin/sh
# containers/mariadb/healthcheck.sh -- healthy once the demo's user can query its database over
# TCP: the first-start server listens on no port, so this also says the set-up is over.
# MYSQL_PWD keeps the password off the command line.
MYSQL_PWD="$MARIADB_PASSWORD" exec mariadb --protocol=tcp -h 127.0.0.1 -u "${MARIADB_USER:-harness}" \
    "${MARIADB_DATABASE:-aops}" -e 'SELECT 1' >/dev/null
