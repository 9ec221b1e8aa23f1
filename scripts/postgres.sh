#!/usr/bin/env bash
# A PostgreSQL server for the storage tests; prints its URL (for PYHEARTS_TEST_PG).
#
#   scripts/postgres.sh        the server at $PYHEARTS_TEST_PG (default
#                              postgresql://postgres@127.0.0.1:5432/postgres) if it answers;
#                              else a private cluster on that URL's port: initdb in a temporary
#                              folder, trust authentication, 127.0.0.1 only (PostgreSQL is
#                              installed with apt-get first if it is missing and we are root)
#   scripts/postgres.sh stop   stop and remove the private cluster of that port, if any
#
# Usage: export PYHEARTS_TEST_PG="$(scripts/postgres.sh)"; …; scripts/postgres.sh stop
set -euo pipefail

url="${PYHEARTS_TEST_PG:-postgresql://postgres@127.0.0.1:5432/postgres}"
hostport="${url#*://}"; hostport="${hostport#*@}"; hostport="${hostport%%/*}"
host="${hostport%:*}"
port=5432
[[ "$hostport" == *:* ]] && port="${hostport##*:}"
state="${TMPDIR:-/tmp}/pyhearts-postgres-$port"   # holds the private cluster's folder

say() { echo "postgres.sh: $*" >&2; }

reachable() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -t 3 -d "$url"
  else
    timeout 3 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
  fi
}

bindir() {  # the server's programs: on PATH, or Debian's /usr/lib/postgresql/VERSION/bin
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
  else
    find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1
  fi
}

as_owner() {  # initdb and the server refuse to run as root: run them as the postgres user
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

stop() {
  [ -f "$state" ] || return 0
  dir="$(cat "$state")"
  if [ -d "$dir/data" ]; then
    as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir" "$state"
  say "private cluster on port $port stopped and removed"
}

if [ "${1:-start}" = stop ]; then
  stop
  exit 0
fi

if reachable; then
  echo "$url"
  exit 0
fi
if [ "$host" != 127.0.0.1 ] && [ "$host" != localhost ]; then
  say "nothing answers at $url, and a private cluster can only run on 127.0.0.1"
  exit 1
fi
stop  # a cluster left behind on this port, no longer answering

bin="$(bindir)"
if [ -z "$bin" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing PostgreSQL"
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
    bin="$(bindir)"
  fi
  [ -n "$bin" ] || { say "PostgreSQL is not installed (as root with apt-get: apt-get install postgresql)"; exit 1; }
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/pyhearts-postgres.XXXXXX")"
echo "$dir" >"$state"
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; stop; exit 1; }
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
  || { cat "$dir/server.log" >&2; stop; exit 1; }
say "private cluster in $dir on port $port (stop it with: scripts/postgres.sh stop)"
echo "postgresql://postgres@127.0.0.1:$port/postgres"
