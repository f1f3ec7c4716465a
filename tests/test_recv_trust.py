"""daskflow's handlers on Dask's comms take values only from a session's processes, within
the bulk port's caps (runtime/wire/trust.py, rendezvous.py, pushes.py, between_graph.py).

So do those of a between-graph job's variables: ``daskflow_shared_copy`` (a ps's copy, kept
for recovery) and ``daskflow_shared_copy_get`` (its fetch by a restored ps) need a session
with plans on the worker, and a copy is kept within the same caps; a job's variables are
dropped only by Dask's ``run`` (``Session.reset``), never by a handler of daskflow's.

A worker's ``daskflow_recv`` (a fed batch, a partition's results), ``daskflow_push`` (a new
variable value) and ``daskflow_shared_read`` (send a job's variables somewhere) are Dask
comm handlers any peer of the cluster can call. Each must carry the MAC of its session's
secret; a stranger's call is refused, leaves nothing on the worker, and is logged once a
minute per host with a count. A session's value over ``daskflow.bulk-max-bytes`` or past
``daskflow.bulk-max-buffered`` fails the step that reads it with TF1's
``ResourceExhaustedError`` naming it and the sizes, instead of being parked.
"""

import logging
import secrets

import dask
import numpy as np
import pytest
from distributed import Client
from distributed.protocol.serialize import to_serialize

import daskflow as tf
from daskflow.runtime.cluster import between_graph as cluster_shared
from daskflow.runtime.wire import between_graph, bulk, pushes, rendezvous, trust
from daskflow.runtime.wire.between_graph import READ_HANDLER
from daskflow.runtime.worker.between_graph_tasks import newest_copy
from daskflow.runtime.worker.state import EXTENSION
from tests.clusters import module_cluster
from tests.models import ps_linear_graph
from tests.test_bulk_trust import FEED, _embedded  # 300 KB: posted directly

BIG = np.zeros(2**20, np.float32)  # 4 MiB
LOGGER = "daskflow.runtime.wire.rendezvous"


# In this process: the test reads the workers' state and logs directly.
cluster = module_cluster(ps=1, workers=1, processes=False, dashboard_address=None)


@pytest.fixture
def session(cluster):
    """A session of ``ps_linear_graph`` that has run a step: its plan is on the workers."""
    g, w, x, train = ps_linear_graph()
    sess = tf.Session(cluster, graph=g, config=tf.ConfigProto(operation_timeout_in_ms=60_000))
    sess.run(w.initializer)
    sess.run(train, {x: FEED})
    runtime = sess.runtime
    sess.parts = (w, x, train)
    sess.credentials = bulk.Credentials(runtime.token, runtime.secret)
    sess.plan = runtime.metrics.plans[-1]
    sess.client = runtime.client
    yield sess
    sess.close()


def _worker(cluster, name):
    worker = next(w for n, w in cluster.workers.items() if n == name)
    return worker, worker.extensions[EXTENSION]


def _call(client, address, handler, **kwargs):
    async def call():
        return await getattr(client.rpc(address), handler)(**kwargs)

    return client.sync(call)


def _recv(client, address, key, value, **proof):
    return _call(client, address, rendezvous.HANDLER, key=key, value=to_serialize(value), **proof)


# -- strangers ---------------------------------------------------------------------------------


