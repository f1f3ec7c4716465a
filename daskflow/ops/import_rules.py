"""How each TF op type of a ``GraphDef`` becomes daskflow ops, for ``tf.import_graph_def``.

A rule takes the node's input tensors, its attributes (decoded: dtypes, shapes as lists,
tensors as numpy arrays) and its name, and builds the op with daskflow's public function
for that TF op, so shapes are inferred and gradients come with it. TF's inputs that
daskflow's functions take as Python values (an axis, a permutation) must be constants in
the GraphDef, as they are in the graphs TF1 writes. A TF op type without a rule here is
refused by the importer, naming the node.
"""

from __future__ import annotations

from .. import dtypes
from .infer import constant_value

RULES: dict = {}
# TF op types whose daskflow function is several ops (its output is named inside a scope):
# the importer builds them under ``<node>_parts`` and names their outputs as the node's.
COMPOSITE = {"Selu", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}


def rule(*op_types):
    """Declare the rule for TF op types ``op_types``."""

    def register(fn):
        for op_type in op_types:
            RULES[op_type] = fn
        return fn

    return register


def _value(tensor, node, what):
    """A constant input's value (TF's axis, perm and shape inputs)."""
    value = constant_value(tensor)
    if value is None:
        raise ValueError(
            f"import_graph_def: node {node!r} needs a constant {what}; {tensor.name} is computed"
        )
    return value.tolist()


def _unary(fn):
    return lambda inputs, attrs, name: fn(inputs[0], name=name)


def _binary(fn):
    return lambda inputs, attrs, name: fn(inputs[0], inputs[1], name=name)


def install():
    """Fill :data:`RULES` (on first import, after daskflow's ops exist)."""
    import daskflow as tf

    unary = {
        "Identity": tf.identity,
        "Snapshot": tf.identity,
        "StopGradient": tf.stop_gradient,
        "Relu": tf.nn.relu,
        "Relu6": tf.nn.relu6,
        "Elu": tf.nn.elu,
        "Selu": tf.nn.selu,
        "Softplus": tf.nn.softplus,
        "Sigmoid": tf.sigmoid,
        "Tanh": tf.tanh,
        "Exp": tf.exp,
        "Log": tf.log,
        "Sqrt": tf.sqrt,
        "Rsqrt": tf.rsqrt,
        "Square": tf.square,
        "Neg": tf.negative,
        "Abs": tf.abs,
        "Floor": tf.floor,
        "Ceil": tf.ceil,
        "Round": tf.round,
        "Sign": tf.sign,
        "LogicalNot": tf.logical_not,
        "Softmax": tf.nn.softmax,
        "LogSoftmax": tf.nn.log_softmax,
        "ZerosLike": tf.zeros_like,
        "OnesLike": tf.ones_like,
        "Size": tf.size,
        "Rank": tf.rank,
    }
    binary = {
        "Add": tf.add,
        "AddV2": tf.add,
        "Sub": tf.subtract,
        "Mul": tf.multiply,
        "RealDiv": tf.realdiv,
        "Div": tf.div,
        "Maximum": tf.maximum,
        "Minimum": tf.minimum,
        "Pow": tf.pow,
        "FloorDiv": tf.floordiv,
        "FloorMod": tf.floormod,
        "SquaredDifference": tf.squared_difference,
        "Equal": tf.equal,
        "NotEqual": tf.not_equal,
        "Greater": tf.greater,
        "GreaterEqual": tf.greater_equal,
        "Less": tf.less,
        "LessEqual": tf.less_equal,
        "LogicalAnd": tf.logical_and,
        "LogicalOr": tf.logical_or,
        "Reshape": tf.reshape,
        "Fill": tf.fill,
        "Tile": tf.tile,
    }
    RULES.update({op: _unary(fn) for op, fn in unary.items()})
    RULES.update({op: _binary(fn) for op, fn in binary.items()})
    RULES.update(_structural(tf))
    RULES.update(_nn(tf))


