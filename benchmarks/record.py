"""Write a benchmark's current table into ``benchmarks/RESULTS.md``.

Each benchmark owns one block of RESULTS.md, between the lines
``<!-- results:NAME begin -->`` and ``<!-- results:NAME end -->``. Everything
inside a block is generated: a title, a line saying where and when the figures
were measured (machine, load, versions, commit, date, command line), the table
and generated notes. Everything outside the blocks is written by hand and kept
byte for byte. A block that is missing is appended at the end of the file.

The benchmark scripts import this module as ``from record import record``:
Python puts a script's own folder first on ``sys.path``, so that works however
the script is started. Importing it notes the load average, so a script
imports it before it measures. Set ``DASKFLOW_RESULTS`` to write another file
than ``benchmarks/RESULTS.md`` (a scratch copy, say).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "RESULTS.md"
# The results file itself is rewritten by every recording: its changes say nothing of the code measured.
_NOT_CODE = {"benchmarks/RESULTS.md"}
_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _load_average():
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not on every platform
        return None


# The load when the benchmark began says how busy the machine was while it measured;
# the load at the end would include the benchmark's own processes.
LOAD_AT_START = _load_average()


def record(name, title, table, notes=(), path=None):
    """Replace benchmark ``name``'s block in RESULTS.md with a freshly generated one.

    Parameters
    ----------
    name : str
        The block's name in its markers (letters, digits, ``_`` and ``-``).
    title : str
        A line saying what the table shows; written in bold above it.
    table : str or sequence of sequences
        The table: rows of cells, the first row its header, or ready markdown.
    notes : str or sequence of str, optional
        Paragraphs written below the table (how it was measured, figures that
        are no table's).
    path : str or path-like, optional
        The file to write; by default ``$DASKFLOW_RESULTS``, else
        ``benchmarks/RESULTS.md``. It must exist.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> record("toy", "Toy step, ratio to numpy", [["model", "ratio"], ["(a)", "1.30"]])  # doctest: +SKIP
    PosixPath('.../benchmarks/RESULTS.md')
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"record(): block name {name!r} must be letters, digits, '_' or '-'")
    path = Path(path or os.environ.get("DASKFLOW_RESULTS") or RESULTS)
    body = [f"**{title}**", provenance(), markdown_table(table), *_paragraphs(notes)]
    with open(path, encoding="utf-8", newline="") as f:  # newline="": line ends kept as they are
        text = f.read()
    _write_atomically(path, replace_block(text, name, "\n\n".join(body)))
    return path


def replace_block(text, name, body):
    """``text`` with the block ``name`` holding ``body`` (appended at the end if absent).

    Examples
    --------
    >>> replace_block("intro\\n", "a", "table")
    'intro\\n\\n<!-- results:a begin -->\\ntable\\n<!-- results:a end -->\\n'
    """
    begin, end = f"<!-- results:{name} begin -->", f"<!-- results:{name} end -->"
    block = f"{begin}\n{body}\n{end}"
    starts, ends = text.count(begin), text.count(end)
    if starts == ends == 0:
        before = "" if not text else text + "\n" if text.endswith("\n") else text + "\n\n"
        return f"{before}{block}\n"
    first, last = text.find(begin), text.find(end)
    if starts != 1 or ends != 1 or last < first:
        raise ValueError(f"results file: block {name!r} needs exactly one {begin!r} before one {end!r}")
    return text[:first] + block + text[last + len(end) :]


def markdown_table(table):
    """A markdown table from rows of cells (the first the header); a string passes as it is.

    Examples
    --------
    >>> print(markdown_table([["model", "ratio"], ["(a)", 1.3]]))
    | model | ratio |
    |---|---|
    | (a) | 1.3 |
    """
    if isinstance(table, str):
        return table.strip("\n")
    header, *rows = [[str(cell) for cell in row] for row in table]
    lines = ["| " + " | ".join(cells) + " |" for cells in (header, *rows)]
    lines.insert(1, "|" + "---|" * len(header))
    return "\n".join(lines)


def provenance():
    """The line saying when, at which commit, by which command and on what the figures were measured."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = shlex.join(getattr(sys, "orig_argv", None) or [Path(sys.executable).name, *sys.argv])
    return f"Measured {date} at commit {describe_commit(REPO)} by `{command}` on {machine()}."


def describe_commit(repo):
    """``git rev-parse --short HEAD`` of ``repo``, with ``+ uncommitted changes`` when tracked
    files under ``daskflow/`` or ``benchmarks/`` differ from it (RESULTS.md aside).

    Examples
    --------
    >>> describe_commit(REPO)  # doctest: +SKIP
    '5cda6ed + uncommitted changes'
    """
    head = _git(repo, "rev-parse", "--short", "HEAD")
    if head is None:
        return "unknown (not a git checkout)"
    head = head.strip()
    status = _git(repo, "status", "--porcelain", "--untracked-files=no", "--", "daskflow", "benchmarks")
    changed = {line[3:].split(" -> ")[-1] for line in (status or "").splitlines()} - _NOT_CODE
    return f"{head} + uncommitted changes" if changed else head


def machine():
    """CPU model, logical cores, load average at start, and the versions measured with."""
    load = "unknown" if LOAD_AT_START is None else f"{LOAD_AT_START:.2f}"
    versions = [f"Python {platform.python_version()}"]
    versions += [f"{name} {_version(name)}" for name in ("numpy", "dask", "distributed")]
    if "tensorflow" in sys.modules:  # only where this run measured TF1
        versions.append(f"TensorFlow {_version('tensorflow')}")
    cpu = f"{_cpu_model()}, {os.cpu_count()} logical cores, load average {load} at start"
    return f"{cpu}; {', '.join(versions)}; {_blas()}"


def _blas():
    """numpy's BLAS and the kernels it runs (they move figures as much as the processor does)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "BLAS unknown"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    named = [f"{p['internal_api']} {p.get('version')} with {p.get('architecture')} kernels" for p in pools]
    forced = os.environ.get("OPENBLAS_CORETYPE")
    return ", ".join(named or ["BLAS unknown"]) + (f" (OPENBLAS_CORETYPE={forced})" if forced else "")


def report(rows, notes, name, title, write):
    """Print a table and its notes; with ``write``, also record them (see :func:`record`)."""
    for row in rows:
        print(" | ".join(row))
    for note in notes:
        print(note)
    if write:
        record(name, title, rows, notes)


def duration(seconds):
    """A step's time for a table cell: µs below a millisecond, else ms.

    Examples
    --------
    >>> duration(83.4e-6), duration(0.02261)
    ('83 µs', '22.6 ms')
    """
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def _paragraphs(notes):
    return [notes] if isinstance(notes, str) else [str(note) for note in notes]


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:  # not Linux
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _version(name):
    module = sys.modules.get(name)
    if module is not None and hasattr(module, "__version__"):
        return module.__version__
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _git(repo, *args):
    try:
        out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout  # not stripped: a status line starts with a meaningful space


def _write_atomically(path, text):
    """Write ``text`` to ``path`` through a temporary file in its folder and ``os.replace``,
    so a reader never sees half a file; the file keeps its permissions."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
