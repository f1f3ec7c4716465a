"""tf.estimator: Estimator train / evaluate / predict on the digits, against TF1 and by hand.

The reference numbers in ``fixtures/estimator.json`` come from TF1 graph mode
(``fixtures/make_estimator.py``): TF 2.16+ has no ``tf.estimator``, so that
script runs the Estimator's program step by step.
"""

from __future__ import annotations

import json
import logging
import pathlib
import shutil

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import daskflow as tf
import daskflow.estimator  # noqa: F401 - binds tf.estimator
from daskflow.errors import NotFoundError

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "estimator.json").read_text())
DIGITS = tf.datasets.load_digits()
ModeKeys = tf.estimator.ModeKeys


def numpy_input(x, y=None, batch_size=64, num_epochs=1, shuffle=False):
    return tf.estimator.inputs.numpy_input_fn(
        {"images": x}, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle
    )


def config(**kwargs):
    return tf.estimator.RunConfig(tf_random_seed=0, log_step_count_steps=None, **kwargs)


# -- the MNIST-style model (aymericdamien's neural_network.py, made tiny) ------------------------


def mlp_model_fn(features, labels, mode, params):
    hidden = tf.layers.dense(features["images"], params["hidden"], activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 10)
    classes = tf.argmax(logits, axis=1)
    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes, "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    optimizer = tf.train.AdamOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    accuracy = tf.metrics.accuracy(labels=labels, predictions=classes)
    return tf.estimator.EstimatorSpec(
        mode, predictions=classes, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy}
    )


PARAMS = {"hidden": 24, "learning_rate": 0.02}
TRAIN_STEPS = 120


@pytest.fixture(scope="module")
def trained_dir(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("mlp"))
    estimator = tf.estimator.Estimator(mlp_model_fn, model_dir, config(), params=PARAMS)
    estimator.train(
        numpy_input(DIGITS.train.images, DIGITS.train.labels, num_epochs=None, shuffle=True),
        steps=TRAIN_STEPS,
    )
    return model_dir


@pytest.fixture
def estimator(trained_dir, tmp_path):
    """An Estimator on a private copy of the trained model folder."""
    model_dir = str(tmp_path / "model")
    shutil.copytree(trained_dir, model_dir)
    return tf.estimator.Estimator(mlp_model_fn, model_dir, config(), params=PARAMS)


def logits_by_hand(estimator, images):
    value = estimator.get_variable_value
    hidden = np.maximum(images @ value("dense/kernel") + value("dense/bias"), 0)
    return hidden @ value("dense_1/kernel") + value("dense_1/bias")


def mean_cross_entropy(logits, labels):
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_softmax[np.arange(len(labels)), labels].mean()


def test_evaluate_is_accurate_and_its_loss_is_the_mean_batch_loss_of_the_checkpoint(estimator):
    images, labels = DIGITS.test.images, DIGITS.test.labels
    results = estimator.evaluate(numpy_input(images, labels, batch_size=100))
    assert sorted(results) == ["accuracy", "global_step", "loss"]
    assert results["global_step"] == TRAIN_STEPS
    assert results["accuracy"] > 0.8  # chance is 0.1

    logits = logits_by_hand(estimator, images)
    batch_losses = [mean_cross_entropy(logits[i : i + 100], labels[i : i + 100]) for i in range(0, 360, 100)]
    assert results["loss"] == pytest.approx(np.mean(batch_losses), rel=1e-5)
    assert results["accuracy"] == pytest.approx(np.mean(logits.argmax(axis=1) == labels))


def test_evaluate_steps_and_summaries_in_eval_dirs(estimator):
    two_batches = estimator.evaluate(
        numpy_input(DIGITS.test.images, DIGITS.test.labels, batch_size=100), steps=2, name="short"
    )
    first_200 = estimator.evaluate(numpy_input(DIGITS.test.images[:200], DIGITS.test.labels[:200], 100))
    assert two_batches["loss"] == pytest.approx(first_200["loss"], rel=1e-6)
    assert two_batches["accuracy"] == pytest.approx(first_200["accuracy"])

    for name, results in (("eval_short", two_batches), ("eval", first_200)):
        events = EventAccumulator(str(pathlib.Path(estimator.model_dir) / name)).Reload()
        assert sorted(events.Tags()["scalars"]) == ["accuracy", "loss"]
        (accuracy,) = events.Scalars("accuracy")
        assert accuracy.step == TRAIN_STEPS and accuracy.value == pytest.approx(results["accuracy"])


