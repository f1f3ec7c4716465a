"""``hvd.run``: a Horovod job as tasks on the Dask workers a user already runs.

Horovod's ``horovod.run(fn, np=N)`` starts N processes and calls ``fn`` in
each. Here the processes are the cluster's own ``dask worker``s: ``run``
submits one task per rank, each pinned to its own worker process, which sets
the rank's Horovod environment (place, the job's name and a fresh secret),
calls ``fn`` (which calls ``hvd.init()`` as any Horovod function does), and
leaves the job when ``fn`` returns. The ranks meet through the cluster's
scheduler; their values go from worker to worker over the ranks' own
receivers.
"""

from __future__ import annotations

import os
import secrets

from . import basics


def run(func, args=(), kwargs=None, np=1, client=None, workers=None):
    """Run ``func(*args, **kwargs)`` as ``np`` Horovod ranks on Dask workers; their results in
    rank order (Horovod's ``horovod.run``).

    Parameters
    ----------
    func : callable
        The training function; it calls ``hvd.init()`` and uses the ranks as a Horovod
        script does. It and its arguments travel to the workers (cloudpickle).
    args, kwargs : optional
        Its arguments.
    np : int
        How many ranks: each on its own worker process.
    client : distributed.Client, optional
        The cluster's client (default: the current one, or ``DASK_SCHEDULER_ADDRESS``'s).
    workers : list of str, optional
        The workers to run on (addresses or names), in rank order; default: the first ``np``
        worker processes, by host then address.

    Returns
    -------
    list
        ``func``'s result on each rank.

    Raises
    ------
    ValueError
        Fewer than ``np`` worker processes to run on.
    """
    from distributed import get_client  # local import: graph-building code never loads Dask

    client = client or get_client()
    chosen = _choose(client, np, workers)
    hosts = [_host(address) for address in chosen]
    job, secret = f"run-{secrets.token_hex(6)}", secrets.token_hex(32)
    futures = []
    for rank, address in enumerate(chosen):
        on_host = [i for i, h in enumerate(hosts) if h == hosts[rank]]
        env = {
            "HOROVOD_RANK": str(rank),
            "HOROVOD_SIZE": str(np),
            "HOROVOD_LOCAL_RANK": str(on_host.index(rank)),
            "HOROVOD_LOCAL_SIZE": str(len(on_host)),
            "HOROVOD_CROSS_RANK": str(sorted(set(hosts)).index(hosts[rank])),
            "HOROVOD_CROSS_SIZE": str(len(set(hosts))),
            "DASKFLOW_HOROVOD_JOB": job,
            "DASKFLOW_HOROVOD_SECRET": secret,
        }
        pinned = {"workers": [address], "allow_other_workers": False, "pure": False}
        key = f"{job}-rank-{rank}"
        futures.append(client.submit(_rank, func, args, kwargs or {}, env, key=key, **pinned))
    return client.gather(futures)


def _choose(client, np, workers):
    """``np`` worker addresses, one per process (a rank's communicator is its process's)."""
    info = client.scheduler_info(n_workers=-1)["workers"]
    by_name = {str(w.get("name")): address for address, w in info.items()}
    if workers is not None:
        chosen = [by_name.get(str(w), w) for w in workers][:np]
        unknown = [w for w in chosen if w not in info]
        if unknown:
            raise ValueError(f"hvd.run: no such Dask worker(s): {unknown}")
    else:
        chosen = sorted(info, key=lambda a: (_host(a), a))
    pids = client.run(os.getpid, workers=chosen)
    seen: set = set()
    processes = {a: (_host(a), pids[a]) for a in chosen}  # pids repeat across hosts (containers)
    distinct = [a for a in chosen if not (processes[a] in seen or seen.add(processes[a]))]
    if len(distinct) < np:
        raise ValueError(
            f"hvd.run(np={np}): only {len(distinct)} Dask worker process(es) to run on; "
            "each rank needs its own"
        )
    return distinct[:np]


def _host(address: str) -> str:
    from distributed.comm import get_address_host  # local import: graph-building code never loads Dask

    return get_address_host(address)


def _rank(func, args, kwargs, env):
    """One rank, in its worker: the job's environment while ``func`` runs, then leave."""
    from distributed import get_worker  # local import: graph-building code never loads Dask

    env = {**env, "DASK_SCHEDULER_ADDRESS": get_worker().scheduler.address}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return func(*args, **kwargs)
    finally:
        basics.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
