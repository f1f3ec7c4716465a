"""``tf.make_tensor_proto`` and ``tf.make_ndarray`` against the bytes TF 2.21's
``compat.v1.make_tensor_proto`` wrote for the same calls (taken with
``tf.make_tensor_proto(value, **kw).SerializeToString()`` in the oracle venv)."""

import numpy as np
import pytest

import daskflow as tf

TF_BYTES = [
    (
        np.array([1.0, 2.0], np.float32),
        {},
        b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@',
    ),
    (3, {"dtype": tf.int64, "shape": [2, 2]}, b"\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02R\x01\x03"),
    ([b"a", b"bc"], {}, b"\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x02bc"),
    (
        [[1, 2], [3, 4]],
        {"dtype": tf.int32},
        b'\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02"\x10\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00',
    ),
    (True, {}, b"\x08\n\x12\x00Z\x01\x01"),
]


@pytest.mark.parametrize(("value", "kwargs", "theirs"), TF_BYTES)
def test_protos_are_tfs_bytes_and_read_back(value, kwargs, theirs):
    proto = tf.make_tensor_proto(value, **kwargs)
    assert proto.SerializeToString() == theirs
    expected = np.broadcast_to(np.asarray(value), kwargs.get("shape", np.shape(value)))
    assert tf.make_ndarray(proto).tolist() == expected.tolist()


def test_values_that_do_not_fit_are_refused_naming_the_sizes():
    with pytest.raises(ValueError, match="at most 2, but got 3"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="shape"):
        tf.make_tensor_proto([1, 2], shape=[1, 2], verify_shape=True)
    assert tf.make_ndarray(tf.make_tensor_proto([1, 2], shape=[2, 2], allow_broadcast=True)).tolist() == [
        [1, 2],
        [1, 2],
    ]
    with pytest.raises(TypeError, match="string"):
        tf.make_tensor_proto("x", dtype=tf.float32)
