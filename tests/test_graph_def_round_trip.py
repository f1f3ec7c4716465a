"""Every op through ``Graph.as_graph_def()`` and ``import_graph_def``: the same outputs.

Each case of ``tests/test_ops.py`` (every primitive daskflow has) is built, written as a
``GraphDef``, imported into a new graph and run on the same inputs; each node of a TF op
type must carry exactly the attributes of TF's signature of it
(:mod:`daskflow.framework.op_defs`), so TensorFlow can import it too. The ops whose
daskflow form TF's lacks the means to carry are named in ``NOT_CARRIED``: their import is
refused, naming the node, and this checks that too.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.op_defs import op_def
from tests.test_ops import CASES, _as_list

# daskflow's forms that a GraphDef does not carry yet (their TF signatures differ):
NOT_CARRIED = {
    "Bincount",  # TF reads the size and weights as inputs
    "HistogramFixedWidth",  # TF reads nbins as an input
    "TensorArrayV3",  # TF's tensor arrays are resources; daskflow's is one array
    "PyFunc",  # a Python function exists only in the process that made it
    "PyFuncStateless",
}


def _check_signature(node, signature):
    """TF's attributes only, every one without a default, and as many inputs as TF's
    arguments take (a variadic argument: its number attribute's count, or its type list's)."""
    attrs = {k for k in node.attr if not k.startswith("_")}
    required = {k for k, (_, default) in signature.attrs.items() if default is None}
    assert attrs <= set(signature.attrs) and required <= attrs, (node.name, attrs, set(signature.attrs))
    expected = 0
    for arg in signature.inputs:
        if arg.number_attr:
            expected += node.attr[arg.number_attr].i
        elif arg.type_list_attr:
            expected += len(node.attr[arg.type_list_attr].list.type)
        else:
            expected += 1
    assert len([i for i in node.input if not i.startswith("^")]) == expected, node.name


def _build(case):
    graph = tf.Graph()
    with graph.as_default():
        inputs = [
            tf.placeholder(tf.as_dtype(a.dtype), a.shape, name=f"in{i}") for i, a in enumerate(case.inputs)
        ]
        outputs = _as_list(case.build(*inputs))
    return graph, inputs, outputs


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_op_survives_a_graph_def(case):
    graph, inputs, outputs = _build(case)
    graph_def = graph.as_graph_def()
    types = {op.type for op in graph.get_operations()}
    for node in graph_def.node:
        signature = op_def(node.op)
        if signature is not None and not types & NOT_CARRIED:  # (those: TF refuses the node too)
            _check_signature(node, signature)
    with tf.Graph().as_default():
        if types & NOT_CARRIED:
            with pytest.raises(ValueError, match="which daskflow cannot import"):
                tf.import_graph_def(graph_def, name="")
            return
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            got = sess.run([t.name for t in outputs], {f"in{i}:0": a for i, a in enumerate(case.inputs)})
    with graph.as_default(), tf.Session() as sess:
        expected = sess.run(outputs, dict(zip(inputs, case.inputs)))
    for name, value, want in zip([t.name for t in outputs], got, expected):
        value, want = np.asarray(value), np.asarray(want)
        assert value.dtype == want.dtype and value.shape == want.shape, name
        if want.dtype.kind == "O":
            assert value.tolist() == want.tolist(), name
        else:
            np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-9, err_msg=name)
