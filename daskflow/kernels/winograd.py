"""Winograd minimal filtering for stride-1 float32 convolutions on numpy.

Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks" (2016).
One thread of OpenBLAS sgemm is slower than TF1's direct convolution, so
only fewer multiplies can catch up: F(4x4, 5x5) on 8x8 tiles does a 5x5
conv's 400 multiplies per 4x4 outputs in 64 (4.8x fewer at 14x14x32 -> 64;
with the tile transforms ~3x faster overall, measured at mnist_deep's second
conv). The input tiles' transform, the costliest part, is a compiled loop
where numba is (:func:`daskflow.kernels.loops.winograd_input`: 2-3x faster
than gathering the tiles and two BLAS products on 64 channels, measured on
the input gradient of mnist_deep's second conv). Error grows with the
tile: ~1e-5 of the output's scale against ~1e-6 for im2col, so the path
is float32-only and needs enough channels to pay (:func:`applies`).
:mod:`.conv` calls it with the padding geometry already worked out; the
forward conv and both gradients share one tile correlation.
"""

import functools

import numpy
from numpy.lib.stride_tricks import as_strided

from . import loops
from .compiled import plain

_WINOGRAD_ALPHA = 8  # tile side; F(m, r) with m = 8 - r + 1
_WINOGRAD_POINTS = (0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0)  # plus infinity
_WINOGRAD_KERNELS = (3, 5)
_WINOGRAD_MIN_CHANNELS = 16
# Tiles per batch chunk: a chunk's transformed tiles stay in L2 between the
# transforms and the products (~2x faster than whole-batch passes).
_WINOGRAD_CHUNK_TILES = 32


def applies(xp, filter_shape, strides, *arrays):
    """Return True where the Winograd path applies and measures faster than im2col."""
    kh, kw, in_ch, out_ch = filter_shape
    return (
        xp is numpy
        and tuple(strides) == (1, 1)
        and kh == kw
        and kh in _WINOGRAD_KERNELS
        and min(in_ch, out_ch) >= _WINOGRAD_MIN_CHANNELS
        and all(a.dtype == numpy.float32 for a in arrays)
    )


@functools.lru_cache
def _winograd_matrices(r):
    """Return float64 ``(A^T [m, 8], G [8, r], B^T [8, 8])`` for F(m x m, r x r).

    Toom-Cook with the points 0, +-1, +-1/2, +-2 and infinity: correlation is
    the transpose of polynomial multiplication, so with the Vandermonde
    matrices ``V_k`` (``[8, k]``, the infinity row picking the leading
    coefficient) ``A^T = V_m^T``, ``G = V_r`` and ``B^T = V_8^-T``.
    """
    alpha = _WINOGRAD_ALPHA
    points = numpy.array(_WINOGRAD_POINTS)

    def vandermonde(cols):
        v = numpy.zeros((alpha, cols))
        v[:-1] = points[:, None] ** numpy.arange(cols)
        v[-1, -1] = 1.0
        return v

    m = alpha - r + 1
    return vandermonde(m).T, vandermonde(r), numpy.linalg.inv(vandermonde(alpha)).T


def _two_sided(mat, a):
    """Return ``mat @ a @ mat.T`` over the two leading axes of ``a`` (``[q, q, ...]``).

    Each side is one matrix product over everything else flattened, so a
    whole chunk of tiles is transformed in two BLAS calls.
    """
    p, q = mat.shape
    half = mat @ a.reshape(q, -1)
    return numpy.matmul(mat, half.reshape(p, q, -1)).reshape(p, p, *a.shape[2:])


