"""The graph layer: names, scopes, devices, colocation, shapes, operators."""

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.device_spec import DeviceSpec, merge_device

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_default_graph_stack():
    g = tf.Graph()
    outer = tf.get_default_graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        c = tf.constant(1.0)
    assert c.graph is g and tf.get_default_graph() is outer
    tf.reset_default_graph()
    assert tf.get_default_graph() is not outer


def test_unique_names_and_name_scopes():
    a = tf.constant(1.0, name="c")
    b = tf.constant(1.0, name="c")
    assert (a.op.name, b.op.name, a.name) == ("c", "c_1", "c:0")
    with tf.name_scope("layer") as scope:
        assert scope == "layer/"
        w = tf.Variable(tf.zeros([2]), name="w")
        with tf.name_scope("inner"):
            d = tf.constant(2.0, name="d")
    with tf.name_scope("layer"):
        e = tf.constant(3.0, name="d")
    assert w.name == "layer/w:0"
    assert d.op.name == "layer/inner/d"
    assert e.op.name == "layer_1/d"
    assert w.initializer.name == "layer/w/Assign"
    g = tf.get_default_graph()
    assert g.get_tensor_by_name("layer/inner/d:0") is d
    assert g.get_operation_by_name("layer/w") is w.op


def test_variable_names_and_collections():
    v = tf.Variable(1.0)
    u = tf.Variable(2.0, trainable=False)
    assert (v.op.name, u.op.name) == ("Variable", "Variable_1")
    assert tf.global_variables() == [v, u]
    assert tf.trainable_variables() == [v]
    step = tf.train.get_or_create_global_step()
    assert step.dtype is tf.int64 and step.op.name == "global_step"
    assert tf.train.get_or_create_global_step() is step


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("/job:worker/replica:0/task:1/device:GPU:0", "/job:worker/replica:0/task:1/device:GPU:0"),
        ("/gpu:0", "/device:GPU:0"),
        ("/cpu:0", "/device:CPU:0"),
        ("/job:ps/task:3", "/job:ps/task:3"),
        ("/device:GPU:*", "/device:GPU:*"),
    ],
)
def test_device_strings_parse_and_print(spec, expected):
    assert DeviceSpec.from_string(spec).to_string() == expected


@pytest.mark.parametrize("bad", ["/job:", "/task:x", "/gpu:a", "/device:@:0", "job:ps/bogus:1"])
def test_malformed_device_strings_are_named(bad):
    with pytest.raises(ValueError, match="malformed device string"):
        DeviceSpec.from_string(bad)
    with pytest.raises(ValueError, match="malformed"):
        with tf.device(bad):
            pass


def test_nested_device_scopes_merge_and_functions_apply():
    assert merge_device("/job:worker/task:1", "/gpu:0") == "/job:worker/task:1/device:GPU:0"
    with tf.device("/job:worker/task:1"):
        with tf.device("/gpu:0"):
            a = tf.constant(1.0)
        with tf.device(None):
            b = tf.constant(1.0)
        with tf.device(lambda op: "/job:ps/task:0" if op.type == "VariableV2" else "/cpu:0"):
            v = tf.Variable(1.0)
    assert a.device == "/job:worker/task:1/device:GPU:0"
    assert b.device == ""
    assert v.device == "/job:ps/task:0"
    assert v.initial_value.device == "/job:worker/task:1/device:CPU:0"


def test_colocate_with_and_assignments_follow_their_variable():
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0)
    with tf.device("/job:worker/task:0"):
        with tf.colocate_with(v):
            c = tf.constant(2.0)
        update = v.assign_add(c)
    assert c.device == "/job:ps/task:0"
    assert update.device == "/job:ps/task:0"  # assignments live with their variable
    assert v.initializer.device == "/job:ps/task:0"


def test_control_dependencies_record_edges():
    a = tf.no_op(name="a")
    with tf.control_dependencies([a]):
        b = tf.constant(1.0)
        with tf.control_dependencies(None):
            c = tf.constant(2.0)
    assert b.op.control_inputs == [a]
    assert c.op.control_inputs == []


