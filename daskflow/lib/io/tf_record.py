"""TFRecord files, byte for byte as TF writes them: ``tf.python_io.TFRecordWriter``,
``tf.python_io.tf_record_iterator``, ``TFRecordOptions``, ``TFRecordCompressionType``.

A TFRecord file is a sequence of records, each::

    uint64  length                  little-endian
    uint32  masked crc32c(length)   of the 8 bytes above
    bytes   data[length]
    uint32  masked crc32c(data)

optionally compressed as a whole (``GZIP``: one gzip stream; ``ZLIB``: one
zlib stream). :func:`records` reads a file's records with their offsets
(``tf.TFRecordReader``'s keys); a record whose CRC does not match raises
``DataLossError`` naming the file and the offset. Files are opened through
``tf.gfile`` (local paths or fsspec URLs).

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
>>> with TFRecordWriter(path) as writer:
...     writer.write(b"first")
...     writer.write(b"second")
>>> list(tf_record_iterator(path))
[b'first', b'second']
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib

from ...errors import DataLossError
from ...platform import gfile
from .crc32c import masked

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_BLOCK = 1 << 20  # bytes read at a time


class TFRecordCompressionType:
    """How a TFRecord file is compressed as a whole."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {"": 0, "ZLIB": 1, "GZIP": 2}


class TFRecordOptions:
    """Options of a TFRecord file: its ``compression_type`` (``"GZIP"``, ``"ZLIB"``,
    ``""`` / None, or a :class:`TFRecordCompressionType`) and, for writing,
    ``compression_level``; TF1's buffer and zlib tuning fields are accepted."""

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP"}

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        self.compression_type = _compression(compression_type)
        self.compression_level = compression_level
        self.flush_mode, self.window_bits, self.mem_level = flush_mode, window_bits, mem_level
        self.input_buffer_size, self.output_buffer_size = input_buffer_size, output_buffer_size
        self.compression_method, self.compression_strategy = compression_method, compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``"GZIP"``, ``"ZLIB"`` or ``""`` for ``options`` (options, a type, a string or None)."""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return _compression(options)


def _compression(value):
    if value is None:
        return ""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, int) and value in TFRecordOptions.compression_type_map:
        return TFRecordOptions.compression_type_map[value]
    if isinstance(value, str) and value.upper() in _NAMES:
        return value.upper()
    raise ValueError(f'Unsupported compression type {value!r}: use "GZIP", "ZLIB" or ""')


def encode(record: bytes) -> bytes:
    """One record framed as a TFRecord file holds it."""
    length = _LENGTH.pack(len(record))
    return length + _CRC.pack(masked(length)) + record + _CRC.pack(masked(record))


class TFRecordWriter:
    """Writes records to a TFRecord file (TF1's ``tf.python_io.TFRecordWriter``).

    Parameters
    ----------
    path : str
        A local path or an fsspec URL; the file is created (replaced).
    options : TFRecordOptions, str or None
        Compression.
    """

    def __init__(self, path, options=None):
        kind = _compression(options)
        level = getattr(options, "compression_level", None)
        level = 6 if level is None or level < 0 else level
        self._raw = gfile.GFile(path, "wb")
        if kind == "GZIP":
            self._out = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=level, mtime=0)
        elif kind == "ZLIB":
            self._out = _ZlibWriter(self._raw, level)
        else:
            self._out = self._raw

    def write(self, record):
        """Append one record (bytes, or str as UTF-8)."""
        if isinstance(record, str):
            record = record.encode()
        self._out.write(encode(bytes(record)))

    def flush(self):
        self._out.flush()

    def close(self):
        """Finish the file (a compressed one's stream ends here)."""
        if self._out is not self._raw:
            self._out.close()
        self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _ZlibWriter:
    def __init__(self, raw, level):
        self._raw, self._z = raw, zlib.compressobj(level)

    def write(self, data):
        self._raw.write(self._z.compress(data))

    def flush(self):
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))

    def close(self):
        self._raw.write(self._z.flush())


def records(path, options=None):
    """``(offset, record)`` for each record of the file at ``path``, in order.

    The offset is where the record's frame starts in the (uncompressed) stream.

    Raises
    ------
    DataLossError
        If a frame is cut short or a CRC does not match.
    """
    with gfile.GFile(path, "rb") as raw:
        stream = _decompressed(raw, _compression(options))
        buffer, pos, offset = b"", 0, 0
        while True:
            if len(buffer) - pos < 12:  # frames are cut from blocks read whole: few calls per record
                buffer, pos = buffer[pos:] + stream.read(_BLOCK), 0
                if not buffer:
                    return
                if len(buffer) < 12:
                    raise _loss(path, offset, "truncated record")
            (length,), (crc,) = _LENGTH.unpack_from(buffer, pos), _CRC.unpack_from(buffer, pos + 8)
            if masked(buffer[pos : pos + 8]) != crc:
                raise _loss(path, offset, "corrupted record")
            end = pos + 16 + length
            if end > len(buffer):
                buffer = buffer[pos:] + stream.read(max(_BLOCK, end - len(buffer)))
                end, pos = end - pos, 0
                if end > len(buffer):
                    raise _loss(path, offset, "truncated record")
            data = buffer[pos + 12 : end - 4]
            if masked(data) != _CRC.unpack_from(buffer, end - 4)[0]:
                raise _loss(path, offset, "corrupted record")
            yield offset, data
            offset += 16 + length
            pos = end


def _decompressed(raw, kind):
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "ZLIB":
        return io.BytesIO(zlib.decompress(raw.read()))
    return raw


def _loss(path, offset, what):
    return DataLossError(None, None, f"{what} at {offset} in {path}")


def tf_record_iterator(path, options=None):
    """The records of a TFRecord file, as bytes (TF1's ``tf.python_io.tf_record_iterator``).

    Raises
    ------
    DataLossError
        If the file is corrupted (naming the offset).
    """
    for _, record in records(path, options):
        yield record
