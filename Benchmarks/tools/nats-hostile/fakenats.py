#!/usr/bin/env python3
# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""A hostile fake NATS server, for probing EventDrivenSwiftNATS.

usage: fakenats.py SCENARIO [--port-file F]

Listens on 127.0.0.1:<free port>, prints "PORT <n>" on stdout (and writes the port to F). Speaks
enough NATS and JetStream API to get a NATSClient or a NATSBridge going, then misbehaves as
SCENARIO says (scenarios_core.py, scenarios_jetstream.py; README.md lists them). Logs to stderr,
with the connections and the JetStream counters every 2 s.
"""
import asyncio
import sys

import scenarios_core
import scenarios_jetstream
from protocol import S, Conn, log

SCENARIOS = {**scenarios_core.SCENARIOS, **scenarios_jetstream.SCENARIOS}
SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "normal"
PORT_FILE = sys.argv[sys.argv.index("--port-file") + 1] if "--port-file" in sys.argv else None


async def on_conn(reader, writer):
    S.conn_count += 1
    conn = Conn(reader, writer)
    log("connection", conn.n)
    try:
        await SCENARIOS[SCENARIO](conn)
    except (ConnectionError, asyncio.IncompleteReadError, BrokenPipeError) as e:
        log("conn", conn.n, "ended:", type(e).__name__)
    except Exception as e:
        log("conn", conn.n, "error:", repr(e))
    finally:
        conn.closed = True
        try:
            writer.close()
        except Exception:
            pass


async def main():
    if SCENARIO not in SCENARIOS:
        print("unknown scenario; known:", " ".join(sorted(SCENARIOS)), file=sys.stderr)
        sys.exit(2)
    server = await asyncio.start_server(on_conn, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print("PORT", port, flush=True)
    if PORT_FILE:
        with open(PORT_FILE, "w") as f:
            f.write(str(port))

    async def stats():
        while True:
            await asyncio.sleep(2)
            log("STATS conns=%d" % S.conn_count, S.stats)

    asyncio.ensure_future(stats())
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
