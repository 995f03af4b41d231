#!/usr/bin/env bash
# A PostgreSQL server for the tests of the team store: `start` makes one (first time) in a folder of
# its own, starts it on a loopback port unless it runs already, and prints its URL; `stop` stops it;
# `url` prints the URL. The tests run `start` themselves when IAPDESK_TEST_POSTGRES_URL is not set;
# each test makes a database of its own on it and drops it afterwards.
#   IAPDESK_TEST_POSTGRES_DIR  (default /tmp/iapdesk-test-postgres-UID)
#   IAPDESK_TEST_POSTGRES_PORT (default 54329)
set -euo pipefail

folder=${IAPDESK_TEST_POSTGRES_DIR:-/tmp/iapdesk-test-postgres-$(id -u)}
port=${IAPDESK_TEST_POSTGRES_PORT:-54329}
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

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    url) echo "$url" ;;
    *) echo "usage: $0 [start|stop|url]" >&2; exit 2 ;;
esac
