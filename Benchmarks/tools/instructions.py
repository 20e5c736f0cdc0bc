#!/usr/bin/env python3
"""Instructions per event of EDSBench scenarios, counted by callgrind (exact, load-independent).

For each binary, scenario and contender: runs
  valgrind --tool=callgrind EDSBench --runs 1 --only SCENARIO --contenders NAME
and subtracts a run of `--only NONE` (start-up and teardown), then divides by the events of the
scenario (S1: 200,000 events; S2: 100,000 events × 10 receivers, per delivery; S6: 2,000,000 calls).

  Benchmarks/tools/instructions.py BIN [BIN2 ...]     # prints a markdown table, one column per binary
"""
import os, re, subprocess, sys, tempfile

CASES = [
    ("S1", "EDS .listenerThread", 200_000),
    ("S1", "EDS EventThread", 200_000),
    ("S1", "EDS .requesterThread", 200_000),
    ("S1", "EDS .synchronous", 200_000),
    ("S2", "EDS .listenerThread", 1_000_000),
    ("S2", "EDS EventThread", 1_000_000),
    ("S2", "EDS .synchronous", 1_000_000),
    ("S6", "EDS .synchronous", 2_000_000),
    ("S1", "EDS channel", 200_000),
    ("S2", "EDS channel", 1_000_000),
    ("S1", "EDS state", 200_000),
    ("S2", "EDS state", 1_000_000),
]

def instructions(binary, *args):
    out = tempfile.mktemp(prefix="callgrind.")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary, "--runs", "1", *args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = None
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    os.remove(out)
    return total

def main():
    binaries = sys.argv[1:]
    if not binaries:
        print(__doc__)
        sys.exit(2)
    floor = {b: instructions(b, "--only", "NONE") for b in binaries}
    print("| scenario | contender | " + " | ".join(os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(b)))) or b for b in binaries) + " |")
    print("|---|---|" + "---|" * len(binaries))
    for scenario, contender, events in CASES:
        cells = []
        for b in binaries:
            total = instructions(b, "--only", scenario, "--contenders", contender)
            cells.append(f"{(total - floor[b]) / events:.1f}")
        print(f"| {scenario} | {contender} | " + " | ".join(cells) + " |", flush=True)

main()
