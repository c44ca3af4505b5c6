#!/usr/bin/env bash
# Fetch the official glab CLI from Debian bookworm-backports into .cache/glab (or $1) without touching
# the system's apt sources: a private apt state downloads the .deb, dpkg-deb unpacks it (glab needs only
# libc). Idempotent: does nothing when the binary is already there. Prints the binary's path.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/glab}"
bin="$dest/usr/bin/glab"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
apt_dir="$(mktemp -d /tmp/glab-apt.XXXXXX)"
trap 'rm -rf "$apt_dir"' EXIT
mkdir -p "$apt_dir"/{lists/partial,archives/partial,etc}
echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$apt_dir/etc/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
  -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
apt-get "${opts[@]}" -qq update >&2
(cd "$apt_dir/archives" && apt-get "${opts[@]}" -qq download glab >&2)
mkdir -p "$dest"
dpkg-deb -x "$apt_dir"/archives/glab_*.deb "$dest"
"$bin" --version >&2
echo "$bin"
