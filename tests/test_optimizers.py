"""Optimizers against TF1's update formulas, written out independently in numpy.

Every trajectory test builds a small linear model, runs ``minimize`` for ten
steps, and after each step compares the variables with a numpy reference that
computes the gradient analytically and applies TF1's formula.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits

STEPS = 10


pytestmark = pytest.mark.usefixtures("fresh_graph")


# -- the model and its analytic gradient --------------------------------------------------------------


def model_data(dtype=np.float64):
    rng = np.random.default_rng(1234)
    x = rng.standard_normal((8, 3)).astype(dtype)
    y = rng.standard_normal((8, 2)).astype(dtype)
    w0 = (0.5 * rng.standard_normal((3, 2))).astype(dtype)
    b0 = (0.1 * rng.standard_normal(2)).astype(dtype)
    return x, y, w0, b0


def np_loss_and_grads(x, y, w, b):
    """loss = mean((x @ w + b - y)**2) and its gradients, in float64."""
    x, y, w, b = (np.asarray(a, np.float64) for a in (x, y, w, b))
    r = x @ w + b - y
    dr = 2.0 * r / r.size
    return np.mean(r**2), {"W": x.T @ dr, "b": dr.sum(axis=0)}


def build_model(dtype=np.float64, x_value=None):
    x, y, w0, b0 = model_data(dtype)
    W = tf.Variable(w0, name="W")
    b = tf.Variable(b0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), W) + b - tf.constant(y)))
    return loss, W, b, (x, y, w0, b0)


# -- TF1's update formulas in numpy ---------------------------------------------------------------------


def ref_gd(lr):
    def step(var, g, state, t):
        return var - lr * g

    return step


def ref_momentum(lr, mu, nesterov=False):
    def step(var, g, state, t):
        accum = mu * state.get("accum", np.zeros_like(var)) + g
        state["accum"] = accum
        if nesterov:
            return var - (lr * g + lr * mu * accum)
        return var - lr * accum

    return step


def ref_adagrad(lr, init=0.1):
    def step(var, g, state, t):
        accum = state.get("accum", np.full_like(var, init)) + g * g
        state["accum"] = accum
        return var - lr * g / np.sqrt(accum)

    return step


def ref_rmsprop(lr, decay=0.9, momentum=0.0, eps=1e-10, centered=False):
    def step(var, g, state, t):
        ms = decay * state.get("ms", np.ones_like(var)) + (1 - decay) * g * g
        state["ms"] = ms
        denom = ms
        if centered:
            mg = decay * state.get("mg", np.zeros_like(var)) + (1 - decay) * g
            state["mg"] = mg
            denom = ms - mg * mg
        mom = momentum * state.get("mom", np.zeros_like(var)) + lr * g / np.sqrt(denom + eps)
        state["mom"] = mom
        return var - mom

    return step


def ref_adam(lr=0.001, b1=0.9, b2=0.999, eps=1e-8):
    def step(var, g, state, t):
        # TF1 keeps beta1_power / beta2_power as float32 variables, multiplied by beta
        # (in float32) after each step and cast to the variable's dtype when read.
        p1 = state["p1"] = np.float32(state.get("p1", np.float32(1)) * np.float32(b1))
        p2 = state["p2"] = np.float32(state.get("p2", np.float32(1)) * np.float32(b2))
        p1, p2 = np.float64(p1), np.float64(p2)
        lr_t = lr * np.sqrt(1 - p2) / (1 - p1)
        m = b1 * state.get("m", np.zeros_like(var)) + (1 - b1) * g
        v = b2 * state.get("v", np.zeros_like(var)) + (1 - b2) * g * g
        state["m"], state["v"] = m, v
        return var - lr_t * m / (np.sqrt(v) + eps)

    return step


CASES = {
    "gd": (lambda: tf.train.GradientDescentOptimizer(0.1), ref_gd(0.1)),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.05, 0.9), ref_momentum(0.05, 0.9)),
    "momentum_nesterov": (
        lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
        ref_momentum(0.05, 0.9, nesterov=True),
    ),
    "adam_default": (lambda: tf.train.AdamOptimizer(), ref_adam()),
    "adam_custom": (
        lambda: tf.train.AdamOptimizer(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-3),
        ref_adam(0.05, 0.8, 0.99, 1e-3),
    ),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.3), ref_adagrad(0.3)),
    "adagrad_init": (
        lambda: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.5),
        ref_adagrad(0.3, 0.5),
    ),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.01), ref_rmsprop(0.01)),
    "rmsprop_momentum": (
        lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.9),
        ref_rmsprop(0.01, momentum=0.9),
    ),
    "rmsprop_centered": (
        lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
        ref_rmsprop(0.01, centered=True),
    ),
    "rmsprop_centered_momentum": (
        lambda: tf.train.RMSPropOptimizer(0.02, decay=0.8, momentum=0.5, epsilon=1e-6, centered=True),
        ref_rmsprop(0.02, decay=0.8, momentum=0.5, eps=1e-6, centered=True),
    ),
}

TOL = {np.float64: dict(rtol=1e-9, atol=1e-12), np.float32: dict(rtol=2e-5, atol=2e-6)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", list(CASES))
def test_trajectory_matches_tf1_formula(case, dtype):
    make_opt, ref_step = CASES[case]
    loss, W, b, (x, y, w0, b0) = build_model(dtype)
    train = make_opt().minimize(loss)
    ref = {"W": w0.astype(np.float64), "b": b0.astype(np.float64)}
    states = {"W": {}, "b": {}}
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t in range(1, STEPS + 1):
            loss_before, grads = np_loss_and_grads(x, y, ref["W"], ref["b"])
            losses.append(loss_before)
            sess.run(train)
            for k in ref:
                ref[k] = ref_step(ref[k], grads[k], states[k], t)
            w_now, b_now = sess.run([W, b])
            assert w_now.dtype == dtype and b_now.dtype == dtype
            np.testing.assert_allclose(w_now, ref["W"], err_msg=f"W at step {t}", **TOL[dtype])
            np.testing.assert_allclose(b_now, ref["b"], err_msg=f"b at step {t}", **TOL[dtype])
        final_loss = sess.run(loss)
    # Every configuration makes progress on this convex problem.
    assert final_loss < losses[0]


# -- minimize / compute_gradients / apply_gradients ----------------------------------------------------


def test_global_step_increments_once_per_step():
    loss, W, b, _ = build_model()
    gs = tf.train.get_or_create_global_step()
    assert tf.train.get_or_create_global_step() is gs
    assert tf.train.get_global_step() is gs
    assert gs.dtype == tf.int64 and gs.shape.as_list() == []
    assert gs not in tf.trainable_variables()
    train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(gs) == 0
        for i in range(1, 4):
            sess.run(train)
            value = sess.run(gs)
            assert value == i
            assert np.asarray(value).dtype == np.int64


def test_global_step_with_gradient_descent_and_apply_gradients():
    loss, W, b, (x, y, w0, b0) = build_model()
    gs = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.1)
    train = opt.apply_gradients(opt.compute_gradients(loss), global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        assert sess.run(gs) == 5
        # The variables moved exactly five GD steps (the step counter ran once per update).
        w, bb = w0.copy(), b0.copy()
        for _ in range(5):
            _, g = np_loss_and_grads(x, y, w, bb)
            w, bb = w - 0.1 * g["W"], bb - 0.1 * g["b"]
        np.testing.assert_allclose(sess.run(W), w, rtol=1e-10)
        np.testing.assert_allclose(sess.run(b), bb, rtol=1e-10)


def test_var_list_restricts_updates():
    loss, W, b, (x, y, w0, b0) = build_model()
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss, var_list=[W])
    assert opt.get_slot(b, "m") is None and opt.get_slot(W, "m") is not None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        np.testing.assert_array_equal(sess.run(b), b0)
        assert not np.allclose(sess.run(W), w0)


def test_var_list_gradient_descent_matches_reference():
    loss, W, b, (x, y, w0, b0) = build_model()
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss, var_list=[b])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        bb = b0.copy()
        for _ in range(3):
            sess.run(train)
            bb = bb - 0.2 * np_loss_and_grads(x, y, w0, bb)[1]["b"]
        np.testing.assert_array_equal(sess.run(W), w0)
        np.testing.assert_allclose(sess.run(b), bb, rtol=1e-10)


def test_compute_gradients_pairs_with_none_for_unconnected():
    loss, W, b, (x, y, w0, b0) = build_model()
    z = tf.Variable(np.zeros(4), name="z")
    opt = tf.train.GradientDescentOptimizer(0.1)
    pairs = opt.compute_gradients(loss)
    assert [v for _, v in pairs] == [W, b, z]
    assert pairs[2][0] is None
    assert all(g is not None for g, _ in pairs[:2])
    _, expected = np_loss_and_grads(x, y, w0, b0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gw, gb = sess.run([pairs[0][0], pairs[1][0]])
    np.testing.assert_allclose(gw, expected["W"], rtol=1e-10)
    np.testing.assert_allclose(gb, expected["b"], rtol=1e-10)
    # Pairs with a None gradient are skipped by apply_gradients.
    train = opt.apply_gradients(pairs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_array_equal(sess.run(z), np.zeros(4))
        np.testing.assert_allclose(sess.run(W), w0 - 0.1 * expected["W"], rtol=1e-10)


def test_compute_gradients_var_list():
    loss, W, b, _ = build_model()
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=[b])
    assert len(pairs) == 1 and pairs[0][1] is b and pairs[0][0] is not None


def test_apply_gradients_with_manual_gradient():
    v = tf.Variable(np.array([1.0, 2.0, 3.0]), name="v")
    grad = tf.constant(np.array([0.5, -1.0, 2.0]))
    opt = tf.train.MomentumOptimizer(0.1, 0.5)
    train = opt.apply_gradients([(grad, v)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(v), [0.95, 2.1, 2.8], rtol=1e-12)
        sess.run(train)  # accum = 0.5 * g + g = 1.5 g
        np.testing.assert_allclose(sess.run(v), [0.875, 2.25, 2.5], rtol=1e-12)
        np.testing.assert_allclose(sess.run(opt.get_slot(v, "momentum")), [0.75, -1.5, 3.0])


def test_apply_gradients_with_a_fed_gradient():
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    g = tf.placeholder(tf.float32, [2])
    train = tf.train.GradientDescentOptimizer(2.0).apply_gradients([(g, v)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed_dict={g: [1.0, -0.5]})
        sess.run(train, feed_dict={g: [0.25, 0.0]})
        np.testing.assert_allclose(sess.run(v), [-2.5, 1.0])


def test_minimize_without_path_to_variables_raises():
    W = tf.Variable(np.ones((3, 2)), name="W")
    b = tf.Variable(np.zeros(2), name="b")
    loss = tf.reduce_sum(tf.square(tf.constant(np.ones(3))))
    with pytest.raises(ValueError, match="No gradients") as info:
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    assert "W" in str(info.value) and "b" in str(info.value)
    del W, b


def test_apply_gradients_all_none_raises():
    W = tf.Variable(np.ones(2), name="W")
    with pytest.raises(ValueError, match="W"):
        tf.train.AdamOptimizer().apply_gradients([(None, W)])


def test_minimize_with_no_variables_raises():
    loss = tf.reduce_sum(tf.constant(np.ones(3)))
    with pytest.raises(ValueError):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def test_learning_rate_placeholder_gradient_descent():
    loss, W, b, (x, y, w0, b0) = build_model()
    lr = tf.placeholder(tf.float32, [])
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    w, bb = w0.copy(), b0.copy()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for rate in [0.1, 0.05, 0.0, 0.2]:
            _, g = np_loss_and_grads(x, y, w, bb)
            sess.run(train, feed_dict={lr: rate})
            rate = np.float64(np.float32(rate))
            w, bb = w - rate * g["W"], bb - rate * g["b"]
            np.testing.assert_allclose(sess.run(W), w, rtol=1e-10)
            np.testing.assert_allclose(sess.run(b), bb, rtol=1e-10)


@pytest.mark.parametrize("case", ["momentum", "adam", "rmsprop", "adagrad"])
def test_learning_rate_placeholder_other_optimizers(case):
    loss, W, b, (x, y, w0, b0) = build_model()
    lr = tf.placeholder(tf.float64, [])
    make, ref_step = {
        "momentum": (lambda r: tf.train.MomentumOptimizer(r, 0.9), ref_momentum(0.03, 0.9)),
        "adam": (lambda r: tf.train.AdamOptimizer(r), ref_adam(0.03)),
        "rmsprop": (lambda r: tf.train.RMSPropOptimizer(r, momentum=0.9), ref_rmsprop(0.03, momentum=0.9)),
        "adagrad": (lambda r: tf.train.AdagradOptimizer(r), ref_adagrad(0.03)),
    }[case]
    train = make(lr).minimize(loss)
    ref, states = {"W": w0.copy(), "b": b0.copy()}, {"W": {}, "b": {}}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t in range(1, 4):
            _, grads = np_loss_and_grads(x, y, ref["W"], ref["b"])
            sess.run(train, feed_dict={lr: 0.03})
            for k in ref:
                ref[k] = ref_step(ref[k], grads[k], states[k], t)
        np.testing.assert_allclose(sess.run(W), ref["W"], rtol=1e-9)
        np.testing.assert_allclose(sess.run(b), ref["b"], rtol=1e-9)


def test_learning_rate_tensor():
    v = tf.Variable(np.array([1.0, -1.0], np.float32), name="v")
    lr = tf.constant(0.5) * 0.5
    train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(tf.square(v)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(v), [0.5, -0.5])


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: tf.train.GradientDescentOptimizer(0.1), "GradientDescent"),
        (lambda: tf.train.MomentumOptimizer(0.1, 0.9), "Momentum"),
        (lambda: tf.train.AdamOptimizer(), "Adam"),
        (lambda: tf.train.AdagradOptimizer(0.1), "Adagrad"),
        (lambda: tf.train.RMSPropOptimizer(0.1), "RMSProp"),
    ],
    ids=["gd", "momentum", "adam", "adagrad", "rmsprop"],
)
def test_train_op_is_named_after_the_optimizer(make, name):
    loss, W, b, _ = build_model()
    assert make().minimize(loss).name == name
    gs = tf.train.get_or_create_global_step()
    assert make().minimize(loss, global_step=gs).name == name + "_1"
    assert make().minimize(loss, name="train_step").name == "train_step"


def test_adam_betas_as_tensors():
    v = tf.Variable(np.ones(2), name="v")
    opt = tf.train.AdamOptimizer(0.1, beta1=tf.constant(0.5), beta2=tf.constant(0.9, tf.float64))
    train = opt.minimize(tf.reduce_sum(tf.square(v)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)  # g = 2: m = 1, v = 0.4, lr_t = 0.1 * sqrt(0.1) / 0.5
        np.testing.assert_allclose(sess.run(opt.get_slot(v, "m")), [1.0, 1.0])
        np.testing.assert_allclose(sess.run(opt.get_slot(v, "v")), [0.4, 0.4])
        lr_t = 0.1 * np.sqrt(1 - 0.9) / (1 - 0.5)
        np.testing.assert_allclose(sess.run(v), 1 - lr_t * 1 / (np.sqrt(0.4) + 1e-8), rtol=1e-6)
        beta_powers = [p for p in opt.variables() if "_power" in p.name]
        powers = sorted(float(p) for p in sess.run(beta_powers))
        np.testing.assert_allclose(powers, [0.25, 0.81], rtol=1e-6)


def test_minimize_inside_control_dependencies():
    # As with TF1's init_scope, the optimizer's own variables (slots, beta powers, global
    # step) do not inherit the surrounding control dependencies; the update ops do.
    fed = tf.placeholder(tf.float32, [])
    side = tf.identity(fed)
    w = tf.Variable(np.ones(2), name="w")
    with tf.control_dependencies([side]):
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(tf.reduce_sum(tf.square(w)), global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())  # needs no feed
        assert sess.run(gs) == 0
        sess.run(opt.variables())
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(train)
        sess.run(train, feed_dict={fed: 0.0})
        assert sess.run(gs) == 1


# -- slots ----------------------------------------------------------------------------------------------


def test_adam_slot_names_and_values():
    loss, W, b, (x, y, w0, b0) = build_model()
    opt = tf.train.AdamOptimizer()
    train = opt.minimize(loss)
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(W, "m").name == "W/Adam:0"
    assert opt.get_slot(W, "v").name == "W/Adam_1:0"
    assert opt.get_slot(W, "m").op.name == "W/Adam"
    assert opt.get_slot(b, "m").name == "b/Adam:0"
    assert opt.get_slot(b, "v").name == "b/Adam_1:0"
    assert opt.get_slot(W, "nope") is None
    trainable = tf.trainable_variables()
    assert trainable == [W, b]
    names = {v.name for v in tf.global_variables()}
    assert {"W/Adam:0", "W/Adam_1:0", "beta1_power:0", "beta2_power:0"} <= names
    assert {v.name for v in opt.variables()} == {
        "W/Adam:0",
        "W/Adam_1:0",
        "b/Adam:0",
        "b/Adam_1:0",
        "beta1_power:0",
        "beta2_power:0",
    }
    _, g = np_loss_and_grads(x, y, w0, b0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(opt.get_slot(W, "m")), np.zeros((3, 2)))
        sess.run(train)
        np.testing.assert_allclose(sess.run(opt.get_slot(W, "m")), 0.1 * g["W"], rtol=1e-10)
        np.testing.assert_allclose(sess.run(opt.get_slot(W, "v")), 0.001 * g["W"] ** 2, rtol=1e-10)
        sess.run(train)
        powers = sess.run([v for v in opt.variables() if "power" in v.name])
        np.testing.assert_allclose(sorted(powers), sorted([0.9**3, 0.999**3]), rtol=1e-6)


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: tf.train.MomentumOptimizer(0.1, 0.9), {"momentum": "W/Momentum:0"}),
        (lambda: tf.train.AdagradOptimizer(0.1), {"accumulator": "W/Adagrad:0"}),
        (lambda: tf.train.RMSPropOptimizer(0.1), {"rms": "W/RMSProp:0", "momentum": "W/RMSProp_1:0"}),
        (
            lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
            {"rms": "W/RMSProp:0", "mg": "W/RMSProp_1:0", "momentum": "W/RMSProp_2:0"},
        ),
        (lambda: tf.train.GradientDescentOptimizer(0.1), {}),
    ],
    ids=["momentum", "adagrad", "rmsprop", "rmsprop_centered", "gd"],
)
def test_slot_names_are_tf1_like(make, expected):
    loss, W, b, _ = build_model()
    opt = make()
    opt.minimize(loss)
    assert opt.get_slot_names() == sorted(expected)
    for slot, name in expected.items():
        var = opt.get_slot(W, slot)
        assert var.name == name
        assert var.shape.as_list() == [3, 2] and var.dtype == W.dtype
        assert not var.trainable
    assert tf.trainable_variables() == [W, b]


def test_slot_initial_values():
    loss, W, b, _ = build_model()
    rms = tf.train.RMSPropOptimizer(0.1, centered=True)
    ada = tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.25)
    rms.minimize(loss)
    ada.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(rms.get_slot(W, "rms")), np.ones((3, 2)))
        np.testing.assert_array_equal(sess.run(rms.get_slot(W, "mg")), np.zeros((3, 2)))
        np.testing.assert_array_equal(sess.run(rms.get_slot(W, "momentum")), np.zeros((3, 2)))
        np.testing.assert_array_equal(sess.run(ada.get_slot(b, "accumulator")), np.full(2, 0.25))


def test_slot_names_under_a_name_scope():
    with tf.name_scope("layer"):
        W = tf.Variable(np.ones((2, 2)), name="W")
    opt = tf.train.AdamOptimizer()
    with tf.name_scope("train"):
        opt.minimize(tf.reduce_sum(tf.square(W)))
    assert W.name == "layer/W:0"
    assert opt.get_slot(W, "m").name == "layer/W/Adam:0"
    assert opt.get_slot(W, "v").name == "layer/W/Adam_1:0"


def test_slots_reused_across_minimize_calls():
    loss, W, b, _ = build_model()
    opt = tf.train.AdamOptimizer()
    opt.minimize(loss)
    m = opt.get_slot(W, "m")
    opt.minimize(2.0 * loss)
    assert opt.get_slot(W, "m") is m
    assert len(opt.variables()) == 6


# -- end to end: softmax regression on the digits -----------------------------------------------------


@pytest.fixture(scope="module")
def digits():
    return load_digits(one_hot=True, seed=0)


def accuracy(sess, x, y_, y, data):
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    acc = tf.reduce_mean(tf.cast(correct, tf.float32))
    return float(sess.run(acc, feed_dict={x: data.test.images, y_: data.test.labels}))


def test_softmax_regression_digits_gradient_descent(digits):
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 64])
    y_ = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.truncated_normal([64, 10], stddev=0.01))
    b = tf.Variable(tf.zeros([10]))
    logits = tf.matmul(x, W) + b
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(300):
            xs, ys = digits.train.next_batch(100)
            sess.run(train, feed_dict={x: xs, y_: ys})
        assert sess.run(gs) == 300
        acc = accuracy(sess, x, y_, logits, digits)
    # Measured 0.958 (0.953-0.961 over several shuffling seeds).
    assert acc >= 0.9, acc


def test_simple_example_as_written_in_tf1(digits):
    # The seeds' "Simple Example", verbatim but for 64 input features instead of 784.
    x = tf.placeholder(tf.float32, [None, 64])
    W = tf.Variable(tf.zeros([64, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = -tf.reduce_sum(y_ * tf.log(y))
    train_step = tf.train.GradientDescentOptimizer(0.01).minimize(cross_entropy)
    init = tf.initialize_all_variables()
    sess = tf.Session()
    sess.run(init)
    for _ in range(1000):
        batch_xs, batch_ys = digits.train.next_batch(100)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})
    acc = accuracy(sess, x, y_, y, digits)
    sess.close()
    # Measured 0.983 (0.981-0.983 over several shuffling seeds).
    assert acc >= 0.95, acc


# -- constraints, TF1's constructor and apply_gradients arguments ---------------------------------------


def clip2(v):
    return tf.clip_by_value(v, -2.0, 2.0)


def test_constraint_is_applied_after_each_update():
    # loss = sum(w**2), grad = 2w. Step 1: [2, -3] - 0.1 * [4, -6] = [1.6, -2.4], clipped to
    # [1.6, -2]. Step 2: [1.6, -2] - 0.1 * [3.2, -4] = [1.28, -1.6], inside the bounds.
    w = tf.Variable([2.0, -3.0], constraint=clip2)
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w), global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.6, -2.0], rtol=1e-6)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.28, -1.6], rtol=1e-6)
        assert sess.run(step) == 2


def test_constraint_clips_the_variable_not_its_slots():
    # Momentum 0.9: accum = [4, -6]; w = [2, -3] - 0.1 * accum = [1.6, -2.4] -> [1.6, -2].
    # Then accum = 0.9 * [4, -6] + [3.2, -4] = [6.8, -9.4]; w = [1.6, -2] - 0.1 * accum = [0.92, -1.06].
    w = tf.Variable([2.0, -3.0], constraint=clip2)
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    train = opt.minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.6, -2.0], rtol=1e-6)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.92, -1.06], rtol=1e-6)
        np.testing.assert_allclose(sess.run(opt.get_slot(w, "momentum")), [6.8, -9.4], rtol=1e-6)


def test_base_optimizer_needs_use_locking_and_a_name():
    with pytest.raises(TypeError, match="use_locking"):
        tf.train.Optimizer()
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.GradientDescentOptimizer(0.1, name="")


def test_non_slot_variables_in_their_own_scope_take_tf1s_names():
    # Names read off TF 2.21's tf.compat.v1 for the same program.
    w = tf.Variable([1.0, 2.0], name="w")
    names = []
    for _ in range(2):
        opt = tf.train.AdamOptimizer(0.1, use_own_namescope_for_non_slot_vars=True)
        opt.minimize(tf.reduce_sum(w * w))
        names.append(sorted(v.name for v in opt.variables() if "power" in v.name))
    assert names == [
        ["Adam/beta1_power:0", "Adam/beta2_power:0"],
        ["Adam_1/beta1_power:0", "Adam_1/beta2_power:0"],
    ]
    with tf.name_scope("ns"):
        opt = tf.train.AdamOptimizer(0.1)
        opt.minimize(tf.reduce_sum(w * w))
    assert [v.name for v in opt.variables()] == sorted(v.name for v in opt.variables())
    assert [v.name for v in opt.variables()][:2] == ["ns/beta1_power:0", "ns/beta2_power:0"]


def test_compute_gradients_checks_gate_gradients():
    w = tf.Variable(1.0)
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(w * w, gate_gradients=5)


@pytest.mark.parametrize("gate", [0, 1, 2])
def test_gate_gradients_and_skip_gradients_aggregation_keep_the_numbers(gate):
    w = tf.Variable([1.0, -2.0])
    opt = tf.train.GradientDescentOptimizer(0.25)
    pairs = opt.compute_gradients(tf.reduce_sum(w * w), gate_gradients=gate)
    train = opt.apply_gradients(pairs, skip_gradients_aggregation=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.5, -1.0])  # w - 0.25 * 2w


def test_sync_replicas_optimizer_forwards_get_slot():
    w = tf.Variable(1.0, name="w")
    inner = tf.train.MomentumOptimizer(0.1, 0.9)
    opt = tf.train.SyncReplicasOptimizer(inner, replicas_to_aggregate=1)
    opt.minimize(w * w, global_step=tf.train.get_or_create_global_step())
    assert opt.get_slot(w, name="momentum") is inner.get_slot(w, "momentum") is not None
    assert opt.get_slot_names() == ["momentum"]


# TF1's errors, word for word (TF 2.21's compat.v1 sync_replicas_optimizer.py, as r1.15's):
# an empty list is refused first, then a missing global step, before any op is made.
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda opt, w: opt.minimize(w * w), "Global step is required to check staleness"),
        (lambda opt, w: opt.apply_gradients([(w * 2.0, w)]), "Global step is required to check staleness"),
        (lambda opt, w: opt.apply_gradients([]), "Must supply at least one variable"),
        (
            lambda opt, w: opt.apply_gradients([], global_step=tf.train.get_or_create_global_step()),
            "Must supply at least one variable",
        ),
    ],
)
def test_sync_replicas_optimizer_refuses_what_tf1_refuses(call, message):
    w = tf.Variable(1.0, name="w")
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 2)
    with pytest.raises(ValueError, match=f"^{message}$"):
        call(opt, w)
    with pytest.raises(ValueError, match=r"^Should be called after apply_gradients\(\)\.$"):
        opt.get_chief_queue_runner()  # nothing was applied


def test_global_step_look_up_and_creation_refuse_as_tf1(fresh_graph):
    # TF 2.21 compat.v1: create_global_step twice raises ValueError('"global_step" already
    # exists.'); a variable named global_step outside the collection is found by name; a float
    # or non-scalar one is refused with TypeError('Existing "global_step" ...').
    step = tf.train.create_global_step()
    with pytest.raises(ValueError, match='^"global_step" already exists.$'):
        tf.train.create_global_step()
    assert tf.train.get_or_create_global_step() is step
    with tf.Graph().as_default():
        by_name = tf.Variable(3, name="global_step")
        assert tf.train.get_global_step().name == by_name.name == "global_step:0"
        with pytest.raises(ValueError, match="already exists"):
            tf.train.create_global_step()
    with tf.Graph().as_default():
        tf.Variable(0.0, name="global_step")
        with pytest.raises(TypeError, match='Existing "global_step" does not have integer type: .*float32'):
            tf.train.get_global_step()
    with tf.Graph().as_default():
        tf.Variable([0, 1], name="global_step")
        with pytest.raises(TypeError, match=r'Existing "global_step" is not scalar: \(2,\)'):
            tf.train.get_or_create_global_step()
