"""Every op's kernel, forward and gradient, runs on a strict stand-in for cupy.

No GPU is needed: :mod:`tests.strict_device` plays cupy and fails wherever a
kernel calls numpy on a device array, mixes host and device arrays, or uses a
name cupy lacks. Under :func:`daskflow.kernels.devices.gpu_module` the
sessions of this process run partitions placed on ``/device:GPU:0`` with it.

The op tables of ``tests/test_ops.py`` (values against numpy) and
``tests/test_gradients.py`` (gradients against finite differences, first and
second order) run again with every graph they build placed on
``/device:GPU:0``. A wrapper around every primitive's kernel records where it
ran and fails a kernel that hands a numeric host array out of a device
partition. ``test_every_kernel_ran_on_the_device_or_is_host_only`` then fails
when a primitive with a kernel neither ran on the stand-in nor is marked
``host_only``, so a new op cannot slip by.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError
from daskflow.framework import graph as graph_module
from daskflow.framework.primitive import PRIMITIVES
from daskflow.framework.replica import PerReplica
from daskflow.kernels import devices
from daskflow.ops import segment_ops
from daskflow.ops.replica_ops import AggregateReplicas
from tests import test_gradients, test_ops
from tests.strict_device import cupy as strict

# DASKFLOW_TEST_GPU=cupy runs the same tests on a real GPU with cupy in the stand-in's place
# (benchmarks/gpu_check.py does); skipped where cupy sees no GPU.
if os.environ.get("DASKFLOW_TEST_GPU") == "cupy":
    standin = devices.current_gpu_module()
    if standin is None:
        pytest.skip("DASKFLOW_TEST_GPU=cupy, but cupy sees no GPU here", allow_module_level=True)
else:
    standin = strict

GPU = "/gpu:0"
WHERE: dict[str, set] = {}  # primitive name -> {"device", "host"}: where its kernel ran

# Primitives whose kernel the runtime never calls with a device namespace, and why.
NEVER_ON_DEVICE = {
    "Const": "folded on the host when the plan is built, uploaded once",
    "NoOp": "no outputs: the compiler keeps only its control edges",
}


def _ran_on_standin(xp):
    return getattr(xp, "ndarray", None) is standin.ndarray


def _host_arrays(out):
    """Numeric numpy values among a kernel's outputs (strings and markers may stay on the host)."""
    values = out if isinstance(out, tuple) else (out,)
    return [
        v for v in values if isinstance(v, np.generic) or (type(v) is np.ndarray and v.dtype.kind in "biufc")
    ]


def _recording(prim):
    kernel = prim.kernel

    @functools.wraps(kernel)
    def run(xp, *args, **kwargs):
        out = kernel(xp, *args, **kwargs)
        on_device = _ran_on_standin(xp)
        WHERE.setdefault(prim.name, set()).add("device" if on_device else "host")
        if on_device and _host_arrays(out):
            raise TypeError(f"{prim.name}'s kernel returned a host (numpy) array on the device")
        return out

    return run


def _graph_on_gpu(init):
    @functools.wraps(init)
    def placed(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if type(self) is graph_module.Graph:  # function graphs run inside their op's kernel
            self._devices.append(GPU)

    return placed


def _soft_placement(init):
    @functools.wraps(init)
    def soft(self, target="", graph=None, config=None, **kwargs):
        # host_only ops (py_func, Print...) in the tables go to the CPU, as TF1 places them
        config = config if config is not None else tf.ConfigProto(allow_soft_placement=True)
        init(self, target, graph, config, **kwargs)

    return soft


@pytest.fixture(autouse=True, scope="module")
def on_the_standin():
    """Every new graph placed on GPU:0, GPU partitions run on the stand-in, kernels recorded."""
    with pytest.MonkeyPatch.context() as mp:
        for prim in PRIMITIVES.values():
            if prim.kernel is not None:
                mp.setattr(prim, "kernel", _recording(prim))
        mp.setattr(graph_module.Graph, "__init__", _graph_on_gpu(graph_module.Graph.__init__))
        mp.setattr(tf.Session, "__init__", _soft_placement(tf.Session.__init__))
        with devices.gpu_module(standin):
            yield


def _ran_on_device(name):
    prim = PRIMITIVES[name]
    assert prim.host_only or "device" in WHERE.get(name, ()), f"{name}'s kernel did not run on the device"


# -- the op tables, on the device --------------------------------------------------------------


@pytest.mark.parametrize("case", test_ops.CASES, ids=[c.id for c in test_ops.CASES])
def test_forward_kernel_on_the_device(case):
    test_ops.test_op_matches_numpy_and_inference(case)


GRADIENT_CASES = test_gradients.CASES + test_gradients.SECOND_ORDER


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[c.id for c in GRADIENT_CASES])
def test_gradient_kernels_on_the_device(case):
    test_gradients.check_gradients(case)


