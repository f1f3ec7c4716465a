"""Session semantics: pruning, feeding, fetch structures, ordering, defaults, lowering."""

import collections
import subprocess
import sys

import dask
import numpy as np
import pytest

import daskflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_ops_the_fetches_do_not_need_are_not_executed():
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    x = tf.placeholder(tf.float32, [])
    doubled = x * 2.0
    with tf.Session() as sess:
        sess.run(counter.initializer)
        assert sess.run(doubled, {x: 3.0}) == 6.0
        assert sess.run(counter) == 0  # the side effect did not happen
        sess.run(bump)
        sess.run(bump)
        assert sess.run(counter) == 2


def test_feeding_an_intermediate_tensor_cuts_the_graph_above_it():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x * 2.0
    z = y + 1.0
    with tf.Session() as sess:
        # x is not fed and not needed: y is fed instead.
        np.testing.assert_allclose(sess.run(z, {y: [5.0, 6.0]}), [6.0, 7.0])
        np.testing.assert_allclose(sess.run(z, {x: [5.0]}), [11.0])


def test_fetching_a_fed_tensor_returns_the_fed_value():
    x = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(x, {x: [1.0, 2.0]}), [1.0, 2.0])


def test_nested_fetches_keep_their_structure():
    Pair = collections.namedtuple("Pair", "a b")
    a, b = tf.constant(1.0), tf.constant([2.0, 3.0])
    op = tf.no_op()
    with tf.Session() as sess:
        out = sess.run({"list": [a, (b, op)], "pair": Pair(a, b), "name": a.name})
    assert out["list"][0] == 1.0
    assert isinstance(out["list"][1], tuple) and out["list"][1][1] is None
    np.testing.assert_allclose(out["list"][1][0], [2.0, 3.0])
    assert isinstance(out["pair"], Pair) and out["pair"].a == 1.0
    assert out["name"] == 1.0


def test_control_dependencies_order_reads_after_updates():
    v = tf.Variable(1.0)
    update = tf.assign(v, 10.0)
    with tf.control_dependencies([update]):
        after = tf.identity(v)
    plain = tf.identity(v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        before, _ = sess.run([plain, update])
        assert before == 1.0  # without an edge, reads come before updates
        sess.run(v.initializer)
        assert sess.run(after) == 10.0  # the control edge orders the read after


def test_variable_updates_chain_within_a_step():
    v = tf.Variable(1.0)
    first = tf.assign_add(v, 1.0)
    with tf.control_dependencies([first]):
        second = tf.assign_add(v, 10.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(second) == 12.0
        assert sess.run(v) == 12.0


def test_fetched_variable_values_are_copies():
    v = tf.Variable(np.zeros(3, np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(v)
        got[0] = 99.0
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0, 0.0])
        c = sess.run(tf.constant([1.0, 2.0]))
        c[0] = 7.0  # writable, like a TF1 fetch


def test_eval_run_and_default_sessions():
    v = tf.Variable(2.0)
    y = v * 3.0
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        v.initializer.run()
        assert y.eval() == 6.0
        assert v.eval() == 2.0
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="default session"):
        y.eval()


def test_interactive_session_installs_itself():
    c = tf.constant(4.0)
    sess = tf.InteractiveSession()
    try:
        assert c.eval() == 4.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_plans_are_built_once_per_signature():
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(x * x)
    with tf.Session() as sess:
        for i in range(5):
            assert sess.run(y, {x: [float(i)]}) == i * i
        assert len(sess.runtime.signatures) == 1
        sess.run([y], {x: [1.0]})
        assert len(sess.runtime.signatures) == 2


def test_a_new_control_edge_invalidates_cached_plans():
    v = tf.Variable(0.0)
    bump = tf.assign_add(v, 1.0)
    read = tf.identity(v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 0.0
        read.op._add_control_input(bump.op)
        assert sess.run(read) == 1.0


def test_random_ops_are_deterministic_under_seeds():
    def draws():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(42)
            r = tf.random_normal([3], seed=7)
            u = tf.random_uniform([2])  # op seed derived from the graph seed
            with tf.Session() as sess:
                return [sess.run(r) for _ in range(2)], sess.run(u)

    (first, second), u1 = draws()
    (again, _), u2 = draws()
    np.testing.assert_array_equal(first, again)  # a new session replays the sequence
    np.testing.assert_array_equal(u1, u2)
    assert not np.array_equal(first, second)  # each run draws new numbers


def test_lower_gives_one_task_per_partition_and_dask_can_run_it():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([1.0, 2.0], name="w")
    with tf.device("/job:worker/task:0"):
        y = tf.reduce_sum(x * w)
    with tf.Session() as sess:
        sess.run(w.initializer)
        graph = sess.lower(y, {x: [3.0, 4.0]})
        tasks = [k for k, v in graph.items() if isinstance(v, dask.task_spec.Task)]
        # w is read where it is used: its value is a graph input, not a task of its own.
        assert sorted(tasks) == ["worker-0-s0"]
        assert "var-w" in graph and "feed-0" in graph
        (result,) = dask.get(graph, "worker-0-s0")
        assert result == 11.0
        assert sess.run(y, {x: [3.0, 4.0]}) == 11.0


def test_partition_stages_keep_cross_device_training_acyclic():
    """ps sends w to the worker and later applies the worker's gradient."""
    x = tf.placeholder(tf.float32, [None, 2])
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([[1.0], [2.0]], name="w")
    with tf.device("/job:worker/task:0"):
        loss = tf.reduce_mean(tf.matmul(x, w))
    with tf.device("/job:ps/task:0"):
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(w.initializer)
        keys = sorted(k for k, v in sess.lower(train, {x: [[1.0, 1.0]]}).items() if hasattr(v, "func"))
        # The worker's step in s0; the ps's update in s1, with its own constants (the
        # learning rate, needing nothing from the worker) merged into it.
        assert keys == ["ps-0-s1", "worker-0-s0"]
        sess.run(train, {x: [[1.0, 1.0]]})
        np.testing.assert_allclose(sess.run(w), [[0.5], [1.5]])


def _plan_keys(*fetches):
    from daskflow.runtime.plan.partition import make_plan

    return sorted(p.key for p in make_plan(list(fetches), [], []).partitions)


def test_a_stage_that_only_a_later_stage_of_its_device_reads_runs_with_it():
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.arange(6.0).reshape(2, 3), name="w")
        scaled = tf.constant(np.ones((4, 3))) * 2.0
    with tf.device("/job:worker/task:0"):
        wt = tf.transpose(w)  # needs only a variable: stage 0 of the worker
        y = tf.matmul(scaled, wt)  # needs the ps's value: stage 1
    assert _plan_keys(y) == ["ps-0-s0", "worker-0-s1"]  # the transpose runs in stage 1
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(y), np.full((4, 3), 2.0) @ np.arange(6.0).reshape(2, 3).T)


