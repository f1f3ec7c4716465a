"""TF1's other public paths for the objects daskflow has, and TF1's namespace modules.

TF1 binds many objects to several public paths (``tf.log`` is ``tf.math.log``,
``tf.random_normal`` is ``tf.random.normal``). ``_aliases.py``, generated from
TensorFlow by ``docs/api_coverage/make_aliases.py``, lists each such group of
paths and every namespace module of ``tf``. A name a daskflow namespace lacks is
looked up there: if daskflow has the object under another path of its group, that
object is the answer. A namespace module daskflow has no file for (``tf.math``,
``tf.io``) is made on import, with nothing of its own.

Examples
--------
>>> import daskflow as tf
>>> tf.math.log is tf.log, tf.random.normal is tf.random_normal
(True, True)
>>> from daskflow.math import reduce_sum
>>> reduce_sum is tf.reduce_sum
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types

from ._aliases import GROUPS, NAMESPACES
from ._missing import missing

MISSING = object()
_PACKAGE = __name__.rpartition(".")[0]
_NAMESPACES = frozenset(NAMESPACES)
_by_path: dict[str, tuple[str, ...]] = {}
_busy = threading.local()


def _groups():
    if not _by_path:
        _by_path.update((path, group) for group in GROUPS for path in group)
    return _by_path


def public(path):
    """The daskflow object at public path ``a.b`` (``tf.a.b``), or :data:`MISSING`."""
    obj = sys.modules[_PACKAGE]
    for part in path.split("."):
        obj = getattr(obj, part, MISSING)
        if obj is MISSING:
            break
    return obj


def resolve(namespace, name):
    """The object daskflow has under another of TF1's paths for ``tf.<namespace>.<name>``,
    or :data:`MISSING`. (A path being looked up is skipped in nested lookups, so two
    paths that each lack the object do not ask each other forever.)"""
    path = f"{namespace}.{name}" if namespace else name
    busy = _busy.__dict__.setdefault("paths", set())
    group = _groups().get(path, ())
    if path in busy:
        return MISSING
    busy.add(path)
    try:
        for other in group:
            if other != path and other not in busy:
                obj = public(other)
                if obj is not MISSING:
                    return obj
    finally:
        busy.discard(path)
    return MISSING


def module_getattr(module):
    """A module-level ``__getattr__`` for namespace ``module`` (as users write it,
    ``tf.nn``): TF1's other paths for a name, else :func:`~daskflow._missing.missing`."""
    namespace = module.removeprefix("tf").lstrip(".")

    def __getattr__(name):  # noqa: N807 - the module hook's name
        if not name.startswith("_"):
            obj = resolve(namespace, name)
            if obj is not MISSING:
                return obj
            if f"{namespace}.{name}".lstrip(".") in _NAMESPACES:
                return importlib.import_module(f"{_PACKAGE}.{namespace}.{name}".replace("..", "."))
        raise missing(module, name)

    return __getattr__


class Namespace(types.ModuleType):
    """A namespace module of TF1 that daskflow has no file for: only other paths' objects."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []  # its sub-namespaces import too
        self._lookup = module_getattr("tf." + name.removeprefix(_PACKAGE + "."))

    def __getattr__(self, attr):
        if attr == "_lookup":
            raise AttributeError(attr)
        return self._lookup(attr)


class _NamespaceFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``daskflow.<namespace>`` for TF1's namespaces that have no module here."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(_PACKAGE + ".") and fullname[len(_PACKAGE) + 1 :] in _NAMESPACES:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return Namespace(spec.name)

    def exec_module(self, module):
        parent, _, child = module.__name__.rpartition(".")
        sys.modules[parent].__dict__.setdefault(child, module)


def install():
    """Put the namespace finder last on ``sys.meta_path`` (modules with files come first),
    and let ``import daskflow.gfile`` find the namespaces kept under other module names."""
    if not any(isinstance(finder, _NamespaceFinder) for finder in sys.meta_path):
        sys.meta_path.append(_NamespaceFinder())
    package = sys.modules[_PACKAGE]
    for namespace in _NAMESPACES:
        existing = package.__dict__.get(namespace)
        if isinstance(existing, types.ModuleType):
            sys.modules.setdefault(f"{_PACKAGE}.{namespace}", existing)
