"""ConfigProto(placement="cost"): the greedy earliest-finish placer and its plans."""

import dataclasses
import time

import numpy as np
import pytest

import daskflow as tf
from daskflow.runtime.plan.cost_placement import CostPlacer, Rates
from tests.clusters import module_cluster

DEVICES = ["/job:worker/task:0", "/job:worker/task:1"]
RATES = Rates(flops=1e10, memory=1e10)  # stated, so the test does not depend on this machine


def _branches(dim=256, width=1024):
    """Two wide branches and a head, no device given; returns (graph, init, x, head)."""
    graph = tf.Graph()
    rng = np.random.default_rng(0)
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, dim], name="x")
        outs = []
        for name in ("left", "right"):
            with tf.name_scope(name):
                w1 = tf.Variable(rng.standard_normal((dim, width), dtype=np.float32) * 0.01, name="w1")
                w2 = tf.Variable(rng.standard_normal((width, dim), dtype=np.float32) * 0.01, name="w2")
                outs.append(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
        head = tf.reduce_mean(tf.tanh(outs[0] + outs[1]), name="head")
        init = tf.global_variables_initializer()
    return graph, init, x, head


def _devices(graph, placer):
    placed, reasons = placer.graph_placement(graph)
    return {op.name: device for op, device in placed.items()}, {op.name: why for op, why in reasons.items()}


def test_bad_placement_is_a_value_error_naming_the_field():
    with pytest.raises(ValueError, match="placement"):
        tf.ConfigProto(placement="greedy")


def test_wide_branches_go_to_different_workers_and_variables_follow_their_readers():
    graph, _, _, _ = _branches()
    where, why = _devices(graph, CostPlacer(DEVICES, RATES, batch=512))
    left = {where[n] for n in ("left/MatMul", "left/Relu", "left/MatMul_1", "left/w1", "left/w2")}
    right = {where[n] for n in ("right/MatMul", "right/Relu", "right/MatMul_1", "right/w1", "right/w2")}
    assert len(left) == 1 and len(right) == 1 and left != right
    assert where["left/w1/Assign"] == where["left/w1"]  # the initializer goes with its variable
    assert why["left/w1"] == "cost: with its heaviest reader, left/MatMul"
    assert why["right/MatMul"].startswith("cost: earliest estimated finish")


def test_cheap_chains_stay_on_one_worker():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8])
        a = tf.exp(x)
        b = tf.tanh(x)
        tf.add(a, b, name="out")
    where, _ = _devices(graph, CostPlacer(DEVICES, RATES, batch=4))
    assert set(where.values()) == {DEVICES[0]}  # a transfer would cost more than running here


def test_explicit_devices_and_colocation_are_kept():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 256])
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.ones((256, 256), np.float32), name="w")
        y = tf.matmul(x, w, name="y")
        with tf.device(DEVICES[1]):
            z = tf.matmul(y, w, name="z")
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(z))
    where, _ = _devices(graph, CostPlacer(DEVICES, RATES, batch=64))
    assert "z" not in where and "w" not in where  # placed by their scopes
    assert not any(name.startswith("GradientDescent/update_w") for name in where)  # with w, on the ps


cluster = module_cluster(ps=0, workers=2, processes=False)


def test_a_cost_placed_step_computes_what_the_default_does_and_says_why(cluster):
    # Wide enough that splitting the branches gains more than a hop at any batch: the graph
    # is placed when the initializer runs, before any batch is fed (DEFAULT_ROWS).
    graph, init, x, head = _branches(width=4096)
    feed = {x: np.random.default_rng(1).random((256, 256), dtype=np.float32)}
    values = {}
    for placement in (None, "cost"):
        with tf.Session(cluster, graph=graph, config=tf.ConfigProto(placement=placement)) as sess:
            sess.run(init)
            values[placement] = sess.run(head, feed)
            where = sess.placement(head, feed)
            metrics = sess.step_metrics()[-1]
    np.testing.assert_allclose(values["cost"], values[None], rtol=1e-5)
    assert where["left/MatMul"].worker != where["right/MatMul"].worker
    assert where["right/w1"].worker == where["right/MatMul"].worker  # its value lives with its reader
    assert all(w.reason for w in where.values())
    assert where["head"].reason.startswith("cost:")
    assert sum(metrics["bytes_by_pair"].values()) == 256 * 256 * 4  # one branch's output crossed


