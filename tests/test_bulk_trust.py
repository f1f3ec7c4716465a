"""The bulk port trusts nothing before it is checked (runtime/wire/bulk/): hostile peers.

A worker's second port takes a session's tensors only from that session's
processes (a handshake and a MAC per header, keyed by the session's secret),
only for that session's mailboxes and variables, within size caps, and drops
what nobody claims. Hostile peers are refused (hung up on, with a warning
naming why) before anything is allocated, while a training step runs on.
"""

import asyncio
import concurrent.futures
import logging
import os
import queue
import re
import secrets
import socket
import struct
import sys
import threading
import time

import dask
import msgpack
import numpy as np
import pytest
from distributed import Client
from distributed.protocol.serialize import to_serialize
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import daskflow as tf
from daskflow.runtime.cluster.devices import scheduler_identity
from daskflow.runtime.wire import bulk, mailbox, pushes, rendezvous, trust
from daskflow.runtime.wire.variable_cache import VariableCache
from daskflow.runtime.worker.state import state_of
from tests.models import HYPOTHESIS_SETTINGS, ps_linear_graph
from tests.waiting import poll_for, settled

SETTINGS = settings(**HYPOTHESIS_SETTINGS, suppress_health_check=[HealthCheck.function_scoped_fixture])
HANDSHAKE_S = 1.0
READ_TIMEOUT_S = 20.0  # long: a hang-up well before it was not a read timing out
MAX_BUFFERED = 64 * 2**20
CLUSTER_CONFIG = {
    "daskflow.bulk-handshake-timeout": HANDSHAKE_S,
    "daskflow.bulk-read-timeout": READ_TIMEOUT_S,
    "daskflow.bulk-max-buffered": MAX_BUFFERED,
}
_LENGTH = struct.Struct("<Q")
FEED = np.random.default_rng(0).random((256, 300), dtype=np.float32)  # 300 KB: posted by bulk


# -- a real cluster of worker processes ---------------------------------------------------


@pytest.fixture(scope="module")
def client():
    # The Nannies hand this configuration to their worker processes.
    with dask.config.set(CLUSTER_CONFIG):
        with tf.local_cluster(ps=1, workers=1) as cluster, Client(cluster) as client:
            yield client


def _embedded(steps):
    g, w, x, train = ps_linear_graph()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        for _ in range(steps):
            sess.run(train, {x: FEED})
        return sess.run(w)


class _Session:
    """A cluster session of ``ps_linear_graph`` that has run a step (its plan is on the workers)."""

    def __init__(self, client):
        self.g, self.w, self.x, self.train = ps_linear_graph()
        config = tf.ConfigProto(operation_timeout_in_ms=60_000)  # a reader left waiting fails the test
        self.sess = tf.Session(client, graph=self.g, config=config)
        self.sess.run(self.w.initializer)
        self.step()
        self.steps = 1
        runtime = self.sess.runtime
        self.credentials = bulk.Credentials(runtime.token, runtime.secret)
        self.plan = runtime.metrics.plans[-1]

    def step(self):
        self.sess.run(self.train, {self.x: FEED})

    def close(self):
        self.sess.close()


class _Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)  # each refusal's own line is at debug level
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _capture(dask_worker):
    handler = _Captured()
    for name in (
        "daskflow.runtime.wire.bulk",
        "daskflow.runtime.wire.pushes",
        "daskflow.runtime.wire.rendezvous",
    ):
        logging.getLogger(name).addHandler(handler)
    for name in ("daskflow.runtime.wire.bulk", "daskflow.runtime.wire.rendezvous"):
        logging.getLogger(name).setLevel(logging.DEBUG)  # each refusal, not a minute's first
    dask_worker._bulk_trust_log = handler


def _captured(dask_worker):
    return list(dask_worker._bulk_trust_log.messages)


def _memory(dask_worker):
    """The worker process's peak virtual size and resident set, in bytes (/proc)."""
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if line.startswith(("VmPeak", "VmRSS")))
    return {k: int(v.split()[0]) * 1024 for k, v in fields.items()}


def _buffered(session, dask_worker=None):
    return state_of(dask_worker).receiver.buffered(session)


def _in_mailbox(key, dask_worker=None):
    return state_of(dask_worker).mailbox.ready(tuple(key))


async def _bulk_port(client, address):
    return await client.rpc(address).daskflow_bulk_port()  # as bulk.lookup asks


