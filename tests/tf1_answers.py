"""Comparing daskflow's answers to scenario files with TF1's stored ones.

A scenario file (``tests/fixtures/scenarios_*.py``) has ``values(tf)``: for each
scenario, the static shapes and dtypes of what it builds (``described``) and the
values a session gives (``value``), or the type of the error it raises. Its
``make_*.py`` ran it under TF1 and stored the answers as JSON.
"""

import importlib
import json
import pathlib
import sys

import numpy as np

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def load(scenarios, answers):
    """(the scenario module named `scenarios`, TF1's answers in ``fixtures/<answers>``)."""
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    module = importlib.import_module(scenarios)
    return module, json.loads((FIXTURES / answers).read_text())["values"]


def assert_matches(want, got, tolerance=lambda dtype: (2e-5, 2e-6)):
    """daskflow's answer `got` is TF1's `want`: the same error, or the same static shapes and
    dtypes and values within ``tolerance(dtype) -> (rtol, atol)``."""
    if "error" in want or "run_error" in want:
        assert got == want
        return
    assert got["described"] == want["described"]
    assert ("value" in got) == ("value" in want)
    for w, g, d in zip(want.get("value", []), got.get("value", []), want["described"]):
        if w is None:
            assert g is None
            continue
        w, g = np.array(w, dtype=float), np.array(g, dtype=float)
        assert w.shape == g.shape
        rtol, atol = tolerance(d["dtype"])
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