def test_train_writes_loss_summaries_to_model_dir(tmp_path):
    estimator = tf.estimator.Estimator(
        mlp_model_fn, str(tmp_path), config(save_summary_steps=4), params=PARAMS
    )
    estimator.train(numpy_input(DIGITS.train.images, DIGITS.train.labels, num_epochs=None), steps=10)
    events = EventAccumulator(str(tmp_path)).Reload()
    # TF1's SummarySaverHook: every 4 global steps, tagged with the step after the run.
    assert [e.step for e in events.Scalars("loss")] == [1, 5, 9]


def test_predict_classes_are_the_argmax_of_logits_by_hand(estimator):
    images = DIGITS.test.images[:70]
    predictions = list(estimator.predict(numpy_input(images, batch_size=32)))
    assert len(predictions) == 70 and sorted(predictions[0]) == ["classes", "logits"]
    logits = logits_by_hand(estimator, images)
    np.testing.assert_allclose(np.stack([p["logits"] for p in predictions]), logits, rtol=1e-4, atol=1e-5)
    assert [int(p["classes"]) for p in predictions] == logits.argmax(axis=1).tolist()

    batches = list(
        estimator.predict(
            numpy_input(images, batch_size=32), predict_keys=["classes"], yield_single_examples=False
        )
    )
    assert [sorted(b) for b in batches] == [["classes"]] * 3
    assert [len(b["classes"]) for b in batches] == [32, 32, 6]


def test_resume_continues_the_global_step_and_a_new_estimator_evaluates_the_same(estimator):
    eval_input = numpy_input(DIGITS.test.images, DIGITS.test.labels, batch_size=120)
    before = estimator.evaluate(eval_input)
    again = tf.estimator.Estimator(mlp_model_fn, estimator.model_dir, config(), params=PARAMS)
    assert again.evaluate(eval_input) == before

    train_input = numpy_input(DIGITS.train.images, DIGITS.train.labels, num_epochs=None, shuffle=True)
    again.train(train_input, steps=5)
    assert again.get_variable_value("global_step") == TRAIN_STEPS + 5
    assert again.latest_checkpoint().endswith(f"model.ckpt-{TRAIN_STEPS + 5}")


def test_max_steps_already_reached_does_nothing_and_otherwise_stops_there(estimator):
    train_input = numpy_input(DIGITS.train.images, DIGITS.train.labels, num_epochs=None, shuffle=True)
    checkpoint = estimator.latest_checkpoint()
    kernel = estimator.get_variable_value("dense/kernel")
    estimator.train(train_input, max_steps=TRAIN_STEPS)
    estimator.train(train_input, max_steps=10)
    assert estimator.latest_checkpoint() == checkpoint
    np.testing.assert_array_equal(estimator.get_variable_value("dense/kernel"), kernel)

    estimator.train(train_input, max_steps=TRAIN_STEPS + 3)
    assert estimator.get_variable_value("global_step") == TRAIN_STEPS + 3


def test_the_end_of_the_input_ends_training(tmp_path):
    estimator = tf.estimator.Estimator(mlp_model_fn, str(tmp_path), config(), params=PARAMS)
    estimator.train(
        numpy_input(DIGITS.train.images[:300], DIGITS.train.labels[:300], batch_size=64, num_epochs=2)
    )
    assert estimator.get_variable_value("global_step") == 10  # 600 rows in batches of 64


def test_variable_names_include_the_optimizer_slots(estimator):
    names = estimator.get_variable_names()
    assert {"global_step", "dense/kernel", "dense/kernel/Adam", "dense_1/bias"} <= set(names)
    with pytest.raises(NotFoundError, match="nope"):
        estimator.get_variable_value("nope")


