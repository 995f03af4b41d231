#!/usr/bin/env bash
# Checks docs/examples/nginx-receiver.conf against a real `iapdesk listen`: starts the receiver and
# nginx (Debian package nginx or nginx-light) on loopback ports, each with files of its own in a
# temporary folder, then sends through nginx a valid notification (200, stored), a tampered one
# (400 from the receiver), a body over 1 MiB (413 from nginx, never reaching the receiver), a burst
# past the rate limit (429 from nginx) and a head that trickles in (cut by nginx). Prints one line
# per check and exits 1 when one fails.
#
#   scripts/nginx-check.sh [--build-dir .build/debug]
#
# Build first: swift build --product iapdesk && swift build --product iapdesk-webhook-bench
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.build/debug
while (($#)); do
    case "$1" in
        --build-dir) dir=$2; shift 2 ;;
        *) echo "usage: $0 [--build-dir DIR]" >&2; exit 2 ;;
    esac
done
for tool in nginx curl python3; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (nginx: apt-get install nginx-light)" >&2; exit 2; }
done
for binary in "$dir/iapdesk" "$dir/iapdesk-webhook-bench"; do
    [[ -x $binary ]] || { echo "$binary is not built" >&2; exit 2; }
done

work=$(mktemp -d)
listener=
proxy=
cleanup() {
    [[ -n $proxy ]] && { kill "$proxy" 2>/dev/null || true; wait "$proxy" 2>/dev/null || true; }
    [[ -n $listener ]] && { kill "$listener" 2>/dev/null || true; wait "$listener" 2>/dev/null || true; }
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$dir/iapdesk-webhook-bench" --write-bodies "$work/bodies" --count 3 >/dev/null
"$dir/iapdesk" listen --address 127.0.0.1:0 --store "$work/store.sqlite" --json \
    --bundle-id com.iapdesk.demo --environment Production --app-apple-id 1600000042 \
    --root-cert "$work/bodies/root.der" >"$work/listen.log" 2>"$work/listen.err" &
listener=$!
receiver=
for _ in $(seq 1 300); do
    receiver=$(grep -o 'http://[^/" ]*' "$work/listen.log" | head -1 | sed 's|http://||' || true)
    [[ -n $receiver ]] && break
    kill -0 "$listener" 2>/dev/null || { cat "$work/listen.err" >&2; exit 1; }
    sleep 0.1
done
[[ -n $receiver ]] || { echo "listen did not start" >&2; exit 1; }

port=$(free_port)
mkdir -p "$work/nginx"
{
    echo "daemon off; master_process off; worker_processes 1; pid $work/nginx/nginx.pid;"
    echo "error_log $work/nginx/error.log warn;"
    echo "events { worker_connections 256; }"
    echo "http {"
    echo "access_log $work/nginx/access.log;"
    for temp in client_body proxy fastcgi uwsgi scgi; do echo "${temp}_temp_path $work/nginx/$temp;"; done
    sed -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@RECEIVER@|$receiver|" \
        -e 's|client_header_timeout 10s|client_header_timeout 2s|' docs/examples/nginx-receiver.conf
    echo "}"
} >"$work/nginx/nginx.conf"
nginx -t -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" 2>"$work/nginx/test.log" || { cat "$work/nginx/test.log" >&2; exit 1; }
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
proxy=$!
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
done
url="http://127.0.0.1:$port/appstore/notifications"

failed=0
check() {
    if [[ $2 == "$3" ]]; then echo "ok: $1 ($2)"; else echo "FAILED: $1: $2, expected $3"; failed=1; fi
}
post() { curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary "@$1" "$url"; }

head -1 "$work/bodies/bodies.txt" >"$work/valid.json"
check "a valid notification through nginx" "$(post "$work/valid.json")" 200
sed -n 2p "$work/bodies/bodies.txt" | python3 -c 'import sys; b = sys.stdin.read().strip(); i = len(b) - 12; sys.stdout.write(b[:i] + ("B" if b[i] == "A" else "A") + b[i + 1:])' >"$work/tampered.json"
check "a tampered notification is refused by the receiver" "$(post "$work/tampered.json")" 400
head -c 1200000 /dev/zero | tr '\0' 'x' >"$work/large.json"
check "a body over 1 MiB is refused by nginx" "$(post "$work/large.json")" 413
check "the receiver's /metrics is not served through nginx" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" 404
# 60 requests at once from one address: 1 + burst 40 pass, the rest are over the rate.
burst=$(for _ in $(seq 1 60); do curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' --data-binary '{}' "$url" & done; wait)
limited=$(grep -c '^429$' <<<"$burst" || true)
((limited > 0)) && check "a burst past the rate limit is answered 429" yes yes || check "a burst past the rate limit is answered 429" "none of 60" "some"
# A head sent a byte at a time: nginx closes it after client_header_timeout (2 s here) and the receiver never sees it.
trickled=$(python3 - "$port" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
head = b"POST /appstore/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"
start = time.monotonic()
try:
    for byte in head:
        s.send(bytes([byte]))
        time.sleep(0.5)
        s.setblocking(False)
        try:
            if s.recv(1, socket.MSG_PEEK) == b"":
                break
        except BlockingIOError:
            pass
        s.setblocking(True)
except (BrokenPipeError, ConnectionResetError):
    pass
print("cut" if time.monotonic() - start < len(head) * 0.5 - 1 else "not cut")
PY
)
check "a head that trickles in is cut by nginx" "$trickled" cut
stored=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from notifications").fetchone()[0])' "$work/store.sqlite")
check "the receiver stored the valid notification once" "$stored" 1
exit $failed
