"""The names TF1 gives a variable's ops, its initial value's above all.

``fixtures/variable_names.json`` holds what TensorFlow's compat.v1 named for
each scenario of ``fixtures/scenarios_variable_names.py`` (made by
``fixtures/make_variable_names.py``); daskflow builds the same scenarios here.
A checkpoint or meta graph names these ops, and TF1 code finds them by name.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

import daskflow as tf

HERE = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(HERE))
import scenarios_variable_names as sc  # noqa: E402

TF1 = json.loads((HERE / "variable_names.json").read_text())


@pytest.mark.parametrize("scenario", sorted(TF1["initial_values"]))
def test_initial_value_and_initializer_are_named_as_tf1_names_them(scenario):
    assert sc.initial_values(tf)[scenario] == TF1["initial_values"][scenario]


@pytest.mark.parametrize("scenario", sorted(TF1["graph_defs"]))
def test_graph_def_has_tf1s_nodes_in_tf1s_order(scenario):
    assert sc.graph_defs(tf)[scenario] == TF1["graph_defs"][scenario]


def test_initial_value_found_by_its_tf1_name():
    with tf.Graph().as_default() as graph:
        v = tf.Variable([1.0, 2.0], name="v")
        assert graph.get_tensor_by_name("v/initial_value:0") is v.initial_value
