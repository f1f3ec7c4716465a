"""Clip, sort, linalg, segment, check and script ops.

Values and gradients against TF1's own (``tests/fixtures/make_more_ops.py``
stored ``more_ops.json``); run-time checks, printing, ``py_func`` on a
cluster, variable scatters and bad input here.
"""

import json
import pathlib
import sys
import types

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError
from daskflow.ops import check_ops, clip_ops, linalg_ops, script_ops, segment_ops, sort_ops

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_more_ops as sc  # noqa: E402

OPS = types.SimpleNamespace(
    **{
        n: getattr(m, n)
        for m in (clip_ops, sort_ops, linalg_ops, segment_ops, check_ops)
        for n in sc.NAMES
        if hasattr(m, n)
    }
)
TF1 = json.loads((FIXTURES / "more_ops.json").read_text())["values"]


@pytest.fixture(scope="module")
def mine():
    return sc.values(tf, OPS)


def test_every_name_is_provided():
    assert sorted(vars(OPS)) == sorted(sc.NAMES)


@pytest.mark.parametrize("key", sorted(TF1))
def test_op_matches_tf1(mine, key):
    (dtype, value), (t_dtype, t_value) = mine[key], TF1[key]
    assert dtype == t_dtype, key
    np.testing.assert_allclose(
        np.asarray(value, dtype=dtype), np.asarray(t_value, dtype=dtype), rtol=2e-5, atol=2e-5
    )


# -- run-time checks and printing ------------------------------------------------------------------


def test_failed_assert_fails_the_run_with_message_and_data():
    x = tf.placeholder(tf.float32, name="xs")
    check = check_ops.assert_positive(x, message="need positive")
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        with pytest.raises(InvalidArgumentError, match=r"need positive.*x > 0.*xs:0.*\[1 -2\]"):
            sess.run(y, {x: [1.0, -2.0]})


def test_assert_op_is_kept_when_only_a_control_input():
    with tf.Graph().as_default():
        flag = tf.placeholder_with_default(tf.constant(False), [], name="flag")
        check = check_ops.Assert(flag, ["flag is off", tf.constant([7, 8])])
        with tf.control_dependencies([check]):
            out = tf.constant(1.0) + 1.0
        with tf.Session() as sess:
            with pytest.raises(InvalidArgumentError, match=r"flag is off\] \[7 8\]"):
                sess.run(out)
            assert sess.run(out, {flag: True}) == 2.0
        # All-constant inputs: still run (stateful ops are never folded away at plan time).
        with tf.control_dependencies([check_ops.Assert(tf.constant(False), ["always fails"])]):
            folded = tf.constant(2.0) * 3.0
        with tf.Session() as sess, pytest.raises(InvalidArgumentError, match="always fails"):
            sess.run(folded)


@pytest.mark.parametrize(
    ("check", "error", "pattern"),
    [
        (
            lambda: check_ops.assert_equal(tf.constant([1, 2], name="a"), tf.constant([1, 3], name="b")),
            ValueError,
            "a:0",
        ),
        (lambda: check_ops.assert_negative(tf.constant([1.0], name="pos")), ValueError, "pos:0"),
        (lambda: check_ops.assert_rank(tf.zeros([2, 3], name="m"), 3), ValueError, "m:0 must have rank 3"),
        (
            lambda: check_ops.assert_rank_at_least(tf.zeros([2], name="v"), 2),
            ValueError,
            "v:0 must have at least",
        ),
        (
            lambda: check_ops.assert_type(tf.zeros([2], name="f"), tf.int32),
            TypeError,
            "f:0 must be of type int32",
        ),
        (lambda: check_ops.assert_integer(tf.zeros([2], name="f")), TypeError, "f:0"),
        (lambda: check_ops.assert_scalar(tf.zeros([2], name="vec")), ValueError, "vec:0"),
        (lambda: check_ops.Assert(tf.constant(1.0, name="c"), ["x"]), TypeError, "c:0 must be a bool"),
    ],
)
def test_static_checks_raise_when_built_naming_the_tensor(check, error, pattern):
    with tf.Graph().as_default(), pytest.raises(error, match=pattern):
        check()


