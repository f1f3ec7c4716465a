"""TF's op signatures (its ``OpDef`` s), read from ``tf_op_defs.json.gz``.

The table was written by ``docs/api_coverage/make_op_defs.py`` from TensorFlow (the version
it names), so that a ``GraphDef`` daskflow writes gives each node the inputs and attributes TF's
importer checks it against, and an imported node's absent attributes take TF's defaults.

Examples
--------
>>> from daskflow.framework.op_defs import op_def
>>> matmul = op_def("MatMul")
>>> [arg.name for arg in matmul.inputs], matmul.attrs["transpose_a"][0]
(['a', 'b'], 'bool')
"""

from __future__ import annotations

import functools
import gzip
import json
import os
from dataclasses import dataclass

from .. import protos

__all__ = ["Arg", "OpDef", "op_def", "tensorflow_version"]


@dataclass(frozen=True)
class Arg:
    """One input or output of an op: what gives its type, how many tensors it is, whether
    it is a reference (a variable)."""

    name: str
    type_attr: str
    number_attr: str
    type_list_attr: str
    type: int
    is_ref: bool


@dataclass(frozen=True)
class OpDef:
    """TF's signature of op type ``name``: ``attrs`` maps each attribute to ``(kind,
    default)``, the default in protobuf's JSON form of an ``AttrValue`` (None: required)."""

    name: str
    inputs: tuple
    outputs: tuple
    attrs: dict
    stateful: bool

    def default(self, attr):
        """The ``AttrValue`` proto of ``attr`` 's default, or None when it has none."""
        from google.protobuf import json_format

        found = self.attrs.get(attr)
        if found is None or found[1] is None:
            return None
        return json_format.ParseDict(found[1], protos.AttrValue())


@functools.cache
def _table():
    with open(os.path.join(os.path.dirname(__file__), "tf_op_defs.json.gz"), "rb") as f:
        return json.loads(gzip.decompress(f.read()))


def tensorflow_version() -> str:
    """The TensorFlow whose signatures these are."""
    return _table()["tensorflow"]


@functools.cache
def op_def(op_type: str) -> OpDef | None:
    """TF's signature of ``op_type``, or None when TF has no op of that name."""
    found = _table()["ops"].get(op_type)
    if found is None:
        return None
    return OpDef(
        name=op_type,
        inputs=tuple(Arg(*a) for a in found["inputs"]),
        outputs=tuple(Arg(*a) for a in found["outputs"]),
        attrs={k: tuple(v) for k, v in found["attrs"].items()},
        stateful=found["stateful"],
    )
