"""``hvd.DistributedOptimizer``: an optimizer whose gradients are reduced over the ranks."""

from __future__ import annotations

import warnings

from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.indexed_slices import IndexedSlices
from ..ops import collective_ops
from ..runtime.plan.buckets import nbytes  # a tensor's static bytes (no Dask behind it)
from ..train.optimizer import Optimizer
from . import basics
from .aggregation import LocalAggregation
from .functions import ADASUM, AVERAGE, Compression, compressed, grouped_allreduce

BUCKET_BYTES = 4 << 20  # gradients reduced together: large enough to fill the links, early enough to overlap


class _DistributedOptimizer(Optimizer):
    """Wraps ``optimizer``: ``compute_gradients`` reduces the gradients over the ranks (in
    buckets, each fused per dtype and started as soon as the backward pass has made it);
    ``apply_gradients`` applies them as the wrapped one does."""

    def __init__(self, optimizer, name, use_locking, options):
        super().__init__(name=name or f"Distributed{type(optimizer).__name__}", use_locking=use_locking)
        self._optimizer = optimizer
        self._compression = options["compression"]
        self._sparse_as_dense = options["sparse_as_dense"]
        self._op = options["op"]
        self._predivide = options["gradient_predivide_factor"]
        self._groups = options["groups"]
        passes = options["backward_passes_per_step"]
        self._aggregation = None
        if passes > 1:
            scope = f"aggregation_variables_{self.get_name()}{basics.rank()}"
            average = options["average_aggregated_gradients"]
            self._aggregation = LocalAggregation(passes, average, self._sparse_as_dense, scope)

    # -- the reduction --------------------------------------------------------------------------
    def _allreduce(self, grads):
        if basics.size() == 1:
            return list(grads)  # Horovod's cond on size > 1, decided here at build time
        scale = {}
        if self._op == AVERAGE and self._predivide != 1.0:
            scale = {"prescale_factor": 1.0 / self._predivide, "postscale_factor": self._predivide}
        with name_scope(f"{self.get_name()}_Allreduce"):
            grads = [self._dense(g) for g in grads]
            out = list(grads)
            sparse = [i for i, g in enumerate(grads) if isinstance(g, IndexedSlices)]
            dense = [i for i, g in enumerate(grads) if g is not None and i not in sparse]
            bucketed = grouped_allreduce if self._op == ADASUM else self._early  # Adasum: no early start
            parts = [(sparse, grouped_allreduce)] if sparse else []
            parts += [(bucket, bucketed) for bucket in self._buckets(grads, dense)]
            for positions, reduce in parts:
                reduced = reduce(
                    [grads[i] for i in positions], compression=self._compression, op=self._op, **scale
                )
                for i, r in zip(positions, reduced):
                    out[i] = r
            return out

    @staticmethod
    def _early(tensors, compression, op, **scale):
        """A bucket's reduction, started as soon as its gradients exist and awaited where
        the update reads them: the ring runs while the backward pass computes the rest."""
        return compressed(collective_ops.grouped_allreduce_early, tensors, compression, op, **scale)

    def _dense(self, grad):
        if self._sparse_as_dense and isinstance(grad, IndexedSlices):
            return convert_to_tensor(grad)
        return grad

    def _buckets(self, grads, present):
        """The dense gradients' positions, in the collectives that reduce them: ``groups`` of
        them where given, else buckets of :data:`BUCKET_BYTES` in the order the backward pass
        makes them (the last variables' first)."""
        if self._groups:
            count = min(int(self._groups), len(present)) or 1
            return [present[k::count] for k in range(count)]
        buckets, current, filled = [], [], 0
        for i in reversed(present):
            current.append(i)
            filled += nbytes(grads[i])
            if filled >= BUCKET_BYTES:
                buckets.append(current)
                current, filled = [], 0
        return buckets + [current] if current else buckets

    # -- the optimizer's interface --------------------------------------------------------------
    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's ``(gradient, variable)`` pairs, the gradients reduced over the
        ranks."""
        pairs = self._optimizer.compute_gradients(*args, **kwargs)
        grads, variables = [g for g, _ in pairs], [v for _, v in pairs]
        if self._aggregation is not None:
            return list(zip(self._aggregation.gradients(grads, self._allreduce), variables))
        return list(zip(self._allreduce(grads), variables))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped optimizer's update with the (reduced) gradients; nothing is sent. With
        ``backward_passes_per_step`` above 1, only on the passes that reduced."""
        grads_and_vars = list(grads_and_vars)

        def apply_now():
            return self._optimizer.apply_gradients(grads_and_vars, global_step=global_step, name=name)

        if self._aggregation is not None:
            return self._aggregation.apply(apply_now, grads_and_vars, global_step)
        return apply_now()

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer.variables(*args, **kwargs)


