"""Dask's private names are used only in ``daskflow/runtime/dask_compat.py``.

The rule, checked on every daskflow module but ``dask_compat.py`` by parsing
it with ``ast`` (nothing is imported):

1. Imports. ``import M`` / ``from M import N`` where M is ``dask``,
   ``distributed`` or one of their submodules must name a module of
   :data:`PUBLIC` and, for ``from`` imports, a name that module's entry lists
   (``"*"``: any name not starting with ``_``). The entries are what Dask's
   documentation presents as API (docs.dask.org, distributed.dask.org:
   api, communications, foundations, protocol, serialization, plugins,
   high-level graphs, the task spec) and ``distributed.__all__``. A name
   starting with ``_`` is private wherever it comes from.
2. Members of Dask's objects. ``R.m`` (read, written or called) where ``R``
   names a Dask worker, scheduler, client or batched stream — a variable or
   attribute called as in :data:`RECEIVERS`, or ``get_worker()`` — and ``m``
   is in that kind's :data:`PRIVATE_MEMBERS` or starts with ``_``. Those
   members are the servers' internal state (distributed's "Scheduling State"
   and "Worker State" pages say all of it is an internal detail), their event
   loops, connection pools and comm handler tables. And ``R.scheduler.m``
   for a worker or client ``R`` and any ``m`` but ``address``: a call of one
   of the scheduler's comm handlers (``Client.scheduler_info`` is the API).
3. ``.get_data(...)`` anywhere: Dask's worker-to-worker handler, which has a
   handshake a bare call leaves unanswered.

A failure names ``file:line`` and what was used; the fix is a small named
function in ``dask_compat.py`` saying what it relies on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "daskflow"
COMPAT = PACKAGE / "runtime" / "dask_compat.py"

ANY = "*"
PUBLIC: dict[str, object] = {
    "dask": ANY,
    "dask.config": ANY,
    "dask.utils": {"parse_bytes", "parse_timedelta", "format_bytes", "format_time", "apply"},
    "dask.sizeof": {"sizeof"},
    "dask.highlevelgraph": {"HighLevelGraph", "Layer", "MaterializedLayer"},
    "dask.task_spec": {"Task", "TaskRef", "DataNode", "Alias", "List", "Dict", "Tuple", "Set"},
    "dask.typing": ANY,
    "distributed": ANY,  # and for `from distributed import`, its __all__ (below)
    "distributed.diagnostics.plugin": {"SchedulerPlugin", "WorkerPlugin", "NannyPlugin"},
    "distributed.comm": {
        "Comm",
        "CommClosedError",
        "connect",
        "listen",
        "parse_address",
        "unparse_address",
        "normalize_address",
        "resolve_address",
        "get_address_host",
    },
    "distributed.comm.core": {"Comm", "Listener", "CommClosedError"},
    "distributed.comm.registry": {"Backend"},
    "distributed.core": {"Server", "rpc", "connect"},
    "distributed.protocol": {"to_serialize", "serialize", "deserialize"},
    "distributed.protocol.serialize": {
        "serialize",
        "deserialize",
        "register_serialization",
        "register_serialization_family",
    },
    "distributed.security": {"Security"},
    "distributed.utils": {"Log", "Logs"},
}

RECEIVERS = {
    "worker": {"worker", "dask_worker"},
    "scheduler": {"scheduler", "dask_scheduler"},
    "client": {"client", "dask_client"},
    "stream": {"stream", "batched_stream", "scheduler_comm"},
}

_SERVER = {"rpc", "loop", "handlers", "stream_handlers", "periodic_callbacks", "http_application"}
PRIVATE_MEMBERS = {
    "worker": _SERVER
    | {
        "data",
        "state",
        "batched_stream",
        "executors",
        "extensions",
        "plugins",
        "handle_stimulus",
        "transfer_outgoing_count",
        "transfer_outgoing_bytes",
    },
    "scheduler": _SERVER
    | {
        "workers",
        "tasks",
        "task_groups",
        "stream_comms",
        "client_comms",
        "worker_plugins",
        "plugins",
        "broadcast",
        "transitions",
        "unrunnable",
    },
    "client": {"rpc", "loop", "scheduler_comm", "io_loop"},
    "stream": {"interval", "comm", "buffer", "send"},
}


def _distributed_all() -> set:
    import distributed

    return set(distributed.__all__)


def _dask_module(name: str | None) -> bool:
    return bool(name) and name.split(".")[0] in ("dask", "distributed")


def _import_findings(node) -> list[str]:
    if isinstance(node, ast.Import):
        return [
            f"import {a.name}"
            for a in node.names
            if _dask_module(a.name) and (a.name not in PUBLIC or "._" in "." + a.name)
        ]
    if not isinstance(node, ast.ImportFrom) or node.level or not _dask_module(node.module):
        return []
    allowed = PUBLIC.get(node.module)
    out = []
    for alias in node.names:
        name = alias.name
        if node.module == "distributed":
            ok = name in _distributed_all()
        elif allowed is None:
            ok = False
        else:
            ok = not name.startswith("_") and (allowed == ANY or name in allowed)
        if not ok:
            out.append(f"from {node.module} import {name}")
    return out


def _receiver_kind(node) -> str | None:
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr.lstrip("_")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
        func = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        return "worker" if func == "get_worker" else None
    else:
        return None
    return next((kind for kind, names in RECEIVERS.items() if name in names), None)


def _member_finding(node: ast.Attribute) -> str | None:
    if node.attr == "get_data":
        return ".get_data (Dask's worker-to-worker handler)"
    inner = node.value
    if isinstance(inner, ast.Attribute) and inner.attr == "scheduler" and node.attr != "address":
        kind = _receiver_kind(inner.value)
        if kind in ("worker", "client"):  # its comms to the scheduler: a handler of Dask's
            return f"{kind}.scheduler.{node.attr}"
    kind = _receiver_kind(node.value)
    if kind is None:
        return None
    private = node.attr in PRIVATE_MEMBERS[kind]
    private |= node.attr.startswith("_") and not node.attr.startswith("__")
    return f"{kind}.{node.attr}" if private else None


def findings(source: str, filename: str) -> list[str]:
    """``"file:line: what"`` for each private Dask use in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source, filename)):
        for what in _import_findings(node):
            out.append(f"{filename}:{node.lineno}: {what}")
        if isinstance(node, ast.Attribute):
            what = _member_finding(node)
            if what:
                out.append(f"{filename}:{node.lineno}: {what}")
    return sorted(set(out), key=lambda s: (s.split(":")[0], int(s.split(":")[1]), s))


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if p != COMPAT)