def test_static_shapes_with_unknown_dimensions():
    x = tf.placeholder(tf.float32, [None, 784])
    w = tf.zeros([784, 10])
    y = tf.matmul(x, w) + tf.zeros([10])
    assert y.shape.as_list() == [None, 10]
    assert tf.reduce_sum(y, axis=1).shape.as_list() == [None]
    assert tf.reshape(x, [-1, 28, 28, 1]).shape.as_list() == [None, 28, 28, 1]
    assert tf.placeholder(tf.float32).shape.ndims is None
    assert x.get_shape()[1] == 784
    z = tf.placeholder(tf.float32, [None, None])
    z.set_shape([5, None])
    assert z.shape.as_list() == [5, None]
    with pytest.raises(ValueError):
        z.set_shape([6, None])


def test_python_operators_build_ops():
    x = tf.placeholder(tf.float32, [3])
    y = tf.placeholder(tf.float32, [3])
    m = tf.placeholder(tf.float32, [3, 3])
    exprs = {
        "add": (x + y, lambda a, b, c: a + b),
        "radd": (1.0 + x, lambda a, b, c: 1 + a),
        "sub": (x - y, lambda a, b, c: a - b),
        "rsub": (2.0 - x, lambda a, b, c: 2 - a),
        "mul": (x * y, lambda a, b, c: a * b),
        "div": (x / y, lambda a, b, c: a / b),
        "rdiv": (1.0 / y, lambda a, b, c: 1 / b),
        "pow": (x**2.0, lambda a, b, c: a**2),
        "matmul": (m @ m, lambda a, b, c: c @ c),
        "neg": (-x, lambda a, b, c: -a),
        "abs": (abs(x), lambda a, b, c: np.abs(a)),
        "lt": (x < y, lambda a, b, c: a < b),
        "le": (x <= y, lambda a, b, c: a <= b),
        "gt": (x > y, lambda a, b, c: a > b),
        "ge": (x >= y, lambda a, b, c: a >= b),
        "getitem": (m[1:, ::2], lambda a, b, c: c[1:, ::2]),
        "getitem_int": (m[:, 1], lambda a, b, c: c[:, 1]),
        "newaxis": (x[None, ..., None], lambda a, b, c: a[None, ..., None]),
        "numpy_left": (np.float32(2.0) * x, lambda a, b, c: 2 * a),
    }
    rng = np.random.default_rng(0)
    a, b, c = rng.random(3, np.float32) + 0.5, rng.random(3, np.float32) + 0.5, rng.random((3, 3), np.float32)
    with tf.Session() as sess:
        for name, (t, ref) in exprs.items():
            got = sess.run(t, {x: a, y: b, m: c})
            np.testing.assert_allclose(got, ref(a, b, c), rtol=1e-6, err_msg=name)
            assert t.shape.as_list() == list(np.shape(got)), name


def test_tensors_are_hashable_and_not_bools():
    x = tf.constant(1.0)
    assert {x: 1}[x] == 1
    with pytest.raises(TypeError, match="bool"):
        bool(x)


def test_dtypes():
    assert tf.as_dtype("float32") is tf.float32
    assert tf.as_dtype(np.int64) is tf.int64
    assert tf.constant(1).dtype is tf.int32
    assert tf.constant(1.5).dtype is tf.float32
    assert tf.constant(np.float64(1.5)).dtype is tf.float64
    assert (tf.constant(1.0) + 2).dtype is tf.float32
    with pytest.raises(TypeError):
        tf.as_dtype("complex256")


def test_shapes_built_from_tensors_keep_what_tf1_knows():
    # The expected shapes are what TF1 (tensorflow.compat.v1, 2.21) infers for the same graph.
    with tf.Graph().as_default():  # later tests' default graph stays clean
        b = tf.placeholder(tf.int32, [])
        x = tf.placeholder(tf.float32, [None, 5])
        cases = {
            "zeros([b, 3])": (tf.zeros([b, 3]), [None, 3]),
            "zeros(stack)": (tf.zeros(tf.stack([tf.shape(x)[0], 3])), [None, 3]),
            "reshape": (tf.reshape(x, [tf.shape(x)[0], 5]), [None, 5]),
            "fill": (tf.fill([tf.shape(x)[0], 2], 1.0), [None, 2]),
            "reshape -1": (tf.reshape(x, [-1, tf.shape(x)[1]]), [None, 5]),
            "packed list": (tf.convert_to_tensor([b, b]), [2]),
            "packed nested list": (tf.convert_to_tensor([[b, 1], [2, b]]), [2, 2]),
            "ones(shape)": (tf.ones(tf.shape(x)), [None, 5]),
            "random_normal": (tf.random_normal([tf.shape(x)[0], 7]), [None, 7]),
        }
        for what, (t, expected) in cases.items():
            assert t.shape.as_list() == expected, what
        with tf.Session() as sess:
            assert sess.run(cases["packed nested list"][0], {b: 7}).tolist() == [[7, 1], [2, 7]]


