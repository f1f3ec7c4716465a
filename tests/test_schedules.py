"""Learning-rate schedules and moving averages against real TF1.

``tests/fixtures/make_schedules.py`` holds the programs, written against a
framework passed in; run under TensorFlow it wrote ``schedules.json``, and
here the same programs run on daskflow. Values must agree to float32 rounding,
names exactly (where TF1 names a result by an internal op, e.g. ``case/cond/Merge``,
only its name scope).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import types

import numpy as np
import pytest

import daskflow as tf
from daskflow.train import learning_rate_decay as lrd
from daskflow.train import moving_averages as ma

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "schedules.json").read_text())


def _load_programs():
    spec = importlib.util.spec_from_file_location("make_schedules", FIXTURES / "make_schedules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()
NS = types.SimpleNamespace(
    **{fn: getattr(lrd, fn) for _, fn, *_ in PROGRAMS.SCHEDULES},
    ExponentialMovingAverage=ma.ExponentialMovingAverage,
    assign_moving_average=ma.assign_moving_average,
)
SCHEDULE_REFS = {case["id"]: case for case in REF["schedules"]}


pytestmark = pytest.mark.usefixtures("fresh_graph")


def assert_close(actual, expected, what):
    # TF flushes float32 denormals to zero; anything below 1e-30 counts as zero.
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-30, err_msg=what)


def assert_same_result_name(actual, expected):
    """Exact where TF1 names the result after the schedule; else the name scope."""
    if "/" in expected:
        assert actual.split("/")[0] == expected.split("/")[0], (actual, expected)
    else:
        assert actual == expected


# -- schedules -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", PROGRAMS.SCHEDULES, ids=[c[0] for c in PROGRAMS.SCHEDULES])
def test_schedule_matches_tf1(case):
    case_id, fn, kwargs, lr_dtype, step_dtype = case
    ref = SCHEDULE_REFS[case_id]
    values, dtype, name = PROGRAMS.run_schedule(tf, NS, fn, kwargs, lr_dtype, step_dtype, ref["steps"])
    assert dtype == ref["dtype"]
    assert_close(values, ref["values"], f"{case_id} at steps {ref['steps']}")
    assert_same_result_name(name, ref["name"])


def test_schedule_names_match_tf1():
    names = PROGRAMS.schedule_names(tf, NS)
    assert names.keys() == REF["names"].keys()
    for fn, expected in REF["names"].items():
        for actual, want in zip(names[fn], expected, strict=True):
            assert_same_result_name(actual, want)


def test_schedule_reads_the_step_at_run_time():
    step = tf.train.get_or_create_global_step()
    lr = lrd.exponential_decay(1.0, step, 1, 0.5)
    with tf.Session() as sess:
        sess.run(step.initializer)
        before = sess.run(lr)
        sess.run(step.assign_add(3))
        assert (before, sess.run(lr)) == (1.0, 0.125)


def test_tensor_hyper_parameters():
    step = tf.train.get_or_create_global_step()
    lr = lrd.polynomial_decay(
        tf.constant(0.5), step, tf.constant(4), tf.constant(0.1), power=tf.constant(2.0)
    )
    restart = lrd.cosine_decay_restarts(1.0, step, 4, t_mul=tf.constant(1.0))
    with tf.Session() as sess:
        sess.run(step.initializer)
        step.load(2, sess)
        # (0.5 - 0.1) * (1 - 2/4)**2 + 0.1; SGDR with t_mul 1: half-way through the first period.
        assert_close(sess.run([lr, restart]), [0.2, 0.5], "tensor hyper-parameters at step 2")


def test_decayed_rate_drives_an_optimizer():
    """The schedule is read in the same step that applies it, then the step advances."""
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(0.0, name="w")
    lr = lrd.piecewise_constant(step, [1], [0.5, 0.25])
    train = tf.train.GradientDescentOptimizer(lr).minimize(-w, global_step=step)  # gradient -1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        seen = [sess.run(train) or sess.run([w, step]) for _ in range(3)]
    assert seen == [[0.5, 1], [1.0, 2], [1.25, 3]]  # steps 0 and 1 at 0.5, step 2 at 0.25


# -- bad input -------------------------------------------------------------------------------------

NEEDS_STEP = {
    "exponential_decay": lambda s: lrd.exponential_decay(0.1, s, 10, 0.9),
    "natural_exp_decay": lambda s: lrd.natural_exp_decay(0.1, s, 10, 0.9),
    "inverse_time_decay": lambda s: lrd.inverse_time_decay(0.1, s, 10, 0.9),
    "polynomial_decay": lambda s: lrd.polynomial_decay(0.1, s, 10),
    "cosine_decay": lambda s: lrd.cosine_decay(0.1, s, 10),
    "cosine_decay_restarts": lambda s: lrd.cosine_decay_restarts(0.1, s, 10),
    "linear_cosine_decay": lambda s: lrd.linear_cosine_decay(0.1, s, 10),
}


@pytest.mark.parametrize("fn", sorted(NEEDS_STEP))
def test_global_step_is_required(fn):
    with pytest.raises(ValueError, match=f"global_step is required for {fn}"):
        NEEDS_STEP[fn](None)


def test_integer_learning_rate_is_rejected():
    with pytest.raises(TypeError, match="exponential_decay: learning_rate .* int32"):
        lrd.exponential_decay(1, tf.train.get_or_create_global_step(), 10, 0.5)


@pytest.mark.parametrize(
    "boundaries, values, match",
    [
        ([10, 20], [1.0, 0.5], "the length of boundaries .* 2 boundaries and 2 values"),
        ([10], [1.0, 0.5, 0.1], "the length of boundaries .* 1 boundaries and 3 values"),
        ([10.0], [1.0, 0.5], r"boundaries \(float32\) must have the same dtype as x \(int64\)"),
        ([10], [1, 0.5], r"values must have elements all with the same dtype \(int32 vs float32\)"),
    ],
)
def test_piecewise_constant_rejects(boundaries, values, match):
    with pytest.raises(ValueError, match=f"piecewise_constant: {match}"):
        lrd.piecewise_constant(tf.train.get_or_create_global_step(), boundaries, values)


def test_piecewise_constant_takes_python_boundaries_in_a_float_x_dtype():
    x = tf.constant(0.1, dtype=tf.float64)
    # 0.1 in float32 is above the float64 0.1: a float32 boundary would put x in the first interval.
    lr = lrd.piecewise_constant(x, [0.1 - 1e-12], [1.0, 2.0])
    with tf.Session() as sess:
        assert sess.run(lr) == 2.0


def test_moving_average_rejects_integer_variables():
    step = tf.train.get_or_create_global_step()
    with pytest.raises(TypeError, match="must be half, float, or double: global_step"):
        ma.ExponentialMovingAverage(0.9).apply([step])


def test_moving_average_rejects_non_tensors():
    with pytest.raises(TypeError, match=r"apply takes variables and tensors, got \[1.0\]"):
        ma.ExponentialMovingAverage(0.9).apply([[1.0]])


# -- ExponentialMovingAverage ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ema_run():
    with tf.Graph().as_default():
        return PROGRAMS.ema_program(tf, NS)


@pytest.mark.parametrize("key", sorted(REF["ema"]["names"]))
def test_ema_names_match_tf1(ema_run, key):
    assert ema_run["names"][key] == REF["ema"]["names"][key]


def test_ema_shadow_values_match_tf1(ema_run):
    assert ema_run["dtypes"] == REF["ema"]["dtypes"]
    for i, (got, want) in enumerate(zip(ema_run["values"], REF["ema"]["values"], strict=True)):
        for key in want:
            assert_close(got[key], want[key], f"{key} after {i} updates")


def test_shadow_is_a_non_trainable_global_variable_beside_its_variable():
    w = tf.Variable([1.0, 2.0], name="w")
    ema = ma.ExponentialMovingAverage(0.5)
    ema.apply([w])
    shadow = ema.average(w)
    assert shadow in tf.global_variables() and shadow not in tf.trainable_variables()
    assert shadow.op.colocation is w.op
    assert ma.moving_average_variables() == [w]


def test_apply_inside_control_dependencies_after_a_training_step():
    """TF1's idiom; the shadow's initializer must not run the training step."""
    w = tf.Variable(1.0, name="w")
    train = tf.train.GradientDescentOptimizer(1.0).minimize(-w)  # w += 1 per step
    ema = ma.ExponentialMovingAverage(0.75)
    with tf.control_dependencies([train]):
        train_and_average = ema.apply([w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([w, ema.average(w)]) == [1.0, 1.0]
        sess.run(train_and_average)
        assert sess.run([w, ema.average(w)]) == [2.0, 0.75 * 1.0 + 0.25 * 2.0]


def test_apply_again_reuses_the_shadow():
    w = tf.Variable(4.0, name="w")
    ema = ma.ExponentialMovingAverage(0.5)
    first, second = ema.apply([w]), ema.apply([w])
    assert ema.average(w).op.name == "w/ExponentialMovingAverage"
    assert [v.op.name for v in tf.global_variables()] == ["w", "w/ExponentialMovingAverage"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w.load(0.0, sess)
        sess.run(first)
        sess.run(second)
        assert sess.run(ema.average(w)) == 1.0  # 4 -> 2 -> 1


# -- assign_moving_average ---------------------------------------------------------------------------


def test_assign_moving_average_matches_tf1():
    got = PROGRAMS.assign_moving_average_program(tf, NS)
    want = REF["assign_moving_average"]
    assert got["names"] == want["names"]
    for i, (g, w) in enumerate(zip(got["values"], want["values"], strict=True)):
        for key in w:
            assert_close(g[key], w[key], f"{key} at step {i}")