def test_replicated_plans_are_left_to_replication(cluster):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            y = tf.reduce_sum(x * 2.0)
    with tf.Session(cluster, graph=graph, config=tf.ConfigProto(placement="cost")) as sess:
        where = sess.placement(y, {x: np.ones((4, 4), np.float32)})
    assert all(w.device == "/job:worker" for w in where.values())


def _slow_double(values):
    time.sleep(0.06)  # what the shapes cannot tell: the op is slow
    return 2 * values


def test_measured_op_times_place_the_graph_again(cluster):
    """Two py_funcs the shapes call cheap (16 bytes in, 16 out) but that take 60 ms each:
    together by the estimates, on two workers once the second run has timed them."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4], name="x")
        slow = [tf.py_func(_slow_double, [x], tf.float32, name=name) for name in ("left", "right")]
        head = tf.add(slow[0], slow[1], name="head")
    feed = {x: np.arange(4, dtype=np.float32)}
    with tf.Session(cluster, graph=graph, config=tf.ConfigProto(placement="cost")) as sess:
        before = sess.placement(head, feed)
        values = [sess.run(head, feed) for _ in range(3)]
        after = sess.placement(head, feed)
        client = sess.runtime.client
        left = client.run(lambda dask_worker: sorted(dask_worker.extensions["daskflow"].programs))
    assert before["left"].worker == before["right"].worker and "estimated" in before["left"].reason
    assert after["left"].worker != after["right"].worker
    assert "measured at" in after["left"].reason and "measured at" in after["right"].reason
    for value in values:
        np.testing.assert_array_equal(value, 4 * np.arange(4, dtype=np.float32))
    plans = {pid.partition("-")[0] for found in left.values() for pid in found}
    assert len(plans) == 1  # the plan placed by the estimates left the workers


def test_a_traced_step_measures_the_links_latency_and_speed_from_its_hops():
    """Two hops out of worker 0: 4 bytes in 0.5 ms (the latency), 1 MiB in 2.5 ms (the
    speed: 1 MiB in the 2 ms beyond the latency). Times as the workers note them (ns)."""
    from daskflow.client.step_stats import Described, OpTimes, PartitionTimes
    from daskflow.runtime.plan.measured_costs import link_rates
    from daskflow.runtime.plan.partition import make_plan

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8], name="x")
        with tf.device("/job:worker/task:0"):
            big = tf.tanh(x, name="big")
            small = tf.reduce_sum(big, name="small")
        with tf.device("/job:worker/task:1"):
            took_big = tf.identity(big, name="took_big")
        with tf.device("/job:worker/task:2"):
            took_small = tf.identity(small, name="took_small")
    plan = make_plan([took_big, took_small], [], [x])
    key = {op.name: part.key for op, part in plan.partition_of.items()}
    ops = [big.op, small.op]
    mib, ms = 1 << 20, 1_000_000
    described = (
        OpTimes(0, 0, ms // 2, (Described((mib // 4,), mib),)),
        OpTimes(1, ms // 2, ms, (Described((), 4),)),
    )
    records = [
        PartitionTimes(key["big"], key["big"], None, "tcp://w0", 0, [(0, ms, 1)], described),
        PartitionTimes(
            key["took_big"], key["took_big"], None, "tcp://w1", 0, [(ms + 5 * ms // 2, 5 * ms, 2)]
        ),
        PartitionTimes(
            key["took_small"], key["took_small"], None, "tcp://w2", 0, [(ms + ms // 2, 2 * ms, 3)]
        ),
    ]
    latency, speed = link_rates(records, plan, ops)
    assert latency == pytest.approx(0.5e-3)
    assert speed == pytest.approx(mib / 2e-3)
    placer = CostPlacer(DEVICES, RATES)
    placer.observe({}, (latency, speed))
    assert placer.transfer_time(took_big) == pytest.approx(0.5e-3 + 8 * 4 / (mib / 2e-3))  # batch 1
    on_one_worker = [
        records[0],
        PartitionTimes(key["took_big"], key["took_big"], None, "tcp://w0", 0, records[1].computes),
    ]
    assert link_rates(on_one_worker, plan, ops) == (None, None)  # no hop crossed workers


def _two_small_branches():
    """``head = tanh(x) + exp(x)`` on 4 values, which the shapes call cheap: (graph, a, b)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4])
        a, b = tf.tanh(x, name="a"), tf.exp(x, name="b")
        tf.add(a, b, name="head")
    return graph, a, b


