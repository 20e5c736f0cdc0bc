# This source file is part of EventDrivenSwift, released under the MIT License.
# See LICENSE at the root of the repository for the license text.
"""The fake server's NATS and JetStream protocol: the handshake, the loop that answers a client's
operations, a minimal JetStream API and stream, and the hooks (in `S`) through which a scenario
changes any of it."""
import asyncio, json, random, sys, time, types

S = types.SimpleNamespace()  # the server's state and the scenario's hooks, shared by every connection


def log(*a):
    print(f"[fake {time.monotonic():.3f}]", *a, file=sys.stderr, flush=True)

CRLF = b"\r\n"
S.conn_count = 0
S.stream_seq = 0
S.stored = []          # (subject, headers bytes, body bytes)
S.consumers = {}       # name -> config
S.stats = {"acks_sent": 0, "client_acks": 0, "pub_requests": 0}

def info(extra=None):
    d = {"server_id": "FAKE", "server_name": "fake", "version": "2.10.0", "proto": 1, "go": "go1.21",
         "host": "127.0.0.1", "port": 4222, "headers": True, "max_payload": 1048576,
         "jetstream": True, "client_id": S.conn_count}
    if extra:
        d.update(extra)
    return b"INFO " + json.dumps(d).encode() + CRLF

def subj_match(pattern, subject):
    p = pattern.split("."); s = subject.split(".")
    for i, tok in enumerate(p):
        if tok == ">":
            return len(s) > i
        if i >= len(s):
            return False
        if tok != "*" and tok != s[i]:
            return False
    return len(p) == len(s)

def stream_config(**over):
    c = {"name": "EDS", "subjects": ["eds.>"], "storage": "file", "duplicate_window": 120000000000,
         "num_replicas": 1, "max_age": 0, "max_bytes": -1}
    c.update(over)
    return c

def msg_frame(subject, sid, payload, reply=None, headers=None):
    r = (" " + reply) if reply else ""
    if headers is None:
        return b"MSG %s %d%s %d\r\n" % (subject.encode(), sid, r.encode(), len(payload)) + payload + CRLF
    return (b"HMSG %s %d%s %d %d\r\n" % (subject.encode(), sid, r.encode(), len(headers), len(headers) + len(payload))
            + headers + payload + CRLF)

def event_headers(msgid=None, extra=b""):
    msgid = msgid or "id-%d-%d" % (time.time_ns(), random.randint(0, 1 << 30))
    return (b"NATS/1.0\r\nNats-Msg-Id: " + msgid.encode() + b"\r\nEds-Event: orders.placed\r\n"
            b"Eds-Event-Version: 1\r\nEds-Format: 1\r\nContent-Type: application/json\r\n" + extra + b"\r\n")

class Conn:
    def __init__(self, reader, writer):
        self.r = reader; self.w = writer
        self.subs = {}        # sid -> subject
        self.closed = False
        self.n = S.conn_count
        self.pulls = 0

    def sid_for(self, subject):
        for sid, pat in self.subs.items():
            if subj_match(pat, subject):
                return sid
        return None

    def send(self, data):
        if self.closed:
            return
        try:
            self.w.write(data)
        except Exception as e:
            log("write failed", e); self.closed = True

    def deliver(self, subject, payload, reply=None, headers=None, sid=None):
        sid = sid if sid is not None else self.sid_for(subject)
        if sid is None:
            log("no subscription for", subject); return False
        self.send(msg_frame(subject, sid, payload, reply, headers))
        return True

    async def readline(self):
        line = await self.r.readline()
        if not line:
            raise ConnectionError("eof")
        return line.rstrip(b"\r\n")

# ---------------------------------------------------------------- JetStream API (scenario hooks)

def js_api(conn, subject, payload):
    """Returns reply payload bytes (or None for no reply) for a $JS.API request."""
    op = subject[len("$JS.API."):]
    h = S.js_hook(conn, op, payload)
    if h is not NotImplemented:
        return h
    return js_default(conn, op, payload)

def js_default(conn, op, payload):
    if op.startswith("STREAM.INFO."):
        return json.dumps({"type": "io.nats.jetstream.api.v1.stream_info_response", "config": stream_config()}).encode()
    if op.startswith("STREAM.CREATE.") or op.startswith("STREAM.UPDATE."):
        return json.dumps({"config": stream_config()}).encode()
    if op.startswith("CONSUMER.INFO."):
        name = op.split(".")[-1]
        if name in S.consumers:
            return json.dumps({"name": name, "config": S.consumers[name]}).encode()
        return json.dumps({"error": {"code": 404, "err_code": 10014, "description": "consumer not found"}}).encode()
    if op.startswith("CONSUMER.CREATE."):
        req = json.loads(payload or b"{}")
        cfg = req.get("config", {})
        name = cfg.get("durable_name") or "eph%d" % random.randint(0, 1 << 30)
        S.consumers[name] = cfg
        return json.dumps({"name": name, "config": cfg}).encode()
    if op.startswith("STREAM.MSG.GET."):
        return json.dumps({"error": {"code": 404, "err_code": 10037, "description": "no message found"}}).encode()
    return json.dumps({"error": {"code": 400, "err_code": 1, "description": "unknown " + op}}).encode()

