"""A real local Dask cluster whose workers carry TF job names.

``local_cluster(ps=1, workers=2)`` starts a scheduler and worker processes
named ``ps-0``, ``worker-0``, ``worker-1`` — the names a ``dask worker
--name`` command line would give — so ``/job:ps/task:0`` and
``/job:worker/task:1`` find their workers. For notebooks and tests; a
deployment starts the same workers with ``dask scheduler`` / ``dask worker``.

Worker processes are started with ``spawn``, which runs the script that
called ``local_cluster`` again in each of them: a script must create the
cluster under ``if __name__ == "__main__":``. Without that guard each
worker process would try to start a cluster of its own; it stops instead,
and ``local_cluster`` raises one :class:`RuntimeError` saying so.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import tempfile

import dask
from distributed import Nanny, Scheduler, SpecCluster, Worker

from .kernels.devices import gpu_count

# Dask's background sampling, turned down for training. At Dask's defaults an
# idle three-worker cluster spends a noticeable share of a core on it (about five
# times what it does with these settings; benchmarks/RESULTS.md, design
# measurements). While training, the profiler also samples each busy worker
# 100 times a second. On a machine whose
# cores are all busy computing replicas, that CPU comes out of the replicas' time.
LIGHT_MONITORING = {
    "distributed.worker.profile.enabled": False,  # the dashboard's Profile page stays empty
    "distributed.admin.tick.interval": "1s",  # event-loop stall warnings still come past 3 s
    "distributed.admin.system-monitor.interval": "1s",  # the dashboard's System page: each second
    "distributed.worker.memory.monitor-interval": "500ms",  # memory limits are checked twice a second
}


def _bound(address, host):
    """A dashboard address without a host (``":0"``) on the cluster's ``host``: Dask would
    bind it on every interface."""
    if address and host and str(address).startswith(":"):
        return f"{host}{address}"
    return address


def local_cluster(
    ps=1,
    workers=2,
    gpu_workers=0,
    gpus=0,
    threads_per_worker=1,
    processes=True,
    memory_limit="2GiB",
    dashboard_address=":0",
    host="127.0.0.1",
    security=None,
    light_monitoring=True,
    dashboard_page=True,
    **worker_options,
):
    """Start a local Dask cluster with named roles.

    Parameters
    ----------
    ps, workers : int
        Parameter-server workers (``ps-<i>``) and compute workers (``worker-<i>``).
    gpu_workers : int
        Extra compute workers, each offering one GPU (``resources={"GPU": 1}``),
        named after the CPU workers (``worker-<workers + i>``). Where the
        process has no GPU, their GPU partitions run with numpy.
    gpus : int or "all"
        GPU workers on this machine's GPUs, one GPU each: worker
        ``worker-<workers + gpu_workers + i>`` sees GPU ``i`` alone
        (``CUDA_VISIBLE_DEVICES``) as its ``/device:GPU:0``. Needs worker
        processes, and cupy seeing that many GPUs here.
    processes : bool
        Worker processes under Nannies (the default), or threads in this process.
    security : distributed.Security, optional
        Run over TLS with these certificates (e.g. ``Security.temporary()``);
        connect with ``tf.Session(cluster.scheduler_address, security=...)``.
    light_monitoring : bool
        Apply :data:`LIGHT_MONITORING` to the scheduler and the workers: less of
        Dask's background sampling (no statistical profiler), so more CPU for
        training. ``False`` keeps your Dask configuration as it is.
    dashboard_page : bool
        Serve daskflow's page at ``/daskflow`` in the dashboard (the scheduler
        preloads :mod:`daskflow.dashboard`). ``False``: Dask's pages only, and
        sessions send the scheduler no records.

    Returns
    -------
    distributed.SpecCluster
        Pass it (or its ``scheduler_address``) to ``tf.Session``. Its
        dashboard (``cluster.dashboard_link``) has daskflow's page at ``/daskflow``.

    Examples
    --------
    >>> import daskflow as tf
    >>> cluster = tf.local_cluster(ps=1, workers=2)  # doctest: +SKIP
    >>> sess = tf.Session(cluster)  # doctest: +SKIP
    """
    if processes:
        _stop_if_reimported()
    gpus = _gpus_wanted(gpus, processes)
    gpu_workers += gpus
    if min(ps, workers, gpu_workers) < 0 or ps + workers + gpu_workers == 0:
        raise ValueError(f"need a non-negative count of each role and one worker at least: {ps=}, {workers=}")
    cls = Nanny if processes else Worker
    tls = {} if security is None else {"security": security}
    base = {"nthreads": threads_per_worker, "memory_limit": memory_limit, "host": host}
    base["dashboard_address"] = _bound(":0", host)  # each worker's page too, where the cluster is
    if processes:  # as LocalCluster does: a worker process logs warnings and errors only
        base["silence_logs"] = logging.WARNING
    base.update(tls, **worker_options)
    spec = {}
    for i in range(ps):
        spec[f"ps-{i}"] = {"cls": cls, "options": {**base, "name": f"ps-{i}"}}
    for i in range(workers + gpu_workers):
        options = {**base, "name": f"worker-{i}"}
        if i >= workers:
            options["resources"] = {"GPU": 1}
        pinned = i - (workers + gpu_workers - gpus)
        if pinned >= 0:
            options["env"] = {**options.get("env", {}), "CUDA_VISIBLE_DEVICES": str(pinned)}
        spec[f"worker-{i}"] = {"cls": cls, "options": options}
    options = {
        "host": host,
        "dashboard_address": _bound(dashboard_address, host),
        **_preloads(dashboard_page),
        **tls,
    }
    if security is not None:
        options["protocol"] = "tls://"
    scheduler = {"cls": Scheduler, "options": options}
    # The scheduler and each Nanny read the configuration as they start, inside
    # this call; a Nanny hands its copy to its worker process.
    watch = _reimport_watch() if processes else contextlib.nullcontext(lambda: False)
    config = dask.config.set(LIGHT_MONITORING if light_monitoring else {})
    with config, watch as reimported, _environment_kept():
        try:
            return SpecCluster(
                workers=spec,
                scheduler=scheduler,
                name="daskflow",
                silence_logs=logging.WARNING,
                security=security,
            )
        except Exception:
            if reimported():
                raise RuntimeError(MAIN_GUARD_MESSAGE) from None
            raise


def _gpus_wanted(gpus, processes) -> int:
    """How many GPU workers ``gpus`` asks for, checked against this machine's GPUs."""
    have = gpu_count() if gpus else 0
    wanted = have if gpus == "all" else int(gpus)
    if wanted < 0 or wanted > have or gpus == "all" and not have:
        raise ValueError(f"local_cluster(gpus={gpus!r}): this machine has {have} GPU(s) cupy can use")
    if wanted and not processes:
        raise ValueError(f"local_cluster(gpus={gpus!r}) needs processes=True: each worker sees its own GPU")
    return wanted


