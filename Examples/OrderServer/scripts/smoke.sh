#!/usr/bin/env bash
# Smoke test of the example server, run by CI (.ci/run), in two runs of the server on a free
# loopback port:
#  1. POST orders through the bus and directly, wait (polling, with a deadline) until every one
#     is stored, send SIGTERM, check that the server exits 0 within a deadline and stored == posted.
#  2. With a slow charge (50 ms), POST orders and send SIGTERM at once, while most are still
#     pending: the graceful shutdown must finish them (exit 0, stored == posted). The backlog
#     (about 3 s) is well within EventBusService's quiet timeout (10 s).
#   Examples/OrderServer/scripts/smoke.sh [path/to/OrderServer]   # default: the debug build
# Settings: ORDERS (through the bus, default 100), DIRECT_ORDERS (default 10), BACKLOG_ORDERS
# (default 60), STORE_DEADLINE and STOP_DEADLINE (seconds, default 30 and 15).
set -euo pipefail
cd "$(dirname "$0")/.."
orders="${ORDERS:-100}"
direct_orders="${DIRECT_ORDERS:-10}"
backlog_orders="${BACKLOG_ORDERS:-60}"
store_deadline="${STORE_DEADLINE:-30}"
stop_deadline="${STOP_DEADLINE:-15}"
bin="${1:-$(swift build --show-bin-path)/OrderServer}"
work="$(mktemp -d)"
log="$work/server.log"
pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "smoke: FAIL: $*" >&2
    echo "--- server output" >&2
    cat "$log" >&2 || true
    exit 1
}
# The time now in seconds (with fractions), for deadlines.
now() { date +%s.%N; }
before() { awk -v now="$(now)" -v end="$1" 'BEGIN { exit !(now < end) }'; }
after_seconds() { awk -v now="$(now)" -v s="$1" 'BEGIN { printf "%.3f", now + s }'; }

# Starts the server with these arguments and sets pid and base once it listens.
start_server() {
    "$bin" --port 0 "$@" >"$log" 2>&1 &
    pid=$!
    # The server prints the port it bound (port 0: the system picks a free one).
    local end port=""
    end="$(after_seconds 30)"
    while [ -z "$port" ]; do
        kill -0 "$pid" 2>/dev/null || fail "the server exited before listening"
        before "$end" || fail "the server did not listen within 30 s"
        port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$log")"
        [ -n "$port" ] || sleep 0.05
    done
    base="http://127.0.0.1:$port"
    echo "smoke: server $pid listening on $base${*:+ ($*)}"
}

post() {
    local path="$1" expected="$2" status
    status="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' \
        --data '{"amountCents":1250}' "$base$path")"
    [ "$status" = "$expected" ] || fail "POST $path answered $status, not $expected"
}

# SIGTERM: a graceful shutdown that ends with exit status 0 within the deadline, every order of
# the $1 posted accepted, charged and stored.
stop_and_check() {
    local posted="$1" end status=0 summary
    kill -TERM "$pid"
    end="$(after_seconds "$stop_deadline")"
    # (An exited child stays a zombie, state Z, until `wait` collects its status.)
    while [ -e "/proc/$pid" ] && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]; do
        before "$end" || fail "still running ${stop_deadline} s after SIGTERM"
        sleep 0.05
    done
    wait "$pid" || status=$?
    pid=""
    [ "$status" -eq 0 ] || fail "exit status $status after SIGTERM"
    summary="$(grep '^stopped:' "$log")" || fail "no 'stopped:' line"
    echo "smoke: $summary"
    grep -q "^stopped: accepted=$posted charged=$posted stored=$posted " <<<"$summary" ||
        fail "accepted, charged and stored should all be $posted"
}

# 1. Every order stored, then SIGTERM.
start_server
for _ in $(seq "$orders"); do post /orders 202; done
for _ in $(seq "$direct_orders"); do post /orders/direct 201; done
posted=$((orders + direct_orders))
echo "smoke: posted $posted orders ($orders through the bus, $direct_orders direct)"
# Every order is stored by the async listener: poll the count until it reaches them.
end="$(after_seconds "$store_deadline")"
while :; do
    counts="$(curl -s "$base/orders/count")"
    stored="$(sed -n 's/.*"stored":\([0-9]*\).*/\1/p' <<<"$counts")"
    [ "${stored:-0}" -ge "$posted" ] && break
    before "$end" || fail "stored ${stored:-?} of $posted within ${store_deadline} s ($counts)"
    sleep 0.05
done
echo "smoke: counts $counts"
stop_and_check "$posted"

# 2. SIGTERM while orders are pending: the graceful shutdown finishes them.
start_server --charge-cost-us 50000
for _ in $(seq "$backlog_orders"); do post /orders 202; done
echo "smoke: posted $backlog_orders orders; at SIGTERM: $(curl -s "$base/orders/count")"
stop_and_check "$backlog_orders"
echo "smoke: OK"
