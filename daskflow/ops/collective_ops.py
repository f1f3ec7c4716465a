"""Collectives among a job's ranks, as Horovod's TF ops: all-reduce, all-gather, broadcast.

Each kernel hands its arrays to this process's communicator
(:func:`install`: :func:`daskflow.horovod.init` installs one), which runs the
collective with the other ranks (:mod:`daskflow.runtime.collectives`); the
reduction is the kernel's. ``reduce_op``: Horovod's codes (:data:`AVERAGE`,
:data:`SUM`, :data:`ADASUM`, :data:`MIN`, :data:`MAX`, :data:`PRODUCT`).
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from .. import dtypes
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..framework.apply import apply
from ..framework.function import FuncGraph
from ..framework.graph import device, get_default_graph
from ..framework.primitive import Primitive
from ..kernels.devices import to_host
from . import array_ops
from .infer import same

AVERAGE, SUM, ADASUM, MIN, MAX, PRODUCT = range(6)
_NAMES = {AVERAGE: "Average", SUM: "Sum", ADASUM: "Adasum", MIN: "Min", MAX: "Max", PRODUCT: "Product"}
_INTO = {  # reduce(into, other): into <- into (op) other, in place
    AVERAGE: lambda a, b: np.add(a, b, out=a),
    SUM: lambda a, b: np.add(a, b, out=a),
    MIN: lambda a, b: np.minimum(a, b, out=a),
    MAX: lambda a, b: np.maximum(a, b, out=a),
    PRODUCT: lambda a, b: np.multiply(a, b, out=a),
}

_installed = [None]  # this process's Communicator


def install(communicator) -> None:
    """Make ``communicator`` (or None) the one this process's collective kernels use."""
    _installed[0] = communicator


def communicator():
    """The installed communicator.

    Raises
    ------
    ValueError
        None is: ``hvd.init()`` was not called (Horovod's error at graph building).
    """
    if _installed[0] is None:
        raise ValueError(NOT_INITIALIZED)
    return _installed[0]


NOT_INITIALIZED = "Horovod has not been initialized; use hvd.init()."


def _running():
    """The communicator a kernel runs with (its failures are ``FailedPreconditionError``s
    already, Horovod's error on every rank); the same error where none is installed."""
    if _installed[0] is None:
        raise FailedPreconditionError(None, None, NOT_INITIALIZED)
    return _installed[0]


# -- kernels -------------------------------------------------------------------------------------
def _allreduce_kernel(xp, tensor, **attrs):
    return _reduced([tensor], **attrs)[0]


def _grouped_kernel(xp, *tensors, **attrs):
    return _outputs(_reduced(tensors, **attrs))


def _reduced(tensors, *, reduce_op, prescale_factor, postscale_factor, tensor_name):
    arrays, comm = _prescaled(tensors, prescale_factor), _running()
    if reduce_op == ADASUM:
        out = [_adasum(comm.allgather(a.reshape(1, *a.shape), tensor_name)) for a in arrays]
    else:
        out = comm.allreduce(arrays, _INTO[reduce_op], tensor_name)
    return _postscaled(out, reduce_op, postscale_factor, comm.size)


_pending: dict[int, tuple] = {}  # handle -> (future, reduce_op, postscale) of the reductions under way
_handles = iter(range(1, 1 << 62))


def _start_kernel(xp, *tensors, reduce_op, prescale_factor, postscale_factor, tensor_name):
    """Hand the tensors to the ranks' collective thread; a handle to wait on (the
    ring runs while the step goes on computing)."""
    arrays = _prescaled(tensors, prescale_factor, copy=True)  # the step may reuse its buffers
    future = _running().start("allreduce", arrays, _INTO[reduce_op], tensor_name)
    handle = next(_handles)
    _pending[handle] = (future, reduce_op, postscale_factor)
    return np.int64(handle)


def forget_started() -> None:
    """Drop the reductions started and not awaited (their step failed; their ring is gone)."""
    _pending.clear()


def _wait_kernel(xp, handle, *shapes_of):
    """The reduced tensors of the reduction ``handle`` started."""
    future, reduce_op, postscale_factor = _pending.pop(int(handle))
    return _outputs(_postscaled(future.result(), reduce_op, postscale_factor, _running().size))


def _prescaled(tensors, factor, copy=False):
    arrays = [np.asarray(to_host(t)) for t in tensors]
    if factor != 1.0:
        return [_scaled(a, factor) for a in arrays]  # new arrays
    return [np.array(a, copy=True) for a in arrays] if copy else arrays


def _postscaled(arrays, reduce_op, factor, size):
    """Horovod's scaling after the sum: Average divides by the ranks' count."""
    scale = factor / size if reduce_op == AVERAGE else factor
    return [_scaled(a, scale) if scale != 1.0 else a for a in arrays]


