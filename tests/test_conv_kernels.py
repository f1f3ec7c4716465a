"""Tests for daskflow.kernels.conv against naive loops and finite differences."""

import itertools

import numpy as np
import pytest

from daskflow.kernels import conv, winograd
from daskflow.kernels.compiled import use_compiled

# --------------------------------------------------------------------------
# Naive references: plain loops over output pixels and kernel offsets, with
# TF's geometry re-derived independently of conv.output_size.
# --------------------------------------------------------------------------


def ref_geometry(size, k, s, padding):
    """Return (out, pad_before) using the textbook TF formulas."""
    if padding == "VALID":
        return (size - k) // s + 1, 0
    out = (size + s - 1) // s
    return out, max((out - 1) * s + k - size, 0) // 2


def ref_windows(in_hw, ksize, strides, padding):
    """Yield (a, b, [(i, j, h, w), ...]) for each output pixel's real taps."""
    (oh, pt), (ow, pl) = (
        ref_geometry(in_hw[0], ksize[0], strides[0], padding),
        ref_geometry(in_hw[1], ksize[1], strides[1], padding),
    )
    for a, b in itertools.product(range(oh), range(ow)):
        taps = []
        for i, j in itertools.product(range(ksize[0]), range(ksize[1])):
            h, w = a * strides[0] + i - pt, b * strides[1] + j - pl
            if 0 <= h < in_hw[0] and 0 <= w < in_hw[1]:
                taps.append((i, j, h, w))
        yield a, b, taps


def ref_out_hw(in_hw, ksize, strides, padding):
    return tuple(ref_geometry(n, k, s, padding)[0] for n, k, s in zip(in_hw, ksize, strides))


def ref_conv2d(x, w, strides, padding):
    oh, ow = ref_out_hw(x.shape[1:3], w.shape[:2], strides, padding)
    y = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for a, b, taps in ref_windows(x.shape[1:3], w.shape[:2], strides, padding):
        for i, j, h, v in taps:
            y[:, a, b] += x[:, h, v] @ w[i, j]
    return y


def ref_conv2d_backprop_input(input_shape, w, g, strides, padding):
    dx = np.zeros(input_shape)
    for a, b, taps in ref_windows(input_shape[1:3], w.shape[:2], strides, padding):
        for i, j, h, v in taps:
            dx[:, h, v] += g[:, a, b] @ w[i, j].T
    return dx


def ref_conv2d_backprop_filter(x, filter_shape, g, strides, padding):
    dw = np.zeros(filter_shape)
    for a, b, taps in ref_windows(x.shape[1:3], filter_shape[:2], strides, padding):
        for i, j, h, v in taps:
            dw[i, j] += x[:, h, v].T @ g[:, a, b]
    return dw


def ref_max_pool_and_grad(x, g, ksize, strides, padding):
    """Return (max_pool(x), max_pool_grad) using a first-strict-max scan."""
    n, _, _, ch = x.shape
    oh, ow = ref_out_hw(x.shape[1:3], ksize, strides, padding)
    y = np.zeros((n, oh, ow, ch))
    dx = np.zeros(x.shape)
    for a, b, taps in ref_windows(x.shape[1:3], ksize, strides, padding):
        for bn, c in itertools.product(range(n), range(ch)):
            best = None
            for _, _, h, w in taps:
                if best is None or x[bn, h, w, c] > x[bn, best[0], best[1], c]:
                    best = (h, w)
            y[bn, a, b, c] = x[bn, best[0], best[1], c]
            dx[bn, best[0], best[1], c] += g[bn, a, b, c]
    return y, dx


def ref_avg_pool(x, ksize, strides, padding):
    oh, ow = ref_out_hw(x.shape[1:3], ksize, strides, padding)
    y = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for a, b, taps in ref_windows(x.shape[1:3], ksize, strides, padding):
        y[:, a, b] = sum(x[:, h, w] for _, _, h, w in taps) / len(taps)
    return y


def ref_avg_pool_grad(input_shape, g, ksize, strides, padding):
    dx = np.zeros(input_shape)
    for a, b, taps in ref_windows(input_shape[1:3], ksize, strides, padding):
        for _, _, h, w in taps:
            dx[:, h, w] += g[:, a, b] / len(taps)
    return dx


