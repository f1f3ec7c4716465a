"""TF's fused recurrent cells: ``LSTMBlockCell``, ``GRUBlockCell`` and their gradients.

One op per step of a cell: one matrix product for the gates (two for a GRU),
then the gates' arithmetic in one pass (a compiled loop for numpy's float
arrays, numpy's operations elsewhere); the gradient ops do the same backwards
(TF's ``LSTMBlockCellGrad`` and ``GRUBlockCellGrad``), and the products for
the weights' gradients are graph ops, as TF's Python gradients build them.
Inside ``dynamic_rnn``'s loop a step is then a few kernel calls, where the
cell written out is about fifteen.

``BasicLSTMCell``, ``LSTMCell`` (no ``cell_clip``, no ``num_proj``) and ``GRUCell`` build these
ops when their activation is ``tanh``: the arithmetic is theirs (gates in the
kernel's order i, j, f, o; ``sigmoid(x) = (tanh(x / 2) + 1) / 2`` as daskflow's
``Sigmoid``), so values agree with the cells written out to rounding.
"""

from __future__ import annotations

import numpy

from ..framework.apply import apply
from ..framework.primitive import Primitive
from ..framework.tensor_shape import merge
from ..kernels import loops
from ..kernels.compiled import plain
from . import array_ops, math_ops
from .math_ops import _sigmoid_kernel  # sigmoid(x) = (tanh(x / 2) + 1) / 2, as Sigmoid's


def _rows(*tensors):
    """The batch dimension the tensors agree on (None where unknown)."""
    batch = None
    for t in tensors:
        if t._dims is not None:
            batch = merge((batch,), (t._dims[0],))[0]
    return batch


# -- LSTM ---------------------------------------------------------------------------------------


def _lstm_infer(inputs, *, forget_bias, cell_clip, use_peephole):
    x, cs_prev, h_prev, w, *_ = inputs
    dtypes_seen = {t.dtype for t in inputs}
    if len(dtypes_seen) != 1:
        raise TypeError(f"LSTMBlockCell's inputs differ in dtype: {sorted(d.name for d in dtypes_seen)}")
    units = w._dims[1] // 4 if w._dims is not None and w._dims[1] is not None else None
    return [((_rows(x, cs_prev, h_prev), units), x.dtype)] * 7


def _lstm_kernel(xp, x, cs_prev, h_prev, w, wci, wcf, wco, b, *, forget_bias, cell_clip, use_peephole):
    icfo = xp.concatenate([x, h_prev], axis=1) @ w
    if not use_peephole and plain(icfo, cs_prev, b, contiguous=False) and loops.lstm_gates.get():
        return _lstm_compiled(icfo, cs_prev, b, forget_bias, cell_clip)
    n = cs_prev.shape[1]
    icfo = icfo + b
    xi, xc, xf, xo = (icfo[:, k * n : (k + 1) * n] for k in range(4))
    xf = xf + forget_bias
    if use_peephole:
        xi, xf = xi + cs_prev * wci, xf + cs_prev * wcf
    i, ci, f = _sigmoid_kernel(xp, xi), xp.tanh(xc), _sigmoid_kernel(xp, xf)
    cs = cs_prev * f + i * ci
    if cell_clip > 0:
        cs = xp.clip(cs, -cell_clip, cell_clip)
    o = _sigmoid_kernel(xp, xo + cs * wco if use_peephole else xo)
    co = xp.tanh(cs)
    return i, cs, f, o, ci, co, co * o


def _lstm_compiled(icfo, cs_prev, b, forget_bias, cell_clip):
    """Two compiled passes around numpy's vectorized tanh (numba's is one value at a time)."""
    loops.lstm_tanh_arguments.get()(icfo, b, forget_bias)
    numpy.tanh(icfo, out=icfo)
    i, cs, f, o, ci = (numpy.empty_like(cs_prev, order="C") for _ in range(5))
    loops.lstm_gates.get()(icfo, cs_prev, cell_clip, i, cs, f, o, ci)
    co = numpy.tanh(cs)
    return i, cs, f, o, ci, co, co * o


def _lstm_grad(op, *grads):
    x, cs_prev, h_prev, w, wci, wcf, wco, b = op.inputs
    i, cs, f, o, ci, co, h = op.outputs
    cs_grad = grads[1] if grads[1] is not None else array_ops.zeros_like(cs)
    h_grad = grads[6] if grads[6] is not None else array_ops.zeros_like(h)
    peephole = op.attrs["use_peephole"]
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = apply(
        LSTMBlockCellGrad, x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad, h_grad,
        use_peephole=peephole,
    )  # fmt: skip
    x_grad, h_prev_grad, w_grad, b_grad = _weights_grad(x, h_prev, w, dicfo)
    peepholes = [wci_grad, wcf_grad, wco_grad] if peephole else [None] * 3
    return [x_grad, cs_prev_grad, h_prev_grad, w_grad, *peepholes, b_grad]