def test_passing_static_checks_and_unknown_rank():
    with tf.Graph().as_default():
        assert check_ops.assert_rank(tf.zeros([2, 3]), 2).type == "NoOp"
        assert check_ops.assert_less(tf.constant([1]), tf.constant([2])).type == "NoOp"
        s = tf.constant(3.0)
        assert check_ops.assert_scalar(s) is s
        x = tf.placeholder(tf.float32, name="anyrank")
        check = check_ops.assert_rank(x, 2)
        with tf.Session() as sess:
            sess.run(check, {x: np.zeros((2, 2))})
            with pytest.raises(InvalidArgumentError, match="anyrank:0 must have rank"):
                sess.run(check, {x: np.zeros(3)})


def test_print_passes_input_through_and_prints_first_n(capfd):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        y = check_ops.Print(x, [x, "tail"], "x is: ", first_n=2, summarize=2) * 2.0
        with tf.Session() as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.5, 3.0]}), [2.0, 5.0, 6.0])
    err = capfd.readouterr().err
    assert err.count("x is: [1 2.5...][tail]") == 2


def test_tf_print_is_an_op_printing_to_the_stream(capfd):
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3])
        op = check_ops.print_("x =", x, output_stream=sys.stdout)
        assert op.type == "PrintV2"
        with tf.Session() as sess:
            sess.run(op)
    assert "x = [1 2 3]" in capfd.readouterr().out
    with pytest.raises(ValueError, match="output_stream"):
        check_ops.print_("x", output_stream="file:///tmp/x")


# -- py_func --------------------------------------------------------------------------------------


def test_py_func_converts_to_tout_and_has_unknown_shape():
    with tf.Graph().as_default():
        x = tf.constant([3.0, 1.0, 2.0])
        y = script_ops.py_func(lambda a: np.sort(a), [x], tf.float32)
        both = script_ops.numpy_function(
            lambda a: (a.argmax(), a * 2), [x], [tf.int32, tf.float64], stateful=False
        )
        assert y.shape.ndims is None and y.dtype is tf.float32
        y.set_shape([3])
        with tf.Session() as sess:
            got, (i, doubled) = sess.run([y + 1.0, both])
    np.testing.assert_array_equal(got, [2.0, 3.0, 4.0])
    assert i.dtype == np.int32 and i == 0 and doubled.dtype == np.float64
    assert [op.type for op in (y.op, both[0].op)] == ["PyFunc", "PyFuncStateless"]


def test_py_func_errors_name_the_function():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="callable"):
            script_ops.py_func(3, [], tf.float32)

        def two_values(a):
            return a, a

        y = script_ops.py_func(two_values, [tf.constant(1.0)], tf.float32)
        with tf.Session() as sess, pytest.raises(InvalidArgumentError, match="two_values returned 2 values"):
            sess.run(y)


def test_py_func_runs_on_a_worker():
    offset = 10.0  # a closure: cloudpickle carries it to the worker
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        y = script_ops.py_func(lambda a: a + offset, [x], tf.float64)
        with tf.local_cluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
            with tf.Session(cluster) as sess:
                np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [11.0, 12.0, 13.0])


# -- variables, sort, linalg, segments: semantics and bad input -------------------------------------


def test_scatter_update_and_add_change_the_variable():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2)), name="table")
        up = segment_ops.scatter_update(v, [2, 0], [[1.0, 2.0], [3.0, 4.0]])
        add = segment_ops.scatter_add(v, [1, 1], np.ones((2, 2)))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(up)
            np.testing.assert_array_equal(sess.run(add), [[3, 4], [2, 2], [1, 2]])
            np.testing.assert_array_equal(sess.run(v), [[3, 4], [2, 2], [1, 2]])
            with pytest.raises(InvalidArgumentError, match="out of range"):
                sess.run(segment_ops.scatter_update(v, [3], [[0.0, 0.0]]))
        with pytest.raises(TypeError, match="not a variable"):
            segment_ops.scatter_add(tf.zeros([3, 2], tf.float64), [0], [[1.0, 1.0]])
        with pytest.raises(ValueError, match="table"):
            segment_ops.scatter_update(v, [0, 1], [[1.0, 2.0]])


def test_clip_by_global_norm_with_inf_gives_nan_and_refuses_non_lists():
    with tf.Graph().as_default():
        clipped, norm = clip_ops.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
        with tf.Session() as sess, np.errstate(invalid="ignore"):  # inf - inf, on purpose
            values, n = sess.run([clipped[0], norm])
        assert np.isinf(n) and np.isnan(values).all()
        with pytest.raises(TypeError, match="t_list should be a sequence"):
            clip_ops.clip_by_global_norm(tf.constant([1.0]), 1.0)
        with pytest.raises(ValueError, match="no tensors"):
            clip_ops.global_norm([None])