def js_hook_none(conn, op, payload):
    return NotImplemented

S.js_hook = js_hook_none

# ---------------------------------------------------------------- default protocol loop

async def pull_default(conn, reply, req):
    """Answer a CONSUMER.MSG.NEXT: deliver stored-but-unacked messages, else 408 after expiry."""
    batch = req.get("batch", 1)
    expires = req.get("expires", 1_000_000_000) / 1e9
    sent = 0
    while S.stored and sent < batch:
        subj, hdrs, body, seq = S.stored.pop(0)
        conn.pulls += 1
        conn.deliver(reply, body, reply="$JS.ACK.EDS.%s.1.%d.%d.%d.0" % ("workers_eds_orders_placed", seq, conn.pulls, time.time_ns()), headers=hdrs)
        sent += 1
    if sent < batch:
        await asyncio.sleep(min(expires, 5))
        conn.deliver(reply, b"", headers=b"NATS/1.0 408 Request Timeout\r\n\r\n")

async def on_pub(conn, subject, reply, hdrs, payload):
    if subject.startswith("$JS.API.CONSUMER.MSG.NEXT."):
        req = json.loads(payload or b"{}")
        asyncio.ensure_future(S.pull_hook(conn, reply, req))
        return
    if subject.startswith("$JS.API."):
        out = js_api(conn, subject, payload)
        if out is not None and reply:
            conn.deliver(reply, out)
        return
    if subject.startswith("$JS.ACK."):
        S.stats["client_acks"] += 1
        return
    if subject.startswith("eds.") and reply:
        S.stats["pub_requests"] += 1
        out = S.puback_hook(conn, subject, reply, hdrs, payload)
        if out is not None:
            S.stats["acks_sent"] += 1
            conn.deliver(reply, out)
        return
    if subject == "req.x" and reply:
        S.req_hook(conn, reply, payload)
        return

def puback_default(conn, subject, reply, hdrs, payload):
    S.stream_seq += 1
    S.stored.append((subject, hdrs or b"", payload, S.stream_seq))
    return json.dumps({"stream": "EDS", "seq": S.stream_seq}).encode()

def req_default(conn, reply, payload):
    conn.deliver(reply, b"echo:" + payload)

S.pull_hook = pull_default
S.puback_hook = puback_default
S.req_hook = req_default

async def handshake(conn, info_bytes=None):
    conn.send(info_bytes or info())
    await conn.w.drain()
    # expect CONNECT then PING
    while True:
        line = await conn.readline()
        if line.startswith(b"CONNECT"):
            continue
        if line == b"PING":
            conn.send(b"PONG\r\n")
            await conn.w.drain()
            return

async def serve_protocol(conn):
    """Reads the client's operations and answers them, forever."""
    while not conn.closed:
        line = await conn.readline()
        if not line:
            continue
        parts = line.split()
        op = parts[0].upper()
        if op == b"PING":
            if S.answer_pings:
                conn.send(b"PONG\r\n")
        elif op == b"PONG":
            pass
        elif op == b"SUB":
            subject = parts[1].decode(); sid = int(parts[-1])
            conn.subs[sid] = subject
            await S.on_sub(conn, subject, sid)
        elif op == b"UNSUB":
            conn.subs.pop(int(parts[1]), None)
        elif op == b"PUB":
            subject = parts[1].decode()
            reply = parts[2].decode() if len(parts) == 4 else None
            size = int(parts[-1])
            data = await conn.r.readexactly(size + 2)
            await on_pub(conn, subject, reply, None, data[:-2])
        elif op == b"HPUB":
            subject = parts[1].decode()
            reply = parts[2].decode() if len(parts) == 5 else None
            hs = int(parts[-2]); ts = int(parts[-1])
            data = await conn.r.readexactly(ts + 2)
            await on_pub(conn, subject, reply, data[:hs], data[hs:ts])
        elif op == b"CONNECT":
            pass
        else:
            log("unknown client op", line[:80])
        try:
            await conn.w.drain()
        except Exception:
            conn.closed = True

async def on_sub_default(conn, subject, sid):
    pass

S.on_sub = on_sub_default
S.answer_pings = True