def _weights_grad(x, h, w, d_gates):
    """The gradients of ``[x, h] @ w + b`` given its output's: (x's, h's, w's, b's)."""
    depth = x._dims[1]
    xh_grad = math_ops.matmul(d_gates, w, transpose_b=True)
    x_grad = array_ops.slice(xh_grad, [0, 0], [-1, depth])
    h_grad = array_ops.slice(xh_grad, [0, depth], [-1, -1])
    return (x_grad, h_grad, *_kernel_grads(x, h, d_gates))


def _kernel_grads(x, h, d_gates):
    """The gradients of the kernel and the bias of ``[x, h] @ kernel + bias`` (TF's: a
    product with the concatenated input, and the bias add's sum over the batch)."""
    w_grad = math_ops.matmul(array_ops.concat([x, h], 1), d_gates, transpose_a=True)
    return w_grad, math_ops.reduce_sum(d_gates, 0)


def _lstm_grad_infer(inputs, *, use_peephole):
    x, cs_prev, _, w, wci, *_ = inputs
    rows, units = _rows(x, cs_prev), cs_prev._dims[1] if cs_prev._dims is not None else None
    dtype = x.dtype
    return [((rows, units), dtype), ((rows, None if units is None else 4 * units), dtype)] + [
        (wci._dims, dtype)
    ] * 3


def _lstm_grad_kernel(xp, x, cs_prev, h_prev, w, wci, wcf, wco, b, *gates_and_grads, use_peephole):
    i, cs, f, o, ci, co, cs_grad, h_grad = gates_and_grads
    saved = (cs_prev, wci, wcf, wco, i, cs, f, o, ci, co, cs_grad, h_grad)
    compiled = loops.lstm_cell_grad.get() if plain(*saved, contiguous=False) else None
    if compiled is not None:
        n = cs.shape[1]
        outs = (numpy.empty_like(cs, order="C"), numpy.empty((cs.shape[0], 4 * n), cs.dtype))
        outs += tuple(numpy.zeros_like(wci) for _ in range(3))
        compiled(cs_prev, wci, wcf, wco, use_peephole, i, cs, f, o, ci, co, cs_grad, h_grad, *outs)
        return outs
    do = h_grad * co * o * (1 - o)
    dcs = h_grad * o * (1 - co * co) + cs_grad
    if use_peephole:
        dcs = dcs + do * wco
    di, dci, df = dcs * ci * i * (1 - i), dcs * i * (1 - ci * ci), dcs * cs_prev * f * (1 - f)
    back = dcs * f
    if use_peephole:
        back = back + di * wci + df * wcf
        peepholes = ((di * cs_prev).sum(0), (df * cs_prev).sum(0), (do * cs).sum(0))
    else:
        peepholes = (xp.zeros_like(wci),) * 3
    return (back, xp.concatenate([di, dci, df, do], axis=1), *peepholes)


LSTMBlockCell = Primitive("LSTMBlockCell", _lstm_infer, _lstm_kernel, _lstm_grad, fresh_output=True)
LSTMBlockCellGrad = Primitive("LSTMBlockCellGrad", _lstm_grad_infer, _lstm_grad_kernel, fresh_output=True)


def lstm_block_cell(
    x, cs_prev, h_prev, w, b, wci=None, wcf=None, wco=None, forget_bias=1.0, cell_clip=-1.0, name=None
):
    """One step of an LSTM as one op (TF's ``LSTMBlockCell``); returns
    ``(i, cs, f, o, ci, co, h)``: the gates, the new cell state ``cs`` and output ``h``.

    ``w`` is ``[depth + units, 4 * units]`` with gates i, ci, f, o; ``wci``, ``wcf``,
    ``wco`` the peepholes (none if omitted); ``cell_clip`` > 0 clips ``cs``.
    """
    use_peephole = wci is not None
    if not use_peephole:
        units = w.shape[1] // 4 if w.shape[1] is not None else None
        wci = wcf = wco = array_ops.zeros([units], dtype=x.dtype)
    return apply(
        LSTMBlockCell, x, cs_prev, h_prev, w, wci, wcf, wco, b,
        forget_bias=float(forget_bias), cell_clip=float(cell_clip), use_peephole=use_peephole, name=name,
    )  # fmt: skip


# -- GRU ----------------------------------------------------------------------------------------


def _gru_infer(inputs):
    x, h_prev, *_ = inputs
    spec = ((_rows(x, h_prev), h_prev._dims[1] if h_prev._dims is not None else None), x.dtype)
    return [spec] * 4