def _preloads(page=True) -> dict:
    """The scheduler's preloads: those configured, and daskflow's dashboard page if ``page``."""
    configured = dask.config.get("distributed.scheduler.preload", None) or []
    configured = [configured] if isinstance(configured, str) else list(configured)
    argv = list(dask.config.get("distributed.scheduler.preload-argv", None) or [])
    if not page:
        return {"preload": configured, "preload_argv": argv}
    if argv and not isinstance(argv[0], str):  # one list per preload: ours takes none
        return {"preload": [*configured, "daskflow.dashboard"], "preload_argv": [*argv, []]}
    return {"preload": [*configured, "daskflow.dashboard"], "preload_argv": argv}


MAIN_GUARD_MESSAGE = (
    "tf.local_cluster() ran again in its own worker processes: they import the main script as "
    "they start (multiprocessing 'spawn'), and the script creates the cluster when imported. Put "
    'the cluster\'s creation under `if __name__ == "__main__":`, or pass processes=False'
)
_MARKER = "DASKFLOW_LOCAL_CLUSTER_REIMPORTED"  # a file a worker process creates to tell us


def _stop_if_reimported():
    """In a worker process that is running the main script again as it starts (``spawn``):
    tell the parent, which raises :data:`MAIN_GUARD_MESSAGE`, and end quietly; with no
    parent of ours listening, raise it here."""
    if not getattr(multiprocessing.current_process(), "_inheriting", False):
        return  # multiprocessing's own test of "still bootstrapping" (spawn._check_not_importing_main)
    marker = os.environ.get(_MARKER)
    if not marker:
        raise RuntimeError(MAIN_GUARD_MESSAGE)
    with open(marker, "w"):
        pass
    raise SystemExit(1)  # no traceback: the parent says why, once


@contextlib.contextmanager
def _environment_kept():
    """This process's environment as it was, once the workers have started.

    A Nanny writes its workers' variables (``distributed.nanny.pre-spawn-environ``:
    ``OMP_NUM_THREADS=1``, ``MKL_NUM_THREADS=1``...) into its own process's
    ``os.environ`` to pass them on, and leaves them there: every program this
    process started afterwards (a notebook's subprocesses, numpy's BLAS in a child)
    would run on one thread. A Nanny restarting a lost worker writes them again.
    """
    names = set(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {}) | {"PYTHONHASHSEED"}
    before = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _reimport_watch():
    """While starting worker processes: a test of whether one of them re-ran our caller."""
    with tempfile.TemporaryDirectory(prefix="daskflow-") as folder:
        marker = os.path.join(folder, "reimported")
        before = os.environ.get(_MARKER)
        os.environ[_MARKER] = marker  # worker processes inherit the environment as they spawn
        try:
            yield lambda: os.path.exists(marker)
        finally:
            if before is None:
                os.environ.pop(_MARKER, None)
            else:
                os.environ[_MARKER] = before
