"""Numeric arrays between processes over plain sockets (runtime/wire/bulk/)."""

import asyncio
import ctypes
import hmac
import queue
import secrets
import socket
import struct
import threading
import time

import dask
import msgpack
import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.runtime.cluster.devices import scheduler_identity
from daskflow.runtime.wire import bulk, inplace, log_limit
from daskflow.runtime.wire.log_limit import OncePerPeer
from tests.models import ps_linear_graph
from tests.waiting import poll_for, settled

CREDENTIALS = bulk.Credentials("test-session", secrets.token_bytes(32))


# A sender written from the wire format in runtime/wire/bulk/__init__.py's docstring, not with its own
# handshake and Seal: the receiver is tested against the format, not against itself.
def _recv_all(sock, n):
    got = b""
    while len(got) < n:
        chunk = sock.recv(n - len(got))
        assert chunk, f"the receiver hung up after {len(got)} of {n} bytes"
        got += chunk
    return got


def _greeted(sock):
    """Read the receiver's greeting ("DFB1" and a 16-byte challenge) and answer it as the
    test session: id length, id, HMAC-SHA256(secret, challenge || "hello"). Returns
    a function framing this connection's headers in order (:func:`_framer`)."""
    greeting = _recv_all(sock, 4 + 16)
    assert greeting[:4] == b"DFB1", greeting
    challenge = greeting[4:]
    session = CREDENTIALS.session.encode("ascii")
    mac = hmac.digest(CREDENTIALS.secret, challenge + b"hello", "sha256")
    sock.sendall(bytes([len(session)]) + session + mac)
    return _framer(challenge)


def _framer(challenge):
    """Header number n on the wire: its 8-byte little-endian length, its msgpack bytes, and
    HMAC-SHA256(secret, challenge || n as 8 bytes little-endian || header)."""
    count = [0]

    def frame(header):
        head = msgpack.packb(header)
        numbered = challenge + struct.pack("<Q", count[0]) + head
        count[0] += 1
        return struct.pack("<Q", len(head)) + head + hmac.digest(CREDENTIALS.secret, numbered, "sha256")

    return frame


def _arrive_in(arrived):
    def deliver(header, items, release):
        release()
        arrived.put((header, items))

    return deliver


@pytest.fixture
def receiver():
    arrived = queue.Queue()
    r = bulk.Receiver("127.0.0.1", _arrive_in(arrived))
    r.sessions.admit("p", CREDENTIALS)  # what a plan's ProgramRegistry does on a worker
    yield r, arrived
    r.close()


def test_every_numeric_kind_arrives_as_it_was_sent(receiver):
    r, arrived = receiver
    big = np.arange(800_000, dtype=np.float32).reshape(800, 1000)
    items = (
        big,
        np.arange(12, dtype=np.int64).reshape(3, 4).T[1:],  # not contiguous
        np.array([True, False, True]),
        np.array([1 + 2j, 3 - 4j], np.complex64),
        np.float64(2.5),
        None,
        np.zeros((0, 3), np.float16),
    )
    bulk.submit(r.where, {"kind": "mail", "key": ["p", 7, "a", "b"]}, items, CREDENTIALS).result(10)
    header, got = arrived.get(timeout=10)
    assert header == {"kind": "mail", "key": ["p", 7, "a", "b"]}  # the receiver's token taken off
    assert len(got) == len(items) and got[5] is None
    for sent, back in zip(items, got):
        if sent is None:
            continue
        assert type(back) is type(sent) and back.dtype == sent.dtype
        np.testing.assert_array_equal(back, sent)


@pytest.mark.skipif(not bulk.in_place_enabled(), reason="Linux's process_vm_readv only")
def test_a_sender_on_this_machine_has_its_arrays_read_in_place(receiver):
    r, arrived = receiver
    items = (np.arange(300_000, dtype=np.float64).reshape(300, 1000), None, np.int32(7), np.zeros(0))
    before = r.received_in_place
    bulk.submit(r.where, {"kind": "mail"}, items, CREDENTIALS).result(10)
    _, got = arrived.get(timeout=10)
    np.testing.assert_array_equal(got[0], items[0])
    assert got[1] is None and got[2] == 7 and type(got[2]) is np.int32 and got[3].shape == (0,)
    assert r.received_in_place == before + 1  # the addresses came, not the bytes