def _workers(client):
    """Worker name -> (Dask address, bulk address)."""
    out = {}
    for address, info in scheduler_identity(client)["workers"].items():
        port, token = client.sync(_bulk_port, client, address)
        out[info["name"]] = (address, ("127.0.0.1", int(port), token))
    return out


# -- hostile peers --------------------------------------------------------------------------


def _hung_up(sock, within) -> bool:
    """Whether the receiver closes ``sock`` within ``within`` seconds (what it sends is read)."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError):
        pass
    except TimeoutError:
        return False
    return True


def _send(sock, data):
    try:
        sock.sendall(data)
    except (ConnectionResetError, BrokenPipeError):  # hung up on already
        pass


def _message(seal, header, payload=b""):
    head = msgpack.packb(header)
    return _LENGTH.pack(len(head)) + head + seal.mac(head) + payload


def _item(nbytes):
    return [["|u1", [nbytes], False]]


class _Attack:
    """One hostile connection: what it sends, and the reason the worker must give."""

    def __init__(self, name, reason, run, within):
        self.name, self.reason, self.run, self.within = name, reason, run, within

    def __call__(self, where, ctx):
        start = time.monotonic()
        with socket.create_connection(where[:2], timeout=10) as sock:
            port = sock.getsockname()[1]
            self.run(sock, where, ctx)
            hung_up = _hung_up(sock, self.within + 5)
        return {"attack": self.name, "port": port, "hung_up": hung_up, "took": time.monotonic() - start}


def _as(credentials):
    def connect(sock):
        return bulk.handshake(sock, credentials)

    return connect


def _mail(ctx, where, step, items=None, **fields):
    key = [ctx.mine.plan, step, "hostile", "peer"]
    return {"kind": "mail", "key": key, "single": True, "to": where[2], "items": items or _item(4), **fields}


def _stranger_says(data):
    def run(sock, where, ctx):
        _send(sock, data)

    return run


def _stalls_in_hello(sock, where, ctx):
    _send(sock, bytes([8]) + b"abc")  # a session id of 8 bytes, 3 of them sent, then silence


def _trickles_its_hello(sock, where, ctx):
    # A byte at a time, each well within the handshake timeout: only a deadline for the
    # whole handshake ends it (a timeout per read would wait for all 8 + 32 bytes).
    for byte in bytes([8]) + os.urandom(8 + 32):
        try:
            sock.send(bytes([byte]))
        except OSError:
            return  # hung up on
        time.sleep(0.6 * HANDSHAKE_S)


def _huge_frame_without_hello(sock, where, ctx):
    header = {"kind": "mail", "key": [ctx.mine.plan, 1, "a", "b"], "to": where[2], "items": _item(2**40)}
    head = msgpack.packb(header)
    _send(sock, _LENGTH.pack(len(head)) + head)


def _hello_then(credentials_of, header_of, payload=b""):
    def run(sock, where, ctx):
        try:
            seal = bulk.handshake(sock, credentials_of(ctx))
        except ConnectionError:
            return
        _send(sock, _message(seal, header_of(ctx, where), payload))

    return run


def _garbage_header(sock, where, ctx):
    seal = bulk.handshake(sock, ctx.mine.credentials)
    head = b"\xc1" + os.urandom(40)  # 0xc1: a byte msgpack never uses
    _send(sock, _LENGTH.pack(len(head)) + head + seal.mac(head))


def _replayed_on_its_connection(sock, where, ctx):
    seal = bulk.handshake(sock, ctx.mine.credentials)
    message = _message(seal, _mail(ctx, where, ctx.replayed[0]), b"\x07" * 4)
    _send(sock, message)
    assert sock.recv(1) == bulk.ACK  # the original is taken
    _send(sock, message)  # the same bytes again, as an on-path attacker would


def _replayed_on_another_connection(sock, where, ctx):
    # Capture a whole connection's bytes (hello and message), then replay them.
    with socket.create_connection(where[:2], timeout=10) as first:
        greeting = first.recv(len(bulk.HELLO) + bulk.CHALLENGE, socket.MSG_WAITALL)
        challenge = greeting[len(bulk.HELLO) :]
        session = ctx.mine.credentials.session.encode()
        stream = bytes([len(session)]) + session + bulk.hello_mac(ctx.mine.credentials.secret, challenge)
        stream += _message(
            bulk.Seal(ctx.mine.credentials.secret, challenge), _mail(ctx, where, ctx.replayed[1])
        )
        stream += b"\x07" * 4
        first.sendall(stream)
        assert first.recv(1) == bulk.ACK
    _send(sock, stream)


MINE = lambda ctx: ctx.mine.credentials  # noqa: E731
ATTACKS = [
    _Attack("silent", "no hello in", lambda sock, where, ctx: None, HANDSHAKE_S),
    _Attack("garbage hello", "a session id of 255 bytes", _stranger_says(b"\xff" + os.urandom(200)), 1),
    _Attack("slow-loris hello", "no hello in", _stalls_in_hello, HANDSHAKE_S),
    _Attack("trickled hello", "no hello in", _trickles_its_hello, HANDSHAKE_S),
    _Attack("huge frame, no hello", "hello", _huge_frame_without_hello, HANDSHAKE_S),
    _Attack(
        "unknown session",
        "which has no plan on this worker",
        _hello_then(
            lambda ctx: bulk.Credentials("f00dbabe", secrets.token_bytes(32)), lambda c, w: _mail(c, w, 1)
        ),
        1,
    ),
    _Attack(
        "wrong secret",
        "with a wrong MAC",
        _hello_then(
            lambda ctx: bulk.Credentials(ctx.mine.credentials.session, secrets.token_bytes(32)),
            lambda c, w: _mail(c, w, 1),
        ),
        1,
    ),
    _Attack(
        "another session's secret",
        "with a wrong MAC",
        _hello_then(
            lambda ctx: bulk.Credentials(ctx.mine.credentials.session, ctx.other.credentials.secret),
            lambda c, w: _mail(c, w, 1),
        ),
        1,
    ),
    _Attack(
        "another session's mail for this one's plan",
        "which its session has not registered on this worker",
        _hello_then(lambda ctx: ctx.other.credentials, lambda c, w: _mail(c, w, 1)),
        1,
    ),
    _Attack(
        "another session's push of this one's variable",
        "not a variable of session",
        _hello_then(
            lambda ctx: ctx.other.credentials,
            lambda c, w: {
                "kind": "push",
                "entries": [[f"{c.mine.credentials.session}/w", 2**40, 2]],
                "to": w[2],
                "items": _item(4),
            },
        ),
        1,
    ),
    _Attack(
        "16 GiB declared",
        "daskflow.bulk-max-bytes",
        _hello_then(MINE, lambda c, w: _mail(c, w, 1, items=[["<f8", [2**31], False]])),
        1,
    ),
    _Attack(
        "6 GiB declared",  # under bulk-max-bytes, over what one session may hold unclaimed
        "daskflow.bulk-max-buffered",
        _hello_then(MINE, lambda c, w: _mail(c, w, 1, items=[["<f4", [3 * 2**29], False]])),
        1,
    ),
    _Attack("garbage header", "not msgpack", _garbage_header, 1),
    _Attack(
        "unknown kind",
        "unknown kind 'exec'",
        _hello_then(MINE, lambda c, w: {"kind": "exec", "to": w[2], "items": _item(4)}),
        1,
    ),
    _Attack(
        "mail for another plan",
        "mail for plan '0123456789ab'",
        _hello_then(MINE, lambda c, w: {**_mail(c, w, 1), "key": ["0123456789ab", 1, "a", "b"]}),
        1,
    ),
    _Attack(
        "a push with a malformed version",
        "is not a step number",
        _hello_then(
            MINE,
            lambda c, w: {
                "kind": "push",
                "entries": [[f"{c.mine.credentials.session}/w", "7", 2]],
                "to": w[2],
                "items": _item(4),
            },
        ),
        1,
    ),
    _Attack(
        "another receiver's token",
        "a message for another receiver",
        _hello_then(MINE, lambda c, w: {**_mail(c, w, 1), "to": "0000000000000000"}),
        1,
    ),
    _Attack("replayed on its connection", "MAC does not match", _replayed_on_its_connection, 1),
    _Attack("replayed on another connection", "with a wrong MAC", _replayed_on_another_connection, 1),
]


class _Context:
    def __init__(self, mine, other):
        self.mine, self.other = mine, other
        self.replayed = (2**50 + 1, 2**50 + 2)  # steps of mail nobody will claim


MALFORMED_PUSHES = [("7", 2), (None, 2), (3, "2"), (2**40, 0), (True, 2)]


async def _malformed_pushes_on_dasks_comms(client, address, name, credentials):
    # Any Dask peer may call the push handler: a version that cannot be ordered
    # once made every later push fail, and the readers wait for ever. Signed by the
    # session (a stranger's are refused before their fields are read: test_recv_trust.py).
    rpc = client.rpc(address)
    for version, keep in MALFORMED_PUSHES:
        proof = trust.signed(credentials, pushes.HANDLER, [name, version, keep])
        await rpc.daskflow_push(
            name=name, version=version, keep=keep, value=to_serialize(np.zeros(2, np.float32)), **proof
        )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the workers' memory in /proc")
@pytest.mark.process
def test_hostile_peers_are_refused_while_a_step_runs_on(client):
    mine, other = _Session(client), _Session(client)
    try:
        ctx = _Context(mine, other)
        workers = _workers(client)
        client.run(_capture)
        before = client.run(_memory)
        tower = workers["worker-0"][0]
        name = f"{mine.credentials.session}/w"
        client.sync(_malformed_pushes_on_dasks_comms, client, tower, name, mine.credentials)
        with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
            attacks = {
                pool.submit(attack, where, ctx): (name, attack)
                for name, (_, where) in workers.items()
                for attack in ATTACKS
            }
            while not all(f.done() for f in attacks) or mine.steps < 5:  # steps in flight meanwhile
                mine.step()
                mine.steps += 1
        after = client.run(_memory)
        logs = {
            name: client.run(_captured, workers=[address])[address] for name, (address, _) in workers.items()
        }

        # The steps ran as they would have without the attacks: no value injected. (The workers'
        # BLAS runs one thread, this process's may run more: its sums round differently, by ~3e-9
        # after some steps on values near 1e-4; an injected value moves w by far more.)
        np.testing.assert_allclose(mine.sess.run(mine.w), _embedded(mine.steps), rtol=1e-5, atol=1e-7)
        for future, (name, attack) in attacks.items():
            got = future.result()
            assert got["hung_up"], (name, got)
            assert got["took"] < attack.within + 4, (name, got)  # not a 20 s read timeout
            lines = [line for line in logs[name] if f"127.0.0.1:{got['port']}" in line]
            assert any(attack.reason in line for line in lines), (name, attack.name, lines)
        # Each refused (a line each at debug level), none kept.
        refused = [
            line for line in logs["worker-0"] if re.search(r"refused a call from \S+:\d+: a push of", line)
        ]
        assert len(refused) == len(MALFORMED_PUSHES), refused
        for address, (peak, rss) in ((a, (after[a]["VmPeak"], after[a]["VmRSS"])) for a in after):
            assert peak - before[address]["VmPeak"] < 2**31, "a declared 6 GiB was allocated"
            assert rss - before[address]["VmRSS"] < 256 * 2**20
        for name, (address, _) in workers.items():
            # The replayed messages' originals arrived once each, and nothing else is held.
            for step in ctx.replayed:
                key = [mine.plan, step, "hostile", "peer"]
                assert client.run(_in_mailbox, key, workers=[address])[address]
            assert (
                client.run(_in_mailbox, [mine.plan, 1, "hostile", "peer"], workers=[address])[address]
                is False
            )
            held = settled(
                lambda a=address: client.run(_buffered, mine.credentials.session, workers=[a])[a],
                10,
                f"the bytes {address} holds for the session",
                quiet=0.2,
            )
            assert held == 8, name  # the two 4-byte originals
    finally:
        other.close()
        mine.close()


@pytest.mark.process
def test_a_closed_sessions_secret_is_forgotten_by_the_workers(client):
    session = _Session(client)
    address, where = _workers(client)["ps-0"]
    client.run(_capture, workers=[address])

    def send():
        with socket.create_connection(where[:2], timeout=10) as sock:
            seal = bulk.handshake(sock, session.credentials)
            header = {
                "kind": "mail",
                "key": [session.plan, 2**50, "a", "b"],
                "to": where[2],
                "items": _item(4),
            }
            _send(sock, _message(seal, header, b"\x07" * 4))
            try:
                return sock.getsockname()[1], sock.recv(1)
            except ConnectionResetError:
                return sock.getsockname()[1], b""

    assert send()[1] == bulk.ACK  # while the session is open
    session.close()
    port, reply = send()
    assert reply == b""
    lines = [
        line for line in client.run(_captured, workers=[address])[address] if f"127.0.0.1:{port}" in line
    ]
    assert any("which has no plan on this worker" in line for line in lines), lines
    assert client.run(_buffered, session.credentials.session, workers=[address])[address] == 0  # cleared


# -- one receiver in this process -----------------------------------------------------------

SESSION, PLAN = "5e551011", "a1b2c3d4e5f6"
CREDENTIALS = bulk.Credentials(SESSION, secrets.token_bytes(32))


@pytest.fixture
def receiver():
    """A receiver checking destinations as a worker's does; (receiver, arrived, releases)."""
    arrived, releases = queue.Queue(), []

    def deliver(header, items, release):
        releases.append(release)
        arrived.put((header, items))

    r = bulk.Receiver("127.0.0.1", deliver, rendezvous.refusal)
    r.sessions.admit(PLAN, CREDENTIALS)
    yield r, arrived, releases
    r.close()


