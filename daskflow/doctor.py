"""``daskflow doctor``: what this machine, and a running cluster, offer daskflow.

The first thing to run when something looks wrong. It prints, in a few short
sections, the versions that matter (daskflow, Python, numpy, dask,
distributed, bokeh), numpy's BLAS (the library, the CPU kernels it picked and
its threads), whether numba and cupy are there (and the GPUs cupy sees), and,
given a scheduler's address, the cluster's workers as the TF tasks they are
(``/job:worker/task:0``) with their threads and memory, and what a graph's
device strings reach there.

Nothing here needs TensorFlow. :func:`report` returns the lines; the
``daskflow doctor`` command prints them, and exits with status 1 and a
one-line reason when the scheduler cannot be reached or a worker is no TF task.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import os
import platform
import sys

import dask
import numpy
from dask.utils import format_bytes

from . import __version__
from .kernels.devices import gpu_count

DEFAULT_TIMEOUT = 10.0  # seconds to reach a scheduler
MAX_WORKERS_LISTED = 12  # of a larger cluster: the first ones by job and task, then a count
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_AVX512_KERNELS = {"skylakex", "cooperlake", "sapphirerapids"}  # OpenBLAS's kernels using AVX-512


class DoctorError(Exception):
    """Why the report stops (the message, one line); ``lines``: what it found until then."""

    def __init__(self, reason, lines=()):
        super().__init__(reason)
        self.lines = list(lines)


def report(address=None, timeout=DEFAULT_TIMEOUT) -> list[str]:
    """The doctor's lines: versions, BLAS, numba and cupy, and the cluster at ``address``.

    Parameters
    ----------
    address : str, optional
        A Dask scheduler (``tcp://host:8786``). None: the one Dask's
        configuration names (``DASK_SCHEDULER_ADDRESS``), else none.
    timeout : float, optional
        Seconds to reach the scheduler (default 10).

    Returns
    -------
    list of str

    Raises
    ------
    DoctorError
        If the scheduler cannot be reached within `timeout`, or a worker's
        name is no TF task; its ``lines`` hold the report up to there.

    Examples
    --------
    >>> lines = report()  # no scheduler configured: this machine only
    >>> [line for line in lines if not line.startswith(" ")]
    ['versions', 'blas', 'numba and cupy', 'cluster']
    """
    lines = [*_versions(), *_blas(), *_accelerators()]
    address = address or _configured_scheduler()
    if not address:
        return [*lines, "cluster", "  none given (--scheduler ADDRESS or DASK_SCHEDULER_ADDRESS)"]
    try:
        return [*lines, *_cluster(address, _identity(address, timeout))]
    except DoctorError as e:
        raise DoctorError(str(e), lines) from None


def _row(name, text) -> str:
    return f"  {name:<12} {text}"


def _versions() -> list[str]:
    package = os.path.dirname(os.path.abspath(__file__))
    rows = [_row("daskflow", f"{__version__} ({package})")]
    rows.append(_row("python", f"{platform.python_version()} ({sys.executable})"))
    rows.append(_row("numpy", numpy.__version__))
    for name in ("dask", "distributed", "bokeh"):
        try:
            rows.append(_row(name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            rows.append(_row(name, "not installed"))
    return ["versions", *rows]


def _blas() -> list[str]:
    """numpy's BLAS as threadpoolctl finds it loaded; numpy's build information without it."""
    given = ", ".join(f"{v}={os.environ[v]}" for v in _THREAD_VARIABLES if v in os.environ)
    given = f" ({given})" if given else ""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # a daskflow dependency, but the doctor runs where things are broken
        return ["blas", f"  {_built_blas()}: threads unknown without threadpoolctl{given}"]
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if not pools:
        return ["blas", f"  none loaded that threadpoolctl knows; numpy was built with {_built_blas()}"]
    return ["blas"] + [
        f"  {p.get('internal_api')} {p.get('version') or '?'}, {p.get('architecture') or '?'} kernels, "
        f"{p.get('num_threads')} threads ({p.get('threading_layer') or '?'}){given}{_forced_kernels(p)}"
        for p in pools
    ]


def _forced_kernels(pool) -> str:
    """Where OPENBLAS_CORETYPE chose OpenBLAS's kernels, and narrower ones than the processor
    runs: a matrix product on one core then takes up to twice as long (AVX2 on AVX-512)."""
    forced = os.environ.get("OPENBLAS_CORETYPE")
    if pool.get("internal_api") != "openblas" or not forced:
        return ""
    note = f"; OPENBLAS_CORETYPE={forced} chose them"
    narrow = str(pool.get("architecture") or "").lower() not in _AVX512_KERNELS
    if narrow and "avx512f" in _cpu_flags():
        note += " on a processor with AVX-512: unset it for OpenBLAS's own, wider choice"
    return note


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as info:
            line = next((ln for ln in info if ln.startswith("flags")), "")
    except OSError:  # not Linux: nothing to say
        return set()
    return set(line.partition(":")[2].split())


def _built_blas() -> str:
    """The BLAS numpy was built with, from ``numpy.show_config``'s build information."""
    try:
        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (TypeError, KeyError):  # numpy before 1.25 only prints its configuration
        return "the BLAS numpy.show_config() prints"
    return f"{blas.get('name', '?')} {blas.get('version', '?')}"


def _accelerators() -> list[str]:
    return ["numba and cupy", _row("numba", _numba()), _row("cupy", _cupy())]


def _numba() -> str:
    try:
        import numba
    except Exception as e:  # noqa: BLE001 - missing, or built for another numpy: say which
        return f"unusable ({type(e).__name__}: {e}); kernels run numpy only"
    state = "off (DASKFLOW_JIT=0)" if os.environ.get("DASKFLOW_JIT", "1") == "0" else "on"
    return f"{numba.__version__}, daskflow's compiled loops {state}"


def _cupy() -> str:
    if importlib.util.find_spec("cupy") is None:
        return "not installed; GPU partitions run with numpy"
    import cupy

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    seen = "" if visible is None else f" (CUDA_VISIBLE_DEVICES={visible})"
    return f"{cupy.__version__}, {gpu_count()} GPU(s) seen{seen}"


def _configured_scheduler():
    return dask.config.get("scheduler-address", None) or os.environ.get("DASK_SCHEDULER_ADDRESS")


def _identity(address, timeout) -> dict:
    """The scheduler's ``identity`` (its workers, its dashboard), or DoctorError naming why not."""
    from distributed.core import rpc  # the cluster section only: `daskflow --help` stays quick
    from distributed.security import Security

    async def ask():
        # Dask's configured TLS (distributed.comm.tls), as `dask worker` would use it.
        args = Security().get_connection_args("client")
        async with rpc(address, timeout=timeout, connection_args=args) as scheduler:
            return await scheduler.identity()

    try:
        return asyncio.run(asyncio.wait_for(ask(), timeout))
    except Exception as e:  # noqa: BLE001 - refused, timed out, no such host, bad address: named
        why = str(e) or type(e).__name__
        reason = f"cannot reach the Dask scheduler at {address} within {timeout:g} s: {why}"
        raise DoctorError(reason) from None


def _cluster(address, identity) -> list[str]:
    # local import: the runtime loads distributed, which `import daskflow` (and --help) must not
    from .runtime.cluster.devices import cluster_workers

    port = identity.get("services", {}).get("dashboard")
    host = address.split("://")[-1].rsplit(":", 1)[0]
    dashboard = f" (dashboard http://{host}:{port}/status)" if port else ""
    lines = [f"cluster {identity.get('address', address)}{dashboard}"]
    info = identity.get("workers", {})
    try:
        workers = cluster_workers(identity)
    except ValueError as e:
        raise DoctorError(str(e), lines) from None
    if not workers:
        return [*lines, "  no workers yet (`dask worker ADDRESS --name worker-0` starts one)"]
    width = max(len(f"/job:{w.job}/task:{w.task}") for w in workers)
    for w in workers[:MAX_WORKERS_LISTED]:
        lines.append(f"  {f'/job:{w.job}/task:{w.task}':<{width}}  {_worker(w, info[w.address])}")
    if len(workers) > MAX_WORKERS_LISTED:
        lines.append(f"  ... and {len(workers) - MAX_WORKERS_LISTED} more workers")
    return lines + _jobs(workers)


def _worker(worker, info) -> str:
    threads = info.get("nthreads", "?")
    memory = info.get("memory_limit")
    memory = format_bytes(memory) if memory else "no memory limit"
    gpus = f", {worker.gpus} GPU(s)" if worker.gpus else ""
    return f"{worker.name} at {worker.address}: {threads} thread(s), {memory}{gpus}"


def _jobs(workers) -> list[str]:
    """Which jobs and tasks a graph's device strings can name, and where the rest runs."""
    # local import: the runtime loads distributed, which `import daskflow` (and --help) must not
    from .runtime.cluster.devices import place

    tasks = {}
    for w in workers:
        tasks.setdefault(w.job, []).append(w.task)
    named = "; ".join(f"{job} {_ranges(sorted(found))}" for job, found in sorted(tasks.items()))
    home, _ = place("", workers)  # the session's own rule for an op with no device
    lines = [f"  jobs: {named}"]
    lines.append(f"  an op with no device runs on /job:{home.job}/task:{home.task} ({home.name})")
    if "worker" in tasks:
        replicas = len(tasks["worker"])
        lines.append(f"  a model on /job:worker (no task) runs one replica per worker task ({replicas})")
    return lines


def _ranges(numbers) -> str:
    """Sorted task numbers as ``task 0`` or ``tasks 0-2, 5``."""
    spans = []
    for n in numbers:
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
    return f"task {text}" if len(numbers) == 1 else f"tasks {text}"
