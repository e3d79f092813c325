#!/bin/sh
# Stand-in for the haproxy image's docker-entrypoint.sh (see deploy/podman/standins.py): options
# alone run haproxy; haproxy runs in master-worker mode in the foreground, logging to stdout.
set -e

if [ "${1#-}" != "$1" ]; then
    set -- haproxy "$@"
fi

if [ "$1" = haproxy ]; then
    shift
    set -- haproxy -W -db "$@"
fi

exec "$@"
