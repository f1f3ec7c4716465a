"""``tf.saved_model.utils``: tensors as a signature's ``TensorInfo`` protos, and back."""

from __future__ import annotations

from ..framework.graph import get_default_graph, prepend_name_scope
from ..framework.protos import shape_proto
from ..framework.sparse_tensor import SparseTensor

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def build_tensor_info(tensor):
    """``tensor`` (or a ``SparseTensor``) as a ``TensorInfo`` proto: its name, dtype and
    static shape."""
    from tensorboard.compat.proto.meta_graph_pb2 import TensorInfo
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

    if isinstance(tensor, SparseTensor):
        info = TensorInfo(dtype=tensor.dtype.as_datatype_enum)
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    elif hasattr(tensor, "op") and hasattr(tensor, "dtype"):
        info = TensorInfo(name=tensor.name, dtype=tensor.dtype.as_datatype_enum)
    else:
        raise TypeError(f"build_tensor_info takes a Tensor or SparseTensor; got {type(tensor).__name__}")
    dims = getattr(tensor, "_dims", None) if not isinstance(tensor, SparseTensor) else None
    info.tensor_shape.CopyFrom(TensorShapeProto.FromString(shape_proto(dims).SerializeToString()))
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor (or ``SparseTensor``) ``tensor_info`` names in ``graph`` (default: the
    default graph), under ``import_scope``."""
    graph = graph if graph is not None else get_default_graph()

    def find(name):
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return find(tensor_info.name)
    if encoding == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(
            find(sparse.indices_tensor_name),
            find(sparse.values_tensor_name),
            find(sparse.dense_shape_tensor_name),
        )
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")
