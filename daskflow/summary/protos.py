"""TF's protos (``Summary``, ``Event``, ``GraphDef``...) as tensorboardX ships
them, and numpy arrays as ``TensorProto``.

Imported only when a summary is computed, a graph converted or an event
written: importing tensorboardX takes longer than importing daskflow, and
building a graph needs none of it.
"""

from __future__ import annotations

import numpy as np
from tensorboardX.proto import (
    attr_value_pb2,
    event_pb2,
    graph_pb2,
    node_def_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
)

from .. import dtypes

Summary = summary_pb2.Summary
SummaryMetadata = summary_pb2.SummaryMetadata
SummaryDescription = summary_pb2.SummaryDescription
HistogramProto = summary_pb2.HistogramProto
SessionLog = event_pb2.SessionLog
TaggedRunMetadata = event_pb2.TaggedRunMetadata
GraphDef = graph_pb2.GraphDef


def _event_with_source_metadata():
    """TF's ``Event``: tensorboardX's (the same fields, numbers and wire form) plus what
    tensorboardX's copy lacks, ``source_metadata`` (field 10, a ``SourceMetadata`` naming
    the writer). Made once from tensorboardX's descriptor, in package ``daskflow``."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    event = descriptor_pb2.DescriptorProto()
    event_pb2.Event.DESCRIPTOR.CopyToProto(event)
    source = descriptor_pb2.DescriptorProto(name="SourceMetadata")
    source.field.add(name="writer", number=1, type=9, label=1)  # string
    event.field.add(name="source_metadata", number=10, type=11, label=1, type_name=".daskflow.SourceMetadata")
    for field in event.field:  # tensorboardX's own messages stay theirs: its SessionLog etc. fit
        if field.type_name.startswith("."):
            continue
        if field.type_name:
            field.type_name = f".{event_pb2.DESCRIPTOR.package}.{field.type_name}"
    proto = descriptor_pb2.FileDescriptorProto(
        name="daskflow/event.proto",
        package="daskflow",
        dependency=[event_pb2.DESCRIPTOR.name],
        message_type=[event, source],
        syntax="proto3",
    )
    pool = descriptor_pool.Default()
    try:
        pool.Add(proto)
    except TypeError:  # an older protobuf: AddSerializedFile
        pool.AddSerializedFile(proto.SerializeToString())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("daskflow.Event"))


Event = _event_with_source_metadata()
NodeDef = node_def_pb2.NodeDef
AttrValue = attr_value_pb2.AttrValue
TensorProto = tensor_pb2.TensorProto
TensorShapeProto = tensor_shape_pb2.TensorShapeProto


def shape_proto(dims) -> TensorShapeProto:
    """Static dims (None for an unknown rank, None entries for unknown sizes) as TF writes them."""
    if dims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in dims])


def tensor_proto(array) -> TensorProto:
    """A numpy array (object arrays of bytes for strings) as a ``TensorProto``.

    Numbers go into ``tensor_content`` (little-endian), strings into
    ``string_val``, as TF1's summary kernels write them.
    """
    array = np.asarray(array)
    dtype = dtypes.as_dtype(array.dtype)
    proto = TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=shape_proto(array.shape))
    if dtype is dtypes.string:
        proto.string_val.extend(dtypes.as_string_array(array).reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto
