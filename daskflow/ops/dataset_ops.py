"""Iterator ops: how a session pulls elements out of a ``tf.data`` dataset.

TF1's iterator is a resource: an op that makes it, ops that (re)start it on
a dataset (``MakeIterator``), ops that read it (``IteratorGetNext``), and a
string handle naming it (``string_handle`` / ``from_string_handle``), all
meeting at one position in one dataset. Here the resource is an
:class:`IteratorResource` in a process-wide table of this module, named by a
*token* (a string), which is the value of the op that makes it:

- ``IteratorV2``: each session draws one token for the op (see
  :class:`MakerState`), and its first run in a process (per replica) makes
  the empty resource; the op returns the token on every run. ``MakeIterator`` (attr
  ``dataset``; inputs: the token and the graph tensors the dataset captured,
  such as placeholders fed at initialisation) puts a new pass over the
  dataset into it: an initializable iterator's ``initializer``, or one
  ``make_initializer(dataset)`` of a reinitializable one.
- ``OneShotIterator`` (attr ``dataset``): the same, the pass made with the
  resource.
- ``IteratorGetNext`` reads a token (a maker's output, or a fed string
  handle) and advances the pass of the resource it names; several get-next
  ops reading one token share its position, as TF's do. A resource with no
  pass yet fails the step with ``FailedPreconditionError``, as TF's does.

The table holds resources weakly: the states of the op that made one (per
session, one per compiled program on a cluster) hold it, so a closed
session's iterators go away with it.

This module knows datasets only through ``dataset.flat_elements()``.
"""

from __future__ import annotations

import secrets
import weakref

import numpy as np

from .. import dtypes
from ..errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..framework.primitive import Primitive
from ..framework.replica import current_replica
from ..framework.tensor_shape import compatible, fmt

# (token, replica) -> IteratorResource, for every resource some op's state in this process
# holds. Replicas of one step that share a process each have their own iterator (and shard).
_RESOURCES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

_TOKEN_PREFIX = b"daskflow-iterator:"


class IteratorPass:
    """One pass over a dataset: its elements' generator, started on the first read."""

    def __init__(self, dataset, captured=None):
        self.dataset, self.captured = dataset, captured
        self.elements = None

    def next(self, op):
        """The next element's flat components; ``OutOfRangeError`` (naming ``op``) at the end."""
        if self.elements is None:  # a replica reads its own shard (see framework.replica)
            self.elements = self.dataset.flat_elements(shard=current_replica(), captured=self.captured)
        element = next(self.elements, None)
        if element is None:
            # Exhausted generators stay exhausted: every later step raises too, as in TF.
            raise OutOfRangeError(op.node_def, op, f"End of sequence [[{op.name}]]")
        return element


class IteratorResource:
    """An iterator of one session: the pass it is on (None until initialised), named by a token."""

    def __init__(self, token):
        self.token = token
        self.current = None


class MakerState:
    """The token of the resource an ``IteratorV2`` / ``OneShotIterator`` op makes in one session.

    The token is drawn when the session makes the state, so every compiled
    program of that session carries the same one: on a cluster each program
    travels with its own copy of this state, and the copies meet at one
    resource in the worker's table. The resource itself is made (or found)
    by the first program that runs the op in a process.
    """

    def __init__(self, op):
        self.op = op
        self.token = _TOKEN_PREFIX + secrets.token_hex(16).encode()
        self.held = {}  # replica -> its resource, held here: the table holds them weakly

    def __getstate__(self):
        return {"op": self.op, "token": self.token, "held": {}}


def _resource_infer(inputs, **_):
    return (), dtypes.string


def _resource_kernel(xp, state, *values, **attrs):
    replica = current_replica()
    if replica not in state.held:
        resource = _RESOURCES.get((state.token, replica))
        if resource is None:
            resource = _RESOURCES[state.token, replica] = IteratorResource(state.token)
            if "dataset" in attrs:  # one-shot: the pass comes with it (captured values read once)
                resource.current = _new_pass(state.op, attrs["dataset"], attrs["keys"], values)
        state.held[replica] = resource
    return np.array(state.token, dtype=object)


# An initializable iterator is set by another run (its initializer's): shared by runs.
IteratorV2 = Primitive(
    "IteratorV2",
    _resource_infer,
    _resource_kernel,
    stateful=True,
    make_state=MakerState,
    host_only=True,
    shared_resource=True,
)
OneShotIterator = Primitive(
    "OneShotIterator", _resource_infer, _resource_kernel, stateful=True, make_state=MakerState, host_only=True
)


class _OpOnly:
    """The state of an op that needs only itself (for the errors it raises)."""

    def __init__(self, op):
        self.op = op


