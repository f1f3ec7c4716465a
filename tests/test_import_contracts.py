"""The import contracts of daskflow's layers that hold, checked over every import
(module level or inside a function) with ``ast``; a failure names ``file:line``.

- the runtime (``daskflow/runtime``) never imports the dashboard (``daskflow.dashboard``):
  the dashboard subscribes to the records the runtime emits (``runtime/events.py``);
- graph building (``daskflow/framework``, ``daskflow/ops``) imports no dask or distributed;
- planning (``daskflow/runtime/plan``) imports no distributed (``dask.task_spec`` it may);
- graph building imports no runtime, and the shared kernels (``daskflow/kernels``) neither
  the runtime nor the ops that use them;
- ``framework/`` imports no ``ops/``: a constant packs a list of tensors through the
  tensor conversion registry, where ``ops/array_ops.py`` registers it, as in TF1. Five
  modules that build ops themselves are the exceptions (:data:`FRAMEWORK_BUILDING_OPS`);
- the runtime's rooms import one way, plan -> wire -> worker -> cluster -> session (the
  session's room: ``session.py`` and ``embedded.py``), each importing no room above it:
  planning no other room; moving values (``wire/``) no worker, cluster or session (it
  defines the interface a worker's state fills, ``wire/endpoint.py``, and the worker hands
  its state in); a worker's code no cluster or session (a replica reads its dataset blocks
  in ``worker/sources.py``, the client places them in ``cluster/sources.py``); the
  client's cluster side no session.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

RUNTIME = "daskflow.runtime"
# The runtime's rooms, lowest first; the session's room is two modules.
ROOMS = ("plan", "wire", "worker", "cluster", ("session", "embedded"))


def _above(room: str) -> tuple:
    """The modules of every room above ``room``: what it must not import."""
    names = [r if isinstance(r, str) else r[0] for r in ROOMS]
    higher = ROOMS[names.index(room) + 1 :]
    return tuple(f"{RUNTIME}.{m}" for r in higher for m in ((r,) if isinstance(r, str) else r))


# framework/ modules that build ops (an imported graph's nodes, a loop body's, a sparse or
# indexed-slices tensor's): they stand above ops/ as TF1's do. No other may join them.
FRAMEWORK_BUILDING_OPS = (
    "function.py",
    "graph_export.py",
    "importer.py",
    "indexed_slices.py",
    "sparse_tensor.py",
)

CONTRACTS = [
    ("daskflow/runtime", ("daskflow.dashboard",), ()),
    ("daskflow/framework", ("dask", "distributed"), ()),
    ("daskflow/ops", ("dask", "distributed"), ()),
    ("daskflow/runtime/plan", ("distributed",), ()),
    ("daskflow/framework", (RUNTIME,), ()),
    ("daskflow/ops", (RUNTIME,), ()),
    ("daskflow/kernels", (RUNTIME, "daskflow.ops"), ()),
    ("daskflow/framework", ("daskflow.ops",), FRAMEWORK_BUILDING_OPS),
    *((f"daskflow/runtime/{room}", _above(room), ()) for room in ("plan", "wire", "worker", "cluster")),
]


def _module_name(path: Path) -> list:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported(path: Path, source: str | None = None):
    """``(line, module)`` of each import in ``path``, relative ones made absolute."""
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package[:-1]
    tree = ast.parse(source if source is not None else path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:  # `from . import x` may import a submodule x
                yield node.lineno, module if node.module else f"{module}.{alias.name}"


def _violations(folder: str, forbidden, exempt=()) -> list:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path.name in exempt and path.parent == ROOT / folder:
            continue
        for line, module in imported(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                found.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    return found


@pytest.mark.parametrize("folder, forbidden, exempt", CONTRACTS)
def test_layer_imports_nothing_it_must_not(folder, forbidden, exempt):
    assert list((ROOT / folder).rglob("*.py")), f"{folder} holds no modules: the contract checks nothing"
    found = _violations(folder, forbidden, exempt)
    assert not found, f"{folder} must not import {', '.join(forbidden)}:\n" + "\n".join(found)


def test_each_room_forbids_every_room_above_it():
    """The layer contracts are the strict order, spelled out: no arrow may point up."""
    runtime = {folder: forbidden for folder, forbidden, _ in CONTRACTS if folder.count("/") == 2}
    above = {
        "plan": "wire worker cluster session embedded",
        "wire": "worker cluster session embedded",
        "worker": "cluster session embedded",
        "cluster": "session embedded",
    }
    for room, names in above.items():
        assert runtime[f"daskflow/runtime/{room}"] == tuple(f"{RUNTIME}.{n}" for n in names.split())


def test_an_upward_import_is_found():
    """The checker catches the arrows this contract forbids (an import inside a function too)."""
    path = ROOT / "daskflow" / "runtime" / "wire" / "rendezvous.py"
    source = "def install():\n    from ..worker.state import state_of\n"
    found = [m for _, m in imported(path, source)]
    assert found == ["daskflow.runtime.worker.state"]
    forbidden = _above("wire")
    assert any(m == f or m.startswith(f + ".") for m in found for f in forbidden)


@pytest.mark.parametrize(
    "source, module",
    [
        ("from ...dashboard.publish import Publisher", "daskflow.dashboard.publish"),
        ("from ... import dashboard", "daskflow.dashboard"),
        ("def f():\n    import distributed", "distributed"),
        ("def f():\n    from ...ops.array_ops import stack", "daskflow.ops.array_ops"),
    ],
)
def test_relative_and_local_imports_are_resolved(source, module):
    path = ROOT / "daskflow" / "runtime" / "cluster" / "metrics.py"
    assert module in [m for _, m in imported(path, source)]
