#!/usr/bin/env bash
# Installs what the NATS bridge's tests need when it is missing, saying what it does:
#   - nats-server (Debian's package), which the tests start on loopback ports of their own;
#   - a Python virtual environment .build-python with nats-py, for the interoperability test
#     (InteropTests; skipped without it).
# Run from anywhere; scripts/test.sh runs it, then `swift test`. Exits non-zero only when nats-server cannot be had.
set -uo pipefail
cd "$(dirname "$0")/.."

if command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ]; then
    echo "nats-server: present ($( (nats-server --version || /usr/sbin/nats-server --version) 2>/dev/null))"
else
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else
            echo "nats-server: missing, and this user cannot install packages (not root, no sudo without a password)." >&2
            echo "  install it with: apt-get install nats-server (Debian, Ubuntu) or brew install nats-server (macOS)" >&2
            exit 1
        fi
    fi
    if command -v apt-get >/dev/null 2>&1; then
        echo "nats-server: missing; installing Debian's package nats-server with apt-get"
        $sudo apt-get install -y nats-server >/dev/null 2>&1 || {
            $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y nats-server >/dev/null 2>&1
        } || { echo "nats-server: apt-get could not install it" >&2; exit 1; }
    elif command -v brew >/dev/null 2>&1; then
        echo "nats-server: missing; installing it with brew"
        brew install nats-server || { echo "nats-server: brew could not install it" >&2; exit 1; }
    else
        echo "nats-server: missing, and there is no apt-get or brew here; install nats-server 2.9 or later" >&2
        exit 1
    fi
fi

if [ -x .build-python/bin/python ] && .build-python/bin/python -c "import nats" 2>/dev/null; then
    echo "nats-py: present in .build-python"
elif python3 -m venv .build-python >/dev/null 2>&1 && .build-python/bin/pip install -q nats-py >/dev/null 2>&1; then
    echo "nats-py: installed into .build-python (a virtual environment in this checkout)"
else
    echo "nats-py: could not be installed (no python3 venv, or no package index); the interoperability test is skipped"
fi
