"""SparseTensor, its session conversions and the sparse ops, against TF1.

``tests/fixtures/make_sparse.py`` ran ``scenarios_sparse.py`` under TF1 and
stored ``sparse.json`` (values, static shapes, dtypes, error types); the
same scenarios run here under daskflow. The session's feeds, fetches, names
and errors are checked against what TF1 printed for the same calls.
"""

import collections
import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
from daskflow.runtime.plan import conversions

HERE = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(HERE))
import scenarios_sparse as sc  # noqa: E402

ORACLE = json.loads((HERE / "sparse.json").read_text())["values"]
OURS = sc.values(tf)


def _close(got, want, where):
    if isinstance(want, dict):
        assert set(got) == set(want), where
        for k in want:
            _close(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and want and isinstance(want[0], str):
        assert got == want, where
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6, err_msg=where)


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_scenario_matches_tf1(name):
    want, got = ORACLE[name], OURS[name]
    for w, g in zip(want if isinstance(want, list) else [want], got if isinstance(got, list) else [got]):
        if "error" in w:
            assert g == w, name
            continue
        assert "error" not in g, f"{name}: {g}"
        assert (g["shape"], g["dtype"]) == (w["shape"], w["dtype"]), name
        _close(g["value"], w["value"], name)


def test_sparse_tensor_parts_names_and_static_shape():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        # TF1: SparseTensor/indices:0 (2, 2) int64, values (2,) float32, op SparseTensor/values
        assert (st.indices.name, st.values.name, st.dense_shape.name) == (
            "SparseTensor/indices:0",
            "SparseTensor/values:0",
            "SparseTensor/dense_shape:0",
        )
        assert st.indices.dtype is tf.int64 and st.dense_shape.dtype is tf.int64
        assert st.dtype is tf.float32 and st.shape.as_list() == [3, 4]
        assert st.op.name == "SparseTensor/values" and st.graph is tf.get_default_graph()
        assert isinstance(tf.sparse.SparseTensor([[0]], [1], [2]), tf.SparseTensor)


def test_sparse_placeholder_names_and_shapes_as_tf1():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        named = tf.sparse_placeholder(tf.float32, shape=[None, 3], name="sp2")
        full = tf.sparse_placeholder(tf.float32, shape=[2, 3], name="sp3")
    # TF1 printed: Placeholder_2:0 (?, ?), Placeholder_1:0 (?,), Placeholder:0 (?,), shape <unknown>
    assert (sp.indices.name, sp.values.name, sp.dense_shape.name) == (
        "Placeholder_2:0",
        "Placeholder_1:0",
        "Placeholder:0",
    )
    assert sp.shape.ndims is None and sp.indices.shape.as_list() == [None, None]
    assert (named.indices.name, named.values.name, named.dense_shape.name) == (
        "sp2/indices:0",
        "sp2/values:0",
        "sp2/shape:0",
    )
    assert named.shape.as_list() == [None, 3] and named.indices.shape.as_list() == [None, 2]
    assert full.shape.as_list() == [2, 3]


def test_fetch_gives_a_sparse_tensor_value_nested_too():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        with tf.Session() as sess:
            value = sess.run(st)
            both = sess.run({"s": st, "v": [st.values]})
            assert st.eval(session=sess).dense_shape.tolist() == [3, 4]
    assert isinstance(value, tf.SparseTensorValue)
    assert value.indices.tolist() == [[0, 0], [1, 2]] and value.indices.dtype == np.int64
    assert value.values.tolist() == [1.0, 2.0] and value.dense_shape.tolist() == [3, 4]
    assert isinstance(both["s"], tf.SparseTensorValue) and both["v"][0].tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "fed",
    [
        tf.SparseTensorValue([[0, 1]], [5.0], [2, 2]),
        ([[0, 1]], [5.0], [2, 2]),
        (np.array([[0, 1]]), np.array([5.0]), np.array([2, 2])),
    ],
)
def test_feeding_a_sparse_placeholder(fed):
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        dense = tf.sparse_tensor_to_dense(sp)
        with tf.Session() as sess:
            got, back = sess.run([dense, sp], {sp: fed})
    assert got.tolist() == [[0.0, 5.0], [0.0, 0.0]]
    assert back.values.dtype == np.float32 and back.indices.tolist() == [[0, 1]]


@pytest.mark.parametrize("bad, shape", [(np.ones((2, 2)), r"\(2,\)"), ([1.0, 2.0, 3.0], r"\(\)")])
def test_feeding_a_dense_value_to_a_sparse_placeholder_fails_as_tf1(bad, shape):
    # TF1: ValueError: Cannot feed value of shape (2,) for Tensor Placeholder_2:0, which has shape (?, ?)
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        with (
            tf.Session() as sess,
            pytest.raises(ValueError, match=rf"shape {shape} for Tensor Placeholder_2:0"),
        ):
            sess.run(tf.sparse_tensor_to_dense(sp), {sp: bad})


