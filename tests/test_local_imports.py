"""A function-local import of daskflow's own modules hides the package's real dependency
structure (and the import cycles in it), so each one left must say why, in one fixed form,
on its own line or on the line above::

    # local import: <reason>
    from ..runtime.session import Session

A run of imports directly under one such comment shares it. Reasons that hold: a real cycle
no small restructuring removes, an expensive or optional dependency (dask through the
runtime, tensorboardX, bokeh) that ``import daskflow`` or graph building must not load, a
module ``__getattr__`` that builds a name on first use. Everything else goes to the top of
its module. A failure names ``file:line``.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "daskflow"
REASON = re.compile(r"#\s*local import: \S")


def _own(node) -> bool:
    """Whether an import statement imports a daskflow module (relative, or absolute daskflow)."""
    if isinstance(node, ast.Import):
        return any(a.name == "daskflow" or a.name.startswith("daskflow.") for a in node.names)
    return node.level > 0 or (node.module or "").split(".")[0] == "daskflow"


def local_imports(source: str) -> list:
    """The import nodes of daskflow modules inside a function body, each once, by line."""
    found = {}

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)) and _own(child):
                found[id(child)] = child
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(source), False)
    return sorted(found.values(), key=lambda n: n.lineno)


def unexplained(source: str) -> list:
    """Lines of the function-local daskflow imports in ``source`` with no reason comment."""
    comments = {
        tok.start[0]: tok.string
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    nodes = local_imports(source)
    starts = {n.lineno: n for n in nodes}
    explained, missing = set(), []
    for node in nodes:
        lines = range(node.lineno, node.end_lineno + 1)
        own_line = any(REASON.search(comments.get(line, "")) for line in lines)
        above = node.lineno - 1
        shared = above in comments and REASON.search(comments[above]) is not None
        # a run of imports directly under one comment: the one just above was explained
        run = any(n.end_lineno == above and id(n) in explained for n in starts.values())
        if own_line or shared or run:
            explained.add(id(node))
        else:
            missing.append(node.lineno)
    return missing


def _checked_files() -> list:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_function_local_daskflow_import_says_why():
    files = _checked_files()
    assert files, "no daskflow modules found: the check would check nothing"
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in files for line in unexplained(path.read_text())]
    assert not bad, (
        "function-local daskflow imports without '# local import: <reason>' "
        "(move them to the module's top, or say why they must stay):\n" + "\n".join(bad)
    )


@pytest.mark.parametrize(
    "source, missing",
    [
        ("def f():\n    from ..ops import array_ops\n", [2]),
        ("def f():\n    import daskflow as tf\n", [2]),
        ("def f():\n    import daskflow.train.saver\n", [2]),
        ("def f():\n    def g():\n        from . import x\n", [3]),
        ("async def f():\n    from .x import y\n", [2]),
        ("def f():\n    from .x import y  # local import: a cycle through x\n", []),
        ("def f():\n    # local import: a cycle through x\n    from .x import y\n", []),
        ("def f():\n    # local import: dask\n    from .x import y\n    from .z import w\n", []),
        ("def f():\n    # local import: dask\n    from .x import y\n\n    from .z import w\n", [5]),
        ("def f():\n    # a cycle through x\n    from .x import y\n", [3]),
        ("def f():\n    # local import:\n    from .x import y\n", [3]),
        ("def f():\n    import numpy\n    from tensorboardX import proto\n", []),
        ("from .x import y\n\n\nclass A:\n    from .z import w\n", []),
        ("def f():\n    from .x import (\n        y,  # local import: a cycle through x\n    )\n", []),
    ],
)
def test_the_check_finds_unexplained_local_imports(source, missing):
    assert unexplained(source) == missing
