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
Event = event_pb2.Event
SessionLog = event_pb2.SessionLog
TaggedRunMetadata = event_pb2.TaggedRunMetadata
GraphDef = graph_pb2.GraphDef
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
