#!/usr/bin/env python3
"""Another language on the bridge's wire format (issue 28 §3): nats-py publishes and consumes
events as the article "Beyond One Process" documents them.

  nats-interop.py publish URL ORDER_ID ISO_DATE   publishes a `shipments` event, version 1
  nats-interop.py consume URL COUNT               takes COUNT `shipments` events from the durable
                                                  consumer `py_eds_shipments`, acknowledges them,
                                                  and prints one JSON line each

Needs nats-py (`pip install nats-py`)."""
import asyncio
import json
import sys
import uuid
from datetime import datetime

import nats


async def publish(url, order_id, date):
    connection = await nats.connect(url)
    stream = connection.jetstream()
    headers = {
        "Nats-Msg-Id": str(uuid.uuid4()),
        "Eds-Event": "shipments",
        "Eds-Event-Version": "1",
        "Eds-Source": "python",
        "Content-Type": "application/json",
        "Eds-Format": "1",
    }
    body = json.dumps({"orderID": order_id, "shippedAt": date}).encode()
    ack = await stream.publish("eds.shipments", body, headers=headers)
    print(json.dumps({"stream": ack.stream, "seq": ack.seq}), flush=True)
    await connection.close()


async def consume(url, count):
    connection = await nats.connect(url)
    stream = connection.jetstream()
    subscription = await stream.pull_subscribe("eds.shipments", durable="py_eds_shipments", stream="EDS")
    taken = 0
    while taken < count:
        for message in await subscription.fetch(count - taken, timeout=10):
            event = json.loads(message.data)
            shipped = datetime.fromisoformat(event["shippedAt"].replace("Z", "+00:00"))
            headers = message.headers or {}
            print(json.dumps({
                "orderID": event["orderID"],
                "epoch": shipped.timestamp(),
                "event": headers.get("Eds-Event"),
                "version": headers.get("Eds-Event-Version"),
                "format": headers.get("Eds-Format"),
                "contentType": headers.get("Content-Type"),
                "msgId": headers.get("Nats-Msg-Id"),
            }), flush=True)
            await message.ack()
            taken += 1
    await connection.close()


if __name__ == "__main__":
    command, url = sys.argv[1], sys.argv[2]
    if command == "publish":
        asyncio.run(publish(url, int(sys.argv[3]), sys.argv[4]))
    else:
        asyncio.run(consume(url, int(sys.argv[3])))
