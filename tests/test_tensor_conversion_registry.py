"""Conversions by type (framework/tensor_conversion_registry.py), TF1's registry of that name.

TF1's messages were taken from TensorFlow 2.21's
``tensorflow.python.framework.tensor_conversion_registry`` (tensorflow.compat.v1).
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework import tensor_conversion_registry as registry
from daskflow.framework.constant import convert_to_tensor


class Meters:
    def __init__(self, value):
        self.value = value


class Feet(Meters):
    pass


def _meters_to_tensor(value, dtype=None, name=None, as_ref=False):
    return tf.constant(np.float32(value.value), name=name or "meters")


def _feet_first(value, dtype=None, name=None, as_ref=False):
    if not isinstance(value, Feet):
        return NotImplemented
    return tf.constant(np.float32(value.value * 0.3048), name=name or "feet")


registry.register_tensor_conversion_function(Meters, _meters_to_tensor)
registry.register_tensor_conversion_function(Meters, _feet_first, priority=50)


def test_a_registered_type_converts_by_priority_and_not_implemented_passes_on(fresh_graph):
    with tf.Session() as sess:
        assert sess.run(convert_to_tensor(Meters(2.0))) == np.float32(2.0)  # _feet_first declined
        assert sess.run(convert_to_tensor(Feet(10.0))) == np.float32(3.048)  # lower priority first
    assert registry.get(Feet) == [_feet_first, _meters_to_tensor]


def test_a_list_holding_tensors_is_packed_and_a_list_of_numbers_is_a_constant(fresh_graph):
    x = tf.constant(1.0)
    packed = convert_to_tensor([x, 2.0, [3.0][0]])
    assert packed.name.startswith("packed") and packed.shape.as_list() == [3]
    assert convert_to_tensor([1.0, 2.0]).op.type == "Const"
    with tf.Session() as sess:
        assert sess.run(packed).tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "base_type, func, message",
    [
        (3, _meters_to_tensor, "Argument `base_type` must be a type or a tuple of types. Obtained: 3"),
        (int, _meters_to_tensor, "Cannot register conversions for Python numeric types and NumPy scalars"),
        (np.ndarray, _meters_to_tensor, "Cannot register conversions for Python numeric types"),
        (Meters, 5, "Argument `conversion_func` must be callable. Received 5."),
    ],
)
def test_bad_registrations_are_tf1s_type_errors(base_type, func, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        registry.register_tensor_conversion_function(base_type, func)


class Odd:
    pass


def test_a_conversion_returning_no_tensor_is_refused_naming_the_type(fresh_graph):
    registry.register_tensor_conversion_function(Odd, lambda value, dtype=None, name=None, as_ref=False: 7)
    with pytest.raises(RuntimeError, match="for type .*Odd.* returned non-Tensor: 7"):
        convert_to_tensor(Odd())
