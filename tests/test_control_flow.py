"""tf.cond, tf.case and tf.while_loop: values and gradients against TF1's own
(``tests/fixtures/make_control_flow.py`` ran TF1's control flow and stored
``control_flow.json``), errors, and a loop on a cluster worker."""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_control_flow as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "control_flow.json").read_text())


def _close(mine, theirs):
    if isinstance(theirs, dict):
        assert mine.keys() == theirs.keys()
        for k in theirs:
            _close(mine[k], theirs[k])
    elif isinstance(theirs, list) and any(isinstance(t, (list, dict)) for t in theirs):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            _close(a, b)
    else:
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_cond_and_case_values_and_gradients_match_tf1():
    _close(sc.cond_values(tf), TF1["cond"])


def test_cond_branches_that_assign_variables_match_tf1():
    """Assignments in the branch taken (returned, grouped as an op, as control dependencies,
    nested, scatter updates, in a differentiated loss) change the variables as TF1's do; the
    branch not taken leaves them."""
    _close(sc.cond_updates(tf), TF1["cond_updates"])


def test_a_branch_assigning_what_is_no_variable_is_refused_naming_it_and_nothing_changes():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="kept")
        p = tf.placeholder(tf.bool, [])
        total = tf.add(v, 1.0, name="total")
        with pytest.raises(TypeError, match="total:0 is not a variable"):
            tf.cond(p, lambda: tf.assign(total, 5.0), lambda: total)
        x = tf.placeholder(tf.float32, [None], name="x")
        w = tf.Variable([1.0, 2.0], name="w")
        both = tf.cond(p, lambda: tf.group(v.assign(7.0), w.assign(x, name="set_w")), lambda: tf.no_op())
        with tf.Session() as sess:
            sess.run([v.initializer, w.initializer])
            shapes = "set_w .*shape \\(3,\\).*shape \\(2,\\)"
            with pytest.raises(tf.errors.InvalidArgumentError, match=shapes):
                sess.run(both, {p: True, x: [1.0, 2.0, 3.0]})  # the branch fails: nothing written back
            assert sess.run(v) == 1.0 and list(sess.run(w)) == [1.0, 2.0]


def test_while_loop_values_and_gradients_match_tf1():
    _close(sc.while_values(tf), TF1["while"])


def test_errors_match_tf1_where_tf1_raises():
    got, theirs = sc.errors(tf), TF1["errors"]
    # TF1 builds a body that returns int32 for a float32 loop variable (and fails
    # at run time); daskflow refuses it when the loop is built.
    assert got[1] == "TypeError" and theirs[1] == "no error"
    assert got[:1] + got[2:] == theirs[:1] + theirs[2:]


def test_shape_error_names_the_loop_variable():
    x = tf.placeholder(tf.float32, [2], name="state")
    with pytest.raises(ValueError, match="state:0 has shape \\(2,\\) before the loop"):
        tf.while_loop(lambda v: tf.reduce_sum(v) < 3, lambda v: tf.concat([v, v], 0), [x])


def test_assigning_a_variable_inside_a_loop_is_refused_naming_the_op():
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="counter")
        with pytest.raises(TypeError, match="bump .*the variable counter is assigned inside a tf.while_loop"):
            tf.while_loop(lambda i: i < 3, lambda i: i + tf.assign_add(v, 1.0, name="bump"), [0.0])


def test_a_body_asking_for_another_device_is_refused():
    with tf.Graph().as_default():

        def body(i):
            with tf.device("/job:ps/task:0"):
                return i + 1

        loop = tf.while_loop(lambda i: i < 3, body, [0])
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="spanning devices"):
                sess.run(loop)


def test_a_variable_made_in_a_loop_body_lives_in_the_outer_graph():
    with tf.Graph().as_default() as g:

        def body(i, h):
            with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
                w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
            return i + 1, h * w

        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, tf.constant(1.0)])
        assert [v.name for v in tf.global_variables()] == ["cell/w:0"]
        assert g.get_operation_by_name("cell/w").graph is g
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(h) == 8.0


