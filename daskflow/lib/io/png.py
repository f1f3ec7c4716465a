"""PNG files in and out, with zlib and numpy: what ``tf.image.decode_png`` and
``tf.image.encode_png`` run.

:func:`decode` reads every non-interlaced PNG: grey, grey + alpha, RGB,
RGBA and palette images, 1 to 16 bits per sample, each row's filter (None,
Sub, Up, Average, Paeth) undone. It returns ``[height, width, channels]``
uint8 or uint16 as the file holds them (low bit depths scaled to 8 bits, as
libpng's ``png_set_expand`` does). :func:`encode` writes 8- or 16-bit grey,
grey + alpha, RGB or RGBA with no row filter. Interlaced (Adam7) files are
refused with ``ValueError``.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel
_COLOUR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> colour type


def decode(data: bytes) -> np.ndarray:
    """The pixels of a PNG file, ``[height, width, channels]`` (palette images as RGB(A)).

    Raises
    ------
    ValueError
        If ``data`` is not a PNG this module reads, saying why.
    """
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file (no PNG signature)")
    header, palette, alpha, idat = _chunks(data)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if colour not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise ValueError(f"PNG colour type {colour} with bit depth {depth} is not valid")
    if interlace:
        raise ValueError("interlaced (Adam7) PNG files are not supported")
    samples = _CHANNELS[colour]
    bits = samples * depth
    stride = (width * bits + 7) // 8
    raw = zlib.decompress(b"".join(idat))
    if len(raw) < height * (stride + 1):
        raise ValueError("PNG image data is truncated")
    rows = _unfiltered(raw, height, stride, max(bits // 8, 1))
    pixels = _samples(rows, width, samples, depth)
    if colour == 3:
        return _from_palette(pixels[..., 0], palette, alpha)
    if depth < 8:  # scaled to 8 bits
        pixels = (pixels.astype(np.uint16) * (255 // (2**depth - 1))).astype(np.uint8)
    return pixels


def _chunks(data):
    at, idat, header, palette, alpha = len(SIGNATURE), [], None, None, None
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        if len(body) < length:
            raise ValueError(f"PNG chunk {kind!r} is truncated")
        if kind == b"IHDR":
            header = body
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            alpha = np.frombuffer(body, np.uint8)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        at += 12 + length
    if header is None or not idat:
        raise ValueError("PNG file has no IHDR or no IDAT chunk")
    return header, palette, alpha, idat


def _unfiltered(raw, height, stride, bpp):
    """Each row's filter undone: ``[height, stride]`` uint8."""
    out = np.zeros((height, stride), np.uint8)
    previous = np.zeros(stride, np.int32)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = np.frombuffer(raw, np.uint8, stride, start + 1).astype(np.int32)
        if kind == 1:  # Sub: a running sum over each byte of a pixel
            row = (
                (np.cumsum(row.reshape(-1, bpp), axis=0, dtype=np.int64) & 0xFF).reshape(-1).astype(np.int32)
            )
        elif kind == 2:
            row = (row + previous) & 0xFF
        elif kind == 3:
            row = _running(row, previous, bpp, paeth=False)
        elif kind == 4:
            row = _running(row, previous, bpp, paeth=True)
        elif kind != 0:
            raise ValueError(f"PNG row {y} has an unknown filter type {kind}")
        out[y] = row
        previous = row
    return out


def _running(row, up, bpp, paeth):
    """Average or Paeth: the prediction reads bytes already decoded in the row."""
    out, up = row.tolist(), up.tolist()
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        if paeth:
            guess = _paeth(left, up[i], up[i - bpp] if i >= bpp else 0)
        else:
            guess = (left + up[i]) >> 1
        out[i] = (out[i] + guess) & 0xFF
    return np.asarray(out, np.int32)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _samples(rows, width, samples, depth):
    height = rows.shape[0]
    if depth == 16:
        values = rows.view(">u2").astype(np.uint16)
    elif depth == 8:
        values = rows
    else:
        bits = np.unpackbits(rows, axis=1).reshape(height, -1, depth)
        weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
        values = (bits * weights).sum(axis=2).astype(np.uint8)
    return values[:, : width * samples].reshape(height, width, samples)


def _from_palette(indices, palette, alpha):
    if palette is None:
        raise ValueError("palette PNG file has no PLTE chunk")
    rgb = palette[np.minimum(indices, len(palette) - 1)]
    if alpha is None:
        return rgb
    full = np.full(len(palette), 255, np.uint8)
    full[: len(alpha)] = alpha[: len(palette)]
    return np.concatenate([rgb, full[indices][..., None]], axis=-1)


def encode(image: np.ndarray, compression: int = -1) -> bytes:
    """A PNG file of ``image`` (``[height, width, channels]``, 1 to 4 channels, uint8 or uint16).

    ``compression``: zlib's level, 0-9; -1 its default.
    """
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = image.astype(">u2" if depth == 16 else np.uint8).reshape(height, -1).view(np.uint8)
    filtered = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1)  # filter None
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOUR_TYPE[channels], 0, 0, 0)
    data = zlib.compress(filtered.tobytes(), compression)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def _chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
