#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benches, on a free port of 127.0.0.1, trust auth,
# data in a temporary directory (fsync off). Debian's packages are installed with apt-get when no
# server binaries are found; as root the server runs as the `postgres` user (it refuses root).
#
#   scripts/postgres.sh -- <command> [args...]   start, run the command with
#                                                 BUB_TEST_POSTGRES_URL set, stop, clean up;
#                                                 exits with the command's status
#   scripts/postgres.sh start                     start; prints BUB_TEST_POSTGRES_URL=<url> and
#                                                 BUB_POSTGRES_DIR=<dir> (eval-able lines)
#   scripts/postgres.sh stop <dir>                stop the server started in <dir>, remove <dir>
#
# Example: eval "$(scripts/postgres.sh start)"; ...; scripts/postgres.sh stop "$BUB_POSTGRES_DIR"
# BUB_POSTGRES_DURABLE=1 keeps fsync on (benches comparing durable stores).
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
      echo "$dir"
      return 0
    fi
  fi
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  return 1
}

ensure_bindir() {
  local dir
  if dir="$(find_bindir)"; then
    echo "$dir"
    return 0
  fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    log "PostgreSQL not found; installing Debian's postgresql with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
    if dir="$(find_bindir)"; then
      echo "$dir"
      return 0
    fi
  fi
  log "cannot find PostgreSQL server binaries (initdb, pg_ctl); install the postgresql package"
  return 1
}

# as_pg <cmd...>: runs a command as the server's user (postgres when we are root).
as_pg() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

new_dir() { mktemp -d "${TMPDIR:-/tmp}/bub-postgres.XXXXXX"; }

start() { # start [dir]
  local bindir dir port url attempt
  bindir="$(ensure_bindir)"
  dir="${1:-$(new_dir)}"
  chmod 755 "$dir"
  echo "$bindir" >"$dir/bindir"
  if [ "$(id -u)" = "0" ]; then
    if ! id postgres >/dev/null 2>&1; then
      useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    fi
    chown postgres "$dir"
  fi
  if ! as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync \
    >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    rm -rf "$dir"
    log "initdb failed"
    return 1
  fi
  local sync="-c fsync=off -c full_page_writes=off"
  [ "${BUB_POSTGRES_DURABLE:-0}" = "1" ] && sync=""
  for attempt in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    port_free "$port" || continue
    if as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $sync -c max_connections=200" \
      start >/dev/null 2>&1; then
      url="postgres://postgres@127.0.0.1:$port/postgres"
      echo "BUB_TEST_POSTGRES_URL=$url"
      echo "BUB_POSTGRES_DIR=$dir"
      return 0
    fi
    log "start on port $port failed (attempt $attempt)"
  done
  tail -n 20 "$dir/server.log" >&2 2>/dev/null || true
  rm -rf "$dir"
  log "could not start the server"
  return 1
}

stop() {
  local dir="${1:?usage: scripts/postgres.sh stop <dir>}" bindir
  case "$dir" in */bub-postgres.*) ;; *) log "refusing to remove $dir (not made by start)"; return 1 ;; esac
  if [ -f "$dir/bindir" ] && [ -f "$dir/data/postmaster.pid" ]; then
    bindir="$(cat "$dir/bindir")"
    as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 ||
      as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

# watchdog <pid> <dir>: once <pid> is gone (killed outright, so no EXIT trap ran), stops the
# server in <dir>, waiting for a start still under way.
watchdog() {
  trap '' INT TERM HUP
  while kill -0 "$1" 2>/dev/null; do sleep 1; done
  local _
  for _ in $(seq 20); do
    [ -d "$2" ] || return 0
    if [ -f "$2/data/postmaster.pid" ]; then
      stop "$2"
      return 0
    fi
    sleep 1
  done
  stop "$2"
}

case "${1:-}" in
  start) start ;;
  stop) shift; stop "$@" ;;
  --)
    shift
    [ "$#" -gt 0 ] || { log "usage: scripts/postgres.sh -- <command> [args...]"; exit 2; }
    BUB_POSTGRES_DIR="$(new_dir)"
    trap 'stop "$BUB_POSTGRES_DIR"' EXIT
    # Should this wrapper be killed outright (no EXIT trap), the watchdog stops the server.
    watchdog "$$" "$BUB_POSTGRES_DIR" </dev/null >/dev/null 2>&1 &
    lines="$(start "$BUB_POSTGRES_DIR")"
    BUB_TEST_POSTGRES_URL="$(echo "$lines" | sed -n 's/^BUB_TEST_POSTGRES_URL=//p')"
    export BUB_TEST_POSTGRES_URL BUB_POSTGRES_DIR
    trap 'exit 130' INT
    trap 'exit 143' TERM
    log "server at $BUB_TEST_POSTGRES_URL"
    status=0
    "$@" || status=$?
    exit "$status"
    ;;
  *)
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
