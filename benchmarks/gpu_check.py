"""Check daskflow on a machine with an NVIDIA GPU: its kernels, and its steps' speed.

Installs nothing: it needs daskflow with its ``gpu`` extra (cupy seeing a GPU);
TensorFlow with GPU support joins where it is importable. One summary line per
check, ``check: figure (goal) ok|LOW|FAILED``:

- ``ops``: ``tests/test_portable_kernels.py`` with cupy in the stand-in's
  place: every op's kernel and gradient on the GPU, against numpy's values.
- ``mlp-embedded``, ``cnn-embedded``: one training step at a time on
  ``/device:GPU:0`` in an embedded session: examples/s ÷ those of the same step
  hand-written in cupy (goal >= 0.9). The MLP's baseline is pure cupy; the
  CNN's calls daskflow's own conv and pool kernels with ``xp = cupy``, so it
  measures everything but them.
- ``mlp-cluster``: the MLP on a local cluster, its variables on a CPU ps and
  its compute on a GPU worker (``tf.local_cluster(ps=1, workers=0, gpus=1)``),
  ÷ the hand-written cupy step (every step crosses the ps: a figure to watch,
  no goal).
- ``mlp-tf1``, ``cnn-tf1``: daskflow embedded ÷ TF1's graph mode on the GPU.

``--standin`` runs every check on ``tests/strict_device.py`` instead of cupy
(no GPU needed: it tests this script, its figures mean nothing); ``--record``
writes the table into RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MLP = (784, 1024, 1024, 10)
GOAL = 0.9


def mlp_graph(tf, batch, lr=0.1, device="/gpu:0"):
    """The MLP as a TF1 program (daskflow or TF1) under ``device`` (a string or a device
    function); its step fetches the loss."""
    import numpy as np

    rng = np.random.default_rng(0)
    with tf.device(device):
        x = tf.placeholder(tf.float32, [None, MLP[0]])
        y = tf.placeholder(tf.float32, [None, MLP[-1]])
        h = x
        for i, (a, b) in enumerate(zip(MLP, MLP[1:])):
            w = tf.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32))
            h = tf.matmul(h, w) + tf.Variable(tf.zeros([b]))
            h = tf.nn.relu(h) if i < len(MLP) - 2 else h
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    return x, y, loss, train


def cnn_graph(tf, lr=0.01):
    """mnist_deep's CNN with explicit variables and plain SGD, all on GPU 0."""
    import numpy as np

    rng = np.random.default_rng(0)

    def var(*shape):
        return tf.Variable((rng.standard_normal(shape) * 0.05).astype(np.float32))

    with tf.device("/gpu:0"):
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.float32, [None, 10])
        h = x
        for w in (var(5, 5, 1, 32), var(5, 5, 32, 64)):
            h = tf.nn.relu(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"))
            h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), var(7 * 7 * 64, 1024)))
        logits = tf.matmul(h, var(1024, 10))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    return x, y, loss, train


