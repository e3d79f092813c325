#!/bin/sh
# Stand-in for the postgres image's docker-entrypoint.sh (see deploy/podman/standins.py): on the
# first start in an empty data folder it creates the cluster with POSTGRES_USER (superuser) and
# POSTGRES_PASSWORD, password logins (SCRAM) over TCP from anywhere, trust on the Unix socket
# inside the container, and the database POSTGRES_DB, on a server that listens on its Unix
# socket only; then it runs the real server, listening on every address, as the postgres user.
# The /docker-entrypoint-initdb.d scripts of the real image are not supported.
set -eu

if [ "${1#-}" != "$1" ]; then
    set -- postgres "$@"
fi

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /run/postgresql
    find "$PGDATA" /run/postgresql \! -user postgres -exec chown postgres:postgres '{}' +
    chmod 700 "$PGDATA"
    chmod 2775 /run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set." >&2
        exit 1
    fi
    user="${POSTGRES_USER:-postgres}"
    db="${POSTGRES_DB:-$user}"
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
        -D "$PGDATA"
    rm -f "$pwfile"
    printf '\nhost all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
    printf "\nlisten_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
    # Set up on the Unix socket alone: nobody reaches the server over TCP before it is ready.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    if [ "$db" != postgres ]; then
        # psql quotes the name itself (:"db"), read from standard input: -c would not expand it.
        echo 'CREATE DATABASE :"db";' \
            | psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres --set=db="$db"
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "PostgreSQL init process complete; ready for start up."
fi

exec "$@"
