#!/usr/bin/env python3
"""Requests per second of the example server's POST /orders (through the bus: OrderPlaced →
a .listenerThread listener charges → OrderCharged → an async listener stores) against
POST /orders/direct (the request handler charges and stores, no bus), with no observability,
with the bus's observability interceptors (EventBusMetrics, EventBusTracing) and with those
plus Hummingbird's TracingMiddleware and MetricsMiddleware, in the same run.

    Benchmarks/server/run.py                      # 5 rounds of 10 s per case (about 6 min); prints markdown
    Benchmarks/server/run.py --rounds 3 --duration 5 --connections 16 --charge-cost-us 20

Three servers run side by side on loopback (--observability none, interceptors and all, each on
a port the system picks; metrics and spans go to swift-metrics' and swift-distributed-tracing's
no-op defaults, since nothing is bootstrapped); wrk (Debian's package, installed when missing) loads one
case at a time, cases interleaved in each round (rotated so none always goes first). After each
case the script polls GET /orders/count until every accepted order is stored: 'end to end' is
the orders of the case over wrk's wall time plus that drain, since the bus route answers 202
before the order is charged. Figures are medians over the rounds. Servers stop with SIGTERM at
the end and must exit 0 with every order stored.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "Examples", "OrderServer")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def build():
    subprocess.run(["swift", "build", "-c", "release", "--package-path", EXAMPLE], check=True, stdout=sys.stderr)
    path = subprocess.run(
        ["swift", "build", "-c", "release", "--package-path", EXAMPLE, "--show-bin-path"],
        check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(path, "OrderServer")


def ensure_wrk():
    if shutil.which("wrk"):
        return
    log("installing wrk (apt-get install -y wrk)")
    if subprocess.run(["apt-get", "install", "-y", "wrk"], stdout=sys.stderr).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True, stdout=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=True, stdout=sys.stderr)


class Server:
    def __init__(self, binary, observability, charge_cost_us):
        args = [binary, "--port", "0", "--charge-cost-us", str(charge_cost_us), "--observability", observability]
        self.observability = observability
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()  # blocks until the server prints its port, or exits
        match = re.match(r"listening on 127\.0\.0\.1:(\d+)$", line.strip())
        if not match:
            self.process.kill()
            raise SystemExit(f"the server did not start: {line!r}")
        self.base = f"http://127.0.0.1:{match.group(1)}"

    def cpu_seconds(self):
        """The server process's user + system CPU time so far (/proc/PID/stat, clock ticks)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def counts(self):
        with urllib.request.urlopen(self.base + "/orders/count", timeout=10) as response:
            return json.load(response)

    def wait_stored(self, deadline_s=120):
        """Polls until every accepted order is stored; returns the counts and the seconds waited."""
        start = time.monotonic()
        while True:
            counts = self.counts()
            if counts["stored"] >= counts["accepted"]:
                return counts, time.monotonic() - start
            if time.monotonic() - start > deadline_s:
                raise SystemExit(f"{self.base}: not drained within {deadline_s} s: {counts}")
            time.sleep(0.01)

    def stop(self, deadline_s=30):
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise SystemExit(f"{self.base}: still running {deadline_s} s after SIGTERM")
        summary = self.process.stdout.read().strip()
        return status, summary


def run_wrk(url, duration, connections, threads):
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "-s",
               os.path.join(HERE, "post-order.lua"), url]
    start = time.monotonic()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    elapsed = time.monotonic() - start
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    if errors or socket_errors:
        raise SystemExit(f"wrk reported errors on {url}:\n{out}")
    latency = re.search(r"Latency\s+(\S+)", out).group(1)
    return rps, latency, elapsed


def median_range(values):
    return statistics.median(values), min(values), max(values)