# --------------------------------------------------------------------------
# Parameter grid
# --------------------------------------------------------------------------

SIZES = [(5, 6), (4, 7)]  # odd and even on both axes
STRIDES = [(1, 1), (2, 2), (2, 1)]
KERNELS = [(1, 1), (2, 2), (3, 3), (3, 2)]
PADDINGS = ["SAME", "VALID"]
IN_CHANNELS = [1, 3]
OUT_CH = 2

GRID = list(itertools.product(SIZES, STRIDES, KERNELS, PADDINGS, IN_CHANNELS))


def grid_id(p):
    (h, w), s, k, pad, c = p
    return f"{h}x{w}-s{s[0]}{s[1]}-k{k[0]}{k[1]}-{pad}-c{c}"


@pytest.fixture(params=GRID, ids=[grid_id(p) for p in GRID])
def case(request):
    (h, w), strides, ksize, padding, ch = request.param
    rng = np.random.default_rng(GRID.index(request.param))
    x = rng.standard_normal((2, h, w, ch))
    filt = rng.standard_normal((*ksize, ch, OUT_CH))
    oh, ow = ref_out_hw((h, w), ksize, strides, padding)
    gy = rng.standard_normal((2, oh, ow, OUT_CH))
    gp = rng.standard_normal((2, oh, ow, ch))
    return {
        "x": x,
        "w": filt,
        "gy": gy,
        "gp": gp,
        "ksize": ksize,
        "strides": strides,
        "padding": padding,
    }


def test_conv2d_matches_reference(case):
    c = case
    got = conv.conv2d(np, c["x"], c["w"], c["strides"], c["padding"])
    want = ref_conv2d(c["x"], c["w"], c["strides"], c["padding"])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_conv2d_backprops_match_reference(case):
    c = case
    args = (c["strides"], c["padding"])
    got = conv.conv2d_backprop_input(np, c["x"].shape, c["w"], c["gy"], *args)
    want = ref_conv2d_backprop_input(c["x"].shape, c["w"], c["gy"], *args)
    assert got.shape == c["x"].shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    got = conv.conv2d_backprop_filter(np, c["x"], c["w"].shape, c["gy"], *args)
    want = ref_conv2d_backprop_filter(c["x"], c["w"].shape, c["gy"], *args)
    assert got.shape == c["w"].shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_max_pool_and_grad_match_reference(case):
    c = case
    args = (c["ksize"], c["strides"], c["padding"])
    y = conv.max_pool(np, c["x"], *args)
    want_y, want_dx = ref_max_pool_and_grad(c["x"], c["gp"], *args)
    np.testing.assert_array_equal(y, want_y)
    dx = conv.max_pool_grad(np, c["x"], y, c["gp"], *args)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