def test_measurements_move_ops_only_for_a_step_at_least_a_tenth_shorter():
    """Two 1 ms branches, placed together by the estimates: split when a hop costs 0.1 ms
    (1.1 ms against 2), kept together when it costs 0.9 ms (1.9 ms against 2)."""
    for latency, moves in ((0.9e-3, False), (0.1e-3, True)):
        graph, a, b = _two_small_branches()
        placer = CostPlacer(DEVICES, RATES)
        before, _ = _devices(graph, placer)
        assert before["a"] == before["b"] == DEVICES[0]
        measured = {a.op: 1e-3, b.op: 1e-3, graph.get_operation_by_name("head"): 1e-6}
        assert placer.observe(measured, (latency, None)) is moves
        after, why = _devices(graph, placer)
        assert (after["a"] != after["b"]) is moves
        assert ("kept where it was" in why["b"]) is not moves and "measured at 1.000 ms" in why["b"]


def test_after_a_move_measurements_never_move_ops_back_and_new_ops_are_placed():
    graph, a, b = _two_small_branches()
    placer = CostPlacer(DEVICES, RATES)
    placer.graph_placement(graph)
    measured = {a.op: 1e-3, b.op: 1e-3}
    assert placer.observe(measured, (0.1e-3, None))  # split: 1.1 ms against 2
    # Hops now look dear (together would be better again): noise, until proven otherwise.
    assert not placer.observe(measured, (5e-3, None))
    with graph.as_default():
        tf.sqrt(a, name="later")
    assert not placer.observe(measured, None)
    placed, _ = _devices(graph, placer)
    assert placed["a"] != placed["b"] and placed["later"] in DEVICES


def test_rounds_of_several_steps_and_clocks_that_disagree_give_no_hop():
    from daskflow.client.step_stats import Described, OpTimes, PartitionTimes
    from daskflow.runtime.plan.measured_costs import link_rates
    from daskflow.runtime.plan.partition import make_plan

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8])
        with tf.device("/job:worker/task:0"):
            made = tf.tanh(x, name="made")
        with tf.device("/job:worker/task:1"):
            took = tf.identity(made, name="took")
    plan = make_plan([took], [], [x])
    key = {op.name: part.key for op, part in plan.partition_of.items()}
    out = (OpTimes(0, 0, 1000, (Described((8,), 32),)),)
    producer = PartitionTimes(key["made"], key["made"], None, "tcp://w0", 0, [(0, 1000, 1)], out)
    rounds = PartitionTimes(
        key["made"], key["made"], None, "tcp://w0", 0, [(0, 1000, 1), (2000, 3000, 1)], out
    )
    early = PartitionTimes(key["took"], key["took"], None, "tcp://w1", 0, [(500, 600, 2)])
    later = PartitionTimes(key["took"], key["took"], None, "tcp://w1", 0, [(1500, 1600, 2), (3500, 3600, 2)])
    assert link_rates([producer, early], plan, [made.op]) == (None, None)  # started before it ended
    assert link_rates([rounds, later], plan, [made.op]) == (None, None)  # steps_per_run's rounds
    one_hop = dataclasses.replace(early, computes=[(1500, 1600, 2)])
    assert link_rates([producer, one_hop], plan, [made.op]) == (0.5e-6, None)


def test_ops_a_rewrite_took_into_others_cost_nothing_once_measured():
    from daskflow.runtime.plan.measured_costs import absorbed

    x = tf.placeholder(tf.float32, [None, 4])
    inner = tf.exp(x * 2.0)
    out = tf.tanh(inner) + 1.0  # one fused chain: mul, exp, tanh, add
    with tf.Session() as sess:
        sess.run(out, {x: np.ones((2, 4), np.float32)})
        ((_, executable, _),) = sess.runtime.signatures.values()
    assert absorbed(executable.plan) == {inner.op, inner.op.inputs[0].op, out.op.inputs[0].op}