def _xent(xp, logits, y):
    """Mean softmax cross-entropy and its gradient with respect to the logits."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = xp.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    loss = (y * (xp.log(total) - shifted)).sum(axis=1).mean()
    return loss, (e / total - y) / len(logits)


def mlp_by_hand(xp, lr=0.1):
    """The MLP step hand-written against ``xp`` (embedded_step's numpy baseline), waiting
    for the GPU after each step as a fetch does."""
    from embedded_step import numpy_step

    step = numpy_step(MLP, lr, xp=xp)

    def synced(x, y):
        step(xp.asarray(x), xp.asarray(y))
        xp.cuda.Stream.null.synchronize()

    return synced


def cnn_by_hand(xp, lr=0.01):
    """The CNN step against ``xp``, with daskflow's conv and pool kernels."""
    import numpy as np

    from daskflow.kernels import conv

    rng = np.random.default_rng(0)
    shapes = [(5, 5, 1, 32), (5, 5, 32, 64), (7 * 7 * 64, 1024), (1024, 10)]
    ws = [xp.asarray((rng.standard_normal(s) * 0.05).astype(np.float32)) for s in shapes]
    one, two = (1, 1), (2, 2)

    def step(x, y):
        x, y = xp.asarray(x), xp.asarray(y)
        maps, h = [], x
        for w in ws[:2]:
            z = xp.maximum(conv.conv2d(xp, h, w, one, "SAME"), 0)
            p = conv.max_pool(xp, z, two, two, "SAME")
            maps.append((h, z, p))
            h = p
        flat = h.reshape(len(x), -1)
        hidden = xp.maximum(flat @ ws[2], 0)
        loss, g = _xent(xp, hidden @ ws[3], y)
        grads = [None] * 4
        grads[3] = hidden.T @ g
        g = (g @ ws[3].T) * (hidden > 0)
        grads[2] = flat.T @ g
        g = (g @ ws[2].T).reshape(h.shape)
        for i in (1, 0):
            inp, z, p = maps[i]
            g = conv.max_pool_grad(xp, z, p, g, two, two, "SAME") * (z > 0)
            grads[i] = conv.conv2d_backprop_filter(xp, inp, ws[i].shape, g, one, "SAME")
            if i:
                g = conv.conv2d_backprop_input(xp, inp.shape, ws[i], g, one, "SAME")
        for w, gw in zip(ws, grads):
            w -= lr * gw
        return float(loss)

    return step


def session_step(tf, make, config=None, target=""):
    """A step of ``make(tf)``'s graph in a new session: ``step(x, y)`` -> loss."""
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train = make(tf)
        sess = tf.Session(target, graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda xs, ys: float(sess.run([train, loss], {x: xs, y: ys})[1])


def rate(step, xs, ys, steps, rounds):
    """Examples per second of ``step``: the median of ``rounds`` blocks of ``steps``."""
    step(xs, ys)  # plans, compiles and warms the GPU up
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(steps):
            step(xs, ys)  # fetching the loss waits for the GPU
        times.append(time.perf_counter() - start)
    return len(xs) * steps / statistics.median(times)


def _data(shape, batch):
    import numpy as np

    rng = np.random.default_rng(1)
    xs = rng.random((batch, *shape), dtype=np.float32)
    return xs, np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]


def _line(check, figure, goal=None, failed=False):
    verdict = "FAILED" if failed else "" if goal is None else "ok" if figure >= goal else "LOW"
    shown = figure if isinstance(figure, str) else f"{figure:.2f}x"
    aim = "" if goal is None else f" (goal >= {goal})"
    print(f"{check}: {shown}{aim} {verdict}".rstrip(), flush=True)
    return [check, shown, f">= {goal}" if goal else "-", verdict or "-"]


def check_ops(standin):
    """The portable-kernel tests on the GPU (or the stand-in): one line, passed and failed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not standin:
        env["DASKFLOW_TEST_GPU"] = "cupy"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_portable_kernels.py"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    summary = (done.stdout.strip().splitlines() or ["no output"])[-1]
    return _line("ops", summary, failed=done.returncode != 0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--standin", action="store_true", help="run on tests/strict_device.py: no GPU")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import daskflow as tf
    from daskflow.kernels import devices

    if args.standin:
        from tests.strict_device import cupy as xp
    else:
        xp = devices.current_gpu_module()
        if xp is None:
            sys.exit("gpu_check: cupy sees no GPU here (pip install -e '.[gpu]' on a machine with one)")
    rows = [["check", "figure", "goal", "verdict"], check_ops(args.standin)]
    with devices.gpu_module(xp):
        rows += speed_checks(tf, xp, args)
    if args.record:
        from record import record

        record("gpu_check", "GPU check: speed ÷ the same step hand-written in cupy", rows)


def speed_checks(tf, xp, args):
    mlp_data, cnn_data = _data((MLP[0],), args.batch), _data((28, 28, 1), 64)
    timing = dict(steps=args.steps, rounds=args.rounds)
    rows = []
    mlp_hand = rate(mlp_by_hand(xp), *mlp_data, **timing)
    mlp = rate(session_step(tf, lambda t: mlp_graph(t, args.batch)), *mlp_data, **timing)
    rows.append(_line("mlp-embedded", mlp / mlp_hand, GOAL))
    cnn_hand = rate(cnn_by_hand(xp), *cnn_data, **timing)
    cnn = rate(session_step(tf, cnn_graph), *cnn_data, **timing)
    rows.append(_line("cnn-embedded", cnn / cnn_hand, GOAL))
    rows.append(_line("mlp-cluster", cluster_rate(tf, args, mlp_data, timing) / mlp_hand))
    rows += tf1_checks(args, mlp_data, cnn_data, timing, mlp, cnn)
    return rows


def cluster_rate(tf, args, data, timing):
    """The MLP with its variables on a CPU ps and its compute on a GPU worker."""

    def placed(t):
        setter = t.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0/device:GPU:0")
        return mlp_graph(t, args.batch, device=setter)

    # The stand-in lives in this process only: there, a threaded worker offering a GPU.
    gpus = dict(gpu_workers=1, processes=False) if args.standin else dict(gpus=1)
    with tf.local_cluster(ps=1, workers=0, **gpus) as cluster:
        return rate(session_step(tf, placed, target=cluster), *data, **timing)


def tf1_checks(args, mlp_data, cnn_data, timing, mlp, cnn):
    try:
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow.compat.v1 as tf1
    except ImportError:
        return [_line("tf1", "skipped: TensorFlow is not importable")]
    if not tf1.config.list_physical_devices("GPU") or args.standin:
        return [_line("tf1", "skipped: TensorFlow sees no GPU")]
    tf1.disable_eager_execution()
    mlp_tf1 = rate(session_step(tf1, lambda t: mlp_graph(t, args.batch)), *mlp_data, **timing)
    cnn_tf1 = rate(session_step(tf1, cnn_graph), *cnn_data, **timing)
    return [_line("mlp-tf1", mlp / mlp_tf1), _line("cnn-tf1", cnn / cnn_tf1)]


if __name__ == "__main__":
    main()
