"""Compiled loops (see :mod:`.compiled`) that read dense features straight from serialized
``tf.train.Example`` protos: the wire format walked in place, no message objects made.

``scan_examples`` finds, in each record, the list of each wanted feature (where its
packed values start, how many bytes they take, which kind of list it is); the gathers
copy float32 values and decode int64 varints into the batch's arrays. Anything the scan
does not read plainly (a record that does not parse, a list not in packed form) is
reported, and the caller parses that batch with protobuf instead, which also words its
errors.
"""

from __future__ import annotations

import numpy as np

from .compiled import jitable, loop

BYTES, FLOATS, INT64S, ODD = 1, 2, 3, -1


@jitable
def varint(buf, p):
    """(value, next position) of the varint at ``buf[p]``; the position is -1 for a varint
    longer than protobuf's ten bytes. (The buffer ends in zeros, so no read runs off it.)"""
    value = 0
    for shift in range(0, 70, 7):
        b = buf[p]
        p += 1
        value |= np.int64(b & 0x7F) << shift
        if b < 0x80:
            return value, p
    return value, -1


@loop
def scan_examples(buf, starts, ends, keys, key_starts, key_ends, where, nbytes, kind):
    """Fill ``where[r, k]``, ``nbytes[r, k]`` and ``kind[r, k]`` (0: absent) for record
    ``r`` (``buf[starts[r]:ends[r]]``) and key ``k`` (``keys[key_starts[k]:key_ends[k]]``);
    return the first record that does not parse, or -1."""
    for r in range(starts.size):
        p, end = starts[r], ends[r]
        while p < end:
            # a field of Example: its tag and, for ``features`` (1, length-delimited), its length
            tag, p = varint(buf, p)
            if p < 0 or p >= end or tag >> 3 == 0:
                return r
            wire = tag & 7
            if wire == 0:
                _, p = varint(buf, p)
            elif wire == 1 or wire == 5:
                p += 8 if wire == 1 else 4
            if wire in (0, 1, 5):
                if p < 0 or p > end:
                    return r
                continue
            if wire != 2:
                return r
            length, p = varint(buf, p)
            if p < 0 or length < 0 or length > end - p:
                return r
            stop = p + length
            if tag >> 3 != 1:
                p = stop
                continue
            # Features: map entries (field 1), each a key (1) and a Feature (2)
            while p < stop:
                if buf[p] != 0x0A:
                    return r
                p += 1
                entry, p = varint(buf, p)
                if p < 0 or entry < 0 or entry > stop - p:
                    return r
                entry_end = p + entry
                key_at, key_len, value_at, value_len = -1, 0, -1, 0
                while p < entry_end:
                    field = buf[p]
                    p += 1
                    size, p = varint(buf, p)
                    if p < 0 or size < 0 or size > entry_end - p:
                        return r
                    if field == 0x0A:
                        key_at, key_len = p, size
                    elif field == 0x12:
                        value_at, value_len = p, size
                    else:
                        return r
                    p += size
                if p != entry_end or key_at < 0:
                    return r
                for k in range(key_starts.size):
                    n = key_ends[k] - key_starts[k]
                    if n != key_len:
                        continue
                    same = True
                    for i in range(n):
                        if buf[key_at + i] != keys[key_starts[k] + i]:
                            same = False
                            break
                    if not same:
                        continue
                    where[r, k], nbytes[r, k], kind[r, k] = 0, 0, 0
                    if value_at < 0 or value_len == 0:
                        kind[r, k] = ODD  # an empty Feature: protobuf's path decides
                        break
                    q = value_at
                    list_field = buf[q]
                    q += 1
                    list_len, q = varint(buf, q)
                    if (list_field != 0x0A and list_field != 0x12 and list_field != 0x1A) or (
                        q < 0 or q + list_len != value_at + value_len
                    ):
                        kind[r, k] = ODD
                        break
                    list_kind = list_field >> 3
                    if list_len == 0:
                        kind[r, k] = list_kind
                        where[r, k] = q
                        break
                    # the list's values: one packed field (1, length-delimited), as TF writes them
                    if buf[q] != 0x0A or list_kind == BYTES:
                        kind[r, k] = ODD
                        break
                    q += 1
                    packed, q = varint(buf, q)
                    if q < 0 or q + packed != value_at + value_len:
                        kind[r, k] = ODD
                        break
                    where[r, k], nbytes[r, k], kind[r, k] = q, packed, list_kind
                    break
            p = stop
    return -1


@loop
def gather_floats(buf, where, rows, out):
    """Copy the float32 bytes at ``where[i]`` (``out.shape[1]`` bytes each) into ``out[rows[i]]``
    (``out`` a uint8 view of the batch's float32 array, one row per example)."""
    width = out.shape[1]
    for i in range(rows.size):
        out[rows[i], :] = buf[where[i] : where[i] + width]


@loop
def gather_int64s(buf, where, nbytes, rows, out):
    """Decode the packed varints at ``where[i]`` (``nbytes[i]`` bytes) into ``out[rows[i]]``;
    return the first ``i`` whose varints do not fit its bytes or whose count is not
    ``out.shape[1]``, or -1."""
    width = out.shape[1]
    for i in range(rows.size):
        p, stop, row, j = where[i], where[i] + nbytes[i], rows[i], 0
        while p < stop:
            value, p = varint(buf, p)
            if p < 0 or p > stop or j >= width:
                return i
            out[row, j] = value
            j += 1
        if j != width:
            return i
    return -1
