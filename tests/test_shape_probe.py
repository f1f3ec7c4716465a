"""Static shapes over every TF1 function daskflow has, against TF1's.

``tests/fixtures/shape_probe.py`` calls each function with arguments made from its
parameters' names (see there); ``make_shape_probe.py`` stored what TF1 returned
(``shape_probe.json``). Here the same call runs under daskflow, for every probed
name daskflow has, and must give TF1's dtypes and every dimension TF1 knows.
"""

import json
import pathlib
import sys

import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import shape_probe  # noqa: E402

NAMES = json.loads((FIXTURES / "tf1_signatures.json").read_text())["names"]
PROBES = json.loads((FIXTURES / "shape_probe.json").read_text())["probes"]

# Where daskflow refuses at graph-building time what TF1 only refuses when it runs.
STRICTER = {
    "tf.image.rgb_to_grayscale": "daskflow checks for 3 channels when the graph is built",
    "tf.unique_with_counts": "daskflow checks for a vector when the graph is built",
    "tf.layers.conv1d": "tf.layers.conv1d takes [batch, width, channels] only, not extra batch axes",
    "tf.string_to_number": "daskflow checks for string input when the graph is built",
    "tf.strings.to_number": "daskflow checks for string input when the graph is built",
}


def agrees(theirs, ours):
    """Whether daskflow's described tensors have TF1's dtypes and every dimension TF1 knows."""
    if len(theirs) != len(ours):
        return False
    for t, o in zip(theirs, ours):
        if t["dtype"] != o["dtype"]:
            return False
        if t["shape"] is not None:
            if o["shape"] is None or len(o["shape"]) != len(t["shape"]):
                return False
            if any(a is not None and a != b for a, b in zip(t["shape"], o["shape"])):
                return False
    return True


def present():
    params = []
    for chain in sorted(PROBES):
        if shape_probe.resolve(tf, chain) is not None:
            marks = [pytest.mark.xfail(reason=STRICTER[chain], strict=True)] if chain in STRICTER else []
            params.append(pytest.param(chain, id=chain, marks=marks))
    return params


def test_agreement_needs_each_dimension_tf1_knows():
    f32 = "float32"
    assert agrees([{"shape": [None, 4], "dtype": f32}], [{"shape": [3, 4], "dtype": f32}])
    assert not agrees([{"shape": [None, 4], "dtype": f32}], [{"shape": [None, None], "dtype": f32}])
    assert not agrees([{"shape": [4], "dtype": f32}], [{"shape": [4], "dtype": "float64"}])
    assert not agrees([{"shape": [4], "dtype": f32}], [{"shape": None, "dtype": f32}])
    assert agrees([{"shape": None, "dtype": f32}], [{"shape": [2], "dtype": f32}])


def test_the_probe_covers_most_of_what_daskflow_has():
    assert len(present()) >= 570


@pytest.mark.parametrize("chain", present())
def test_static_shapes_are_tf1s(chain):
    want = PROBES[chain]
    fn = shape_probe.resolve(tf, chain)
    if want["profile"] == "recipe":
        got = shape_probe.probe_recipe(tf, chain, fn)
    else:
        got = shape_probe.probe(tf, fn, NAMES[chain], want["profile"])
    assert "error" not in got, f"{chain} raised {got['error']} where TF1 gives {want['described']}"
    assert agrees(want["described"], got["described"]), f"{chain}: TF1 {want['described']}, daskflow {got}"