def _gru_kernel(xp, x, h_prev, w_ru, w_c, b_ru, b_c):
    if plain(x, h_prev, w_ru, w_c, b_ru, b_c, contiguous=False) and loops.gru_gates.get():
        return _gru_compiled(x, h_prev, w_ru, w_c, b_ru, b_c)
    n = h_prev.shape[1]
    ru = _sigmoid_kernel(xp, xp.concatenate([x, h_prev], axis=1) @ w_ru + b_ru)
    r, u = ru[:, :n], ru[:, n:]
    c = xp.tanh(xp.concatenate([x, r * h_prev], axis=1) @ w_c + b_c)
    return r, u, c, u * h_prev + (1 - u) * c


def _gru_compiled(x, h_prev, w_ru, w_c, b_ru, b_c):
    depth, n = x.shape[1], h_prev.shape[1]
    ru = numpy.concatenate([x, h_prev], axis=1) @ w_ru
    loops.add_bias_scaled.get()(ru, b_ru, 0.5)
    numpy.tanh(ru, out=ru)
    r, u = numpy.empty_like(h_prev, order="C"), numpy.empty_like(h_prev, order="C")
    xhr = numpy.empty((x.shape[0], depth + n), x.dtype)
    xhr[:, :depth] = x
    loops.gru_gates.get()(ru, h_prev, r, u, xhr[:, depth:])
    c = xhr @ w_c
    loops.add_bias_scaled.get()(c, b_c, 1.0)
    numpy.tanh(c, out=c)
    h = numpy.empty_like(c)
    loops.gru_output.get()(u, h_prev, c, h)
    return r, u, c, h


def _gru_grad(op, *grads):
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, h = op.outputs
    d_h = grads[3] if grads[3] is not None else array_ops.zeros_like(h)
    d_x, d_h_prev, d_c_bar, d_ru_bar = apply(GRUBlockCellGrad, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)
    w_ru_grad, b_ru_grad = _kernel_grads(x, h_prev, d_ru_bar)
    w_c_grad, b_c_grad = _kernel_grads(x, h_prev * r, d_c_bar)
    return [d_x, d_h_prev, w_ru_grad, w_c_grad, b_ru_grad, b_c_grad]


def _gru_grad_infer(inputs):
    x, h_prev, w_ru, *_ = inputs
    rows = _rows(x, h_prev)
    units = h_prev._dims[1] if h_prev._dims is not None else None
    return [
        ((rows, x._dims[1] if x._dims is not None else None), x.dtype),
        ((rows, units), x.dtype),
        ((rows, units), x.dtype),
        ((rows, None if units is None else 2 * units), x.dtype),
    ]


def _gru_grad_kernel(xp, x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h):
    if plain(x, h_prev, w_ru, w_c, r, u, c, d_h, contiguous=False) and loops.gru_grad_gates.get():
        return _gru_grad_compiled(x, h_prev, w_ru, w_c, r, u, c, d_h)
    depth = x.shape[1]
    d_c_bar = d_h * (1 - u) * (1 - c * c)
    d_u_bar = d_h * (h_prev - c) * u * (1 - u)
    d_xhr = d_c_bar @ w_c.T
    d_hr = d_xhr[:, depth:]
    d_r_bar = d_hr * h_prev * r * (1 - r)
    d_ru_bar = xp.concatenate([d_r_bar, d_u_bar], axis=1)
    d_xh = d_ru_bar @ w_ru.T
    d_x = d_xhr[:, :depth] + d_xh[:, :depth]
    d_h_prev = d_hr * r + d_h * u + d_xh[:, depth:]
    return d_x, d_h_prev, d_c_bar, d_ru_bar


def _gru_grad_compiled(x, h_prev, w_ru, w_c, r, u, c, d_h):
    n = h_prev.shape[1]
    d_c_bar, d_ru_bar = numpy.empty_like(c, order="C"), numpy.empty((c.shape[0], 2 * n), c.dtype)
    loops.gru_grad_gates.get()(d_h, h_prev, u, c, d_c_bar, d_ru_bar)
    d_xhr = d_c_bar @ w_c.T
    loops.gru_grad_reset.get()(d_xhr, h_prev, r, d_ru_bar)
    d_xh = d_ru_bar @ w_ru.T
    d_x, d_h_prev = numpy.empty_like(x, order="C"), numpy.empty_like(h_prev, order="C")
    loops.gru_grad_inputs.get()(d_xhr, d_xh, d_h, r, u, d_x, d_h_prev)
    return d_x, d_h_prev, d_c_bar, d_ru_bar


GRUBlockCell = Primitive("GRUBlockCell", _gru_infer, _gru_kernel, _gru_grad, fresh_output=True)
GRUBlockCellGrad = Primitive("GRUBlockCellGrad", _gru_grad_infer, _gru_grad_kernel, fresh_output=True)


def gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, name=None):
    """One step of a GRU as one op (TF's ``GRUBlockCell``); returns ``(r, u, c, h)``."""
    return apply(GRUBlockCell, x, h_prev, w_ru, w_c, b_ru, b_c, name=name)