def test_sparse_key_inside_a_tuple_key_is_flattened_as_tf1():
    # TF1's flatten_dict_items flattens the value's inner triple and its lists too:
    # 2 keys, 6 values (TF1's own count).
    with tf.Graph().as_default():
        sp, x = tf.sparse_placeholder(tf.float32), tf.placeholder(tf.float32, [])
        with tf.Session() as sess, pytest.raises(ValueError, match="Key had 2 elements, but value had 6"):
            sess.run(x, {(sp, x): (([[0, 0]], [1.0], [2, 2]), 4.0)})


def test_convert_to_tensor_refuses_a_sparse_tensor_as_tf1():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
        with pytest.raises(TypeError, match=r"Failed to convert elements of SparseTensor\(indices="):
            tf.convert_to_tensor(st)


def test_sparse_tensor_parts_must_agree():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="SparseTensor/values"):
            tf.SparseTensor([[0, 0]], [1.0, 2.0], [2, 2])
        with pytest.raises(TypeError, match="expected a SparseTensor"):
            tf.sparse_tensor_to_dense(tf.ones([2, 2]))


Pair = collections.namedtuple("Pair", "a b")


class PairOfTensors:
    """A composite of two tensors, registered the way TF1's users register one."""

    def __init__(self, a, b):
        self.a, self.b = a, b


def test_registered_conversion_fetches_and_feeds_a_new_composite():
    conversions.register_session_run_conversion_functions(
        PairOfTensors,
        lambda p: ([p.a, p.b], lambda vs: Pair(*vs)),
        lambda p, v: [(p.a, v[0]), (p.b, v[1])],
    )
    try:
        with pytest.raises(ValueError, match="already been registered"):
            conversions.register_session_run_conversion_functions(PairOfTensors, lambda p: None)
        with tf.Graph().as_default():
            a, b = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
            pair = PairOfTensors(a * 2, b + 1)
            with tf.Session() as sess:
                got = sess.run(pair, {PairOfTensors(a, b): (3.0, 4.0)})
        assert got == Pair(6.0, 5.0)
    finally:
        conversions._REGISTERED_EXPANSIONS[:] = [
            e for e in conversions._REGISTERED_EXPANSIONS if e[0] is not PairOfTensors
        ]


def test_edit_distance_of_the_cookbook_words():
    # Hand-derived: bear->beers 2 edits (5 letters), beer->beers 1; unknown-shape inputs.
    with tf.Graph().as_default():
        h, t = tf.sparse_placeholder(tf.string), tf.sparse_placeholder(tf.string)
        d = tf.edit_distance(h, t, normalize=True)
        assert d.shape.ndims is None and d.dtype is tf.float32  # TF1: shape unknown
        words = ["bear", "beer"]
        hv = (
            [[i, 0, j] for i, w in enumerate(words) for j in range(len(w))],
            list("".join(words)),
            [2, 1, 1],
        )
        tv = ([[i, 0, j] for i in range(2) for j in range(5)], list("beers" * 2), [2, 1, 1])
        with tf.Session() as sess:
            got = sess.run(d, {h: hv, t: tv})
    np.testing.assert_allclose(got, [[0.4], [0.2]])


def test_edit_distance_refuses_dense_inputs():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor"):
            tf.edit_distance(tf.constant([1]), tf.SparseTensor([[0]], [1], [1]))


def test_sparse_dense_matmul_checks_inner_dimension_by_name():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 0]], [1.0], [3, 4])
        with pytest.raises(ValueError, match="inner dimension does not match: 4 vs. 3"):
            tf.sparse_tensor_dense_matmul(st, tf.ones([3, 2], name="b"))


def test_sparse_to_dense_refuses_repeated_indices_when_run():
    with tf.Graph().as_default():
        d = tf.sparse_to_dense([[1, 0], [1, 0]], [2, 2], [1.0, 2.0])
        with (
            tf.Session() as sess,
            pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] .* repeated"),
        ):
            sess.run(d)


def test_sparse_reduce_sum_takes_no_name_and_its_op_is_sparse_reduce_sum_as_tf1():
    # TF 2.21's compat.v1 sparse_reduce_sum has no name parameter; its op is SparseReduceSum:0.
    st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    out = tf.sparse.reduce_sum(st, 1, keep_dims=True)
    assert out.name == "SparseReduceSum:0" and out.shape.as_list() == [2, 1]
    assert tf.Session().run(out).tolist() == [[1.0], [2.0]]
    with pytest.raises(TypeError, match="name"):
        tf.sparse_reduce_sum(st, name="total")
