"""The import contracts of daskflow's layers that hold, checked over every import
(module level or inside a function) with ``ast``; a failure names ``file:line``.

- the runtime (``daskflow/runtime``) never imports the dashboard (``daskflow.dashboard``):
  the dashboard subscribes to the records the runtime emits (``runtime/events.py``);
- graph building (``daskflow/framework``, ``daskflow/ops``) imports no dask or distributed;
- planning (``daskflow/runtime/plan``) imports no distributed (``dask.task_spec`` it may).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CONTRACTS = [
    ("daskflow/runtime", ("daskflow.dashboard",)),
    ("daskflow/framework", ("dask", "distributed")),
    ("daskflow/ops", ("dask", "distributed")),
    ("daskflow/runtime/plan", ("distributed",)),
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


def _violations(folder: str, forbidden) -> list:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, module in imported(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                found.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    return found


@pytest.mark.parametrize("folder, forbidden", CONTRACTS)
def test_layer_imports_nothing_it_must_not(folder, forbidden):
    found = _violations(folder, forbidden)
    assert not found, f"{folder} must not import {', '.join(forbidden)}:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source, module",
    [
        ("from ...dashboard.publish import Publisher", "daskflow.dashboard.publish"),
        ("from ... import dashboard", "daskflow.dashboard"),
        ("def f():\n    import distributed", "distributed"),
    ],
)
def test_relative_and_local_imports_are_resolved(source, module):
    path = ROOT / "daskflow" / "runtime" / "cluster" / "metrics.py"
    assert module in [m for _, m in imported(path, source)]
