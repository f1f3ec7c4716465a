"""What the program runners share: the data, a headless pyplot, the metrics.

The programs in this folder are public TF1 scripts with only their imports
(and step counts) changed. To run one, a runner

- gives it MNIST-shaped data: ``daskflow.datasets.read_data_sets``, which
  serves scikit-learn's digits resized to 28x28 (784 features) for a
  directory without MNIST files, with a fixed shuffling seed, so TF1 and
  daskflow see the same examples in the same batch order;
- swaps ``matplotlib.pyplot`` for a no-op stand-in, so plotting scripts run
  headless and neither environment needs matplotlib;
- runs the file as ``__main__`` with :func:`runpy.run_path`.

The TF1 runner loads ``daskflow/datasets.py`` from its file, not through
the ``daskflow`` package (its ``daskflow`` name is TF's ``compat.v1``).
"""

import importlib
import io
import os
import pathlib
import re
import runpy
import sys
import tokenize
import types

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA_SEED = 0

# The line each program prints its results on, as (metric, regex); the last
# match in stdout wins. Programs without a final metric report their last
# printed loss.
METRICS = {
    "autoencoder": [("loss", r"Minibatch Loss: ([-\d.e+]+)")],
    "basic_operations": [("matmul", r"^\[\[\s*([-\d.e+]+)\]\]")],
    "bidirectional_rnn": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "convolutional_network": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "convolutional_network_raw": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "dynamic_rnn": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "gan": [
        ("generator_loss", r"Generator Loss: ([-\d.e+]+)"),
        ("discriminator_loss", r"Discriminator Loss: ([-\d.e+]+)"),
    ],
    "linear_regression": [
        ("training_cost", r"Training cost= ([-\d.e+]+)"),
        ("testing_cost", r"Testing cost= ([-\d.e+]+)"),
    ],
    "logistic_regression": [
        ("cost", r"cost= ([-\d.e+]+)"),
        ("test_accuracy", r"^Accuracy: ([-\d.e+]+)"),
    ],
    "mnist_deep": [("test_accuracy", r"test accuracy ([-\d.e+]+)")],
    "multilayer_perceptron": [
        ("cost", r"cost=([-\d.e+]+)"),
        ("test_accuracy", r"^Accuracy: ([-\d.e+]+)"),
    ],
    "nearest_neighbor": [("test_accuracy", r"^Accuracy: ([-\d.e+]+)")],
    "neural_network": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "neural_network_raw": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "recurrent_network": [("test_accuracy", r"Testing Accuracy: ([-\d.e+]+)")],
    "save_restore_model": [
        ("cost", r"cost= ([-\d.e+]+)"),
        ("test_accuracy", r"^Accuracy: ([-\d.e+]+)"),
    ],
    "tensorboard_advanced": [
        ("cost", r"cost= ([-\d.e+]+)"),
        ("test_accuracy", r"^Accuracy: ([-\d.e+]+)"),
    ],
    "tensorboard_basic": [
        ("cost", r"cost= ([-\d.e+]+)"),
        ("test_accuracy", r"^Accuracy: ([-\d.e+]+)"),
    ],
    "tensorflow_dataset_api": [
        ("loss", r"Minibatch Loss= ([-\d.e+]+)"),
        ("train_accuracy", r"Training Accuracy= ([-\d.e+]+)"),
    ],
    "variational_autoencoder": [("loss", r"Loss: ([-\d.e+]+)")],
}


def program_names():
    """Names of the stored programs, sorted."""
    return sorted(p.stem for p in HERE.glob("*.py") if p.stem in METRICS)


def load_datasets_file():
    """``daskflow/datasets.py`` (and what it imports from daskflow) as modules of their own.

    They load as submodules of a stand-in package whose path is daskflow's
    folder, so ``daskflow/__init__.py`` (and with it the rest of daskflow
    and its dependencies) is never run and the name ``daskflow`` stays free.
    """
    package = types.ModuleType("_daskflow_files")
    package.__path__ = [str(REPO / "daskflow")]
    sys.modules[package.__name__] = package
    return importlib.import_module("_daskflow_files.datasets")


