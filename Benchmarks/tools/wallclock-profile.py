#!/usr/bin/env python3
"""Where the wall-clock time of one EDSBench scenario goes, thread by thread, sampled by perf.

callgrind (instructions.py) counts instructions exactly but not what they cost: a locked
compare-and-exchange, a cache line fetched from the other core or a clock read count as one
instruction each. This samples the running program instead:

  perf record -F 10000 BIN --runs RUNS --only SCENARIO --contenders CONTENDER
  perf report --no-children --sort comm,sym

and prints, for the dispatching thread (the benchmark's main thread) and for the receivers'
threads together, each symbol's share of that side's samples (demangled, the top LIMIT).

  Benchmarks/tools/wallclock-profile.py BIN [SCENARIO] [CONTENDER] [RUNS] [LIMIT]
  e.g. Benchmarks/tools/wallclock-profile.py .build/release/EDSBench S1 "EDS .listenerThread" 30 12

Needs `perf` (linux-perf) and permission to sample (perf_event_paranoid ≤ 2 for one's own
processes). Samples are statistical: compare shares within one run, not across machines.
"""
import collections, os, subprocess, sys, tempfile


def demangle(names):
    if not names:
        return {}
    try:
        out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), text=True,
                             capture_output=True, check=True).stdout.splitlines()
        return dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        return {name: name for name in names}


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    binary = sys.argv[1]
    scenario = sys.argv[2] if len(sys.argv) > 2 else "S1"
    contender = sys.argv[3] if len(sys.argv) > 3 else "EDS .listenerThread"
    runs = sys.argv[4] if len(sys.argv) > 4 else "30"
    limit = int(sys.argv[5]) if len(sys.argv) > 5 else 12
    data = tempfile.mktemp(prefix="perf.")
    try:
        subprocess.run(["perf", "record", "-q", "-F", "10000", "-o", data, binary, "--runs", runs,
                        "--only", scenario, "--contenders", contender],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "comm,sym",
                                 "--field-separator", "\t", "--percent-limit", "0"],
                                check=True, capture_output=True, text=True).stdout
    finally:
        if os.path.exists(data):
            os.remove(data)
    main_comm = os.path.basename(binary)[:15]
    sides = collections.OrderedDict(
        [("dispatching thread", collections.Counter()), ("receivers' threads", collections.Counter())])
    for line in report.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3:
            continue
        share = float(fields[0].strip().rstrip("%"))
        comm, symbol = fields[1].strip(), fields[2].strip()
        symbol = symbol.split("] ", 1)[-1].strip()
        side = "dispatching thread" if comm == main_comm else "receivers' threads"
        sides[side][symbol] += share
    names = [name for counter in sides.values() for name, _ in counter.most_common(limit)]
    readable = demangle(names)
    print(f"### {scenario}, {contender}: {binary}, {runs} runs, perf at 10 kHz\n")
    for side, counter in sides.items():
        total = sum(counter.values())
        if total == 0:
            continue
        print(f"{side}: {total:.1f}% of all samples\n")
        print("| share of this side | symbol |")
        print("|---|---|")
        for name, share in counter.most_common(limit):
            print(f"| {100 * share / total:.1f}% | `{readable.get(name, name)[:110]}` |")
        print()


if __name__ == "__main__":
    main()
