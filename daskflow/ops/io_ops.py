"""TF1's readers: ``tf.TextLineReader``, ``tf.TFRecordReader``, ``tf.FixedLengthRecordReader``,
``tf.WholeFileReader``, ``tf.IdentityReader`` and their base ``tf.ReaderBase``.

A reader turns *work units* (file names) dequeued from a queue (typically a
``string_input_producer``) into records. As a queue is, a reader is a stateful
op whose output is a handle (``reader.reader_ref``): each session gives it a
:class:`ReaderState` (its current file, its position, its counts), and
``ReaderReadV2`` / ``ReaderReadUpToV2`` take the reader's and the queue's
handles. A read finishes the current file or, when it has none, dequeues the
next file name (waiting for one); when the queue is closed and empty it raises
``OutOfRangeError``. Keys are TF1's: ``"<file>:<line>"`` (lines counted from
1, header included), ``"<file>:<offset>"`` for TFRecords,
``"<file>:<record index>"`` for fixed-length records, the file name for whole
files, and the work unit itself for ``IdentityReader``.

Files are read through ``tf.gfile`` (local paths or fsspec URLs), whole, when
a reader starts on them. Not provided: ``serialize_state`` /
``restore_state`` (their ops raise ``UnimplementedError`` when run).

Examples
--------
>>> import os, tempfile
>>> import daskflow as tf
>>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
>>> _ = open(path, "w").write("x,y\\n1,2\\n3,4\\n")
>>> files = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
>>> key, line = tf.TextLineReader(skip_header_lines=1).read(files)
>>> with tf.Session() as sess:
...     sess.run(tf.local_variables_initializer())
...     coord = tf.train.Coordinator()
...     threads = tf.train.start_queue_runners(sess, coord)
...     first = sess.run(line)
...     coord.request_stop(); coord.join(threads)
>>> first
b'1,2'
"""

from __future__ import annotations

import threading

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError, UnimplementedError
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import Primitive
from ..lib.io import tf_record
from ..platform import gfile
from .data_flow_ops import resource
from .queue_runtime import SessionShared, error

# -- the records of each kind of reader ------------------------------------------------------------


def _text_lines(path, work, skip_header_lines):
    data = _read(path)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # a final newline ends the last line, it starts none
    for number, line in enumerate(lines, start=1):
        if number > skip_header_lines:
            yield work + b":" + str(number).encode(), line[:-1] if line.endswith(b"\r") else line


def _tf_records(path, work, compression_type):
    for offset, record in tf_record.records(path, compression_type):
        yield work + b":" + str(offset).encode(), record


def _fixed_length(path, work, record_bytes, header_bytes, footer_bytes, hop_bytes, encoding):
    data = _read(path, encoding)
    body = data[header_bytes : len(data) - footer_bytes]
    step = hop_bytes or record_bytes
    for index, start in enumerate(range(0, len(body) - record_bytes + 1, step)):
        yield work + b":" + str(index).encode(), body[start : start + record_bytes]


def _whole_file(path, work):
    yield work, _read(path)


def _identity(path, work):
    yield work, work


def _read(path, encoding=""):
    with gfile.GFile(path, "rb") as f:
        data = f.read()
    if encoding == "ZLIB":
        import zlib

        return zlib.decompress(data)
    if encoding == "GZIP":
        import gzip

        return gzip.decompress(data)
    return data


# -- one session's reader --------------------------------------------------------------------------


class ReaderState(SessionShared):
    """A reader in one session: the work unit it reads, its records left, its counts."""

    def __init__(self, op, key=None):
        self._share(op, key)
        self._records = op.attrs["records"]
        self._options = {k: v for k, v in op.attrs.items() if k not in ("records", "shared_name")}
        self._lock = threading.Lock()  # one read at a time: reads share the position
        self.reset()

    def reset(self):
        self._current = None  # the records left of the work unit being read
        self.produced = 0
        self.completed = 0

    def read(self, queue, limit, op_name):
        """Up to ``limit`` ``(key, value)`` pairs of one work unit (at least one)."""
        with self._lock:
            while True:
                if self._current is None:
                    self._current = self._start(queue, op_name)
                got = [pair for _, pair in zip(range(limit), self._current)]
                if len(got) < limit:  # the unit is done
                    self._current = None
                    self.completed += 1
                if got:
                    self.produced += len(got)
                    return got

    def _start(self, queue, op_name):
        (element,) = queue.dequeue(1, False, op_name)
        work = element[0]
        if work.dtype != object or work.shape != ():
            raise error(
                InvalidArgumentError,
                f"Expected work to be a scalar string, got a {work.dtype} of shape {list(work.shape)}",
                op_name,
            )
        work = work.item()
        path = work.decode() if isinstance(work, bytes) else str(work)
        return _RECORDS[self._records](path, work, **self._options)


