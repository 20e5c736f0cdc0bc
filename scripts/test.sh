#!/usr/bin/env bash
# The one test command (README): installs what the tests need when it is missing
# (scripts/test-deps.sh: nats-server from Debian's packages; nats-py in a Python virtual
# environment, .build-python, for the interoperability test), saying what it installs and when it
# cannot, then runs every test with `swift test`. Extra arguments go to `swift test`. When a test
# fails, the lines naming the failures are printed again at the end, so a log's tail says which.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/test-deps.sh || echo "[test.sh] the NATS bridge's tests (EventDrivenSwiftNATSTests) need nats-server; they will fail without it" >&2
if [ -x .build-python/bin/python ]; then export EDS_INTEROP_PYTHON="$PWD/.build-python/bin/python"; fi

echo "[test.sh] swift test $*" >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "[test.sh] swift test exited with $status; the failures it printed:" >&2
    grep -E "✘|error:|fatal error|Fatal error|Test Case .* failed" "$log" | tail -80 >&2 || true
fi
exit "$status"
