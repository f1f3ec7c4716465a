"""TF1's other public paths for daskflow's objects, and TF1's namespace modules
(``daskflow/_aliases.py``, generated from TensorFlow by
``docs/api_coverage/make_aliases.py``)."""

import importlib

import pytest

import daskflow as tf
from daskflow import _namespaces
from daskflow._aliases import GROUPS, NAMESPACES


def test_every_path_of_an_object_daskflow_has_gives_that_object():
    had = 0
    for group in GROUPS:
        found = {path: _namespaces.public(path) for path in group}
        present = [obj for obj in found.values() if obj is not _namespaces.MISSING]
        if present:
            had += 1
            missing = [path for path, obj in found.items() if obj is _namespaces.MISSING]
            assert not missing, f"{group}: daskflow has it, but not as {missing}"
            assert all(obj is present[0] for obj in present), f"{group}: not one object in daskflow"
    assert had > 200  # the table is TF's; daskflow has most of the aliased objects


def test_tf1_aliases_across_namespaces():
    assert tf.math.log is tf.log
    assert tf.random.normal is tf.random_normal
    assert tf.dtypes.cast is tf.cast
    assert tf.linalg.matmul is tf.matmul
    assert tf.compat.v1.math.reduce_sum is tf.reduce_sum


def test_namespaces_without_a_file_import():
    from daskflow.math import reduce_mean

    assert reduce_mean is tf.reduce_mean
    for namespace in ("math", "io", "bitwise", "sets"):
        assert importlib.import_module(f"daskflow.{namespace}") is getattr(tf, namespace)
    assert set(NAMESPACES) >= {"math", "io", "linalg", "nn", "train"}


def test_a_namespace_kept_under_another_module_name_imports_as_itself():
    import daskflow.gfile

    assert daskflow.gfile is tf.gfile
    assert tf.gfile.Exists is tf.gfile.Exists


LACKED = [("math", "bessel_i0"), ("", "no_such_name"), ("nn", "no_such")]


@pytest.mark.parametrize(("namespace", "name"), LACKED)
def test_a_name_daskflow_lacks_names_itself(namespace, name):
    owner = getattr(tf, namespace) if namespace else tf
    where = f"tf.{namespace}.{name}" if namespace else f"tf.{name}"
    with pytest.raises(AttributeError, match=f"{where} is not part of daskflow"):
        getattr(owner, name)
