"""TF1's ``tf.summary``: summary ops, and ``FileWriter`` for TensorBoard event files.

Summary ops are graph ops whose value is a serialized ``Summary`` proto
(``bytes`` when fetched); a :class:`FileWriter` writes them, with the graph,
to event files that TensorBoard reads. The proto classes (``Summary``,
``Event``, ``SessionLog``...) are tensorboardX's copies of TF's, loaded on
first use so that building a graph does not import tensorboardX.

Examples
--------
>>> import tempfile
>>> import daskflow as tf
>>> with tf.Graph().as_default():
...     x = tf.Variable(3.0, name="x")
...     with tf.name_scope("train"):
...         _ = tf.summary.scalar("x", x)
...     merged = tf.summary.merge_all()
...     with tf.Session() as sess, tf.summary.FileWriter(tempfile.mkdtemp(), sess.graph) as writer:
...         sess.run(tf.global_variables_initializer())
...         writer.add_summary(sess.run(merged), global_step=0)
"""

from ..framework import protos
from .summary_ops import audio, histogram, image, merge, merge_all, scalar, tensor_summary, text
from .writer import FileWriter, FileWriterCache

_PROTOS = ("Summary", "SummaryMetadata", "SummaryDescription", "Event", "SessionLog", "TaggedRunMetadata")

__all__ = [
    "audio",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
    "FileWriter",
    "FileWriterCache",
    *_PROTOS,
]


def __getattr__(name):
    if name in _PROTOS:
        return getattr(protos, name)  # (tensorboardX loads on this first use)
    raise AttributeError(f"module 'daskflow.summary' has no attribute {name!r}")