def DistributedOptimizer(  # noqa: N802 - Horovod's factory keeps a class's name
    optimizer,
    name=None,
    use_locking=False,
    device_dense="",
    device_sparse="",
    compression=Compression.none,
    sparse_as_dense=False,
    backward_passes_per_step=1,
    op=AVERAGE,
    gradient_predivide_factor=1.0,
    average_aggregated_gradients=False,
    num_groups=0,
    groups=None,
    process_set=None,
    scale_local_gradients=True,
):
    """An optimizer whose gradients are averaged (``op``) over the ranks before they apply.

    Parameters
    ----------
    optimizer : tf.train.Optimizer
        The optimizer every rank applies the reduced gradients with.
    compression : Compression.none or Compression.fp16
        How gradients travel (``fp16``: half the bytes).
    sparse_as_dense : bool
        Reduce ``IndexedSlices`` gradients as dense tensors (else their rows are gathered).
    backward_passes_per_step : int
        Sum this many passes' gradients locally (in local variables) and reduce and apply
        them on the last; the other passes apply nothing (``global_step`` still counts).
    op : hvd.Average, hvd.Sum or hvd.Adasum
        The reduction (Adasum: of the gradients; Horovod's applies it to each step's
        change of the variables instead).
    gradient_predivide_factor : float
        With Average: gradients divided by it before the sum, multiplied after.
    average_aggregated_gradients : bool
        Divide the passes' sum by ``backward_passes_per_step``.
    num_groups, groups : int
        Reduce the gradients in this many collectives instead of one.

    Examples
    --------
    >>> import daskflow as tf, daskflow.horovod as hvd
    >>> hvd.init()
    >>> opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(0.001 * hvd.size()))
    """
    if gradient_predivide_factor != 1.0 and op != AVERAGE:
        raise ValueError("gradient_predivide_factor not supported with op != Average")
    if op == ADASUM and average_aggregated_gradients:
        raise ValueError("Adasum does not support average_aggregated_gradients == True")
    if backward_passes_per_step <= 0:
        raise ValueError("backward_passes_per_step must be > 0")
    if num_groups:
        warnings.warn(
            "Parameter `num_groups` has been replaced by `groups`", DeprecationWarning, stacklevel=2
        )
        groups = num_groups if groups is None else groups
    if groups is not None and not (isinstance(groups, list) or int(groups) > 0):
        raise ValueError("groups should be a non-negative integer or a list of list of tf.Variable.")
    if isinstance(groups, list):
        raise NotImplementedError(
            "DistributedOptimizer(groups=[[...]]): lists of variables are not supported"
        )
    options = {
        "compression": compression,
        "sparse_as_dense": sparse_as_dense,
        "op": op,
        "gradient_predivide_factor": gradient_predivide_factor,
        "groups": groups,
        "backward_passes_per_step": backward_passes_per_step,
        "average_aggregated_gradients": average_aggregated_gradients,
    }
    return _DistributedOptimizer(optimizer, name, use_locking, options)
