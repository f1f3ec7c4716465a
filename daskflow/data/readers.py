"""Datasets read from files: ``TextLineDataset``, ``FixedLengthRecordDataset``,
``TFRecordDataset`` and ``Dataset.list_files``.

The file names are a string scalar or vector known when the graph is built,
or a string tensor (a placeholder) read when the iterator is initialised, as
TF1's guide feeds training and validation file lists. Files are opened when
the pass reaches them; a missing one fails that step with ``NotFoundError``.
``num_parallel_reads=k`` interleaves the files ``k`` at a time, one record
from each in turn, as TF does.
"""

from __future__ import annotations

import csv
import glob
import gzip
import io
import itertools
import os
import zlib

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError, NotFoundError
from ..kernels.files import directory, local_path
from ..lib.io.tf_record import records  # TFRecords are read in one place (tf.python_io's too)
from ..ops.random_ops import get_seed
from .dataset import Dataset
from .sources import component, spec_of
from .spec import Captured, Spec
from .transforms import _interleave


def _file_names(filenames, who):
    c = component(filenames)
    spec = spec_of(c)
    if spec.dtype is not dtypes.string:
        raise TypeError(
            f"The `filenames` argument must contain `tf.string` elements. Got `{spec.dtype!r}` elements."
        )
    if spec.dims is not None and len(spec.dims) > 1:
        raise ValueError(f"{who}: `filenames` must be a string scalar or vector, got shape {spec.dims}")
    return c


def _names(value):
    return [n.decode() if isinstance(n, bytes) else str(n) for n in np.ravel(dtypes.as_string_array(value))]