def test_a_stage_another_device_also_reads_stays_apart():
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.arange(6.0).reshape(2, 3), name="w")
        scaled = tf.constant(np.ones((4, 3))) * 2.0
    with tf.device("/job:worker/task:0"):
        wt = tf.transpose(w)
        y = tf.matmul(scaled, wt)
    with tf.device("/job:ps/task:0"):
        z = tf.reduce_sum(wt)  # the ps reads stage 0 too: merging would make it wait for y's input
    assert _plan_keys(y, z) == ["ps-0-s0", "ps-0-s1", "worker-0-s0", "worker-0-s1"]
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(z) == 15.0


def test_a_folded_constant_made_on_another_device_adds_no_stage():
    """A reader holds a folded constant in its program: it waits for nothing from the
    constant's device, so it runs in the first stage, while the other devices do."""
    two = tf.constant(2.0, name="two")  # no device
    x = tf.placeholder(tf.float32, [2])
    with tf.device("/job:worker/task:0"):
        a = tf.reduce_sum(x, name="a")
    with tf.device("/job:worker/task:1"):
        b = tf.reduce_sum(two * x, name="b")  # needs nothing computed elsewhere: stage 0
        head = a + b  # needs worker 0's a: stage 1
    with tf.device("/job:ps/task:0"):
        z = b * 3.0  # reads worker 1's stage 0, which therefore stays a task of its own
    with tf.Session() as sess:
        keys = sorted(k for k, v in sess.lower([head, z], {x: [1.0, 2.0]}).items() if hasattr(v, "func"))
        assert sess.run([head, z], {x: [1.0, 2.0]}) == [9.0, 18.0]
    assert keys == ["ps-0-s1", "worker-0-s0", "worker-1-s0", "worker-1-s1"]


def test_an_input_pipeline_outside_the_replicas_scope_runs_in_each_replicas_task():
    data = tf.constant(np.ones((4, 3))) * 2.0  # no device: the input, built outside the scope
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.ones((3, 2)), name="w")
    with tf.device("/job:worker"):  # replicas (what replica_device_setter gives compute)
        y = tf.matmul(data, w)
    assert _plan_keys(y) == ["worker-s1"]  # one task per replica, not two
    with tf.device("/job:worker/task:0"):  # one worker task, no replicas: a task of its own
        z = tf.matmul(data, w)
    assert _plan_keys(z) == ["local-s0", "worker-0-s1"]