def test_avg_pool_and_grad_match_reference(case):
    c = case
    args = (c["ksize"], c["strides"], c["padding"])
    y = conv.avg_pool(np, c["x"], *args)
    np.testing.assert_allclose(y, ref_avg_pool(c["x"], *args), rtol=1e-12, atol=1e-12)
    dx = conv.avg_pool_grad(np, c["x"].shape, c["gp"], *args)
    want = ref_avg_pool_grad(c["x"].shape, c["gp"], *args)
    np.testing.assert_allclose(dx, want, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------
# Finite differences (float64, small shapes)
# --------------------------------------------------------------------------

FD_CASES = [
    ((2, 2), (3, 3), "SAME"),  # symmetric padding, strided
    ((1, 1), (2, 2), "SAME"),  # asymmetric padding (all after)
    ((2, 2), (3, 2), "VALID"),  # strided with leftover rows/cols
    ((1, 2), (2, 3), "VALID"),
]


def numeric_grad(f, x, eps=1e-6):
    """Central finite-difference gradient of the scalar function f at x."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        up = f(x)
        x[idx] = orig - eps
        down = f(x)
        x[idx] = orig
        grad[idx] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("strides,ksize,padding", FD_CASES)
def test_backprops_match_finite_differences(strides, ksize, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 4, 2))
    w = rng.standard_normal((*ksize, 2, OUT_CH))
    oh, ow = ref_out_hw(x.shape[1:3], ksize, strides, padding)
    gy = rng.standard_normal((2, oh, ow, OUT_CH))
    gp = rng.standard_normal((2, oh, ow, 2))
    tol = {"rtol": 1e-6, "atol": 1e-7}

    def conv_loss_x(v):
        return np.sum(conv.conv2d(np, v, w, strides, padding) * gy)

    def conv_loss_w(v):
        return np.sum(conv.conv2d(np, x, v, strides, padding) * gy)

    def avg_loss(v):
        return np.sum(conv.avg_pool(np, v, ksize, strides, padding) * gp)

    def max_loss(v):
        return np.sum(conv.max_pool(np, v, ksize, strides, padding) * gp)

    got = conv.conv2d_backprop_input(np, x.shape, w, gy, strides, padding)
    np.testing.assert_allclose(got, numeric_grad(conv_loss_x, x.copy()), **tol)
    got = conv.conv2d_backprop_filter(np, x, w.shape, gy, strides, padding)
    np.testing.assert_allclose(got, numeric_grad(conv_loss_w, w.copy()), **tol)
    got = conv.avg_pool_grad(np, x.shape, gp, ksize, strides, padding)
    np.testing.assert_allclose(got, numeric_grad(avg_loss, x.copy()), **tol)
    # Random normals have no ties, so the max is differentiable here.
    y = conv.max_pool(np, x, ksize, strides, padding)
    got = conv.max_pool_grad(np, x, y, gp, ksize, strides, padding)
    np.testing.assert_allclose(got, numeric_grad(max_loss, x.copy()), **tol)


# --------------------------------------------------------------------------
# max_pool_grad ties
# --------------------------------------------------------------------------


def test_max_pool_grad_tie_goes_to_first_in_row_major_order():
    x = np.array([[1.0, 3.0], [3.0, 2.0]]).reshape(1, 2, 2, 1)
    g = np.array([7.0]).reshape(1, 1, 1, 1)
    y = conv.max_pool(np, x, (2, 2), (2, 2), "VALID")
    dx = conv.max_pool_grad(np, x, y, g, (2, 2), (2, 2), "VALID")
    np.testing.assert_array_equal(dx[0, :, :, 0], [[0.0, 7.0], [0.0, 0.0]])


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (1, 2)])
@pytest.mark.parametrize("ksize", [(2, 2), (3, 3), (2, 3)])
def test_max_pool_grad_ties_exact(ksize, strides, padding):
    # Small integers give many ties; integer-valued g keeps sums exact.
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, size=(2, 5, 6, 2)).astype(np.float64)
    x[1] = 0.0  # a fully constant image: every window is one big tie
    oh, ow = ref_out_hw(x.shape[1:3], ksize, strides, padding)
    g = rng.integers(-4, 5, size=(2, oh, ow, 2)).astype(np.float64)
    y = conv.max_pool(np, x, ksize, strides, padding)
    dx = conv.max_pool_grad(np, x, y, g, ksize, strides, padding)
    np.testing.assert_array_equal(dx, ref_max_pool_and_grad(x, g, ksize, strides, padding)[1])


def test_max_pool_grad_all_neg_inf_routes_to_real_element():
    # With SAME padding the padded border is -inf as well; the gradient must
    # still reach the first real element of each window, never the padding.
    x = np.full((1, 3, 3, 1), -np.inf)
    g = np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 2, 2, 1)
    y = conv.max_pool(np, x, (3, 3), (2, 2), "SAME")
    dx = conv.max_pool_grad(np, x, y, g, (3, 3), (2, 2), "SAME")
    np.testing.assert_array_equal(dx, ref_max_pool_and_grad(x, g, (3, 3), (2, 2), "SAME")[1])
    assert dx.sum() == g.sum()


# --------------------------------------------------------------------------
# Geometry, dtypes, errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,want",
    [
        ((5, 3, 2, "SAME"), (3, 1, 1)),
        ((6, 3, 2, "SAME"), (3, 0, 1)),
        ((4, 2, 1, "SAME"), (4, 0, 1)),
        ((5, 1, 2, "SAME"), (3, 0, 0)),
        ((7, 1, 3, "SAME"), (3, 0, 0)),
        ((5, 3, 2, "VALID"), (2, 0, 0)),
        ((6, 3, 2, "VALID"), (2, 0, 0)),
        ((3, 3, 1, "VALID"), (1, 0, 0)),
    ],
)
def test_output_size(args, want):
    assert conv.output_size(*args) == want


def test_valid_kernel_bigger_than_input_raises():
    with pytest.raises(ValueError, match="VALID"):
        conv.output_size(2, 3, 1, "VALID")
    x = np.zeros((1, 2, 4, 1))
    with pytest.raises(ValueError, match="VALID"):
        conv.conv2d(np, x, np.zeros((3, 3, 1, 1)), (1, 1), "VALID")
    with pytest.raises(ValueError, match="VALID"):
        conv.max_pool(np, x, (3, 1), (1, 1), "VALID")


@pytest.mark.parametrize("padding", ["same", "FULL", None])
def test_bad_padding_raises(padding):
    with pytest.raises(ValueError, match="padding"):
        conv.output_size(4, 2, 1, padding)


def test_channel_mismatch_raises():
    with pytest.raises(ValueError, match="channels"):
        conv.conv2d(np, np.zeros((1, 3, 3, 2)), np.zeros((2, 2, 3, 1)), (1, 1), "SAME")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", PADDINGS)
def test_dtype_preserved(dtype, padding):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 4, 3)).astype(dtype)
    w = rng.standard_normal((3, 2, 3, 2)).astype(dtype)
    s, k = (2, 1), (2, 3)
    y = conv.conv2d(np, x, w, s, padding)
    gy = np.ones_like(y)
    mp = conv.max_pool(np, x, k, s, padding)
    ap = conv.avg_pool(np, x, k, s, padding)
    outs = [
        y,
        conv.conv2d_backprop_input(np, x.shape, w, gy, s, padding),
        conv.conv2d_backprop_filter(np, x, w.shape, gy, s, padding),
        mp,
        conv.max_pool_grad(np, x, mp, np.ones_like(mp), k, s, padding),
        ap,
        conv.avg_pool_grad(np, x.shape, np.ones_like(ap), k, s, padding),
    ]
    assert [o.dtype for o in outs] == [dtype] * len(outs)
    if dtype == np.float32:
        np.testing.assert_allclose(y, ref_conv2d(x.astype(np.float64), w, s, padding), rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------
# numpy fast paths: row-layout im2col (>3 channels), channel-first im2col
# (<=3 channels), per-offset backprop-input products, disjoint pooling blocks
# --------------------------------------------------------------------------

FAST_CONV = list(
    itertools.product(
        [(7, 9), (8, 8)],  # odd and even sizes
        [(1, 1), (2, 2), (1, 2)],
        [(1, 1), (3, 3), (5, 5)],
        PADDINGS,
        [1, 5],  # channel-first and row layouts
    )
)


def _conv_outputs_and_references(x, w, gy, args):
    """(float32 kernel result, float64 loop reference) for conv2d and both its gradients."""
    x64, w64, g64 = (a.astype(np.float64) for a in (x, w, gy))
    return [
        (conv.conv2d(np, x, w, *args), ref_conv2d(x64, w64, *args)),
        (
            conv.conv2d_backprop_input(np, x.shape, w, gy, *args),
            ref_conv2d_backprop_input(x.shape, w64, g64, *args),
        ),
        (
            conv.conv2d_backprop_filter(np, x, w.shape, gy, *args),
            ref_conv2d_backprop_filter(x64, w.shape, g64, *args),
        ),
    ]


def _assert_conv_and_gradients_match_reference(xp, x, w, gy, strides, padding):
    """conv2d and both its gradients on ``xp`` equal the loop references (float64)."""
    tol = {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(
        conv.conv2d(xp, x, w, strides, padding), ref_conv2d(x, w, strides, padding), **tol
    )
    np.testing.assert_allclose(
        conv.conv2d_backprop_input(xp, x.shape, w, gy, strides, padding),
        ref_conv2d_backprop_input(x.shape, w, gy, strides, padding),
        **tol,
    )
    np.testing.assert_allclose(
        conv.conv2d_backprop_filter(xp, x, w.shape, gy, strides, padding),
        ref_conv2d_backprop_filter(x, w.shape, gy, strides, padding),
        **tol,
    )


@pytest.mark.parametrize("hw,strides,ksize,padding,ch", FAST_CONV, ids=[grid_id(p) for p in FAST_CONV])
def test_conv_fast_paths_match_reference(hw, strides, ksize, padding, ch):
    rng = np.random.default_rng(FAST_CONV.index((hw, strides, ksize, padding, ch)))
    x = rng.standard_normal((2, *hw, ch))
    w = rng.standard_normal((*ksize, ch, 4))
    gy = rng.standard_normal((2, *ref_out_hw(hw, ksize, strides, padding), 4))
    _assert_conv_and_gradients_match_reference(np, x, w, gy, strides, padding)


@pytest.mark.parametrize("ch", [1, 32])
def test_conv_fast_paths_stay_float32(ch):
    # mnist_deep's shapes in float32: the result keeps float32 and stays
    # within float32 rounding of a float64 reference.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 8, ch)).astype(np.float32)
    w = rng.standard_normal((5, 5, ch, 8)).astype(np.float32)
    gy = rng.standard_normal((2, 8, 8, 8)).astype(np.float32)
    args = ((1, 1), "SAME")
    outs = _conv_outputs_and_references(x, w, gy, args)
    for got, want in outs:
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# Disjoint windows (ksize == strides, no padding) take the block path; the
# 7x9 VALID cases leave uncovered rows/columns that must get zero gradient.
DISJOINT_POOL = [
    ((8, 6), (2, 2), "SAME"),
    ((8, 6), (2, 2), "VALID"),
    ((7, 9), (2, 2), "VALID"),
    ((6, 9), (3, 3), "SAME"),
    ((7, 9), (3, 3), "VALID"),
    ((7, 9), (2, 3), "VALID"),
]


@pytest.mark.parametrize("hw,ksize,padding", DISJOINT_POOL)
def test_disjoint_pooling_matches_reference(hw, ksize, padding):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, *hw, 3))
    g = rng.standard_normal((2, *ref_out_hw(hw, ksize, ksize, padding), 3))
    args = (ksize, ksize, padding)
    want_y, want_dx = ref_max_pool_and_grad(x, g, *args)
    y = conv.max_pool(np, x, *args)
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_allclose(conv.max_pool_grad(np, x, y, g, *args), want_dx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv.avg_pool(np, x, *args), ref_avg_pool(x, *args), rtol=1e-12, atol=1e-12)
    want = ref_avg_pool_grad(x.shape, g, *args)
    np.testing.assert_allclose(conv.avg_pool_grad(np, x.shape, g, *args), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("hw,ksize,padding", DISJOINT_POOL)
def test_disjoint_max_pool_grad_ties_go_to_first_max(hw, ksize, padding):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, size=(2, *hw, 2)).astype(np.float32)
    x[1] = 0.0  # every window one big tie, like the zeros after a ReLU
    g = rng.integers(-4, 5, size=(2, *ref_out_hw(hw, ksize, ksize, padding), 2)).astype(np.float32)
    y = conv.max_pool(np, x, ksize, ksize, padding)
    dx = conv.max_pool_grad(np, x, y, g, ksize, ksize, padding)
    assert dx.dtype == np.float32
    np.testing.assert_array_equal(dx, ref_max_pool_and_grad(x, g, ksize, ksize, padding)[1])


class _GenericNamespace:
    """numpy under another name, so the kernels take their generic (cupy) path."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("strides,padding", [((1, 1), "SAME"), ((2, 1), "VALID")])
@pytest.mark.parametrize("ch", [1, 5])
def test_generic_path_matches_reference(strides, padding, ch):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 7, 8, ch))
    w = rng.standard_normal((3, 5, ch, 4))
    gy = rng.standard_normal((2, *ref_out_hw((7, 8), (3, 5), strides, padding), 4))
    xp = _GenericNamespace()
    _assert_conv_and_gradients_match_reference(xp, x, w, gy, strides, padding)


