#!/bin/sh
# `redis-server …` runs as the redis user with protected mode off (the official image's entrypoint does
# the same when no config file is given); any other command runs as given.
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  chown -R redis:redis /data
  exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
fi
exec "$@"