def read_data_sets_for(datasets):
    """``datasets.read_data_sets`` with shuffling seed :data:`DATA_SEED` unless given.

    With no MNIST files in the directory it serves scikit-learn's digits
    resized to 28x28, the same examples under TF1 and daskflow.
    """
    real = datasets.read_data_sets

    def read_data_sets(*args, seed=DATA_SEED, **kwargs):
        return real(*args, seed=seed, **kwargs)

    return read_data_sets


class _Sink:
    """Takes any call, attribute or index and gives itself back."""

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return self

    def __getitem__(self, key):
        return self

    def __iter__(self):
        # Without this, iterating (``for ax in axes``) goes through __getitem__ forever.
        return iter(())


def headless_pyplot():
    """Install a ``matplotlib`` (and ``mpl_toolkits``) whose every module, function and
    attribute does nothing: ``matplotlib.use("Agg")``, ``pyplot``, ``cm``, ``gridspec``..."""

    def sink_module(name):
        module = types.ModuleType(name)
        module.__path__ = []  # a package: its submodules import too
        module.__getattr__ = lambda attr: _Sink()
        return module

    pyplot = sink_module("matplotlib.pyplot")
    pyplot.subplots = lambda *args, **kwargs: (_Sink(), _Sink())
    sys.modules["matplotlib.pyplot"] = pyplot
    sys.modules["matplotlib"] = sink_module("matplotlib")
    sys.modules["matplotlib"].pyplot = pyplot
    sys.meta_path.insert(0, _SinkModules(sink_module))


class _SinkModules:
    """Finds ``matplotlib.*`` and ``mpl_toolkits*`` submodules as do-nothing modules."""

    def __init__(self, make):
        self.make = make

    def find_spec(self, fullname, path=None, target=None):
        import importlib.machinery

        if fullname.split(".")[0] in ("matplotlib", "mpl_toolkits"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return self.make(spec.name)

    def exec_module(self, module):
        pass


def tf_chains(source):
    """The ``tf.a.b`` attribute chains a program's source uses.

    ``from daskflow.x import y [as z]`` makes ``z.w`` count as ``tf.x.y.w``.
    Comments and strings are skipped; a bare ``tf`` is not a chain.
    """
    aliases = {"tf": "tf"}
    for match in re.finditer(r"^\s*from daskflow((?:\.\w+)+) import (\w+)(?: as (\w+))?", source, re.M):
        aliases[match[3] or match[2]] = f"tf{match[1]}.{match[2]}"
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type in _CODE_TOKENS]
    chains = set()
    for i, token in enumerate(tokens):
        after_dot = i > 0 and tokens[i - 1].string == "."
        if token.type != tokenize.NAME or token.string not in aliases or after_dot:
            continue
        parts, j = [aliases[token.string]], i + 1
        while j + 1 < len(tokens) and tokens[j].string == "." and tokens[j + 1].type == tokenize.NAME:
            parts.append(tokens[j + 1].string)
            j += 2
        if len(parts) > 1:
            chains.add(".".join(parts))
    return chains


_CODE_TOKENS = (tokenize.NAME, tokenize.OP)


def resolve(root, chain):
    """The object `chain` (``tf.a.b``) names under module `root`, or None.

    Only attribute access counts, as in ``tf.a.b`` in a program: a
    subpackage that exists but is not exported by its parent is missing.
    """
    obj = root
    for part in chain.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj


def run_program(path):
    """Run one program file as ``__main__`` with a clean argv and numpy's and Python's
    global generators seeded (some programs draw their initial values from them)."""
    import random

    import numpy

    numpy.random.seed(DATA_SEED)
    random.seed(DATA_SEED)
    path = os.fspath(path)
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")