def _valid(header, count):
    """Whether a header (as the receiver unpacks it) is one a worker must take: the spec."""
    kind = header.get("kind")
    if kind == "mail":
        key, single = header.get("key"), header.get("single", False)
        return (
            set(header) <= {"kind", "key", "single"}
            and type(key) is list
            and len(key) == 4
            and key[0] == PLAN
            and type(key[1]) is int
            and 0 <= key[1] < 2**63
            and type(key[2]) is str
            and type(key[3]) is str
            and type(single) is bool
            and (count == 1 or not single)
        )
    if kind == "push":
        entries = header.get("entries")
        return (
            set(header) <= {"kind", "entries"}
            and type(entries) is list
            and len(entries) == count
            and all(
                type(e) is list
                and len(e) == 3
                and type(e[0]) is str
                and e[0].startswith(f"{SESSION}/")
                and type(e[1]) is int
                and 0 <= e[1] < 2**63
                and type(e[2]) is int
                and e[2] >= 1
                for e in entries
            )
        )
    return False


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
_names = st.one_of(st.text(max_size=6), _values)
_keys = st.one_of(
    _values,
    st.tuples(
        st.sampled_from([PLAN, "0123456789ab"]), st.integers(-3, 2**64 - 1) | _values, _names, _names
    ).map(list),
    st.lists(st.one_of(st.just(PLAN), st.integers(0, 9), st.text(max_size=4)), max_size=6),
)
_entries = st.one_of(
    _values,
    st.lists(
        st.one_of(
            _values,
            st.tuples(
                st.sampled_from([f"{SESSION}/w", "other/w", "w", SESSION]) | _values,
                st.integers(-3, 2**64 - 1) | _values,
                st.integers(-3, 2**64 - 1) | _values,
            ).map(list),
        ),
        max_size=3,
    ),
)
_extra = st.dictionaries(
    st.text(max_size=6).filter(lambda k: k not in {"to", "items", "at"}), _values, max_size=2
)
_headers = st.one_of(
    st.builds(lambda key, extra: {**extra, "kind": "mail", "key": key}, _keys, _extra),
    st.builds(
        lambda key, single, extra: {**extra, "kind": "mail", "key": key, "single": single},
        _keys,
        st.booleans() | _values,
        _extra,
    ),
    st.builds(lambda entries, extra: {**extra, "kind": "push", "entries": entries}, _entries, _extra),
    st.dictionaries(
        st.one_of(st.text(max_size=8), st.binary(max_size=4)).filter(
            lambda k: k not in {"to", "items", "at"}
        ),
        _values,
        max_size=5,
    ),
)


