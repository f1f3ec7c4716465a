"""Lossy codecs for float tensors sent between workers (``ConfigProto``'s compression).

Which tensors are sent encoded is the plan's choice (:mod:`daskflow.runtime.plan.compression`);
this module only encodes and decodes them.

Each encoding turns one float array into one numeric array, so it travels
the same way as any other tensor, and the receiver tells the encodings apart
by the array's dtype alone:

* ``"fp16"`` — IEEE half precision, rounded to nearest. A tensor holding a
  value half precision cannot (beyond ±65504, or NaN/Inf) is sent as it is,
  so nothing becomes infinite on the way and a NaN still reaches
  ``check_numerics`` on the receiving side.
* ``"bf16"`` — the TensorFlow whitepaper's §5.5: the low 16 bits of each
  float32 are dropped (truncated, not rounded) and filled with zeros on
  arrival; float32's range, so only non-finite tensors go as they are.
* ``"int8"`` — per-bucket scaled quantization with error feedback: the
  tensor plus the sender's residual is cut into buckets of :data:`BUCKET`
  values, each sent as int8 steps of ``max|v| / 127``, and what that loses
  stays in the residual, to be sent with the next tensor. Over many steps
  the receiver's sum equals the sender's within one step's quantization.
  The payload is the int8 values, padded to a multiple of 4, followed by the
  buckets' float32 scales.

Any other dtype than the encoded one means the tensor came as it was.
"""

from __future__ import annotations

import numpy

from . import loops
from .compiled import plain

CODECS = ("fp16", "bf16", "int8")
HALF_MAX = 65504.0
# Values per int8 bucket, chosen by measurement (benchmarks/compression.py --buckets, on
# the MLP's gradients): 256 keeps the scales under 2% of the bytes (a 3.94x cut against
# 3.97x at 512) with a fifth less error than 512; below 256 the scales cost more, and
# above it the time no longer falls.
BUCKET = 256


def encode(codec: str, x, residual=None):
    """``x`` encoded by ``codec`` (or ``x`` itself where it cannot be); int8 updates
    ``residual`` (a flat float array of ``x.size``) in place."""
    if codec == "int8":
        return _encode_int8(x, residual)
    if codec == "fp16":
        return _encode_fp16(x)
    largest = _largest(x)
    if codec == "bf16" and x.dtype == numpy.float32 and largest <= numpy.finfo(numpy.float32).max:
        return (x.view(numpy.uint32) >> 16).astype(numpy.uint16)
    return x


def decode(payload, shape, dtype):
    """The tensor of ``shape`` and ``dtype`` that ``payload`` encodes."""
    kind = payload.dtype
    if kind == dtype:
        return payload
    if kind == numpy.float16:
        return _decode_fp16(payload, dtype)
    if kind == numpy.uint16:
        return (payload.astype(numpy.uint32) << 16).view(numpy.float32).astype(dtype, copy=False)
    if kind == numpy.int8:
        return _decode_int8(payload, shape, dtype)
    raise TypeError(f"cannot decode a {kind} payload as {dtype} {shape}")


def encoded_size(codec: str, size: int, itemsize: int = 4) -> int:
    """Bytes of ``size`` values encoded by ``codec`` (when they can be)."""
    if codec == "int8":
        return _aligned(size) + 4 * -(-size // BUCKET)
    return 2 * size if codec in ("fp16", "bf16") else itemsize * size


def _encode_fp16(x):
    compiled = loops.to_half.get() if x.dtype == numpy.float32 and plain(x) else None
    if compiled is None:
        return x.astype(numpy.float16) if _largest(x) <= HALF_MAX else x
    out = numpy.empty(x.shape, numpy.float16)
    return out if compiled(x.reshape(-1), out.view(numpy.uint16).reshape(-1)) else x


def _decode_fp16(payload, dtype):
    compiled = loops.from_half.get() if dtype == numpy.float32 and payload.flags.c_contiguous else None
    if compiled is None:
        return payload.astype(dtype)
    out = numpy.empty(payload.shape, numpy.float32)
    compiled(payload.view(numpy.uint16).reshape(-1), out.reshape(-1))
    return out


def _largest(x):
    """``max |x|``, NaN where ``x`` holds one; 0 for an empty array."""
    if not x.size:
        return 0.0
    return max(-float(numpy.min(x)), float(numpy.max(x)))


def _encode_int8(x, residual):
    flat = numpy.ascontiguousarray(x).reshape(-1)
    size, buckets = flat.size, -(-flat.size // BUCKET)
    out = numpy.empty(_aligned(size) + 4 * buckets, numpy.int8)
    scales = out[_aligned(size) :].view(numpy.float32)
    out[size : _aligned(size)] = 0
    compiled = loops.quantize.get() if plain(flat, residual) and flat.dtype in _BITS else None
    if compiled is not None:
        finite = compiled(flat, residual, BUCKET, out[:size], scales, *_scratch(flat.dtype))
    else:
        finite = _quantize_numpy(flat, residual, out[:size], scales)
    return out if finite else x


# float dtype -> (unsigned integers of its width, all bits but the sign, the bits of inf)
_BITS = {
    numpy.dtype(numpy.float32): (numpy.uint32, 0x7FFFFFFF, 0x7F800000),
    numpy.dtype(numpy.float64): (numpy.uint64, 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000),
}


def _scratch(dtype):
    """``loops.quantize``'s last arguments for ``dtype``: an empty array of the unsigned
    integers of its width, the mask of all bits but the sign, and the bits of inf."""
    uint, magnitude, infinite = _BITS[dtype]
    return numpy.empty(0, uint), uint(magnitude), uint(infinite)


def _aligned(size):
    """Where the scales start: after ``size`` int8 values, on a float32 boundary."""
    return -(-size // 4) * 4


def _quantize_numpy(flat, residual, q, scales):
    """``loops.quantize``'s arithmetic in numpy passes: False (nothing written to
    ``residual``) where ``flat + residual`` is not finite."""
    v = flat + residual
    if not numpy.isfinite(_largest(v)):
        return False
    padded = numpy.zeros(scales.size * BUCKET, flat.dtype)
    padded[: v.size] = v
    blocks = padded.reshape(scales.size, -1)
    step = (numpy.max(numpy.abs(blocks), axis=1) / flat.dtype.type(127)).astype(numpy.float32)
    scales[:] = step
    safe = numpy.where(step > 0, step, numpy.float32(1)).astype(flat.dtype)
    steps = numpy.rint(blocks / safe[:, None])
    q[:] = steps.reshape(-1)[: v.size]
    residual[:] = v - (steps * step[:, None].astype(flat.dtype)).reshape(-1)[: v.size]
    return True


def _decode_int8(payload, shape, dtype):
    size = int(numpy.prod(shape, dtype=numpy.int64))
    scales = payload[_aligned(size) :].view(numpy.float32).astype(dtype)
    out = numpy.empty(size, dtype)
    compiled = loops.dequantize.get() if dtype in (numpy.float32, numpy.float64) else None
    if compiled is not None:
        compiled(payload[:size], scales, BUCKET, out)
    else:
        whole = size - size % BUCKET  # the full buckets, then the last one
        numpy.multiply(
            payload[:whole].reshape(-1, BUCKET),
            scales[: whole // BUCKET, None],
            out=out[:whole].reshape(-1, BUCKET),
        )
        numpy.multiply(payload[whole:size], scales[-1], out=out[whole:])
    return out.reshape(shape)
