"""Array namespaces per device: numpy on the CPU, the GPU module (cupy) on a GPU.

A partition placed on ``/device:GPU:k`` runs its kernels with ``xp`` = a
:class:`DeviceNamespace`: cupy's names, on GPU ``k``. Its inputs are uploaded
where they enter the partition and the values it hands to the CPU, another
device or the client are brought back to the host where they leave it, so a
value crosses once per edge, never per op.

The GPU module is looked up in the process that runs the partition, on first
use, not where the step was planned: a client without cupy plans steps for GPU
workers. A process with no usable GPU (cupy missing, or no CUDA device) runs a
GPU partition with numpy, as TF1's soft placement would place it on the CPU.

:func:`gpu_module` lets a process use another module in cupy's place: tests
run every kernel on a strict stand-in for cupy, so a kernel that would copy a
device array to the host, or call numpy on it, fails on a machine with no GPU.
"""

from __future__ import annotations

import contextlib
import functools

import numpy

_standin = None  # a module used in cupy's place (see gpu_module)


@contextlib.contextmanager
def gpu_module(module):
    """Run this process's GPU partitions with ``module`` in cupy's place.

    ``module`` must offer what daskflow uses of cupy: numpy's functions for
    its kernels, ``ndarray``, ``asarray``, ``asnumpy``, ``cuda.Device(k).use()``
    and ``get_default_memory_pool()``. Namespaces made inside the block keep
    it (a session planned inside runs with it).
    """
    global _standin
    previous, _standin = _standin, module
    try:
        yield module
    finally:
        _standin = previous


def current_gpu_module():
    """The module GPU partitions of this process run with; None: no usable GPU."""
    return _standin if _standin is not None else _cupy()


@functools.cache
def _cupy():
    try:
        import cupy
    except ImportError:
        return None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver, no device: CUDA raises its own errors
        return None
    return cupy if count > 0 else None


def gpu_count() -> int:
    """How many GPUs this process's GPU module sees (0 without one)."""
    module = current_gpu_module()
    return int(module.cuda.runtime.getDeviceCount()) if module is not None else 0


def is_gpu(device: str) -> bool:
    """Whether the device string names a GPU (``/device:GPU:0``, ``/gpu:1``)."""
    return "device:GPU" in device  # device strings are normalized when ops are made


def gpu_index(device: str) -> int:
    """The GPU's index in ``device`` (0 when unspecified or ``*``)."""
    tail = device.rpartition(":")[2]
    return int(tail) if tail.isdigit() else 0


class DeviceNamespace:
    """``xp`` for kernels on GPU ``index``: the GPU module's names, bound on first use.

    Besides the module's own names, it has ``to_device(x)`` (host arrays up,
    anything else as it is), ``to_host(x)`` and ``use()`` (make GPU ``index``
    this thread's current device). It pickles as its index alone, so the
    process that unpickles it binds its own GPU module.
    """

    def __init__(self, index: int = 0):
        self.index = index
        self._module = current_gpu_module() or numpy

    def __reduce__(self):
        return (DeviceNamespace, (self.index,))

    def __repr__(self):
        return f"<DeviceNamespace GPU:{self.index} ({self._module.__name__})>"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _plumbing(self._module, self.index, name)
        if value is None:
            value = getattr(self._module, name)
        setattr(self, name, value)  # the next lookup is a plain attribute
        return value


def _plumbing(module, index, name):
    """The boundary functions of a namespace on ``module``'s GPU ``index``."""
    if module is numpy:  # no GPU here: the partition runs on the CPU
        same = _unchanged
        return {"to_device": same, "to_host": same, "use": _nothing}.get(name)
    if name == "to_device":
        return functools.partial(_upload, module.asarray)
    if name == "to_host":
        return functools.partial(_download, module.ndarray, module.asnumpy)
    if name == "use":
        return module.cuda.Device(index).use
    return None


def _unchanged(x):
    return x


def _nothing():
    return None


def _upload(asarray, x):
    if type(x) is numpy.ndarray and x.dtype.kind != "O" or isinstance(x, numpy.generic):
        return asarray(x)
    return x  # device arrays, None (a variable not yet set), handles, strings


def _download(device_array, asnumpy, x):
    return asnumpy(x) if isinstance(x, device_array) else x


def to_host(x):
    """``x`` as a host value: device arrays copied to numpy, anything else as it is."""
    if type(x) is numpy.ndarray or isinstance(x, numpy.generic) or x is None:
        return x  # the CPU's values: the common case, on every fetch
    module = current_gpu_module()
    if module is not None and isinstance(x, module.ndarray):
        return module.asnumpy(x)
    return x


class DeviceConstant:
    """A constant folded on the host, uploaded to its partition's GPU once."""

    __slots__ = ("host", "namespace", "_value")

    def __init__(self, host, namespace):
        self.host, self.namespace, self._value = host, namespace, None

    def __reduce__(self):
        return (DeviceConstant, (self.host, self.namespace))

    def __call__(self):
        value = self._value
        if value is None:
            value = self._value = self.namespace.to_device(self.host)
        return value


def memory_in_use() -> int:
    """Bytes the GPU module's memory pool holds for arrays now (0 without a GPU)."""
    module = current_gpu_module()
    return int(module.get_default_memory_pool().used_bytes()) if module is not None else 0


def free_memory():
    """Give the GPU memory pool's unused blocks back to the device (a session closed)."""
    module = current_gpu_module()
    if module is not None:
        module.get_default_memory_pool().free_all_blocks()