@SETTINGS
@given(header=_headers, count=st.integers(0, 3))
def test_any_header_is_refused_unless_it_is_one_a_worker_takes(receiver, header, count):
    r, arrived, _ = receiver
    items = [np.full(2, k, np.float32) for k in range(count)]
    described, buffers = bulk.describe({**header, "to": r.token}, items)
    unpacked = msgpack.unpackb(msgpack.packb(described))  # what the receiver reads
    unpacked.pop("to"), unpacked.pop("items")
    with socket.create_connection(("127.0.0.1", r.port), timeout=10) as sock:
        seal = bulk.handshake(sock, CREDENTIALS)
        _send(sock, seal.frame(described) + b"".join(bytes(b) for b in buffers))
        try:
            reply = sock.recv(1)
        except ConnectionResetError:
            reply = b""
    if _valid(unpacked, count):
        assert reply == bulk.ACK
        got, values = arrived.get(timeout=10)
        assert got == unpacked and len(values) == count
    else:
        assert reply == b""  # hung up on
    assert arrived.empty()  # nothing (else) delivered


@SETTINGS
@given(name=_names, version=_values, keep=_values)
def test_a_malformed_push_is_dropped_and_readers_still_get_theirs(name, version, keep):
    async def scenario():
        cache = VariableCache()
        cache.put("s/w", 1, "one", 2)
        cache.put(name, version, "pushed", keep)  # never raises
        cache.put("s/w", 2, "two", 2)
        assert await cache.get("s/w", 2, timeout=5) == "two"
        # As documented: a str name, a step number 0 <= version < 2**63, keep an int >= 1.
        valid = type(name) is str and type(version) is int and 0 <= version < 2**63
        valid = valid and type(keep) is int and keep >= 1
        stored = any("pushed" in versions.values() for versions in cache._values.values())
        if name == "s/w" and valid:  # it competes with the reader's own versions for the places kept
            return
        assert stored == valid, (name, version, keep)

    asyncio.run(scenario())


