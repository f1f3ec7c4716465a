"""TF's ``SavedModel`` proto: the schema version and the meta graphs, in ``saved_model.pb``
(or ``.pbtxt``). Made here from a descriptor of TF's ``saved_model.proto`` (its two fields,
the same numbers): tensorboard ships the ``MetaGraphDef`` it holds, not the message itself.
It is declared in package ``daskflow``, so TensorFlow's own may be imported beside it.
"""

from __future__ import annotations

import functools
import posixpath

import fsspec

from . import constants


@functools.cache
def saved_model_class():
    """The ``SavedModel`` message class (``saved_model_schema_version``, ``meta_graphs``)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from tensorboard.compat.proto import meta_graph_pb2

    field = descriptor_pb2.FieldDescriptorProto
    message = descriptor_pb2.DescriptorProto(
        name="SavedModel",
        field=[
            field(
                name="saved_model_schema_version", number=1, type=field.TYPE_INT64, label=field.LABEL_OPTIONAL
            ),
            field(
                name="meta_graphs",
                number=2,
                type=field.TYPE_MESSAGE,
                label=field.LABEL_REPEATED,
                type_name=".tensorboard.MetaGraphDef",
            ),
        ],
    )
    proto = descriptor_pb2.FileDescriptorProto(
        name="daskflow/saved_model.proto",
        package="daskflow",
        dependency=[meta_graph_pb2.DESCRIPTOR.name],
        message_type=[message],
        syntax="proto3",
    )
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(proto.name)
    except KeyError:
        pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("daskflow.SavedModel"))


def write(export_dir, saved_model, as_text=False):
    """Write ``saved_model`` into ``export_dir``; return the file's path."""
    from google.protobuf import text_format

    name = constants.SAVED_MODEL_FILENAME_PBTXT if as_text else constants.SAVED_MODEL_FILENAME_PB
    path = posixpath.join(export_dir, name)
    fs, stripped = fsspec.core.url_to_fs(path)
    with fs.open(stripped, "w" if as_text else "wb") as f:
        f.write(text_format.MessageToString(saved_model) if as_text else saved_model.SerializeToString())
    return path


def read(export_dir):
    """The ``SavedModel`` in ``export_dir`` (its ``.pb``, else its ``.pbtxt``), or OSError."""
    from google.protobuf import message, text_format

    for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT):
        fs, stripped = fsspec.core.url_to_fs(posixpath.join(export_dir, name))
        if fs.exists(stripped):
            with fs.open(stripped, "rb") as f:
                data = f.read()
            saved_model = saved_model_class()()
            try:
                if name.endswith(".pb"):
                    saved_model.ParseFromString(data)
                else:
                    text_format.Merge(data.decode(), saved_model)
            except (message.DecodeError, text_format.ParseError, UnicodeDecodeError) as e:
                raise OSError(f"Cannot parse file {export_dir}/{name}: {e}") from None
            return saved_model
    raise OSError(
        f"SavedModel file does not exist at: {export_dir}/"
        f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}"
    )


def exists(export_dir):
    """Whether ``export_dir`` holds a SavedModel file."""
    for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT):
        fs, stripped = fsspec.core.url_to_fs(posixpath.join(export_dir, name))
        if fs.exists(stripped):
            return True
    return False


def variables_path(export_dir):
    """The checkpoint prefix of a SavedModel's variables (``<dir>/variables/variables``)."""
    return posixpath.join(export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
