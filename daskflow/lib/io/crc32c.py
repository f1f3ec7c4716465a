"""CRC-32C (Castagnoli), as TFRecord files and TF checkpoints check their bytes with it.

google-crc32c computes it (Google's C library; hundreds of MB/s, where this
module's table-driven Python did 10 MB/s). ``masked`` is TF's
``crc32c::Mask``: stored CRCs are rotated and offset so that a CRC of data
holding CRCs is not degenerate.
"""

from __future__ import annotations

import google_crc32c

_MASK_DELTA = 0xA282EAD8


def crc32c(data: bytes) -> int:
    """The CRC-32C of ``data``.

    Examples
    --------
    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    return google_crc32c.value(bytes(data))


def masked(data: bytes) -> int:
    """TF's masked CRC-32C of ``data``, as a TFRecord stores it."""
    return mask(crc32c(data))


def mask(crc: int) -> int:
    """TF's ``crc32c::Mask`` of a CRC-32C."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def extend(crc: int, data: bytes) -> int:
    """The CRC-32C of bytes whose CRC-32C is ``crc`` followed by ``data``."""
    return google_crc32c.extend(crc, data)