def test_a_sessions_unclaimed_bytes_are_capped_until_its_values_are_claimed(receiver, caplog):
    r, arrived, releases = receiver
    key = [PLAN, 1, "a", "b"]
    with dask.config.set({"daskflow.bulk-max-buffered": 10_000}):
        bulk.submit(r.where, {"kind": "mail", "key": key}, (np.zeros(1000),), CREDENTIALS).result(10)
        assert r.buffered(SESSION) == 8000
        with pytest.raises(ConnectionError):
            bulk.submit(r.where, {"kind": "mail", "key": key}, (np.zeros(500),), CREDENTIALS).result(10)
        assert "holds 8000 bytes unclaimed here (daskflow.bulk-max-buffered: 10000)" in caplog.text
        releases[0]()  # its consumer took it
        releases[0]()  # once only
        assert r.buffered(SESSION) == 0
        bulk.submit(r.where, {"kind": "mail", "key": key}, (np.zeros(500),), CREDENTIALS).result(10)
        assert r.buffered(SESSION) == 4000
    assert arrived.qsize() == 2


def test_a_session_dismissed_is_refused_on_its_open_connections(receiver, caplog):
    r, arrived, _ = receiver
    key = [PLAN, 1, "a", "b"]
    bulk.submit(r.where, {"kind": "mail", "key": key}, (np.zeros(2),), CREDENTIALS).result(10)
    r.sessions.dismiss(PLAN)  # the session closed: its plugin's teardown
    with pytest.raises(ConnectionError):
        bulk.submit(r.where, {"kind": "mail", "key": key}, (np.zeros(2),), CREDENTIALS).result(10)
    assert f"session {SESSION}, which has left this worker" in caplog.text
    assert arrived.qsize() == 1


