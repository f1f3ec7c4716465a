"""The compiled loops (see :mod:`.compiled`): each repeats, element by element and
in the same order, the arithmetic of the numpy code it stands in for."""

from __future__ import annotations

import numpy as np

from .compiled import loop


@loop
def adam(var, m, v, g, b1, b2, lr, eps, new_var, new_m, new_v):
    """Adam's update of flat arrays into ``new_*`` (``_adam_kernel``'s arithmetic)."""
    dt = var.dtype.type
    # Python floats meet float32 arrays as float32 in numpy: round the constants alike.
    c1, c2, b1, b2, lr, eps = dt(1.0 - b1), dt(1.0 - b2), dt(b1), dt(b2), dt(lr), dt(eps)
    for i in range(var.size):
        gi = g[i]
        mi = m[i] * b1 + gi * c1
        vi = v[i] * b2 + (gi * gi) * c2
        new_m[i] = mi
        new_v[i] = vi
        new_var[i] = var[i] - (mi / (np.sqrt(vi) + eps)) * lr


@loop
def adam_in_place(var, m, v, g, b1, b2, lr, eps):
    """:func:`adam` writing into ``var``, ``m`` and ``v`` themselves: an update in place
    reads and writes each element once, where a new array must first be fetched
    into cache (~2x faster on a 12.8 MB layer). Its own loop, because :func:`adam`
    given aliased outputs loses vectorization to the compiler's overlap check."""
    dt = var.dtype.type
    c1, c2, b1, b2, lr, eps = dt(1.0 - b1), dt(1.0 - b2), dt(b1), dt(b2), dt(lr), dt(eps)
    for i in range(var.size):
        gi = g[i]
        mi = m[i] * b1 + gi * c1
        vi = v[i] * b2 + (gi * gi) * c2
        m[i] = mi
        v[i] = vi
        var[i] = var[i] - (mi / (np.sqrt(vi) + eps)) * lr


@loop
def relu_grad(g, x, out):
    """``g * (x > 0)`` of flat arrays into ``out``."""
    zero, one = g.dtype.type(0), g.dtype.type(1)
    for i in range(g.size):
        out[i] = g[i] * (one if x[i] > 0 else zero)


@loop
def max_pool_grad_tiles(x, peak, g, dx):
    """Route ``g`` to the first maximum of each disjoint window of ``x``.

    ``x`` and ``dx`` are ``[n, oh, kh, ow, kw, c]`` blocks, ``peak`` and ``g``
    ``[n, oh, ow, c]``; windows are visited in row-major order and a window
    takes its gradient at its first element equal to its maximum (TF1's rule
    for ties). Walks ``x`` in memory order, remembering per row of windows
    which ones are routed.
    """
    n, oh, kh, ow, kw, c = x.shape
    routed = np.empty((ow, c), dtype=np.bool_)
    zero = dx.dtype.type(0)
    for a in range(n):
        for i in range(oh):
            routed[:] = False
            for di in range(kh):
                for j in range(ow):
                    for dj in range(kw):
                        for ch in range(c):
                            hit = not routed[j, ch] and x[a, i, di, j, dj, ch] == peak[a, i, j, ch]
                            dx[a, i, di, j, dj, ch] = g[a, i, j, ch] if hit else zero
                            routed[j, ch] |= hit


@loop
def max_pool_tiles(x, out):
    """Each disjoint window's maximum, folded in row-major order with ``numpy.maximum``'s
    rule (NaN wins, ties keep the earlier value); ``x`` ``[n, oh, kh, ow, kw, c]``."""
    n, oh, kh, ow, kw, c = x.shape
    for a in range(n):
        for i in range(oh):
            out[a, i] = x[a, i, 0, :, 0]
            for di in range(kh):
                for j in range(ow):
                    for dj in range(kw):
                        if di == 0 and dj == 0:
                            continue
                        for ch in range(c):
                            m, v = out[a, i, j, ch], x[a, i, di, j, dj, ch]
                            out[a, i, j, ch] = m if (m != m or m >= v) else v


