"""The examples in daskflow's docstrings run, and show what they print.

Each daskflow module with a ``>>>`` line is one case: its docstrings' examples (those
of the module and of the functions, classes and methods it defines) run with the
standard library's :mod:`doctest`, each docstring in a fresh default graph, with ``tf``
(daskflow) and ``np`` (numpy) in their namespace as a TF1 user's programs have them. A
failure names the module, the example's file and line, what it expects and what it got.

Why a test module and not pytest's ``--doctest-modules``: the suite's process groups
(``conftest.py``) are keyed on the test file and read from its source. Doctest items
would be one group per daskflow module (several named ``__init__``), and collecting
them would need ``daskflow/`` in ``testpaths`` and the fresh graph in a second
conftest. Here the examples are one module of the suite, one group, run beside the
clusters' group, and their setup is in one place.

An example that needs a cluster, takes over a second, or shows TF1's behaviour where
daskflow has a bug is marked ``# doctest: +SKIP`` where it stands, with a comment
saying why.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import daskflow

EXCLUDED: tuple[str, ...] = ()  # packages whose examples are not collected (none)

# As the suite's programs have them (``import daskflow as tf``); numpy for the values.
NAMESPACE = {"tf": daskflow, "np": np}

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _excluded(name: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in EXCLUDED)


def _module_names(package=daskflow) -> list[str]:
    """The names of ``package`` and of every module under it whose file has a ``>>>``
    line, walked from the files; an excluded package is not entered (nor imported)."""
    names = [package.__name__] if ">>>" in Path(package.__file__).read_text() else []
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if _excluded(info.name):
            continue
        if info.ispkg:
            names += _module_names(importlib.import_module(info.name))
        elif ">>>" in Path(info.module_finder.path, info.name.rpartition(".")[2] + ".py").read_text():
            names.append(info.name)
    return sorted(names)


def _examples(module):
    """The docstring examples ``module`` defines itself (not those of what it imports)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [test for test in finder.find(module, extraglobs=NAMESPACE) if test.examples]


@pytest.mark.parametrize("name", _module_names())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    tests = _examples(module)
    # A ">>>" line doctest does not find (in a nested function, or an object the module
    # imports rather than defines) would be an example that never runs.
    assert tests, f"{name} has '>>>' lines but no docstring examples doctest finds in it"
    failures: list[str] = []
    runner = doctest.DocTestRunner(optionflags=OPTIONS, verbose=False)
    for test in sorted(tests, key=lambda t: t.lineno or 0):
        daskflow.reset_default_graph()
        runner.run(test, out=failures.append, clear_globs=True)
    daskflow.reset_default_graph()
    assert not failures, f"{name}: {runner.failures} docstring example(s) failed\n" + "".join(failures)
