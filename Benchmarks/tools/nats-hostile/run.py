#!/usr/bin/env python3
# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""Runs one scenario: the fake server (fakenats.py) and the Swift driver (NATSHostileProbe) against
it, sampling the driver's resident memory (VmRSS) every 0.5 s; reports how it ended (exit
status, HANG, RSS_LIMIT), the RSS at its start, peak and end, how many connections the server
accepted and how many a second, and the first and last lines the driver printed.

usage: run.py SCENARIO MODE [SECONDS] [NAME=VALUE ...]

MODE: client | bridge | jsapi (Benchmarks/Sources/NATSHostileProbe/main.swift). NAME=VALUE pairs
go into both processes' environment (PROBE_MAXHELD=64, PIN_MB=8, ...). The driver is
$NATS_HOSTILE_PROBE, else Benchmarks/.build/release/NATSHostileProbe, built by
    swift build -c release --package-path Benchmarks --product NATSHostileProbe
Environment: GRACE (s past SECONDS before the driver counts as hung, 40), RSS_LIMIT_MB (3000),
RESULTS (the folder of the logs, Benchmarks/.build/nats-hostile).
Logs: <RESULTS>/<SCENARIO>-<MODE>.{out,err,server}, and .rss (every sample: seconds, MB)
"""
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
BENCHMARKS = HERE.parent.parent
BIN = os.environ.get("NATS_HOSTILE_PROBE", str(BENCHMARKS / ".build/release/NATSHostileProbe"))
RESULTS = pathlib.Path(os.environ.get("RESULTS", BENCHMARKS / ".build/nats-hostile"))

if len(sys.argv) < 3:
    sys.exit(__doc__)
scenario, mode = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 and "=" not in sys.argv[3] else 10.0
extra_env = dict(a.split("=", 1) for a in sys.argv[3:] if "=" in a)
env = {**os.environ, **extra_env}
RESULTS.mkdir(parents=True, exist_ok=True)
base = RESULTS / f"{scenario}-{mode}"

with open(f"{base}.server", "w") as server_log:
    server = subprocess.Popen([sys.executable, str(HERE / "fakenats.py"), scenario], stdout=subprocess.PIPE,
                              stderr=server_log, text=True, env=env)
port = int(server.stdout.readline().split()[1])
out, err = open(f"{base}.out", "w"), open(f"{base}.err", "w")
t0 = time.monotonic()
driver = subprocess.Popen([BIN, mode, str(port), str(seconds)], stdout=out, stderr=err, env=env)
deadline = t0 + seconds + float(os.environ.get("GRACE", "40"))
rss_limit = int(os.environ.get("RSS_LIMIT_MB", "3000"))
samples = []  # (s since start, MB)
while True:
    status = driver.poll()
    if status is not None:
        break
    try:
        with open(f"/proc/{driver.pid}/status") as f:
            for line in f:
                # Under 1 MB: the process is still being started, not yet the driver.
                if line.startswith("VmRSS:") and int(line.split()[1]) >= 1024:
                    samples.append((round(time.monotonic() - t0, 1), int(line.split()[1]) // 1024))
    except FileNotFoundError:
        pass
    if time.monotonic() > deadline:
        status = "HANG"
        # Where its threads are, before it is killed.
        try:
            with open(f"{base}.gdb", "w") as gdb_log:
                subprocess.run(["gdb", "-p", str(driver.pid), "-batch", "-ex", "thread apply all bt 8"],
                               stdout=gdb_log, stderr=subprocess.STDOUT, timeout=60)
        except Exception:
            pass
        driver.kill()
        driver.wait()
        break
    if samples and samples[-1][1] > rss_limit:
        status = "RSS_LIMIT"
        driver.kill()
        driver.wait()
        break
    time.sleep(0.5)
elapsed = time.monotonic() - t0
server.send_signal(signal.SIGTERM)
try:
    server.wait(5)
except subprocess.TimeoutExpired:
    server.kill()
out.close()
err.close()
if isinstance(status, int) and status < 0:
    status = f"SIGNAL {-status} ({signal.Signals(-status).name})"

rss = [mb for _, mb in samples]
with open(f"{base}.rss", "w") as f:
    f.writelines(f"{t} {mb}\n" for t, mb in samples)
print(f"== {scenario} / {mode}: status={status} elapsed={elapsed:.1f}s "
      f"rss_start={rss[0] if rss else '?'}MB rss_peak={max(rss) if rss else '?'}MB rss_end={rss[-1] if rss else '?'}MB")
print("   rss series (t s, MB):", samples[::max(1, len(samples) // 12)][:14])
# The server logs "[fake <monotonic s>] connection <n>" for each connection it accepts.
accepted = [float(m.group(1)) for m in re.finditer(r"\[fake ([0-9.]+)\] connection \d+",
                                                   pathlib.Path(f"{base}.server").read_text())]
if len(accepted) > 1:
    span = accepted[-1] - accepted[0]
    print(f"   server: {len(accepted)} connections in {span:.1f} s ({(len(accepted) - 1) / max(span, 1e-9):.1f} a second)")
else:
    print(f"   server: {len(accepted)} connection(s)")
lines = pathlib.Path(f"{base}.out").read_text().splitlines()
for line in lines[:6]:
    print("   out>", line[:220])
if len(lines) > 12:
    print("   ...")
for line in lines[-6:] if len(lines) > 6 else []:
    print("   out>", line[:220])
for line in pathlib.Path(f"{base}.err").read_text().strip().splitlines()[-15:]:
    print("   err>", line[:220])