_RECORDS = {
    "text_line": _text_lines,
    "tf_record": _tf_records,
    "fixed_length": _fixed_length,
    "whole_file": _whole_file,
    "identity": _identity,
}


# -- primitives --------------------------------------------------------------------------------------


def _reader_kernel(xp, state, **_):
    return state


def _reader_primitive(name):
    return Primitive(
        name,
        lambda inputs, **_: ((), resource),
        _reader_kernel,
        stateful=True,
        make_state=ReaderState,
        host_only=True,
    )


TextLineReaderV2 = _reader_primitive("TextLineReaderV2")
TFRecordReaderV2 = _reader_primitive("TFRecordReaderV2")
FixedLengthRecordReaderV2 = _reader_primitive("FixedLengthRecordReaderV2")
WholeFileReaderV2 = _reader_primitive("WholeFileReaderV2")
IdentityReaderV2 = _reader_primitive("IdentityReaderV2")


def _handles(inputs):
    for t in inputs[:2]:
        if t.dtype is not resource:
            raise TypeError(f"{t.name} is not a reader or queue handle (a resource), it is {t.dtype.name}")


def _read_infer(inputs, *, op_name):
    _handles(inputs)
    return [((), dtypes.string), ((), dtypes.string)]


def _read_kernel(xp, reader, queue, *, op_name):
    ((key, value),) = reader.read(queue, 1, op_name)
    return np.array(key, dtype=object), np.array(value, dtype=object)


ReaderReadV2 = Primitive("ReaderReadV2", _read_infer, _read_kernel, stateful=True, host_only=True)


def _read_up_to_infer(inputs, *, op_name):
    _handles(inputs)
    if not inputs[2].dtype.is_integer or inputs[2]._dims not in (None, ()):
        raise TypeError(f"read_up_to's num_records {inputs[2].name} must be an int64 scalar")
    return [((None,), dtypes.string), ((None,), dtypes.string)]


def _read_up_to_kernel(xp, reader, queue, num_records, *, op_name):
    n = int(num_records)
    if n <= 0:
        raise error(InvalidArgumentError, f"num_records must be positive, got {n}", op_name)
    pairs = reader.read(queue, n, op_name)
    keys, values = np.empty(len(pairs), dtype=object), np.empty(len(pairs), dtype=object)
    keys[:], values[:] = [k for k, _ in pairs], [v for _, v in pairs]
    return keys, values


ReaderReadUpToV2 = Primitive(
    "ReaderReadUpToV2", _read_up_to_infer, _read_up_to_kernel, stateful=True, host_only=True
)


def _count_primitive(name, field):
    return Primitive(
        name,
        lambda inputs: ((), dtypes.int64),
        lambda xp, reader: np.int64(getattr(reader, field)),
        stateful=True,
        host_only=True,
    )


ReaderNumRecordsProducedV2 = _count_primitive("ReaderNumRecordsProducedV2", "produced")
ReaderNumWorkUnitsCompletedV2 = _count_primitive("ReaderNumWorkUnitsCompletedV2", "completed")
ReaderResetV2 = Primitive(
    "ReaderResetV2", lambda inputs: [], lambda xp, reader: reader.reset(), stateful=True, host_only=True
)


def _unimplemented(xp, reader, *state, what):
    raise UnimplementedError(None, None, f"Reader {what} is not implemented by daskflow's readers")


ReaderSerializeStateV2 = Primitive(
    "ReaderSerializeStateV2",
    lambda inputs, *, what: ((), dtypes.string),
    _unimplemented,
    stateful=True,
    host_only=True,
)
ReaderRestoreStateV2 = Primitive(
    "ReaderRestoreStateV2", lambda inputs, *, what: [], _unimplemented, stateful=True, host_only=True
)


# -- the Python classes --------------------------------------------------------------------------