@pytest.mark.skipif(not bulk.in_place_enabled(), reason="Linux's process_vm_readv only")
def test_where_the_kernel_refuses_the_read_the_bytes_come_over_the_socket(receiver, monkeypatch):
    # As Yama's ptrace_scope 1 does between two workers: the receiver asks for the
    # bytes, and that connection sends bytes from then on.
    r, arrived = receiver
    tries = []
    monkeypatch.setattr(inplace, "read", lambda pid, address, out: tries.append(pid) and False)
    for k in range(3):
        bulk.submit(r.where, {"kind": "mail"}, (np.full(50_000, k, np.float32),), CREDENTIALS).result(10)
        np.testing.assert_array_equal(arrived.get(timeout=10)[1][0], np.full(50_000, k, np.float32))
    assert r.received == 3 and r.received_in_place == 0
    assert len(tries) == 1  # asked once: the later messages came as bytes


@pytest.mark.skipif(not bulk.in_place_enabled(), reason="Linux's process_vm_readv only")
def test_a_copy_made_after_its_sender_gave_up_is_dropped(receiver, monkeypatch, caplog):
    # A sender whose send timed out may have freed its arrays: what was copied
    # from there is not delivered.
    r, arrived = receiver
    hung_up, real_read = threading.Event(), inplace.read

    def read_late(pid, address, out):
        hung_up.wait(10)
        return real_read(pid, address, out)

    monkeypatch.setattr(inplace, "read", read_late)
    value = np.arange(1000, dtype=np.float64)
    header = {"kind": "mail", "to": r.token, "items": [["<f8", [1000], False]], "at": [value.ctypes.data]}
    sock = inplace.connect("127.0.0.1", r.token, 10)
    sock.sendall(_greeted(sock)(header))
    sock.close()
    hung_up.set()
    poll_for(lambda: "gave up" in caplog.text, 10, "the receiver's log line that the sender gave up")
    assert "the sender gave up before its arrays were read" in caplog.text
    assert arrived.empty() and r.received == 0


@pytest.mark.skipif(not bulk.in_place_enabled(), reason="Linux's process_vm_readv only")
@pytest.mark.parametrize("in_place", [True, False])
def test_a_message_taken_just_before_its_receiver_closes_is_acknowledged(in_place):
    """A Horovod rank takes the last message of its last collective and shuts down at once:
    its sender still hears that the message arrived (the close cut the answer off before)."""
    arrived = []

    def deliver_then_close(header, items, release):
        release()
        arrived.append(header)
        r.close()  # the consumer is done: it closes before the reader thread answers

    r = bulk.Receiver("127.0.0.1", deliver_then_close)
    r.sessions.admit("p", CREDENTIALS)
    try:
        with dask.config.set({"daskflow.bulk-in-place": in_place}):
            bulk.submit(r.where, {"kind": "mail"}, (np.ones(3),), CREDENTIALS).result(10)
    finally:
        r.close()
    assert arrived == [{"kind": "mail"}]


def test_only_a_receiver_on_this_machine_is_sent_addresses(receiver):
    # Another local process could listen under a remote receiver's name.
    r, _ = receiver
    assert inplace.is_local("127.0.0.1")
    assert not inplace.is_local("192.0.2.1")  # TEST-NET-1: no machine's own
    assert inplace.connect("192.0.2.1", r.token, 10) is None  # the name exists here
    sock = inplace.connect("127.0.0.1", r.token, 10)
    assert sock is not None
    sock.close()


@pytest.mark.parametrize("local", [True, False])
@pytest.mark.parametrize("at", [[0], [2**40], ["0x1"], [-1], [1, 2], 7])
def test_addresses_that_cannot_be_read_get_the_bytes_asked_for(receiver, at, local):
    # Over TCP no peer is known, and on any connection a bad address fails: the
    # receiver reads nothing from them and asks for the bytes.
    r, arrived = receiver
    if local and not bulk.in_place_enabled():
        pytest.skip("Linux's process_vm_readv only")
    value = np.arange(1000, dtype=np.float64)
    header = {"kind": "mail", "to": r.token, "items": [["<f8", [1000], False]], "at": at}
    connect = (
        inplace.connect
        if local
        else lambda host, token, timeout: socket.create_connection((host, r.port), timeout=timeout)
    )
    with connect("127.0.0.1", r.token, 10) as s:
        s.sendall(_greeted(s)(header))
        assert s.recv(1) == bulk.RESEND
        s.sendall(value.tobytes())
        assert s.recv(1) == bulk.ACK
    np.testing.assert_array_equal(arrived.get(timeout=10)[1][0], value)
    assert r.received_in_place == 0


