# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""Scenarios of the NATS core protocol: a handshake that never ends or lies, floods, frames that
lie about their size, connections closed at the worst moment. Each is an async function run per
accepted connection."""
import asyncio, json, os, random, time

from protocol import CRLF, S, handshake, info, log, msg_frame, serve_protocol

# ---------------------------------------------------------------- scenarios
# Each scenario is an async function(conn) run per accepted connection.

async def sc_normal(conn):
    await handshake(conn)
    await serve_protocol(conn)

async def sc_no_info(conn):
    await asyncio.sleep(3600)

async def sc_slow_drip_info(conn):
    # an INFO line that never ends: 1 byte every 50 ms
    conn.send(b'INFO {"server_id":"')
    while True:
        conn.send(b"A"); await conn.w.drain(); await asyncio.sleep(0.05)

async def sc_slow_drip_after(conn):
    # after the handshake, a MSG control line dripped without CRLF, never completing (<4096)
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    conn.send(b"MSG s 1 ")
    while True:
        conn.send(b"1"); await conn.w.drain(); await asyncio.sleep(0.05)

async def sc_info_oversize(conn):
    conn.send(b'INFO {"server_id":"' + b"A" * 70000 + b'"}\r\n'); await conn.w.drain()
    await asyncio.sleep(3600)

async def sc_info_truncated(conn):
    conn.send(b'INFO {"server_id":"S","max_pay'); await conn.w.drain()
    conn.w.close()

async def sc_info_bad_json(conn):
    variants = [b'INFO [1,2,3]\r\n', b'INFO {"max_payload":"big"}\r\n', b'INFO {"max_payload":1e400}\r\n',
                b'INFO {"server_id":"\xff\xfe\xc0\x80"}\r\n', b'INFO {"connect_urls":"nope"}\r\n', b'INFO\r\n',
                b'INFO {"max_payload":99999999999999999999999999}\r\n', b'INFO {"headers":"yes"}\r\n']
    v = variants[int(os.environ.get("VARIANT", conn.n)) % len(variants)]
    log("sending", v[:60])
    conn.send(v); await conn.w.drain()
    await asyncio.sleep(3600)

def nested(depth):
    return b'{"server_id":"S","x":' + b"[" * depth + b"]" * depth + b"}"

async def sc_info_json_bomb(conn):
    depth = int(os.environ.get("BOMB_DEPTH", "30000"))
    conn.send(b"INFO " + nested(depth) + CRLF); await conn.w.drain()
    await asyncio.sleep(3600)

async def sc_info_json_bomb_obj(conn):
    depth = int(os.environ.get("BOMB_DEPTH", "10000"))
    body = b'{"server_id":"S","x":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"
    conn.send(b"INFO " + body + CRLF); await conn.w.drain()
    await asyncio.sleep(3600)

async def sc_info_max_payload_huge(conn):
    # absurd max_payload; then announce a 60 MiB message and drip it: client must hold <= cap
    await handshake(conn, info({"max_payload": 9223372036854775807}))
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.5)
    size = 60 * 1024 * 1024
    conn.send(b"MSG s 1 %d\r\n" % size)
    chunk = b"x" * 65536
    sent = 0
    while sent < size - 65536:
        conn.send(chunk); sent += len(chunk)
        await conn.w.drain(); await asyncio.sleep(0.002)
    log("sent most of 60MiB; stalling")
    await asyncio.sleep(3600)

async def sc_info_max_payload_neg(conn):
    await handshake(conn, info({"max_payload": -5}))
    await serve_protocol(conn)

async def sc_connect_urls_huge(conn):
    urls = []
    weird = ["[::1", "%zz:1", "h:99999999999999999999", ":-1", "a@b:1", "x:0", "[fe80::1%25en0]:4222",
             "\u00ff\u0100:1", "h:65536", "h:", ":", "@", "[]:1", "a b:1", "host:4222/path", "h:1?q", "h:1#f",
             "\x00:1", "..:1", "-:1", "[::ffff:1.2.3.4]:5", "a" * 299 + ":1", "a" * 400 + ":1"]
    i = 0
    while len(json.dumps(urls)) < 60000:
        urls.append(weird[i % len(weird)] if i % 3 == 0 else "10.%d.%d.%d:%d" % (i >> 16 & 255, i >> 8 & 255, i & 255, 4000 + i % 1000))
        i += 1
    await handshake(conn, info({"connect_urls": urls}))
    asyncio.ensure_future(serve_protocol(conn))
    # then keep changing connect_urls
    k = 0
    while True:
        k += 1
        urls2 = ["10.9.%d.%d:4222" % (k & 255, j) for j in range(200)]
        conn.send(info({"connect_urls": urls2})); await conn.w.drain()
        await asyncio.sleep(0.01)

async def sc_pong_then_close(conn):
    # complete the handshake, then close at once (first connection only: later ones behave)
    if conn.n == 1:
        conn.send(info()); await conn.w.drain()
        while True:
            line = await conn.readline()
            if line == b"PING":
                conn.send(b"PONG\r\n"); await conn.w.drain()
                conn.w.close(); log("closed right after PONG"); return
    await sc_normal(conn)

async def sc_pong_then_close_all(conn):
    # every connection: PONG, then close
    conn.send(info()); await conn.w.drain()
    while True:
        line = await conn.readline()
        if line == b"PING":
            conn.send(b"PONG\r\n"); await conn.w.drain()
            conn.w.close(); return

async def sc_pong_then_close_2nd(conn):
    # first connection normal for 1 s then dropped; second connection closes right after PONG
    if conn.n == 1:
        await handshake(conn)
        asyncio.ensure_future(serve_protocol(conn))
        await asyncio.sleep(1.0)
        conn.w.close(); log("dropped conn 1"); return
    if conn.n == 2:
        conn.send(info()); await conn.w.drain()
        while True:
            line = await conn.readline()
            if line == b"PING":
                conn.send(b"PONG\r\n"); await conn.w.drain()
                conn.w.close(); log("closed conn 2 right after PONG"); return
    await sc_normal(conn)

async def sc_handshake_info_flood(conn):
    # INFO, then never PONG: endless +OK and INFO during the handshake
    conn.send(info()); await conn.w.drain()
    while True:
        conn.send(b"+OK\r\n" * 100 + info() * 10); await conn.w.drain(); await asyncio.sleep(0.001)

async def sc_handshake_err(conn):
    conn.send(info()); await conn.w.drain()
    await conn.readline()
    conn.send(b"-ERR 'Authorization Violation'\r\n"); await conn.w.drain()
    await asyncio.sleep(3600)

async def sc_ping_flood_noread(conn):
    # after the handshake, flood PINGs and never read what the client sends (its PONGs pile up)
    await handshake(conn)
    log("flooding PINGs without reading")
    chunk = b"PING\r\n" * 10000
    total = 0
    last = time.monotonic()
    while True:
        conn.send(chunk); total += len(chunk)
        await conn.w.drain()
        if time.monotonic() - last > 2:
            last = time.monotonic(); log("sent MB", total / 1e6)

async def sc_ping_flood(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    chunk = b"PING\r\n" * 10000
    while True:
        conn.send(chunk); await conn.w.drain()

async def sc_err_flood(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    chunk = (b"-ERR 'Unknown Protocol Operation'\r\n" + b"-ERR 'Permissions Violation for Subscription to \"s\"'\r\n"
             + b"-ERR '\xff\xfe invalid utf8 \xc0\xaf'\r\n" + b"-ERR 'Permissions Violation for Publish to \"req.x\"'\r\n") * 500
    while True:
        conn.send(chunk); await conn.w.drain()

async def sc_ok_flood(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    while True:
        conn.send(b"+OK\r\n" * 20000); await conn.w.drain()

async def sc_msg_truncated_close(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.3)
    conn.send(b"MSG s 1 1000\r\n" + b"x" * 10); await conn.w.drain()
    await asyncio.sleep(0.1)
    conn.w.close()

async def sc_msg_lies(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.3)
    variants = [b"MSG s 1 -5\r\nabc\r\n", b"MSG s 1 18446744073709551616\r\n", b"MSG s 1 0x10\r\n",
                b"HMSG s 1 10 5\r\nNATS/1.0\r\n\r\n\r\n", b"HMSG s 1 -1 5\r\nhello\r\n",
                b"MSG s 1 3\r\nabcdef\r\n", b"MSG\r\n", b"MSG s\r\n", b"MSG s 1 2 3 4 5\r\n",
                b"HMSG s 1 5 5\r\nhello\r\n", b"MSG s 99999999999999999999 1\r\nx\r\n",
                b"MSG \xff\xfe 1 1\r\nx\r\n", b"\x00\x01\x02\r\n", b"\r\n", b"INFO\r\n", b"MSG s 1 1\nx\n"]
    v = variants[int(os.environ.get("VARIANT", conn.n - 1)) % len(variants)]
    log("variant", v[:50])
    conn.send(v); await conn.w.drain()
    await asyncio.sleep(3600)

MALFORMED_BLOCKS = [
    b"NATS/1.0\r\n\r\n", b"NATS/1.0 999 Weird\r\n\r\n", b"NATS/1.0 000\r\n\r\n", b"NATS/1.0 100\r\n\r\n",
    b"NATS/1.0 503\r\n\r\n", b"NATS/1.0 -1\r\n\r\n", b"NATS/1.0 12345 Big\r\n\r\n", b"NATS/1.0 4O4\r\n\r\n",
    b"NATS/1.0\r\n:\r\n\r\n", b"NATS/1.0\r\n: empty name\r\n\r\n", b"NATS/1.0\r\nA:\r\n\r\n",
    b"NATS/1.0\r\n\xff\xfe: \xc0\xaf\r\n\r\n", b"NATS/1.0\r\nno colon\r\n\r\n", b"NATS/1.0", b"NATS/1.0\n\n",
    b"NATS/1.0\r\n" + b"A: b\r\n" * 5000 + b"\r\n", b"NATS/1.0\r\n" + b"\n" * 10000, b"NATS/1.0 408\r",
    b"NATS/1.0\r\nNats-Msg-Id: " + b"x" * 100000 + b"\r\n\r\n", b"NATS/1.0\r\nStatus: 503\r\n\r\n",
    b"NATS/1.0 503 " + b"\xff" * 100 + b"\r\n\r\n", b"\r\n\r\n", b"NATS/1.0\x00\r\n\r\n",
]

async def sc_hmsg_bad_headers(conn):
    # every request (req.x) gets a reply with a malformed/odd header block; the "s" sub gets them all too
    await handshake(conn)
    idx = [0]
    def hook(c, reply, payload):
        b = MALFORMED_BLOCKS[idx[0] % len(MALFORMED_BLOCKS)]; idx[0] += 1
        log("reply block", idx[0] - 1, b[:40])
        c.deliver(reply, b"body", headers=b)
        s = c.sid_for("s")
        if s:
            for blk in MALFORMED_BLOCKS:
                c.deliver("s", b"body", headers=blk)
    S.req_hook = hook
    await serve_protocol(conn)

async def sc_wrong_inbox(conn):
    await handshake(conn)
    def hook(c, reply, payload):
        prefix = reply.rsplit(".", 1)[0]
        tok = reply.rsplit(".", 1)[1]
        sid = c.sid_for(reply)
        # replies to tokens never handed out, to other inboxes, with wrong sids, leading zeros, huge tokens
        for subj in [prefix + ".1", prefix + ".0" + tok, prefix + ".99999999999999999999999", prefix + "." + tok + ".x",
                     prefix + ".-1", prefix + ".", prefix + "..", "_INBOX.other." + tok, prefix + "." + tok + "0"]:
            c.send(msg_frame(subj, sid or 1, b"wrong"))
        c.send(msg_frame(reply, 424242, b"wrong sid"))
        c.send(msg_frame(reply, (sid or 1) + 1, b"pull sid?"))
        # the right reply arrives late (after timeout 1s) sometimes
    S.req_hook = hook
    await serve_protocol(conn)

async def sc_lame_duck_loop(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.05)
    conn.send(info({"ldm": True})); await conn.w.drain()
    await asyncio.sleep(3600)

async def sc_info_flood_ready(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    k = 0
    while True:
        k += 1
        mode = os.environ.get("INFO_MODE", "change")
        if mode == "change":
            urls = ["10.%d.%d.%d:4222" % (k >> 8 & 255, k & 255, j) for j in range(64)]
        elif mode == "same":
            urls = ["10.0.0.%d:4222" % j for j in range(64)]
        else:
            urls = []
        mp = random.choice([1, 1 << 40, -1, 1048576]) if os.environ.get("INFO_MP", "1") == "1" else 1048576
        conn.send(info({"connect_urls": urls, "max_payload": mp}) * 20)
        if k % 5000 == 0:
            log("INFO lines sent", k * 20)
        await conn.w.drain()

async def sc_close_mid_frame_loop(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.2)
    conn.send(b"HMSG s 1 12 20\r\nNATS/1.0\r\n"); await conn.w.drain()
    conn.w.close()

async def sc_big_msgs_to_sub(conn):
    # 1 MiB messages to subscription "m" (messages(on:) limit 64) and "s" as fast as possible
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    await asyncio.sleep(0.5)
    big = b"x" * (1024 * 1024 - 100)
    while True:
        sid = conn.sid_for("m")
        if sid:
            conn.send(msg_frame("m", sid, big))
        await conn.w.drain()

async def sc_orphan_flood(conn):
    await handshake(conn)
    asyncio.ensure_future(serve_protocol(conn))
    chunk = b"".join(msg_frame("nobody", 7777 + i, b"x" * 100) for i in range(1000))
    while True:
        conn.send(chunk); await conn.w.drain()

# ---- JetStream API misbehaviour (used with the jsapi / bridge drivers)


async def sc_pong_close_nodrain(conn):
    # every connection: PONG and FIN back to back (no drain in between)
    conn.send(info()); await conn.w.drain()
    while True:
        line = await conn.readline()
        if line == b"PING":
            sock = conn.w.get_extra_info("socket")
            if os.environ.get("RST") == "1":
                import struct, socket as _s
                sock.setsockopt(_s.SOL_SOCKET, _s.SO_LINGER, struct.pack("ii", 1, 0))
            conn.w.write(b"PONG\r\n")
            conn.w.close(); return

async def sc_pong_close_nodrain_first(conn):
    if conn.n == 1:
        return await sc_pong_close_nodrain(conn)
    await sc_normal(conn)


SCENARIOS = {
    "normal": sc_normal,
    "no_info": sc_no_info,
    "slow_drip_info": sc_slow_drip_info,
    "slow_drip_after": sc_slow_drip_after,
    "info_oversize": sc_info_oversize,
    "info_truncated": sc_info_truncated,
    "info_bad_json": sc_info_bad_json,
    "info_json_bomb": sc_info_json_bomb,
    "info_json_bomb_obj": sc_info_json_bomb_obj,
    "info_max_payload_huge": sc_info_max_payload_huge,
    "info_max_payload_neg": sc_info_max_payload_neg,
    "connect_urls_huge": sc_connect_urls_huge,
    "pong_then_close": sc_pong_then_close,
    "pong_then_close_all": sc_pong_then_close_all,
    "pong_then_close_2nd": sc_pong_then_close_2nd,
    "handshake_info_flood": sc_handshake_info_flood,
    "handshake_err": sc_handshake_err,
    "ping_flood_noread": sc_ping_flood_noread,
    "ping_flood": sc_ping_flood,
    "err_flood": sc_err_flood,
    "ok_flood": sc_ok_flood,
    "msg_truncated_close": sc_msg_truncated_close,
    "msg_lies": sc_msg_lies,
    "hmsg_bad_headers": sc_hmsg_bad_headers,
    "wrong_inbox": sc_wrong_inbox,
    "lame_duck_loop": sc_lame_duck_loop,
    "info_flood_ready": sc_info_flood_ready,
    "close_mid_frame_loop": sc_close_mid_frame_loop,
    "big_msgs_to_sub": sc_big_msgs_to_sub,
    "orphan_flood": sc_orphan_flood,
    "pong_close_nodrain": sc_pong_close_nodrain,
    "pong_close_nodrain_first": sc_pong_close_nodrain_first,
}