def test_strangers_cannot_take_every_connection_slot(receiver, monkeypatch, caplog):
    r, arrived, _ = receiver
    monkeypatch.setattr(bulk.receiver, "MAX_HANDSHAKES", 2)
    with dask.config.set({"daskflow.bulk-handshake-timeout": 0.5}):
        silent = [socket.create_connection(("127.0.0.1", r.port), timeout=10) for _ in range(2)]
        try:
            for s in silent:  # both were challenged
                assert s.recv(len(bulk.HELLO), socket.MSG_WAITALL) == bulk.HELLO
            with socket.create_connection(("127.0.0.1", r.port), timeout=10) as third:
                assert third.recv(64) == b""  # refused at once, unchallenged
            assert all(_hung_up(s, 5) for s in silent)  # after the handshake timeout
        finally:
            for s in silent:
                s.close()
        poll_for(lambda: "not yet authenticated" in caplog.text, 5, "the refusal's log line", every=0.02)
        assert "2 of them not yet authenticated" in caplog.text
        bulk.submit(r.where, {"kind": "mail", "key": [PLAN, 1, "a", "b"]}, (np.ones(2),), CREDENTIALS).result(
            10
        )
    assert arrived.get(timeout=10)[0]["key"] == [PLAN, 1, "a", "b"]


