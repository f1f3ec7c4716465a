"""TF1's internal module paths (``from tensorflow.python.framework import ops``) resolve
under ``daskflow.python`` to the objects TF1 exports publicly under the same names.

``daskflow/python/_paths.py`` is generated from TensorFlow
(``docs/api_coverage/make_module_paths.py``); these tests check the import
machinery and that every internal import of the stored programs resolves.
"""

import pathlib
import re

import pytest

import daskflow as tf
from daskflow.python._paths import PATHS

REPO = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = sorted((REPO / "tests" / "conformance" / "corpus").rglob("*.py")) + sorted(
    (REPO / "tests" / "programs").glob("*.py")
)
IMPORT = re.compile(r"^\s*from (daskflow\.python(?:\.\w+)+) import ([\w, ]+)$", re.M)


def internal_imports():
    found = set()
    for program in PROGRAMS:
        for module, names in IMPORT.findall(program.read_text(errors="replace")):
            for name in names.split(","):
                found.add((module, name.strip().split(" as ")[0]))
    return sorted(found)


def test_the_internal_modules_programs_import_most():
    from daskflow.python.framework import dtypes, ops, tensor_shape
    from daskflow.python.ops import array_ops, math_ops, nn_ops, variable_scope
    from daskflow.python.training import training

    assert ops.reset_default_graph is tf.reset_default_graph
    assert ops.Graph is tf.Graph and ops.get_default_graph is tf.get_default_graph
    assert dtypes.float32 is tf.float32
    assert tensor_shape.TensorShape is tf.TensorShape
    assert nn_ops.relu is tf.nn.relu and math_ops.matmul is tf.matmul
    assert array_ops.placeholder is tf.placeholder
    assert variable_scope.get_variable is tf.get_variable
    assert training.GradientDescentOptimizer is tf.train.GradientDescentOptimizer


def test_import_as_a_dotted_module_name():
    import daskflow.python.framework.ops as ops

    assert ops.Graph is tf.Graph


@pytest.mark.parametrize("module, name", internal_imports())
def test_every_internal_import_of_the_stored_programs_resolves(module, name):
    imported = __import__(module, fromlist=[name])
    assert hasattr(imported, name), (module, name)


def test_a_name_daskflow_lacks_names_its_public_counterpart():
    from daskflow.python.ops import array_ops

    missing = [n for n, public in PATHS["ops.array_ops"].items() if not hasattr(array_ops, n)]
    assert missing, "daskflow has every public name of array_ops: pick another module for this test"
    with pytest.raises(AttributeError, match=rf"'{missing[0]}': in TF1 it is tf\."):
        getattr(array_ops, missing[0])


def test_private_names_and_unknown_modules_are_not_offered():
    from daskflow.python.framework import ops

    with pytest.raises(AttributeError, match="_DefaultStack"):
        ops._DefaultStack  # noqa: B018 - the attribute access is the test
    with pytest.raises(ModuleNotFoundError, match="daskflow.python.no_such_module"):
        __import__("daskflow.python.no_such_module")


def test_smart_cond_of_a_tensor_builds_a_cond():
    # TF1 (2.21 compat.v1): smart_cond of a bool placeholder is a tf.cond, run gives 1 / 2;
    # of a Python bool, the branch's own value.
    from daskflow.python.framework import smart_cond

    with tf.Graph().as_default():
        pred = tf.placeholder(tf.bool, [])
        out = smart_cond.smart_cond(pred, lambda: tf.constant(1), lambda: tf.constant(2))
        with tf.Session() as sess:
            assert (sess.run(out, {pred: True}), sess.run(out, {pred: False})) == (1, 2)
    assert smart_cond.smart_cond(True, lambda: 1, lambda: 2) == 1
