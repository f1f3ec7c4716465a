"""A between-graph session's side of the variables its job shares (:mod:`..worker.between_graph`).

The session does not hold these variables: their workers do. It records
their definitions there when it plans a step (so that clients building
different variables under one name are refused before any value changes),
and writes and restores checkpoints where they live.
"""

from __future__ import annotations

import time
import uuid

from ...errors import AbortedError, InvalidArgumentError
from ..checkpoint import read_variable, shard_groups, shard_records
from ..wire.between_graph import Definition
from ..worker import between_graph_tasks as on_ps
from . import plugins, recovery
from .devices import cluster_workers, place, scheduler_identity


def definitions(lowered) -> dict:
    """Worker address -> ``{variable name: Definition}`` of the variables ``lowered`` uses."""
    out: dict = {}
    for name, op in lowered.variable_ops.items():
        home = lowered.shared_homes[name]
        shape = op.outputs[0].shape
        dims = None if shape.dims is None else tuple(shape.as_list())
        definition = Definition(dims, op.outputs[0].dtype.base_dtype.name, home.name)
        out.setdefault(home.address, {})[name] = definition
    return out


def define(client, job, lowered):
    """Record the definitions of ``lowered``'s variables on their workers, or refuse the plan.

    Raises
    ------
    InvalidArgumentError
        Naming a variable another client of the job defined differently.
    """
    for address, defs in definitions(lowered).items():
        try:
            # Made again when a comm closes under it (a task of the job leaving meanwhile).
            plugins.retried(client.run, on_ps.define, job, defs, workers=[address])
        except InvalidArgumentError as e:
            raise InvalidArgumentError(None, None, e.message) from None


def _homes(runtime, names) -> dict:
    """Variable name -> the worker its device names, for ``names``."""
    workers, soft = runtime.workers(), runtime.config.allow_soft_placement
    devices = {name: _device_of(runtime, name) for name in names}
    return {name: place(device, workers, soft)[0] for name, device in devices.items()}


def _device_of(runtime, name):
    for lowered in runtime._plans.values():
        op = lowered.variable_ops.get(name)
        if op is not None:
            return op.device
    return runtime.graph.get_operation_by_name(name).device


def _on(client, address, fn, *args, key=None):
    """``fn(*args)`` as a task on the worker at ``address``, there only."""
    return client.submit(fn, *args, workers=[address], allow_other_workers=False, key=key, pure=False)


def write_checkpoint(runtime, names, shard_url):
    """Write each worker's shard of the variables' newest values: ``({name: record}, shards)``."""
    client, job, tag = runtime.client, runtime.shared_job, uuid.uuid4().hex[:8]
    homes = _homes(runtime, names)
    shards = shard_groups({name: [homes[name].address] for name in names})
    writes = [
        _on(
            client,
            address,
            on_ps.write_checkpoint_shard,
            job,
            group,
            shard_url(i, len(shards)),
            key=f"checkpoint-write-{tag}-{i}",
        )
        for i, (address, group) in enumerate(shards)
    ]
    return shard_records(client.gather(writes)), len(shards)


def read_checkpoint(runtime, files):
    """Read every variable's file on its worker; give the job those values only if all read."""
    client, job, tag = runtime.client, runtime.shared_job, uuid.uuid4().hex[:8]
    homes = _homes(runtime, files)
    reads = {
        name: _on(client, homes[name].address, read_variable, url, record, key=f"checkpoint-read-{tag}-{i}")
        for i, (name, (url, record, _)) in enumerate(files.items())
    }
    client.gather(list(reads.values()))  # raises the first reading error: nothing has changed
    by_home: dict = {}
    for name, future in reads.items():
        by_home.setdefault(homes[name].address, {})[name] = future
    client.gather([_on(client, address, on_ps.restore, job, values) for address, values in by_home.items()])


def variable_futures(runtime) -> dict:
    """``{name: Future}`` of the newest value of each variable the session's steps use."""
    names = {name for lowered in runtime._plans.values() for name in lowered.variable_ops}
    homes = _homes(runtime, names)
    job = runtime.shared_job
    return {
        name: _on(runtime.client, homes[name].address, on_ps.read_value, job, name) for name in sorted(names)
    }


def reset(client, job):
    """Forget ``job``'s variables on every worker of the cluster (``Session.reset``).

    By Dask's ``run``, as any client may: TF1's ``Session.reset`` has no session whose
    secret could prove a call of daskflow's, and workers take no unproved drop."""
    plugins.retried(client.run, on_ps.drop, job)  # again if a task leaves meanwhile


def initialized(client, job) -> set:
    """The names of ``job``'s variables that have a value, on any worker."""
    found = plugins.retried(client.run, on_ps.names, job)  # again if a task leaves meanwhile
    return {name for names in found.values() for name in names}


def recover(runtime, lost) -> dict:
    """After workers ``lost`` left: wait for those holding the job's variables to come back
    under their names, and give them the newest copy of their variables (another client
    may have done it first); what was found and done, for ``Session.recoveries``.

    Raises
    ------
    AbortedError
        If they do not come back within ``recovery_timeout_secs``, or no copy is left.
    """
    start = time.monotonic()
    homes = {home.name for lowered in runtime._plans.values() for home in lowered.shared_homes.values()}
    awaited = sorted(set(lost) & homes)
    give_up = getattr(runtime.config, "recovery_timeout_secs", 60.0)
    while True:
        here = runtime.workers_now()
        if all(name in here for name in awaited):
            break
        if time.monotonic() - start > give_up:
            raise AbortedError(
                None,
                None,
                f"the workers {awaited} holding the job's variables did not come back in {give_up:g} s",
            )
        time.sleep(recovery.POLL)
    restored = [name for name in awaited if _restore(runtime.client, runtime.shared_job, name, here)]
    return {"lost": sorted(lost), "stand_ins": {}, "restored": restored, "seconds": time.monotonic() - start}


def _restore(client, job, name, addresses) -> bool:
    """Give worker ``name`` (back, empty) the newest copy of its variables; whether this did."""
    held = client.run(on_ps.newest_copy, job, name)
    held = {address: updates for address, updates in held.items() if updates is not None}
    if not held:
        raise AbortedError(
            None,
            None,
            f"the variables on {name} were lost with it and no copy was kept (the ps sends one every "
            "ConfigProto(backup_variables_secs=) with updates, to another worker): restore a checkpoint",
        )
    newest = max(held, key=held.get)
    return client.run(on_ps.restore_from, job, newest, workers=[addresses[name]])[addresses[name]]


def worker_ids(client, names=None) -> dict:
    """Worker name -> the token of its daskflow state, of the workers named ``names`` (all,
    if None) that answer: a worker that died and came back under its name, even at its
    old address, has another."""
    workers = cluster_workers(scheduler_identity(client))
    addresses = {w.name: w.address for w in workers if names is None or w.name in names}
    found = client.run(on_ps.incarnation, workers=list(addresses.values()), on_error="ignore")
    return {name: found[address] for name, address in addresses.items() if address in found}
