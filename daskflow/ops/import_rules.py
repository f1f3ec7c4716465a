"""How each TF op type of a ``GraphDef`` becomes daskflow ops, for ``tf.import_graph_def``.

A rule takes the node's input tensors, its attributes (decoded: dtypes, shapes as lists,
tensors as numpy arrays) and its name, and builds the op with daskflow's public function
for that TF op, so shapes are inferred and gradients come with it. TF's inputs that
daskflow's functions take as Python values (an axis, a permutation) must be constants in
the GraphDef, as they are in the graphs TF1 writes. A TF op type without a rule here is
refused by the importer, naming the node.
"""

from __future__ import annotations

import daskflow as tf

from .. import dtypes
from ..framework.apply import apply
from ..variables import assign, assign_add, assign_sub, imported_variable
from . import (
    array_ops,
    collective_ops,
    conv_ops,
    gradient_helper_ops,
    math_ops,
    nn_ops,
    random_ops,
    rnn_ops,
    training_ops,
)
from .control_flow_ops import control_dependencies
from .infer import constant_value
from .math_ops import ReduceOver
from .sparse_ops import SparseConcat

RULES: dict = {}
# TF's reductions and the numpy (and daskflow ``reduce_``) names of what they compute.
REDUCTIONS = {
    "Sum": "sum",
    "Mean": "mean",
    "Max": "max",
    "Min": "min",
    "Prod": "prod",
    "All": "all",
    "Any": "any",
}
# TF op types whose daskflow function is several ops (its output is named inside a scope):
# the importer builds them under ``<node>_parts`` and names their outputs as the node's.
COMPOSITE = {
    "Selu",
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "ApplyGradientDescent",
    "ApplyMomentum",
    "ApplyAdam",
    "BiasAddGrad",
    "SigmoidGrad",
    "TanhGrad",
    "SqrtGrad",
    "RsqrtGrad",
    "SparseSoftmaxCrossEntropyWithLogits",
    "ResourceApplyGradientDescent",
    "ResourceApplyMomentum",
    "ResourceApplyAdam",
}


def registrar(table):
    """A decorator ``rule(*op_types)`` declaring a function the rule of ``op_types`` in ``table``."""

    def rule(*op_types):
        def register(fn):
            for op_type in op_types:
                table[op_type] = fn
            return fn

        return register

    return rule


rule = registrar(RULES)


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
    RULES.update(_variables(tf))
    RULES.update(_gradients(tf))
    RULES.update(_collectives())


def _collectives():
    """Horovod's ops (``daskflow.horovod``): the reduction's attributes as Horovod writes them."""
    scale = lambda a: (a.get("prescale_factor", 1.0), a.get("postscale_factor", 1.0))  # noqa: E731
    return {
        "HorovodAllreduce": lambda i, a, name: collective_ops.allreduce(
            i[0], a.get("reduce_op", collective_ops.AVERAGE), *scale(a), name=name
        ),
        "HorovodGroupedAllreduce": lambda i, a, name: collective_ops.grouped_allreduce(
            list(i), a.get("reduce_op", collective_ops.AVERAGE), *scale(a), name=name
        ),
        "HorovodAllgather": lambda i, a, name: collective_ops.allgather(i[0], name=name),
        "HorovodBroadcast": lambda i, a, name: collective_ops.broadcast(i[0], a["root_rank"], name=name),
        "HorovodJoin": lambda i, a, name: collective_ops.join(name=name),
    }


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
            i[0],
            _value(i[1], name, "paddings"),
            constant_values=_value(i[2], name, "constant value"),
            name=name,
        ),
        "Select": lambda i, a, name: tf.where(i[0], i[1], i[2], name=name),
        "SelectV2": lambda i, a, name: tf.where_v2(i[0], i[1], i[2], name=name),
        "AddN": lambda i, a, name: tf.add_n(i, name=name),
        "StridedSlice": lambda i, a, name: tf.strided_slice(i[0], i[1], i[2], i[3], name=name, **_masks(a)),
        **{op: _reduction(getattr(tf, f"reduce_{method}"), method) for op, method in REDUCTIONS.items()},
        "ArgMax": _arg(tf.argmax),
        "ArgMin": _arg(tf.argmin),
    }


def _masks(attrs):
    names = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    return {m: attrs.get(m, 0) for m in names}


