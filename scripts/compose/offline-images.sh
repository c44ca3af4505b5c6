#!/usr/bin/env bash
# Builds stand-ins for the public images docker-compose.yml names (node:20-bookworm-slim, postgres:15,
# redis:7, nginx:1.27-alpine) from Debian's packages alone, for machines that reach Debian's mirror but
# not Docker Hub (this project's CI). Tags: cratehouse-offline/{debian,node,postgres,redis,nginx}.
# docker-compose.offline.yml points the compose file at them. Idempotent: existing images are kept
# unless --rebuild is given.
#
#   scripts/compose/offline-images.sh [--rebuild]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mirror="${CRATEHOUSE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
rebuild=false
[ "${1:-}" = --rebuild ] && rebuild=true

have() { [ "$rebuild" = false ] && docker image inspect "$1" >/dev/null 2>&1; }

if ! have cratehouse-offline/debian:bookworm; then
  command -v debootstrap >/dev/null || { echo "offline-images: debootstrap is needed (apt-get install debootstrap)" >&2; exit 1; }
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' EXIT
  echo "offline-images: debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import - cratehouse-offline/debian:bookworm >/dev/null
fi

if ! have cratehouse-offline/node:20; then
  node_bin="$(readlink -f "$(command -v node)")"
  npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
  case "$(node --version)" in v20.*) ;; *) echo "offline-images: Node 20 is needed on this machine, found $(node --version)" >&2; exit 1 ;; esac
  ctx="$(mktemp -d)"
  cp "$node_bin" "$ctx/node"
  cp "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$ctx/host-ca.crt"
  cp -r "$npm_dir" "$ctx/npm"
  cp "$here/stand-ins/node.Dockerfile" "$ctx/Dockerfile"
  echo "offline-images: node 20 ($node_bin, npm $(npm --version))"
  docker build -q -t cratehouse-offline/node:20 "$ctx" >/dev/null
  rm -rf "$ctx"
fi

for image in postgres redis nginx; do
  if ! have "cratehouse-offline/$image:latest"; then
    echo "offline-images: $image"
    docker build -q -t "cratehouse-offline/$image:latest" -f "$here/stand-ins/$image.Dockerfile" "$here/stand-ins" >/dev/null
  fi
done
echo "offline-images: ready"