def _structural(tf):
    return {
        "Const": lambda i, a, name: tf.constant(a["value"], dtype=a["dtype"], name=name),
        "Placeholder": lambda i, a, name: tf.placeholder(a["dtype"], a.get("shape"), name=name),
        "PlaceholderWithDefault": lambda i, a, name: tf.placeholder_with_default(
            i[0], a.get("shape"), name=name
        ),
        "NoOp": lambda i, a, name: tf.no_op(name=name),
        "Cast": lambda i, a, name: tf.cast(i[0], a["DstT"], name=name),
        "Shape": lambda i, a, name: tf.shape(i[0], out_type=a.get("out_type", dtypes.int32), name=name),
        "Squeeze": lambda i, a, name: tf.squeeze(i[0], a.get("squeeze_dims") or None, name=name),
        "ExpandDims": lambda i, a, name: tf.expand_dims(i[0], _value(i[1], name, "axis"), name=name),
        "Transpose": lambda i, a, name: tf.transpose(i[0], _value(i[1], name, "perm"), name=name),
        "ConcatV2": lambda i, a, name: tf.concat(i[:-1], _value(i[-1], name, "axis"), name=name),
        "Pack": lambda i, a, name: tf.stack(i, axis=a.get("axis", 0), name=name),
        "Unpack": lambda i, a, name: tf.unstack(i[0], num=a.get("num"), axis=a.get("axis", 0), name=name),
        "Range": lambda i, a, name: tf.range(i[0], i[1], i[2], name=name),
        "Slice": lambda i, a, name: tf.slice(i[0], i[1], i[2], name=name),
        "GatherV2": lambda i, a, name: tf.gather(i[0], i[1], axis=_value(i[2], name, "axis"), name=name),
        "Pad": lambda i, a, name: tf.pad(i[0], _value(i[1], name, "paddings"), name=name),
        "PadV2": lambda i, a, name: tf.pad(
            i[0], _value(i[1], name, "paddings"), constant_values=i[2], name=name
        ),
        "Select": lambda i, a, name: tf.where(i[0], i[1], i[2], name=name),
        "SelectV2": lambda i, a, name: tf.where_v2(i[0], i[1], i[2], name=name),
        "AddN": lambda i, a, name: tf.add_n(i, name=name),
        "StridedSlice": lambda i, a, name: tf.strided_slice(
            i[0],
            i[1],
            i[2],
            i[3],
            name=name,
            **{
                m: a.get(m, 0)
                for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
            },
        ),
        **{
            op: _reduction(fn)
            for op, fn in {
                "Mean": tf.reduce_mean,
                "Sum": tf.reduce_sum,
                "Max": tf.reduce_max,
                "Min": tf.reduce_min,
                "Prod": tf.reduce_prod,
                "All": tf.reduce_all,
                "Any": tf.reduce_any,
            }.items()
        },
        "ArgMax": _arg(tf.argmax),
        "ArgMin": _arg(tf.argmin),
    }


def _arg(fn):
    return lambda i, a, name: fn(
        i[0], _value(i[1], name, "dimension"), output_type=a.get("output_type", dtypes.int64), name=name
    )


def _reduction(fn):
    return lambda i, a, name: fn(
        i[0], _value(i[1], name, "axis"), keepdims=a.get("keep_dims", False), name=name
    )


def _nn(tf):
    def pool(fn):
        return lambda i, a, name: fn(
            i[0], a["ksize"], a["strides"], a["padding"], data_format=a.get("data_format", "NHWC"), name=name
        )

    return {
        "MatMul": lambda i, a, name: tf.matmul(
            i[0],
            i[1],
            transpose_a=a.get("transpose_a", False),
            transpose_b=a.get("transpose_b", False),
            name=name,
        ),
        "BatchMatMul": _batch_matmul(tf),
        "BatchMatMulV2": _batch_matmul(tf),
        "BiasAdd": lambda i, a, name: tf.nn.bias_add(
            i[0], i[1], data_format=a.get("data_format", "NHWC"), name=name
        ),
        "LeakyRelu": lambda i, a, name: tf.nn.leaky_relu(i[0], alpha=a.get("alpha", 0.2), name=name),
        "Conv2D": lambda i, a, name: tf.nn.conv2d(
            i[0],
            i[1],
            a["strides"],
            a["padding"],
            data_format=a.get("data_format", "NHWC"),
            dilations=a.get("dilations", [1, 1, 1, 1]),
            name=name,
        ),
        "MaxPool": pool(tf.nn.max_pool),
        "AvgPool": pool(tf.nn.avg_pool),
        "FusedBatchNorm": _batch_norm(tf, 5),
        "FusedBatchNormV2": _batch_norm(tf, 5),
        "FusedBatchNormV3": _batch_norm(tf, 6),
    }


def _batch_matmul(tf):
    return lambda i, a, name: tf.matmul(
        i[0], i[1], adjoint_a=a.get("adj_x", False), adjoint_b=a.get("adj_y", False), name=name
    )


def _batch_norm(tf, outputs):
    """Inference's batch norm (``is_training=False``): the stored mean and variance; its
    ``outputs`` as TF's (y, then the statistics it read; V3's reserved sixth likewise)."""

    def build(i, a, name):
        if a.get("is_training", True) or a.get("data_format", "NHWC") != "NHWC":
            raise ValueError(
                f"import_graph_def: node {name!r} is a batch norm in training mode or not NHWC; "
                "daskflow imports inference's NHWC batch norms"
            )
        x, scale, offset, mean, variance = i[:5]
        y = tf.nn.batch_normalization(x, mean, variance, offset, scale, a.get("epsilon", 1e-4), name=name)
        return [y, mean, variance, mean, variance, mean][:outputs]

    return build