# --------------------------------------------------------------------------
# numpy Winograd path (stride 1, 3x3 or 5x5, float32, >= 16 channels each way)
# --------------------------------------------------------------------------

WINOGRAD = list(
    itertools.product(
        [(7, 9), (8, 8)],  # odd and even sizes: partial and whole edge tiles
        [3, 5],
        PADDINGS,
        [1, 10],  # one image, and several chunks with a remainder
    )
)


def winograd_id(p):
    (h, w), k, pad, n = p
    return f"{h}x{w}-k{k}-{pad}-n{n}"


@pytest.fixture
def winograd_calls(monkeypatch):
    """Record each chunk's Winograd input transform, to prove the path was taken."""
    calls = []
    real = winograd._winograd_input

    def counted(*args):
        calls.append(args[0].shape)
        return real(*args)

    monkeypatch.setattr(winograd, "_winograd_input", counted)
    return calls


@pytest.mark.parametrize("compiled", [True, False], ids=["loop", "blas"])
@pytest.mark.parametrize("hw,k,padding,n", WINOGRAD, ids=[winograd_id(p) for p in WINOGRAD])
def test_winograd_matches_reference(hw, k, padding, n, compiled, winograd_calls):
    rng = np.random.default_rng(WINOGRAD.index((hw, k, padding, n)))
    in_ch, out_ch = 16, 17
    x = rng.standard_normal((n, *hw, in_ch)).astype(np.float32)
    w = (rng.standard_normal((k, k, in_ch, out_ch)) / (k * np.sqrt(in_ch))).astype(np.float32)
    gy = rng.standard_normal((n, *ref_out_hw(hw, (k, k), (1, 1), padding), out_ch)).astype(np.float32)
    args = ((1, 1), padding)
    with use_compiled(compiled):  # the tiles' transform: compiled loop, or gather and BLAS
        outs = _conv_outputs_and_references(x, w, gy, args)
    assert len(winograd_calls) >= 3
    for got, want in outs:
        assert got.dtype == np.float32
        assert got.shape == want.shape
        # Winograd's error scales with the result's magnitude, not each
        # element's: about 1e-5 of the largest value (im2col: about 1e-6).
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5 * np.abs(want).max())