def test_a_plain_rpc_to_daskflow_recv_is_refused_and_parks_nothing(cluster, session):
    worker, state = _worker(cluster, "worker-0")
    key = [session.plan, 2**50, "hostile", "peer"]  # a step nobody will claim
    other = bulk.Credentials(session.credentials.session, secrets.token_bytes(32))
    refusals = {
        "no session's credentials": {},
        "wrong MAC": {"session": session.credentials.session, "mac": secrets.token_bytes(32)},
        "not its secret": trust.signed(other, rendezvous.HANDLER, key),
        "has no plan on this worker": trust.signed(
            bulk.Credentials("f00dbabe", b"x" * 32), "daskflow_recv", key
        ),
    }
    for reason, proof in refusals.items():
        reply = _recv(session.client, worker.address, key, BIG, **proof)
        assert reason in reply, (reason, reply)
    # Signed by the session, but for a plan it has not registered there, or another key.
    proof = trust.signed(session.credentials, rendezvous.HANDLER, key)
    reply = _recv(session.client, worker.address, ["nope", *key[1:]], BIG, **proof)
    assert "wrong MAC" in reply
    nope = ["nope", *key[1:]]
    reply = _recv(
        session.client, worker.address, nope, BIG, **trust.signed(session.credentials, "daskflow_recv", nope)
    )
    assert "which its session has not registered on this worker" in reply
    assert "not [plan, step, name, name]" in _recv(session.client, worker.address, ["p", "s"], BIG)

    assert not state.mailbox.ready(tuple(key)) and len(state.mailbox) == 0
    assert state.unclaimed.held(session.credentials.session) == 0
    # The session trains on, as if nobody had called.
    w, x, train = session.parts
    session.run(train, {x: FEED})
    np.testing.assert_allclose(session.run(w), _embedded(2), rtol=1e-5)


def test_a_signed_call_is_filed_and_counted_until_claimed(cluster, session):
    worker, state = _worker(cluster, "worker-0")
    key = [session.plan, 2**50 + 1, "signed", "peer"]
    proof = trust.signed(session.credentials, rendezvous.HANDLER, key)
    assert _recv(session.client, worker.address, key, (BIG,), **proof) is None
    assert state.mailbox.ready(tuple(key))
    assert state.unclaimed.held(session.credentials.session) >= BIG.nbytes
    session.close()  # its plans leave the worker, and their values with them
    assert not state.mailbox.ready(tuple(key))
    assert state.unclaimed.held(session.credentials.session) == 0


def test_refusals_are_logged_once_a_minute_per_host_with_each_at_debug(cluster, session, caplog):
    worker, state = _worker(cluster, "ps-0")
    key = [session.plan, 2**50 + 2, "hostile", "peer"]
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        for _ in range(30):
            assert "no session's credentials" in _recv(session.client, worker.address, key, FEED)
    refused = [r for r in caplog.records if r.name == LOGGER and "refused a call" in r.getMessage()]
    assert sum(r.levelno == logging.DEBUG for r in refused) == 30
    assert sum(r.levelno == logging.WARNING for r in refused) <= 1  # one a minute (maybe said already)
    assert len(state.mailbox) == 0


def test_unsigned_pushes_and_shared_reads_are_refused(cluster, session):
    worker, state = _worker(cluster, "worker-0")
    name = pushes.cache_name(session.credentials.session, "w")
    push = dict(name=name, version=2**50, keep=2, value=to_serialize(BIG))
    assert "no session's credentials" in _call(session.client, worker.address, pushes.HANDLER, **push)
    proof = trust.signed(session.credentials, pushes.HANDLER, [f"other/{name}", 2**50, 2])
    other = {**push, "name": f"other/{name}", **proof}
    assert "not a variable of session" in _call(session.client, worker.address, pushes.HANDLER, **other)
    # Not the refused version (the session's own pushes of w may land meanwhile: a step it staged)
    assert not state.cache.ready(name, 2**50)
    assert not any(key.startswith("other/") for key in state.cache._values)

    ps, ps_state = _worker(cluster, "ps-0")
    box = [session.plan, 2**50, "shared-x", worker.address]
    read = dict(job="job", names=["w"], step=1, to=worker.address, box=box, plan=session.plan)
    assert "no session's credentials" in _call(session.client, ps.address, READ_HANDLER, **read)
    fields = [read["job"], read["names"], read["step"], read["to"], box, session.plan]
    proof = trust.signed(session.credentials, READ_HANDLER, fields)
    elsewhere = {**read, "box": ["nope", *box[1:]], **proof}
    assert "not its plan's" in _call(session.client, ps.address, READ_HANDLER, **elsewhere)
    assert len(state.mailbox) == 0


# -- caps -----------------------------------------------------------------------------------------


