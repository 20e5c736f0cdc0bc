#!/usr/bin/env bash
# Builds the benchmarks in release and prints the comparison tables (markdown) on stdout:
# every scenario on every contender, then S3 again pinned to one core.
#   Benchmarks/run.sh                 # the full run, median of 5 runs
#   RUNS=7 Benchmarks/run.sh --only S1,S3
set -euo pipefail
cd "$(dirname "$0")"
runs="${RUNS:-5}"
swift build -c release --product EDSBench >&2
bin="$(swift build -c release --show-bin-path)/EDSBench"
gcc -O2 -shared -fPIC -o .build/malloccount.so tools/malloccount.c
"$bin" --runs "$runs" --malloc-lib "$PWD/.build/malloccount.so" "$@"
echo
taskset -c 0 "$bin" --runs "$runs" --only S3 --title "S3 pinned to one core (taskset -c 0)"