def _make_infer(inputs, *, dataset, keys):
    if not inputs or inputs[0].dtype is not dtypes.string:
        raise TypeError("MakeIterator's first input is an iterator's string resource")
    return []


def _make_kernel(xp, state, token, *values, dataset, keys):
    resource = _resource(state.op, _token(token))
    resource.current = _new_pass(state.op, dataset, keys, values)  # the old pass is dropped: a restart
    return ()


MakeIterator = Primitive(
    "MakeIterator", _make_infer, _make_kernel, stateful=True, make_state=_OpOnly, host_only=True
)


def _new_pass(op, dataset, keys, values):
    # Copies, as TF's initializer makes tensors of what it is fed: a caller's later edits of a
    # fed array do not reach the dataset.
    captured = {k: np.array(v, copy=True) for k, v in zip(keys, values)}
    try:
        dataset.check_captured(captured)
    except ValueError as e:  # a value fed at initialisation that the dataset cannot take
        raise InvalidArgumentError(op.node_def, op, f"{e} [[{op.name}]]") from None
    return IteratorPass(dataset, captured)


def _resource(op, token):
    found = _RESOURCES.get((token, current_replica())) if isinstance(token, bytes) else None
    if found is None:
        raise InvalidArgumentError(
            op.node_def,
            op,
            f"{op.name}: {token!r} is not the string handle of an iterator of this process; "
            "feed the value of an iterator's string_handle() fetched in this session",
        )
    return found


class ReaderState:
    """What one ``IteratorGetNext`` op keeps per session: the passes it checked."""

    def __init__(self, op):
        self.op = op
        self.checked = None  # a WeakSet of the passes this op's types and shapes were checked against

    def __getstate__(self):  # sent to a worker before its first run: nothing but the op
        return {"op": self.op, "checked": None}

    def find(self, token):
        """The pass of the resource ``token`` names."""
        resource = _resource(self.op, token)
        if resource.current is None:
            raise FailedPreconditionError(
                self.op.node_def,
                self.op,
                "GetNext() failed because the iterator has not been initialized. Ensure that you have run "
                "the initializer operation for this iterator before getting the next element. "
                f"[[{self.op.name}]]",
            )
        if self.checked is None:
            self.checked = weakref.WeakSet()
        if resource.current not in self.checked:  # a fed handle may name an iterator of other types
            _check_structure(self.op, resource.current.dataset)
            self.checked.add(resource.current)
        return resource.current


def _check_structure(op, dataset):
    """TF's check of a handle's iterator against the reading op's types and shapes."""
    specs = dataset.flat_specs()
    types, shapes = op.attrs["output_types"], op.attrs["output_shapes"]
    if len(specs) != len(types):
        raise InvalidArgumentError(
            op.node_def,
            op,
            f"Number of components does not match: expected {len(types)} types but got {len(specs)}.",
        )
    for i, (spec, dtype, dims) in enumerate(zip(specs, types, shapes)):
        if spec.dtype is not dtype:
            raise InvalidArgumentError(
                op.node_def,
                op,
                f"Data type mismatch at component {i}: expected {dtype.name} but got {spec.dtype.name}.",
            )
        if not compatible(dims, spec.dims):
            raise InvalidArgumentError(
                op.node_def,
                op,
                f"Incompatible shapes at component {i}: expected {fmt(dims)} but got {fmt(spec.dims)}.",
            )


def _get_next_infer(inputs, *, dataset, output_types, output_shapes):
    if len(inputs) != 1 or inputs[0].dtype is not dtypes.string or inputs[0]._dims not in ((), None):
        raise TypeError(f"IteratorGetNext reads one iterator resource, a string scalar; got {inputs}")
    return list(zip(output_shapes, output_types))


def _get_next_kernel(xp, state, resource, *, dataset, output_types, output_shapes):
    element = state.find(_token(resource)).next(state.op)
    arrays = tuple(_component(xp, c, t) for c, t in zip(element, output_types))
    # The compiled step binds a one-output op's result whole, so one component is no tuple.
    return arrays[0] if len(arrays) == 1 else arrays


def _token(value):
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.encode() if isinstance(value, str) else value


def _component(xp, value, dtype):
    if dtype is dtypes.string:
        return dtypes.as_string_array(value)
    return xp.asarray(value, dtype=dtype.np)


# The input pipeline runs on the host (its elements may be strings), as TF1's iterators do.
IteratorGetNext = Primitive(
    "IteratorGetNext",
    _get_next_infer,
    _get_next_kernel,
    stateful=True,
    make_state=ReaderState,
    host_only=True,
)