class ReaderBase:
    """A reader of records from the work units (file names) of a queue (TF1's ``tf.ReaderBase``).

    Parameters
    ----------
    reader_ref : Tensor
        The reader's handle, output of a reader op.
    supports_serialize : bool
        Accepted for TF1 compatibility.
    """

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = property(lambda self: self._reader_ref, doc="The reader's handle.")
    supports_serialize = property(lambda self: self._supports_serialize)

    def read(self, queue, name=None):
        """``(key, value)``: the next record, as two string scalars.

        ``queue`` is a queue (or its handle) of strings; the reader dequeues
        the next work unit from it when it needs one.
        """
        return self._apply(ReaderReadV2, [_queue_ref(queue)], name or "ReaderReadV2")

    def read_up_to(self, queue, num_records, name=None):
        """``(keys, values)``: up to ``num_records`` records of one work unit (at least one)."""
        count = convert_to_tensor(num_records, dtype=dtypes.int64)
        return self._apply(ReaderReadUpToV2, [_queue_ref(queue), count], name or "ReaderReadUpToV2")

    def _apply(self, prim, inputs, name):
        graph = get_default_graph()
        op_name = graph.unique_name(name, mark_as_used=False)
        return apply(prim, self._reader_ref, *inputs, op_name=op_name, name=name)

    def num_records_produced(self, name=None):
        """An int64 scalar: records this reader produced in the session."""
        return apply(ReaderNumRecordsProducedV2, self._reader_ref, name=name or "ReaderNumRecordsProducedV2")

    def num_work_units_completed(self, name=None):
        """An int64 scalar: work units this reader finished in the session."""
        return apply(
            ReaderNumWorkUnitsCompletedV2, self._reader_ref, name=name or "ReaderNumWorkUnitsCompletedV2"
        )

    def reset(self, name=None):
        """An op forgetting the current work unit and the counts."""
        return get_default_graph().create_op(
            ReaderResetV2, [self._reader_ref], {}, name=name or "ReaderResetV2"
        )

    def serialize_state(self, name=None):
        """Not provided: running it raises ``UnimplementedError``."""
        return apply(
            ReaderSerializeStateV2,
            self._reader_ref,
            what="SerializeState",
            name=name or "ReaderSerializeStateV2",
        )

    def restore_state(self, state, name=None):
        """Not provided: running it raises ``UnimplementedError``."""
        state = convert_to_tensor(state, dtype=dtypes.string)
        return get_default_graph().create_op(
            ReaderRestoreStateV2,
            [self._reader_ref, state],
            {"what": "RestoreState"},
            name=name or "ReaderRestoreStateV2",
        )


def _queue_ref(queue):
    return queue.queue_ref if hasattr(queue, "queue_ref") else convert_to_tensor(queue)


def _reader_op(prim, name, records, **options):
    op = get_default_graph().create_op(prim, [], {"records": records, **options}, name=name or prim.name)
    return op.outputs[0]


class TextLineReader(ReaderBase):
    """Reads the lines of text files, without their newline (``"\\r\\n"`` ends a line too).

    Parameters
    ----------
    skip_header_lines : int, optional
        Lines to skip at the start of each file.
    """

    def __init__(self, skip_header_lines=None, name=None):
        ref = _reader_op(TextLineReaderV2, name, "text_line", skip_header_lines=int(skip_header_lines or 0))
        super().__init__(ref)


class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files (``options``: a compression, as the writer's)."""

    def __init__(self, name=None, options=None):
        compression = tf_record.TFRecordOptions.get_compression_type_string(options)
        super().__init__(_reader_op(TFRecordReaderV2, name, "tf_record", compression_type=compression))


class FixedLengthRecordReader(ReaderBase):
    """Reads records of ``record_bytes`` bytes each, after ``header_bytes`` and before
    ``footer_bytes``; with ``hop_bytes``, a record starts every ``hop_bytes`` bytes.
    ``encoding``: ``""``, ``"ZLIB"`` or ``"GZIP"`` (the whole file compressed)."""

    def __init__(
        self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None, encoding=None
    ):
        if int(record_bytes) <= 0:
            raise ValueError(f"record_bytes must be positive, got {record_bytes}")
        ref = _reader_op(
            FixedLengthRecordReaderV2,
            name,
            "fixed_length",
            record_bytes=int(record_bytes),
            header_bytes=int(header_bytes or 0),
            footer_bytes=int(footer_bytes or 0),
            hop_bytes=int(hop_bytes or 0),
            encoding=tf_record.TFRecordOptions.get_compression_type_string(encoding),
        )
        super().__init__(ref)


class WholeFileReader(ReaderBase):
    """Reads each file whole: the key is the file name, the value its contents."""

    def __init__(self, name=None):
        super().__init__(_reader_op(WholeFileReaderV2, name, "whole_file"))


class IdentityReader(ReaderBase):
    """Gives each work unit as both key and value."""

    def __init__(self, name=None):
        super().__init__(_reader_op(IdentityReaderV2, name, "identity"), supports_serialize=True)
