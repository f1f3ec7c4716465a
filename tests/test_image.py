"""tf.image against TF1's own values (``tests/fixtures/make_image.py`` stored ``image.json``)."""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_image as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "image.json").read_text())["values"]
MINE = sc.values(tf)


@pytest.mark.parametrize("key", sorted(TF1))
def test_image_op_matches_tf1(key):
    (dtype, value), (t_dtype, t_value) = MINE[key], TF1[key]
    assert dtype == t_dtype
    np.testing.assert_allclose(value, t_value, rtol=1e-5, atol=1e-5)


def test_random_image_ops_keep_shapes_and_vary():
    with tf.Graph().as_default():
        img = tf.constant(sc.IMG)
        flipped = tf.image.random_flip_left_right(img, seed=1)
        crop = tf.image.random_crop(img, [3, 4, 3], seed=2)
        bright = tf.image.random_brightness(img, 0.2, seed=3)
        assert flipped.shape.as_list() == [5, 6, 3] and crop.shape.as_list() == [3, 4, 3]
        with tf.Session() as sess:
            flips = {sess.run(flipped).tobytes() for _ in range(20)}
            crops = [sess.run(crop) for _ in range(10)]
            delta = sess.run(bright) - sc.IMG
    assert flips == {sc.IMG.tobytes(), sc.IMG[:, ::-1].tobytes()}
    windows = {sc.IMG[i : i + 3, j : j + 4].tobytes() for i in range(3) for j in range(3)}
    assert {c.tobytes() for c in crops} <= windows and len({c.tobytes() for c in crops}) > 1
    assert np.ptp(delta) < 1e-6 and abs(delta.flat[0]) <= 0.2


def test_bad_images_are_refused_naming_them():
    x = tf.placeholder(tf.float32, [4, 4], name="flat")
    with pytest.raises(ValueError, match="flat"):
        tf.image.flip_left_right(x)
    with pytest.raises(ValueError, match="larger"):
        tf.image.random_crop(tf.zeros([4, 4, 3]), [5, 4, 3])
    with pytest.raises(AttributeError, match="tf.image.draw_bounding_boxes is not part of daskflow"):
        _ = tf.image.draw_bounding_boxes
