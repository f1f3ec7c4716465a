"""TF1's ``tf.read_file`` and ``tf.write_file`` (``tf.io.read_file``, ``tf.io.write_file``).

A file's whole contents as one string scalar, and a string scalar written as a file
(its folders made). Files go through ``tf.gfile`` (local paths or fsspec URLs); on a
cluster a relative path is the session's, wherever the op runs. Both ops are stateful:
a file may change between runs, so neither is folded into a constant. Not differentiable.

Examples
--------
>>> import os, tempfile
>>> import daskflow as tf
>>> folder = tempfile.mkdtemp()
>>> copied = tf.write_file(os.path.join(folder, "out", "b.txt"), tf.constant("hi"))
>>> with tf.Session() as sess:
...     sess.run(copied)
...     sess.run(tf.read_file(os.path.join(folder, "out", "b.txt")))
b'hi'
"""

from __future__ import annotations

import os
import posixpath

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import Primitive
from ..platform import gfile


def _scalar_strings(inputs, op):
    """TF1's graph-time checks: each input a string scalar (rank unknown passes)."""
    for t in inputs:
        if t.dtype is not dtypes.string:
            raise TypeError(f"{op} takes string tensors, got {t.dtype.name} ({t.name})")
        if t._dims is not None and len(t._dims) != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {len(t._dims)} for {op}'s input {t.name}")


def _read_file_infer(inputs):
    _scalar_strings(inputs, "ReadFile")
    return (), dtypes.string


def _read_file_kernel(xp, filename):
    with gfile.GFile(_text(filename), "rb") as f:
        return np.array(f.read(), dtype=object)


ReadFile = Primitive("ReadFile", _read_file_infer, _read_file_kernel, stateful=True, host_only=True)


def _write_file_infer(inputs):
    _scalar_strings(inputs, "WriteFile")
    return []


def _write_file_kernel(xp, filename, contents):
    name = _text(filename)
    folder = _folder(name)
    if folder:
        gfile.MakeDirs(folder)
    with gfile.GFile(name, "wb") as f:
        f.write(np.asarray(contents, dtype=object).item())


WriteFile = Primitive("WriteFile", _write_file_infer, _write_file_kernel, stateful=True, host_only=True)


def _folder(name: str) -> str:
    """The folder of file ``name``, a URL's (``memory://a/b.txt``: ``memory://a``) or a
    local path's; "" for none (``memory://b.txt``, ``b.txt``)."""
    if "://" not in name:
        return os.path.dirname(name)
    scheme, rest = name.split("://", 1)
    inner = posixpath.dirname(rest)
    return f"{scheme}://{inner}" if inner else ""


def _text(value) -> str:
    name = np.asarray(value, dtype=object).item()
    return name.decode() if isinstance(name, bytes) else str(name)


def read_file(filename, name=None):
    """The whole contents of the file ``filename`` (a string scalar) as a string scalar."""
    return apply(ReadFile, convert_to_tensor(filename, dtype=dtypes.string), name=name)


def write_file(filename, contents, name=None):
    """An op writing the string scalar ``contents`` as the file ``filename`` (replaced)."""
    tensors = [convert_to_tensor(t, dtype=dtypes.string) for t in (filename, contents)]
    return get_default_graph()._create_op(WriteFile, tensors, {}, name=name or "WriteFile")
