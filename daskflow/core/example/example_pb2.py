"""TF's ``tf.train.Example`` and ``tf.train.SequenceExample`` protos, and their features.

No installed package ships them (tensorboard's and tensorboardX's protos hold graphs and
summaries only), so the messages are made here from a descriptor of TF's
``feature.proto`` and ``example.proto``: the same package (``tensorflow``), message
names, field names and numbers, hence the same bytes on the wire and the same text
form. They live in a descriptor pool of their own, so TensorFlow's copies may be
imported beside them.

Examples
--------
>>> import daskflow as tf
>>> example = tf.train.Example(features=tf.train.Features(feature={
...     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
>>> tf.train.Example.FromString(example.SerializeToString()).features.feature["label"].int64_list.value
[3]
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = [
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
]

_Field = descriptor_pb2.FieldDescriptorProto
_REPEATED, _OPTIONAL = _Field.LABEL_REPEATED, _Field.LABEL_OPTIONAL


def _message(name, *fields, nested=()):
    """``fields``: ``(name, number, type, label, type_name, oneof_index)``."""
    message = descriptor_pb2.DescriptorProto(name=name, nested_type=list(nested))
    for field_name, number, kind, label, type_name, oneof in fields:
        field = message.field.add(name=field_name, number=number, type=kind, label=label)
        if type_name:
            field.type_name = type_name
        if oneof is not None:
            field.oneof_index = oneof
    return message


def _list(name, kind):
    message = _message(name, ("value", 1, kind, _REPEATED, None, None))
    if kind != _Field.TYPE_BYTES:
        message.field[0].options.packed = True
    return message


def _map(owner, field_name, value_type):
    """A ``map<string, value_type>`` field: a repeated nested ``...Entry`` message."""
    entry = _message(
        "".join(part.capitalize() for part in field_name.split("_")) + "Entry",
        ("key", 1, _Field.TYPE_STRING, _OPTIONAL, None, None),
        ("value", 2, _Field.TYPE_MESSAGE, _OPTIONAL, value_type, None),
    )
    entry.options.map_entry = True
    return _message(
        owner,
        (field_name, 1, _Field.TYPE_MESSAGE, _REPEATED, f".tensorflow.{owner}.{entry.name}", None),
        nested=[entry],
    )


def _files():
    message = _Field.TYPE_MESSAGE
    feature = _message(
        "Feature",
        ("bytes_list", 1, message, _OPTIONAL, ".tensorflow.BytesList", 0),
        ("float_list", 2, message, _OPTIONAL, ".tensorflow.FloatList", 0),
        ("int64_list", 3, message, _OPTIONAL, ".tensorflow.Int64List", 0),
    )
    feature.oneof_decl.add(name="kind")
    feature_list = _message("FeatureList", ("feature", 1, message, _REPEATED, ".tensorflow.Feature", None))
    features_file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/feature.proto",
        package="tensorflow",
        syntax="proto3",
        message_type=[
            _list("BytesList", _Field.TYPE_BYTES),
            _list("FloatList", _Field.TYPE_FLOAT),
            _list("Int64List", _Field.TYPE_INT64),
            feature,
            _map("Features", "feature", ".tensorflow.Feature"),
            feature_list,
            _map("FeatureLists", "feature_list", ".tensorflow.FeatureList"),
        ],
    )
    example_file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/example.proto",
        package="tensorflow",
        syntax="proto3",
        dependency=[features_file.name],
        message_type=[
            _message("Example", ("features", 1, message, _OPTIONAL, ".tensorflow.Features", None)),
            _message(
                "SequenceExample",
                ("context", 1, message, _OPTIONAL, ".tensorflow.Features", None),
                ("feature_lists", 2, message, _OPTIONAL, ".tensorflow.FeatureLists", None),
            ),
        ],
    )
    return features_file, example_file


def _classes():
    pool = descriptor_pool.DescriptorPool()
    for file in _files():
        pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))
        for name in __all__
    }


_CLASSES = _classes()
BytesList = _CLASSES["BytesList"]
FloatList = _CLASSES["FloatList"]
Int64List = _CLASSES["Int64List"]
Feature = _CLASSES["Feature"]
Features = _CLASSES["Features"]
FeatureList = _CLASSES["FeatureList"]
FeatureLists = _CLASSES["FeatureLists"]
Example = _CLASSES["Example"]
SequenceExample = _CLASSES["SequenceExample"]