def _outputs(arrays):
    return arrays[0] if len(arrays) == 1 else tuple(arrays)  # an op of one output takes its array


def _scaled(a, factor):
    """``a * factor`` in ``a``'s dtype (integers: rounded toward zero, as Horovod's scaling)."""
    if a.dtype.kind in "fc":
        return (a * a.dtype.type(factor)).astype(a.dtype, copy=False)
    return np.trunc(a * factor).astype(a.dtype)


def _adasum(stacked):
    """Adasum of the ranks' values (``stacked[r]``), pairs combined as a binary tree: for
    a pair, ``(1 - a.b / 2|a|^2) a + (1 - a.b / 2|b|^2) b`` (a zero vector adds as itself)."""
    values = [v.astype(np.float64) for v in stacked]
    while len(values) > 1:
        values = [
            _adasum_pair(values[i], values[i + 1]) if i + 1 < len(values) else values[i]
            for i in range(0, len(values), 2)
        ]
    return values[0].astype(stacked.dtype)


def _adasum_pair(a, b):
    dot, aa, bb = float(np.vdot(a, b)), float(np.vdot(a, a)), float(np.vdot(b, b))
    ca = 1.0 - dot / (2 * aa) if aa else 1.0
    cb = 1.0 - dot / (2 * bb) if bb else 1.0
    return ca * a + cb * b


def _allgather_kernel(xp, tensor, *, tensor_name):
    value = np.asarray(to_host(tensor))
    if value.ndim == 0:
        raise InvalidArgumentError(None, None, f"{tensor_name}: allgather of a rank-zero tensor")
    return _running().allgather(value, tensor_name)


def _broadcast_kernel(xp, tensor, *, root_rank, tensor_name):
    comm = _running()
    if not 0 <= root_rank < comm.size:
        raise InvalidArgumentError(
            None, None, f"broadcast received invalid root rank {root_rank} for provided process set"
        )
    return comm.broadcast(np.asarray(to_host(tensor)), root_rank, tensor_name)


def _join_kernel(xp):
    """The rank that joined last. Until every rank has joined, this one serves the others'
    collectives giving nothing (Horovod's join: ranks with less data stop early)."""
    return np.int32(_running().join())


# -- shapes --------------------------------------------------------------------------------------
def _each(inputs, **_):
    return [(t._dims, t.dtype) for t in inputs]


def _waited(inputs, **_):
    return _each(inputs[1:])  # the handle, then the tensors it reduces


def _gathered(inputs, **_):
    (t,) = inputs
    dims = None if t._dims is None else (None, *t._dims[1:])
    return dims, t.dtype


# -- gradients -----------------------------------------------------------------------------------
def _same_reduction(op):
    """The reduction ``op`` ran, as its gradient runs it too (Horovod's rule)."""
    return op.attrs["reduce_op"], op.attrs["prescale_factor"], op.attrs["postscale_factor"]


def _allreduce_grad(op, grad):
    return [allreduce(grad, *_same_reduction(op))]


def _grouped_grad(op, *grads):
    grads = [array_ops.zeros_like(out) if g is None else g for g, out in zip(grads, op.outputs)]  # unread
    return grouped_allreduce(grads, *_same_reduction(op))


def _allgather_grad(op, grad):
    """This rank's rows of the gradient averaged over the ranks (Horovod's rule)."""
    mean = allreduce(grad, AVERAGE)
    comm = communicator()
    rows_per_rank = array_ops.reshape(allgather(array_ops.shape(op.inputs[0])[:1]), [comm.size])
    return [array_ops.split(mean, rows_per_rank, axis=0)[comm.rank]]


def _broadcast_grad(op, grad):
    """The gradient averaged over the ranks, on the root; zeros elsewhere (its value came from there)."""
    mean = allreduce(grad, AVERAGE)
    return [mean if communicator().rank == op.attrs["root_rank"] else mean * 0]


# Host ops: the values cross the ranks' sockets from host memory (a GPU's are copied out).
_COLLECTIVE = {"stateful": True, "host_only": True}
HorovodAllreduce = Primitive("HorovodAllreduce", same, _allreduce_kernel, _allreduce_grad, **_COLLECTIVE)
HorovodGroupedAllreduce = Primitive(
    "HorovodGroupedAllreduce", _each, _grouped_kernel, _grouped_grad, **_COLLECTIVE
)
HorovodAllgather = Primitive("HorovodAllgather", _gathered, _allgather_kernel, _allgather_grad, **_COLLECTIVE)
HorovodBroadcast = Primitive("HorovodBroadcast", same, _broadcast_kernel, _broadcast_grad, **_COLLECTIVE)


class _AfterTheHandle:
    """Input positions 1 and on: the wait reads its tensors' shapes, never their values."""

    def __contains__(self, position):
        return position >= 1


