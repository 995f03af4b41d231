#!/usr/bin/env bash
# The notification receiver alone under an external load generator: writes signed notification
# bodies (iapdesk-webhook-bench --write-bodies), starts `iapdesk listen` on a loopback port with a
# store of its own, and runs wrk for a bounded time with 1 and with 16 connections, each request a
# body not sent before. Prints figures as `name: value unit`, like the benchmarks; exits 1 when a
# request was not answered 200 or the store does not hold every notification answered.
#
#   scripts/webhook-loadgen.sh [--release-dir .build/release] [--seconds 5] [--bodies 40000]
#
# Needs wrk (Debian package wrk) and python3 (it counts the store's rows).
# Build first: swift build -c release --product iapdesk && swift build -c release --product iapdesk-webhook-bench
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.build/release
seconds=5
bodies=40000
while (($#)); do
    case "$1" in
        --release-dir) dir=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --bodies) bodies=$2; shift 2 ;;
        *) echo "usage: $0 [--release-dir DIR] [--seconds N] [--bodies N]" >&2; exit 2 ;;
    esac
done
for tool in wrk python3; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (wrk: apt-get install wrk)" >&2; exit 2; }
done
for binary in "$dir/iapdesk" "$dir/iapdesk-webhook-bench"; do
    [[ -x $binary ]] || { echo "$binary is not built (swift build -c release)" >&2; exit 2; }
done

work=$(mktemp -d)
listener=
cleanup() {
    [[ -n $listener ]] && { kill "$listener" 2>/dev/null || true; wait "$listener" 2>/dev/null || true; }
    rm -rf "$work"
}
trap cleanup EXIT

"$dir/iapdesk-webhook-bench" --write-bodies "$work/bodies" --count "$bodies"

# Each wrk thread walks the bodies from its own offset, one body per request.
cat >"$work/post.lua" <<'LUA'
local bodies = {}
for line in io.lines(os.getenv("BODIES")) do bodies[#bodies + 1] = line end
local next_index = tonumber(os.getenv("START") or "1")
request = function()
    local body = bodies[next_index]
    next_index = next_index + 1
    if next_index > #bodies then next_index = 1 end
    return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end
done = function(summary, latency, requests)
    io.write(string.format("non_2xx=%d errors=%d requests=%d p50_us=%d p99_us=%d\n",
        summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        summary.requests, latency:percentile(50), latency:percentile(99)))
end
LUA

run() {
    local connections=$1 start=$2 store="$work/store-$1.sqlite"
    "$dir/iapdesk" listen --address 127.0.0.1:0 --quiet --store "$store" --max-concurrent 64 \
        --bundle-id com.iapdesk.demo --environment Production --app-apple-id 1600000042 \
        --root-cert "$work/bodies/root.der" >"$work/listen-$connections.log" 2>&1 &
    listener=$!
    local url=
    for _ in $(seq 1 300); do
        url=$(grep -o 'http://[^ ]*' "$work/listen-$connections.log" | head -1 || true)
        [[ -n $url ]] && break
        kill -0 "$listener" 2>/dev/null || { cat "$work/listen-$connections.log" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n $url ]] || { echo "listen did not start" >&2; exit 1; }
    local out
    out=$(BODIES="$work/bodies/bodies.txt" START=$start wrk -t1 -c"$connections" -d"${seconds}s" --timeout 10s -s "$work/post.lua" "$url")
    kill -TERM "$listener"
    wait "$listener" || true
    listener=
    local line rate stored
    line=$(grep '^non_2xx=' <<<"$out")
    rate=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    eval "$line"
    stored=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from notifications").fetchone()[0])' "$store")
    echo "receiver_wrk_c$connections: ${rate%.*} notifications/s"
    echo "receiver_wrk_c${connections}_p50: $(awk "BEGIN {printf \"%.2f\", $p50_us / 1000}") ms"
    echo "receiver_wrk_c${connections}_p99: $(awk "BEGIN {printf \"%.2f\", $p99_us / 1000}") ms"
    echo "receiver_wrk_c${connections}_not_200: $((non_2xx + errors)) requests"
    echo "receiver_wrk_c${connections}_stored: $stored ($requests answered; requests cut at the end may be stored too)"
    ((non_2xx + errors == 0)) || failed=1
    # Every notification answered 200 is stored; at most one per connection more (cut at the end).
    ((stored >= requests && stored <= requests + connections)) || failed=1
}

failed=0
run 1 1
run 16 1
exit $failed