def test_training_logs_loss_step_and_steps_per_sec(tmp_path, caplog):
    run_config = tf.estimator.RunConfig(log_step_count_steps=4)
    estimator = tf.estimator.Estimator(mlp_model_fn, str(tmp_path), run_config, params=PARAMS)
    with caplog.at_level(logging.INFO, logger="daskflow"):
        estimator.train(numpy_input(DIGITS.train.images, DIGITS.train.labels, num_epochs=None), steps=9)
    messages = [r.getMessage() for r in caplog.records if r.name == "daskflow"]
    steps = [m.split("step = ")[1].split()[0] for m in messages if m.startswith("loss = ")]
    assert steps == ["0", "4", "8"]
    assert sum(m.startswith("global_step/sec: ") for m in messages) == 2
    assert any(m.startswith("Loss for final step: ") for m in messages)


# -- TF1's numbers for a deterministic tiny model -------------------------------------------------


class _RecordLoss(tf.train.SessionRunHook):
    def __init__(self, loss, into):
        self._loss, self._into = loss, into

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self._into.append(float(run_values.results))


def reference_model_fn(features, labels, mode, params):
    init = {name: np.array(value, np.float32) for name, value in FIXTURE["initial_values"].items()}
    constant = lambda name: tf.constant_initializer(init[name])
    hidden = tf.layers.dense(
        features["images"],
        16,
        tf.nn.relu,
        kernel_initializer=constant("dense/kernel"),
        bias_initializer=constant("dense/bias"),
    )
    logits = tf.layers.dense(
        hidden, 10, kernel_initializer=constant("dense_1/kernel"), bias_initializer=constant("dense_1/bias")
    )
    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=logits)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=tf.train.get_global_step())
    accuracy = tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        eval_metric_ops={"accuracy": accuracy},
        training_hooks=[_RecordLoss(loss, params["losses"])],
    )


def test_matches_tf1_for_a_fixed_model_without_shuffling(tmp_path):
    train_x, train_y = DIGITS.train.images[:64], DIGITS.train.labels[:64]
    test_x, test_y = DIGITS.test.images[:50], DIGITS.test.labels[:50]
    data = FIXTURE["data"]
    assert train_y.tolist() == data["train_labels"] and test_y.tolist() == data["test_labels"]
    assert float(train_x.sum()) == pytest.approx(data["train_pixel_sum"])

    losses = []
    estimator = tf.estimator.Estimator(reference_model_fn, str(tmp_path), config(), params={"losses": losses})
    train_input = numpy_input(train_x, train_y, batch_size=16, num_epochs=None)
    estimator.train(train_input, steps=6)
    estimator.train(train_input, steps=4)  # restores the momentum slots; the input starts again

    np.testing.assert_allclose(losses, FIXTURE["train_losses"], rtol=2e-5)
    assert estimator.get_variable_value("global_step") == FIXTURE["global_step"]
    for name, value in FIXTURE["variables"].items():
        np.testing.assert_allclose(estimator.get_variable_value(name), value, rtol=1e-4, atol=1e-6)

    results = estimator.evaluate(numpy_input(test_x, test_y, batch_size=20))
    assert results["loss"] == pytest.approx(FIXTURE["eval"]["loss"], rel=2e-5)
    assert results["accuracy"] == pytest.approx(FIXTURE["eval"]["accuracy"])
    logits = np.stack(list(estimator.predict(numpy_input(test_x[:5]))))
    np.testing.assert_allclose(logits, FIXTURE["predict_logits"], rtol=1e-4, atol=1e-5)


# -- inputs, specs and train_and_evaluate ---------------------------------------------------------


def linear_model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    prediction = w * features
    loss = tf.reduce_mean(tf.square(prediction - labels)) if labels is not None else None
    train_op = None
    if mode == ModeKeys.TRAIN:
        optimizer = tf.train.GradientDescentOptimizer(params.get("learning_rate", 0.05))
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, predictions=prediction, loss=loss, train_op=train_op)


X = np.arange(1, 9, dtype=np.float32)


def test_input_fn_may_return_a_dataset_and_take_mode_params_and_config(tmp_path):
    seen = []

    def input_fn(mode, params, config):
        seen.append((mode, params["learning_rate"], config.model_dir))
        return tf.data.Dataset.from_tensor_slices((X, 3 * X)).repeat().batch(4)

    estimator = tf.estimator.Estimator(
        linear_model_fn, str(tmp_path), config(), params={"learning_rate": 0.01}
    )
    estimator.train(input_fn, steps=30)
    assert seen == [(ModeKeys.TRAIN, 0.01, str(tmp_path))]
    assert float(estimator.get_variable_value("w")) == pytest.approx(3.0, abs=1e-3)
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(X).batch(3)))
    np.testing.assert_allclose(predictions, 3 * X, rtol=1e-3)