class _FileDataset(Dataset):
    """Records of each file in turn (or ``num_parallel_reads`` files interleaved)."""

    shards_by_file = True

    _who = "a file dataset"

    def __init__(self, filenames, compression_type, num_parallel_reads):
        self._components = [_file_names(filenames, self._who)]
        self._compression = (compression_type or "").upper()
        if self._compression not in ("", "GZIP", "ZLIB"):
            raise InvalidArgumentError(None, None, f"Unsupported compression_type: {compression_type!r}")
        self._parallel = int(num_parallel_reads or 1)
        self._structure = Spec((), dtypes.string)

    def _iterate(self, state):
        names = _names(state.value(self._components[0]))
        index, count = state.shard  # a replica reads its share of the records:
        if state.by_file and count > 1 and len(names) >= count:  # whole files (see flat_elements)
            names, index, count = names[index::count], 0, 1
        files = (self._records_of(n) for n in names)
        records = _interleave(files, self._parallel, 1) if self._parallel > 1 else _chain(files)
        return ((np.array(r, dtype=object),) for r in itertools.islice(records, index, None, count))

    def _read(self, name) -> bytes:
        try:
            with open(local_path(name), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{name}; No such file or directory") from None
        if self._compression == "GZIP":
            return gzip.decompress(data)
        if self._compression == "ZLIB":
            return zlib.decompress(data)
        return data

    def _records_of(self, name):
        raise NotImplementedError


def _chain(iterables):
    for it in iterables:
        yield from it


class TextLineDataset(_FileDataset):
    """The lines of one or more text files, without their line ends, as tf.string scalars.

    Parameters
    ----------
    filenames : str, list of str, or a tf.string tensor (scalar or vector)
    compression_type : ``""`` / None, ``"GZIP"`` or ``"ZLIB"``
    buffer_size : accepted, no meaning here
    num_parallel_reads : int, optional
        Read this many files at once, a line of each in turn.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.TextLineDataset(["a.csv", "b.csv"]).skip(1).output_types
    tf.string
    """

    _who = "TextLineDataset"

    def __init__(
        self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
    ):
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _records_of(self, name):
        data = self._read(name)
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()  # a last line end ends the last line; it does not begin another
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes from files, after ``header_bytes``, before ``footer_bytes``.

    A file whose body is not a whole number of records fails the step with
    ``InvalidArgumentError``, as in TF.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.FixedLengthRecordDataset("data.bin", record_bytes=3073).output_types
    tf.string
    """

    _who = "FixedLengthRecordDataset"

    def __init__(
        self,
        filenames,
        record_bytes,
        header_bytes=None,
        footer_bytes=None,
        buffer_size=None,
        compression_type=None,
        num_parallel_reads=None,
        name=None,
    ):
        super().__init__(filenames, compression_type, num_parallel_reads)
        self._record, self._header, self._footer = (
            int(record_bytes),
            int(header_bytes or 0),
            int(footer_bytes or 0),
        )
        if self._record < 1:
            raise InvalidArgumentError(None, None, f"record_bytes must be positive, got {record_bytes}")

    def _records_of(self, name):
        data = self._read(name)
        body = data[self._header : len(data) - self._footer]
        if len(body) % self._record:
            raise InvalidArgumentError(
                None,
                None,
                f"Excluding the header ({self._header} bytes) and footer ({self._footer} bytes), input file "
                f'"{name}" has body length {len(body)} bytes, which is not an exact multiple of the record '
                f"length ({self._record} bytes).",
            )
        for start in range(0, len(body), self._record):
            yield body[start : start + self._record]


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files, as tf.string scalars (serialized protos, usually).

    The file format (length, CRCs, data) is read by
    :mod:`daskflow.lib.io.tf_record`; a corrupt record fails the step with
    ``DataLossError``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.TFRecordDataset(["train.tfrecords"]).output_shapes
    TensorShape([])
    """

    _who = "TFRecordDataset"

    def __init__(
        self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
    ):
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _records_of(self, name):
        return (data for _, data in records(name, self._compression))


class CsvDataset(_FileDataset):
    """The records of CSV files, a tuple of scalars per record, typed by ``record_defaults``.

    Each item of ``record_defaults`` is a dtype (float32, float64, int32,
    int64 or string: the column is required) or a list of one default value
    (used where a field is empty or ``na_value``). ``select_cols`` /
    ``exclude_cols`` pick the columns. A missing required field or a field
    that is no number fails the step with ``InvalidArgumentError``, as in TF.

    Examples
    --------
    >>> import daskflow as tf
    >>> ds = tf.data.experimental.CsvDataset("train.csv", [tf.float32, [0], [""]], header=True)
    >>> ds.output_types
    (tf.float32, tf.int32, tf.string)
    """

    _who = "CsvDataset"

    def __init__(
        self,
        filenames,
        record_defaults,
        compression_type=None,
        buffer_size=None,
        header=False,
        field_delim=",",
        use_quote_delim=True,
        na_value="",
        select_cols=None,
        exclude_cols=None,
    ):
        super().__init__(filenames, compression_type, None)
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("Either select_cols or exclude_cols should be empty")
        self._defaults = [_csv_default(d, i) for i, d in enumerate(record_defaults)]
        self._header, self._delim, self._quote = bool(header), field_delim, bool(use_quote_delim)
        self._na, self._select, self._exclude = na_value, select_cols, exclude_cols
        self._structure = tuple(Spec((), dtype) for dtype, _ in self._defaults)

    def _records_of(self, name):
        text = self._read(name).decode("utf-8")
        quoting = {"quotechar": '"'} if self._quote else {"quoting": csv.QUOTE_NONE}
        rows = csv.reader(io.StringIO(text), delimiter=self._delim, **quoting)
        for number, row in enumerate(itertools.islice(rows, 1 if self._header else 0, None)):
            yield self._parse(self._columns(row, number), number)

    def _columns(self, row, number):
        if self._select is not None:
            missing = [c for c in self._select if c >= len(row)]
            if missing:
                raise InvalidArgumentError(
                    None, None, f"Expect {max(missing) + 1} fields but have {len(row)} in record {number}"
                )
            row = [row[c] for c in self._select]
        elif self._exclude is not None:
            row = [f for c, f in enumerate(row) if c not in set(self._exclude)]
        if len(row) != len(self._defaults):
            raise InvalidArgumentError(
                None, None, f"Expect {len(self._defaults)} fields but have {len(row)} in record {number}"
            )
        return row

    def _parse(self, fields, number):
        out = []
        for i, (field, (dtype, default)) in enumerate(zip(fields, self._defaults)):
            if field == "" or field == self._na:
                if default is None:
                    raise InvalidArgumentError(
                        None, None, f"Field {i} is required but missing in record {number}!"
                    )
                out.append(default)
                continue
            try:
                out.append(field.encode() if dtype is dtypes.string else dtype.np.type(_number(field, dtype)))
            except ValueError:
                raise InvalidArgumentError(
                    None, None, f"Field {i} in record {number} is not a valid {dtype.name}: {field}"
                ) from None
        return tuple(out)

    def _iterate(self, state):
        files = (self._records_of(n) for n in _names(state.value(self._components[0])))
        index, count = state.shard
        records = itertools.islice(_chain(files), index, None, count)
        return (
            tuple(np.array(v, dtype=object) if isinstance(v, bytes) else np.asarray(v) for v in r)
            for r in records
        )


_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")


def _csv_default(item, index):
    """``(dtype, default or None)`` of one ``record_defaults`` item."""
    if isinstance(item, dtypes.DType):
        dtype, default = item, None
    else:
        c = component(item)
        if spec_of(c).dims not in ((), (0,), (1,)) or isinstance(c, Captured):
            raise ValueError(f"record_defaults[{index}] must be a dtype or a list of at most one known value")
        dtype = spec_of(c).dtype
        default = None if c.size == 0 else c.reshape(-1)[0]
    if dtype.name not in _CSV_TYPES:
        raise TypeError(
            f"record_defaults[{index}] has type {dtype.name}; CSV columns are {', '.join(_CSV_TYPES)}"
        )
    if default is not None:
        default = default if dtype is dtypes.string else dtype.np.type(default)
    return dtype, default


def _number(field, dtype):
    return int(field) if dtype.is_integer else float(field)


class _ListFiles(Dataset):
    def __init__(self, patterns, shuffle, seed):
        self._components = [_file_names(patterns, "list_files")]
        self._shuffle = True if shuffle is None else bool(shuffle)
        self._seed = get_seed(seed) if self._shuffle else None
        self._structure = Spec((), dtypes.string)

    def _iterate(self, state):
        names = sorted({n for p in _names(state.value(self._components[0])) for n in _glob(p)})
        if self._shuffle:
            seed = self._seed if self._seed is not None else (state.entropy(self),)
            names = [
                names[i] for i in np.random.default_rng([*seed, state.epoch(self)]).permutation(len(names))
            ]
        return ((np.array(n.encode(), dtype=object),) for n in names)


def list_files(file_pattern, shuffle=None, seed=None):
    return _ListFiles(file_pattern, shuffle, seed)


def _glob(pattern):
    """The files matching ``pattern``, a relative one where the session runs (kernels/files.py)."""
    return glob.glob(pattern, root_dir=None if os.path.isabs(pattern) else directory())