def test_placement_and_log_device_placement(capsys):
    with tf.device("/gpu:0"):
        y = tf.constant(1.0) + 1.0
    with tf.Session(config=tf.ConfigProto(log_device_placement=True, allow_soft_placement=True)) as sess:
        assert sess.run(y) == 2.0
        assert sess.placement(y)[y.op.name].device == "/device:GPU:0"
    assert y.op.name in capsys.readouterr().out


@pytest.mark.process
def test_building_graphs_imports_no_dask():
    code = (
        "import sys, daskflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 3])\n"
        "w = tf.Variable(tf.zeros([3, 2]))\n"
        "loss = tf.reduce_mean(tf.nn.softmax(tf.matmul(x, w)))\n"
        "tf.train.AdamOptimizer().minimize(loss)\n"
        "assert not [m for m in sys.modules if m == 'dask' or m.startswith('dask.')], 'dask imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_buffer_donation_never_corrupts_values_someone_reads():
    """An update may write into its dead delta; a fetched or shared delta is left alone."""
    v = tf.Variable(np.ones(4, np.float32))
    p = tf.placeholder(tf.float32, [4])
    delta = p * 2.0
    update = tf.assign_sub(v, delta)  # delta is also fetched below: not donatable
    fed = tf.assign_add(v, p)  # a feed is never donated
    with tf.Session() as sess:
        sess.run(v.initializer)
        feed = np.full(4, 0.5, np.float32)
        got_delta, _ = sess.run([delta, update], {p: feed})
        np.testing.assert_array_equal(got_delta, np.ones(4))
        np.testing.assert_array_equal(sess.run(v), np.zeros(4))
        sess.run(fed, {p: feed})
        np.testing.assert_array_equal(feed, np.full(4, 0.5))
        np.testing.assert_array_equal(sess.run(v), np.full(4, 0.5))
        sess.run(update, {p: feed})  # the donating path: delta is dead after the update
        np.testing.assert_array_equal(sess.run(v), np.full(4, -0.5))


def test_a_control_dependency_on_a_fed_placeholder_is_met_by_the_feed():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        with tf.control_dependencies([x]):
            y = tf.constant(1.0) + 1
        with tf.Session() as sess:
            assert sess.run(y, {x: [1.0, 2.0]}) == 2.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="must feed"):
                sess.run(y)


def test_an_intermediate_is_freed_once_its_last_reader_ran():
    """A step's values go back to the allocator as soon as nothing later reads them, as
    TF1's tensors do, not when the step ends: the next value of that size reuses them."""
    import weakref

    seen = {}

    def keep_a_weak_reference(value):
        seen["product"] = weakref.ref(value)
        return value + 1.0

    def is_the_product_gone(value):
        return np.float32(seen["product"]() is None)

    x = tf.placeholder(tf.float32, [3])
    product = x * 2.0  # read by the first py_func only
    plus_one = tf.py_func(keep_a_weak_reference, [product], tf.float32)
    gone = tf.py_func(is_the_product_gone, [plus_one], tf.float32)
    with tf.Session() as sess:
        assert sess.run(gone, {x: np.ones(3, np.float32)}) == 1.0
        assert sess.run([gone, product], {x: np.ones(3, np.float32)})[0] == 0.0  # fetched: kept


def test_partition_keys_tell_devices_apart_and_two_names_of_one_place_are_one():
    """``/cpu:0`` is not "no device" (only the latter runs in every replica): partitions of
    their own, once two that shared a key; ``/job:w/task:0`` and
    ``/job:w/replica:0/task:0`` are one place: one partition."""
    i = tf.placeholder(tf.int32, [None])
    x = tf.placeholder(tf.float32, [None])
    with tf.device("/cpu:0"):
        y = tf.exp(x)
    z = tf.tanh(y)
    with tf.device("/job:worker/task:0"):
        a = tf.reduce_sum(z)
    with tf.device("/job:worker/replica:0/task:0"):
        b = a * 2.0
    from daskflow.runtime.plan.partition import make_plan

    plan = make_plan([i * 3, z, b], [], [i, x])
    keys = sorted(p.key for p in plan.partitions)
    assert keys == ["local-cpu0-s0", "local-s0", "local-s1", "worker-0-s2"]
    with tf.Session() as sess:
        got = sess.run([i * 3, z], {i: np.arange(3, dtype=np.int32), x: np.zeros(3, np.float32)})
    np.testing.assert_array_equal(got[0], [0, 3, 6])
    np.testing.assert_array_equal(got[1], np.tanh(np.ones(3, np.float32)))
