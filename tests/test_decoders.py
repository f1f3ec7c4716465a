"""``tf.decode_csv``, ``tf.decode_raw`` and ``tf.image``'s PNG and JPEG codecs against TF1's
answers (``tests/fixtures/make_readers.py`` ran ``scenarios_readers.py`` under TF1, stored
``readers.json`` and TF-made image files in ``fixtures/readers/``)."""

from __future__ import annotations

import io
import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_readers as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "readers.json").read_text())
TF_MADE = FIXTURES / "readers"


pytestmark = pytest.mark.usefixtures("fresh_graph")


def run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


# -- CSV and raw bytes ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", range(len(sc.CSV_CASES)))
def test_decode_csv_values_shapes_and_errors_match_tf1(case):
    got = sc.decode_csv(tf)[case]
    want = TF1["decode_csv"][case]
    assert got[0] == want[0]
    if isinstance(want[1][0], str):  # an error: type and message, naming the field and record
        assert got[1] == want[1]
    else:
        for column, expected in zip(got[1], want[1]):
            np.testing.assert_equal(np.asarray(column), np.asarray(expected))  # NaN equals NaN here


def test_decode_csv_refuses_bad_arguments_at_build():
    with pytest.raises(ValueError, match="Length of select_cols and record_defaults do not match"):
        tf.decode_csv(["1,2,3"], [[0], [0], [0]], select_cols=[0, 2])
    with pytest.raises(ValueError, match="select_cols is not strictly increasing"):
        tf.decode_csv(["1,2,3"], [[0], [0]], select_cols=[2, 0])
    with pytest.raises(TypeError, match=r"record_defaults\[1\].*bool"):
        tf.decode_csv(["1,2"], [[0], [True]])


def test_decode_csv_names_the_field_of_a_fed_record():
    line = tf.placeholder(tf.string, [], name="line")
    a, b = tf.decode_csv(line, [[0.0], [0]])
    assert run(b, {line: "1.5,7"}) == 7
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 in record 0 is not a valid int32: x"):
        run([a, b], {line: "1.5,x"})


def test_decode_raw_matches_tf1():
    assert sc.decode_raw(tf) == TF1["decode_raw"]


# -- images ---------------------------------------------------------------------------------------------


def test_image_codec_static_shapes_match_tf1():
    assert sc.image_shapes(tf) == TF1["image_shapes"]


@pytest.mark.parametrize("name", ["tf_made.png", "tf_made16.png", "tf_made_rgba.png"])
@pytest.mark.parametrize("channels", ["0", "1", "3", "4", "uint16"])
def test_png_files_tf_wrote_decode_as_tf_decodes_them(name, channels):
    got = sc.png_decodes(tf, str(TF_MADE))[name][channels]
    assert got == TF1["png_decodes"][name][channels]


def test_undecodable_images_are_invalid_argument():
    for decode in (tf.image.decode_png, tf.image.decode_jpeg, tf.image.decode_image):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
            run(decode(b"not an image"))
    with pytest.raises(ValueError, match="must be a scalar string"):
        tf.image.decode_png(["a", "b"])


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_png_round_trip(channels, dtype):
    image = (np.arange(6 * 9 * channels).reshape(6, 9, channels) * 977 % np.iinfo(dtype).max).astype(dtype)
    encoded = tf.image.encode_png(image)
    decoded = tf.image.decode_png(encoded, dtype=tf.as_dtype(dtype))
    data, pixels = run([encoded, decoded])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    np.testing.assert_array_equal(pixels, image)


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P", "1"])
def test_pngs_with_every_row_filter_decode_as_pillow_reads_them(mode):
    # Pillow's encoder picks a filter per row (Sub, Up, Average, Paeth), and packs bits for "1".
    from PIL import Image

    rng = np.random.default_rng(0)
    smooth = np.add.outer(np.arange(23), np.arange(31))[..., None] * np.array([3, 5, 7]) % 256
    image = Image.fromarray((smooth + rng.integers(0, 3, smooth.shape)).astype(np.uint8)).convert(mode)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    want = np.asarray(image.convert({"1": "L", "P": "RGB"}.get(mode, mode)))
    got = run(tf.image.decode_png(buffer.getvalue()))
    np.testing.assert_array_equal(got, want.reshape(got.shape))


def test_a_jpeg_tf_wrote_decodes_as_tf_decodes_it():
    pixels = run(tf.image.decode_jpeg((TF_MADE / "tf_made.jpg").read_bytes()))
    want = np.array(TF1["jpeg_pixels"], np.int64)
    assert pixels.shape == want.shape == (5, 7, 3)
    # Pillow's libjpeg runs the accurate integer IDCT, TF's default the fast one: a few levels apart.
    difference = np.abs(pixels.astype(np.int64) - want)
    assert difference.max() <= 8 and difference.mean() < 3


def test_encode_jpeg_then_decode_gives_the_image_back_approximately():
    image = np.repeat(np.linspace(0, 255, 16, dtype=np.uint8)[None, :, None], 8, axis=0).repeat(3, axis=2)
    data = tf.image.encode_jpeg(image, quality=100)
    back = run(tf.image.decode_image(data))
    assert back.shape == (8, 16, 3)
    assert np.abs(back.astype(int) - image.astype(int)).mean() < 4
