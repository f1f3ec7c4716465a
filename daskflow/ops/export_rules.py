"""How daskflow ops whose form differs from TF's are written into a ``GraphDef``.

A rule edits the op's :class:`~daskflow.framework.graph_export.ExportedNode`: TF's op
type, inputs TF reads where daskflow keeps attributes (an axis, a permutation), TF's
names of the attributes. TF's signature then completes the node
(:mod:`daskflow.framework.graph_export`). Each rule writes the form TF1 itself writes
for the function that made the op, so the importer's rule for that form
(:mod:`daskflow.ops.import_rules`) reads it back.
"""

from __future__ import annotations

from .import_rules import REDUCTIONS, registrar

RULES: dict = {}
rule = registrar(RULES)  # ``@rule("Sum")``: the export rule of daskflow's op type ``Sum``


def _axis_input(suffix, attr):
    """A rule moving attribute ``attr`` to a constant input (TF's ``suffix``), last."""

    def export(node):
        node.inputs.append(node.constant(suffix, node.attrs.pop(attr)))

    return export


def _every_axis(node):
    """The first input's axes, 0 to its rank: a constant where the rank is known, else
    ``Range(0, Rank(x), 1)`` as TF1 builds it."""
    if node.rank is not None:
        return node.constant("reduction_indices", list(range(node.rank)))
    rank = node.helper("Rank", "Rank", node.inputs[:1], {}, "int32")
    start, delta = node.constant("range/start", 0), node.constant("range/delta", 1)
    return node.helper("range", "Range", [start, rank, delta], {}, "int32")