def test_only_numeric_values_go_this_way():
    assert bulk.eligible((np.ones(3, np.float32), None, np.int32(4)))
    masked = np.ma.masked_array([1.0, 2.0], mask=[True, False])  # would lose its mask
    for bad in (np.array(["a"]), np.array([{}], dtype=object), 1.5, [1.0], "text", b"bytes", masked):
        assert not bulk.eligible((np.ones(3), bad)), bad


def _raw(port, header, payload=b"", stop=False):
    """Send hand-made bytes as the test session, with its MAC (``stop``: and no more);
    return b'' once the receiver hangs up."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(_greeted(s)(header) + payload)
        if stop:
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:  # it hung up already
                return b""
        try:
            return s.recv(1)
        except ConnectionResetError:  # it hung up with our bytes unread
            return b""


@pytest.mark.parametrize(
    "header",
    [
        {"kind": "mail", "items": [["|O", [1], False]]},  # an object array would be unpickled
        {"kind": "mail", "items": [["<f4", [-1], False]]},
        {"kind": "mail", "items": [["not a dtype", [1], False]]},
        {"kind": "mail", "items": "nope"},
        ["not", "a", "map"],
        {"kind": "mail", "items": [["<f8", [10**10], False]]},  # 80 GB: refused before allocating
    ],
)
def test_a_malformed_message_is_refused_and_the_receiver_goes_on(receiver, header, caplog):
    r, arrived = receiver
    if isinstance(header, dict):  # addressed to this receiver: refused for what it holds
        header = {**header, "to": r.token}
    assert _raw(r.port, header, b"\0" * 8) == b""  # hung up on
    assert arrived.empty()
    assert "refused bulk transfers from 127.0.0.1" in caplog.text
    bulk.submit(r.where, {"kind": "ok"}, (np.ones(2),), CREDENTIALS).result(10)
    assert arrived.get(timeout=10)[0] == {"kind": "ok"}


def test_a_message_for_another_receiver_fails_its_send_and_delivers_nothing(receiver):
    # A worker that restarted on the same address, or another now on its port.
    r, arrived = receiver
    stale = (r.where[0], r.port, "a token of a receiver gone")
    with pytest.raises(ConnectionError):
        bulk.submit(stale, {"kind": "mail"}, (np.ones(2),), CREDENTIALS).result(10)
    assert arrived.empty()
    bulk.submit(r.where, {"kind": "ok"}, (np.ones(2),), CREDENTIALS).result(10)  # the right one still goes
    assert arrived.get(timeout=10)[0] == {"kind": "ok"}


def test_connections_beyond_the_cap_are_refused_and_the_first_ones_served(receiver, monkeypatch):
    r, arrived = receiver
    monkeypatch.setattr(bulk.receiver, "MAX_CONNECTIONS", 2)
    held = [socket.create_connection(("127.0.0.1", r.port), timeout=10) for _ in range(2)]
    try:
        # Greeted, so accepted and counted: the receiver greets only the connections it keeps.
        frames = [_greeted(s) for s in held]
        with socket.create_connection(("127.0.0.1", r.port), timeout=10) as third:
            assert third.recv(1) == b""  # hung up on at once
        header = {"kind": "ok", "to": r.token, "items": [["<f8", [2], False]]}
        for s, frame in zip(held, frames):  # the first two still work
            s.sendall(frame(header) + np.ones(2, "<f8").tobytes())
            assert s.recv(1) == bulk.ACK
    finally:
        for s in held:
            s.close()
    assert arrived.qsize() == 2


def test_a_header_for_another_receiver_is_refused_before_its_payload_is_read(receiver):
    # 1 GB declared, no payload sent: the receiver hangs up at once instead of
    # allocating it and waiting for the bytes.
    r, arrived = receiver
    header = {"kind": "mail", "to": "not this receiver", "items": [["<f8", [2**27], False]]}
    start = time.perf_counter()
    assert _raw(r.port, header) == b""
    assert time.perf_counter() - start < 5
    assert arrived.empty()


def test_a_sender_stalling_mid_message_is_hung_up_on(receiver):
    r, arrived = receiver
    header = {"kind": "mail", "to": r.token, "items": [["<f8", [1000], False]]}
    with dask.config.set({"daskflow.bulk-read-timeout": 0.5}):
        start = time.perf_counter()
        assert _raw(r.port, header, b"\0" * 100) == b""  # 100 of 8,000 bytes, then silence
        assert time.perf_counter() - start < 5
    assert arrived.empty()
    bulk.submit(r.where, {"kind": "ok"}, (np.ones(2),), CREDENTIALS).result(10)  # the receiver goes on
    assert arrived.get(timeout=10)[0] == {"kind": "ok"}


def test_a_truncated_message_delivers_nothing(receiver):
    r, arrived = receiver
    header = {"kind": "mail", "to": r.token, "items": [["<f8", [1000], False]]}
    assert _raw(r.port, header, b"\0" * 100, stop=True) == b""  # 100 of 8,000 bytes
    assert arrived.empty()


def test_a_stale_port_is_forgotten_and_tls_workers_are_never_asked():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = ("127.0.0.1", s.getsockname()[1], "token")  # nothing listens there once closed
    address = "tcp://127.0.0.1:1"
    bulk.sender._PORTS[address] = dead
    sent = asyncio.run(bulk.send(None, address, {"kind": "mail"}, (np.ones(2),), CREDENTIALS))
    assert sent is False and bulk.known(address) is None and address not in bulk.sender._PORTS
    assert asyncio.run(bulk.lookup(None, "tls://127.0.0.1:2")) is None  # rpc None: not called


def _train(target):
    g, w, x, train = ps_linear_graph()
    feed = {x: np.random.default_rng(0).random((256, 300), dtype=np.float32)}  # 300 KB: posted
    with tf.Session(target, graph=g) as sess:
        sess.run(w.initializer)
        for _ in range(5):
            sess.run(train, feed)
        return sess.run(w)


def _received(dask_worker):
    state = dask_worker.extensions.get("daskflow")  # the worker's WorkerState, once installed
    receiver = None if state is None else state.receiver
    return None if receiver is None else (receiver.received, receiver.received_in_place)


@pytest.mark.parametrize("enabled", [True, False])
def test_steps_move_their_values_by_bulk_or_else_on_dasks_comms(enabled):
    expected = _train(None)
    with dask.config.set({"daskflow.bulk-transfers": enabled}):
        with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, Client(cluster) as client:
            np.testing.assert_allclose(_train(client), expected, rtol=1e-5)
            received = client.run(_received)
    if enabled:  # gradients came to the ps, new values and feeds to the worker
        assert all(count > 0 for count, _ in received.values()), received
    else:
        assert all(count is None for count in received.values()), received


@pytest.mark.skipif(not bulk.in_place_enabled(), reason="Linux's process_vm_readv only")
@pytest.mark.parametrize("in_place", [True, False])
@pytest.mark.process
def test_worker_processes_read_each_others_arrays_in_place_unless_told_not_to(in_place):
    expected = _train(None)
    with dask.config.set({"daskflow.bulk-in-place": in_place}):
        with tf.local_cluster(ps=1, workers=1) as cluster, Client(cluster) as client:
            np.testing.assert_allclose(_train(client), expected, rtol=1e-5)
            received = client.run(_received)
            allowed = _kernel_lets_workers_read_each_other(client)
    for count, read_in_place in received.values():
        assert count > 0
        # Where the kernel refuses (Yama's ptrace_scope 1, a seccomp profile),
        # every connection fell back to bytes at its first message.
        assert read_in_place == (count if in_place and allowed else 0), received


_PROBE = np.arange(64, dtype=np.uint8)


def _probe_target():
    import os

    return os.getpid(), _PROBE.ctypes.data


class _IoVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


def _probe_read(pid, address):
    """Whether the kernel lets this process read ``pid``'s 64 probe bytes: libc's
    process_vm_readv asked directly, not daskflow's reader under test."""
    readv = ctypes.CDLL(None, use_errno=True).process_vm_readv
    readv.restype = ctypes.c_ssize_t
    vec = ctypes.POINTER(_IoVec)
    readv.argtypes = [ctypes.c_int, vec, ctypes.c_ulong, vec, ctypes.c_ulong, ctypes.c_ulong]
    out = ctypes.create_string_buffer(64)
    local, remote = _IoVec(ctypes.addressof(out), 64), _IoVec(address, 64)
    read = readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    return read == 64 and out.raw == bytes(range(64))


