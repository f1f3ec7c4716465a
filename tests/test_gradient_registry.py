"""Gradients a program registers itself, and the ops TF1 gives none, against TF1's own answers
(``tests/fixtures/make_gradient_registry.py`` stored ``gradient_registry.json``)."""

import functools
import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.primitive import NOT_DIFFERENTIABLE, PRIMITIVES

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_gradient_registry as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "gradient_registry.json").read_text())

# TF1's rules for these give None for every input: not differentiable, said another way.
RULE_GIVES_NONE = {"ArgMax", "ArgMin", "FloorDiv", "TruncateDiv"}
# Where daskflow's registry differs from TF 2.21's, and why.
DIFFERENCES = {
    "LSTMBlockCell": "TF1's tf.contrib.rnn registered its gradient; TF 2's registry lacks it",
    "GRUBlockCell": "TF1's tf.contrib.rnn registered its gradient; TF 2's registry lacks it",
    "TileGrad": "daskflow's tf.tile gradient is this op: its own gradient gives tile second order",
}


@functools.cache
def _values():
    return sc.values(tf)  # registers its names: once a process, as in TF1


@functools.cache
def _errors():
    _values()  # the errors' scenarios register names of their own after these
    return sc.errors(tf)


@pytest.mark.parametrize("case", sorted(TF1["values"]))
def test_registered_gradients_give_tf1s_values(case):
    want, got = TF1["values"][case], _values()[case]
    if isinstance(want, list) and want and isinstance(want[0], str):
        assert got == want
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


# The names each error must carry, TF1's and daskflow's alike: the culprit.
CULPRITS = {
    "register_declared": ["'Relu'"],
    "register_twice": ["'ScenarioTwoForOne'"],
    "register_not_string": ["op_type"],
    "not_differentiable_declared": ["'MatMul'"],
    "not_differentiable_not_string": ["op_type"],
    "override_not_strings": ["op_type_map"],
    "override_not_dict": ["op_type_map"],
    "no_gradient_registered": ["the_unique", "Unique"],
    "override_name_unregistered": ["never_registered", "Identity"],
    "wrong_number_of_gradients": ["two_for_one", "Num gradients 2"],
    "wrong_gradient_shape": ["Incompatible shapes", "misshapen", "(3,)", "(5,)"],
    "custom_wrong_number": ["IdentityN", "Num gradients 3"],
    "custom_keyword_arguments": ["keywords arguments"],
    "custom_variables_not_taken": ["'variables'", "read_inside"],
    "custom_variable_count": ["each variable"],
    "unknown_attr": ["'no_such_attr'"],
}


@pytest.mark.parametrize("case", sorted(TF1["errors"]))
def test_misuse_raises_tf1s_error_naming_the_culprit(case):
    (want_type, want_message), (got_type, got_message) = TF1["errors"][case], _errors()[case]
    assert got_type == want_type, got_message
    for name in CULPRITS[case]:
        assert name in want_message  # the fixture's own message names it too
        assert name in got_message, got_message


def _status(prim):
    if prim.grad is None:
        return "none"
    return "not_differentiable" if prim.grad is NOT_DIFFERENTIABLE else "gradient"


def test_each_op_type_has_tf1s_registry_entry():
    """An op type TF1 gives a gradient has one here, one it declares not differentiable
    passes none back, and one it has no entry for raises ``LookupError`` in both."""
    from daskflow.ops import gradient_helper_ops, import_rules  # noqa: F401 - GraphDef import's ops too

    registry, op_types = TF1["registry"], set(TF1["op_types"])
    differ = {}
    for name, prim in PRIMITIVES.items():
        if name not in op_types or name in DIFFERENCES:
            continue
        want = registry.get(name, "none")
        if name in RULE_GIVES_NONE:
            want = "not_differentiable"
        if _status(prim) != want:
            differ[name] = (_status(prim), want)
    assert not differ, f"daskflow's entry, TF1's: {differ}"
    assert all(name in PRIMITIVES for name in DIFFERENCES)  # no stale exception


def test_a_gradient_through_an_op_with_no_entry_raises_before_anything_runs():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 2.0], name="weights")
        y, _ = tf.unique(v * 2.0, name="dedup")
        with pytest.raises(LookupError, match="'dedup'.*Unique"):
            tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
        # stop_gradient is the way round it, as TF1's message says
        (g,) = tf.gradients(tf.reduce_sum(tf.stop_gradient(y)) + tf.reduce_sum(v), [v])
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(g), [1.0, 1.0, 1.0])
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 2.0])


def test_an_override_survives_a_graph_def_round_trip():
    @tf.RegisterGradient("RoundTripNegate")
    def _negate(op, grad):
        return -grad

    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0], name="x")
        with g.gradient_override_map({"Identity": "RoundTripNegate"}):
            tf.identity(x, name="y")
        graph_def = g.as_graph_def()
    (node,) = [n for n in graph_def.node if n.name == "y"]
    assert node.attr["_gradient_op_type"].s == b"RoundTripNegate"
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        (y,) = tf.import_graph_def(graph_def, input_map={"x:0": x}, return_elements=["y:0"])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(tf.gradients(y, x)[0]), [-1.0, -1.0])


def test_the_override_map_is_scoped_and_tf1s_internal_lookup_answers():
    from daskflow.python.framework import ops

    with tf.Graph().as_default() as g:
        x = tf.constant([1.0])
        with g.gradient_override_map({"Identity": "ScopedName"}):
            inside = tf.identity(x)
            with g.gradient_override_map({"Identity": "Inner"}):
                inner = tf.identity(x)
            again = tf.identity(x)
        outside = tf.identity(x)
        assert [t.op.get_attr("_gradient_op_type") for t in (inside, inner, again)] == [
            b"ScopedName",
            b"Inner",
            b"ScopedName",
        ]
        with pytest.raises(ValueError, match="_gradient_op_type"):
            outside.op.get_attr("_gradient_op_type")
        assert ops.get_gradient_function(outside.op) is PRIMITIVES["Identity"].grad
        assert ops.get_gradient_function(x.op) is None  # no inputs
        with pytest.raises(LookupError, match="ScopedName"):
            ops.get_gradient_function(inside.op)


def test_an_override_for_an_op_type_daskflow_never_makes_warns():
    with tf.Graph().as_default() as g:
        with pytest.warns(UserWarning, match="no op of type 'BiasAdd'"):
            with g.gradient_override_map({"BiasAdd": "Identity", "Relu": "Identity"}):
                pass
