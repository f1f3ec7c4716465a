"""``tf.saved_model.signature_def_utils``: ``SignatureDef`` s, what serving calls a model by."""

from __future__ import annotations

from .. import dtypes
from ..framework.tensor_util import make_tensor_proto
from . import signature_constants as keys
from .utils import build_tensor_info

__all__ = [
    "build_signature_def",
    "classification_signature_def",
    "is_valid_signature",
    "predict_signature_def",
    "regression_signature_def",
]


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A ``SignatureDef`` of ``inputs`` and ``outputs`` (``{key: TensorInfo}``) and
    ``method_name``; ``defaults`` (``{input key: value}``) are the values of inputs a
    request may leave out."""
    from tensorboard.compat.proto.meta_graph_pb2 import SignatureDef

    signature = SignatureDef(method_name=method_name or "")
    for target, given in ((signature.inputs, inputs), (signature.outputs, outputs)):
        for key, info in (given or {}).items():
            target[key].CopyFrom(info)
    for key, value in (defaults or {}).items():
        signature.defaults[key].ParseFromString(make_tensor_proto(value).SerializeToString())
    return signature


def predict_signature_def(inputs, outputs):
    """TF Serving's predict signature of ``inputs`` and ``outputs`` (``{key: tensor}``)."""
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def(
        {k: build_tensor_info(t) for k, t in inputs.items()},
        {k: build_tensor_info(t) for k, t in outputs.items()},
        keys.PREDICT_METHOD_NAME,
    )


def classification_signature_def(examples, classes, scores):
    """TF Serving's classify signature: serialized ``examples`` (a string tensor) in,
    ``classes`` (strings) and/or ``scores`` (floats) out."""
    if examples is None or examples.dtype != dtypes.string:
        raise ValueError("Classification examples must be a string Tensor.")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        if classes.dtype != dtypes.string:
            raise ValueError("Classification classes must be a string Tensor.")
        outputs[keys.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
    if scores is not None:
        if not scores.dtype.is_floating:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[keys.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    inputs = {keys.CLASSIFY_INPUTS: build_tensor_info(examples)}
    return build_signature_def(inputs, outputs, keys.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples, predictions):
    """TF Serving's regress signature: serialized ``examples`` in, float ``predictions`` out."""
    if examples is None or examples.dtype != dtypes.string:
        raise ValueError("Regression examples must be a string Tensor.")
    if predictions is None or not predictions.dtype.is_floating:
        raise ValueError("Regression predictions must be a float Tensor.")
    return build_signature_def(
        {keys.REGRESS_INPUTS: build_tensor_info(examples)},
        {keys.REGRESS_OUTPUTS: build_tensor_info(predictions)},
        keys.REGRESS_METHOD_NAME,
    )


def is_valid_signature(signature_def):
    """Whether ``signature_def`` is a well-formed predict, classify or regress signature."""
    if signature_def is None or not signature_def.method_name:
        return False
    method, inputs, outputs = signature_def.method_name, signature_def.inputs, signature_def.outputs
    if method == keys.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    if method == keys.CLASSIFY_METHOD_NAME:
        return (
            set(inputs) == {keys.CLASSIFY_INPUTS}
            and bool(outputs)
            and set(outputs)
            <= {
                keys.CLASSIFY_OUTPUT_CLASSES,
                keys.CLASSIFY_OUTPUT_SCORES,
            }
        )
    if method == keys.REGRESS_METHOD_NAME:
        return set(inputs) == {keys.REGRESS_INPUTS} and set(outputs) == {keys.REGRESS_OUTPUTS}
    return False