@loop
def add_bias(x, b, out, relu):
    """``x + b`` (``numpy.maximum(x + b, 0)`` with ``relu``) for 4-D ``x`` and ``b``
    over its last axis, in one pass: numpy's inner loop would run only a conv's
    channels per call, and a fused ReLU follows ``maximum``'s rule (NaN wins, ``-0``
    stays). ``x`` may be a strided view, as a cropped convolution output is."""
    n, h, w, k = x.shape
    zero = out.dtype.type(0)
    for a in range(n):
        for i in range(h):
            for j in range(w):
                row, dest = x[a, i, j], out[a, i, j]
                for c in range(k):
                    v = row[c] + b[c]
                    dest[c] = v if (not relu or v != v or v >= zero) else zero


@loop
def quantize(flat, residual, bucket, q, scales, width, magnitude, infinite):
    """int8 steps of ``flat + residual`` per bucket into ``q`` and ``scales``, what they
    lose into ``residual`` (``compression._quantize_numpy``'s arithmetic). False, with
    nothing written, where a value is not finite.

    ``width``: an empty array of the unsigned integers as wide as ``flat``'s floats;
    ``magnitude``: that width's mask of all bits but the sign; ``infinite``: inf's bits.
    A float's magnitude orders as its bits do, and NaN and inf have the largest, so the
    maximum is an integer reduction, which vectorizes where a float one with NaN checks
    does not (4x faster on 4M float32 values). The bucket's values go through a scratch
    array made here: the compiler then knows it aliases no argument.
    """
    n = flat.size
    v = np.empty(bucket, flat.dtype)
    v_bits = v.view(width.dtype)
    top = np.empty(1, flat.dtype)
    top_bits = top.view(width.dtype)
    for b in range(scales.size):  # first pass: each bucket's step, and finiteness
        lo = b * bucket
        m = min(n, lo + bucket) - lo
        for j in range(m):
            v[j] = flat[lo + j] + residual[lo + j]
        biggest = magnitude & 0
        for j in range(m):
            a = v_bits[j] & magnitude
            biggest = a if a > biggest else biggest
        if biggest >= infinite:
            return False
        top_bits[0] = biggest
        scales[b] = np.float32(top[0] / top.dtype.type(127))
    dt = flat.dtype.type
    for b in range(scales.size):
        lo = b * bucket
        m = min(n, lo + bucket) - lo
        step = dt(scales[b])
        safe = step if step > 0 else dt(1)  # a divisor, not a reciprocal: a subnormal step's is inf
        for j in range(m):
            x = flat[lo + j] + residual[lo + j]
            k = np.rint(x / safe)
            q[lo + j] = np.int8(k)
            residual[lo + j] = x - k * step
    return True


@loop
def to_half(x, out) -> bool:
    """float32 ``x`` as IEEE half precision's bits into ``out`` (uint16), rounded to
    nearest even as numpy's ``astype(float16)``; False (``out`` then meaningless) where a
    value half precision cannot hold: beyond ±65504, or not finite. Integer arithmetic
    on the bits, which vectorizes (numpy's conversion here is a scalar loop, 5x slower)."""
    bits = x.view(np.uint32)
    largest = np.uint32(0)
    for i in range(x.size):
        b = bits[i]
        a = b & np.uint32(0x7FFFFFFF)
        largest = a if a > largest else largest
        # Normal halves: float32's exponent rebiased (127 - 15) and 13 mantissa bits
        # rounded off to nearest even; below 2^-14, the value in units of 2^-24, rounded.
        rebiased = a - np.uint32(0x38000000) + np.uint32(0x0FFF) + ((a >> np.uint32(13)) & np.uint32(1))
        tiny = np.uint32(np.rint(abs(x[i]) * np.float32(16777216.0)))
        h = (rebiased >> np.uint32(13)) if a >= np.uint32(0x38800000) else tiny
        out[i] = np.uint16(((b >> np.uint32(16)) & np.uint32(0x8000)) | h)
    return largest <= np.uint32(0x477FE000)  # 65504.0's bits