def test_bad_input_names_the_culprit():
    with tf.Graph().as_default():
        short = tf.zeros([2, 3], name="short")
        with pytest.raises(ValueError, match="short:0.*k=4"):
            sort_ops.top_k(short, 4)
        with pytest.raises(ValueError, match="direction"):
            sort_ops.sort(short, direction="UP")
        with pytest.raises(ValueError, match="targets"):
            sort_ops.in_top_k(short, tf.zeros([2, 1], tf.int32, name="targets"), 1)
        with pytest.raises(ValueError, match="short:0 must be a batch of square"):
            linalg_ops.matrix_inverse(short)
        with pytest.raises(TypeError, match="floating"):
            linalg_ops.matrix_determinant(tf.zeros([2, 2], tf.int32))
        with pytest.raises(ValueError, match="'j' is 3 in short:0 but 2 in"):
            linalg_ops.einsum("ij,jk->ik", short, tf.zeros([2, 3]))
        with pytest.raises(ValueError, match="2 operands"):
            linalg_ops.einsum("ij,jk->ik", short)
        with pytest.raises(ValueError, match="matrix norm"):
            linalg_ops.norm(short, ord=2, axis=[0, 1])
        with pytest.raises(ValueError, match="vector norm"):
            linalg_ops.norm(short, ord="fro", axis=1)
        with pytest.raises(ValueError, match="diag_part.*short:0"):
            linalg_ops.diag_part(short)
        with pytest.raises(ValueError, match="tensordot"):
            linalg_ops.tensordot(short, short, [[0], [0, 1]])
        with pytest.raises(ValueError, match="segment_ids ids:0"):
            segment_ops.unsorted_segment_sum(short, tf.constant([0, 1, 2], name="ids"), 3)
        with pytest.raises(TypeError, match="indices idx:0 must be integers"):
            segment_ops.gather_nd(short, tf.constant([[0.0, 1.0]], name="idx"))
        with pytest.raises(ValueError, match="index depth 3"):
            segment_ops.gather_nd(short, tf.constant([[0, 1, 0]]))
        with pytest.raises(ValueError, match="updates up:0"):
            segment_ops.scatter_nd([[0]], tf.zeros([2, 3], name="up"), [4, 3])
        with pytest.raises(TypeError, match="floating-point"):
            check_ops.is_nan(tf.constant([1]))


def test_run_time_bad_values_fail_naming_the_op():
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int32)
        total = segment_ops.unsorted_segment_sum(tf.ones([3]), ids, 2, name="sums")
        sorted_sum = segment_ops.segment_sum(tf.ones([3]), ids, name="sorted_sums")
        picked = segment_ops.gather_nd(tf.ones([2, 2]), tf.reshape(ids, [-1, 2]), name="pick")
        inverse = linalg_ops.matrix_inverse(tf.zeros([2, 2]), name="inv")
        k = tf.placeholder(tf.int32)
        top = sort_ops.top_k(tf.ones([2, 3]), k)[0]
        with tf.Session() as sess:
            with pytest.raises(InvalidArgumentError, match=r"sums.*segment_ids\[2\] = 5"):
                sess.run(total, {ids: [0, 1, 5]})
            with pytest.raises(InvalidArgumentError, match="sorted_sums.*not increasing"):
                sess.run(sorted_sum, {ids: [1, 0, 0]})
            with pytest.raises(InvalidArgumentError, match=r"pick.*\[0, 2\]"):
                sess.run(picked, {ids: [0, 2]})
            with pytest.raises(InvalidArgumentError, match="inv.*not invertible"):
                sess.run(inverse)
            with pytest.raises(InvalidArgumentError, match="k=4"):
                sess.run(top, {k: 4})


def test_einsum_gradient_refuses_what_it_does_not_support():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 3])
        with pytest.raises(NotImplementedError, match="'ii->i'"):
            tf.gradients(linalg_ops.einsum("ii->i", x), x)
        with pytest.raises(NotImplementedError, match="ellipsis"):
            linalg_ops.einsum("...i", x)


def test_matrix_band_part_needs_static_bands():
    with tf.Graph().as_default(), pytest.raises(NotImplementedError, match="num_lower"):
        linalg_ops.matrix_band_part(tf.zeros([2, 2]), tf.placeholder(tf.int64, []), 0)