@pytest.mark.parametrize("name,make,dtype", test_ops.RANDOM, ids=test_ops.RANDOM_IDS)
def test_random_op_on_the_device(name, make, dtype):
    test_ops.test_random_op_inference_and_distribution(name, make, dtype)
    test_ops.test_random_op_determinism(name, make, dtype)
    _ran_on_device(name)


def test_random_ops_draw_the_same_numbers_on_the_device_as_on_the_cpu():
    def draws():
        return [
            tf.random_normal([3, 4], seed=1),
            tf.truncated_normal([5], seed=2),
            tf.random_uniform([2, 2], seed=3),
            tf.random_uniform([4], 0, 9, dtype=tf.int32, seed=4),
            tf.random_shuffle(tf.constant(np.arange(6.0)), seed=5),
            tf.multinomial(tf.log([[0.2, 0.8], [0.5, 0.5]]), 7, seed=6),
            tf.image.random_crop(tf.constant(np.arange(30.0).reshape(5, 6)), [2, 3], seed=7),
        ]

    on_gpu, on_cpu = _both_devices(draws)
    for name in ("RandomShuffle", "Multinomial", "RandomCrop"):
        _ran_on_device(name)
    for g, c in zip(on_gpu, on_cpu):
        assert g.dtype == c.dtype
        np.testing.assert_array_equal(g, c)


def _both_devices(build, feeds=None):
    """``build()``'s values with its ops on GPU:0 and on the CPU, run in one session each."""
    out = []
    for device in (GPU, "/cpu:0"):
        with tf.Graph().as_default() as g, g.device(device):
            fetches = build()
            with tf.Session() as sess:
                out.append(sess.run(fetches, feeds(g) if feeds else None))
    return out


# -- the ops the tables leave to other test files ---------------------------------------------


def test_other_table_tests_on_the_device():
    test_ops.test_random_shuffle_and_multinomial()
    test_ops.test_dropout_keeps_and_scales()
    test_ops.test_no_op_and_group()
    for name in ("RandomShuffle", "Multinomial"):
        _ran_on_device(name)


def test_variable_updates_on_the_device():
    test_ops.test_variable_updates()
    for name in ("Assign", "AssignAdd", "AssignSub"):
        _ran_on_device(name)


def test_variable_ops_on_the_device():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2)), name="table")
        known = tf.is_variable_initialized(v)
        up = segment_ops.scatter_update(v, [2, 0], [[1.0, 2.0], [3.0, 4.0]])
        add = segment_ops.scatter_add(v, [1, 1], np.ones((2, 2)))
        d = tf.placeholder(tf.float64, [3, 2])  # a fed value: never donated
        updates = [v.assign(d), v.assign_add(d), v.assign_add(d), v.assign_sub(d)]
        with tf.Session() as sess:
            assert not sess.run(known)
            sess.run(tf.global_variables_initializer())
            assert sess.run(known)
            sess.run(up)
            np.testing.assert_array_equal(sess.run(add), [[3, 4], [2, 2], [1, 2]])
            np.testing.assert_array_equal(sess.run(v), [[3, 4], [2, 2], [1, 2]])
            got = [sess.run(u, {d: np.full((3, 2), 2.0)}) for u in updates]
    np.testing.assert_array_equal(got, [np.full((3, 2), v) for v in (2.0, 4.0, 6.0, 4.0)])
    for name in ("IsVariableInitialized", "ScatterUpdate", "ScatterAdd", "Assign", "AssignAdd", "AssignSub"):
        _ran_on_device(name)


def test_variable_scatters_on_the_device():
    for scatter in test_ops.VARIABLE_SCATTERS:
        test_ops.test_variable_scatters(*scatter)
    for name, *_ in test_ops.VARIABLE_SCATTERS:
        _ran_on_device(name)


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda x, i: segment_ops.gather_nd(x, i), r"gather_nd: indices\[1\] = \[2, 5\] does not index"),
        (lambda x, i: segment_ops.scatter_nd(i, x[:, 0], [2, 3]), r"scatter_nd: indices\[1\] = \[2, 5\]"),
        (
            lambda x, i: segment_ops.unsorted_segment_sum(x, i[:, 1], 4),
            r"segment_ids\[1\] = 5 is out of range",
        ),
    ],
    ids=["gather_nd", "scatter_nd", "unsorted_segment_sum"],
)
def test_bad_indices_fail_on_the_device_naming_them(build, message):
    with tf.Graph().as_default():
        x, i = tf.placeholder(tf.float64, [2, 3]), tf.placeholder(tf.int32, [2, 2])
        y = build(x, i)
        with tf.Session() as sess, pytest.raises(InvalidArgumentError, match=message):
            sess.run(y, {x: np.ones((2, 3)), i: np.array([[1, 0], [2, 5]], np.int32)})