def test_private_dask_names_only_in_dask_compat():
    found = []
    for path in _modules():
        found += findings(path.read_text(), str(path.relative_to(ROOT)))
    assert not found, "private Dask names outside daskflow/runtime/dask_compat.py:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "snippet, what",
    [
        ("from distributed.utils import sync", "from distributed.utils import sync"),
        ("from distributed.worker import get_data_from_worker", "from distributed.worker import"),
        ("from distributed.protocol import pickle", "from distributed.protocol import pickle"),
        ("import distributed.utils_comm", "import distributed.utils_comm"),
        ("from dask.utils import key_split", "from dask.utils import key_split"),
        ("from distributed.client import _wait", "from distributed.client import _wait"),
        ("worker.rpc(address)", "worker.rpc"),
        ("def f(dask_worker):\n    return dask_worker.loop", "worker.loop"),
        ("self.scheduler.workers", "scheduler.workers"),
        ("stream.interval = 0", "stream.interval"),
        ("client._send_to_scheduler({})", "client._send_to_scheduler"),
        ("get_worker().data", "worker.data"),
        ("client.scheduler.identity()", "client.scheduler.identity"),
        ("await worker.scheduler.who_has(keys=[k])", "worker.scheduler.who_has"),
        ("await comm.get_data(keys=[k])", ".get_data"),
    ],
)
def test_the_rule_names_each_kind_of_private_use(snippet, what):
    found = findings(snippet, "daskflow/x.py")
    assert len(found) == 1 and found[0].startswith("daskflow/x.py:") and what in found[0], found


@pytest.mark.parametrize(
    "snippet",
    [
        "from distributed import Client, get_worker, futures_of, WorkerPlugin",
        "from distributed.comm import get_address_host, parse_address",
        "from distributed.protocol import to_serialize",
        "from dask.task_spec import Task, TaskRef, DataNode",
        "import dask.config",
        "worker.address; worker.name; scheduler.address; client.submit; client.scheduler.address",
        "placement.worker.job",  # daskflow's own worker records: members Dask's objects lack
    ],
)
def test_the_rule_lets_public_api_through(snippet):
    assert findings(snippet, "daskflow/x.py") == []


def test_compat_module_is_where_they_are():
    # The rule would flag dask_compat.py itself: it is the one place that may.
    assert findings(COMPAT.read_text(), "dask_compat.py")