# A reduction in two ops: the start runs as soon as its gradients exist (``starts_early``), the
# wait where the update needs them, so the ring runs while the backward pass goes on.
HorovodGroupedAllreduceStart = Primitive(
    "HorovodGroupedAllreduceStart",
    lambda inputs, **_: ((), dtypes.int64),
    _start_kernel,
    starts_early=True,
    **_COLLECTIVE,
)
HorovodGroupedAllreduceWait = Primitive(
    "HorovodGroupedAllreduceWait", _waited, _wait_kernel, shape_only=_AfterTheHandle(), **_COLLECTIVE
)
HorovodJoin = Primitive(
    "HorovodJoin", lambda inputs, **_: ((), dtypes.int32), _join_kernel, None, **_COLLECTIVE
)


# -- building them -------------------------------------------------------------------------------
def allreduce(tensor, reduce_op=AVERAGE, prescale_factor=1.0, postscale_factor=1.0, name=None):
    """``tensor`` reduced over the ranks by ``reduce_op`` (an op of Horovod's)."""
    attrs = _reduce_attrs(reduce_op, prescale_factor, postscale_factor)
    name = name or _default_name("HorovodAllreduce", tensor)
    with _on_host():
        return _named(apply(HorovodAllreduce, tensor, name=name, tensor_name="", **attrs))


def grouped_allreduce(tensors, reduce_op=AVERAGE, prescale_factor=1.0, postscale_factor=1.0, name=None):
    """Each of ``tensors`` reduced over the ranks, fused into one collective per dtype."""
    attrs = _reduce_attrs(reduce_op, prescale_factor, postscale_factor)
    name = name or _default_name("HorovodGroupedAllreduce", tensors[0], tensors[-1])
    with _on_host():
        return _as_list(_named(apply(HorovodGroupedAllreduce, *tensors, name=name, tensor_name="", **attrs)))


def allgather(tensor, name=None):
    """The ranks' ``tensor`` concatenated along the first axis, in rank order."""
    name = name or _default_name("HorovodAllgather", tensor)
    with _on_host():
        return _named(apply(HorovodAllgather, tensor, name=name, tensor_name=""))


def broadcast(tensor, root_rank, name=None):
    """Rank ``root_rank``'s ``tensor``, on every rank."""
    name = name or _default_name("HorovodBroadcast", tensor)
    with _on_host():
        return _named(apply(HorovodBroadcast, tensor, name=name, root_rank=int(root_rank), tensor_name=""))


def grouped_allreduce_early(tensors, reduce_op=AVERAGE, prescale_factor=1.0, postscale_factor=1.0, name=None):
    """:func:`grouped_allreduce` as a start, run as soon as ``tensors`` exist, and a wait: the
    reduction overlaps whatever the step computes between them."""
    attrs = _reduce_attrs(reduce_op, prescale_factor, postscale_factor)
    name = name or _default_name("HorovodGroupedAllreduce", tensors[0], tensors[-1])
    with _on_host():
        handle = apply(HorovodGroupedAllreduceStart, *tensors, name=f"{name}_start", tensor_name="", **attrs)
        handle.op.attrs["tensor_name"] = name
        return _as_list(apply(HorovodGroupedAllreduceWait, handle, *tensors, name=name))


def join(name=None):
    """An int32 scalar: the rank that reached this op last, once every rank has."""
    with _on_host():
        return apply(HorovodJoin, name=name)


def _on_host():
    """The collectives run on their task's CPU (the ranks send from host memory), also under a
    script's GPU scope: Horovod's ops have GPU kernels there, so its scripts put them on GPUs.
    In a ``cond`` branch they run where the branch runs (a body asks for no device)."""
    if isinstance(get_default_graph(), FuncGraph):
        return contextlib.nullcontext()
    return device("/device:CPU:0")


def _reduce_attrs(reduce_op, prescale_factor, postscale_factor):
    if reduce_op not in _NAMES:
        raise ValueError(
            f"reduce_op {reduce_op!r} is none of Horovod's ops (Average, Sum, Adasum, Min, Max, Product)"
        )
    return {
        "reduce_op": int(reduce_op),
        "prescale_factor": float(prescale_factor),
        "postscale_factor": float(postscale_factor),
    }


def _default_name(kind, *tensors):
    """Horovod's default op name: ``HorovodAllreduce_x_0`` for ``x:0``."""
    names = [re.sub("[^a-zA-Z0-9_]", "_", getattr(t, "name", "") or "tensor") for t in tensors]
    return "_".join([kind, *names])


def _as_list(out):
    return list(out) if isinstance(out, tuple) else [out]


def _named(out):
    """``out``, its op's ``tensor_name`` its own name: what the ranks compare, so a rank
    running another collective fails naming both."""
    op = (out[0] if isinstance(out, tuple) else out).op
    op.attrs["tensor_name"] = op.name
    return out
