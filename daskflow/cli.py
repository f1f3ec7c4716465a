"""The ``daskflow`` command line.

``daskflow demo`` trains a small MLP on scikit-learn's digits (bundled with
the package, nothing downloaded) in an embedded Session, with a progress
bar, and prints the test accuracy.
"""

from __future__ import annotations

import argparse
import sys
import time


def build_mlp(tf, features, hidden, classes, seed):
    """A one-hidden-layer MLP; returns (x, y_, logits)."""
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, features], name="x")
    y_ = tf.placeholder(tf.float32, [None, classes], name="y_")
    with tf.name_scope("hidden"):
        w1 = tf.Variable(tf.truncated_normal([features, hidden], stddev=0.1), name="weights")
        b1 = tf.Variable(tf.zeros([hidden]), name="biases")
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.name_scope("softmax_linear"):
        w2 = tf.Variable(tf.truncated_normal([hidden, classes], stddev=0.1), name="weights")
        b2 = tf.Variable(tf.zeros([classes]), name="biases")
        logits = tf.matmul(h, w2) + b2
    return x, y_, logits


def demo(args) -> float:
    from tqdm import tqdm

    import daskflow as tf
    from daskflow.datasets import load_digits

    data = load_digits(one_hot=True, seed=args.seed)
    tf.reset_default_graph()
    x, y_, logits = build_mlp(tf, data.train.images.shape[1], args.hidden, 10, args.seed)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss, global_step=global_step)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    start = time.perf_counter()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        bar = tqdm(range(args.steps), desc="training", unit="step", disable=args.quiet)
        for i in bar:
            xs, ys = data.train.next_batch(args.batch_size)
            _, value = sess.run([train_op, loss], {x: xs, y_: ys})
            if i % 50 == 0:
                bar.set_postfix(loss=f"{value:.3f}")
        bar.close()
        acc = sess.run(accuracy, {x: data.test.images, y_: data.test.labels})
        step = sess.run(global_step)
    elapsed = time.perf_counter() - start
    print(f"test accuracy: {acc:.4f}  ({step} steps, {data.test.num_examples} test digits, {elapsed:.1f} s)")
    return float(acc)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="daskflow", description="TensorFlow 1.x graphs, run by Dask.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command")
    p = commands.add_parser("demo", help="train an MLP on the bundled digits (embedded session)")
    p.add_argument("--steps", type=int, default=1500, help="training steps (default 1500)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    p.add_argument("--learning-rate", type=float, default=0.005)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.version:
        from daskflow import __version__

        print(__version__)
        return 0
    if args.command == "demo":
        for name in ("steps", "batch_size", "hidden"):
            if getattr(args, name) <= 0:
                parser.error(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
        demo(args)
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