@pytest.mark.process
def test_a_loop_runs_inside_one_task_on_a_cluster():
    # Worker processes: the loop's function graphs travel to the worker with its program.
    with tf.local_cluster(ps=1, workers=2, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable(1.5)
            with tf.device("/job:worker/task:0"):
                _, out = tf.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, v * w + 1.0), [0, 0.0])
                (gw,) = tf.gradients(out, [w])
                _, out2 = tf.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, v * w + 2.0), [0, 0.0])
            with tf.device("/job:worker/task:1"):  # its history crosses from worker-0
                (gw2,) = tf.gradients(out2, [w])
            with tf.Session(cluster) as sess:
                sess.run(w.initializer)
                value, grad, grad2 = sess.run([out, gw, gw2])
                placed = sess.placement([out, gw, gw2])
    assert value == pytest.approx(1.5**2 + 1.5 + 1)
    assert grad == pytest.approx(2 * 1.5 + 1) and grad2 == pytest.approx(2 * (2 * 1.5 + 1))
    # The loop and its gradient are one op each on a worker, whatever the iteration count.
    loops = {name: where.worker for name, where in placed.items() if name.endswith(("While", "WhileGrad"))}
    assert sorted(loops.values()) == ["worker-0", "worker-0", "worker-0", "worker-1"], loops