def test_resize_nearest_neighbor_on_the_device_equals_the_cpu():
    image = np.arange(2 * 5 * 4 * 3, dtype=np.float32).reshape(2, 5, 4, 3)

    def build():
        x = tf.placeholder(tf.float32, image.shape, name="image")
        return [tf.image.resize_nearest_neighbor(x, [7, 3], align_corners=a) for a in (False, True)]

    on_gpu, on_cpu = _both_devices(build, lambda g: {g.get_tensor_by_name("image:0"): image})
    _ran_on_device("ResizeNearestNeighbor")
    for a, b in zip(on_gpu, on_cpu):
        np.testing.assert_array_equal(a, b)


def test_summary_ops_on_the_device_give_the_cpus_protos():
    def build():
        x = tf.placeholder(tf.float32, [2, 3, 4, 1], name="x")
        scalar = tf.summary.scalar("s", tf.reduce_mean(x))
        histogram = tf.summary.histogram("h", x)
        image = tf.summary.image("i", x, max_outputs=2)
        audio = tf.summary.audio("a", tf.reshape(x, [2, 12]), 8000)
        tensor = tf.summary.tensor_summary("t", x)
        return [tf.summary.merge([scalar, histogram, image, audio, tensor])]

    value = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4, 1)
    on_gpu, on_cpu = _both_devices(build, lambda g: {g.get_tensor_by_name("x:0"): value})
    assert on_gpu[0] == on_cpu[0]
    for name in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2", "TensorSummaryV2"):
        _ran_on_device(name)
    _ran_on_device("MergeSummary")


def test_aggregate_replicas_kernel_on_device_arrays():
    values = [standin.asarray(np.full((2, 2), v, np.float32)) for v in (1.0, 2.0, 6.0)]
    mean = AggregateReplicas.kernel(
        standin, PerReplica(values, [True] * 3), replicas_to_aggregate=3, total_num_replicas=3
    )
    assert isinstance(mean, standin.ndarray) and mean.dtype == np.float32
    np.testing.assert_array_equal(standin.asnumpy(mean), np.full((2, 2), 3.0))


def test_aggregate_replicas_donating_on_device_arrays():
    values = [standin.asarray(np.full((2, 2), v, np.float32)) for v in (1.0, 2.0, 6.0)]
    mean = AggregateReplicas.kernel(
        standin, PerReplica(values, [True] * 3), replicas_to_aggregate=3, total_num_replicas=3, donate=True
    )
    assert mean is values[0]  # summed into the first, as on the CPU
    np.testing.assert_array_equal(standin.asnumpy(mean), np.full((2, 2), 3.0))


def test_initialized_value_copies_a_device_value_or_gives_the_initial_one():
    kernel = PRIMITIVES["InitializedValue"].kernel
    value, initial = (standin.asarray(np.full(2, v, np.float32)) for v in (1.0, 0.0))
    copied = kernel(standin, value, initial)
    assert copied is not value and _ran_on_standin(standin)
    np.testing.assert_array_equal(standin.asnumpy(copied), [1.0, 1.0])
    assert kernel(standin, None, initial) is initial  # no value yet: the initial value


# -- coverage ------------------------------------------------------------------------------------


def test_every_kernel_ran_on_the_device_or_is_host_only(request):
    tests = {name for name, f in globals().items() if name.startswith("test_") and callable(f)}
    selected = {item.originalname for item in request.session.items if item.module is request.module}
    if not tests <= selected:
        pytest.skip("coverage is collected by the other tests of this file: run them all")
    with_kernel = {name for name, prim in PRIMITIVES.items() if prim.kernel is not None}
    exempt = {name for name in with_kernel if PRIMITIVES[name].host_only or PRIMITIVES[name].forwards_input}
    assert set(NEVER_ON_DEVICE) <= with_kernel - exempt, "stale NEVER_ON_DEVICE entries"
    missing = with_kernel - exempt - set(NEVER_ON_DEVICE) - {n for n, w in WHERE.items() if "device" in w}
    assert not missing, f"kernels that never ran on the device and are not host_only: {sorted(missing)}"