def _arg(fn):
    return lambda i, a, name: fn(
        i[0], _value(i[1], name, "dimension"), output_type=a.get("output_type", dtypes.int64), name=name
    )


def _reduction(fn, method):
    """A reduction: daskflow's function over constant axes, ``ReduceOver`` over computed ones."""

    def build(i, a, name):
        keepdims = a.get("keep_dims", False)
        if constant_value(i[1]) is None:
            return apply(ReduceOver, i[0], i[1], method=method, keepdims=keepdims, name=name)
        return fn(i[0], _value(i[1], name, "axis"), keepdims=keepdims, name=name)

    return build


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
        "LSTMBlockCell": lambda i, a, name: rnn_ops.lstm_block_cell(
            *i[:4],
            i[7],
            *(i[4:7] if a.get("use_peephole") else ()),
            forget_bias=a.get("forget_bias", 1.0),
            cell_clip=a.get("cell_clip", 3.0),
            name=name,
        ),  # fmt: skip
        "GRUBlockCell": lambda i, a, name: rnn_ops.gru_block_cell(*i, name=name),
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


def _variables(tf):
    """Variables and their updates: TF's ``Apply*`` kernels as daskflow's optimizers
    write them (the new values assigned; the op's output is the variable's new value)."""

    def variable(i, a, name):
        return imported_variable(_dims(a.get("shape")), a["dtype"], name)._ref

    def gradient_descent(i, a, name):
        var, alpha, delta = i
        return assign_sub(var, alpha * delta, name=name)

    def momentum(i, a, name):
        var, accum, lr, grad, mu = i
        new_accum = assign(accum, accum * mu + grad)
        step = lr * (grad + mu * new_accum) if a.get("use_nesterov") else lr * new_accum
        return assign_sub(var, step, name=name)

    def adam(i, a, name):
        var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad = i
        if a.get("use_nesterov"):
            raise ValueError(
                f"import_graph_def: node {name!r} is a Nesterov Adam update, which daskflow lacks"
            )
        lr_t = lr * tf.sqrt(1 - beta2_power) / (1 - beta1_power)
        new_var, new_m, new_v = training_ops.adam_update(var, m, v, grad, beta1, beta2, lr_t, epsilon)
        with control_dependencies([assign(m, new_m), assign(v, new_v)]):
            return assign(var, new_var, name=name)

    rules = {
        "VariableV2": variable,
        "Assign": lambda i, a, name: assign(i[0], i[1], name=name),
        "AssignAdd": lambda i, a, name: assign_add(i[0], i[1], name=name),
        "AssignSub": lambda i, a, name: assign_sub(i[0], i[1], name=name),
        "ApplyGradientDescent": gradient_descent,
        "ApplyMomentum": momentum,
        "ApplyAdam": adam,
        "IsVariableInitialized": lambda i, a, name: tf.identity(tf.is_variable_initialized(i[0]), name=name),
    }
    # TF2's resource variables (compat.v1 without disable_v2_behavior): the handle is the
    # variable, a read its value; the updates are the reference variables' own.
    rules.update(
        {
            "VarHandleOp": variable,
            "ReadVariableOp": lambda i, a, name: tf.identity(i[0], name=name),
            "AssignVariableOp": rules["Assign"],
            "AssignAddVariableOp": rules["AssignAdd"],
            "AssignSubVariableOp": rules["AssignSub"],
            "VarIsInitializedOp": rules["IsVariableInitialized"],
            "ResourceApplyGradientDescent": gradient_descent,
            "ResourceApplyMomentum": momentum,
            "ResourceApplyAdam": adam,
            "ResourceGather": lambda i, a, name: tf.gather(i[0], i[1], name=name),
        }
    )
    return rules


def _dims(shape):
    return None if shape is None else tuple(shape)


