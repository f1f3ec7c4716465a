"""TF1's ``RunMetadata`` and ``StepStats`` protos, as real protobuf messages.

Neither tensorboardX (a daskflow dependency) nor protobuf itself ships them,
so they are declared here, field for field with TensorFlow's
``config.proto`` / ``step_stats.proto`` (same names, numbers and types), in
daskflow's own protobuf package: the bytes ``SerializeToString`` gives are
TF's, so TensorBoard reads them, and a TF or TensorBoard ``RunMetadata``
parses them. Fields daskflow never fills are declared only where TF1 code
reads them (``cost_graph.node``, ``partition_graphs``); any other field of
bytes made by TensorFlow is kept as an unknown field and written back as it was.

The classes are built on first use: importing protobuf costs time that
building a graph does not need.
"""

from __future__ import annotations

import functools

__all__ = ["message_class"]

PACKAGE = "daskflow.tf"  # not "tensorflow": TensorFlow's own classes may share the process

_STRING, _INT64, _UINT64, _INT32, _UINT32, _BOOL, _MESSAGE = (
    "string",
    "int64",
    "uint64",
    "int32",
    "uint32",
    "bool",
    None,
)

# TF's DataType enum (types.proto): DT_<name> = number, and DT_<name>_REF = number + 100.
_DATA_TYPES = (
    "INVALID FLOAT DOUBLE INT32 UINT8 INT16 INT8 STRING COMPLEX64 INT64 BOOL QINT8 QUINT8 QINT32 "
    "BFLOAT16 QINT16 QUINT16 UINT16 COMPLEX128 HALF RESOURCE VARIANT UINT32 UINT64"
).split()
_ENUM = "DataType"

# message -> [(field, number, type or message name, repeated)], as TF declares them.
_SCHEMA = {
    "TensorShapeProto.Dim": [("size", 1, _INT64, False), ("name", 2, _STRING, False)],
    "TensorShapeProto": [("dim", 2, "TensorShapeProto.Dim", True), ("unknown_rank", 3, _BOOL, False)],
    "AllocationDescription": [
        ("requested_bytes", 1, _INT64, False),
        ("allocated_bytes", 2, _INT64, False),
        ("allocator_name", 3, _STRING, False),
        ("allocation_id", 4, _INT64, False),
        ("has_single_reference", 5, _BOOL, False),
        ("ptr", 6, _UINT64, False),
    ],
    "TensorDescription": [
        ("dtype", 1, _ENUM, False),
        ("shape", 2, "TensorShapeProto", False),
        ("allocation_description", 4, "AllocationDescription", False),
    ],
    "AllocatorMemoryUsed": [
        ("allocator_name", 1, _STRING, False),
        ("total_bytes", 2, _INT64, False),
        ("peak_bytes", 3, _INT64, False),
        ("live_bytes", 4, _INT64, False),
        ("allocator_bytes_in_use", 5, _INT64, False),
    ],
    "NodeOutput": [("slot", 1, _INT32, False), ("tensor_description", 3, "TensorDescription", False)],
    "MemoryStats": [
        ("temp_memory_size", 1, _INT64, False),
        ("device_temp_memory_size", 2, _INT64, False),
        ("persistent_memory_size", 3, _INT64, False),
        ("device_persistent_memory_size", 4, _INT64, False),
        ("persistent_tensor_alloc_ids", 5, _INT64, True),
        ("device_persistent_tensor_alloc_ids", 6, _INT64, True),
    ],
    "NodeExecStats": [
        ("node_name", 1, _STRING, False),
        ("all_start_micros", 2, _INT64, False),
        ("op_start_rel_micros", 3, _INT64, False),
        ("op_end_rel_micros", 4, _INT64, False),
        ("all_end_rel_micros", 5, _INT64, False),
        ("memory", 6, "AllocatorMemoryUsed", True),
        ("output", 7, "NodeOutput", True),
        ("timeline_label", 8, _STRING, False),
        ("scheduled_micros", 9, _INT64, False),
        ("thread_id", 10, _UINT32, False),
        ("referenced_tensor", 11, "AllocationDescription", True),
        ("memory_stats", 12, "MemoryStats", False),
        ("all_start_nanos", 13, _INT64, False),
        ("op_start_rel_nanos", 14, _INT64, False),
        ("op_end_rel_nanos", 15, _INT64, False),
        ("all_end_rel_nanos", 16, _INT64, False),
        ("scheduled_nanos", 17, _INT64, False),
    ],
    "DeviceStepStats.ThreadNamesEntry": [("key", 1, _UINT32, False), ("value", 2, _STRING, False)],
    "DeviceStepStats": [
        ("device", 1, _STRING, False),
        ("node_stats", 2, "NodeExecStats", True),
        ("thread_names", 3, "DeviceStepStats.ThreadNamesEntry", True),
    ],
    "StepStats": [("dev_stats", 1, "DeviceStepStats", True)],
    "NodeDef": [
        ("name", 1, _STRING, False),
        ("op", 2, _STRING, False),
        ("input", 3, _STRING, True),
        ("device", 4, _STRING, False),
    ],
    "GraphDef": [("node", 1, "NodeDef", True), ("version", 3, _INT32, False)],
    "CostGraphDef.Node": [
        ("name", 1, _STRING, False),
        ("device", 2, _STRING, False),
        ("id", 3, _INT32, False),
        ("temporary_memory_size", 6, _INT64, False),
        ("is_final", 7, _BOOL, False),
        ("control_input", 8, _INT32, True),
        ("compute_cost", 9, _INT64, False),
        ("compute_time", 14, _INT64, False),
        ("memory_time", 15, _INT64, False),
    ],
    "CostGraphDef": [("node", 1, "CostGraphDef.Node", True)],
    "RunMetadata.FunctionGraphs": [
        ("partition_graphs", 1, "GraphDef", True),
        ("pre_optimization_graph", 2, "GraphDef", False),
        ("post_optimization_graph", 3, "GraphDef", False),
    ],
    "SessionMetadata": [("name", 1, _STRING, False), ("version", 2, _INT64, False)],
    "RunMetadata": [
        ("step_stats", 1, "StepStats", False),
        ("cost_graph", 2, "CostGraphDef", False),
        ("partition_graphs", 3, "GraphDef", True),
        ("function_graphs", 4, "RunMetadata.FunctionGraphs", True),
        ("session_metadata", 5, "SessionMetadata", False),
    ],
}
_MAP_ENTRIES = {"DeviceStepStats.ThreadNamesEntry"}


