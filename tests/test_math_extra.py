"""TF1's remaining elementwise math against TF1's answers.

``tests/fixtures/make_math_extra.py`` ran ``scenarios_math_extra.py`` under
TF1 and stored ``math_extra.json``: values (edge cases included), gradients
(None where TF1 has none), static shapes and dtypes, and the kind of each
graph-building error. Here the same scenarios run under daskflow; the error
messages are checked to name the culprit.
"""

import sys

import pytest

import daskflow as tf
from tests import tf1_answers

sc, TF1 = tf1_answers.load("scenarios_math_extra", "math_extra.json")


pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture(scope="module")
def mine():
    return sc.values(tf)


def test_every_scenario_has_tf1s_answer(mine):
    assert set(mine) == set(TF1)


def _tolerance(dtype):
    # float32 special functions differ in their last bits between TF's and scipy's kernels.
    return {"float16": (2e-3, 1e-3), "float64": (1e-9, 1e-12)}.get(dtype, (2e-5, 1e-6))


@pytest.mark.parametrize("name", sorted(TF1))
def test_scenario_matches_tf1(mine, name):
    tf1_answers.assert_matches(TF1[name], mine[name], _tolerance)


def test_dtype_errors_name_the_culprit_tensor_and_op():
    with pytest.raises(TypeError, match=r"Erf.*ints:0 has dtype int32, not one of .*float32"):
        tf.erf(tf.constant([1, 2], name="ints"))
    with pytest.raises(TypeError, match=r"Acos.*i:0 has dtype int32"):
        tf.acos(tf.constant([1], name="i"))
    with pytest.raises(TypeError, match=r"Polygamma.*h:0 has dtype float16"):
        tf.polygamma(tf.constant([1.0], tf.float16, name="h"), tf.constant([1.0], tf.float16))
    with pytest.raises(TypeError, match=r"Atan2.*y:0 is float32, x:0 is float64"):
        tf.atan2(tf.constant([1.0], name="y"), tf.constant([1.0], tf.float64, name="x"))


def test_shape_errors_name_the_culprit_tensors():
    with pytest.raises(ValueError, match=r"Igamma.*\(2, 3\) \(a:0\) and \(4,\) \(x:0\)"):
        tf.igamma(tf.ones([2, 3], name="a"), tf.ones([4], name="x"))
    with pytest.raises(ValueError, match=r"betainc.* ba:0 has shape \(2, 3\), bb:0 has \(3,\)"):
        tf.betainc(tf.ones([2, 3], name="ba"), tf.ones([3], name="bb"), 0.5)
    with pytest.raises(ValueError, match=r"accumulate_n: t:0 has shape \(2,\), not compatible with \(3,\)"):
        tf.accumulate_n([tf.ones([2], name="t")], shape=[3])


def test_composite_errors_name_the_culprit():
    with pytest.raises(ValueError, match=r"scalar_mul: the scalar s:0 must be 0-D, got shape \(2,\)"):
        tf.scalar_mul(tf.constant([2.0, 3.0], name="s"), tf.ones([2]))
    with pytest.raises(ValueError, match=r"scalar_mul.*d:0 has dtype float64, expected float32"):
        tf.scalar_mul(tf.constant(2.0, tf.float64, name="d"), tf.ones([2]))
    with pytest.raises(TypeError, match=r"div_no_nan: x \(p:0\) is float32, y \(q:0\) is float64"):
        tf.div_no_nan(tf.constant([1.0], name="p"), tf.constant([1.0], tf.float64, name="q"))
    with pytest.raises(TypeError, match=r"div_no_nan: .*b:0.*bool"):
        tf.div_no_nan(tf.constant([True], name="b"), tf.constant([False]))
    with pytest.raises(TypeError, match=r"accumulate_n: tensor_dtype is int32, but f:0 is float32"):
        tf.accumulate_n([tf.ones([1], name="f")], tensor_dtype=tf.int32)
    with pytest.raises(ValueError, match=r"accumulate_n: inputs must share one dtype: .*k:0 is int32"):
        tf.accumulate_n([tf.ones([1]), tf.constant([2], name="k")])
    with pytest.raises(TypeError, match=r"accumulate_n: .*got the tensor v:0"):
        tf.accumulate_n(tf.ones([2], name="v"))
    with pytest.raises(NotImplementedError, match=r"saturate_cast of z:0 \(complex64\)"):
        tf.saturate_cast(tf.constant([1j], tf.complex64, name="z"), tf.float32)


def test_op_names_are_tf1s():
    # The composites open TF1's scopes and name their last op after them, as TF1 does.
    assert tf.div_no_nan(1.0, 2.0).op.name == "div_no_nan"
    assert tf.saturate_cast(tf.ones([2]), tf.int32, name="sat").op.name == "sat"
    assert tf.lbeta(tf.ones([2])).op.name.startswith("lbeta/")
    assert tf.erf(tf.ones([2])).op.type == "Erf" and tf.igammac(1.0, 2.0).op.type == "Igammac"


@pytest.mark.process
def test_special_functions_need_no_scipy_to_build_a_graph():
    import subprocess

    code = "import sys, daskflow as tf; tf.erf(tf.ones([2])); print('scipy' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    )