@rule("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
def _reduction(node):
    axis = node.attrs.pop("axis")
    node.attrs["keep_dims"] = node.attrs.pop("keepdims")
    node.inputs.append(_every_axis(node) if axis is None else node.constant("reduction_indices", axis))


@rule("ReduceOver")
def _reduce_over(node):
    method = node.attrs.pop("method")
    node.type = next(op_type for op_type, name in REDUCTIONS.items() if name == method)
    node.attrs["keep_dims"] = node.attrs.pop("keepdims")


RULES.update(
    {
        "ArgMax": _axis_input("dimension", "axis"),
        "ArgMin": _axis_input("dimension", "axis"),
        "ExpandDims": _axis_input("dim", "axis"),
        "GatherV2": _axis_input("axis", "axis"),
        "ConcatV2": _axis_input("axis", "axis"),
        "Tile": _axis_input("multiples", "multiples"),
        "Transpose": _axis_input("perm", "perm"),
    }
)


@rule("OneHot")
def _one_hot(node):
    node.inputs.insert(1, node.constant("depth", node.attrs.pop("depth")))


@rule("Squeeze")
def _squeeze(node):
    node.attrs["squeeze_dims"] = list(node.attrs.pop("axis") or ())


@rule("SplitV")
def _split(node):
    node.attrs["num_split"] = node.attrs.pop("num")
    node.inputs.append(node.constant("split_dim", node.attrs.pop("axis")))


@rule("Pad")
def _pad(node):
    node.inputs.append(node.constant("paddings", node.attrs.pop("paddings")))
    value = node.attrs.pop("constant_values")
    if value:  # TF1's pad writes PadV2 only for a nonzero value
        node.type = "PadV2"
        node.inputs.append(node.constant("constant_values", value, node.inputs[0][1]))


@rule("Select")
def _select(node):
    node.type = "SelectV2"  # daskflow's where broadcasts, as TF's SelectV2


@rule("Softmax", "LogSoftmax")
def _softmax(node):
    """TF's softmax is over the last axis: another axis is swapped there and back."""
    axis, rank = node.attrs.pop("axis", -1), node.rank
    if axis == -1 or rank is None or axis % rank == rank - 1:
        return
    perm = list(range(rank))
    perm[axis % rank], perm[-1] = rank - 1, axis % rank
    dtype = node.inputs[0][1]
    swapped = node.helper("swapped", "Transpose", [node.inputs[0], node.constant("perm", perm)], {}, dtype)
    inner = node.helper(node.type, node.type, [swapped], {}, dtype)
    node.type, node.inputs = "Transpose", [inner, node.constant("perm_back", perm)]


def _window(node, *names):
    """daskflow's 2-D windows (``(h, w)``) as TF's NHWC 4-vectors."""
    for name in names:
        node.attrs[name] = [1, *node.attrs[name], 1]
    node.attrs["data_format"] = "NHWC"


@rule("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
def _conv(node):
    _window(node, "strides")


@rule("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad")
def _pool(node):
    _window(node, "ksize", "strides")


def strided_slice_inputs(spec):
    """A static index (ints, slices, None, Ellipsis) as TF's ``StridedSlice`` begin, end,
    strides and masks."""
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for i, item in enumerate(spec):
        bit = 1 << i
        if item is Ellipsis or item is None:
            masks["ellipsis_mask" if item is Ellipsis else "new_axis_mask"] |= bit
            item = (0, 0, 1)
        elif isinstance(item, slice):
            masks["begin_mask"] |= bit if item.start is None else 0
            masks["end_mask"] |= bit if item.stop is None else 0
            item = (item.start or 0, item.stop or 0, 1 if item.step is None else item.step)
        else:
            masks["shrink_axis_mask"] |= bit
            item = (int(item), int(item) + 1 if item != -1 else 0, 1)
        for values, value in zip((begin, end, strides), item):
            values.append(value)
    return (begin, end, strides), masks


def _strided(node, position):
    """Insert TF's begin, end and strides at input ``position``; the masks as attributes."""
    bounds, masks = strided_slice_inputs(node.attrs.pop("spec"))
    names = ("begin", "end", "strides")
    node.inputs[position:position] = [node.constant(n, v) for n, v in zip(names, bounds)]
    node.attrs.update(masks)


@rule("StridedSlice")
def _strided_slice(node):
    _strided(node, 1)


@rule("StridedSliceGrad")
def _strided_slice_grad(node):
    """daskflow's ``(dy, shape)``; TF's ``(shape, begin, end, strides, dy)``."""
    dy, shape = node.inputs
    node.inputs = [shape, dy]
    _strided(node, 1)


@rule("SliceGrad")
def _slice_grad(node):
    """The gradient of a slice as TF1 writes it: ``dy`` padded back to the input's shape."""
    dy, shape, begin, size = node.inputs
    dy_shape = node.helper("dy_shape", "Shape", [dy], {"out_type": begin[1]}, begin[1])
    after = node.helper(
        "after", "Sub", [node.helper("rest", "Sub", [shape, dy_shape], {}, begin[1]), begin], {}, begin[1]
    )
    pairs = node.helper("pairs", "Pack", [begin, after], {"axis": 1}, begin[1])
    node.type, node.inputs = "Pad", [dy, pairs]


@rule("TileGrad")
def _tile_grad(node):
    """Sum the tiles: ``dy`` reshaped to ``(m0, d0, m1, d1, ...)``, summed over the ``m``."""
    dy, shape = node.inputs
    multiples = node.attrs.pop("multiples")
    split = node.helper(
        "split_shape",
        "Reshape",
        [
            node.helper(
                "pairs", "Pack", [node.constant("multiples", multiples), shape], {"axis": 1}, shape[1]
            ),
            node.constant("flat", [-1]),
        ],
        {},
        shape[1],
    )
    tiles = node.helper("tiles", "Reshape", [dy, split], {}, dy[1])
    node.type, node.inputs = (
        "Sum",
        [tiles, node.constant("reduction_indices", list(range(0, 2 * len(multiples), 2)))],
    )
    node.attrs["keep_dims"] = False


def _expanded(node, value, axes, rank):
    """``value`` with size-1 axes inserted at ``axes`` (positions in a result of ``rank``;
    negative ones when the rank is unknown), one ``ExpandDims`` each, as TF1's gradients do."""
    if rank is not None:
        axes = sorted(a % rank for a in axes)
    else:  # from the end: the one nearest the end first
        axes = sorted(axes, reverse=True)
    for i, axis in enumerate(axes):
        value = node.helper(
            f"ExpandDims_{i}", "ExpandDims", [value, node.constant(f"dim_{i}", axis)], {}, value[1]
        )
    return value


def _divided(node, value, count_of, dtype):
    """``value / count`` with ``count`` the int32 tensor ``count_of`` (at least 1), cast to ``dtype``."""
    one = node.constant("one", 1)
    count = node.helper("count", "Maximum", [count_of, one], {}, "int32")
    as_float = node.helper("count_float", "Cast", [count], {"DstT": dtype}, dtype)
    return node.helper("mean", "RealDiv", [value, as_float], {}, dtype)


def _size_ratio(node, big, small):
    """``size(big) // size(small)``: how many values each of ``small`` 's stands for."""
    sizes = [
        node.helper(f"size_{i}", "Size", [t], {"out_type": "int32"}, "int32")
        for i, t in enumerate((big, small))
    ]
    return node.helper("ratio", "FloorDiv", sizes, {}, "int32")


@rule("BroadcastTo")
def _broadcast_to(node):
    """``g`` with ones inserted at ``axes``, divided by the broadcast factor when ``mean``,
    broadcast to the shape."""
    g, shape = node.inputs
    axes, mean = node.attrs.pop("axes"), node.attrs.pop("mean")
    dims = node.op.outputs[0]._dims
    g = _expanded(node, g, axes, None if dims is None else len(dims)) if axes else g
    if mean:
        total = node.helper(
            "total", "Prod", [shape, node.constant("all", [0])], {"keep_dims": False}, shape[1]
        )
        size = node.helper("g_size", "Size", [g], {"out_type": shape[1]}, shape[1])
        g = _divided(node, g, node.helper("ratio", "FloorDiv", [total, size], {}, shape[1]), g[1])
    node.inputs = [g, shape]


@rule("ReduceTo")
def _reduce_to(node):
    """Sum ``y`` over ``axes``, then over the axes broadcast up from the target shape
    (TF1's ``BroadcastGradientArgs``), reshaped to the target; divided when ``mean``."""
    y, shape = node.inputs
    axes, mean = node.attrs.pop("axes"), node.attrs.pop("mean")
    dtype = y[1]
    summed = y
    if axes:
        summed = node.helper(
            "Sum_axes", "Sum", [y, node.constant("axes", list(axes))], {"keep_dims": False}, dtype
        )
    y_shape = node.helper("y_shape", "Shape", [summed], {"out_type": shape[1]}, shape[1])
    args, _ = node.helper("BroadcastGradientArgs", "BroadcastGradientArgs", [y_shape, shape], {}, shape[1])
    broadcast_axes = (f"{args}:1", shape[1])  # output 1: the axes ``shape`` was broadcast along
    summed = node.helper("Sum", "Sum", [summed, broadcast_axes], {"keep_dims": False}, dtype)
    if mean:
        summed = _divided(node, summed, _size_ratio(node, y, summed), dtype)
    node.type, node.inputs = "Reshape", [summed, shape]


@rule("AdamUpdate")
def _adam(node):
    """The update as TF's arithmetic, its three new values (var, m, v) as one ``IdentityN``."""
    var, m, v, g, beta1, beta2, lr, epsilon = node.inputs
    dtype = var[1]

    def op(name, op_type, *inputs):
        return node.helper(name, op_type, list(inputs), {}, dtype)

    one = node.constant("one", 1, dtype)
    new_m = op(
        "m",
        "AddV2",
        op("m_decayed", "Mul", beta1, m),
        op("m_step", "Mul", op("one_minus_beta1", "Sub", one, beta1), g),
    )
    squared = op("g_squared", "Square", g)
    new_v = op(
        "v",
        "AddV2",
        op("v_decayed", "Mul", beta2, v),
        op("v_step", "Mul", op("one_minus_beta2", "Sub", one, beta2), squared),
    )
    denominator = op("denominator", "AddV2", op("sqrt_v", "Sqrt", new_v), epsilon)
    step = op("step", "Mul", lr, op("ratio", "RealDiv", new_m, denominator))
    new_var = op("var", "Sub", var, step)
    node.type, node.inputs = "IdentityN", [new_var, new_m, new_v]


@rule("SoftmaxCrossEntropyWithLogits")
def _xent(node):
    node.inputs.reverse()  # daskflow's (labels, logits); TF's (features, labels)


@rule(
    "RandomUniform",
    "RandomStandardNormal",
    "TruncatedNormal",
    "RandomUniformInt",
    "RandomShuffle",
    "Multinomial",
)
def _random(node):
    """daskflow's ``(graph seed, op seed)`` as TF's ``seed`` and ``seed2`` (0: none)."""
    seed = node.attrs.pop("seed", None)
    node.attrs["seed"], node.attrs["seed2"] = seed if seed is not None else (0, 0)


RULES.update(
    {
        "Cumsum": _axis_input("axis", "axis"),
        "Cumprod": _axis_input("axis", "axis"),
        "ReverseV2": _axis_input("axis", "axis"),
    }
)


@rule("MatrixBandPart")
def _band(node):
    for name in ("num_lower", "num_upper"):
        node.inputs.append(node.constant(name, node.attrs.pop(name), "int64"))


@rule("SparseConcat")
def _sparse_concat(node):
    node.attrs["concat_dim"], node.attrs["N"] = node.attrs.pop("axis"), node.attrs.pop("n")


@rule("ReverseSequence")
def _reverse_sequence(node):
    node.attrs["seq_dim"], node.attrs["batch_dim"] = node.attrs.pop("seq_axis"), node.attrs.pop("batch_axis")


@rule("SpaceToDepth")
def _space_to_depth(node):
    if not node.attrs.pop("to_depth"):
        node.type = "DepthToSpace"  # daskflow's one primitive does both directions


@rule("SpaceToBatchND")
def _space_to_batch(node):
    if not node.attrs.pop("to_batch"):
        node.type = "BatchToSpaceND"


@rule("PyFunc", "PyFuncStateless")
def _py_func(node):
    """A Python function stays in its process: TF's ``token`` names it by the op, as TF's
    own graphs name theirs; running it elsewhere fails, as in TF."""
    node.attrs["token"] = f"daskflow_{node.op.name}"