def _winograd_pad(a, out_hw, before, r):
    """Return ``a`` zero-padded to whole tiles: ``[n, th*m + r - 1, tw*m + r - 1, c]``.

    ``before`` holds the leading padding of each axis; the rest is zeros.
    """
    m = _WINOGRAD_ALPHA - r + 1
    n, h, w, c = a.shape
    th, tw = (-(-size // m) for size in out_hw)
    buf = numpy.zeros((n, th * m + r - 1, tw * m + r - 1, c), dtype=numpy.float32)
    buf[:, before[0] : before[0] + h, before[1] : before[1] + w] = a
    return buf


def _winograd_tiles(a, r):
    """View padded ``a`` as overlapping 8x8 tiles ``[n, th, tw, 8, 8, c]`` (no copy)."""
    m, alpha = _WINOGRAD_ALPHA - r + 1, _WINOGRAD_ALPHA
    n, hp, wp, c = a.shape
    th, tw = (hp - r + 1) // m, (wp - r + 1) // m
    s_n, s_h, s_w, s_c = a.strides
    shape = (n, th, tw, alpha, alpha, c)
    return as_strided(a, shape, (s_n, m * s_h, m * s_w, s_h, s_w, s_c), writeable=False)


def _chunks(n, tiles_per_image):
    """Yield batch slices of about ``_WINOGRAD_CHUNK_TILES`` tiles each."""
    step = max(1, _WINOGRAD_CHUNK_TILES // tiles_per_image)
    for start in range(0, n, step):
        yield slice(start, min(start + step, n))


def _winograd_input(xpad, tiles, part, bt, m):
    """Return ``B^T d B`` of the tiles (``m`` apart) of images ``part`` as
    ``[64, tiles, c]``, tile order ``(n, th, tw)``: one compiled pass where numba is,
    else a gathering copy and two BLAS products (2-3x the pass's time)."""
    compiled = loops.winograd_input.get() if plain(xpad) else None
    if compiled is None:
        d = numpy.ascontiguousarray(tiles[part].transpose(3, 4, 0, 1, 2, 5))
        return _two_sided(bt, d).reshape(_WINOGRAD_ALPHA**2, -1, tiles.shape[-1])
    th, tw, alpha = tiles.shape[1], tiles.shape[2], tiles.shape[3]
    out = numpy.empty((alpha * alpha, (part.stop - part.start) * th * tw, tiles.shape[-1]), xpad.dtype)
    compiled(xpad, bt, m, part.start, out)
    return out


def _winograd_output(prod, at, part, y):
    """Write ``A^T M A`` of each tile's products ``prod`` (``[64, tiles, k]``, images
    ``part``) into its block of ``y`` (``[n, th*m, tw*m, k]``). Two BLAS products: a
    compiled pass, as for the input, measured 5-10% slower here."""
    m, alpha = at.shape[0], _WINOGRAD_ALPHA
    n, th, tw = y.shape[0], y.shape[1] // m, y.shape[2] // m
    out = _two_sided(at, prod.reshape(alpha, alpha, -1, th, tw, y.shape[3]))
    y.reshape(n, th, m, tw, m, y.shape[3])[part] = out.transpose(2, 3, 0, 4, 1, 5)


def _winograd_correlate(xpad, w):
    """Return the stride-1 correlation of tile-padded ``xpad`` with HWIO ``w``.

    The result is ``[n, th*m, tw*m, out_ch]``; the caller crops it. Per
    chunk: transform the tiles, one stacked product over the 64 tile points
    (``[64, tiles, c] @ [64, c, out_ch]``), transform back.
    """
    r, out_ch = w.shape[0], w.shape[3]
    at, g, bt = _winograd_matrices(r)
    m, alpha = at.shape[0], _WINOGRAD_ALPHA
    # The small filter transform runs in float64 and is rounded once.
    u = numpy.tensordot(g, numpy.tensordot(g, w, axes=(1, 1)), axes=(1, 1))
    u = u.reshape(alpha * alpha, w.shape[2], out_ch).astype(numpy.float32)
    at, bt = at.astype(numpy.float32), bt.astype(numpy.float32)
    tiles = _winograd_tiles(xpad, r)
    n, th, tw = tiles.shape[:3]
    y = numpy.empty((n, th * m, tw * m, out_ch), dtype=numpy.float32)
    for part in _chunks(n, th * tw):
        _winograd_output(numpy.matmul(_winograd_input(xpad, tiles, part, bt, m), u), at, part, y)
    return y


def conv2d(x, w, out_hw, before):
    """``conv2d`` for stride 1 by Winograd F(m x m, r x r): output ``out_hw``, the input
    padded by ``before`` in front (as the padding rule says); a cropped view."""
    r = w.shape[0]
    y = _winograd_correlate(_winograd_pad(x, out_hw, before, r), w)
    return y[:, : out_hw[0], : out_hw[1]]


def conv2d_backprop_input(input_shape, w, g, before):
    """``conv2d_backprop_input`` for stride 1: correlate ``g`` with the flipped filter.

    ``dx[h] = sum_i g[h + pt - i] w[i]``, i.e. a correlation of ``g`` padded
    by ``r - 1 - pt`` in front with ``w`` flipped and in/out swapped, where
    ``before = (pt, pl)`` is the forward input's leading padding.
    """
    r = w.shape[0]
    h, wd = input_shape[1:3]
    pt, pl = before
    gpad = _winograd_pad(g, (h, wd), (r - 1 - pt, r - 1 - pl), r)
    dx = _winograd_correlate(gpad, w[::-1, ::-1].transpose(0, 1, 3, 2))
    return dx[:, :h, :wd]


def conv2d_backprop_filter(x, r, g, out_hw, before):
    """``conv2d_backprop_filter`` for stride 1 by Winograd F(r x r, m x m).

    ``dw[i, j] = sum x[a + i, b + j] g[a, b]`` is a correlation of ``x`` with
    ``g`` giving r x r outputs, tile by tile: ``G^T (sum_t (A g_t A^T) *
    (B^T x_t B)) G`` with the forward matrices, the sum over tiles and batch
    being one stacked product ``[64, c, tiles] @ [64, tiles, out_ch]``.
    """
    at, gm, bt = _winograd_matrices(r)
    m, alpha = at.shape[0], _WINOGRAD_ALPHA
    oh, ow = out_hw
    xpad = _winograd_pad(x, out_hw, before, r)
    tiles = _winograd_tiles(xpad, r)
    n, th, tw = tiles.shape[:3]
    out_ch = g.shape[3]
    gpad = numpy.zeros((n, th * m, tw * m, out_ch), dtype=numpy.float32)
    gpad[:, :oh, :ow] = g
    g_tiles = gpad.reshape(n, th, m, tw, m, out_ch).transpose(2, 4, 0, 1, 3, 5)
    a, bt = at.T.astype(numpy.float32), bt.astype(numpy.float32)
    acc = numpy.zeros((alpha * alpha, x.shape[3], out_ch), dtype=numpy.float32)
    for part in _chunks(n, th * tw):
        v = _winograd_input(xpad, tiles, part, bt, m)
        ug = _two_sided(a, numpy.ascontiguousarray(g_tiles[:, :, part]))
        acc += numpy.matmul(v.transpose(0, 2, 1), ug.reshape(alpha * alpha, -1, out_ch))
    s = acc.reshape(alpha, alpha, x.shape[3], out_ch).astype(numpy.float64)
    dw = numpy.tensordot(gm.T, numpy.tensordot(gm.T, s, axes=(1, 1)), axes=(1, 1))
    return dw.astype(numpy.float32)