@loop
def from_half(h, out):
    """IEEE half precision's bits ``h`` (uint16) as float32 into ``out``, exactly."""
    out_bits = out.view(np.uint32)
    for i in range(h.size):
        v = np.uint32(h[i])
        sign = (v & np.uint32(0x8000)) << np.uint32(16)
        exponent = (v >> np.uint32(10)) & np.uint32(0x1F)
        mantissa = v & np.uint32(0x3FF)
        if exponent == 0:  # zero or subnormal: the mantissa in units of 2^-24, exactly
            tiny = np.float32(mantissa) * np.float32(5.9604644775390625e-08)
            out[i] = -tiny if sign else tiny
        else:
            biased = np.uint32(255) if exponent == 31 else exponent + np.uint32(112)
            out_bits[i] = sign | (biased << np.uint32(23)) | (mantissa << np.uint32(13))


@loop
def dequantize(q, scales, bucket, out):
    """``q`` times its bucket's scale into ``out``."""
    dt = out.dtype.type
    for b in range(scales.size):
        step = scales[b]
        for i in range(b * bucket, min(out.size, (b + 1) * bucket)):
            out[i] = dt(q[i]) * step


@loop
def winograd_input(src, bt, step, first, out):
    """``B^T d B`` of each 8x8 tile ``d`` of ``src`` into ``out[8p + q, t]``, ``t`` counting
    tiles (``step`` apart) row-major from image ``first`` (:func:`.winograd._winograd_input`).

    ``bt`` is the 8x8 ``B^T`` of the points 0, +-1, +-1/2, +-2 and infinity: row 0
    reads the even inputs, row 7 the odd ones, and rows 1-2, 3-4, 5-6 are pairs
    ``even + odd`` and ``even - odd`` of the same inner terms, so a pair takes six
    products instead of sixteen. Each side of the transform loads a tile's eight
    values once for its eight results, with channels as the inner loop, which the
    compiler vectorizes. The sums agree with BLAS's to rounding, not bit for bit.
    """
    th, tw = (src.shape[1] - 8) // step + 1, (src.shape[2] - 8) // step + 1
    # The coefficients as scalars: read from bt inside the loops, they would be
    # reloaded for every channel (the compiler cannot tell bt from out). Both sides
    # are written out: one loop over both would type its arrays strided, unvectorized.
    b00, b02, b04, b06 = bt[0, 0], bt[0, 2], bt[0, 4], bt[0, 6]
    b71, b73, b75, b77 = bt[7, 1], bt[7, 3], bt[7, 5], bt[7, 7]
    e12, e14, e16, o11, o13, o15 = bt[1, 2], bt[1, 4], bt[1, 6], bt[1, 1], bt[1, 3], bt[1, 5]
    e32, e34, e36, o31, o33, o35 = bt[3, 2], bt[3, 4], bt[3, 6], bt[3, 1], bt[3, 3], bt[3, 5]
    e52, e54, e56, o51, o53, o55 = bt[5, 2], bt[5, 4], bt[5, 6], bt[5, 1], bt[5, 3], bt[5, 5]
    half = np.empty((8, 8, src.shape[3]), out.dtype)  # half[q, a]: tile row a, transformed
    for t in range(out.shape[1]):
        image, i, j = first + t // (th * tw), (t // tw) % th, t % tw
        x = j * step
        for a in range(8):
            row = src[image, i * step + a]
            for ch in range(src.shape[3]):
                d0, d1, d2, d3 = row[x, ch], row[x + 1, ch], row[x + 2, ch], row[x + 3, ch]
                d4, d5, d6, d7 = row[x + 4, ch], row[x + 5, ch], row[x + 6, ch], row[x + 7, ch]
                half[0, a, ch] = b00 * d0 + b02 * d2 + b04 * d4 + b06 * d6
                even, odd = e12 * d2 + e14 * d4 + e16 * d6, o11 * d1 + o13 * d3 + o15 * d5
                half[1, a, ch], half[2, a, ch] = even + odd, even - odd
                even, odd = e32 * d2 + e34 * d4 + e36 * d6, o31 * d1 + o33 * d3 + o35 * d5
                half[3, a, ch], half[4, a, ch] = even + odd, even - odd
                even, odd = e52 * d2 + e54 * d4 + e56 * d6, o51 * d1 + o53 * d3 + o55 * d5
                half[5, a, ch], half[6, a, ch] = even + odd, even - odd
                half[7, a, ch] = b71 * d1 + b73 * d3 + b75 * d5 + b77 * d7
        for q in range(8):
            col = half[q]
            for ch in range(src.shape[3]):
                d0, d1, d2, d3 = col[0, ch], col[1, ch], col[2, ch], col[3, ch]
                d4, d5, d6, d7 = col[4, ch], col[5, ch], col[6, ch], col[7, ch]
                out[q, t, ch] = b00 * d0 + b02 * d2 + b04 * d4 + b06 * d6
                even, odd = e12 * d2 + e14 * d4 + e16 * d6, o11 * d1 + o13 * d3 + o15 * d5
                out[8 + q, t, ch], out[16 + q, t, ch] = even + odd, even - odd
                even, odd = e32 * d2 + e34 * d4 + e36 * d6, o31 * d1 + o33 * d3 + o35 * d5
                out[24 + q, t, ch], out[32 + q, t, ch] = even + odd, even - odd
                even, odd = e52 * d2 + e54 * d4 + e56 * d6, o51 * d1 + o53 * d3 + o55 * d5
                out[40 + q, t, ch], out[48 + q, t, ch] = even + odd, even - odd
                out[56 + q, t, ch] = b71 * d1 + b73 * d3 + b75 * d5 + b77 * d7


