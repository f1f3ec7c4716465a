"""``tf.train.write_graph``: a graph's ``GraphDef`` to a file, as text or binary."""

from __future__ import annotations

import os
import posixpath

import fsspec

from .checkpoint_management import write_whole


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write a graph's ``GraphDef`` to ``logdir/name``; return that path.

    Parameters
    ----------
    graph_or_graph_def : Graph or GraphDef
    logdir : str
        A folder or fsspec URL; made when missing.
    name : str
        The file's name (TF1's ``graph.pbtxt`` for text).
    as_text : bool
        Protobuf's text format (default), else the binary wire format.

    Examples
    --------
    >>> import daskflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     c = tf.constant(1.0, name="c")
    >>> tf.train.write_graph(g, "memory://write-graph-doctest", "graph.pbtxt")
    'memory://write-graph-doctest/graph.pbtxt'
    """
    graph_def = graph_or_graph_def
    if hasattr(graph_def, "as_graph_def"):
        graph_def = graph_def.as_graph_def()
    logdir = os.fspath(logdir)
    path = posixpath.join(logdir, name)
    fs, _ = fsspec.core.url_to_fs(logdir)
    fs.makedirs(fs._strip_protocol(logdir), exist_ok=True)
    if as_text:
        from google.protobuf import text_format

        write_whole(fs, path, text_format.MessageToString(graph_def))
    else:
        tmp = fs._strip_protocol(path + ".tmp")
        with fs.open(tmp, "wb") as f:
            f.write(graph_def.SerializeToString(deterministic=True))
        fs.mv(tmp, fs._strip_protocol(path))
    return path