def fmt(value):
    return f"{value:,.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds of wrk per case and round")
    parser.add_argument("--warmup", type=int, default=3, help="seconds of wrk per case before the rounds")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--charge-cost-us", type=int, default=20, help="the simulated cost of a charge")
    parser.add_argument("--binary", help="a built OrderServer (default: build the release one)")
    args = parser.parse_args()

    ensure_wrk()
    binary = args.binary or build()
    levels = ("none", "interceptors", "all")
    servers = {level: Server(binary, level, args.charge_cost_us) for level in levels}
    cases = [(route, obs) for obs in levels for route in ("bus", "direct")]
    path = {"bus": "/orders", "direct": "/orders/direct"}
    results = {case: {"rps": [], "e2e": [], "drain": [], "latency": [], "cpu": []} for case in cases}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = " ".join(open("/proc/loadavg").read().split()[:3])
    try:
        for route, obs in cases:
            run_wrk(servers[obs].base + path[route], args.warmup, args.connections, args.threads)
            servers[obs].wait_stored()
        for round_index in range(args.rounds):
            shift = round_index % len(cases)
            for route, obs in cases[shift:] + cases[:shift]:
                server = servers[obs]
                before = server.counts()["accepted"]
                cpu_before = server.cpu_seconds()
                rps, latency, elapsed = run_wrk(server.base + path[route], args.duration, args.connections, args.threads)
                counts, drain = server.wait_stored()
                orders = counts["accepted"] - before
                cpu = server.cpu_seconds() - cpu_before
                entry = results[(route, obs)]
                entry["rps"].append(rps)
                entry["latency"].append(latency)
                entry["drain"].append(drain)
                entry["e2e"].append(orders / (elapsed + drain))
                entry["cpu"].append(cpu / orders * 1e6)
                log(f"round {round_index + 1} {route:6} observability={obs:12} "
                    f"{rps:9.0f} req/s, drained in {drain:.2f} s, latency avg {latency}, "
                    f"{cpu / orders * 1e6:.1f} µs CPU per order")
    finally:
        stops = {obs: server.stop() for obs, server in servers.items()}
    for obs, (status, summary) in stops.items():
        match = re.search(r"accepted=(\d+) charged=(\d+) stored=(\d+)", summary)
        if status != 0 or not match or len(set(match.groups())) != 1:
            raise SystemExit(f"server (observability {obs}) stopped badly: status {status}, {summary!r}")

    cpu = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = open("/proc/loadavg").read().split()[:3]
    print("## Example server: POST /orders through the bus vs direct\n")
    print(f"- date: {started} (start of the run)")
    print(f"- machine: nproc {os.cpu_count()}, CPU {cpu}, a shared VM; load average (1, 5, 15 min) "
          f"{load_start} at the start, {' '.join(load)} at the end: the server, wrk and any other job share the cores")
    print(f"- command: `Benchmarks/server/run.py --rounds {args.rounds} --duration {args.duration} "
          f"--connections {args.connections} --threads {args.threads} --charge-cost-us {args.charge_cost_us}`")
    print(f"- load: `wrk -t{args.threads} -c{args.connections} -d{args.duration}s -s Benchmarks/server/post-order.lua`, "
          f"loopback, cases interleaved and rotated in each of {args.rounds} rounds after a {args.warmup} s warm-up each; "
          "medians over the rounds, range in brackets")
    print(f"- server: `Examples/OrderServer` release build, charge cost {args.charge_cost_us} µs of busy CPU per order, "
          "three server processes side by side: `--observability none` (nothing), `interceptors` (the bus's "
          "`EventBusMetrics` and `EventBusTracing`), `all` (those and Hummingbird's `TracingMiddleware` and "
          "`MetricsMiddleware`); no metrics or tracing backend is bootstrapped, so they report to no-op ones")
    print("- end to end: orders accepted in the case ÷ (wrk's wall time + the time until all were stored); "
          "the bus route answers 202 before the order is charged, so a backlog can build while wrk runs")
    print("- CPU per order: the server process's user + system time (/proc/PID/stat) over the case, wrk and "
          f"drain, ÷ its orders; it includes the charge's {args.charge_cost_us} µs, HTTP parsing and the JSON; other jobs "
          "on the cores still move it (caches; a busy wait cut short by preemption costs less CPU)\n")
    print("| route | observability | req/s (median) | range | end to end orders/s | drain after wrk (s) "
          "| server CPU µs per order |")
    print("|---|---|---|---|---|---|---|")
    for route, obs in cases:
        entry = results[(route, obs)]
        median, low, high = median_range(entry["rps"])
        print(f"| {path[route]} ({route}) | {obs} | {fmt(median)} | {fmt(low)}–{fmt(high)} | "
              f"{fmt(statistics.median(entry['e2e']))} | {statistics.median(entry['drain']):.2f} | "
              f"{statistics.median(entry['cpu']):.1f} ({min(entry['cpu']):.1f}–{max(entry['cpu']):.1f}) |")
    print()
    print("Ratios: of the medians, then in brackets the median of each round's own ratio (paired: same minutes).\n")

    def ratio(a, b, key):
        of_medians = statistics.median(results[a][key]) / statistics.median(results[b][key])
        paired = statistics.median(x / y for x, y in zip(results[a][key], results[b][key]))
        return f"{of_medians:.2f}× ({paired:.2f}×)"

    print("| ratio | " + " | ".join(f"observability {level}" for level in levels) + " |")
    print("|---|" + "---|" * len(levels))
    for key, name in (("rps", "req/s"), ("e2e", "end to end"), ("cpu", "CPU per order")):
        cells = " | ".join(ratio(("bus", level), ("direct", level), key) for level in levels)
        print(f"| bus ÷ direct, {name} | {cells} |")
    print()
    print("| ratio | bus | direct |")
    print("|---|---|---|")
    for level in levels[1:]:
        for key, name in (("rps", "req/s"), ("e2e", "end to end"), ("cpu", "CPU per order")):
            print(f"| {level} ÷ none, {name} | {ratio(('bus', level), ('bus', 'none'), key)} | "
                  f"{ratio(('direct', level), ('direct', 'none'), key)} |")
    print()
    for obs, (status, summary) in stops.items():
        print(f"- SIGTERM, observability {obs}: exit status {status}; `{summary}`")


if __name__ == "__main__":
    main()