def test_each_session_has_its_own_connection_to_a_receiver(receiver):
    r, arrived, _ = receiver
    other = bulk.Credentials("0ther5e5", secrets.token_bytes(32))
    r.sessions.admit("b1b2b3b4b5b6", other)
    bulk.submit(r.where, {"kind": "mail", "key": [PLAN, 1, "a", "b"]}, (np.ones(2),), CREDENTIALS).result(10)
    bulk.submit(r.where, {"kind": "mail", "key": ["b1b2b3b4b5b6", 1, "a", "b"]}, (np.ones(2),), other).result(
        10
    )
    assert {(r.where, SESSION), (r.where, other.session)} <= set(bulk.sender._LINKS)
    with pytest.raises(ConnectionError):  # one session's link cannot reach another's mailboxes
        bulk.submit(r.where, {"kind": "mail", "key": [PLAN, 2, "a", "b"]}, (np.ones(2),), other).result(10)
    assert arrived.qsize() == 2


def test_a_session_id_taken_by_another_secret_is_not_admitted():
    sessions = bulk.Sessions()
    assert sessions.admit("p1", CREDENTIALS)
    assert not sessions.admit("p2", bulk.Credentials(SESSION, secrets.token_bytes(32)))
    assert sessions.credentials("p2") is None and sessions.plans(SESSION) == {"p1"}
    assert sessions.admit("p2", CREDENTIALS)  # the same session's next plan
    sessions.dismiss("p1")
    assert sessions.secret(SESSION) == CREDENTIALS.secret  # p2 still holds it
    sessions.dismiss("p2")
    assert sessions.secret(SESSION) is None
    assert repr(CREDENTIALS.secret) not in repr(CREDENTIALS)  # a secret stays out of logs


def test_unclaimed_values_expire_and_a_late_consumer_is_told(mailbox_clock, caplog):
    box, released = mailbox.Mailbox(), []  # no plan installed: what is unclaimed expires
    with dask.config.set({"daskflow.mailbox-ttl": 60}):
        box.put(("p", 1, "a", "b"), "old", lambda: released.append("old"))
        mailbox_clock.advance(30)
        box.put(("p", 2, "a", "b"), "new", lambda: released.append("new"))
        mailbox_clock.advance(31)  # the first is 61 s old, the second 31 s
        box.sweep()
        assert released == ["old"] and not box.ready(("p", 1, "a", "b")) and box.ready(("p", 2, "a", "b"))
        assert "dropped 1 values unclaimed for 60 s (daskflow.mailbox-ttl)" in caplog.text
        with pytest.raises(TimeoutError, match="partition a came but were dropped.*daskflow.mailbox-ttl"):
            asyncio.run(box.take(("p", 1, "a", "b"), timeout=5))
        assert asyncio.run(box.take(("p", 2, "a", "b"), timeout=5)) == "new"
        assert released == ["old", "new"]  # claimed: its bytes no longer count


def test_a_value_sent_twice_keeps_the_newest_and_releases_both():
    box, released = mailbox.Mailbox(), []
    box.put(("p", 1, "a", "b"), "first", lambda: released.append(1))
    box.put(("p", 1, "a", "b"), "again", lambda: released.append(2))
    assert released == [1]
    box.clear("p")
    assert released == [1, 2] and not box.ready(("p", 1, "a", "b"))


def test_an_authenticated_sender_stalling_in_its_length_is_hung_up_on(receiver):
    r, arrived, _ = receiver
    with dask.config.set({"daskflow.bulk-read-timeout": 0.5}):
        with socket.create_connection(("127.0.0.1", r.port), timeout=10) as sock:
            bulk.handshake(sock, CREDENTIALS)
            start = time.monotonic()
            sock.sendall(b"\x10\x00")  # 2 of a length's 8 bytes, then silence
            assert _hung_up(sock, 10)
            assert time.monotonic() - start < 5  # the read timeout, not the 240 s between messages
    assert arrived.empty()


def test_a_receiver_thread_never_raises_past_the_connection(receiver):
    # Whatever a delivery does, the reader hangs up, and the next connection is served.
    r, arrived, releases = receiver
    stop = threading.Event()

    def flaky(header, items, release):
        if not stop.is_set():
            raise RuntimeError("a bug in the destination")
        releases.append(release)
        arrived.put((header, items))

    r._deliver = flaky
    with pytest.raises(ConnectionError):
        bulk.submit(r.where, {"kind": "mail", "key": [PLAN, 1, "a", "b"]}, (np.ones(2),), CREDENTIALS).result(
            10
        )
    assert r.buffered(SESSION) == 0  # released though never delivered
    stop.set()
    bulk.submit(r.where, {"kind": "mail", "key": [PLAN, 1, "a", "b"]}, (np.ones(2),), CREDENTIALS).result(10)
    assert arrived.qsize() == 1
