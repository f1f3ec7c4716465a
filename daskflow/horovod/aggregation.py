"""Several backward passes per update (``backward_passes_per_step``), as Horovod does it.

Each pass adds its gradients into local variables; on the last of
``backward_passes_per_step`` passes the sums are reduced over the ranks (and
divided by the count where ``average_aggregated_gradients``) and applied;
the other passes apply nothing and only count the global step. Which pass it
is lives in a local counter variable, read by ``tf.cond``s whose branches
assign variables, ordered by control dependencies (Horovod's own graph).
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import control_dependencies
from ..framework.indexed_slices import IndexedSlices
from ..ops.array_ops import identity, zeros
from ..ops.control_flow_ops import group, no_op
from ..ops.functional_ops import cond
from ..ops.math_ops import divide, equal
from ..variable_scope import AUTO_REUSE, get_variable, variable_scope
from ..variables import GraphKeys


class LocalAggregation:
    """The local sums of ``passes`` backward passes and the counter of passes.

    Parameters
    ----------
    passes : int
        Backward passes per update.
    average : bool
        Divide the sums by ``passes`` (Horovod's ``average_aggregated_gradients``).
    sparse_as_dense : bool
        Sum ``IndexedSlices`` gradients as dense tensors (else they are refused, as Horovod).
    scope : str
        The variable scope of the counter and the sums.
    """

    def __init__(self, passes: int, average: bool, sparse_as_dense: bool, scope: str) -> None:
        self.passes, self.average, self.sparse_as_dense, self.scope = passes, average, sparse_as_dense, scope
        self.counter = None

    def gradients(self, grads, reduce):
        """The gradients to apply: on the last pass ``reduce(sums)`` (over the ranks), on the
        others this pass's own (which :meth:`apply` does not apply)."""
        present = [i for i, g in enumerate(grads) if g is not None]
        dense = [self._dense(grads[i]) for i in present]
        sums = self._sums(present, dense)
        clear = cond(
            equal(self.counter, 0), lambda: group(*[s.assign(zeros(s.shape, s.dtype)) for s in sums]), no_op
        )
        with control_dependencies([clear]):
            added = group(*[s.assign_add(g) for s, g in zip(sums, dense)])
        with control_dependencies([added]):
            counted = self.counter.assign_add(1)
        with control_dependencies([counted]):
            out = cond(equal(self.counter, self.passes), lambda: self._reduced(sums, reduce), lambda: dense)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        merged = list(grads)
        for i, g in zip(present, out):
            merged[i] = g
        return merged

    def apply(self, apply_now, grads_and_vars, global_step):
        """``apply_now()`` on the pass that reduced (the counter back at 0); on the others only
        ``global_step`` counts (Horovod's steps, as an Estimator expects)."""
        with control_dependencies([group(*[g for g, _ in grads_and_vars if g is not None])]):
            applied = cond(equal(self.counter, 0), apply_now, no_op)
        with control_dependencies([applied]):
            return cond(equal(self.counter, 0), no_op, lambda: _count(global_step))

    def _sums(self, positions, dense):
        """The counter and a local variable per gradient (named by its position, as Horovod)."""
        local = [GraphKeys.LOCAL_VARIABLES]
        with variable_scope(self.scope, reuse=AUTO_REUSE):
            zero = zeros([], dtypes.int32)
            self.counter = get_variable(
                "aggregation_counter", initializer=zero, trainable=False, collections=local
            )
            return [
                get_variable(str(i), initializer=zeros(g.shape, g.dtype), trainable=False, collections=local)
                for i, g in zip(positions, dense)
            ]

    def _reduced(self, sums, reduce):
        reduced = reduce([identity(s) for s in sums])
        with control_dependencies([g.op for g in reduced]):
            reset = self.counter.assign(0)
        with control_dependencies([reset]):
            return [divide(g, self.passes) if self.average else identity(g) for g in reduced]

    def _dense(self, grad):
        if not isinstance(grad, IndexedSlices):
            return grad
        if self.sparse_as_dense:
            return convert_to_tensor(grad)
        raise ValueError(
            "IndexedSlices are not supported when `backward_passes_per_step` > 1 and "
            "`sparse_as_dense` is False."
        )


def _count(global_step):
    return no_op() if global_step is None else global_step.assign_add(1, read_value=False)
