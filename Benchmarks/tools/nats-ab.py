#!/usr/bin/env python3
# Interleaved A/B of NATSBench binaries: per round and binary, a fresh nats-server (memory
# storage), the producer exporting N events, then the worker draining them. Prints rates and
# CPU µs/event per process (RUSAGE_CHILDREN deltas: user + system, start-up included). The
# order of the binaries alternates between rounds.
#   python3 Benchmarks/tools/nats-ab.py /tmp/NATSBench-before,/tmp/NATSBench-after [rounds] [count] [memory|file]
import json, os, resource, shutil, socket, subprocess, sys, tempfile, time, statistics
bins = sys.argv[1].split(',')
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
count = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
storage = sys.argv[4] if len(sys.argv) > 4 else 'memory'
def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
def run(cmd):
    c0 = cpu()
    out = subprocess.run(cmd,
                         capture_output=True, text=True, timeout=600)
    c1 = cpu()
    line = [l for l in out.stdout.splitlines() if '"seconds"' in l]
    if not line: raise SystemExit(out.stderr[-2000:])
    return json.loads(line[-1]), (c1 - c0) * 1e6 / count
INS = []
res = {b: {'exp': [], 'con': [], 'pcpu': [], 'wcpu': []} for b in bins}
for r in range(rounds):
    for b in (bins if r % 2 == 0 else bins[::-1]):
        store = tempfile.mkdtemp(prefix='nab'); port = free_port()
        srv = subprocess.Popen(['nats-server', '-js', '-sd', store, '-a', '127.0.0.1', '-p', str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in srv.stderr:
            if 'Server is ready' in line: break
        url = f'nats://127.0.0.1:{port}'
        common = ['--server', url, '--storage', storage, '--count', str(count)]
        try:
            p, pc = run([b, 'producer'] + common)
            w, wc = run([b, 'worker'] + common)
        finally:  # the server goes whatever happened
            srv.terminate(); srv.wait(); shutil.rmtree(store, ignore_errors=True)
        d = res[b]; d['exp'].append(count / p['seconds']); d['con'].append(count / w['seconds'])
        d['pcpu'].append(pc); d['wcpu'].append(wc)
        print(f"round {r+1} {os.path.basename(b)}: export {count/p['seconds']:.0f}/s ({pc:.1f} µs CPU/event), "
              f"consume {count/w['seconds']:.0f}/s ({wc:.1f} µs CPU/event); load {os.getloadavg()[0]:.1f}", flush=True)
print()
for b in bins:
    d = res[b]; m = statistics.median
    fmt = lambda v, f='%.0f': (f % m(v)) + ' (' + (f % min(v)) + '–' + (f % max(v)) + ')'
    print(f"| {os.path.basename(b)} | {fmt(d['exp'])} | {fmt(d['con'])} | {fmt(d['pcpu'], '%.1f')} | {fmt(d['wcpu'], '%.1f')} |")
