# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""Scenarios of the JetStream API and of pull consumers: answers of the wrong type or shape, JSON
bombs, contradicting answers, deliveries no fetch asked for, publish acks that are no acks."""
import asyncio, json, os, random, time

from protocol import S, event_headers, handshake, info, js_hook_none, log, msg_frame, serve_protocol
from scenarios_core import sc_normal

def make_js_scenario(hook, pull=None, puback=None):
    async def sc(conn):
        S.js_hook = hook
        if pull: S.pull_hook = pull
        if puback: S.puback_hook = puback
        await sc_normal(conn)
    return sc

def js_wrong_types(conn, op, payload):
    choices = [
        {"config": {"name": 5, "subjects": "eds.>", "storage": "file"}},
        {"config": {"name": "EDS", "subjects": ["eds.>"], "storage": "tape"}},
        {"config": {"name": "EDS", "subjects": [1, 2], "storage": "file"}},
        {"config": "string"}, {"config": None}, [1, 2, 3], "just a string", 12345, None,
        {"error": "string error"}, {"error": {"code": "404"}}, {"error": {"code": 404, "err_code": "x"}},
        {"name": 7, "config": {}}, {"name": "w", "config": {"ack_policy": 1}},
        {"type": "io.nats.jetstream.api.v1.stream_info_response"},
    ]
    c = choices[random.randrange(len(choices))]
    log("wrong type reply", str(c)[:60])
    return json.dumps(c).encode()

def js_missing_fields(conn, op, payload):
    return b"{}"

def js_huge_numbers(conn, op, payload):
    if op.startswith("STREAM."):
        return (b'{"config":{"name":"EDS","subjects":["eds.>"],"storage":"file","duplicate_window":1e400,'
                b'"num_replicas":99999999999999999999999999999,"max_age":-9223372036854775809,"max_bytes":1.5}}')
    if op.startswith("CONSUMER."):
        return (b'{"name":"w","config":{"durable_name":"w","deliver_policy":"all","ack_policy":"explicit",'
                b'"ack_wait":18446744073709551616,"max_deliver":-99999999999999999999999,"filter_subject":"eds.orders",'
                b'"max_ack_pending":1e308}}')
    if op.startswith("STREAM.MSG.GET"):
        return b'{"message":{"subject":"eds.orders","seq":18446744073709551616}}'
    return NotImplemented

def js_json_bomb(conn, op, payload):
    depth = int(os.environ.get("BOMB_DEPTH", "100000"))
    return b'{"config":' + b"[" * depth + b"]" * depth + b"}"

def js_json_bomb_obj(conn, op, payload):
    depth = int(os.environ.get("BOMB_DEPTH", "100000"))
    return b'{"error":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"

def js_invalid_utf8(conn, op, payload):
    return b'{"config":{"name":"\xff\xfe\xc0\xaf","subjects":["eds.>"],"storage":"file"}}'

def js_stream_exists_loop(conn, op, payload):
    # STREAM.INFO says "not found", STREAM.CREATE says "already exists": forever
    if op.startswith("STREAM.INFO."):
        return b'{"error":{"code":404,"err_code":10059,"description":"stream not found"}}'
    if op.startswith("STREAM.CREATE."):
        return b'{"error":{"code":400,"err_code":10058,"description":"stream name already in use"}}'
    return NotImplemented

async def pull_consumer_deleted(conn, reply, req):
    conn.deliver(reply, b"", headers=b"NATS/1.0 409 Consumer Deleted\r\n\r\n")

async def pull_409_loop(conn, reply, req):
    conn.deliver(reply, b"", headers=b"NATS/1.0 409 Exceeded MaxWaiting\r\n\r\n")

async def pull_unsolicited_flood(conn, reply, req):
    # ignore the batch size: pour valid deliveries into the pull inbox, forever
    if getattr(conn, "flooding", False):
        return
    conn.flooding = True
    seq = 0
    body = json.dumps({"orderID": 1, "amount": 1.5}).encode()
    while not conn.closed:
        frames = []
        for _ in range(200):
            seq += 1
            frames.append(msg_frame(reply, conn.sid_for(reply), body,
                                    reply="$JS.ACK.EDS.workers_eds_orders_placed.1.%d.%d.%d.0" % (seq, seq, time.time_ns()),
                                    headers=event_headers("flood-%d" % seq)))
        conn.send(b"".join(frames))
        await conn.w.drain()
        await asyncio.sleep(0.001)

async def pull_bad_deliveries(conn, reply, req):
    body = json.dumps({"orderID": 1, "amount": 1.5}).encode()
    sid = conn.sid_for(reply)
    subs = [
        ("$JS.ACK.EDS.w.1.1.1.1.0", event_headers()),
        ("$JS.ACK.EDS.w.0.1.1.1.0", event_headers()),
        ("$JS.ACK.EDS.w.99999999999999999999.1.1.1.0", event_headers()),
        ("$JS.ACK.a.b.c.d.e.f.1.1.1.1.0.x.y.z", event_headers()),
        ("$JS.ACK.EDS.w.1.1.1.1.0", b"NATS/1.0\r\nEds-Event: orders.placed\r\nEds-Event-Version: 99999999999999999999999\r\n\r\n"),
        ("$JS.ACK.EDS.w.1.1.1.1.0", b"NATS/1.0\r\nEds-Event: orders.placed\r\nEds-Event-Version: -9223372036854775808\r\n\r\n"),
        ("$JS.ACK.EDS.w.1.1.1.1.0", b"NATS/1.0\r\nEds-Event: orders.placed\r\nEds-Format: \xff\r\n\r\n"),
        ("$JS.ACK.EDS.w.1.1.1.1.0", b"NATS/1.0 100 Idle Heartbeat\r\n\r\n"),
        ("$JS.ACK.EDS.w.1.1.1.1.0", b"NATS/1.0\r\nno colon\r\n\r\n"),
        ("$JS.ACK.EDS.w.5.1.1.1.0", event_headers()),
    ]
    for reply_to, hdr in subs:
        for b in [body, b"[[[[" * 5000, b"\xff\xfe", b"", b'{"orderID":1e400,"amount":1}', b'{"orderID":"x"}']:
            conn.send(msg_frame(reply, sid, b, reply=reply_to, headers=hdr))
    await conn.w.drain()
    await asyncio.sleep(0.2)
    conn.deliver(reply, b"", headers=b"NATS/1.0 408 Request Timeout\r\n\r\n")

async def pull_pinning(conn, reply, req):
    # answer each fetch honestly (batch deliveries, ~30-byte bodies) but put a large message to an
    # unknown sid right before each delivery, in the same write: each small delivery's payload is
    # then a slice of the large read buffer.
    pin = int(float(os.environ.get("PIN_MB", "8")) * 1024 * 1024)
    batch = req.get("batch", 1)
    sid = conn.sid_for(reply)
    body = json.dumps({"orderID": 1, "amount": 1.5}).encode()
    big = b"z" * pin
    for i in range(batch):
        conn.pulls += 1
        n = conn.pulls
        conn.send(msg_frame("nobody", 999999, big) + msg_frame(reply, sid, body,
                  reply="$JS.ACK.EDS.workers_eds_orders_placed.1.%d.%d.%d.0" % (n, n, time.time_ns()),
                  headers=event_headers("pin-%d" % n)))
        await conn.w.drain()
    log("pinning: answered fetch of", batch, "total deliveries", conn.pulls)

async def sc_js_pinning(conn):
    S.pull_hook = pull_pinning
    await handshake(conn, info({"max_payload": 64 * 1024 * 1024}))
    await serve_protocol(conn)

def puback_wrong_stream(conn, subject, reply, hdrs, payload):
    return b'{"stream":"OTHER","seq":1}'

def puback_garbage(conn, subject, reply, hdrs, payload):
    choices = [b'{"stream":"EDS","seq":-1}', b'{"stream":"EDS"}', b'{"seq":1}', b'not json', b'',
               b'{"stream":"EDS","seq":"1"}', b'{"stream":"EDS","seq":1e3}', b'{"stream":"EDS","seq":1,"error":{}}',
               b'{"stream":"E\\"DS","seq":1}', b'{"stream":"EDS","seq":18446744073709551616}', b'"stream":"EDS","seq":1',
               b'{"x":"\\"stream\\":\\"EDS\\",\\"seq\\":7"}', b'{"stream":', b'{"stream":"EDS' ]
    c = choices[int(os.environ["PUBACK_VARIANT"]) % len(choices)] if "PUBACK_VARIANT" in os.environ else random.choice(choices)
    log("puback", c)
    return c

def puback_escaped_fake(conn, subject, reply, hdrs, payload):
    # not an ack at all: a JSON object whose string *value* contains the text of an ack
    return b'{"note":"\\"stream\\":\\"EDS\\",\\"seq\\":7","error_hint":"nothing stored"}'

def puback_none(conn, subject, reply, hdrs, payload):
    return None


SCENARIOS = {
    "js_pinning": sc_js_pinning,
    "js_wrong_types": make_js_scenario(js_wrong_types), "js_missing_fields": make_js_scenario(js_missing_fields),
    "js_huge_numbers": make_js_scenario(js_huge_numbers), "js_json_bomb": make_js_scenario(js_json_bomb),
    "js_json_bomb_obj": make_js_scenario(js_json_bomb_obj), "js_invalid_utf8": make_js_scenario(js_invalid_utf8),
    "js_stream_exists_loop": make_js_scenario(js_stream_exists_loop),
    "js_consumer_deleted": make_js_scenario(js_hook_none, pull=pull_consumer_deleted),
    "js_409_loop": make_js_scenario(js_hook_none, pull=pull_409_loop),
    "js_unsolicited_flood": make_js_scenario(js_hook_none, pull=pull_unsolicited_flood),
    "js_bad_deliveries": make_js_scenario(js_hook_none, pull=pull_bad_deliveries),
    "js_puback_wrong_stream": make_js_scenario(js_hook_none, puback=puback_wrong_stream),
    "js_puback_garbage": make_js_scenario(js_hook_none, puback=puback_garbage),
    "js_puback_escaped_fake": make_js_scenario(js_hook_none, puback=puback_escaped_fake),
    "js_puback_none": make_js_scenario(js_hook_none, puback=puback_none),
}
