"""Writes ``daskflow/framework/op_defs/tf_op_defs.json.gz``: TF's signatures of its ops
(``OpDef``), as much of them as daskflow's GraphDef export and import read. Run in a
virtual environment with TensorFlow (not a dependency of daskflow)::

    /work/tfenv/bin/python docs/api_coverage/make_op_defs.py

Each op: ``inputs`` and ``outputs`` as ``[name, type_attr, number_attr, type_list_attr,
type, is_ref]`` (``type``: the fixed ``DataType`` number, 0 when an attr gives it);
``attrs`` as ``{name: [kind, default]}`` with the default in protobuf's JSON form (None
when the attr has none); ``stateful``. Ops whose names start with ``_`` are TF's internals
and left out.
"""

import gzip
import json
import os

import tensorflow as tf
from google.protobuf import json_format
from tensorflow.python.framework import op_def_registry


def _args(args):
    return [[a.name, a.type_attr, a.number_attr, a.type_list_attr, a.type, a.is_ref] for a in args]


def _op(op_def):
    return {
        "inputs": _args(op_def.input_arg),
        "outputs": _args(op_def.output_arg),
        "attrs": {
            a.name: [
                a.type,
                json_format.MessageToDict(a.default_value) if a.HasField("default_value") else None,
            ]
            for a in op_def.attr
        },
        "stateful": op_def.is_stateful,
    }


def main():
    ops = {}
    for name in dir(tf.raw_ops):
        op_def = op_def_registry.get(name)
        if op_def is not None and not name.startswith("_"):
            ops[name] = _op(op_def)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(repo, "daskflow", "framework", "op_defs", "tf_op_defs.json.gz")
    text = json.dumps({"tensorflow": tf.__version__, "ops": ops}, sort_keys=True, separators=(",", ":"))
    with open(path, "wb") as f:  # mtime 0: the same bytes from the same TensorFlow
        f.write(gzip.compress(text.encode(), mtime=0))


if __name__ == "__main__":
    main()
