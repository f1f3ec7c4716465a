"""``tf.estimator.export``: what ``Estimator.export_saved_model`` serves.

A serving input receiver function builds the serving graph's inputs: the tensors a request
feeds (``receiver_tensors``) and the features the ``model_fn`` reads from them. The
``EstimatorSpec``'s ``export_outputs`` (:class:`PredictOutput`, :class:`ClassificationOutput`,
:class:`RegressionOutput`) become the SavedModel's signatures.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..framework.graph import Tensor
from ..ops.array_ops import placeholder
from ..ops.example_parsing_ops import parse_example

__all__ = [
    "ClassificationOutput",
    "ExportOutput",
    "PredictOutput",
    "RegressionOutput",
    "ServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
]


def _signatures():
    from ..saved_model import signature_def_utils  # local import: saved_model/ loads on first use

    return signature_def_utils


def _as_dict(value, default_key, what):
    if isinstance(value, dict):
        if not value:
            raise ValueError(f"{what} cannot be empty")
        return dict(value)
    if isinstance(value, Tensor) or hasattr(value, "dense_shape"):
        return {default_key: value}
    raise ValueError(f"{what} must be a Tensor or a dict of them; got {type(value).__name__}")


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"]
    )
):
    """A serving graph's inputs: ``receiver_tensors`` (what a request feeds, a tensor or a
    dict) and the ``features`` the ``model_fn`` gets from them."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _as_dict(features, "feature", "features")
        receiver_tensors = _as_dict(receiver_tensors, "input", "receiver_tensors")
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver function feeding placeholders shaped like ``features`` (a dict of tensors),
    with ``default_batch_size`` as the leading dimension."""

    def serving_input_receiver_fn():
        receivers = {}
        for name, tensor in features.items():
            dims = tensor.shape.as_list() if tensor.shape.ndims is not None else None
            shape = None if dims is None else [default_batch_size, *dims[1:]]
            receivers[name] = placeholder(tensor.dtype, shape, name=tensor.op.name)  # as TF1 names them
        return ServingInputReceiver(receivers, receivers)

    return serving_input_receiver_fn


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver function feeding serialized ``tf.train.Example`` s, parsed by ``feature_spec``."""

    def serving_input_receiver_fn():
        serialized = placeholder(dtypes.string, [default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(parse_example(serialized, feature_spec), {"examples": serialized})

    return serving_input_receiver_fn


class ExportOutput:
    """An output of a served model: its ``SignatureDef`` given the receiver tensors."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


class PredictOutput(ExportOutput):
    """Serve ``outputs`` (a tensor or a dict of them) by TF Serving's predict method."""

    def __init__(self, outputs):
        self.outputs = _as_dict(outputs, "output", "Prediction outputs")

    def as_signature_def(self, receiver_tensors):
        return _signatures().predict_signature_def(receiver_tensors, self.outputs)


def _single_string_input(receiver_tensors, method):
    if len(receiver_tensors) != 1 or next(iter(receiver_tensors.values())).dtype != dtypes.string:
        raise ValueError(
            f"{method} input must be a single string Tensor; got {{{', '.join(sorted(receiver_tensors))}}}"
        )
    return next(iter(receiver_tensors.values()))


class ClassificationOutput(ExportOutput):
    """Serve class ``scores`` (floats) and/or ``classes`` (strings) by TF Serving's classify method."""

    def __init__(self, scores=None, classes=None):
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores, self.classes = scores, classes

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return _signatures().classification_signature_def(examples, self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """Serve float ``value`` s by TF Serving's regress method."""

    def __init__(self, value):
        self.value = value

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return _signatures().regression_signature_def(examples, self.value)
