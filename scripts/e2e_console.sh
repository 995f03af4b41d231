#!/usr/bin/env bash
# End-to-end test of the full-screen console: runs `iapdesk demo` in tmux, looks up an order, opens
# refunds, subscriptions and notifications, extends a renewal, requests a test notification,
# resizes, suspends with Ctrl-Z and comes back with fg, quits, and checks the screen at each step and
# that the terminal was restored.
set -euo pipefail
export LC_ALL=C.UTF-8
unset TMUX
cd "$(dirname "$0")/.."
BIN="${1:-.build/debug/iapdesk}"
T="tmux -L iapdesk-e2e-$$ -f /dev/null"
OUT=$(mktemp -d)
export XDG_STATE_HOME="$OUT/state" XDG_CONFIG_HOME="$OUT/config"
cleanup() { $T kill-server 2>/dev/null || true; rm -rf "$OUT"; }
trap cleanup EXIT

screen() { $T capture-pane -t app -p; }
fail() { echo "FAIL: $1"; echo "--- screen ---"; screen || true; echo "e2e console: 0 passed, 1 failed"; exit 1; }
wait_for() {
    local i
    for i in $(seq 1 100); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
    fail "timed out waiting for: $1"
}
keys() { $T send-keys -t app "$@"; }

$T new-session -d -s app -x 120 -y 36 -e LANG=C.UTF-8 -e TERM=tmux-256color -e SWIFT_BACKTRACE=interactive=no \
    -e XDG_STATE_HOME="$XDG_STATE_HOME" -e XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
    "sh -c '$BIN demo; echo \$? > $OUT/exit; sleep 30'"
wait_for "DEMO · PRODUCTION"
wait_for "Order, transaction or account ID:"
[ "$($T display -t app -p '#{alternate_on}')" = 1 ] || fail "the console is not on the alternate screen"

# A wrong ID gets a clear message and loses nothing.
$T send-keys -t app -l 'not an id!'
keys Enter
wait_for "has characters no ID has"
keys C-u

# Look up an order.
$T send-keys -t app -l 'MK5TTTVWJH'
keys Enter
wait_for "Found in Production"
wait_for "all 12 signatures verified"
wait_for "Active  com.iapdesk.demo.pro.monthly"

# Order and refunds.
keys 2
wait_for "Order MK5TTTVWJH: valid, 2 transactions"
keys 3
wait_for "No refunds for this customer."

# Subscriptions, then extend a renewal by 7 days.
keys 4
wait_for "RENEWS/ENDS"
keys e
wait_for "Extend renewal date"
keys Enter
wait_for "This exact request will be sent to"
wait_for "PUT /inApps/v1/subscriptions/extend/"
keys Enter
wait_for "Extended to "
# The demo's writes are kept with its state, apart from the real ledger.
ledger="$XDG_STATE_HOME/iapdesk/demo/audit.jsonl"
[ -s "$ledger" ] || fail "the demo's audit ledger was not written"
grep -q '"event":"intent"' "$ledger" || fail "no intent in the audit ledger"
grep -q '"event":"outcome"' "$ledger" || fail "no outcome in the audit ledger"
"$BIN" audit --demo --json | grep -q '"requestIdentifier"' || fail "iapdesk audit --demo does not list the write"

# Notifications, then a test notification followed to delivery.
keys 6
wait_for "notifications · last 7 days"
wait_for "RENEWAL_EXTENDED"
keys t
wait_for "Test notification"
wait_for "SUCCESS  The server answered"

# Resize to 80x24 and below the minimum, then back.
$T resize-window -t app -x 80 -y 24
wait_for "Notifications"
[ "$(screen | sed -n 4p | wc -L)" -eq 80 ] || fail "the pane border is not 80 wide after resize"
$T resize-window -t app -x 30 -y 10
wait_for "Terminal too small"
$T resize-window -t app -x 120 -y 36
wait_for "Test notification"

# Quit and check the terminal was restored.
keys q
for i in $(seq 1 50); do [ -s "$OUT/exit" ] && break; sleep 0.1; done
[ "$(cat "$OUT/exit" 2>/dev/null)" = 0 ] || fail "iapdesk demo did not exit with 0"
[ "$($T display -t app -p '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"

# SIGTERM also restores the terminal.
rm -f "$OUT/exit"
$T respawn-pane -k -t app "sh -c '$BIN demo; echo \$? > $OUT/exit; sleep 30'"
wait_for "DEMO · PRODUCTION"
kill -TERM "$(pgrep -P "$($T display -t app -p '#{pane_pid}')" | head -1)"
for i in $(seq 1 50); do [ -s "$OUT/exit" ] && break; sleep 0.1; done
[ -s "$OUT/exit" ] || fail "iapdesk demo did not stop on SIGTERM"
[ "$($T display -t app -p '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen after SIGTERM"
# Ctrl-Z suspends into the shell's job control with the terminal restored; fg brings the console
# back, redrawn at the size the terminal was given meanwhile; kill -TSTP from elsewhere does the same.
$T respawn-pane -k -t app "bash --norc --noprofile -i"
keys "PS1='shell\$ '" Enter
keys "$BIN demo" Enter
wait_for "DEMO · PRODUCTION"
# The alternate screen may still show the last frame: wait for the border at the new width.
wait_width() {
    local i
    for i in $(seq 1 100); do [ "$(screen | sed -n 4p | wc -L)" -eq "$1" ] && return 0; sleep 0.1; done
    fail "$2"
}
keys C-z
wait_for "Stopped"
[ "$($T display -t app -p '#{alternate_on}')" = 0 ] || fail "Ctrl-Z left the terminal on the alternate screen"
keys "stty -a | grep -o ' icanon' ; echo shell-is-usable" Enter
wait_for "shell-is-usable"
screen | grep -qF " icanon" || fail "the shell's terminal modes were not restored on Ctrl-Z"
$T resize-window -t app -x 80 -y 24
keys "fg" Enter
wait_for "DEMO · PRODUCTION"
[ "$($T display -t app -p '#{alternate_on}')" = 1 ] || fail "fg did not bring the console back to the alternate screen"
wait_width 80 "the console was not redrawn at the size given while suspended"
console=$(pgrep -P "$($T display -t app -p '#{pane_pid}')" | head -1)
kill -TSTP "$console"
wait_for "Stopped"
[ "$($T display -t app -p '#{alternate_on}')" = 0 ] || fail "SIGTSTP left the terminal on the alternate screen"
$T resize-window -t app -x 120 -y 36
keys "fg" Enter
wait_for "DEMO · PRODUCTION"
wait_width 120 "the console was not redrawn at 120 columns after SIGTSTP and fg"
keys C-c
wait_for "shell\$"
[ "$($T display -t app -p '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen after Ctrl-Z, fg and q"

echo "e2e console: 1 passed, 0 failed"
