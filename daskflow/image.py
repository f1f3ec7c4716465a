"""``tf.image``: the basics of image preprocessing (see :mod:`daskflow.ops.image_ops`)."""

from ._namespaces import module_getattr
from .ops.image_ops import (
    ResizeMethod,
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize_bilinear,
    resize_image_with_crop_or_pad,
    resize_images,
    resize_nearest_neighbor,
    resize_with_crop_or_pad,
    rgb_to_grayscale,
    rot90,
    transpose,
    transpose_image,
)

__getattr__ = module_getattr("tf.image")
