"""``scaling_sim.py``'s all-reduce mode: N Horovod ranks on simulated accelerators, by the launcher.

Each rank (``daskflow launch --np N``) runs an embedded session of the same MLP
as the ps mode's replicas, placed on ``/device:GPU:0``, whose GPU module is
:mod:`sim_device` (products sleep for the device's time on ``--batch``
examples); ``hvd.DistributedOptimizer`` (SGD) averages the gradients by ring
all-reduce over the ranks' own receivers (compression on: ``Compression.fp16``).
Rank 0 reports its seconds per step, the bytes it sent per step (each rank
sends as much as it receives) and the machine's CPU over the timed steps.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

RANK_SCRIPT = """
import contextlib, json, sys, time
sys.path.insert(0, {here!r})
import numpy as np, psutil
import sim_device
import daskflow as tf
import daskflow.horovod as hvd
from daskflow.kernels import devices
from daskflow.ops import collective_ops
from data_parallel import SHAPES
from mlp import dense_layers, drawn_from

hvd.init()
simulated = {rate!r} is not None
if simulated:
    sim_device.configure({rate!r}, {per_row!r})
rng = np.random.default_rng(0)
images = rng.random(({rows} * 8, SHAPES[0]), dtype=np.float32)
labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], {rows} * 8)]
with devices.gpu_module(sim_device.module) if simulated else contextlib.nullcontext():
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).shard(hvd.size(), hvd.rank())
    x, y = ds.repeat().batch({rows}).make_one_shot_iterator().get_next()
    with tf.device("/device:GPU:0" if simulated else None):
        h = dense_layers(tf, x, SHAPES, drawn_from(rng))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
        compression = hvd.Compression.fp16 if {compressed} else hvd.Compression.none
        opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.01), compression=compression)
        train = opt.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(hvd.broadcast_global_variables(0))
        for _ in range(3):
            sess.run(train)
        transport = collective_ops.communicator().transport
        sent = transport.sent_bytes if transport is not None else 0
        cpu = psutil.cpu_times()
        start = time.perf_counter()
        for _ in range({steps}):
            sess.run(train)
        seconds = (time.perf_counter() - start) / {steps}
        after = psutil.cpu_times()
        sent = ((transport.sent_bytes if transport is not None else 0) - sent) / {steps}
busy = sum(after) - after.idle - (sum(cpu) - cpu.idle)
share = busy / (sum(after) - sum(cpu))
if hvd.rank() == 0:
    print("RESULT", json.dumps({{"step": seconds, "sent": sent, "cpu": share}}), flush=True)
"""


def measure(n, compressed, steps, rate, per_row, rows):
    """(seconds per step, bytes a rank sends per step, the machine's CPU share) of ``n`` ranks,
    each with batches of ``rows`` rows; on the simulated device of ``rate`` FLOP/s where
    ``per_row`` device examples stand for each row, or on this CPU where ``rate`` is None."""
    code = RANK_SCRIPT.format(
        here=str(HERE), rate=rate, per_row=per_row, rows=rows, steps=steps, compressed=bool(compressed)
    )
    result = launch_ranks(n, code)
    return result["step"], result["sent"], result["cpu"]


def launch_ranks(n, code, timeout=900):
    """Run the rank script ``code`` as ``n`` ranks (``daskflow launch --np n``): the JSON its
    rank 0 printed after ``RESULT``."""
    with tempfile.TemporaryDirectory(prefix="sim-ranks-") as workdir:
        script = Path(workdir) / "ranks.py"
        script.write_text(textwrap.dedent(code))
        command = [sys.executable, "-m", "daskflow.cli", "launch", "--np", str(n), str(script)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=workdir)
    line = next((ln for ln in done.stdout.splitlines() if "RESULT" in ln), None)
    if done.returncode != 0 or line is None:
        tail = done.stdout[-3000:] + done.stderr[-3000:]
        raise RuntimeError(f"the ranks failed ({done.returncode}):\n{tail}")
    return json.loads(line.split("RESULT", 1)[1])
