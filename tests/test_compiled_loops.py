"""The compiled loops (numba) give the numpy paths' results bit for bit, ties and
NaN included, and the kernels really take them."""

import numpy as np
import pytest

from daskflow.kernels import conv, loops
from daskflow.kernels.compiled import plain, use_compiled
from daskflow.ops.math_ops import _add_kernel, _relu_grad_kernel
from daskflow.ops.training_ops import _adam_kernel

RNG = np.random.default_rng(7)


def both_paths(fn, *args):
    """``fn(*args)`` with the compiled loops, then with numpy only."""
    with use_compiled(True):
        fast = fn(*args)
    with use_compiled(False):
        slow = fn(*args)
    return fast, slow


def assert_same_bits(fast, slow):
    fast, slow = np.asarray(fast), np.asarray(slow)
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    np.testing.assert_array_equal(fast.view(np.uint8), slow.view(np.uint8))


def assert_same_values(fast, slow):
    """Equal values, NaN where NaN; a zero's sign may differ (the loop writes +0 where
    numpy's mask product gives -0 for a negative gradient, as TF's kernel writes +0)."""
    assert fast.dtype == slow.dtype
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize(
    "loop",
    [
        loops.adam,
        loops.adam_in_place,
        loops.relu_grad,
        loops.max_pool_grad_tiles,
        loops.max_pool_tiles,
        loops.add_bias,
        loops.winograd_input,
    ],
)
def test_numba_compiles_the_loops_here(loop):
    # numba is a dependency: a missing or broken one would silently drop to numpy.
    assert loop.get() is not None
    with use_compiled(False):
        assert loop.get() is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_loop_matches_numpy_bit_for_bit(dtype):
    var, m, g = (RNG.standard_normal((300, 257)).astype(dtype) for _ in range(3))
    v = np.abs(RNG.standard_normal((300, 257))).astype(dtype)
    v[0, :5] = 0.0  # sqrt(0) + eps: the smallest denominator
    fast, slow = both_paths(_adam_kernel, np, var, m, v, g, 0.9, 0.999, 1e-3, 1e-8)
    for a, b in zip(fast, slow):
        assert_same_bits(a, b)


def test_adam_takes_numpy_for_float16_and_strided_arrays():
    half = [np.ones((4, 4), np.float16)] * 4
    assert not plain(*half)
    strided = np.ones((4, 8), np.float32)[:, ::2]
    assert not plain(strided, strided)
    out = _adam_kernel(np, *half, 0.9, 0.999, 0.1, 1e-7)
    assert out[0].dtype == np.float16


def test_relu_grad_loop_matches_numpy_including_nan_and_zero():
    g = RNG.standard_normal((300, 300)).astype(np.float32)  # large enough for the loop
    x = RNG.standard_normal((300, 300)).astype(np.float32)
    x[0, :3] = 0.0  # ReLU's gradient at 0 is 0
    g[1, 0], x[1, 0] = np.nan, -1.0  # NaN times a 0 mask stays NaN, as in numpy (and TF)
    assert_same_bits(*both_paths(_relu_grad_kernel, np, g, x))


def test_bias_add_loop_matches_numpy():
    x = RNG.standard_normal((40, 28, 28, 32)).astype(np.float32)
    b = RNG.standard_normal(32).astype(np.float32)
    fast, slow = both_paths(_add_kernel, np, x, b)
    assert_same_bits(fast, slow)
    assert_same_bits(_add_kernel(np, x[:2], b), x[:2] + b)  # small: numpy's own add


def pool_input(shape, dtype):
    """A ReLU's output (zeros tie in many windows), with repeated maxima and a NaN."""
    x = np.maximum(RNG.standard_normal(shape), 0).astype(dtype)
    x[0, 0, 0, 0] = x[0, 0, 1, 0] = x[0, 1, 0, 0] = 5.0  # three tied maxima in one window
    x[1, 2, 2, 1] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "ksize"), [((3, 8, 8, 5), (2, 2)), ((2, 9, 7, 3), (3, 2))])
def test_max_pool_loops_match_numpy_with_ties_and_nan(dtype, shape, ksize):
    padding = "VALID"  # disjoint windows: the shapes leave VALID leftovers to crop
    x = pool_input(shape, dtype)
    fast_y, slow_y = both_paths(conv.max_pool, np, x, ksize, ksize, padding)
    assert_same_bits(fast_y, slow_y)
    g = RNG.standard_normal(slow_y.shape).astype(dtype)
    fast, slow = both_paths(conv.max_pool_grad, np, x, slow_y, g, ksize, ksize, padding)
    assert_same_values(fast, slow)
    # The tied window's gradient went to its first maximum only.
    assert fast[0, 0, 0, 0] == g[0, 0, 0, 0] and fast[0, 0, 1, 0] == fast[0, 1, 0, 0] == 0


def test_max_pool_grad_loop_takes_a_strided_gradient():
    x = pool_input((4, 8, 8, 6), np.float32)
    y = conv.max_pool(np, x, (2, 2), (2, 2), "VALID")
    g = np.zeros((4, 6, 6, 6), np.float32)[:, 1:5, 1:5]  # a crop, as a padded gradient's
    g[...] = RNG.standard_normal(g.shape)
    assert_same_values(*both_paths(conv.max_pool_grad, np, x, y, g, (2, 2), (2, 2), "VALID"))


@pytest.mark.parametrize("crop", [False, True])
def test_fused_bias_relu_loop_matches_numpy(crop):
    from daskflow.ops.math_ops import _bias_add_relu_kernel

    big = RNG.standard_normal((20, 16, 16, 64)).astype(np.float32)
    x = big[:, :14, :14] if crop else big  # a cropped Winograd output is strided
    x[0, 0, 0, :3] = (-0.0, np.nan, 0.0)
    b = RNG.standard_normal(64).astype(np.float32)
    b[:3] = 0.0
    fast, slow = both_paths(_bias_add_relu_kernel, np, x, b)
    assert_same_bits(fast, slow)
    assert_same_bits(slow, np.maximum(x + b, 0))
