"""Run one corpus program under TF1 (the oracle) or under daskflow, and report it.

Usage (from the repository root)::

    /work/tfenv/bin/python tests/conformance/run_program.py --engine tf PROGRAM.py [--seeds 0 1 2]
    python tests/conformance/run_program.py --engine daskflow PROGRAM.py [PROGRAM.py ...]

The engine is imported once; each (program, seed) then runs in a child
process forked from it (TF's import alone takes seconds). The program's output
passes through; after each run a line ``CONFORMANCE {json}`` says how it went:
``status`` (``ok``, ``error`` or ``timeout``), ``result``
(the numbers of its result line, see :func:`result_numbers`), ``error``
(the exception's type and first line), ``where`` (the line of the program
that raised) and ``seconds``.

Programs say ``import daskflow as tf`` (or ``from daskflow.x import y``).
Under ``--engine tf`` every ``daskflow`` module name is bound to TF's:
``daskflow`` (and ``daskflow.compat.v1``) is ``tensorflow.compat.v1`` after
``disable_v2_behavior()``, ``daskflow.<path>`` is the attribute chain of
``tensorflow.compat.v1`` or else the module ``tensorflow.<path>``, and
``daskflow.examples.tutorials.mnist.input_data`` reads MNIST files with
daskflow's reader (TF 2 has no ``input_data``), so both engines see the same
examples. Under ``--engine daskflow`` nothing is bound: a name daskflow lacks
fails as it would for a user.

Each run gets a fresh working directory holding ``MNIST_data/`` (see
:mod:`stand_ins`) and whatever the program's folder's ``data.py`` makes;
numpy's, Python's and the graph-level random seeds are ``--seed``. A program
that sets its own seeds gets them shifted by ``--seed`` (see :func:`shift_seeds`):
seed 0 runs it exactly as written, and further seeds measure how much its result
moves with the draw, which is the spread a daskflow run is judged against
(daskflow's random streams are not TF's Philox streams, so a fixed seed gives
another draw from the same distributions, not TF's draw).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import linecache
import numbers
import os
import pathlib
import re
import select
import signal
import sys
import tempfile
import time
import traceback
import types

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "programs"))

import shapes  # noqa: E402 - after the path above
import stand_ins  # noqa: E402

NUMBER = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b"
DEFAULT_TIMEOUT_S = 120


def header(path):
    """The ``# Key: value`` lines at the top of a program, as a dict."""
    fields = {}
    for line in pathlib.Path(path).read_text(errors="replace").splitlines():
        match = re.match(r"#\s*(Source|Licence|Changed|Result|Timeout):\s*(.*)$", line)
        if match:
            fields[match[1].lower()] = match[2].strip()
        elif line.strip() and not line.startswith("#"):
            break
    return fields


def time_limit(path):
    """Seconds a run of `path` may take: its header's ``# Timeout:`` (default 120), or more
    where ``CONFORMANCE_TIMEOUTS`` names a JSON file of ``{program: seconds}`` (the driver
    gives daskflow ten times TF's own time, so a slow kernel is not taken for a failure)."""
    limit = int(header(path).get("timeout", DEFAULT_TIMEOUT_S))
    table = os.environ.get("CONFORMANCE_TIMEOUTS")
    if table:
        key = os.path.relpath(path, HERE).replace(os.sep, "/")
        limit = max(limit, int(json.loads(pathlib.Path(table).read_text()).get(key, 0)))
    return limit


