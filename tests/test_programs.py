"""Public TF1 programs (``tests/programs/``) run unchanged but for their imports, data
paths and step counts, and land near TF1's own numbers on the same data.

The programs run with their short default step counts in one runner process
(``tests/programs/run_daskflow.py --forked``: daskflow is imported once, and each
program runs in a child forked from it); ``tests/programs/tf1_reference.json`` holds what
TF1 (``tensorflow.compat.v1``) printed for the same program, data and step count
(made by ``tests/programs/make_tf1_reference.py``). Random initial values differ
between the two, so an accuracy may be at most 0.1 below TF1's and a loss at most
30% above it (the programs' batches come in the same order in both).
"""

import json
import pathlib
import sys

import pytest

PROGRAMS = pathlib.Path(__file__).parent / "programs"
sys.path.insert(0, str(PROGRAMS))
import survey_daskflow  # noqa: E402

pytestmark = [pytest.mark.process, pytest.mark.slow]

REFERENCE = json.loads((PROGRAMS / "tf1_reference.json").read_text())["programs"]

# The programs that run under daskflow today; tests/programs/STATUS.md says why the rest do not.
RUNS = [
    "autoencoder",
    "basic_operations",
    "bidirectional_rnn",
    "convolutional_network",
    "convolutional_network_raw",
    "dynamic_rnn",
    "linear_regression",
    "logistic_regression",
    "mnist_deep",
    "multilayer_perceptron",
    "neural_network",
    "neural_network_raw",
    "recurrent_network",
    "save_restore_model",
    "tensorboard_advanced",
    "tensorboard_basic",
    "tensorflow_dataset_api",
    "variational_autoencoder",
]


# TF 2.16+ has no tf.estimator, so TF1 cannot run the Estimator programs here; they are
# compared with TF1's number for the same model written without it (aymericdamien's
# *_raw twins, which train the same network on the same data).
TWINS = {"neural_network": "neural_network_raw", "convolutional_network": "convolutional_network_raw"}


@pytest.fixture(scope="module")
def program_runs():
    return survey_daskflow.run_many(RUNS)


@pytest.mark.parametrize("name", RUNS)
def test_program_runs_and_lands_near_tf1(name, program_runs):
    result = program_runs[name]
    assert result["status"] == "runs", f"{name}: {result['where']} {result['error']}"
    theirs = REFERENCE[TWINS.get(name, name)]["metrics"]
    assert result["metrics"].keys() == theirs.keys()
    for metric, value in result["metrics"].items():
        expected = theirs[metric]
        if "accuracy" in metric:
            assert value >= expected - 0.1, (metric, value, expected)
        elif metric == "matmul":
            assert value == expected
        else:  # a loss or cost: lower is better
            assert value <= 1.3 * expected + 1e-3, (metric, value, expected)
