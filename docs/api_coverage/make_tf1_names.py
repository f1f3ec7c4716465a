"""Dump the public names of TF1's API into ``tf1_names.json``.

Run with the TensorFlow environment::

    /work/tfenv/bin/python docs/api_coverage/make_tf1_names.py

TF1 here is ``tensorflow.compat.v1`` of the TensorFlow installed there. For
the top level and each module of :data:`MODULES` the file lists every public
name (no leading underscore) that is a class, a callable or a constant;
submodules are left out (they have entries of their own). A module that the
installed TensorFlow no longer has (``estimator`` since 2.16) is recorded as
unavailable with the reason.
"""

import inspect
import json
import os
import pathlib
import types

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # compat.v1.layers / nn.rnn_cell come from tf_keras
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf_root  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

OUT = pathlib.Path(__file__).with_name("tf1_names.json")
MODULES = [
    "",
    "nn",
    "train",
    "layers",
    "losses",
    "metrics",
    "summary",
    "data",
    "estimator",
    "initializers",
    "gfile",
    "app",
    "logging",
    "image",
    "nn.rnn_cell",
    "errors",
    "flags",
    "random",
    "math",
    "linalg",
    "io",
    "strings",
    "sparse",
    "dtypes",
    "debugging",
]


def is_module(obj):
    # TF wraps and lazily loads its API modules; those wrappers are modules too.
    return isinstance(obj, types.ModuleType) or type(obj).__name__.endswith(("LazyLoader", "ModuleWrapper"))


def kind(obj):
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "callable"
    return "constant"


def module_names(module):
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(module, name)
        except Exception as exc:  # noqa: BLE001 - a broken lazy name is recorded, not fatal
            names[name] = f"unloadable: {type(exc).__name__}"
            continue
        if not is_module(obj):
            names[name] = kind(obj)
    return names


def lookup(path):
    obj = tf
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def main():
    modules = {}
    for path in MODULES:
        try:
            module = lookup(path)
        except AttributeError as exc:
            modules[path] = {"available": False, "reason": str(exc)}
            continue
        modules[path] = {"available": True, "names": module_names(module)}
    report = {"tensorflow": tf_root.__version__, "api": "tensorflow.compat.v1", "modules": modules}
    OUT.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n")
    for path, entry in modules.items():
        print(f"tf.{path}".rstrip("."), len(entry.get("names", {})) if entry["available"] else "unavailable")


if __name__ == "__main__":
    main()
