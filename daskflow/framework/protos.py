"""TF's protos (``Summary``, ``Event``, ``GraphDef``...) as tensorboardX ships
them, and numpy arrays as ``TensorProto``.

The classes are made on first use, by the module's ``__getattr__``: importing
tensorboardX takes longer than importing daskflow, and building a graph needs none
of it. So a module that makes protos imports this one (``from ..summary import
protos``) and names a class where it makes one (``protos.Summary(...)``); a
``from .protos import Summary`` at a module's top would load tensorboardX there.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import dtypes

_NAMES = (
    "Summary",
    "SummaryMetadata",
    "SummaryDescription",
    "HistogramProto",
    "SessionLog",
    "TaggedRunMetadata",
    "Event",
    "GraphDef",
    "NodeDef",
    "AttrValue",
    "TensorProto",
    "TensorShapeProto",
)
_made: dict = {}
_lock = threading.Lock()  # two threads' first use would add daskflow's messages twice


def __getattr__(name):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _proto(name)


def __dir__():
    return sorted({*globals(), *_NAMES})


def _proto(name):
    """The proto class ``name``, all of them made on the first call."""
    with _lock:
        if not _made:
            _made.update(_classes())
            globals().update(_made)  # later lookups find them without this function
    return _made[name]


def _classes() -> dict:
    """tensorboardX's proto classes by name, with daskflow's extended ``Event`` and ``GraphDef``."""
    from tensorboardX.proto import (
        attr_value_pb2,
        event_pb2,
        graph_pb2,
        node_def_pb2,
        summary_pb2,
        tensor_pb2,
        tensor_shape_pb2,
    )

    return {
        "Summary": summary_pb2.Summary,
        "SummaryMetadata": summary_pb2.SummaryMetadata,
        "SummaryDescription": summary_pb2.SummaryDescription,
        "HistogramProto": summary_pb2.HistogramProto,
        "SessionLog": event_pb2.SessionLog,
        "TaggedRunMetadata": event_pb2.TaggedRunMetadata,
        # TF's Event has ``source_metadata`` (the writer's name); its GraphDef, the function
        # library and the debug info (kept here as they come, unparsed).
        "Event": _extended(
            event_pb2.Event,
            [("source_metadata", 10, _MESSAGE, "SourceMetadata")],
            [("SourceMetadata", [("writer", 1, _STRING)])],
        ),
        "GraphDef": _extended(
            graph_pb2.GraphDef,
            [("library", 2, _MESSAGE, "FunctionDefLibrary"), ("debug_info", 5, _MESSAGE, "GraphDebugInfo")],
            [("FunctionDefLibrary", []), ("GraphDebugInfo", [])],
        ),
        "NodeDef": node_def_pb2.NodeDef,
        "AttrValue": attr_value_pb2.AttrValue,
        "TensorProto": tensor_pb2.TensorProto,
        "TensorShapeProto": tensor_shape_pb2.TensorShapeProto,
    }


def _extended(base, fields, messages=()):
    """TF's message ``base`` as tensorboardX ships it, plus the ``fields`` its copy lacks:
    ``(name, number, type, type_name)``, ``type_name`` naming one of ``messages`` (new
    message types, ``(name, [(field name, number, type)])``, in package ``daskflow``).
    Made once from tensorboardX's descriptor; the same wire form, so bytes of TF's
    message parse into it and back (a field of a message kept empty here keeps its
    contents as unknown fields)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    message = descriptor_pb2.DescriptorProto()
    base.DESCRIPTOR.CopyToProto(message)
    package = base.DESCRIPTOR.file.package
    for field in message.field:  # tensorboardX's own messages stay theirs
        if field.type_name and not field.type_name.startswith("."):
            field.type_name = f".{package}.{field.type_name}"
    for name, number, kind, type_name in fields:
        added = message.field.add(name=name, number=number, type=kind, label=1)
        if type_name:
            added.type_name = f".daskflow.{type_name}"
    extra = [descriptor_pb2.DescriptorProto(name=name) for name, _ in messages]
    for proto, (_, sub_fields) in zip(extra, messages):
        for name, number, kind in sub_fields:
            proto.field.add(name=name, number=number, type=kind, label=1)
    proto = descriptor_pb2.FileDescriptorProto(
        name=f"daskflow/{base.DESCRIPTOR.name.lower()}.proto",
        package="daskflow",
        dependency=[base.DESCRIPTOR.file.name],
        message_type=[message, *extra],
        syntax="proto3",
    )
    pool = descriptor_pool.Default()
    try:
        pool.Add(proto)
    except TypeError:  # an older protobuf: AddSerializedFile
        pool.AddSerializedFile(proto.SerializeToString())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"daskflow.{base.DESCRIPTOR.name}"))


_STRING, _MESSAGE = 9, 11


def shape_proto(dims):
    """Static dims (None for an unknown rank, None entries for unknown sizes) as TF writes them."""
    TensorShapeProto = _proto("TensorShapeProto")  # noqa: N806 - the proto's class
    if dims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in dims])


def tensor_proto(array):
    """A numpy array (object arrays of bytes for strings) as a ``TensorProto``.

    Numbers go into ``tensor_content`` (little-endian), strings into
    ``string_val``, as TF1's summary kernels write them.
    """
    array = np.asarray(array)
    dtype = dtypes.as_dtype(array.dtype)
    proto = _proto("TensorProto")(dtype=dtype.as_datatype_enum, tensor_shape=shape_proto(array.shape))
    if dtype is dtypes.string:
        proto.string_val.extend(dtypes.as_string_array(array).reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto
