"""TF1's ``tf.gfile``: files and directories by path, local or remote.

Paths go through fsspec, so ``memory://scratch/model.ckpt`` or
``s3://bucket/run1/events`` work wherever a local path does (remote
protocols need their fsspec package, e.g. ``s3fs``). Plain paths are local.

The semantics are TF1's:

- :class:`GFile` opens lazily: a missing file raises on the first read, not
  when the object is made. Mode ``"r"`` reads ``str``, ``"rb"`` ``bytes``;
  ``write`` takes either in any mode. ``"w"`` truncates and ``"a"`` appends
  when the first write comes.
- Errors are ``daskflow.errors``: a missing path raises ``NotFoundError``,
  an existing target without ``overwrite=True`` ``AlreadyExistsError``, a
  read on a file opened for writing ``PermissionDeniedError``, a directory
  where a file is needed ``FailedPreconditionError``, a bad mode
  ``InvalidArgumentError``. Each message names the path.
- :func:`ListDirectory` gives entry names, :func:`Glob` full paths,
  :func:`Walk` ``(dirname, subdir_names, file_names)`` triples and nothing
  for a missing top, :func:`IsDirectory` and :func:`Exists` False for a
  missing path.

Examples
--------
>>> from daskflow.platform import gfile
>>> with gfile.GFile("memory://gfile-doc/notes.txt", "w") as f:
...     f.write("step 1\\nstep 2\\n")
>>> gfile.ListDirectory("memory://gfile-doc")
['notes.txt']
>>> with gfile.GFile("memory://gfile-doc/notes.txt") as f:
...     f.readlines()
['step 1\\n', 'step 2\\n']
>>> gfile.DeleteRecursively("memory://gfile-doc")
"""

import contextlib
import dataclasses
import datetime
import glob as _glob
import os
import posixpath
import re
import shutil

from .. import errors
from ..kernels.files import directory, local_path

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "FileStatistics",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "Mkdir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
]

_MODES = ("r", "w", "a", "r+", "w+", "a+")


# --- paths and errors --------------------------------------------------------


def _fs(path):
    """Return ``(filesystem, path inside it)`` for a user's path or URL."""
    import fsspec  # deferred: `import daskflow` need not pay for it

    # A step's op on a worker reads a relative path where its session runs (kernels/files.py).
    return fsspec.core.url_to_fs(os.fspath(local_path(path)))


def _is_url(path):
    return "://" in os.fspath(path)


def _is_local(fs):
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _join(top, name):
    return posixpath.join(top, name) if _is_url(top) else os.path.join(top, name)


def _not_found(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


def _already_exists(path):
    return errors.AlreadyExistsError(None, None, f"{path}; File exists")


def _is_a_directory(path):
    return errors.FailedPreconditionError(None, None, f"{path}; Is a directory")


@contextlib.contextmanager
def _tf_errors(path):
    """Turn the OSErrors of a file system call on `path` into TF1's errors."""
    try:
        yield
    except errors.OpError:
        raise
    except FileNotFoundError:
        raise _not_found(path) from None
    except FileExistsError:
        raise _already_exists(path) from None
    except IsADirectoryError:
        raise _is_a_directory(path) from None
    except NotADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None


# --- GFile -------------------------------------------------------------------


class GFile:
    """A file by path, TF1's ``tf.gfile.GFile`` (also ``Open`` and ``FastGFile``).

    Parameters
    ----------
    name : str or os.PathLike
        Local path or fsspec URL (``memory://...``, ``s3://...``).
    mode : str, optional
        ``"r"``, ``"w"``, ``"a"``, ``"r+"``, ``"w+"`` or ``"a+"``, each with an
        optional ``"b"`` (default ``"r"``). Without ``"b"`` reads return
        ``str`` (UTF-8), with it ``bytes``.

    Raises
    ------
    daskflow.errors.InvalidArgumentError
        If `mode` is not one of those.

    Notes
    -----
    Nothing is opened until the first read or write, as in TF1; ``close``
    ends that and a later read starts again from the beginning. Positions
    (:meth:`tell`, :meth:`seek`) count bytes.

    Examples
    --------
    >>> with GFile("memory://gfile-example/a.txt", "w") as f:
    ...     f.write("hello")
    >>> with GFile("memory://gfile-example/a.txt", "rb") as f:
    ...     f.read(), f.size()
    (b'hello', 5)
    """

    def __init__(self, name, mode="r"):
        self._name = os.fspath(name)
        self._mode = mode
        if not isinstance(mode, str) or mode.replace("b", "", 1) not in _MODES:
            allowed = "'r', 'w', 'a', 'r+', 'w+' or 'a+' (each with an optional 'b')"
            raise errors.InvalidArgumentError(None, None, f"{self._name}: mode {mode!r} is not {allowed}")
        self._binary = "b" in mode
        self._readable = "r" in mode or "+" in mode
        self._writable = "w" in mode or "a" in mode or "+" in mode
        self._fs, self._path = _fs(self._name)
        self._reader = None
        self._writer = None

    @property
    def name(self):
        """str : The path or URL given."""
        return self._name

    @property
    def mode(self):
        """str : The mode given."""
        return self._mode

    def __repr__(self):
        return f"GFile({self._name!r}, mode={self._mode!r})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    # reading

    def _open_reader(self):
        if not self._readable:
            raise errors.PermissionDeniedError(None, None, f"{self._name}: File isn't open for reading")
        if self._reader is None:
            with _tf_errors(self._name):
                if self._fs.isdir(self._path):
                    raise _is_a_directory(self._name)
                self._reader = self._fs.open(self._path, "rb")
        return self._reader

    def _text(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        """Read `n` bytes (all that is left if ``n < 0``); ``str`` unless binary.

        In text mode a character cut by the `n`-th byte is read whole.
        """
        reader = self._open_reader()
        data = reader.read() if n is None or n < 0 else reader.read(n)
        if self._binary:
            return data
        return self._decode_whole_characters(reader, data)

    @staticmethod
    def _decode_whole_characters(reader, data):
        # A UTF-8 character has at most 4 bytes, so at most 3 are missing.
        for _ in range(3):
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError as exc:
                more = reader.read(1) if exc.reason == "unexpected end of data" else b""
                if not more:
                    raise
                data += more
        return data.decode("utf-8")

    def readline(self):
        """Read up to and including the next newline (empty at the end)."""
        return self._text(self._open_reader().readline())

    def readlines(self):
        """Read the remaining lines as a list."""
        return list(self)

    def seek(self, offset=None, whence=0, position=None):
        """Move the read position to byte `offset` (from start, current, end by `whence`).

        `position` is TF1's older name for `offset`.
        """
        if position is not None:
            if offset is not None:
                raise TypeError(f"{self._name}: seek() got both offset and position")
            offset = position
        self._open_reader().seek(0 if offset is None else offset, whence)

    def tell(self):
        """Return the position in bytes (of the reader, or of the writer while writing)."""
        if self._writer is not None:
            return self._writer.tell()
        return self._open_reader().tell()

    def size(self):
        """Return the file's length in bytes, including what this object wrote."""
        if self._writer is not None:
            self._writer.flush()
            # The writer only appends, so its position is the length, also on
            # file systems that commit bytes only on close.
            return self._writer.tell()
        return Stat(self._name).length

    def seekable(self):
        """Return True: reads can seek."""
        return True

    # writing

    def write(self, file_content):
        """Write `file_content` (``str`` is encoded as UTF-8, ``bytes`` as is)."""
        if not self._writable:
            raise errors.PermissionDeniedError(None, None, f"{self._name}: File isn't open for writing")
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        if self._writer is None:
            with _tf_errors(self._name):
                if self._fs.isdir(self._path):
                    raise _is_a_directory(self._name)
                self._writer = self._fs.open(self._path, "ab" if "a" in self._mode else "wb")
        with _tf_errors(self._name):
            self._writer.write(file_content)

    def flush(self):
        """Push written bytes to the file system."""
        if self._writer is not None:
            with _tf_errors(self._name):
                self._writer.flush()

    def close(self):
        """Finish writing and release the file; a later read reopens it."""
        reader, writer = self._reader, self._writer
        self._reader = self._writer = None
        if reader is not None:
            reader.close()
        if writer is not None:
            with _tf_errors(self._name):
                writer.close()


Open = GFile
FastGFile = GFile


# --- file system functions ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FileStatistics:
    """What :func:`Stat` returns: ``length`` in bytes, ``mtime_nsec``, ``is_directory``."""

    length: int
    mtime_nsec: int
    is_directory: bool


def Exists(filename):  # noqa: N802 - TF1's public names are CamelCase
    """Return True if `filename` (a file or directory) exists."""
    fs, path = _fs(filename)
    with _tf_errors(filename):
        return fs.exists(path)


def IsDirectory(dirname):  # noqa: N802
    """Return True if `dirname` is a directory; False if missing or a file."""
    fs, path = _fs(dirname)
    with _tf_errors(dirname):
        return fs.isdir(path)


def MakeDirs(dirname):  # noqa: N802
    """Create `dirname` and any missing parents; an existing directory is fine.

    Raises
    ------
    daskflow.errors.FailedPreconditionError
        If `dirname` (or a parent) is a file.
    """
    fs, path = _fs(dirname)
    with _tf_errors(dirname):
        if fs.exists(path) and not fs.isdir(path):
            raise errors.FailedPreconditionError(None, None, f"{dirname} is not a directory")
        fs.makedirs(path, exist_ok=True)


def Mkdir(dirname):  # noqa: N802
    """Create the directory `dirname`, whose parent must exist.

    Raises
    ------
    daskflow.errors.AlreadyExistsError
        If `dirname` exists.
    daskflow.errors.NotFoundError
        If its parent directory does not.
    """
    fs, path = _fs(dirname)
    with _tf_errors(dirname):
        if fs.exists(path):
            raise _already_exists(dirname)
        parent = posixpath.dirname(path.rstrip("/"))
        if parent and parent != path and not fs.isdir(parent):
            raise _not_found(dirname)
        fs.mkdir(path, create_parents=False)


def Remove(filename):  # noqa: N802
    """Delete the file `filename`.

    Raises
    ------
    daskflow.errors.NotFoundError
        If it does not exist.
    daskflow.errors.FailedPreconditionError
        If it is a directory (use :func:`DeleteRecursively`).
    """
    fs, path = _fs(filename)
    with _tf_errors(filename):
        if fs.isdir(path):
            raise _is_a_directory(filename)
        if not fs.exists(path):
            raise _not_found(filename)
        fs.rm_file(path)


def DeleteRecursively(dirname):  # noqa: N802
    """Delete `dirname` with everything under it (or a single file).

    Raises
    ------
    daskflow.errors.NotFoundError
        If it does not exist.
    """
    fs, path = _fs(dirname)
    with _tf_errors(dirname):
        if not fs.exists(path):
            raise _not_found(dirname)
        fs.rm(path, recursive=True)


def ListDirectory(dirname):  # noqa: N802
    """Return the names (not paths) of the entries of `dirname`, sorted.

    Raises
    ------
    daskflow.errors.NotFoundError
        If `dirname` is not a directory.
    """
    fs, path = _fs(dirname)
    with _tf_errors(dirname):
        if not fs.isdir(path):
            raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
        entries = fs.ls(path, detail=False)
    return sorted(posixpath.basename(entry.rstrip("/")) for entry in entries)


def Glob(filename):  # noqa: N802
    """Return the paths matching the pattern `filename` (or a list of patterns).

    ``*``, ``?`` and ``[...]`` match within one path component. Local matches
    keep the pattern's form (relative stays relative); remote ones are URLs.
    """
    patterns = [filename] if isinstance(filename, (str, os.PathLike)) else list(filename)
    found = []
    for pattern in map(os.fspath, patterns):
        fs, path = _fs(pattern)
        with _tf_errors(pattern):
            if _is_local(fs) and not _is_url(pattern):
                found.extend(_glob.glob(pattern, root_dir=None if os.path.isabs(pattern) else directory()))
            else:
                found.extend(_as_url(pattern, fs, match) for match in fs.glob(path))
    return sorted(found)


def _as_url(pattern, fs, match):
    """Write a match of `fs` the way `pattern` writes its directory part."""
    literal = re.split(r"[*?[]", pattern, maxsplit=1)[0]
    head = literal.rsplit("/", 1)[0]
    inner = fs._strip_protocol(head).rstrip("/")
    if "://" in head and match.startswith(inner + "/"):
        return head + match[len(inner) :]
    return fs.unstrip_protocol(match)


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    """Move `oldname` (a file or directory) to `newname`.

    Parameters
    ----------
    oldname, newname : str or os.PathLike
        On the same file system.
    overwrite : bool, optional
        Replace an existing `newname` file (default False).

    Raises
    ------
    daskflow.errors.NotFoundError
        If `oldname` does not exist, or the parent of `newname` does not.
    daskflow.errors.AlreadyExistsError
        If `newname` exists and `overwrite` is False.
    """
    old_fs, old = _fs(oldname)
    new_fs, new = _fs(newname)
    with _tf_errors(oldname):
        if not old_fs.exists(old):
            raise _not_found(oldname)
    with _tf_errors(newname):
        if not overwrite and new_fs.exists(new):
            raise _already_exists(newname)
        if _is_local(old_fs) and _is_local(new_fs):
            # One atomic rename: a checkpoint written to a temporary name and
            # renamed over the old one is never seen half written.
            os.replace(old, new)
        else:
            old_fs.mv(old, new, recursive=old_fs.isdir(old))


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    """Copy the file `oldpath` to `newpath`, across file systems if need be.

    Raises
    ------
    daskflow.errors.NotFoundError
        If `oldpath` does not exist, or the parent of `newpath` does not.
    daskflow.errors.AlreadyExistsError
        If `newpath` exists and `overwrite` is False.
    daskflow.errors.FailedPreconditionError
        If `oldpath` is a directory.
    """
    old_fs, old = _fs(oldpath)
    new_fs, new = _fs(newpath)
    with _tf_errors(oldpath):
        if old_fs.isdir(old):
            raise _is_a_directory(oldpath)
        if not old_fs.exists(old):
            raise _not_found(oldpath)
    with _tf_errors(newpath):
        if not overwrite and new_fs.exists(new):
            raise _already_exists(newpath)
        if new_fs.isdir(new):
            raise _is_a_directory(newpath)
        with old_fs.open(old, "rb") as source, new_fs.open(new, "wb") as target:
            shutil.copyfileobj(source, target)


def Stat(filename):  # noqa: N802
    """Return the :class:`FileStatistics` of `filename`.

    Raises
    ------
    daskflow.errors.NotFoundError
        If it does not exist.
    """
    fs, path = _fs(filename)
    with _tf_errors(filename):
        if _is_local(fs):
            st = os.stat(path)
            return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))
        info = fs.info(path)
    return FileStatistics(int(info.get("size") or 0), _mtime_nsec(info), info.get("type") == "directory")