def test_a_feed_over_the_cap_fails_its_step_with_resource_exhausted(cluster, session):
    w, x, train = session.parts
    big = np.ones((4096, 300), np.float32)  # 4.9 MB: over the cap, on the bulk port and Dask's comms
    with dask.config.set({"daskflow.bulk-max-bytes": 2**21}):
        with pytest.raises(tf.errors.ResourceExhaustedError) as caught:
            session.run(train, {x: big})
    message = str(caught.value)
    assert "feed-0" in message and f"{big.nbytes} bytes" in message, message
    assert f"{2**21} bytes" in message and "daskflow.bulk-max-bytes" in message, message
    # Nothing applied and nothing left behind: the session goes on from where it was.
    np.testing.assert_allclose(session.run(w), _embedded(1), rtol=1e-5)
    session.run(train, {x: FEED})
    np.testing.assert_allclose(session.run(w), _embedded(2), rtol=1e-5)
    for name in ("ps-0", "worker-0"):
        assert _worker(cluster, name)[1].unclaimed.held(session.credentials.session) == 0


def test_a_sessions_unclaimed_values_past_the_cap_are_not_kept(cluster, session):
    worker, state = _worker(cluster, "worker-0")
    first, second = ([session.plan, 2**50 + n, "signed", "peer"] for n in (3, 4))
    with dask.config.set({"daskflow.bulk-max-buffered": int(1.5 * BIG.nbytes)}):
        for key in (first, second):
            proof = trust.signed(session.credentials, rendezvous.HANDLER, key)
            assert _recv(session.client, worker.address, key, (BIG,), **proof) is None
    held = state.unclaimed.held(session.credentials.session)
    assert BIG.nbytes <= held < 1.5 * BIG.nbytes  # the first only
    kept = state.mailbox._box[tuple(second)]
    assert type(kept) is trust.TooLarge and "daskflow.bulk-max-buffered" in kept.message
    with pytest.raises(tf.errors.ResourceExhaustedError, match="the value of signed for partition peer"):
        rendezvous.unless_failed(kept)


def test_training_with_every_value_on_dasks_comms_carries_the_proof():
    # No bulk port: every fed batch, result and push goes through the handlers checked here.
    with dask.config.set({"daskflow.bulk-transfers": False}):
        with tf.local_cluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                g, w, x, train = ps_linear_graph()
                with tf.Session(client, graph=g) as sess:
                    sess.run(w.initializer)
                    for _ in range(3):
                        sess.run(train, {x: FEED})
                    np.testing.assert_allclose(sess.run(w), _embedded(3), rtol=1e-5)
                assert all(w.extensions[EXTENSION].receiver is None for w in cluster.workers.values())


# -- a between-graph job's copies and drops ------------------------------------------------------


def _copy(client, address, job, source, value, updates, **proof):
    """A call of ``daskflow_shared_copy``: ``job``'s variable ``w`` on ``source``, as the ps
    sends it (``between_graph.send_copy``), with ``proof`` as given."""
    snapshot = dict(
        values={"w": to_serialize(value)},
        versions={"w": updates},
        definitions={"w": [list(value.shape), value.dtype.name, "/job:ps/task:0"]},
    )
    return _call(client, address, between_graph.COPY_HANDLER, job=job, source=source, **snapshot, **proof)


def _copy_proof(credentials, job, source, plan):
    return {"plan": plan, **trust.signed(credentials, between_graph.COPY_HANDLER, [job, source, plan])}


