#!/usr/bin/env bash
# The demo server alone under an external load generator: starts `iapdesk serve-demo` on a loopback
# port, signs one request token the demo accepts (ES256 with the key serve-demo writes, made with
# openssl), and runs wrk against Get Transaction Info for a bounded time. Prints requests per second
# and errors as `name: value unit`, like iapdesk-bench; exits 1 when any request failed.
#
#   scripts/loadgen.sh [--binary .build/release/iapdesk] [--seconds 10] [--connections 32] [--threads 1]
#
# Needs wrk (Debian package wrk), openssl and python3. Build first: swift build -c release
set -euo pipefail
cd "$(dirname "$0")/.."

binary=.build/release/iapdesk
seconds=10
connections=32
threads=1
while (($#)); do
    case "$1" in
        --binary) binary=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        *) echo "usage: $0 [--binary PATH] [--seconds N] [--connections N] [--threads N]" >&2; exit 2 ;;
    esac
done
for tool in wrk openssl python3; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (wrk: apt-get install wrk)" >&2; exit 2; }
done
[[ -x $binary ]] || { echo "$binary is not built (swift build -c release)" >&2; exit 2; }

work=$(mktemp -d)
"$binary" serve-demo --port 0 --data-dir "$work/demo" >"$work/serve.log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 300); do
    grep -q '^Base URL' "$work/serve.log" && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
done
base=$(awk '/^Base URL/ {print $3}' "$work/serve.log")
[[ -n $base ]] || { echo "serve-demo did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
key_file=$(awk '/^Key file/ {print $3}' "$work/serve.log")
key_id=$(awk '/^Key ID/ {print $3}' "$work/serve.log")
issuer=$(awk '/^Issuer ID/ {print $3}' "$work/serve.log")
bundle=$(awk '/^Bundle ID/ {print $3}' "$work/serve.log")

# A transaction of the demo's busiest customer.
transaction=$(python3 -c '
import json, sys, urllib.request
seeds = json.load(urllib.request.urlopen(sys.argv[1] + "/demo/seed-ids.json"))
print(next(c for c in seeds["customers"] if "500+" in c["scenario"])["originalTransactionId"])
' "$base")

# The request token: ES256 over base64url(header).base64url(claims), the signature turned from
# DER into the raw r||s JWS uses. It lives 30 minutes, longer than any run.
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
now=$(date +%s)
header=$(printf '{"alg":"ES256","kid":"%s","typ":"JWT"}' "$key_id" | b64url)
claims=$(printf '{"iss":"%s","iat":%d,"exp":%d,"aud":"appstoreconnect-v1","bid":"%s"}' "$issuer" "$now" $((now + 1800)) "$bundle" | b64url)
printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$key_file" -out "$work/signature.der"
signature=$(python3 -c '
import base64, sys
der = open(sys.argv[1], "rb").read()
def integer(at):
    assert der[at] == 2
    length = der[at + 1]
    return der[at + 2:at + 2 + length].lstrip(b"\0").rjust(32, b"\0"), at + 2 + length
offset = 2 if der[1] < 0x80 else 3
r, offset = integer(offset)
s, _ = integer(offset)
print(base64.urlsafe_b64encode(r + s).decode().rstrip("="))
' "$work/signature.der")
token="$header.$claims.$signature"

url="$base/inApps/v1/transactions/$transaction"
status=$(python3 -c '
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})
print(urllib.request.urlopen(request).status)
' "$url" "$token")
[[ $status == 200 ]] || { echo "the demo refused the token (HTTP $status)" >&2; exit 1; }

wrk --threads "$threads" --connections "$connections" --duration "${seconds}s" --timeout 5s \
    --header "Authorization: Bearer $token" "$url" >"$work/wrk.txt"
cat "$work/wrk.txt" >&2
rate=$(awk '/^Requests\/sec:/ {print int($2)}' "$work/wrk.txt")
total=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$work/wrk.txt")
socket=$(awk '/Socket errors:/ {gsub(",", ""); print $4 + $6 + $8 + $10}' "$work/wrk.txt")
errors=$(( ${non2xx:-0} + ${socket:-0} ))
echo "loadgen_get_transaction_info: ${rate} requests_per_second"
echo "loadgen_get_transaction_info_requests: ${total} count"
echo "loadgen_get_transaction_info_errors: ${errors} count"
echo "loadgen_connections: ${connections} count"
((errors == 0))