@loop
def lstm_tanh_arguments(icfo, b, forget_bias):
    """In place, the arguments of the tanh each of TF's ``LSTMBlockCell`` gates takes, from
    ``icfo = [x, h_prev] @ w`` (gates i, ci, f, o) and the bias: ``(icfo + b (+ forget_bias)) / 2``
    for the sigmoid gates (``sigmoid(x) = (tanh(x / 2) + 1) / 2``, as daskflow's ``Sigmoid``), the
    sum itself for ci. numpy's vectorized tanh then runs over the whole block at once."""
    dt = icfo.dtype.type
    half, fb = dt(0.5), dt(forget_bias)
    n = icfo.shape[1] // 4
    for r in range(icfo.shape[0]):
        for j in range(4 * n):
            v = icfo[r, j] + b[j]
            if 2 * n <= j < 3 * n:
                v = v + fb
            icfo[r, j] = v if n <= j < 2 * n else half * v


@loop
def lstm_gates(t, cs_prev, cell_clip, i, cs, f, o, ci):
    """The gates and the new cell state from the tanh of :func:`lstm_tanh_arguments`."""
    dt = t.dtype.type
    half, one, clip = dt(0.5), dt(1), dt(cell_clip)
    n = cs_prev.shape[1]
    for r in range(t.shape[0]):
        for k in range(n):
            gi, gc = half * (t[r, k] + one), t[r, n + k]
            gf, go = half * (t[r, 2 * n + k] + one), half * (t[r, 3 * n + k] + one)
            c = cs_prev[r, k] * gf + gi * gc
            if clip > 0:
                c = min(max(c, -clip), clip)
            i[r, k], cs[r, k], f[r, k], o[r, k], ci[r, k] = gi, c, gf, go, gc