def test_winograd_input_loop_relies_on_the_points_even_odd_structure():
    """The compiled transform reads only these entries of B^T, and pairs rows 1-2, 3-4
    and 5-6 as even + odd and even - odd: other points would need another loop."""
    bt = winograd._winograd_matrices(5)[2]
    even, odd = [0, 2, 4, 6], [1, 3, 5, 7]
    np.testing.assert_array_equal(bt[0, odd], 0)
    np.testing.assert_array_equal(bt[7, even], 0)
    np.testing.assert_array_equal(bt[1:7, [0, 7]], 0)
    for q in (1, 3, 5):
        np.testing.assert_allclose(bt[q + 1, even], bt[q, even], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(bt[q + 1, odd], -bt[q, odd], rtol=1e-12, atol=1e-15)
    for r in (3, 5):  # one B^T serves both kernel sizes
        np.testing.assert_array_equal(winograd._winograd_matrices(r)[2], bt)


@pytest.mark.parametrize(
    "dtype,in_ch,out_ch,strides,k",
    [
        (np.float64, 16, 16, (1, 1), 5),  # float64 keeps im2col's accuracy
        (np.float32, 8, 16, (1, 1), 5),  # too few channels to pay
        (np.float32, 16, 16, (2, 2), 5),  # strided
        (np.float32, 16, 16, (1, 1), 4),  # no 4x4 transform
    ],
)
def test_winograd_not_taken_outside_its_domain(dtype, in_ch, out_ch, strides, k, winograd_calls):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 8, 8, in_ch)).astype(dtype)
    w = rng.standard_normal((k, k, in_ch, out_ch)).astype(dtype)
    gy = rng.standard_normal((2, *ref_out_hw((8, 8), (k, k), strides, "SAME"), out_ch)).astype(dtype)
    args = (strides, "SAME")
    conv.conv2d(np, x, w, *args)
    conv.conv2d_backprop_input(np, x.shape, w, gy, *args)
    conv.conv2d_backprop_filter(np, x, w.shape, gy, *args)
    assert winograd_calls == []
    if dtype == np.float64:
        tol = {"rtol": 1e-12, "atol": 1e-12}
        np.testing.assert_allclose(conv.conv2d(np, x, w, *args), ref_conv2d(x, w, *args), **tol)