def _mtime_nsec(info):
    # Each fsspec file system names and types its time stamp its own way.
    stamp = next((info[k] for k in ("mtime", "LastModified", "updated", "created") if info.get(k)), None)
    if isinstance(stamp, datetime.datetime):
        return int(stamp.timestamp() * 1e9)
    if isinstance(stamp, (int, float)):
        return int(stamp * 1e9)
    return 0


def Walk(top, in_order=True):  # noqa: N802
    """Yield ``(dirname, subdir_names, file_names)`` for `top` and each directory below.

    Parameters
    ----------
    top : str or os.PathLike
        Directory to start from; if it is missing or a file, nothing is
        yielded.
    in_order : bool, optional
        Parents before children (default True); False gives children first.
    """
    top = os.fspath(top)
    fs, path = _fs(top)
    with _tf_errors(top):
        if not fs.isdir(path):
            return
        entries = fs.ls(path, detail=True)
    subdirs, files = [], []
    for entry in entries:
        name = posixpath.basename(entry["name"].rstrip("/"))
        (subdirs if entry["type"] == "directory" else files).append(name)
    subdirs.sort()
    files.sort()
    here = (top, subdirs, files)
    if in_order:
        yield here
    for subdir in subdirs:
        yield from Walk(_join(top, subdir), in_order)
    if not in_order:
        yield here
