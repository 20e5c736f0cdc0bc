#!/usr/bin/env python3
# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""Prints what a NATS server says of each consumer of a stream: deliveries, acks, redeliveries.

Usage: .build-python/bin/python scripts/nats-consumer-info.py [nats://127.0.0.1:4222] [STREAM]
(nats-py, which scripts/test-deps.sh installs in .build-python). One line per consumer; run it
every few seconds beside `NATSBridgeDemo work` to watch a backlog being worked off.
"""
import asyncio
import sys

import nats


async def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "nats://127.0.0.1:4222"
    stream = sys.argv[2] if len(sys.argv) > 2 else "EDS"
    client = await nats.connect(url)
    try:
        for info in await client.jetstream().consumers_info(stream):
            print(
                f"{info.name}: delivered {info.delivered.consumer_seq}, acknowledged up to "
                f"{info.ack_floor.consumer_seq}, ack pending {info.num_ack_pending}, "
                f"redelivered pending {info.num_redelivered}, not yet delivered {info.num_pending}"
            )
    finally:
        await client.close()


asyncio.run(main())