def test_a_model_fn_without_mode_is_called_without_it_as_in_tf1(tmp_path):
    def model_fn(features, labels):
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(w * features - labels))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op=train_op)

    estimator = tf.estimator.Estimator(model_fn, str(tmp_path))
    estimator.train(tf.estimator.inputs.numpy_input_fn(X, X, batch_size=8, num_epochs=3, shuffle=False))
    assert estimator.get_variable_value("global_step") == 3


def test_warm_start_from_sets_the_trainable_variables(tmp_path):
    source = tf.estimator.Estimator(linear_model_fn, str(tmp_path / "a"), config(), params={})
    source.train(
        tf.estimator.inputs.numpy_input_fn(X, 3 * X, batch_size=8, num_epochs=None, shuffle=False), steps=5
    )
    warm = tf.estimator.Estimator(
        linear_model_fn,
        str(tmp_path / "b"),
        config(),
        params={"learning_rate": 0.0},
        warm_start_from=str(tmp_path / "a"),
    )
    warm.train(
        tf.estimator.inputs.numpy_input_fn(X, 3 * X, batch_size=8, num_epochs=None, shuffle=False), steps=1
    )
    assert warm.get_variable_value("w") == source.get_variable_value("w") != 0
    assert warm.get_variable_value("global_step") == 1


def test_train_and_evaluate_alternates_and_returns_the_last_metrics(tmp_path):
    estimator = tf.estimator.Estimator(
        linear_model_fn, str(tmp_path), config(save_checkpoints_steps=4), params={}
    )
    saves = []

    class Listener(tf.estimator.CheckpointSaverListener):
        def after_save(self, session, global_step_value):
            saves.append(global_step_value)

    train_spec = tf.estimator.TrainSpec(
        tf.estimator.inputs.numpy_input_fn(X, 3 * X, batch_size=4, num_epochs=None, shuffle=False),
        max_steps=10,
        saving_listeners=[Listener()],
    )
    eval_spec = tf.estimator.EvalSpec(
        tf.estimator.inputs.numpy_input_fn(X, 3 * X, batch_size=8, shuffle=False), steps=None, throttle_secs=0
    )
    metrics, exports = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert saves == [0, 4, 8, 10] and exports == []  # TF1 saves the starting state too
    assert metrics["global_step"] == 10
    events = EventAccumulator(str(tmp_path / "eval")).Reload()
    assert [e.step for e in events.Scalars("loss")] == [4, 8, 10]
    assert metrics == estimator.evaluate(eval_spec.input_fn)


def test_numpy_input_fn_batches_in_order_and_keeps_dtypes():
    with tf.Graph().as_default():
        features, labels = tf.estimator.inputs.numpy_input_fn(
            {"b": np.arange(5.0), "a": np.arange(5, dtype=np.int32)},
            {"y": np.arange(10, 15)},
            batch_size=2,
            num_epochs=2,
            shuffle=False,
        )()
        assert sorted(features) == ["a", "b"] and features["a"].dtype == tf.int32
        with tf.Session() as sess:
            batches = [sess.run(labels["y"]).tolist() for _ in range(5)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(labels["y"])
    assert batches == [[10, 11], [12, 13], [14, 10], [11, 12], [13, 14]]


# -- bad input --------------------------------------------------------------------------------------


def test_model_fn_arguments_are_checked():
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda labels, mode: None)
    with pytest.raises(ValueError, match=r"not expected args: \['extra'\]"):
        tf.estimator.Estimator(lambda features, labels, mode, extra: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(lambda features, labels, mode: None, params={"a": 1})
    with pytest.raises(ValueError, match="model_fn must be provided"):
        tf.estimator.Estimator(None)


def test_estimator_spec_requires_what_each_mode_needs():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        train_op = tf.no_op()
        with pytest.raises(ValueError, match="Missing train_op"):
            tf.estimator.EstimatorSpec(ModeKeys.TRAIN)
        with pytest.raises(ValueError, match="Missing loss"):
            tf.estimator.EstimatorSpec(ModeKeys.TRAIN, train_op=train_op)
        with pytest.raises(ValueError, match="Missing train_op"):
            tf.estimator.EstimatorSpec(ModeKeys.TRAIN, loss=loss)
        with pytest.raises(ValueError, match="Missing loss"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL)
        with pytest.raises(ValueError, match="Missing predictions"):
            tf.estimator.EstimatorSpec(ModeKeys.PREDICT)
        with pytest.raises(TypeError, match="loss must be Tensor"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=1.0)
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=loss, eval_metric_ops=[1])
        with pytest.raises(TypeError, match="SessionRunHook"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=loss, evaluation_hooks=["hook"])
        spec = tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([2.0]))
        assert spec.loss.shape.as_list() == [] and spec.predictions == {}
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the default graph"):
            tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=loss)


