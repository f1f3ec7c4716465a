"""The conformance corpus in small: a few public TF1 programs of several repositories run
under daskflow and land within TF1's own run-to-run spread, with TF1's static shapes.

The whole corpus runs as a script (``python -m tests.conformance``, see the README);
``tests/conformance/oracle.json`` holds TF1's five runs of each program (seeds 0-4;
a seed the program sets itself is shifted by the run's seed) and the static shapes of
the tensors it fetched.
"""

import json
import pathlib

import pytest

from tests.conformance import __main__ as driver
from tests.conformance import compare, shapes

ORACLE = json.loads((pathlib.Path(driver.HERE) / "oracle.json").read_text())

# Quick programs (a second or two each), across the corpus's repositories.
SUBSET = [
    "corpus/chiphuyen_stanford_tensorflow_tutorials/y2017_02_variables.py",
    "corpus/easy_tensorflow_easy_tensorflow/basics_graph_and_session.py",
    "corpus/golbin_tensorflow_tutorials/ch03_03_linear_regression.py",
    "corpus/hunkim_deeplearningzerotoall/lab_06_2_softmax_zoo_classifier.py",
    "corpus/hunkim_deeplearningzerotoall/lab_08_tensor_manipulation.py",
    "corpus/hunkim_deeplearningzerotoall/lab_09_x_xor_nn_back_prop.py",
    "corpus/instillai_tensorflow_course/linear_svm.py",
    "corpus/jorditorresbcn_firstcontactwithtensorflow_2ndedition/regression.py",
    "corpus/kyubyong_tensorflow_exercises/control_flow.py",
    "corpus/morvanzhou_tensorflow_tutorial/simple_classification_302.py",
    "corpus/nfmcclure_tensorflow_cookbook/ch02_back_propagation.py",
    "corpus/nfmcclure_tensorflow_cookbook/ch03_lin_reg_inverse.py",
    # gradient reversal through tf.RegisterGradient and gradient_override_map, in a helper module
    "corpus/pumpikano_tf_dann/blobs_dann.py",
]


def test_a_folders_helper_modules_are_not_programs():
    found = set(driver.programs(["corpus"]))
    assert "corpus/pumpikano_tf_dann/blobs_dann.py" in found
    assert not {"corpus/pumpikano_tf_dann/flip_gradient.py", "corpus/pumpikano_tf_dann/utils.py"} & found


def test_within_tfs_spread_widens_the_range_by_its_width():
    assert compare.within(2.0, 2.0, 2.0)
    assert compare.within(2.0015, 2.0, 2.0)  # float32 rounding: 1e-3 relative
    assert not compare.within(2.01, 2.0, 2.0)
    assert compare.within(0.95, 0.9, 0.93)  # 0.9..0.93 widened by 0.03 each side
    assert not compare.within(0.97, 0.9, 0.93)
    assert not compare.within(float("nan"), 0.9, 0.93)


def test_envelope_needs_the_same_count_of_numbers_in_every_run():
    assert compare.envelope([[1.0, 5.0], [2.0, 4.0]]) == [(1.0, 2.0), (4.0, 5.0)]
    assert compare.envelope([[1.0], [1.0, 2.0]]) is None


def test_a_verdict_counts_only_programs_tf_runs():
    tf_ok = {"status": "ok", "results": [[1.0], [1.2], [1.1]], "statuses": ["ok"] * 3}
    assert compare.verdict({"status": "error"}, {"status": "ok", "result": [1.0]}) == "tf fails"
    assert compare.verdict(tf_ok, {"status": "error", "result": []}) == "fails"
    assert compare.verdict(tf_ok, {"status": "ok", "result": [1.3]}) == "matches"
    assert compare.verdict(tf_ok, {"status": "ok", "result": [1.5]}) == "differs"
    assert compare.verdict(tf_ok, {"status": "ok", "result": [1.1, 2.0]}) == "differs"


def test_shapes_differ_only_where_tf_knows_them():
    tf_calls = [["op", [None, 10], None], [[]]]
    assert shapes.mismatches(tf_calls, [["op", [64, 10], [3]], [[]]]) == []
    assert shapes.mismatches(tf_calls, [["op", [None, 12], None], [[1]]]) == [
        (0, 1, [None, 10], [None, 12]),
        (1, 0, [], [1]),
    ]
    assert shapes.compared(tf_calls, tf_calls) == 2


@pytest.fixture(scope="module")
def subset_runs():
    """daskflow's runs of the subset: one runner process, each program forked from it."""
    found = {}
    driver.run_all(SUBSET, "daskflow", [0], driver.sys.executable, 1, found.__setitem__)
    return found


@pytest.mark.parametrize("program", SUBSET)
@pytest.mark.process
def test_corpus_program_runs_within_tfs_spread_with_tfs_shapes(program, subset_runs):
    oracle = ORACLE[program]
    entry = driver.daskflow_entry(subset_runs[program], oracle)
    assert entry["status"] == "ok", (entry["where"], entry["error"])
    assert compare.verdict(oracle, entry) == "matches", (entry["result"], oracle["results"])
    assert entry.get("shape_mismatches") == [], entry.get("shape_mismatches")
