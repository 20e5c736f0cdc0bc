#!/usr/bin/env bash
# The one test command (README): installs what the tests need when it is missing
# (scripts/test-deps.sh: nats-server from Debian's packages; nats-py in a Python virtual
# environment, .build-python, for the interoperability test), saying what it installs and when it
# cannot, then runs every test with `swift test`. Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/test-deps.sh || echo "[test.sh] the NATS bridge's tests (EventDrivenSwiftNATSTests) need nats-server; they will fail without it" >&2
if [ -x .build-python/bin/python ]; then export EDS_INTEROP_PYTHON="$PWD/.build-python/bin/python"; fi

echo "[test.sh] swift test $*" >&2
exec swift test "$@"
