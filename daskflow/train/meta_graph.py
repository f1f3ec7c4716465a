"""TF1's ``export_meta_graph``: the graph written as TF's ``MetaGraphDef``.

``Saver.save`` writes one beside each checkpoint (``<prefix>.meta``) unless
``write_meta_graph=False``. The file holds TF's bytes for a ``MetaGraphDef``
with ``meta_info_def`` (the version and tags), ``graph_def`` (each op as a
``NodeDef``, see :mod:`daskflow.summary.graph_def`) and ``saver_def``, so
TensorFlow and TensorBoard read it. Collections are not written: daskflow's
collections hold Python objects with no ``CollectionDef`` form.
"""

from __future__ import annotations

import os

import fsspec

from ..framework.graph import get_default_graph
from ..lib.io.proto_wire import length_delimited

__all__ = ["MetaGraphDef", "export_meta_graph"]


class MetaGraphDef:
    """TF's ``MetaGraphDef``, the parts daskflow writes: ``meta_info_def`` (``tags``,
    ``tensorflow_version``), ``graph_def`` (a ``GraphDef`` proto) and ``saver_def``."""

    def __init__(self, graph_def, saver_def=None, tags=(), version=""):
        self.graph_def = graph_def
        self.saver_def = saver_def
        self.tags = list(tags)
        self.version = version

    def _meta_info(self) -> bytes:
        body = b"".join(length_delimited(4, t.encode()) for t in self.tags)
        return body + (length_delimited(5, self.version.encode()) if self.version else b"")

    def SerializeToString(self, deterministic=None):  # noqa: N802 - protobuf's name
        saver = b"" if self.saver_def is None else length_delimited(3, self.saver_def.SerializeToString())
        return (
            length_delimited(1, self._meta_info())
            + length_delimited(2, self.graph_def.SerializeToString())
            + saver
        )

    def __str__(self):
        from google.protobuf import text_format

        lines = ["meta_info_def {\n"]
        lines += [f'  tags: "{t}"\n' for t in self.tags]
        lines += [f'  tensorflow_version: "{self.version}"\n'] if self.version else []
        lines += ["}\n", "graph_def {\n", _indent(text_format.MessageToString(self.graph_def)), "}\n"]
        if self.saver_def is not None:
            lines += ["saver_def {\n", _indent(str(self.saver_def)), "}\n"]
        return "".join(lines)


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text=False,
    graph=None,
    export_scope=None,
    clear_devices=False,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """The graph (default: the default graph) as a :class:`MetaGraphDef`; written to
    ``filename`` if given, as TF's bytes or, with ``as_text``, its text format.

    ``clear_devices`` leaves devices out of the ``NodeDef`` s. Collections and
    scopes are not exported (``collection_list``, ``export_scope`` and the
    rest are TF1's arguments, accepted).

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     y = tf.constant(1.0, name="y")
    ...     meta = tf.train.export_meta_graph()
    >>> [node.name for node in meta.graph_def.node]
    ['y']
    """
    from .. import __version__

    graph = graph if graph is not None else get_default_graph()
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
        if clear_devices:
            for node in graph_def.node:
                node.device = ""
    tags = list(getattr(meta_info_def, "tags", []) or [])
    meta = MetaGraphDef(graph_def, saver_def, tags=tags, version=f"daskflow-{__version__}")
    if filename is not None:
        filename = os.fspath(filename)
        fs, path = fsspec.core.url_to_fs(filename)
        parent = os.path.dirname(path)
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(path, "w" if as_text else "wb") as f:
            f.write(str(meta) if as_text else meta.SerializeToString())
    return meta
