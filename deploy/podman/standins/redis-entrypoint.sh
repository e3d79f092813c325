#!/bin/sh
# Stand-in for the redis image's docker-entrypoint.sh (see deploy/podman/standins.py): runs
# redis-server as the redis user in /data, with protected mode off by default as the real image
# is built (a later --protected-mode argument still wins).
set -eu

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
    set -- redis-server "$@"
fi

if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi

if [ "$1" = redis-server ]; then
    shift
    set -- redis-server --protected-mode no "$@"
fi

exec "$@"