def test_predict_and_variables_need_a_checkpoint(tmp_path):
    estimator = tf.estimator.Estimator(linear_model_fn, str(tmp_path), params={})
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        next(estimator.predict(tf.estimator.inputs.numpy_input_fn(X, shuffle=False)))
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        estimator.get_variable_value("w")


def test_bad_calls_name_the_culprit(tmp_path):
    estimator = tf.estimator.Estimator(linear_model_fn, str(tmp_path), params={})
    input_fn = tf.estimator.inputs.numpy_input_fn(X, X, batch_size=4, shuffle=False)
    with pytest.raises(ValueError, match="both steps and max_steps"):
        estimator.train(input_fn, steps=1, max_steps=1)
    with pytest.raises(ValueError, match="steps > 0"):
        estimator.train(input_fn, steps=0)
    with pytest.raises(TypeError, match="SessionRunHook"):
        estimator.train(input_fn, hooks=["not a hook"])
    with pytest.raises(ValueError, match="model_fn does not take labels"):
        tf.estimator.Estimator(lambda features, mode: None, str(tmp_path)).train(input_fn)
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn(X, X)
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        tf.estimator.inputs.numpy_input_fn(X, X[:3], shuffle=False)()
    with pytest.raises(ValueError, match="`save_checkpoints_steps` and `save_checkpoints_secs`"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="model_dir"):
        tf.estimator.Estimator(
            linear_model_fn, str(tmp_path), tf.estimator.RunConfig(model_dir="/elsewhere"), params={}
        )

    def loss_metric_model_fn(features, labels, mode):
        loss = tf.reduce_mean(features)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"loss": tf.metrics.mean(loss)})

    with pytest.raises(ValueError, match='Metric with name "loss" is not allowed'):
        tf.estimator.Estimator(loss_metric_model_fn, str(tmp_path / "m")).evaluate(
            tf.estimator.inputs.numpy_input_fn(X, shuffle=False)
        )


def test_export_saved_model_serves_the_checkpoints_logits(estimator, tmp_path):
    images = DIGITS.test.images[:20]
    receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"images": tf.placeholder(tf.float32, [None, 64])}
    )
    export_dir = estimator.export_saved_model(str(tmp_path / "exports"), receiver_fn)
    assert isinstance(export_dir, bytes) and pathlib.Path(export_dir.decode()).parent == tmp_path / "exports"
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir.decode())
        signature = meta.signature_def["serving_default"]
        assert signature.method_name == "tensorflow/serving/predict"
        assert sorted(signature.outputs) == ["classes", "logits"]
        served = sess.run(signature.outputs["logits"].name, {signature.inputs["images"].name: images})
    np.testing.assert_allclose(served, logits_by_hand(estimator, images), rtol=1e-4, atol=1e-5)


def test_export_saved_model_without_a_checkpoint_names_the_model_dir(tmp_path):
    estimator = tf.estimator.Estimator(mlp_model_fn, str(tmp_path / "empty"), config(), params=PARAMS)
    receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"images": tf.placeholder(tf.float32)}
    )
    with pytest.raises(ValueError, match="Couldn't find trained model at .*empty"):
        estimator.export_saved_model(str(tmp_path / "exports"), receiver_fn)
    assert not (tmp_path / "exports").exists()
