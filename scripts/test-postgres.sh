#!/usr/bin/env bash
# A PostgreSQL server for the tests of the team store: `start` makes one (first time) in a folder of
# its own, starts it on a loopback port unless it runs already, and prints its URL; `stop` stops it;
# `url` prints the URL. The tests run `start` themselves when IAPDESK_TEST_POSTGRES_URL is not set;
# each test makes a database of its own on it and drops it afterwards.
# Tests of outages run a server of their own, giving its folder and port after the command:
# `start FOLDER PORT`, `stop FOLDER PORT` (connections are cut), `freeze FOLDER PORT` (the server and
# its connections stop answering, as a hung host does, until `thaw FOLDER PORT`), `remove FOLDER PORT`
# (stops it and deletes the folder).
#   IAPDESK_TEST_POSTGRES_DIR  (default /tmp/iapdesk-test-postgres-UID)
#   IAPDESK_TEST_POSTGRES_PORT (default 54329)
set -euo pipefail

folder=${2:-${IAPDESK_TEST_POSTGRES_DIR:-/tmp/iapdesk-test-postgres-$(id -u)}}
port=${3:-${IAPDESK_TEST_POSTGRES_PORT:-54329}}
url="postgres://iapdesk@127.0.0.1:${port}/postgres"

server_bin() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [[ -z "$found" || ! -x "$found/initdb" ]]; then
        found=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
    fi
    if [[ ! -x "$found/initdb" || ! -x "$found/pg_ctl" ]]; then
        echo "PostgreSQL's server is not installed, and the team store's tests need one: install it (Debian: apt-get install postgresql), or set IAPDESK_TEST_POSTGRES_URL to a server on which the tests may create databases." >&2
        exit 3
    fi
    echo "$found"
}

# PostgreSQL refuses to run as root: as root, the server runs as the postgres user the package made.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# The server outlives this script: it must not keep open any descriptor this script was given
# beyond stdin, stdout and stderr. Foundation's Process on Linux learns that a child exited when
# such a descriptor closes, so a server holding one made the tests wait for ever.
close_inherited() {
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [[ $fd =~ ^[0-9]+$ && $fd -gt 2 ]]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

start() {
    local bin
    close_inherited
    bin=$(server_bin)
    if [[ ! -f "$folder/data/PG_VERSION" ]]; then
        rm -rf "$folder"
        mkdir -p "$folder"
        if [[ $(id -u) -eq 0 ]]; then chown postgres: "$folder"; fi
        as_owner "$bin/initdb" -D "$folder/data" -U iapdesk -A trust --no-instructions -E UTF8 >"$folder/initdb.log" 2>&1 \
            || { cat "$folder/initdb.log" >&2; exit 1; }
    fi
    if ! as_owner "$bin/pg_ctl" -D "$folder/data" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
            -o "-p $port -k $folder -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null \
            || { tail -20 "$folder/server.log" >&2; exit 1; }
    fi
    echo "$url"
}

stop() {
    local bin
    bin=$(server_bin)
    if [[ -f "$folder/data/PG_VERSION" ]]; then
        as_owner "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
}

# The server's processes: the postmaster (first line of postmaster.pid) and its children, by pid.
server_pids() {
    local main
    main=$(head -1 "$folder/data/postmaster.pid" 2>/dev/null || true)
    [[ -n "$main" ]] || return 0
    echo "$main"
    ps -o pid= --ppid "$main" || true
}

# SIGSTOP or SIGCONT to the postmaster first, so that it forks nothing new meanwhile, then to its children.
signal_server() {
    local pid
    for pid in $(server_pids); do
        kill "-$1" "$pid" 2>/dev/null || true
    done
}

remove() {
    signal_server CONT
    stop
    rm -rf "$folder"
}

# Only a server named by its folder and port may be frozen or removed: never the shared one by default.
if [[ "${1:-}" =~ ^(freeze|thaw|remove)$ && ( -z "${2:-}" || -z "${3:-}" ) ]]; then
    echo "usage: $0 $1 FOLDER PORT" >&2
    exit 2
fi

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    freeze) signal_server STOP ;;
    thaw) signal_server CONT ;;
    remove) remove ;;
    url) echo "$url" ;;
    *) echo "usage: $0 [start|stop|freeze|thaw|remove|url] [FOLDER PORT]" >&2; exit 2 ;;
esac
