"""The per-example ops between an input producer and ``tf.train.batch``, as a map function.

TF1 scripts preprocess each example with graph ops between the producer and
the batch (``image = tf.cast(image, tf.float32) / 255.``). In TF1 a queue
runner thread runs those ops once per example and enqueues the result; here
the batch reads the producer's dataset, so those ops become the function of a
``Dataset.map``. :func:`trace_back` finds them (and the producer) by walking
the graph back from the batched tensors; a :class:`Recipe` records them and,
called by ``Dataset.map``'s tracing (:mod:`daskflow.data.traced`), builds the
same ops again in the map's private graph.

A recipe names primitives by their registered name, not by object, so it
pickles small and the rebuilt ops use the very primitives of this process.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..framework.graph import get_default_graph
from ..framework.primitive import PRIMITIVES


def trace_back(tensors, producers, who):
    """The producer behind ``tensors`` and the ops computing them from its outputs.

    ``producers`` maps a producer's ``IteratorGetNext`` op to its record.
    Returns ``(producer, ops)`` with ``ops`` in creation (so dependency) order.

    Raises
    ------
    ValueError
        If no tensor comes from a producer, if they come from several, or if
        the ops between reach a variable, a placeholder or another iterator
        (each is named).
    """
    found, ops, stack = {}, set(), [t.op for t in tensors]
    while stack:
        op = stack.pop()
        if op in ops or op in found:
            continue
        if op in producers:
            found[op] = producers[op]
            continue
        _check_copyable(op, tensors, who)
        ops.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    if not found:
        names = ", ".join(t.name for t in tensors)
        raise ValueError(
            f"{who}: the tensors {names} do not come from an input producer; batch the outputs of "
            "tf.train.slice_input_producer (or a string_input_producer / input_producer / "
            "range_input_producer queue's dequeue()), or ops computed from them"
        )
    if len(found) > 1:
        names = ", ".join(sorted(p.name for p in found.values()))
        raise ValueError(
            f"{who}: the tensors come from several input producers ({names}); one batch reads one"
        )
    (producer,) = found.values()
    return producer, sorted(ops, key=lambda o: o._id)


def _check_copyable(op, tensors, who):
    prim = op.primitive
    kind = (
        "a variable"
        if prim.is_variable
        else "a placeholder"
        if prim.is_placeholder
        else "an iterator that is not an input producer"
        if prim.name == "IteratorGetNext"
        else None
    )
    if kind is not None:
        names = ", ".join(t.name for t in tensors)
        raise ValueError(
            f"{who}: {names} depend on {kind} ({op.name}); the per-example ops between an input "
            "producer and a batch may use only the producer's outputs and constants"
        )


@dataclass(eq=False)
class Recipe:
    """Builds again, in the default graph, the ops between a producer's outputs and some tensors.

    ``steps`` hold, per op: primitive name, op name, attrs, input references,
    control-input references, and the static dims of its outputs (so a user's
    ``set_shape`` carries over). A reference is ``("arg", i)`` (the i-th
    producer output) or ``("op", step, output)``.
    """

    steps: list
    outputs: list

    @classmethod
    def between(cls, sources, ops, targets):
        """The recipe computing ``targets`` from ``sources`` (producer outputs) through ``ops``."""
        refs = {t: ("arg", i) for i, t in enumerate(sources)}
        step_of = {}
        steps = []
        for k, op in enumerate(ops):
            step_of[op] = k
            inputs = [refs[t] for t in op.inputs]
            controls = [step_of[c] for c in op.control_inputs if c in step_of]
            dims = [t._dims for t in op.outputs]
            steps.append((op.primitive.name, op.name, dict(op.attrs), inputs, controls, dims))
            refs.update({t: ("op", k, i) for i, t in enumerate(op.outputs)})
        return cls(steps, [refs[t] for t in targets])

    def __call__(self, *args):
        graph = get_default_graph()
        built = []

        def resolve(ref):
            return args[ref[1]] if ref[0] == "arg" else built[ref[1]].outputs[ref[2]]

        for prim, name, attrs, inputs, controls, dims in self.steps:
            with graph.control_dependencies([built[c] for c in controls]):
                op = graph.create_op(PRIMITIVES[prim], [resolve(r) for r in inputs], dict(attrs), name=name)
            for t, d in zip(op.outputs, dims):
                t.set_shape(d)
            built.append(op)
        return tuple(resolve(r) for r in self.outputs)