# -- TF1's constructors and Graph methods ---------------------------------------------------------------


def test_dtype_from_its_datatype_number_is_the_one_dtype():
    assert tf.DType(1) is tf.float32 and tf.dtypes.DType(9) is tf.int64
    assert tf.DType(101) is tf.float32  # TF1's float32_ref; daskflow has no ref dtypes
    with pytest.raises(TypeError, match="100 does not correspond to a valid tensorflow::DataType"):
        tf.DType(100)
    with pytest.raises(TypeError, match="DataType 14 is not supported by daskflow"):
        tf.DType(14)  # bfloat16
    with pytest.raises(ValueError):
        tf.DType("float32")  # TF1 converts with int()
    with pytest.raises(NotImplementedError, match="handle_data="):
        tf.DType(1, handle_data=object())


def test_tensor_cannot_be_made_directly():
    with pytest.raises(TypeError, match="output of an operation"):
        tf.Tensor()


def test_create_op_takes_tf1s_arguments():
    g = tf.Graph()
    with g.as_default():
        a, b = tf.constant(3.0), tf.constant(2.0)
        with tf.device("/cpu:0"):
            op = g.create_op("Mul", [a, b], [tf.float32], input_types=[tf.float32, tf.float32])
            unplaced = g.create_op("Mul", [a, b], name="unplaced", compute_device=False)
        assert (op.name, op.type, op.device, unplaced.device) == ("Mul", "Mul", "/device:CPU:0", "")
        with tf.Session() as sess:
            assert float(sess.run(op.outputs[0])) == 6.0
        with pytest.raises(TypeError, match=r"output types \(\['float32'\]\) are not compatible"):
            g.create_op("Mul", [a, b], [tf.int32])
        with pytest.raises(TypeError, match="Input #1 is not a tensor: 2.0"):
            g.create_op("Mul", [a, 2.0])
        with pytest.raises(ValueError, match="no op type named 'NoSuchOp'"):
            g.create_op("NoSuchOp", [a])
        with pytest.raises(NotImplementedError, match="op_def="):
            g.create_op("Mul", [a, b], op_def=object())


def test_as_graph_def_takes_tf1s_arguments():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="a")
        version = g.version
        tf.constant(2.0, name="b")
    # TF 2.21's TF1 API gives every node whatever from_version says; so does daskflow.
    names = [n.name for n in g.as_graph_def(version, add_shapes=True, use_pybind11_proto=True).node]
    assert names == ["a", "b"]


def test_node_def_has_tf1s_fields():
    node = tf.NodeDef(name="n", op="NoOp", experimental_debug_info=None, experimental_type=None)
    assert (node.name, node.op, node.experimental_debug_info, node.experimental_type) == (
        "n",
        "NoOp",
        None,
        None,
    )


def test_convert_to_tensor_dtype_hint():
    g = tf.Graph()
    with g.as_default():
        assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype is tf.float32
        assert tf.convert_to_tensor("x", dtype_hint=tf.float32).dtype is tf.string  # a hint, not a demand
        with pytest.raises(ValueError, match="Cannot specify both 'preferred_dtype' and 'dtype_hint'"):
            tf.convert_to_tensor(1, preferred_dtype=tf.float32, dtype_hint=tf.float32)


def test_device_spec_merge_from_changes_it_in_place():
    # TF1's DeviceSpec (V1) is mutable: merge_from returns None; make_merged_spec and replace copy.
    spec = tf.DeviceSpec(job="ps", task=0)
    assert spec.merge_from(tf.DeviceSpec.from_string("/gpu:1")) is None
    assert spec.to_string() == "/job:ps/task:0/device:GPU:1"
    assert spec.make_merged_spec(tf.DeviceSpec(task=3)).to_string() == "/job:ps/task:3/device:GPU:1"
    assert spec.replace(job="w").to_string() == "/job:w/task:0/device:GPU:1"
    assert spec.to_string() == "/job:ps/task:0/device:GPU:1"
    assert spec.parse_from_string("/job:x/cpu:0") is spec and spec.to_string() == "/job:x/device:CPU:0"
    assert hash(spec) == hash(tf.DeviceSpec.from_string("/job:x/cpu:0"))
