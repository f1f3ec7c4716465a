"""``tf.io.gfile``: TF's file functions under their later, lowercase names (``exists``,
``makedirs``, ``GFile``...), the same functions as ``tf.gfile``'s CamelCase ones
(:mod:`daskflow.platform.gfile`): local paths and any fsspec URL, TF's errors."""

from __future__ import annotations

import os
import posixpath

from ..errors import OpError
from ..platform import gfile as _gfile
from ..platform.gfile import GFile

__all__ = [
    "GFile",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]


def copy(src, dst, overwrite=False):
    """Copy file ``src`` to ``dst`` (``AlreadyExistsError`` if it exists, unless ``overwrite``)."""
    _gfile.Copy(src, dst, overwrite)


def exists(path):
    """Whether ``path`` exists."""
    return _gfile.Exists(path)


def glob(pattern):
    """The paths matching ``pattern``."""
    return _gfile.Glob(pattern)


def isdir(path):
    """Whether ``path`` is a directory."""
    return _gfile.IsDirectory(path)


def join(path, *paths):
    """``path`` joined with ``paths``: with ``/`` for a URL (``s3://b/k``), as the OS joins otherwise."""
    path = os.fspath(path)
    return (posixpath.join if "://" in path else os.path.join)(path, *map(os.fspath, paths))


def listdir(path):
    """The names in directory ``path`` (``NotFoundError`` if there is none)."""
    return _gfile.ListDirectory(path)


def makedirs(path):
    """Make ``path`` and its missing parents."""
    _gfile.MakeDirs(path)


def mkdir(path):
    """Make directory ``path`` (its parent must exist)."""
    _gfile.Mkdir(path)


def remove(path):
    """Delete file ``path``."""
    _gfile.Remove(path)


def rename(src, dst, overwrite=False):
    """Move ``src`` to ``dst`` (``AlreadyExistsError`` if it exists, unless ``overwrite``)."""
    _gfile.Rename(src, dst, overwrite)


def rmtree(path):
    """Delete directory ``path`` and everything in it."""
    _gfile.DeleteRecursively(path)


def stat(path):
    """``path``'s ``FileStatistics`` (``length``, ``mtime_nsec``, ``is_directory``)."""
    return _gfile.Stat(path)


def walk(top, topdown=True, onerror=None):
    """``(dirname, subdir_names, file_names)`` for ``top`` and each directory below
    (parents first unless ``topdown=False``); an error listing one goes to ``onerror``
    (called with it) where given, else is raised."""
    try:
        yield from _gfile.Walk(top, in_order=topdown)
    except OpError as error:
        if onerror is None:
            raise
        onerror(error)


def get_registered_schemes():
    """The URL schemes paths may have: fsspec's protocols (``file``, ``memory``, ``s3``...)."""
    import fsspec

    return sorted(fsspec.available_protocols())