def _kernel_lets_workers_read_each_other(client):
    first, second = sorted(scheduler_identity(client)["workers"])
    pid, address = client.run(_probe_target, workers=[first])[first]
    return client.run(_probe_read, pid, address, workers=[second])[second]


def test_a_fed_array_refilled_while_its_step_is_in_flight_does_not_change_that_step():
    # With async_dispatch, run() returns before the step has read its feed; a
    # caller refilling one buffer each step (a common input loop) must not
    # change the steps still in flight, as in TF1, which copies feeds.
    g, w, x, train = ps_linear_graph()
    batches = [np.random.default_rng(k).random((256, 300), dtype=np.float32) for k in range(6)]
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        for batch in batches:
            sess.run(train, {x: batch})
        expected = sess.run(w)
    config = tf.ConfigProto(async_dispatch=3)
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, Client(cluster) as client:
        with tf.Session(client, graph=g, config=config) as sess:
            sess.run(w.initializer)
            buffer = np.empty((256, 300), np.float32)  # 300 KB: posted to the worker directly
            for batch in batches:
                buffer[...] = batch
                sess.run(train, {x: buffer})
                buffer[...] = np.nan
            got = sess.run(w)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def _two_variables_graph():
    """One replica on worker-0 reading two variables of the ps, which a synchronous
    optimizer updates each step (the ps's step aggregates the replicas' gradients)."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster={"ps": ["ps-0"], "worker": ["worker-0"]})):
            a = tf.Variable(np.full((30, 20), 0.5, np.float32), name="a")
            b = tf.Variable(np.full((20,), 0.25, np.float32), name="b")
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.ones([4, 30]), a) + b))
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1e-4), 1, 1)
            train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return g, a, b, train


def _run_two_variables(target, steps, between=lambda: None):
    g, a, b, train = _two_variables_graph()
    # Only pushes reach the reader, counted: no copies, and no staged steps' words to start.
    config = tf.ConfigProto(backup_variables=False, stage_next_step=False)
    with tf.Session(target, graph=g, config=config) as sess:
        sess.run([a.initializer, b.initializer, tf.train.get_global_step(g).initializer])
        for _ in range(3):
            sess.run(train)
        before = between()
        for _ in range(steps):
            sess.run(train)
        return sess.run([a, b]), before, between()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_reader_gets_the_new_values_of_a_step_in_one_message(enabled):
    steps = 5
    expected, _, _ = _run_two_variables(None, steps)
    with dask.config.set({"daskflow.bulk-transfers": enabled}):
        with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, Client(cluster) as client:
            workers = scheduler_identity(client)["workers"]
            tower = next(a for a, w in workers.items() if w["name"] == "worker-0")

            def received():
                # A step's pushes are not waited for: count once the last one has landed.
                return settled(lambda: client.run(_received, workers=[tower])[tower], 10, f"{tower}'s counts")

            got, before, after = _run_two_variables(client, steps, received)
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-6)
    if enabled:  # both new values in one message a step, each acknowledged once
        assert after[0] - before[0] == steps
    else:  # pushed on Dask's comms, one value at a time
        assert before is None and after is None


def _bulk_threads():
    """This process's threads that carry one session's bulk connection (sending or reading)."""
    return sorted(t.name for t in threading.enumerate() if t.name in ("daskflow-bulk-send", "daskflow-read"))


def test_a_closed_sessions_connections_and_their_threads_end_with_it():
    """A session's bulk links close when it does, not after the idle timeout: each reader
    thread would otherwise keep the last message it read (the session's last values) alive."""
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, Client(cluster) as client:
        before = _bulk_threads()
        _train(client)
        assert all(count > 0 for count, _ in client.run(_received).values())
        poll_for(
            lambda: _bulk_threads() == before,
            10,
            lambda: f"the bulk threads to be {before} again: {_bulk_threads()}",
        )


def test_refusals_are_logged_once_a_minute_per_peer_with_a_count(caplog):
    clock = [100.0]
    limit = OncePerPeer(bulk.receiver.logger, "refused from %s: %s", seconds=60.0)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(log_limit.time, "monotonic", lambda: clock[0])
    try:
        for _ in range(1000):
            limit("10.0.0.9", "bad header")
        limit("10.0.0.8", "bad header")  # another peer: its own line
        clock[0] += 61
        limit("10.0.0.9", "bad header")
    finally:
        monkeypatch.undo()
    lines = [r.getMessage() for r in caplog.records if "refused from" in r.getMessage()]
    assert lines == [
        "refused from 10.0.0.9: bad header",
        "refused from 10.0.0.8: bad header",
        "refused from 10.0.0.9: bad header (and 999 more refused since the last such line)",
    ]
