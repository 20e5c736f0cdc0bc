#!/usr/bin/env python3
# Interleaved A/B of two EDSBench binaries: ab.py OLD NEW ROUNDS [SCENARIOS [CONTENDERS]]; prints medians (ranges).
# CONTENDERS is EDSBench's --contenders list (comma-separated names), for opt-in ones such as "EDS state".
import subprocess, sys, re, statistics, collections
bins = sys.argv[1:3]; rounds = int(sys.argv[3])
data = {b: collections.defaultdict(list) for b in bins}
for r in range(rounds):
    for b in bins:
        contenders = ['--contenders', sys.argv[5]] if len(sys.argv) > 5 else []
        out = subprocess.run([b, '--runs', '1', '--only', sys.argv[4] if len(sys.argv) > 4 else 'S1,S2,S3,S6,S7', *contenders],
                             capture_output=True, text=True).stdout
        sc = None
        for line in out.splitlines():
            m = re.match(r'### (S\d.*)', line)
            if m:
                h = m.group(1)
                sc = h.split(':')[0] + (' ' + h.split(':')[-1].strip() if h.startswith('S3') else '')
                continue
            m = re.match(r'\| (EDS[^|]*|floor) \| ([\d.]+) \|', line)
            if m and sc: data[b][(sc, m.group(1).strip())].append(float(m.group(2)))
keys = sorted(data[bins[0]].keys())
print('| scenario | contender | ' + ' | '.join(bins) + ' |')
for k in keys:
    cells = []
    for b in bins:
        v = data[b].get(k, [])
        cells.append(f"{statistics.median(v):.3g} ({min(v):.3g}–{max(v):.3g})" if v else '-')
    print(f"| {k[0]} | {k[1]} | " + ' | '.join(cells) + ' |')
