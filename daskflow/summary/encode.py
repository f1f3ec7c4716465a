"""What summary kernels compute, as plain numpy: TF1's histogram buckets,
image normalisation, PNG and WAV encoding.

Nothing here touches protos, so it is cheap to import and easy to test; the
kernels in :mod:`daskflow.summary.summary_ops` put the results into protos.
"""

from __future__ import annotations

import functools
import struct
import sys
import zlib

import numpy as np

DBL_MAX = sys.float_info.max
BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)  # TF1's colour for non-finite pixels
_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> grey, grey+alpha, RGB, RGBA


@functools.cache
def bucket_limits() -> np.ndarray:
    """TF1's default histogram bucket edges: ±1e-12 growing by 10% to ±1e20, 0, ±DBL_MAX.

    Built by repeated multiplication exactly as TF1's C++ does, so the edges
    are the same doubles.
    """
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(DBL_MAX)
    negative = [-p for p in reversed(positive)]
    return np.array([*negative, 0.0, *positive])


def histogram(values) -> dict:
    """The fields of TF1's ``HistogramProto`` for ``values`` (finite numbers).

    Runs of empty buckets are collapsed into one, as TF1 writes them.
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    limits = bucket_limits()
    counts = np.bincount(np.searchsorted(limits, v, side="right"), minlength=len(limits))
    fields = dict(min=DBL_MAX, max=-DBL_MAX, num=float(v.size), sum=0.0, sum_squares=0.0)
    if v.size:
        # TF1 adds one value at a time; a cumulative sum keeps that order (np.sum would not).
        fields.update(min=float(v.min()), max=float(v.max()))
        fields.update(sum=float(np.cumsum(v)[-1]), sum_squares=float(np.cumsum(v * v)[-1]))
    fields["bucket_limit"], fields["bucket"] = _collapse_empty_runs(limits, counts[: len(limits)])
    return fields


def _collapse_empty_runs(limits, counts):
    kept_limits, kept_counts = [], []
    i, n = 0, len(limits)
    while i < n:
        end, count = limits[i], counts[i]
        i += 1
        if count <= 0:
            while i < n and counts[i] <= 0:
                end, count = limits[i], counts[i]
                i += 1
        kept_limits.append(float(end))
        kept_counts.append(float(count))
    return kept_limits, kept_counts


def to_uint8_image(image) -> np.ndarray:
    """One ``[height, width, channels]`` image as uint8, by TF1's rule.

    uint8 passes through. Floats are scaled so the largest value is 255 when
    none is negative, else centred on 128 and scaled by the largest magnitude
    (127); non-finite pixels become :data:`BAD_COLOR`. Arithmetic is in the
    image's own dtype, as TF1's kernel does it.
    """
    image = np.asarray(image)
    if image.dtype == np.uint8:
        return image
    dtype = image.dtype.type
    finite = np.isfinite(image).all(axis=-1)
    seen = image[finite].astype(np.float32)
    low = seen.min() if seen.size else np.float32(np.inf)
    high = seen.max() if seen.size else np.float32(-np.inf)
    if low < 0:
        largest = max(abs(low), abs(high))
        scale, offset = (0.0 if largest < 1e-6 else np.float32(127.0) / largest), 128.0
    else:
        scale, offset = (0.0 if high < 1e-6 else np.float32(255.0) / high), 0.0
    with np.errstate(invalid="ignore"):  # the non-finite pixels, replaced just below
        out = (image * dtype(scale) + dtype(offset)).astype(np.uint8)
    out[~finite] = BAD_COLOR[: image.shape[-1]]
    return out


def png(image) -> bytes:
    """A uint8 ``[height, width, channels]`` image (1 to 4 channels) as PNG bytes."""
    height, width, channels = image.shape
    rows = np.ascontiguousarray(image, dtype=np.uint8).reshape(height, width * channels)
    # Each scanline starts with its filter type; 0 (none) keeps the encoder short.
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPE[channels], 0, 0, 0)
    chunks = [_png_chunk(b"IHDR", header), _png_chunk(b"IDAT", zlib.compress(raw)), _png_chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def wav(frames, sample_rate: int) -> bytes:
    """Float samples ``[frames, channels]`` in [-1, 1] as a 16-bit PCM WAV file.

    Samples are scaled by 32768, rounded half away from zero and clipped, as
    TF1's encoder does.
    """
    frames = np.asarray(frames, dtype=np.float32)
    n_frames, channels = frames.shape
    scaled = frames * np.float32(32768.0)
    rounded = np.rint(scaled)  # half to even; TF1's roundf takes halves away from zero:
    halves = np.abs(scaled - np.trunc(scaled)) == 0.5
    rounded[halves] = np.trunc(scaled[halves]) + np.sign(scaled[halves])
    data = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    block = 2 * channels
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * block, block, 16)
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    body = b"WAVE" + chunks
    return b"RIFF" + struct.pack("<I", len(body)) + body