@loop
def lstm_cell_grad(cs_prev, wci, wcf, wco, peephole, i, cs, f, o, ci, co, cs_grad, h_grad, *outs):
    """TF's ``LSTMBlockCellGrad``, one pass: ``outs`` are ``cs_prev_grad``, ``dicfo`` (the
    gates' pre-activation gradients, i, ci, f, o) and the peepholes' gradients."""
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = outs
    one = cs.dtype.type(1)
    n = cs.shape[1]
    for r in range(cs.shape[0]):
        for k in range(n):
            gi, gf, go, gc, tc, c_prev = i[r, k], f[r, k], o[r, k], ci[r, k], co[r, k], cs_prev[r, k]
            dh = h_grad[r, k]
            do = dh * tc * go * (one - go)
            dcs = dh * go * (one - tc * tc) + cs_grad[r, k]
            if peephole:
                dcs += do * wco[k]
            di = dcs * gc * gi * (one - gi)
            dci = dcs * gi * (one - gc * gc)
            df = dcs * c_prev * gf * (one - gf)
            back = dcs * gf
            if peephole:
                back += di * wci[k] + df * wcf[k]
                wci_grad[k] += di * c_prev
                wcf_grad[k] += df * c_prev
                wco_grad[k] += do * cs[r, k]
            cs_prev_grad[r, k] = back
            dicfo[r, k], dicfo[r, n + k], dicfo[r, 2 * n + k], dicfo[r, 3 * n + k] = di, dci, df, do


@loop
def add_bias_scaled(a, b, scale):
    """In place, ``(a + b) * scale`` over rows (``b`` per column): a sigmoid's tanh argument
    with ``scale`` 0.5 (as :func:`lstm_tanh_arguments`), a tanh's with 1."""
    s = a.dtype.type(scale)
    for r in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[r, j] = (a[r, j] + b[j]) * s


@loop
def gru_gates(t, h_prev, r_out, u_out, rh):
    """TF's ``GRUBlockCell`` gates r, u from the tanh of their halved arguments, and
    ``r * h_prev`` into ``rh`` (the candidate's input beside x)."""
    dt = t.dtype.type
    half, one = dt(0.5), dt(1)
    n = h_prev.shape[1]
    for i in range(t.shape[0]):
        for k in range(n):
            r, u = half * (t[i, k] + one), half * (t[i, n + k] + one)
            r_out[i, k], u_out[i, k] = r, u
            rh[i, k] = r * h_prev[i, k]


@loop
def gru_output(u, h_prev, c, h):
    """``h = u * h_prev + (1 - u) * c``, the GRU's new state."""
    one = u.dtype.type(1)
    for i in range(u.shape[0]):
        for k in range(u.shape[1]):
            h[i, k] = u[i, k] * h_prev[i, k] + (one - u[i, k]) * c[i, k]


@loop
def gru_grad_gates(d_h, h_prev, u, c, d_c_bar, d_ru_bar):
    """The gradients of the candidate's and of u's pre-activations (into ``d_ru_bar``'s
    second half)."""
    one = u.dtype.type(1)
    n = u.shape[1]
    for i in range(u.shape[0]):
        for k in range(n):
            g, uk, ck = d_h[i, k], u[i, k], c[i, k]
            d_c_bar[i, k] = g * (one - uk) * (one - ck * ck)
            d_ru_bar[i, n + k] = g * (h_prev[i, k] - ck) * uk * (one - uk)


@loop
def gru_grad_reset(d_xhr, h_prev, r, d_ru_bar):
    """The gradient of r's pre-activation (into ``d_ru_bar``'s first half) from that of the
    candidate's input ``[x, r * h_prev]``."""
    one = r.dtype.type(1)
    depth, n = d_xhr.shape[1] - r.shape[1], r.shape[1]
    for i in range(r.shape[0]):
        for k in range(n):
            rk = r[i, k]
            d_ru_bar[i, k] = d_xhr[i, depth + k] * h_prev[i, k] * rk * (one - rk)


@loop
def gru_grad_inputs(d_xhr, d_xh, d_h, r, u, d_x, d_h_prev):
    """The gradients of x and h_prev from those of the two products' inputs."""
    depth, n = d_x.shape[1], r.shape[1]
    for i in range(r.shape[0]):
        for j in range(depth):
            d_x[i, j] = d_xhr[i, j] + d_xh[i, j]
        for k in range(n):
            d_h_prev[i, k] = d_xhr[i, depth + k] * r[i, k] + d_h[i, k] * u[i, k] + d_xh[i, depth + k]
