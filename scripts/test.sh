#!/usr/bin/env bash
# The one test command (README): installs what the tests need when it is missing, then runs
# every test with `swift test`. Extra arguments go to `swift test` (for example `--filter X`).
#
# What it installs, and only when missing:
#   - nats-server, from Debian's packages (`apt-get install nats-server`), for the NATS bridge's
#     tests, which start their own servers on free loopback ports;
#   - a Python virtual environment in .venv-interop with the packages of
#     Tests/Interop/requirements.txt (from PyPI), for the interoperability tests with another
#     language's NATS client.
# Without root (or sudo) or apt, it says what is missing and which tests will fail for it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "[test.sh] $*" >&2; }

apt_install() {
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else
            say "cannot install $*: not root and no password-less sudo"; return 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then say "cannot install $*: no apt-get on this machine"; return 1; fi
    say "installing $* from Debian's packages"
    $sudo apt-get install -y "$@" >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y "$@" >/dev/null; }
}

if command -v nats-server >/dev/null 2>&1; then
    say "nats-server found: $(command -v nats-server)"
else
    apt_install nats-server || say "the NATS bridge's tests (EventDrivenSwiftNATSTests) will fail without nats-server"
fi

requirements=Tests/Interop/requirements.txt
if [ -f "$requirements" ]; then
    venv=.venv-interop
    if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
        say "creating the Python virtual environment $venv for the interoperability tests (packages from $requirements)"
        if ! python3 -m venv "$venv" 2>/dev/null; then
            apt_install python3-venv && python3 -m venv "$venv"
        fi
        "$venv/bin/pip" install --quiet -r "$requirements"
        cp "$requirements" "$venv/requirements.txt"
    fi
    export EDS_INTEROP_PYTHON="$PWD/$venv/bin/python"
fi

say "swift test $*"
exec swift test "$@"