def result_numbers(stdout, pattern=None):
    """The result a program printed: the groups of the last match of `pattern`
    (its header's ``# Result:``), or else the numbers of the last line with one."""
    if pattern:
        matches = list(re.finditer(pattern, stdout, flags=re.MULTILINE))
        if not matches:
            return []
        groups = matches[-1].groups() or (matches[-1][0],)
        return [float(g) for g in groups if g is not None and re.fullmatch(NUMBER, g.strip())]
    for line in reversed(stdout.splitlines()):
        found = re.findall(NUMBER, line)
        if found:
            return [float(n) for n in found]
    return []


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy."""

    def __init__(self, stream):
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text):
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def isatty(self):
        return False

    @property
    def encoding(self):
        return getattr(self.stream, "encoding", "utf-8")


# --- TF's side: daskflow's module names bound to TensorFlow's ----------------------------


class _TensorFlowAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``daskflow`` and ``daskflow.*`` and answers with TF's modules."""

    def __init__(self, tf, extras):
        self.tf, self.extras = tf, extras

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "daskflow" or fullname.startswith("daskflow."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return self.resolve(spec.name)

    def exec_module(self, module):
        pass

    def resolve(self, fullname):
        if fullname in self.extras:
            return self.extras[fullname]
        parts = fullname.split(".")[1:]
        if parts[:2] == ["compat", "v1"]:
            parts = parts[2:]
        obj = self.tf
        for part in parts:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if isinstance(obj, types.ModuleType):
            return obj
        # Internal paths (tensorflow.python.*) and others compat.v1 does not export.
        return importlib.import_module("tensorflow." + ".".join(fullname.split(".")[1:]))


def _package(name, **attributes):
    module = types.ModuleType(name)
    module.__path__ = []
    module.__dict__.update(attributes)
    return module


def install_tensorflow():
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # compat.v1.layers and rnn_cell need tf_keras
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    import harness
    import run_tf1
    import tf_keras  # noqa: F401 - loaded once here, not in each forked run

    datasets = harness.load_datasets_file()
    input_data = _package("daskflow.examples.tutorials.mnist.input_data")
    input_data.read_data_sets = harness.read_data_sets_for(datasets)
    input_data.DataSet = datasets.DataSet
    contrib = run_tf1.contrib_module()
    tf.contrib = contrib  # TF 1.x's tf.contrib.rnn cells are nn.rnn_cell's; TF 2 has no contrib
    extras = {
        "daskflow.examples": _package("daskflow.examples"),
        "daskflow.examples.tutorials": _package("daskflow.examples.tutorials"),
        "daskflow.examples.tutorials.mnist": _package(
            "daskflow.examples.tutorials.mnist", input_data=input_data
        ),
        "daskflow.examples.tutorials.mnist.input_data": input_data,
        "daskflow.contrib": contrib,
        "daskflow.contrib.rnn": contrib.rnn,
        "daskflow.contrib.layers": contrib.layers,
    }
    extras["daskflow.examples"].tutorials = extras["daskflow.examples.tutorials"]
    extras["daskflow.examples.tutorials"].mnist = extras["daskflow.examples.tutorials.mnist"]
    sys.meta_path.insert(0, _TensorFlowAliases(tf, extras))
    return tf


def install_daskflow():
    import harness

    import daskflow

    try:
        from daskflow.examples.tutorials.mnist import input_data
    except ImportError:
        return
    input_data.read_data_sets = harness.read_data_sets_for(input_data)
    return daskflow


# --- running ---------------------------------------------------------------------------


def _first_failure(path, error):
    """The program's own line that raised `error`, as ``line N: source``."""
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.samefile(frame.filename, path) if os.path.exists(frame.filename) else False:
            where = f"line {frame.lineno}: {(frame.line or linecache.getline(path, frame.lineno)).strip()}"
    return where


def _describe(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:500]


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so programs' ``except Exception`` let it through."""


def run(path, engine, seed, tf):
    """Run the program at `path` under `engine` (module `tf`) in a fresh directory; the report."""
    import random

    path = str(pathlib.Path(path).resolve())
    fields = header(path)
    timeout = time_limit(path)
    workdir = tempfile.mkdtemp(prefix="conformance-")
    stand_ins.populate(workdir, pathlib.Path(path).parent)
    os.chdir(workdir)
    tf.set_random_seed(seed)
    calls = shapes.watch(tf, path)
    import harness
    import numpy

    harness.headless_pyplot()
    numpy.random.seed(seed)
    random.seed(seed)
    shift_seeds(seed, tf, numpy.random, random)
    sys.argv = [path]
    sys.path.insert(0, str(pathlib.Path(path).parent))
    report = {"engine": engine, "program": os.path.relpath(path, REPO), "seed": seed}
    tee = _Tee(sys.stdout)
    sys.stdout = tee

    def alarm(signum, frame):
        raise _Timeout(f"no result in {timeout} s")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    start = time.perf_counter()
    try:
        import runpy

        runpy.run_path(path, run_name="__main__")
        report["status"] = "ok"
    except SystemExit as stop:
        report["status"] = "ok" if stop.code in (None, 0) else "error"
        if report["status"] == "error":
            report.update(error=f"SystemExit: {stop.code}", where=_first_failure(path, stop))
    except _Timeout as error:
        report.update(status="timeout", error=str(error), where=_first_failure(path, error))
    except BaseException as error:  # noqa: BLE001 - any failure of the program is its result
        report.update(status="error", error=_describe(error), where=_first_failure(path, error))
        traceback.print_exc()
    finally:
        signal.alarm(0)
        sys.stdout = tee.stream
    _save_shapes(calls, engine, path)
    report["seconds"] = round(time.perf_counter() - start, 2)
    report["result"] = result_numbers(tee.copy.getvalue(), fields.get("result"))
    return report


def shift_seeds(offset, *modules):
    """Make each ``set_random_seed`` / ``set_seed`` / ``seed`` function of `modules` (and
    of ``tf.random``) add `offset` to an integer seed a program gives it; 0 leaves them."""
    if not offset:
        return
    owners = [*modules, getattr(modules[0], "random", None)]
    for owner in filter(None, owners):
        for name in ("set_random_seed", "set_seed", "seed"):
            original = getattr(owner, name, None)
            if callable(original) and not isinstance(original, types.ModuleType):
                setattr(owner, name, _shifted(original, offset))


def _shifted(original, offset):
    def set_seed(seed=None, *args, **kwargs):
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            seed += offset
        return original(seed, *args, **kwargs)

    return set_seed


def _save_shapes(calls, engine, path):
    """With ``CONFORMANCE_SHAPES`` set to a folder, write the fetched tensors' shapes there."""
    folder = os.environ.get("CONFORMANCE_SHAPES")
    if folder:
        key = os.path.relpath(path, HERE).replace("/", "__").removesuffix(".py")
        pathlib.Path(folder, f"{engine}__{key}.json").write_text(json.dumps(calls))


def run_forked(path, engine, seed, tf):
    """:func:`run` in a child process; the report (a crash or a hang is reported too)."""
    timeout = time_limit(path) + 30
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            report = run(path, engine, seed, tf)
        except BaseException as error:  # noqa: BLE001 - the runner's own failure, reported
            report = {"status": "error", "error": "runner: " + _describe(error), "where": "", "result": []}
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(write_end, json.dumps(report).encode())
        # Threads a program left running (queue runners it never joined) must not keep it alive.
        os._exit(0)
    os.close(write_end)
    return _collect(pid, read_end, timeout, path, engine, seed)


def _collect(pid, read_end, timeout, path, engine, seed):
    """The child's report from the pipe; the child killed if it outlives `timeout`."""
    data, status, deadline = b"", None, time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_end], [], [], remaining)
        if ready:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:  # the child exited
                break
            data += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if data:
        return json.loads(data)
    base = {"engine": engine, "program": os.path.relpath(path, REPO), "seed": seed, "result": [], "where": ""}
    if remaining <= 0:
        return {**base, "status": "timeout", "error": f"killed after {timeout} s"}
    return {**base, "status": "error", "error": f"crashed (wait status {status})"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--engine", choices=("tf", "daskflow"), required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args(argv)
    tf = install_tensorflow() if args.engine == "tf" else install_daskflow()
    home = os.getcwd()
    for program in args.programs:
        path = str(pathlib.Path(home, program).resolve())
        for seed in args.seeds:
            report = run_forked(path, args.engine, seed, tf)
            print("\nCONFORMANCE " + json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