@pytest.mark.process
def test_a_cond_on_a_worker_writes_back_to_a_variable_on_the_ps():
    with tf.local_cluster(ps=1, workers=1, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                count = tf.Variable(0.0, name="count")
            p = tf.placeholder(tf.bool, [])
            with tf.device("/job:worker/task:0"):
                seen = tf.cond(p, lambda: count.assign_add(1.0), lambda: count * 10.0)
            with tf.Session(cluster) as sess:
                sess.run(count.initializer)
                got = [sess.run(seen, {p: flag}) for flag in (True, True, False, True)]
                placed = sess.placement(seen, {p: True})
                final = sess.run(count)
    assert got == [1.0, 2.0, 20.0, 3.0] and final == 3.0
    writes = {where.worker for name, where in placed.items() if "write_back" in name}
    assert writes == {"ps-0"}, placed


def _counting(body_calls):
    def count(v):
        body_calls.append(1)
        return v

    return count


def test_the_gradient_reads_the_forward_loops_history_and_runs_no_body_again():
    # TF1 keeps each iteration's forward values on stacks: the body runs once per iteration
    # in a training step, and its random values are those the forward pass drew.
    calls = []
    x = tf.placeholder(tf.float32, [4])
    w = tf.Variable(np.ones(4, np.float32))

    def body(k, v, drawn):
        r = tf.random_uniform([4], 0.5, 1.5, seed=3)
        k = tf.py_func(_counting(calls), [k], tf.int32)  # off the gradient's path
        k.set_shape([])
        return k + 1, v * w + x * r, drawn + r

    _, y, drawn = tf.while_loop(lambda k, v, d: k < 5, body, [0, x, tf.zeros([4])])
    (gx,) = tf.gradients(tf.reduce_sum(y), [x])
    with tf.Session() as sess:
        sess.run(w.initializer)
        feed = {x: np.arange(4, dtype=np.float32) / 4}
        sess.run(y, feed)  # forward only
        assert len(calls) == 5
        calls.clear()
        r_sum, gx_value = sess.run([drawn, gx], feed)
        assert len(calls) == 5  # a second forward pass would make it 10
    # With w = 1, y = x (1 + r_1 + ... + r_5): its gradient holds the forward pass's draws.
    np.testing.assert_allclose(gx_value, 1 + r_sum, rtol=1e-6)


def test_a_step_without_the_gradient_keeps_no_history(monkeypatch):
    from daskflow.ops import functional_ops

    kept = []
    history = functional_ops._History
    monkeypatch.setattr(functional_ops, "_History", lambda steps: kept.append(steps) or history(steps))
    x = tf.placeholder(tf.float32, [3])
    _, y = tf.while_loop(lambda k, v: k < 4, lambda k, v: (k + 1, tf.sin(v)), [0, x])
    (gx,) = tf.gradients(y, [x])
    with tf.Session() as sess:
        sess.run(y, {x: np.ones(3)})  # evaluation: the gradient does not run
        assert kept == []
        sess.run(gx, {x: np.ones(3)})
        assert len(kept) == 1 and len(kept[0]) == 4  # one entry per iteration


def test_a_loops_invariant_steps_run_once_per_loop_and_its_draws_each_iteration(monkeypatch):
    # Loop-invariant code motion: the transpose of a captured weight runs once per run of
    # the loop (and of its gradient), not once per iteration; a random op draws every time.
    from daskflow.ops import core_array_ops

    transposes = []  # whether each transpose run was of the weight (or its transpose)
    w0 = np.eye(3, dtype=np.float32) * 0.5 + np.arange(9, dtype=np.float32).reshape(3, 3) / 20
    kernel = core_array_ops.Transpose.kernel

    def counting(xp, value, *args, **kwargs):
        transposes.append(np.array_equal(value, w0) or np.array_equal(value, w0.T))
        return kernel(xp, value, *args, **kwargs)

    monkeypatch.setattr(core_array_ops.Transpose, "kernel", counting)
    w = tf.Variable(w0)
    x = tf.placeholder(tf.float32, [2, 3])

    def body(i, v, draws):
        r = tf.random_uniform([])
        return i + 1, tf.tanh(tf.matmul(v, tf.transpose(w))) + x, draws.write(i, r)

    draws = tf.TensorArray(tf.float32, size=6)
    _, y, draws = tf.while_loop(lambda i, v, d: i < 6, body, [0, x, draws])
    (gw,) = tf.gradients(tf.reduce_sum(y), [w])
    with tf.Session() as sess:
        sess.run(w.initializer)
        feed = {x: np.arange(6, dtype=np.float32).reshape(2, 3) / 6}
        transposes.clear()
        values, drawn = sess.run([y, draws.stack()], feed)
        assert transposes == [True] and len(set(drawn.tolist())) == 6
        transposes.clear()
        grad = sess.run(gw, feed)
        # The forward's transpose of w, and the gradient program's of w and of w.T: once each.
        assert sum(transposes) == 3, transposes
    # The weights' gradient against central differences of the same loop.
    w0, xv = w0.astype(np.float64), feed[x].astype(np.float64)

    def loss(wv):
        v = xv
        for _ in range(6):
            v = np.tanh(v @ wv.T) + xv
        return v.sum()

    eps, numeric = 1e-4, np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            d = np.zeros((3, 3))
            d[i, j] = eps
            numeric[i, j] = (loss(w0 + d) - loss(w0 - d)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-3, atol=1e-4)


def test_a_loop_that_never_iterates_runs_none_of_its_invariant_steps():
    x = tf.placeholder(tf.float32, [None])
    n = tf.placeholder(tf.int32, [])
    body = lambda i, v: (i + 1, v + tf.reshape(x, [2, 2])[0, 0])  # noqa: E731 - fails on 3 values
    _, y = tf.while_loop(lambda i, v: i < n, body, [0, 1.0])
    with tf.Session() as sess:
        assert sess.run(y, {x: [1, 2, 3], n: 0}) == 1.0  # as TF1: the body never ran
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.run(y, {x: [1, 2, 3], n: 1})


def test_two_updates_of_one_variable_in_a_branch_are_refused_naming_both():
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="count")
        p = tf.placeholder(tf.bool, [])
        twice = "second updates the variable count, which first updates"
        with pytest.raises(NotImplementedError, match=twice):
            tf.cond(
                p,
                lambda: tf.group(v.assign_add(1.0, name="first"), v.assign_add(2.0, name="second")),
                tf.no_op,
            )


def test_a_loop_body_may_depend_on_its_own_loop_variable():
    def body(i, total):
        with tf.control_dependencies([i]):
            return i + 1, total + 1.0

    with tf.Graph().as_default(), tf.Session() as sess:
        assert list(sess.run(tf.while_loop(lambda i, t: i < 3, body, [0, 0.0]))) == [3, 3.0]
