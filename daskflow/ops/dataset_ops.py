"""Iterator ops: how a session pulls elements out of a ``tf.data`` dataset.

``IteratorGetNext`` is stateful: each session's ``make_state`` gives it an
:class:`IteratorState`, that session's position in the dataset, so a new
session starts from the first element (as a new TF1 session re-creates a
one-shot iterator). The op's attrs hold the dataset itself — a plain,
picklable description — and TF's ``output_types`` / ``output_shapes`` of its
flat components, which are all inference needs.

Re-initialising an iterator (``make_initializable_iterator``) needs a second
op to reach the same per-session state, but ``make_state(op)`` sees only its
own op, never the session. So the reset travels as data instead: the
initializer assigns a fresh token from ``IteratorGeneration`` to a hidden
int64 variable, and ``IteratorGetNext`` reads that variable as its input and
starts a new pass whenever the token differs from the one its pass began
with. Variables are already per session (embedded or on a cluster), and an
uninitialised one fails the step with TF's ``FailedPreconditionError``.

This module knows datasets only through ``dataset.flat_elements()``.
"""

from __future__ import annotations

import secrets

import numpy as np

from .. import dtypes
from ..errors import OutOfRangeError
from ..framework.primitive import Primitive
from ..framework.replica import current_replica


class IteratorState:
    """One session's pass over a dataset: what ``IteratorGetNext`` advances."""

    def __init__(self, op):
        self.op = op
        self.elements = None  # started lazily: a session may never run the op
        self.generation = None

    def next(self, generation=None):
        """The next element's flat components; restart when ``generation`` changed."""
        if self.elements is None or generation != self.generation:
            # A replica reads its own shard (see framework.replica).
            self.elements = self.op.attrs["dataset"].flat_elements(shard=current_replica())
            self.generation = generation
        element = next(self.elements, None)
        if element is None:
            # Exhausted generators stay exhausted: every later step raises too, as in TF.
            raise OutOfRangeError(self.op.node_def, self.op, f"End of sequence [[{self.op.name}]]")
        return element


def _get_next_infer(inputs, *, dataset, output_types, output_shapes):
    for t in inputs:  # the generation, for initializable iterators
        if t.dtype is not dtypes.int64 or t._dims not in ((), None):
            raise TypeError(f"an iterator's generation must be an int64 scalar, got {t}")
    return list(zip(output_shapes, output_types))


def _get_next_kernel(xp, state, *generation, dataset, output_types, output_shapes):
    element = state.next(int(generation[0]) if generation else None)
    arrays = tuple(xp.asarray(c, dtype=t.np) for c, t in zip(element, output_types))
    # The compiled step binds a one-output op's result whole, so one component is no tuple.
    return arrays[0] if len(arrays) == 1 else arrays


# The input pipeline runs on the host (its elements may be strings), as TF1's iterators do.
IteratorGetNext = Primitive(
    "IteratorGetNext",
    _get_next_infer,
    _get_next_kernel,
    stateful=True,
    make_state=IteratorState,
    host_only=True,
)


def _new_generation(xp):
    # Random, not a counter: tokens minted in different processes must not collide.
    return xp.asarray(secrets.randbits(62), dtype=np.int64)


IteratorGeneration = Primitive(
    "IteratorGeneration", lambda inputs: ((), dtypes.int64), _new_generation, stateful=True, host_only=True
)
