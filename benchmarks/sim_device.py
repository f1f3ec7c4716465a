"""A simulated accelerator: a stand-in for cupy whose matrix products take a GPU's time by sleeping.

daskflow runs a partition placed on ``/device:GPU:k`` with the process's GPU
module as its kernels' namespace ``xp`` (:mod:`daskflow.kernels.devices`).
:data:`module` plays that part on a machine with no GPU, for
``scaling_sim.py``: a worker's compute then costs the time an accelerator of
a stated rate would take, while its CPU stays free for what is real (the ps's
updates, serialization and transfers, the scheduler, the client).

- Arrays "on the device" are :class:`SimArray`, a numpy subclass: uploading and
  downloading are views, not copies.
- A matrix product of SimArrays (``a @ b``, ``xp.matmul``) sleeps
  ``2 * m * k * n * batch / rate`` seconds and returns zeros of the product's
  shape and dtype. Each row of a replica's batch stands for
  ``examples_per_row`` examples on the device, so a large device batch costs
  its FLOPs without its activations being materialized on this CPU.
- Only products through ``@`` and ``xp.matmul`` are simulated (the MLP's only
  kind); ``einsum``, ``dot`` and ``tensordot`` run for real.
- Every other kernel runs for real on the arrays as they are (small: the
  rows actually held). Their device time is not charged: elementwise work on
  a GPU is memory-bound and small beside the products.

The values are placeholders (zeros): the simulation measures time, not
learning. Configure a process with :func:`configure` (``scaling_sim.py`` does
it on every worker through a Dask worker plugin).
"""

from __future__ import annotations

import threading
import time
import types

import numpy as np

RATE = 1e12  # simulated FLOP/s of one device
EXAMPLES_PER_ROW = 1  # device examples each row of a replica's batch stands for
DEVICE_COUNT = 64  # as many "GPUs" as a local cluster's workers can ask for
asleep = [0.0]  # seconds this process has spent in simulated products
_counting = threading.Lock()


def configure(rate: float, examples_per_row: int = 1):
    """Set this process's device rate (FLOP/s) and examples per row."""
    global RATE, EXAMPLES_PER_ROW
    RATE, EXAMPLES_PER_ROW = float(rate), int(examples_per_row)


class SimArray(np.ndarray):
    """An array on the simulated device: numpy's data, simulated matrix products."""

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)


def product_flops(a_shape, b_shape) -> tuple[int, tuple]:
    """(FLOPs, result shape) of ``a @ b`` for operands of at least two axes."""
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    (m, k), n = a_shape[-2:], b_shape[-1]
    if k != b_shape[-2]:
        raise ValueError(f"matmul: mismatched inner dimensions {a_shape} @ {b_shape}")
    return 2 * m * k * n * int(np.prod(batch, dtype=np.int64)), (*batch, m, n)


def matmul(a, b, out=None):
    """``a @ b`` on the simulated device: its time asleep, zeros for its value."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim < 2 or b.ndim < 2 or out is not None:
        return np.matmul(a, b, out=out).view(SimArray)  # vector products: rare and small
    flops, shape = product_flops(a.shape, b.shape)
    seconds = flops * EXAMPLES_PER_ROW / RATE
    time.sleep(seconds)
    with _counting:  # workers sharing a process (threads) multiply at once
        asleep[0] += seconds
    return np.zeros(shape, np.result_type(a, b)).view(SimArray)


def asarray(x, dtype=None):
    return np.asarray(x, dtype=dtype).view(SimArray)


def asnumpy(x):
    return np.asarray(x)  # a view with numpy's own class


class _Device:
    def __init__(self, index=0):
        self.index = index

    def use(self):
        return None

    def synchronize(self):
        return None


class _Pool:
    def used_bytes(self):
        return 0

    def free_all_blocks(self):
        return None


_POOL = _Pool()


def get_default_memory_pool():
    return _POOL


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: DEVICE_COUNT),
    Stream=types.SimpleNamespace(null=_Device()),
)


class _Module(types.ModuleType):
    """numpy's names, with this file's in their place where it has them."""

    def __getattr__(self, name):
        return getattr(np, name)


module = _Module("simulated_accelerator")
module.__file__ = __file__
for _name in ("ndarray", "asarray", "asnumpy", "matmul", "cuda", "get_default_memory_pool"):
    setattr(module, _name, globals()[_name if _name != "ndarray" else "SimArray"])
