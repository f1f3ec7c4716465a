"""``Dataset.map``'s function, traced once into a private graph.

TF semantics: the map function receives the element's components as tensors
and builds graph ops. We call it once, in a private :class:`Graph`, on
placeholders with the element's dtypes and static shapes; its result (tensors,
or numpy and Python values, which become constants) gives the new element
structure and static shapes. Elements are then computed by feeding each one
to that graph in a private embedded Session.

Cost: one ``Session.run`` per element. The session caches the compiled step,
so that is a feed check, one call of straight-line generated code and a
result copy: about 5 microseconds per element for a one-op function, on top
of the ops' own work, all on the thread that runs the iterator. Batch before
mapping (and write the function for a batch) when that overhead matters.

The private graph copies the outer graph's seed, so random ops in the function
are reproducible under ``set_random_seed``. The function must build every op
from its arguments: tensors captured from another graph are rejected by graph
building, and variables are not supported (TF1's one-shot iterators reject
them too).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..framework.constant import convert_to_tensor
from ..framework.graph import Graph
from ..ops.array_ops import placeholder
from . import nest
from .dataset import Dataset
from .spec import DatasetSpec, Spec


@dataclass(eq=False)
class Traced:
    """A traced map function: its private graph, inputs, outputs and element structure."""

    graph: Graph
    inputs: list
    outputs: list
    structure: object  # nested Specs of the function's result

    def runner(self):
        """A function from one flat element to the mapped flat element (numpy)."""
        from ..runtime.session import Session  # local import: the runtime loads dask, only on iteration

        session = Session(None, graph=self.graph)  # in this process, whatever is configured
        fetches = list(self.outputs)
        return lambda element: tuple(session.run(fetches, dict(zip(self.inputs, element))))


def trace(fn, structure, seed) -> Traced:
    """Call ``fn`` once on placeholders shaped like ``structure`` (nested Specs).

    ``seed`` becomes the private graph's seed (the outer graph's, normally).
    """
    graph = Graph()
    graph.seed = seed
    with graph.as_default(), graph.name_scope("map"):
        specs = nest.flatten(structure)
        inputs = [placeholder(s.dtype, s.dims, name=f"arg{i}") for i, s in enumerate(specs)]
        result = _call(fn, nest.pack(structure, inputs))
        outputs = [convert_to_tensor(v) for v in nest.flatten(result)]
    graph.finalize()  # nothing may add to it behind the traced structure's back
    return Traced(graph, inputs, outputs, nest.pack(result, [Spec(t._dims, t.dtype) for t in outputs]))


def _call(fn, element):
    # As TF: a plain tuple is unpacked into arguments; dicts and namedtuples are one argument.
    result = fn(*element) if type(element) is tuple else fn(element)
    return tuple(result) if isinstance(result, list) else result  # TF1 reads a list as a tuple


@dataclass(eq=False)
class TracedDataset:
    """A traced function returning a dataset (``flat_map``, ``interleave``): per element, the
    values of the graph tensors that dataset captured, by their keys."""

    graph: Graph
    inputs: list
    dataset: object
    keys: list
    outputs: list

    def runner(self):
        """A function from one flat element to ``{capture key: value}``."""
        if not self.outputs:
            return lambda element: {}
        from ..runtime.session import Session  # local import: the runtime loads dask, only on iteration

        session = Session(None, graph=self.graph)  # in this process, whatever is configured
        return lambda element: dict(
            zip(self.keys, session.run(self.outputs, dict(zip(self.inputs, element))))
        )


def trace_dataset(fn, structure, seed, who) -> TracedDataset:
    """Call ``fn`` once on placeholders shaped like ``structure``; it must return a dataset."""
    graph = Graph()
    graph.seed = seed
    with graph.as_default(), graph.name_scope(who):
        specs = nest.flatten(structure)
        inputs = [placeholder(s.dtype, _stacked(s), name=f"arg{i}") for i, s in enumerate(specs)]
        dataset = _call(fn, nest.pack(structure, [_argument(s, t) for s, t in zip(specs, inputs)]))
        if not isinstance(dataset, Dataset):
            raise TypeError(f"`map_func` of {who} must return a `Dataset` object. Got {type(dataset)}.")
        captures = dataset.captures()
    graph.finalize()
    foreign = [c.tensor.name for c in captures if c.tensor.graph is not graph]
    if foreign:
        raise ValueError(
            f"the dataset {who}'s function returns reads tensors of another graph ({', '.join(foreign)}); "
            "build it from the function's arguments and constants"
        )
    return TracedDataset(graph, inputs, dataset, [c.key for c in captures], [c.tensor for c in captures])


def _stacked(spec):
    """A window's placeholder holds its elements stacked; others hold the element."""
    if isinstance(spec, DatasetSpec):
        return None if spec.dims is None else (None, *spec.dims)
    return spec.dims


def _argument(spec, tensor):
    """What the function receives: a window as the dataset of its rows, else the tensor."""
    if isinstance(spec, DatasetSpec):
        return Dataset.from_tensor_slices(tensor)
    return tensor
