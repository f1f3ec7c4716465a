"""Live TensorFlow for the round-trip tests: the oracle's Python (TF 2.21, whose
``compat.v1`` is TF1), run as a subprocess on files daskflow wrote or will read.

Found at ``$DASKFLOW_TF_PYTHON``, else at ``../tfenv/bin/python`` beside the checkout (the
oracle venv of ``tests/fixtures/make_*.py``). Where there is none, the tests that need it
skip: the suite also checks daskflow against files TF wrote earlier, kept as fixtures.
"""

import json
import os
import pathlib
import subprocess
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


def tf_python():
    """The oracle's Python executable, or None."""
    found = os.environ.get("DASKFLOW_TF_PYTHON") or str(REPO.parent / "tfenv" / "bin" / "python")
    return found if pathlib.Path(found).exists() else None


needs_tf = pytest.mark.skipif(
    tf_python() is None, reason="no TensorFlow beside daskflow (DASKFLOW_TF_PYTHON)"
)


def run_tf(script, timeout=240, **arguments):
    """Run ``script`` under TensorFlow with ``tf`` (``tensorflow.compat.v1``, graph mode) and
    ``ARGS`` (``arguments``) defined; return the JSON it prints last."""
    prelude = (
        "import json, os, sys\n"
        "os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_eager_execution()\n"
        f"ARGS = json.loads({json.dumps(json.dumps(arguments))})\n"
    )
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [tf_python(), "-c", prelude + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if done.returncode:
        raise AssertionError(f"TensorFlow's side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