def test_a_copy_of_a_jobs_variables_is_kept_only_from_a_session_with_a_plan_there(cluster, session):
    worker, state = _worker(cluster, "worker-0")
    job, source, plan = f"job-{secrets.token_hex(4)}", "ps-0", session.plan
    other = bulk.Credentials(session.credentials.session, secrets.token_bytes(32))
    refusals = [
        ("no session's credentials", {"plan": plan}),
        ("wrong MAC", {"plan": plan, "session": session.credentials.session, "mac": secrets.token_bytes(32)}),
        ("wrong MAC", _copy_proof(other, job, source, plan)),  # not its secret
        (
            "has no plan on this worker",
            _copy_proof(bulk.Credentials("f00dbabe", b"x" * 32), job, source, plan),
        ),
        (
            "its session has not registered on this worker",
            _copy_proof(session.credentials, job, source, "nope"),
        ),
        ("is not a string", _copy_proof(session.credentials, job, source, None)),
    ]
    for reason, proof in refusals:
        reply = _copy(session.client, worker.address, job, source, BIG, 7, **proof)
        assert reason in reply, (reason, reply)
        assert (job, source) not in state.shared.copies
    proof = _copy_proof(session.credentials, job, source, plan)
    assert _copy(session.client, worker.address, job, source, BIG, 7, **proof) is None  # the session's: kept
    held = session.client.run(newest_copy, job, source, workers=[worker.address])
    assert held == {worker.address: 7}
    # Nor does a stranger get the copy: only a session with plans on the holder.
    get = dict(job=job, source=source)
    for reason, proof in [
        ("no session's credentials", {}),
        ("wrong MAC", trust.signed(other, between_graph.COPY_GET_HANDLER, [job, source])),
    ]:
        reply = _call(session.client, worker.address, between_graph.COPY_GET_HANDLER, **get, **proof)
        assert list(reply) == ["refused"] and reason in reply["refused"], reply
    right = trust.signed(session.credentials, between_graph.COPY_GET_HANDLER, [job, source])
    answer = _call(session.client, worker.address, between_graph.COPY_GET_HANDLER, **get, **right)
    np.testing.assert_array_equal(answer["values"]["w"], BIG)
    assert answer["versions"] == {"w": 7}
    state.shared.drop(job)


def test_a_copy_over_the_caps_is_refused_and_the_kept_one_stays(cluster, session, caplog):
    worker, state = _worker(cluster, "worker-0")
    job = f"job-{secrets.token_hex(4)}"

    def copy(source, value, updates):
        proof = _copy_proof(session.credentials, job, source, session.plan)
        return _copy(session.client, worker.address, job, source, value, updates, **proof)

    assert copy("ps-0", np.ones(4, np.float32), 1) is None
    with caplog.at_level(logging.WARNING, logger="daskflow.runtime.wire.between_graph"):
        with dask.config.set({"daskflow.bulk-max-bytes": 2**21}):
            reply = copy("ps-0", BIG, 2)
    assert f"on ps-0 is {BIG.nbytes}" in reply and f"{2**21} bytes" in reply, reply
    assert "daskflow.bulk-max-bytes" in reply, reply
    assert any(reply in r.getMessage() for r in caplog.records), caplog.records  # said on the worker
    kept = state.shared.copies[(job, "ps-0")]
    assert kept.updates() == 1 and kept.values["w"].shape == (4,)  # the older copy stays
    # All the copies a worker keeps: within daskflow.bulk-max-buffered, the one replaced aside.
    with dask.config.set({"daskflow.bulk-max-buffered": int(1.5 * BIG.nbytes)}):
        assert copy("ps-0", BIG, 2) is None  # replaces the small one
        reply = copy("ps-1", BIG, 1)
        assert "daskflow.bulk-max-buffered" in reply and f"hold {BIG.nbytes}" in reply, reply
        assert copy("ps-0", BIG, 3) is None  # a newer one of ps-0 replaces its own
    assert state.shared.copies[(job, "ps-0")].updates() == 3 and (job, "ps-1") not in state.shared.copies
    state.shared.drop(job)


def test_a_jobs_variables_are_dropped_only_by_dasks_run_never_by_a_plain_rpc(cluster, session):
    ps, state = _worker(cluster, "ps-0")
    job = f"job-{secrets.token_hex(4)}"
    with state.shared.lock(job):
        state.shared.write(job, {"w": np.ones(3, np.float32)})
    # daskflow serves no drop handler: a call of one (forged proof or none) reaches nothing.
    assert "daskflow_shared_drop" not in ps.handlers
    forged = {"session": session.credentials.session, "mac": secrets.token_bytes(32)}
    for proof in ({}, forged, trust.signed(session.credentials, "daskflow_shared_drop", [job])):
        _call(session.client, ps.address, "daskflow_shared_drop", job=job, **proof)
    assert state.shared.names(job) == ["w"]
    cluster_shared.reset(session.client, job)  # Session.reset's way: Dask's run, as any client's
    assert state.shared.names(job) == []
