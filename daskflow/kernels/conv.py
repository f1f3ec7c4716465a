"""NHWC 2-D convolution and pooling kernels with TensorFlow 1.x semantics.

Every function takes the array namespace ``xp`` (``numpy`` or ``cupy``) as its
first argument and uses only functions both libraries provide, so the same
code runs on CPU and GPU. Images are NHWC ``[batch, height, width, channels]``
and filters are HWIO ``[kh, kw, in_ch, out_ch]``. Python loops only ever run
over the ``kh * kw`` kernel offsets, never over batch or pixels. On numpy,
stride-1 float32 3x3 and 5x5 convolutions with enough channels go by
Winograd tiles instead (:mod:`.winograd`).

This module imports nothing from ``daskflow`` but its sibling :mod:`.winograd`.
"""

import functools
import itertools

import numpy
from numpy.lib.stride_tricks import as_strided

from . import loops, winograd
from .compiled import plain

__all__ = [
    "avg_pool",
    "avg_pool_grad",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "max_pool",
    "max_pool_grad",
    "output_size",
]


def output_size(in_size, k, stride, padding):
    """Return ``(out, pad_before, pad_after)`` for one spatial axis.

    Follows TensorFlow's rules: ``"VALID"`` gives ``ceil((in - k + 1) / stride)``
    outputs and no padding; ``"SAME"`` gives ``ceil(in / stride)`` outputs and
    pads ``max((out - 1) * stride + k - in, 0)`` elements in total, putting the
    odd one after. Raises ``ValueError`` for an unknown padding, a non-positive
    kernel size or stride, or a ``"VALID"`` window larger than the input.
    """
    if k < 1 or stride < 1:
        raise ValueError(f"kernel size and stride must be >= 1, got k={k}, stride={stride}")
    if padding == "VALID":
        out = -(-(in_size - k + 1) // stride)  # integer ceil division
        if out <= 0:
            raise ValueError(f"VALID padding needs kernel size ({k}) <= input size ({in_size})")
        return out, 0, 0
    if padding == "SAME":
        out = -(-in_size // stride)
        pad_total = max((out - 1) * stride + k - in_size, 0)
        return out, pad_total // 2, pad_total - pad_total // 2
    raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")


def _geometry(in_hw, ksize, strides, padding):
    """Return the ``(out, pad_before, pad_after)`` triples for height and width."""
    return (
        output_size(in_hw[0], ksize[0], strides[0], padding),
        output_size(in_hw[1], ksize[1], strides[1], padding),
    )


def _windows(xp, x, ksize, strides, padding, fill):
    """Return the pooling/convolution windows of ``x`` as a strided view.

    Pads height and width with ``fill`` as TensorFlow's padding rules require,
    then views the result as ``[n, out_h, out_w, c, kh, kw]`` without copying.
    """
    (oh, pt, pb), (ow, pl, pr) = _geometry(x.shape[1:3], ksize, strides, padding)
    if pt or pb or pl or pr:
        pads = ((0, 0), (pt, pb), (pl, pr), (0, 0))
        x = xp.pad(x, pads, mode="constant", constant_values=fill)
    win = xp.lib.stride_tricks.sliding_window_view(x, tuple(ksize), axis=(1, 2))
    # Stepping the window origins gives the strided output; the trailing crop
    # is a no-op under TF's rules but keeps the shape exact by construction.
    return win[:, :: strides[0], :: strides[1]][:, :oh, :ow]


def _im2col(xp, x, ksize, strides, padding):
    """Return ``(cols, out_shape)`` with ``cols`` of shape ``[n*oh*ow, kh*kw*c]``.

    The columns are ordered ``(kh, kw, c)`` so that an HWIO filter reshaped to
    ``[kh*kw*in_ch, out_ch]`` lines up with them without a transpose, and the
    channel axis stays innermost so the gathering copy reads contiguous memory.
    """
    win = _windows(xp, x, ksize, strides, padding, 0).transpose(0, 1, 2, 4, 5, 3)
    n, oh, ow = win.shape[:3]
    return win.reshape(n * oh * ow, -1), (n, oh, ow)


# Below this many input channels, im2col is built channel-first, one strided
# slice per kernel offset: with C = 1 the row layout's copy moves 4-byte runs
# and is ~2.5x slower (measured at mnist_deep's first conv); at C = 32 the row
# layout wins (~25% faster end to end).
_CHANNEL_FIRST_MAX = 3


def _padded(x, geometry):
    """Return ``x`` zero-padded on height and width per ``geometry`` (no copy if none)."""
    (_, pt, pb), (_, pl, pr) = geometry
    if pt or pb or pl or pr:
        return numpy.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    return x


def _im2col_numpy(x, ksize, strides, padding):
    """numpy's ``_im2col``: the same ``[n*oh*ow, kh*kw*c]`` matrix, built faster.

    Row layout: for one output pixel and kernel row, the ``kw * c`` inputs it
    reads are adjacent in an NHWC image, so an ``as_strided`` view with that
    run innermost copies long contiguous blocks. Channel-first layout (few
    channels): a ``[kh*kw*c, n*oh*ow]`` matrix filled by one slice per offset,
    returned transposed (Fortran order, which BLAS takes without a copy).
    """
    (kh, kw), (sh, sw) = ksize, strides
    geometry = _geometry(x.shape[1:3], ksize, strides, padding)
    (oh, _, _), (ow, _, _) = geometry
    n, c = x.shape[0], x.shape[3]
    if c <= _CHANNEL_FIRST_MAX:
        xt = _padded(x, geometry).transpose(3, 0, 1, 2)
        cols = numpy.empty((kh, kw, c, n, oh, ow), dtype=x.dtype)
        for i, j in _offsets(ksize):
            cols[i, j] = xt[:, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
        return cols.reshape(kh * kw * c, n * oh * ow).T, (n, oh, ow)
    xp = numpy.ascontiguousarray(_padded(x, geometry))
    s_n, s_h, s_w, s_c = xp.strides
    rows = as_strided(xp, (n, oh, ow, kh, kw * c), (s_n, sh * s_h, sw * s_w, s_h, s_c), writeable=False)
    return rows.reshape(n * oh * ow, kh * kw * c), (n, oh, ow)


def _offsets(ksize):
    """Return the kernel offsets ``(i, j)`` in row-major order."""
    return list(itertools.product(range(ksize[0]), range(ksize[1])))


def _col2im(xp, parts, input_shape, ksize, strides, padding, dtype):
    """Sum per-window contributions back into an image of ``input_shape``.

    ``parts`` yields one ``[n, oh, ow, c]`` array per kernel offset, in
    row-major offset order. Each lands on a strided slice of a zero, padded
    buffer; within one offset the slice positions are distinct, so plain
    ``+=`` is exact. The padding border is cropped off at the end because it
    is not part of the input.
    """
    n, h, w, c = input_shape
    sh, sw = strides
    (oh, pt, pb), (ow, pl, pr) = _geometry((h, w), ksize, strides, padding)
    buf = xp.zeros((n, h + pt + pb, w + pl + pr, c), dtype=dtype)
    for (i, j), part in zip(_offsets(ksize), parts):
        buf[:, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw] += part
    return buf[:, pt : pt + h, pl : pl + w]


def _pool(win, ksize, op):
    """Fold the windows over their kernel offsets with the binary ufunc ``op``.

    Looping over the few offsets and combining whole ``[n, oh, ow, c]`` slices
    is several times faster than reducing over the small trailing window axes.
    """
    out = win[..., 0, 0].copy()  # a copy, so the result never aliases x
    for i, j in _offsets(ksize)[1:]:
        op(out, win[..., i, j], out=out)
    return out


def _valid_mask(xp, in_hw, ksize, strides, padding):
    """Return a bool array ``[oh, ow, kh, kw]``: True where a window reads input.

    The mask is separable, so it is built from one small ``[out, k]`` mask per
    axis; it marks which window positions fall inside the image rather than
    in the padding border.
    """
    axes = []
    for size, k, s, (out, before, _) in zip(in_hw, ksize, strides, _geometry(in_hw, ksize, strides, padding)):
        pos = xp.arange(out)[:, None] * s + xp.arange(k)[None, :] - before
        axes.append((pos >= 0) & (pos < size))
    rows, cols = axes
    return rows[:, None, :, None] & cols[None, :, None, :]


def _check_channels(x_ch, w_ch):
    """Raise ``ValueError`` when input channels and filter in-channels differ."""
    if x_ch != w_ch:
        raise ValueError(f"input has {x_ch} channels but filter expects {w_ch}")


def conv2d(xp, x, w, strides, padding):
    """Return the 2-D convolution (cross-correlation) of NHWC ``x`` with HWIO ``w``.

    Matches ``tf.nn.conv2d`` with ``strides=[1, sh, sw, 1]``: the image is
    unfolded into columns (im2col) and multiplied by the reshaped filter in a
    single matrix product. The result has shape ``[n, oh, ow, out_ch]`` and the
    dtype of ``x``. On numpy, stride-1 float32 3x3 and 5x5 convolutions with at
    least 16 channels each way use Winograd tiles instead (as do both
    gradients); the result may then be a cropped view.
    """
    kh, kw, in_ch, out_ch = w.shape
    _check_channels(x.shape[3], in_ch)
    if winograd.applies(xp, w.shape, strides, x, w):
        (oh, pt, _), (ow, pl, _) = _geometry(x.shape[1:3], (kh, kw), (1, 1), padding)
        return winograd.conv2d(x, w, (oh, ow), (pt, pl))
    im2col = _im2col_numpy if xp is numpy else functools.partial(_im2col, xp)
    cols, (n, oh, ow) = im2col(x, (kh, kw), strides, padding)
    y = cols @ w.reshape(kh * kw * in_ch, out_ch)
    return y.reshape(n, oh, ow, out_ch).astype(x.dtype, copy=False)


def conv2d_backprop_input(xp, input_shape, w, g, strides, padding):
    """Return the gradient of ``conv2d`` with respect to its input.

    ``input_shape`` is the NHWC shape of the forward input and ``g`` the
    upstream gradient ``[n, oh, ow, out_ch]``. One matrix product gives every
    window's contribution, which ``_col2im`` sums back into the image. The
    result has the dtype of ``g``.
    """
    kh, kw, in_ch, out_ch = w.shape
    input_shape = tuple(int(d) for d in input_shape)
    _check_channels(input_shape[3], in_ch)
    n, oh, ow = g.shape[:3]
    if winograd.applies(xp, w.shape, strides, g, w):
        (_, pt, _), (_, pl, _) = _geometry(input_shape[1:3], (kh, kw), (1, 1), padding)
        return winograd.conv2d_backprop_input(input_shape, w, g, (pt, pl))
    if xp is numpy:
        parts = _backprop_input_parts_numpy(w, g)
        return _col2im(xp, parts, input_shape, (kh, kw), strides, padding, g.dtype)
    cols = g.reshape(-1, out_ch) @ w.reshape(kh * kw * in_ch, out_ch).T
    cols = cols.reshape(n, oh, ow, kh, kw, in_ch)
    parts = (cols[:, :, :, i, j] for i, j in _offsets((kh, kw)))
    return _col2im(xp, parts, input_shape, (kh, kw), strides, padding, g.dtype)


def _backprop_input_parts_numpy(w, g):
    """Yield ``g @ w[i, j].T`` per kernel offset, reusing one output buffer.

    On numpy one small product per offset, summed in while it is still in
    cache, beats one large product whose ``[n*oh*ow, kh*kw*c]`` result must
    be written out and read back (~35% faster at mnist_deep's second conv).
    The consumer adds each part before the next is computed.
    """
    kh, kw, in_ch, out_ch = w.shape
    n, oh, ow = g.shape[:3]
    g2 = g.reshape(-1, out_ch)
    w_t = numpy.ascontiguousarray(w.transpose(0, 1, 3, 2))  # per offset [out_ch, in_ch]
    part = numpy.empty((n * oh * ow, in_ch), dtype=numpy.result_type(g, w))
    for i, j in _offsets((kh, kw)):
        numpy.matmul(g2, w_t[i, j], out=part)
        yield part.reshape(n, oh, ow, in_ch)


def conv2d_backprop_filter(xp, x, filter_shape, g, strides, padding):
    """Return the gradient of ``conv2d`` with respect to its filter.

    ``filter_shape`` is the HWIO filter shape and ``g`` the upstream gradient
    ``[n, oh, ow, out_ch]``. The gradient is the im2col matrix of ``x``
    transposed times ``g``, which comes out directly in HWIO order. The result
    has the dtype of ``x``.
    """
    kh, kw, in_ch, out_ch = (int(d) for d in filter_shape)
    _check_channels(x.shape[3], in_ch)
    if winograd.applies(xp, (kh, kw, in_ch, out_ch), strides, x, g):
        (oh, pt, _), (ow, pl, _) = _geometry(x.shape[1:3], (kh, kw), (1, 1), padding)
        return winograd.conv2d_backprop_filter(x, kh, g, (oh, ow), (pt, pl))
    im2col = _im2col_numpy if xp is numpy else functools.partial(_im2col, xp)
    cols, _ = im2col(x, (kh, kw), strides, padding)
    dw = cols.T @ g.reshape(-1, out_ch)
    return dw.reshape(kh, kw, in_ch, out_ch).astype(x.dtype, copy=False)


def _tiles(x, ksize, strides, padding):
    """Return ``x`` viewed as ``[n, oh, kh, ow, kw, c]`` when windows tile it exactly, else None.

    When the stride equals the window and no padding is needed, the windows
    are disjoint blocks, so a reshape (no copy) exposes them; VALID leftovers
    past the last window are cropped off (they get no gradient).
    """
    shape = _tiles_shape(x.shape, ksize, strides, padding)
    if shape is None:
        return None
    return x[:, : shape[1] * shape[2], : shape[3] * shape[4]].reshape(shape)


def _tiles_shape(in_shape, ksize, strides, padding):
    """Return ``(n, oh, kh, ow, kw, c)`` when windows are disjoint and unpadded, else None."""
    if tuple(ksize) != tuple(strides):
        return None
    (oh, pt, pb), (ow, pl, pr) = _geometry(in_shape[1:3], ksize, strides, padding)
    if pt or pb or pl or pr:
        return None
    return (in_shape[0], oh, ksize[0], ow, ksize[1], in_shape[3])


def _tiled_like(xp, shape, tiles_shape, dtype):
    """Return a new image of ``shape`` and its ``[n, oh, kh, ow, kw, c]`` block view.

    Only VALID leftovers (rows/columns no window covers) need zeros; the
    blocks are fully overwritten by the caller.
    """
    n, oh, kh, ow, kw, c = tiles_shape
    exact = oh * kh == shape[1] and ow * kw == shape[2]
    dx = (xp.empty if exact else xp.zeros)(shape, dtype=dtype)
    # Splitting axes of a (possibly cropped) view never copies, so writes land in dx.
    return dx, dx[:, : oh * kh, : ow * kw].reshape(tiles_shape)


def _fold_tiles(tiles, op):
    """Fold ``[n, oh, kh, ow, kw, c]`` blocks over their window axes with ``op``."""
    out = tiles[:, :, 0, :, 0].copy()
    for i, j in _offsets((tiles.shape[2], tiles.shape[4]))[1:]:
        op(out, tiles[:, :, i, :, j], out=out)
    return out


def max_pool(xp, x, ksize, strides, padding):
    """Return the max pooling of NHWC ``x`` over ``ksize`` windows.

    Matches ``tf.nn.max_pool`` with ``ksize=[1, kh, kw, 1]``. ``"SAME"``
    padding uses ``-inf`` so a padded position never wins over real data.
    """
    tiles = _tiles(x, ksize, strides, padding)
    compiled = loops.max_pool_tiles.get() if tiles is not None and plain(tiles, contiguous=False) else None
    if compiled is not None:  # one pass instead of a copy and kh*kw-1 maxima
        out = numpy.empty(tiles.shape[:2] + tiles.shape[3:4] + tiles.shape[5:], tiles.dtype)
        compiled(tiles, out)
        return out
    if tiles is not None:
        return _fold_tiles(tiles, xp.maximum)
    win = _windows(xp, x, ksize, strides, padding, -xp.inf)
    return _pool(win, ksize, xp.maximum)


def _first_max_parts(xp, win, peak, valid, g, ksize):
    """Yield, per kernel offset, ``g`` where that offset is its window's argmax.

    Offsets are visited in row-major order and a window stops taking part once
    it has been routed, so ties go to the first maximum as in TensorFlow.
    Padding positions are excluded: they only tie when the maximum is -inf.
    """
    unrouted = xp.ones(peak.shape, dtype=bool)
    for i, j in _offsets(ksize):
        hit = unrouted & (win[..., i, j] == peak) & valid[:, :, i, j, None]
        unrouted &= ~hit
        # Multiplying by the mask is several times faster than xp.where on
        # CPU and exact for finite g; a non-finite g (whose loss is already
        # NaN/inf) would also smear NaN over its window.
        yield g * hit


def max_pool_grad(xp, x, y, g, ksize, strides, padding):
    """Return the gradient of ``max_pool`` with respect to its input ``x``.

    Each upstream gradient in ``g`` goes to the position of its window's
    maximum; on ties it goes to the first maximum in row-major window order,
    as TensorFlow's CPU kernel does. ``y`` must be ``max_pool(x)``, as in
    every graph the gradient builds: disjoint windows take it as their
    maxima (as TF's GPU kernel does) instead of recomputing them; other
    windows recompute them from ``x``.
    """
    tiles = _tiles(x, ksize, strides, padding)
    if tiles is not None:
        return _max_pool_grad_tiles(xp, tiles, x.shape, y, g)
    win = _windows(xp, x, ksize, strides, padding, -xp.inf)
    peak = _pool(win, ksize, xp.maximum)
    valid = _valid_mask(xp, x.shape[1:3], ksize, strides, padding)
    parts = _first_max_parts(xp, win, peak, valid, g, ksize)
    return _col2im(xp, parts, x.shape, ksize, strides, padding, x.dtype)


def max_pool_grad_grad(xp, x, y, gg, ksize, strides, padding):
    """Return the gradient of ``max_pool_grad`` with respect to its upstream gradient.

    ``gg`` is shaped as ``x``; each window takes its value at the window's first maximum
    (row-major on ties, as ``max_pool_grad`` routes): TF's ``MaxPoolGradGrad``. ``y`` is
    ``max_pool(x)``, the maxima compared against.
    """
    win = _windows(xp, x, ksize, strides, padding, -xp.inf)
    picked = _windows(xp, gg, ksize, strides, padding, 0)
    valid = _valid_mask(xp, x.shape[1:3], ksize, strides, padding)
    out = xp.zeros(y.shape, dtype=gg.dtype)
    unrouted = xp.ones(y.shape, dtype=bool)
    for i, j in _offsets(ksize):
        hit = unrouted & (win[..., i, j] == y) & valid[:, :, i, j, None]
        unrouted &= ~hit
        out += xp.where(hit, picked[..., i, j], 0)
    return out


def _max_pool_grad_tiles(xp, tiles, shape, peak, g):
    """``max_pool_grad`` for disjoint windows with maxima ``peak`` (the forward output).

    Every input element belongs to one window, so the gradient is one
    broadcast product written straight into the result: ``g`` times a mask of
    each window's first maximum. The mask is ``x == peak``, one pass; where
    some window holds its maximum more than once (a ReLU's zeros, often),
    each later offset drops the windows an earlier one already took.
    """
    dx, dx_tiles = _tiled_like(xp, shape, tiles.shape, tiles.dtype)
    compiled = loops.max_pool_grad_tiles.get() if plain(tiles, peak, g, contiguous=False) else None
    if compiled is not None:
        # A strided g (a crop of a padded gradient) would keep the loop from vectorizing: 10x.
        g, peak = numpy.ascontiguousarray(g), numpy.ascontiguousarray(peak)
        compiled(tiles, peak, g, dx_tiles)  # one pass over x, ties resolved as it goes
        return dx
    hit = xp.equal(tiles, peak[:, :, None, :, None], out=xp.empty(tiles.shape, dtype=bool))
    if int(xp.count_nonzero(hit)) != peak.size:  # ties (or NaN windows, which route nothing)
        _first_hits_only(xp, hit)
    xp.multiply(hit, g[:, :, None, :, None], out=dx_tiles)
    return dx


def _first_hits_only(xp, hit):
    """Keep, per window of ``hit`` (``[n, oh, kh, ow, kw, c]``), only its first ``True``
    in row-major window order (TF1's rule for tied maxima)."""
    offsets = _offsets((hit.shape[2], hit.shape[4]))
    first = offsets[0]
    seen = hit[:, :, first[0], :, first[1]].copy()
    spare = xp.empty(seen.shape, dtype=bool)
    for i, j in offsets[1:]:
        later = hit[:, :, i, :, j]
        xp.logical_not(seen, out=spare)
        later &= spare
        seen |= later


def _avg_pool_grad_tiles(xp, input_shape, tiles_shape, g):
    """``avg_pool_grad`` for disjoint unpadded windows: broadcast each share over its block."""
    kh, kw = tiles_shape[2], tiles_shape[4]
    dx, dx_tiles = _tiled_like(xp, input_shape, tiles_shape, g.dtype)
    share = (g / (kh * kw)).astype(g.dtype, copy=False)
    dx_tiles[...] = share[:, :, None, :, None]
    return dx


def _window_counts(xp, in_hw, ksize, strides, padding, dtype):
    """Return ``[oh, ow, 1]`` counts of non-padding elements in each window."""
    counts = _valid_mask(xp, in_hw, ksize, strides, padding).sum(axis=(2, 3))
    return counts.astype(dtype)[:, :, None]


def avg_pool(xp, x, ksize, strides, padding):
    """Return the average pooling of NHWC ``x`` over ``ksize`` windows.

    Matches ``tf.nn.avg_pool``: with ``"SAME"`` padding each window's sum is
    divided by the number of real (non-padding) elements it covers, not by
    ``kh * kw``.
    """
    tiles = _tiles(x, ksize, strides, padding)
    if tiles is not None:
        total = _fold_tiles(tiles, xp.add)
        return (total / (ksize[0] * ksize[1])).astype(x.dtype, copy=False)
    win = _windows(xp, x, ksize, strides, padding, 0)
    counts = _window_counts(xp, x.shape[1:3], ksize, strides, padding, x.dtype)
    return (_pool(win, ksize, xp.add) / counts).astype(x.dtype, copy=False)


def avg_pool_grad(xp, input_shape, g, ksize, strides, padding):
    """Return the gradient of ``avg_pool`` with respect to its input.

    ``input_shape`` is the NHWC shape of the forward input. Each upstream
    gradient is divided by its window's real-element count and spread evenly
    over the window; what lands on padding is cropped off. The result has the
    dtype of ``g``.
    """
    input_shape = tuple(int(d) for d in input_shape)
    if tuple(ksize) == tuple(strides):
        shape = _tiles_shape(input_shape, ksize, strides, padding)
        if shape is not None:
            return _avg_pool_grad_tiles(xp, input_shape, shape, g)
    counts = _window_counts(xp, input_shape[1:3], ksize, strides, padding, g.dtype)
    share = (g / counts).astype(g.dtype, copy=False)
    # Every offset of a window receives the same share.
    parts = itertools.repeat(share, ksize[0] * ksize[1])
    return _col2im(xp, parts, input_shape, ksize, strides, padding, g.dtype)
