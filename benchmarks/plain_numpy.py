"""The machine's own scaling: the data-parallel benchmark's MLP step in plain numpy.

No framework, no parameter server, no transfers: each process runs the
forward and backward pass of the MLP, gradients included, with one BLAS
thread: what a daskflow replica computes (the update is the ps's part). Two
such processes at once share the machine's caches and memory bandwidth and,
on a virtual machine, whatever else its host runs. How much more two of them
do than one is the most any runtime can scale to on this machine: the
ceiling that daskflow's ratio is compared with.
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np


def mlp_step(shapes, batch, seed):
    """A function computing the gradients of the MLP (ReLU layers, softmax
    cross-entropy) on a fixed random batch: a replica's part of a step."""
    rng = np.random.default_rng(seed)
    weights = [(rng.standard_normal((a, b)) * 0.01).astype(np.float32) for a, b in zip(shapes, shapes[1:])]
    biases = [np.zeros(b, np.float32) for b in shapes[1:]]
    x = rng.random((batch, shapes[0]), dtype=np.float32)
    y = np.eye(shapes[-1], dtype=np.float32)[rng.integers(0, shapes[-1], batch)]

    def step():
        acts = [x]
        for k, (w, b) in enumerate(zip(weights, biases)):
            h = acts[-1] @ w + b
            acts.append(np.maximum(h, 0) if k < len(weights) - 1 else h)
        z = acts.pop()
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        delta = (p - y) / batch
        grads = []
        for k in reversed(range(len(weights))):
            grads += [acts[k].T @ delta, delta.sum(axis=0)]
            if k:
                delta = (delta @ weights[k].T) * (acts[k] > 0)
        return grads

    return step


def _serve(conn, barrier, shapes, batch, seed):
    """A process's loop: warm up, then run each (steps, sync) job and send its seconds."""
    step = mlp_step(shapes, batch, seed)
    for _ in range(3):
        step()
    conn.send("ready")
    while (job := conn.recv()) is not None:
        steps, sync = job
        barrier.wait()  # all start together
        start = time.perf_counter()
        for _ in range(steps):
            step()
            if sync:
                barrier.wait()  # a synchronous step ends when every replica's does
        conn.send(time.perf_counter() - start)


class PlainReplicas:
    """``n`` processes computing the MLP's steps, kept up between runs (a context manager)."""

    def __init__(self, n, shapes, batch):
        context = multiprocessing.get_context("spawn")  # no threads inherited from Dask's client
        # Kept here: a started Process drops its arguments, and a barrier no process object
        # holds any more is unlinked before the next process could open it.
        self._barrier = barrier = context.Barrier(n)
        self._conns, self._procs = [], []
        for i in range(n):
            here, there = context.Pipe()
            proc = context.Process(target=_serve, args=(there, barrier, shapes, batch, i), daemon=True)
            self._conns.append(here)
            self._procs.append(proc)

    def __enter__(self):
        for proc in self._procs:
            proc.start()
        for conn in self._conns:
            conn.recv()  # "ready"
        return self

    def __exit__(self, *exc):
        for conn in self._conns:
            conn.send(None)
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()

    def seconds_per_step(self, steps, sync):
        """Mean seconds per step over ``steps`` steps, all processes at once (the slowest's);
        ``sync``: every step waits for every process's, as a synchronous global step does."""
        for conn in self._conns:
            conn.send((steps, sync))
        return max(conn.recv() for conn in self._conns) / steps
