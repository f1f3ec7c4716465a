"""TF1's internal module paths: ``from tensorflow.python.framework import ops`` and kin.

Programs import TF's internal modules for public objects
(``ops.reset_default_graph()``, ``dtypes.float32``, ``nn_ops.relu``). With
``tensorflow`` replaced by ``daskflow`` those imports resolve here: each
``daskflow.python.<path>`` module TF has gives, under TF's names, the daskflow
objects of the public names TF's own objects are (``_paths.py``, generated
from TensorFlow by ``docs/api_coverage/make_module_paths.py``, says which),
plus the few internal helpers programs call (``_internal.py``).
A name whose public counterpart daskflow lacks raises ``AttributeError``
naming that counterpart; TF's private names (``_linear``) are not offered.

Examples
--------
>>> from daskflow.python.framework import ops
>>> import daskflow as tf
>>> ops.reset_default_graph is tf.reset_default_graph
True
>>> from daskflow.python.ops import nn_ops
>>> nn_ops.relu is tf.nn.relu
True
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

import daskflow

from ._internal import INTERNAL
from ._paths import PATHS

_PREFIX = __name__ + "."
_MODULES = set(PATHS) | set(INTERNAL)
_PACKAGES = {".".join(key.split(".")[:i]) for key in _MODULES for i in range(1, key.count(".") + 1)}
_MISSING = object()


def _public(path):
    """The daskflow object at public path ``a.b`` (``tf.a.b``), or ``_MISSING``."""
    obj = daskflow
    for part in path.split("."):
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            break
    return obj


class InternalModule(types.ModuleType):
    """One of TF's internal modules, its public names bound to daskflow's objects."""

    def __init__(self, name, names):
        super().__init__(name)
        self.__path__ = []  # a package too, so TF's submodules of it import
        self._names = names

    def __getattr__(self, attr):
        public = self.__dict__.get("_names", {}).get(attr)
        if public is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        obj = _public(public)
        if obj is _MISSING:
            raise AttributeError(
                f"module {self.__name__!r} has no attribute {attr!r}: in TF1 it is tf.{public}, "
                "which daskflow does not have yet"
            )
        setattr(self, attr, obj)
        return obj

    def __dir__(self):
        present = [name for name, public in self._names.items() if _public(public) is not _MISSING]
        return sorted(set(super().__dir__()) | set(present))


class _InternalPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``daskflow.python.<path>`` for every path TF has."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        relative = fullname[len(_PREFIX) :]
        if relative in _MODULES or relative in _PACKAGES:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        relative = spec.name[len(_PREFIX) :]
        module = InternalModule(spec.name, PATHS.get(relative, {}))
        module.__dict__.update(INTERNAL.get(relative, {}))
        return module

    def exec_module(self, module):
        pass


if not any(isinstance(finder, _InternalPaths) for finder in sys.meta_path):
    sys.meta_path.insert(0, _InternalPaths())
