"""A TF1 Estimator program for distributed training: one process per task, TF_CONFIG.

Our own program, written as a TF1 user writes one (only ``import daskflow as
tf`` differs). ``tf.estimator.train_and_evaluate`` reads the task from the
``TF_CONFIG`` environment variable: the ps serves the variables, the chief
and the workers train the same model, the evaluator evaluates checkpoints.

    daskflow launch estimator_replica.py --ps 1 --workers 1 --chief --evaluator --no-flags -- MODEL_DIR
"""

import json
import os
import sys

import daskflow as tf
from daskflow.datasets import load_digits

MAX_STEPS = int(os.environ.get("MAX_STEPS", "300"))


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features["x"], 64, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    predictions = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.EVAL:
        metrics = {"accuracy": tf.metrics.accuracy(labels=labels, predictions=predictions)}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    model_dir = sys.argv[1]
    data = load_digits(seed=0)
    train_input = tf.estimator.inputs.numpy_input_fn(
        {"x": data.train.images},
        data.train.labels.astype("int32"),
        batch_size=32,
        num_epochs=None,
        shuffle=True,
    )
    eval_input = tf.estimator.inputs.numpy_input_fn(
        {"x": data.test.images}, data.test.labels.astype("int32"), num_epochs=1, shuffle=False
    )
    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=100, log_step_count_steps=None
    )
    estimator = tf.estimator.Estimator(model_fn, config=config)
    metrics, _ = tf.estimator.train_and_evaluate(
        estimator,
        tf.estimator.TrainSpec(train_input, max_steps=MAX_STEPS),
        tf.estimator.EvalSpec(eval_input, steps=None, throttle_secs=0, start_delay_secs=0),
    )
    print("%s %d done" % (config.task_type, config.task_id), flush=True)
    if metrics is not None:
        report = {k: float(v) for k, v in metrics.items()}
        with open(os.path.join(model_dir, "evaluation.json"), "w") as f:
            json.dump(report, f)
        print("evaluation:", report, flush=True)


if __name__ == "__main__":
    main()
