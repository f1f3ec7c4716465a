"""daskflow: TensorFlow 1.x's programming model — build a graph, then
``Session.run`` it — with Dask as the execution engine.

``import daskflow as tf`` gives the TF1 names. Building graphs imports no
dask; the Session (and with it dask) is loaded on first use.
"""

__version__ = "0.1.0"  # first: modules the imports below load read it (meta graphs record it)

from . import (
    compat,
    contrib,
    data,
    datasets,
    debugging,
    dtypes,
    errors,
    estimator,
    graph_util,
    image,
    initializers,
    layers,
    linalg,
    losses,
    metrics,
    nn,
    platform,
    python_io,
    queue,
    random,
    sparse,
    strings,
    summary,
    train,
)
from .compat_v1 import (
    RunMetadata,
    disable_control_flow_v2,
    disable_eager_execution,
    disable_resource_variables,
    disable_v2_behavior,
    disable_v2_tensorshape,
    enable_eager_execution,
    enable_resource_variables,
    executing_eagerly,
)
from .dtypes import (
    DType,
    as_dtype,
    bool,  # noqa: A004 - TF1's public name
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .framework import protos as _protos
from .framework.constant import constant, convert_to_tensor
from .framework.device_spec import DeviceSpec
from .framework.gradient_registry import NoGradient, RegisterGradient
from .framework.graph import (
    Graph,
    NodeDef,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    device,
    get_default_graph,
    get_default_session,
    name_scope,
    reset_default_graph,
)
from .framework.importer import import_graph_def
from .framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from .framework.sparse_tensor import SparseTensor, SparseTensorValue, convert_to_tensor_or_sparse_tensor
from .framework.tensor_shape import Dimension, TensorShape, dimension_value
from .framework.tensor_util import make_ndarray, make_tensor_proto
from .framework.versions import (
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
)
from .gradients import AggregationMethod, UnconnectedGradients, gradients
from .ops import operators as _operators
from .ops.array_extra_ops import (
    batch_gather,
    ensure_shape,
    identity_n,
    invert_permutation,
    repeat,
    roll,
    searchsorted,
    unravel_index,
    where_v2,
)
from .ops.array_ops import (
    boolean_mask,
    broadcast_to,
    concat,
    expand_dims,
    eye,
    fill,
    gather,
    identity,
    matrix_transpose,
    one_hot,
    ones,
    ones_like,
    pad,
    placeholder,
    placeholder_with_default,
    rank,
    reshape,
    reverse,
    reverse_v2,
    sequence_mask,
    shape,
    shape_n,
    size,
    slice,  # noqa: A004 - TF1's public name
    split,
    squeeze,
    stack,
    stop_gradient,
    strided_slice,
    tile,
    transpose,
    unstack,
    zeros,
    zeros_like,
)
from .ops.array_ops import range_ as range  # noqa: A004 - TF1's public name
from .ops.check_ops import (
    Assert,
    Print,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_negative,
    assert_non_negative,
    assert_positive,
    assert_rank,
    assert_rank_at_least,
    assert_scalar,
    assert_type,
    is_finite,
    is_inf,
    is_nan,
    logical_xor,
)
from .ops.check_ops import print_ as print  # noqa: A004 - TF's tf.print
from .ops.clip_ops import clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm
from .ops.control_flow_ops import group, no_op, tuple  # noqa: A004
from .ops.counting_ops import bincount, confusion_matrix, histogram_fixed_width, histogram_fixed_width_bins
from .ops.custom_gradient import custom_gradient
from .ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue
from .ops.example_parsing_ops import (
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
)
from .ops.file_ops import read_file, write_file
from .ops.functional_ops import case, cond, while_loop
from .ops.higher_order_ops import foldl, foldr, map_fn, scan
from .ops.image_ops import random_crop
from .ops.init_ops import (
    Constant as constant_initializer,
)
from .ops.init_ops import (
    GlorotNormal as glorot_normal_initializer,
)
from .ops.init_ops import (
    GlorotUniform as glorot_uniform_initializer,
)
from .ops.init_ops import (
    Ones as ones_initializer,
)
from .ops.init_ops import (
    Orthogonal as orthogonal_initializer,
)
from .ops.init_ops import (
    RandomNormal as random_normal_initializer,
)
from .ops.init_ops import (
    RandomUniform as random_uniform_initializer,
)
from .ops.init_ops import (
    TruncatedNormal as truncated_normal_initializer,
)
from .ops.init_ops import (
    UniformUnitScaling as uniform_unit_scaling_initializer,
)
from .ops.init_ops import (
    VarianceScaling as variance_scaling_initializer,
)
from .ops.init_ops import (
    Zeros as zeros_initializer,
)
from .ops.io_ops import (
    FixedLengthRecordReader,
    IdentityReader,
    ReaderBase,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
)
from .ops.linalg_ops import (
    diag,
    diag_part,
    einsum,
    lin_space,
    linspace,
    matrix_band_part,
    matrix_determinant,
    matrix_diag,
    matrix_diag_part,
    matrix_inverse,
    meshgrid,
    norm,
    tensordot,
)
from .ops.linalg_qr_ops import matrix_set_diag, qr, trace
from .ops.linalg_solve_ops import (
    cholesky,
    cholesky_solve,
    cross,
    matrix_solve,
    matrix_triangular_solve,
    self_adjoint_eig,
    self_adjoint_eigvals,
)
from .ops.linalg_svd_ops import svd
from .ops.math_ops import (
    abs,  # noqa: A004
    add,
    add_n,
    arg_max,
    arg_min,
    argmax,
    argmin,
    cast,
    ceil,
    clip_by_value,
    cos,
    count_nonzero,
    cumprod,
    cumsum,
    div,
    divide,
    equal,
    exp,
    floor,
    floor_div,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,  # noqa: A004
    realdiv,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,  # noqa: A004
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    to_double,
    to_float,
    to_int32,
    to_int64,
    truediv,
    truncatediv,
    truncatemod,
    where,
)
from .ops.nn_impl import log_sigmoid
from .ops.numerics_ops import add_check_numerics_ops, check_numerics
from .ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature
from .ops.parsing_ops import decode_csv, decode_raw
from .ops.partition_ops import dynamic_partition, dynamic_stitch
from .ops.patches_ops import extract_image_patches
from .ops.random_ops import (
    multinomial,
    random_normal,
    random_shuffle,
    random_uniform,
    set_random_seed,
    truncated_normal,
)
from .ops.scatter_extra_ops import (
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    tensor_scatter_add,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    tensor_scatter_sub,
    tensor_scatter_update,
)
from .ops.script_ops import numpy_function, py_func
from .ops.segment_extra_ops import (
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
)
from .ops.segment_ops import (
    gather_nd,
    scatter_add,
    scatter_nd,
    scatter_update,
    segment_mean,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_sum,
)
from .ops.segment_reduce_ops import segment_max, segment_min, segment_prod
from .ops.sequence_ops import reverse_sequence
from .ops.sort_ops import argsort, sort
from .ops.space_ops import (
    batch_to_space,
    batch_to_space_nd,
    depth_to_space,
    space_to_batch,
    space_to_batch_nd,
    space_to_depth,
)
from .ops.sparse_ops import (
    sparse_add,
    sparse_concat,
    sparse_fill_empty_rows,
    sparse_placeholder,
    sparse_reduce_sum,
    sparse_reorder,
    sparse_reshape,
    sparse_retain,
    sparse_softmax,
    sparse_tensor_dense_matmul,
    sparse_tensor_to_dense,
    sparse_to_dense,
    sparse_transpose,
)
from .ops.sparse_text_ops import edit_distance, string_split
from .ops.special_math_ops import (
    accumulate_n,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    betainc,
    cosh,
    digamma,
    div_no_nan,
    erf,
    erfc,
    expm1,
    igamma,
    igammac,
    lbeta,
    lgamma,
    polygamma,
    rint,
    saturate_cast,
    scalar_mul,
    sinh,
    zeta,
)
from .ops.string_ops import as_string, string_join, string_to_number
from .ops.tensor_array_ops import TensorArray
from .ops.unique_ops import setdiff1d, unique, unique_with_counts
from .platform import app, flags, gfile, test
from .platform import tf_logging as logging
from .train.moving_averages import moving_average_variables
from .variable_scope import (
    AUTO_REUSE,
    VariableScope,
    fixed_size_partitioner,
    get_local_variable,
    get_variable,
    get_variable_scope,
    no_regularizer,
    variable_scope,
)
from .variables import (
    GraphKeys,
    Variable,
    VariableAggregation,
    VariableSynchronization,
    all_variables,
    assign,
    assign_add,
    assign_sub,
    global_variables,
    global_variables_initializer,
    initialize_all_variables,
    is_variable_initialized,
    local_variables,
    local_variables_initializer,
    report_uninitialized_variables,
    trainable_variables,
    variables_initializer,
)

_operators.install(Tensor, Variable)
from . import _namespaces  # noqa: E402

_namespaces.install()


def get_collection(key, scope=None):
    """Items of a collection of the default graph."""
    return get_default_graph().get_collection(key, scope)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


_LAZY = {"Session", "InteractiveSession"}
_CONFIG = {"ConfigProto", "GPUOptions", "RunOptions", "GraphOptions", "OptimizerOptions", "RewriterConfig"}


def __getattr__(name):
    if name in _LAZY:
        from .runtime import session  # local import: the runtime loads dask, only when a session is asked for

        return getattr(session, name)
    if name in _CONFIG:
        # local import: TF1's configuration messages, made from their schema on first use
        from .runtime import config_proto

        return getattr(config_proto, name)
    if name == "lower":
        from .runtime.lower import lower  # local import: the runtime loads with a session, not at import

        return lower
    if name == "local_cluster":
        from .local_dask_cluster import local_cluster  # local import: it loads dask.distributed

        return local_cluster
    if name == "GraphDef":  # TF's proto (tensorboardX's, extended): loaded on first use
        return _protos.GraphDef
    return _namespaces.module_getattr("tf")(name)