@functools.cache
def _classes() -> dict:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    kinds = descriptor_pb2.FieldDescriptorProto
    scalar = {
        _STRING: kinds.TYPE_STRING,
        _INT64: kinds.TYPE_INT64,
        _UINT64: kinds.TYPE_UINT64,
        _INT32: kinds.TYPE_INT32,
        _UINT32: kinds.TYPE_UINT32,
        _BOOL: kinds.TYPE_BOOL,
    }
    file = descriptor_pb2.FileDescriptorProto(
        name="daskflow/client/run_metadata.proto", package=PACKAGE, syntax="proto3"
    )
    enum = file.enum_type.add(name=_ENUM)
    for number, name in enumerate(_DATA_TYPES):
        enum.value.add(name=f"DT_{name}", number=number)
    for number, name in enumerate(_DATA_TYPES[1:], start=101):
        enum.value.add(name=f"DT_{name}_REF", number=number)
    declared = {}  # "Outer.Inner" -> its DescriptorProto
    for name in sorted(_SCHEMA, key=lambda n: n.count(".")):  # outer messages before nested ones
        fields = _SCHEMA[name]
        outer, _, inner = name.rpartition(".")
        message = (declared[outer].nested_type if outer else file.message_type).add(name=inner)
        if name in _MAP_ENTRIES:
            message.options.map_entry = True
        declared[name] = message
        for field, number, kind, repeated in fields:
            label = kinds.LABEL_REPEATED if repeated else kinds.LABEL_OPTIONAL
            entry = message.field.add(name=field, number=number, label=label, json_name=_camel(field))
            if kind in scalar:
                entry.type = scalar[kind]
            elif kind == _ENUM:
                entry.type, entry.type_name = kinds.TYPE_ENUM, f".{PACKAGE}.{_ENUM}"
            else:
                entry.type, entry.type_name = kinds.TYPE_MESSAGE, f".{PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()  # daskflow's own: no clash with any other library's
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        for name in _SCHEMA
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def message_class(name: str):
    """The protobuf class of TF's message ``name`` (``"RunMetadata"``, ``"StepStats"``...).

    Examples
    --------
    >>> from daskflow.client.run_metadata import message_class
    >>> stats = message_class("StepStats")()
    >>> stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0").device
    '/job:localhost/replica:0/task:0/device:CPU:0'
    """
    return _classes()[name]