def _gradients(tf):
    """The ops TF1's gradients write."""

    def window(*names):
        """TF's NHWC 4-vectors as daskflow's 2-D windows (NHWC only)."""

        def attrs(a, name):
            if a.get("data_format", "NHWC") != "NHWC" or any(
                d != 1 for d in a.get("dilations", [1, 1, 1, 1])
            ):
                raise ValueError(
                    f"import_graph_def: node {name!r} is not NHWC or is dilated; daskflow imports NHWC"
                )
            return {n: tuple(a[n][1:3]) for n in names} | {"padding": a["padding"]}

        return attrs

    conv, pool = window("strides"), window("ksize", "strides")

    def primitive(prim, attrs=lambda a, name: {}):
        return lambda i, a, name: apply(prim, *i, name=name, **attrs(a, name))

    def xent(i, a, name):
        return list(apply(nn_ops.SoftmaxCrossEntropy, i[1], i[0], name=name))

    def sparse_xent(i, a, name):
        logits, labels = i
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name=name)
        depth = logits.shape[-1].value if logits.shape.ndims else None
        if depth is None:
            raise ValueError(f"import_graph_def: node {name!r} has logits of unknown class count")
        return [loss, tf.nn.softmax(logits) - tf.one_hot(labels, depth, dtype=logits.dtype)]

    def one_hot(i, a, name):
        if a.get("axis", -1) != -1:
            raise ValueError(
                f"import_graph_def: node {name!r} is a one-hot along axis {a['axis']}; daskflow's is -1"
            )
        return apply(
            array_ops.OneHot, i[0], i[2], i[3], depth=_value(i[1], name, "depth"), dtype=i[2].dtype, name=name
        )

    def strided_slice_grad(i, a, name):
        shape, begin, end, strides, dy = i
        spec = array_ops.slice_spec(begin, end, strides, **_masks(a))
        return apply(array_ops.StridedSliceGrad, dy, shape, spec=spec, name=name)

    def bias_add_grad(i, a, name):
        rank = i[0].shape.ndims
        keep = 1 if a.get("data_format", "NHWC") == "NCHW" else rank - 1
        return tf.reduce_sum(i[0], [d for d in range(rank) if d != keep], name=name)

    return {
        "BroadcastGradientArgs": primitive(gradient_helper_ops.BroadcastGradientArgs),
        "ConcatOffset": primitive(gradient_helper_ops.ConcatOffset),
        "BroadcastTo": lambda i, a, name: tf.broadcast_to(i[0], i[1], name=name),
        "ReluGrad": primitive(math_ops.ReluGrad),
        "SigmoidGrad": lambda i, a, name: i[1] * i[0] * (1 - i[0]),
        "TanhGrad": lambda i, a, name: i[1] * (1 - i[0] * i[0]),
        "SqrtGrad": lambda i, a, name: i[1] * 0.5 / i[0],
        "RsqrtGrad": lambda i, a, name: i[1] * -0.5 * i[0] * i[0] * i[0],
        "BiasAddGrad": bias_add_grad,
        "StridedSliceGrad": strided_slice_grad,
        "InvertPermutation": lambda i, a, name: tf.invert_permutation(i[0], name=name),
        **_array_forms(tf),
        "SoftmaxCrossEntropyWithLogits": xent,
        "SparseSoftmaxCrossEntropyWithLogits": sparse_xent,
        "Conv2DBackpropInput": primitive(conv_ops.Conv2DBackpropInput, conv),
        "Conv2DBackpropFilter": primitive(conv_ops.Conv2DBackpropFilter, conv),
        "MaxPoolGrad": primitive(conv_ops.MaxPoolGrad, pool),
        "MaxPoolGradGrad": primitive(conv_ops.MaxPoolGradGrad, pool),
        "AvgPoolGrad": primitive(conv_ops.AvgPoolGrad, pool),
        "ShapeN": lambda i, a, name: [
            tf.shape(t, out_type=a.get("out_type", dtypes.int32), name=name if k == 0 else f"{name}_{k}")
            for k, t in enumerate(i)
        ],
        "IdentityN": lambda i, a, name: list(tf.identity_n(i, name=name)),
        "Split": lambda i, a, name: tf.split(
            i[1], a["num_split"], axis=_value(i[0], name, "split_dim"), name=name
        ),
        "SplitV": lambda i, a, name: tf.split(
            i[0], _value(i[1], name, "size_splits"), axis=_value(i[2], name, "split_dim"), name=name
        ),
        "OneHot": one_hot,
        "DynamicStitch": lambda i, a, name: tf.dynamic_stitch(i[: len(i) // 2], i[len(i) // 2 :], name=name),
        "DivNoNan": lambda i, a, name: tf.div_no_nan(i[0], i[1], name=name),
        "L2Loss": lambda i, a, name: tf.nn.l2_loss(i[0], name=name),
        "Log1p": lambda i, a, name: tf.log1p(i[0], name=name),
        "Reciprocal": lambda i, a, name: tf.reciprocal(i[0], name=name),
        **{
            op_type: _random(op_type)
            for op_type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal")
        },
        **_stateless_random(),
    }


def _stateless_random():
    """TF2's stateless random ops (its initializers in compat.v1 graphs): daskflow's random
    ops seeded by the seed TF's key came from. Their draws are daskflow's, not TF's: an
    initializer's values differ, as daskflow's random numbers do."""

    def draw(prim):
        def build(i, a, name):
            seed = constant_value(i[1])
            seed = (
                tuple(int(s) for s in seed.reshape(-1)[:2]) if seed is not None else random_ops.get_seed(None)
            )
            return apply(prim, i[0], dtype=a.get("dtype", dtypes.float32), seed=seed, name=name)

        return build

    return {
        # The key and counter stand for the seed: the drawing op reads the seed from them.
        "StatelessRandomGetKeyCounter": lambda i, a, name: [i[0], i[0]],
        "StatelessRandomUniformV2": draw(random_ops.RandomUniform),
        "StatelessRandomNormalV2": draw(random_ops.RandomStandardNormal),
        "StatelessTruncatedNormalV2": draw(random_ops.TruncatedNormal),
    }


def _array_forms(tf):
    """Ops whose attributes daskflow names otherwise, or reads as TF's constant inputs."""

    def axis_of(fn):
        return lambda i, a, name: fn(i[0], _value(i[1], name, "axis"), **_flags(a), name=name)

    def space(fn, extra):
        return lambda i, a, name: fn(*i[:1], *(_value(t, name, extra) for t in i[1:]), name=name)

    return {
        "Cumsum": axis_of(tf.cumsum),
        "Cumprod": axis_of(tf.cumprod),
        "ReverseV2": lambda i, a, name: tf.reverse(i[0], _value(i[1], name, "axis"), name=name),
        "MatrixBandPart": lambda i, a, name: tf.matrix_band_part(
            i[0], _value(i[1], name, "num_lower"), _value(i[2], name, "num_upper"), name=name
        ),
        "Unique": lambda i, a, name: list(tf.unique(i[0], out_idx=a.get("out_idx", dtypes.int32), name=name)),
        "UniqueWithCounts": lambda i, a, name: list(
            tf.unique_with_counts(i[0], out_idx=a.get("out_idx", dtypes.int32), name=name)
        ),
        "ReverseSequence": lambda i, a, name: tf.reverse_sequence(
            i[0], i[1], seq_axis=a["seq_dim"], batch_axis=a.get("batch_dim", 0), name=name
        ),
        "SpaceToDepth": lambda i, a, name: tf.space_to_depth(
            i[0], a["block_size"], data_format=a.get("data_format", "NHWC"), name=name
        ),
        "DepthToSpace": lambda i, a, name: tf.depth_to_space(
            i[0], a["block_size"], data_format=a.get("data_format", "NHWC"), name=name
        ),
        "SpaceToBatchND": space(tf.space_to_batch_nd, "block shape and paddings"),
        "BatchToSpaceND": space(tf.batch_to_space_nd, "block shape and crops"),
        "SparseConcat": sparse_concat,
    }


def sparse_concat(i, a, name):
    """TF's SparseConcat: the parts' indices, values and shapes, concatenated along ``concat_dim``."""
    return list(apply(SparseConcat, *i, axis=a["concat_dim"], n=a["N"], name=name))


def _flags(attrs):
    return {"exclusive": attrs.get("exclusive", False), "reverse": attrs.get("reverse", False)}


def _random(op_type):
    """TF's ``seed`` and ``seed2`` as daskflow's ``(graph seed, op seed)``; where both are 0
    (TF's none), the importing graph's seeds, as a new op gets."""

    def build(i, a, name):
        seeds = (a.get("seed", 0), a.get("seed2", 0))
        seed = seeds if any(seeds) else random_ops.get_seed(None)
        return apply(getattr(random_ops, op_type), i[0], dtype=a["dtype"], seed=seed, name=name)

    return build
