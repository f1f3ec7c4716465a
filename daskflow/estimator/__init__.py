"""TF1's ``tf.estimator``: ``Estimator``, ``EstimatorSpec``, ``RunConfig`` and friends.

A ``model_fn`` builds the model for one :class:`ModeKeys` mode and returns an
:class:`EstimatorSpec`; an :class:`Estimator` builds a fresh graph around it
for each ``train``, ``evaluate`` and ``predict`` call, and runs it in a
monitored session that restores from and saves to ``model_dir``. Everything
runs in this process (embedded), or on ``RunConfig(master=...)``'s cluster.

``export_saved_model`` writes a SavedModel for serving (:mod:`.export`).

Not built: canned estimators (``DNNClassifier``...), feature columns,
exporters (``FinalExporter``...), distribution strategies,
``WarmStartSettings`` (``warm_start_from`` takes a checkpoint path),
``pandas_input_fn``.
"""

from .._namespaces import module_getattr
from . import export, inputs
from ._hooks import CheckpointSaverListener
from .estimator import Estimator
from .model_fn import EstimatorSpec, ModeKeys
from .run_config import RunConfig
from .training import EvalSpec, TrainSpec, train_and_evaluate

__all__ = [
    "CheckpointSaverListener",
    "Estimator",
    "EstimatorSpec",
    "EvalSpec",
    "ModeKeys",
    "RunConfig",
    "TrainSpec",
    "export",
    "inputs",
    "train_and_evaluate",
]

__getattr__ = module_getattr("tf.estimator")
