"""Horovod's graph functions: the collectives, broadcasting variables, compression, the hook."""

from __future__ import annotations

import warnings

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import device, get_default_graph
from ..framework.indexed_slices import IndexedSlices
from ..ops import collective_ops
from ..ops.collective_ops import ADASUM, AVERAGE, MAX, MIN, PRODUCT, SUM
from ..ops.control_flow_ops import group
from ..ops.math_ops import cast
from ..train.hooks import SessionRunHook
from ..variables import global_variables
from . import basics

Average, Sum, Adasum, Min, Max, Product = AVERAGE, SUM, ADASUM, MIN, MAX, PRODUCT


class NoneCompressor:
    """Sends tensors as they are."""

    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class FP16Compressor:
    """Sends floating tensors as float16, back to their dtype after the collective."""

    @staticmethod
    def compress(tensor):
        if tensor.dtype.is_floating and tensor.dtype != dtypes.float16:
            return cast(tensor, dtypes.float16), tensor.dtype
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor if ctx is None else cast(tensor, ctx)


class Compression:
    """Horovod's compressors: ``Compression.none``, ``Compression.fp16``."""

    none = NoneCompressor
    fp16 = FP16Compressor


def resolve_op(op, average, default=AVERAGE):
    """Horovod's ``op`` against the deprecated ``average``."""
    if op is not None and average is not None:
        raise ValueError("The op parameter supersedes average. Please provide only one of them.")
    if average is not None:
        warnings.warn(
            "Parameter `average` has been replaced with `op` and will be removed in v1.0",
            DeprecationWarning,
            stacklevel=3,
        )
        return AVERAGE if average else SUM
    return default if op is None else op


def allreduce(
    tensor,
    average=None,
    device_dense="",
    device_sparse="",
    compression=Compression.none,
    op=None,
    prescale_factor=1.0,
    postscale_factor=1.0,
    name=None,
    process_set=None,
    ignore_name_scope=False,
):
    """``tensor`` reduced over the ranks: their mean by default (``op=hvd.Sum``, ``Min``, ``Max``,
    ``Product``, ``Adasum``); an ``IndexedSlices`` is gathered, values and indices.

    Examples
    --------
    >>> import daskflow as tf, daskflow.horovod as hvd
    >>> hvd.init()
    >>> with tf.Session() as sess:
    ...     print(sess.run(hvd.allreduce(tf.constant([1.0, 2.0]))))  # one rank: its own value
    [1. 2.]
    """
    basics.size()  # Horovod's ValueError before init
    op = resolve_op(op, average)
    if isinstance(tensor, IndexedSlices):
        return _sparse_allreduce(tensor, op, prescale_factor, postscale_factor, name)
    _check_adasum(op)
    compressed, ctx = compression.compress(convert_to_tensor(tensor))
    out = collective_ops.allreduce(compressed, op, prescale_factor, postscale_factor, name)
    return compression.decompress(out, ctx)


def grouped_allreduce(
    tensors,
    average=None,
    device_dense="",
    device_sparse="",
    compression=Compression.none,
    op=None,
    prescale_factor=1.0,
    postscale_factor=1.0,
    process_set=None,
    ignore_name_scope=False,
    name=None,
):
    """Each of ``tensors`` reduced over the ranks in one collective (fused per dtype);
    ``IndexedSlices`` among them are gathered. Returns them in order."""
    basics.size()
    if not tensors:
        return tensors
    op = resolve_op(op, average)
    out = list(tensors)
    dense = [i for i, t in enumerate(tensors) if not isinstance(t, IndexedSlices)]
    for i, t in enumerate(tensors):
        if isinstance(t, IndexedSlices):
            out[i] = _sparse_allreduce(t, op, prescale_factor, postscale_factor, None)
    if dense:
        _check_adasum(op)
        scale = (prescale_factor, postscale_factor)
        reduced = compressed(
            collective_ops.grouped_allreduce, [tensors[i] for i in dense], compression, op, *scale, name
        )
        for i, r in zip(dense, reduced):
            out[i] = r
    return out


def compressed(reduce, tensors, compression, *args, **kwargs):
    """``reduce(tensors, *args, **kwargs)`` (a grouped collective) on ``tensors`` as
    ``compression`` sends them, each decompressed after."""
    pairs = [compression.compress(convert_to_tensor(t)) for t in tensors]
    reduced = reduce([t for t, _ in pairs], *args, **kwargs)
    return [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, pairs)]


def _sparse_allreduce(slices, op, prescale_factor, postscale_factor, name):
    if op == ADASUM:
        raise NotImplementedError(
            "The Adasum reduction does not currently support sparse tensors. As a workaround please pass "
            "sparse_as_dense=True to DistributedOptimizer"
        )
    if op not in (SUM, AVERAGE):
        raise NotImplementedError("Only Sum and Average ops are supported with tf.IndexedSlices")
    if prescale_factor != 1.0 or postscale_factor != 1.0:
        raise NotImplementedError("Pre/postscale_factor are not supported with tf.IndexedSlices")
    values = collective_ops.allgather(slices.values, name=None if name is None else f"{name}_values")
    indices = collective_ops.allgather(slices.indices, name=None if name is None else f"{name}_indices")
    if op == AVERAGE:
        values = values / cast(basics.size(), values.dtype)
    return IndexedSlices(values, indices, dense_shape=slices.dense_shape)


def _check_adasum(op):
    n = basics.size()
    if op == ADASUM and not (n != 0 and (n & (n - 1)) == 0):
        raise NotImplementedError("Running Adasum with non-power of 2 ranks is not supported yet.")


def allgather(tensor, name=None, ignore_name_scope=False, process_set=None):
    """The ranks' ``tensor`` concatenated along the first axis, in rank order (first
    dimensions may differ)."""
    basics.size()
    return collective_ops.allgather(convert_to_tensor(tensor), name)


def broadcast(tensor, root_rank, name=None, ignore_name_scope=False, process_set=None):
    """Rank ``root_rank``'s ``tensor``, on every rank."""
    basics.size()
    return collective_ops.broadcast(convert_to_tensor(tensor), root_rank, name)


def broadcast_variables(variables, root_rank, process_set=None, inplace=False):
    """An op assigning each variable rank ``root_rank``'s value of it."""
    return group(*[var.assign(broadcast(var, root_rank)) for var in variables])


def broadcast_global_variables(root_rank):
    """An op giving every global variable rank ``root_rank``'s value."""
    return broadcast_variables(global_variables(), root_rank)


def join():
    """An int32 scalar tensor: the rank that joined last, once every rank has.

    A rank that runs out of data joins early; until the others join too it takes part
    in their collectives giving nothing: its share of an all-reduce counts as zero (an
    Average still divides by every rank), of an all-gather as no rows. It cannot be a
    broadcast's root meanwhile.
    """
    basics.size()
    return collective_ops.join()


class BroadcastGlobalVariablesHook(SessionRunHook):
    """Gives every global variable rank ``root_rank``'s value once the session is made (after
    initialization or a restore), so all ranks start alike."""

    def __init__(self, root_rank, device=""):
        super().__init__()
        self.root_rank = root_rank
        self.device = device
        self.bcast_op = None

    def begin(self):
        if self.bcast_op is None or self.bcast_op.graph is not get_default_graph():
            with device(self.device):
                self.bcast_op = broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord):
        session.run(self.bcast_op)
