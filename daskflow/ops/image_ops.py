"""``tf.image`` basics: flips, crops and pads, resizing, dtype conversion,
brightness and contrast, standardization.

Images are ``[height, width, channels]`` or batches ``[batch, height, width,
channels]``. Most ops compose array and math ops (and so have gradients);
resizing is one primitive per method, with TF1's legacy pixel mapping
(``align_corners=False``: source = destination * in / out).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import dimension_value
from . import array_ops, math_ops, random_ops
from .infer import shaped_like_second, static_shape_value


def _image(image, what):
    x = convert_to_tensor(image)
    if x.shape.ndims not in (3, 4):
        raise ValueError(f"{what}: '{x.name}' must be 3-D or 4-D (an image or a batch), got shape {x.shape}")
    return x


def _axes(x):
    """The (height, width) axes of an image or a batch."""
    return (0, 1) if x.shape.ndims == 3 else (1, 2)


# -- flips and transposes ----------------------------------------------------------------


def flip_left_right(image):
    x = _image(image, "flip_left_right")
    return array_ops.reverse(x, [_axes(x)[1]])


def flip_up_down(image):
    x = _image(image, "flip_up_down")
    return array_ops.reverse(x, [_axes(x)[0]])


def transpose_image(image, name=None):
    x = _image(image, "transpose_image")
    return array_ops.transpose(x, [1, 0, 2] if x.shape.ndims == 3 else [0, 2, 1, 3], name=name or "transpose")


transpose = transpose_image


def rot90(image, k=1, name=None):
    """Rotate by ``k`` quarter turns counter-clockwise (``k`` a Python int)."""
    x = _image(image, "rot90")
    for _ in range(int(k) % 4):
        x = flip_up_down(transpose_image(x))
    return x


def _random_flip(image, seed, flip, what):
    x = _image(image, what)
    # One coin for one image; one per image of a batch (tf.where picks whole images by it).
    coins = [] if x.shape.ndims == 3 else array_ops.shape(x)[:1]
    coin = math_ops.less(random_ops.random_uniform(coins, seed=seed), 0.5)
    return math_ops.where(coin, flip(x), x)


def random_flip_left_right(image, seed=None):
    """Mirror the image left to right with probability 1/2."""
    return _random_flip(image, seed, flip_left_right, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Mirror the image top to bottom with probability 1/2."""
    return _random_flip(image, seed, flip_up_down, "random_flip_up_down")


# -- crops and pads ----------------------------------------------------------------------


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x = _image(image, "crop_to_bounding_box")
    rows = slice(int(offset_height), int(offset_height) + int(target_height))
    cols = slice(int(offset_width), int(offset_width) + int(target_width))
    spec = (rows, cols) if x.shape.ndims == 3 else (slice(None), rows, cols)
    return array_ops.strided_slice_spec(x, spec)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x = _image(image, "pad_to_bounding_box")
    h, w = (dimension_value(x.shape[a]) for a in _axes(x))
    if h is None or w is None:
        raise ValueError(f"pad_to_bounding_box needs the height and width of '{x.name}' to be known")
    after_h, after_w = int(target_height) - int(offset_height) - h, int(target_width) - int(offset_width) - w
    if min(after_h, after_w, int(offset_height), int(offset_width)) < 0:
        raise ValueError(f"pad_to_bounding_box: '{x.name}' of shape {x.shape} does not fit the target box")
    pads = [[int(offset_height), after_h], [int(offset_width), after_w], [0, 0]]
    return array_ops.pad(x, pads if x.shape.ndims == 3 else [[0, 0], *pads])


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Crop or pad (centered) to the target size."""
    x = _image(image, "resize_image_with_crop_or_pad")
    h, w = (dimension_value(x.shape[a]) for a in _axes(x))
    if h is None or w is None:
        raise ValueError(f"resize_image_with_crop_or_pad needs the size of '{x.name}' to be known")
    th, tw = int(target_height), int(target_width)
    x = crop_to_bounding_box(x, max(h - th, 0) // 2, max(w - tw, 0) // 2, min(h, th), min(w, tw))
    return pad_to_bounding_box(x, max(th - h, 0) // 2, max(tw - w, 0) // 2, th, tw)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of the image's height and width."""
    x = _image(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return x
    h, w = (dimension_value(x.shape[a]) for a in _axes(x))
    if h is not None and w is not None:
        top = int((h - h * central_fraction) / 2)
        left = int((w - w * central_fraction) / 2)
        return crop_to_bounding_box(x, top, left, h - 2 * top, w - 2 * left)
    # Sizes known only at run time: TF1's integer rule, computed in the graph.
    offset = int(1 / ((1 - central_fraction) / 2.0))
    shape = array_ops.shape(x)
    sides = [shape[a] for a in _axes(x)]
    starts = [side // offset for side in sides]
    sizes = [side - 2 * start for side, start in zip(sides, starts)]
    lead = [] if x.shape.ndims == 3 else [0]
    keep = [] if x.shape.ndims == 3 else [-1]
    begin = array_ops.stack(lead + starts + [0])
    size = array_ops.stack(keep + sizes + [-1])
    return array_ops.slice(x, begin, size)


def _random_crop_kernel(xp, streams, x, size, *, seed):
    size = [int(s) for s in size]
    starts = [int(streams.generator().integers(0, d - s + 1)) for d, s in zip(x.shape, size)]
    return x[tuple(slice(b, b + s) for b, s in zip(starts, size))]


def _random_crop_infer(inputs, *, seed):
    x, size = inputs
    return static_shape_value(size), x.dtype


RandomCrop = Primitive(
    "RandomCrop",
    _random_crop_infer,
    _random_crop_kernel,
    stateful=True,
    make_state=random_ops._Streams,
    grad=NOT_DIFFERENTIABLE,
)


def random_crop(value, size, seed=None, name=None):
    """A random ``size`` window of ``value`` (one new position every run)."""
    x = convert_to_tensor(value)
    dims = [int(s) for s in size]
    if x.shape.dims is not None and any(d is not None and s > d for s, d in zip(dims, x.shape.dims)):
        raise ValueError(f"random_crop: size {dims} is larger than '{x.name}' of shape {x.shape}")
    return apply(RandomCrop, x, array_ops.constant(dims), seed=random_ops.get_seed(seed), name=name)


# -- resizing ----------------------------------------------------------------------------


def _source(out, size, align):
    """Source coordinates of each output pixel along one axis (TF1's legacy mapping)."""
    if align and out > 1:
        return np.arange(out) * ((size - 1) / (out - 1))
    return np.arange(out) * (size / out)


def _bilinear_weights(xp, out, size, align):
    """Source rows (or columns) and weights: made on the host from the sizes, then uploaded."""
    pos = _source(out, size, align)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, size - 1)
    frac = (pos - lo).astype(np.float32)
    return xp.asarray(lo), xp.asarray(hi), xp.asarray(frac)


def _resize_bilinear_kernel(xp, x, *, size, align_corners):
    (oh, ow), (h, w) = size, x.shape[1:3]
    r0, r1, fr = _bilinear_weights(xp, oh, h, align_corners)
    c0, c1, fc = _bilinear_weights(xp, ow, w, align_corners)
    x = x.astype(np.float32, copy=False)
    top = x[:, r0] * (1 - fr)[None, :, None, None] + x[:, r1] * fr[None, :, None, None]
    return top[:, :, c0] * (1 - fc)[None, None, :, None] + top[:, :, c1] * fc[None, None, :, None]


def _resize_bilinear_grad_kernel(xp, g, like, *, size, align_corners):
    (oh, ow), (h, w) = size, like.shape[1:3]
    r0, r1, fr = _bilinear_weights(xp, oh, h, align_corners)
    c0, c1, fc = _bilinear_weights(xp, ow, w, align_corners)
    cols = xp.zeros((g.shape[0], oh, w, g.shape[3]), np.float32)
    xp.add.at(cols, (slice(None), slice(None), c0), g * (1 - fc)[None, None, :, None])
    xp.add.at(cols, (slice(None), slice(None), c1), g * fc[None, None, :, None])
    out = xp.zeros(like.shape, np.float32)
    xp.add.at(out, (slice(None), r0), cols * (1 - fr)[None, :, None, None])
    xp.add.at(out, (slice(None), r1), cols * fr[None, :, None, None])
    return out.astype(like.dtype, copy=False)


def _resize_infer(inputs, *, size, align_corners, keep_dtype=False):
    x = inputs[0]
    dims = x._dims
    dtype = x.dtype if keep_dtype else dtypes.float32
    return (None if dims is None else (dims[0], *size, dims[3])), dtype


ResizeBilinearGrad = Primitive(
    "ResizeBilinearGrad",
    lambda inputs, *, size, align_corners: (inputs[1]._dims, inputs[1].dtype),
    _resize_bilinear_grad_kernel,
    grad=NOT_DIFFERENTIABLE,
)
ResizeBilinear = Primitive(
    "ResizeBilinear",
    _resize_infer,
    _resize_bilinear_kernel,
    lambda op, g: [apply(ResizeBilinearGrad, g, op.inputs[0], **op.attrs)],
)


def _nearest_kernel(xp, x, *, size, align_corners, keep_dtype=True):
    (oh, ow), (h, w) = size, x.shape[1:3]
    rows = xp.asarray(_nearest_index(oh, h, align_corners))
    cols = xp.asarray(_nearest_index(ow, w, align_corners))
    return x[:, rows][:, :, cols]


def _nearest_index(out, size, align):
    """The input pixel each output pixel copies along one axis, as TF1's kernel finds it: in
    float32, rounding half away from zero with aligned corners (numpy's round goes to even:
    a pixel half-way between two took the other one)."""
    if align and out > 1:
        pos = np.arange(out, dtype=np.float32) * np.float32(np.float32(size - 1) / np.float32(out - 1))
    else:
        pos = np.arange(out, dtype=np.float32) * np.float32(np.float32(size) / np.float32(out))
    below = np.floor(pos)
    index = below + (pos - below >= 0.5) if align else below
    return np.minimum(index, size - 1).astype(np.int64)


def _nearest_grad_kernel(xp, g, like, *, size, align_corners, keep_dtype=True):
    """Each output pixel's gradient added into the input pixel it copied (TF1's
    ``ResizeNearestNeighborGrad``)."""
    (oh, ow), (h, w) = size, like.shape[1:3]
    rows = xp.asarray(_nearest_index(oh, h, align_corners))
    cols = xp.asarray(_nearest_index(ow, w, align_corners))
    by_column = xp.zeros((g.shape[0], oh, w, g.shape[3]), g.dtype)
    xp.add.at(by_column, (slice(None), slice(None), cols), g)
    out = xp.zeros(like.shape, g.dtype)
    xp.add.at(out, (slice(None), rows), by_column)
    return out


ResizeNearestNeighborGrad = Primitive(
    "ResizeNearestNeighborGrad",
    shaped_like_second,
    _nearest_grad_kernel,
    shape_only=(1,),
)
ResizeNearestNeighbor = Primitive(
    "ResizeNearestNeighbor",
    _resize_infer,
    _nearest_kernel,
    lambda op, g: [apply(ResizeNearestNeighborGrad, g, op.inputs[0], **op.attrs)],
)


class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _resize(prim, images, size, align_corners, name, **extra):
    x = _image(images, prim.name)
    batch = x.shape.ndims == 4
    if not batch:
        x = array_ops.expand_dims(x, 0)
    size = tuple(int(s) for s in size)
    out = apply(prim, x, size=size, align_corners=bool(align_corners), name=name, **extra)
    return out if batch else array_ops.squeeze(out, [0])


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resizing to ``size`` = (height, width); the result is float32."""
    if half_pixel_centers:
        raise NotImplementedError("resize_bilinear with half_pixel_centers=True is not supported")
    return _resize(ResizeBilinear, images, size, align_corners, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Nearest-neighbour resizing to ``size``; keeps the dtype."""
    if half_pixel_centers:
        raise NotImplementedError("resize_nearest_neighbor with half_pixel_centers=True is not supported")
    return _resize(ResizeNearestNeighbor, images, size, align_corners, name, keep_dtype=True)


def resize_images(
    images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False, name=None
):
    """TF1's ``tf.image.resize_images``: bilinear (float32 result) or nearest neighbour."""
    if preserve_aspect_ratio:
        raise NotImplementedError("resize_images with preserve_aspect_ratio is not supported")
    if method == ResizeMethod.BILINEAR:
        return resize_bilinear(images, size, align_corners, name=name)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return resize_nearest_neighbor(images, size, align_corners, name=name)
    raise NotImplementedError(f"resize method {method} is not supported (bilinear and nearest neighbour are)")


# -- values ------------------------------------------------------------------------------


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert between integer (0..max) and float (0..1) image encodings."""
    x = convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return array_ops.identity(x, name=name)
    with name_scope(name or "convert_image"):
        if x.dtype.is_integer and dtype.is_floating:
            return math_ops.cast(x, dtype) * (1.0 / x.dtype.max)
        if x.dtype.is_floating and dtype.is_integer:
            scaled = x * (dtype.max + 0.5)
            if saturate:
                scaled = math_ops.clip_by_value(scaled, 0.0, float(dtype.max))
            return math_ops.cast(scaled, dtype)
        if x.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(x, dtype)
        raise NotImplementedError("convert_image_dtype between integer types is not supported")


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(num_elements))`` per image."""
    x = math_ops.cast(_image(image, "per_image_standardization"), dtypes.float32)
    axes = [-1, -2, -3]
    n = array_ops.size(x) if x.shape.ndims == 3 else math_ops.reduce_prod(array_ops.shape(x)[1:])
    mean = math_ops.reduce_mean(x, axes, keepdims=True)
    std = math_ops.sqrt(math_ops.reduce_mean(math_ops.square(x - mean), axes, keepdims=True))
    floor = math_ops.rsqrt(math_ops.cast(n, dtypes.float32))
    return (x - mean) / math_ops.maximum(std, floor)


def _in_float(x, adjust):
    """``adjust`` applied as TF1 does it: on float16/float32 images as they are, on others
    converted to float32 (integers to 0..1), the result converted back, saturating."""
    if x.dtype in (dtypes.float16, dtypes.float32):
        return adjust(x)
    return convert_image_dtype(adjust(convert_image_dtype(x, dtypes.float32)), x.dtype, saturate=True)


def adjust_brightness(image, delta):
    """``image + delta``, in 0..1 units for integer images (TF1's convention)."""
    x = convert_to_tensor(image)
    return _in_float(x, lambda f: f + math_ops.cast(delta, f.dtype))


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * factor + mean``, the mean per image and channel."""
    x = _image(images, "adjust_contrast")

    def adjust(f):
        mean = math_ops.reduce_mean(f, list(_axes(f)), keepdims=True)
        return (f - mean) * math_ops.cast(contrast_factor, f.dtype) + mean

    return _in_float(x, adjust)


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


def rgb_to_grayscale(images, name=None):
    """The luma (ITU-R 601-2 weights), keeping a channel axis of size 1."""
    x = convert_to_tensor(images)
    flt = math_ops.cast(x, dtypes.float32) if not x.dtype.is_floating else x
    weights = array_ops.constant([0.2989, 0.5870, 0.1140], dtype=flt.dtype)
    gray = math_ops.reduce_sum(flt * weights, -1, keepdims=True)
    return gray if x.dtype.is_floating else math_ops.cast(gray, x.dtype, name=name)


def grayscale_to_rgb(images, name=None):
    x = convert_to_tensor(images)
    return array_ops.tile(x, [1] * (x.shape.ndims - 1) + [3], name=name)


# -- decoding and encoding image files ---------------------------------------------------------
# PNG with daskflow.lib.io.png (zlib and numpy); JPEG, GIF and BMP with Pillow, which
# bokeh (a dependency) already requires: imported when such an image is first decoded.


def _contents(contents, who):
    x = convert_to_tensor(contents, dtype=dtypes.string)
    if x.shape.ndims not in (None, 0):
        raise ValueError(f"{who}: contents {x.name} must be a scalar string, got shape {x.shape}")
    return x


def _image_infer(inputs, *, channels, dtype, kind):
    if kind == "any":
        return None, dtype  # a GIF decodes to frames: rank unknown, as TF1's
    return (None, None, channels or None), dtype


def _decode_kernel(xp, contents, *, channels, dtype, kind):
    data = contents.item() if hasattr(contents, "item") else contents
    pixels = _decoded(data)
    return _as_requested(pixels, channels, dtype)


def _decoded(data):
    from ..lib.io import png  # local import: the PNG codec loads with the first image coded

    try:
        if data.startswith(png.SIGNATURE):  # each decoder reads every format, as TF's
            return png.decode(data)
        if data[:3] == b"\xff\xd8\xff" or data[:4] == b"GIF8" or data[:2] == b"BM":
            return _pillow_decoded(data)
        raise ValueError("Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    except (ValueError, OSError) as e:  # Pillow's errors on a damaged file are OSErrors
        raise InvalidArgumentError(None, None, str(e)) from None


def _pillow_decoded(data):
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data))
    frames = []
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        mode = "RGB" if data[:4] == b"GIF8" else _pillow_mode(image)  # a GIF's frames are RGB, as TF1's
        frames.append(np.asarray(image.convert(mode)))
    if data[:4] == b"GIF8":
        return np.stack(frames)  # [frames, height, width, 3]
    pixels = frames[0]
    return pixels[..., None] if pixels.ndim == 2 else pixels


def _pillow_mode(image):
    if image.mode in ("1", "L", "LA", "RGBA"):
        return "L" if image.mode == "1" else image.mode
    return "RGBA" if image.mode == "P" and "transparency" in image.info else "RGB"


def _as_requested(pixels, channels, dtype):
    """TF1's conversions: grey <-> RGB, alpha added (opaque) or dropped, 8 <-> 16 bits."""
    have = pixels.shape[-1]
    if channels and channels != have:
        colour, alpha = (
            pixels[..., : 3 if have >= 3 else 1],
            pixels[..., have - 1 :] if have in (2, 4) else None,
        )
        if channels in (1, 2) and colour.shape[-1] == 3:  # libpng's fixed-point weights, truncated
            grey = colour.astype(np.int64) @ np.array([9798, 19235, 3735]) >> 15
            colour = grey[..., None].astype(pixels.dtype)
        elif channels in (3, 4) and colour.shape[-1] == 1:
            colour = np.repeat(colour, 3, axis=-1)
        if channels in (2, 4):
            opaque = np.full((*pixels.shape[:-1], 1), np.iinfo(pixels.dtype).max, pixels.dtype)
            colour = np.concatenate([colour, alpha if alpha is not None else opaque], axis=-1)
        pixels = colour
    if dtype.np == pixels.dtype:
        return pixels
    if dtype is dtypes.uint16:
        return pixels.astype(np.uint16) * 257
    if dtype is dtypes.uint8:
        return (pixels >> 8).astype(np.uint8)
    return pixels.astype(dtype.np) / np.iinfo(pixels.dtype).max  # decode_image's float32


DecodePng = Primitive("DecodePng", _image_infer, _decode_kernel, host_only=True)
DecodeJpeg = Primitive("DecodeJpeg", _image_infer, _decode_kernel, host_only=True)
DecodeImage = Primitive("DecodeImage", _image_infer, _decode_kernel, host_only=True)


def _decode(prim, contents, channels, dtype, kind, who, name):
    channels = int(channels or 0)
    if channels not in (0, 1, 2, 3, 4) or (kind == "jpeg" and channels in (2, 4)):
        raise ValueError(
            f"{who}: channels must be 0, 1{', 2' if kind != 'jpeg' else ''} or 3, got {channels}"
        )
    x = _contents(contents, who)
    return apply(prim, x, channels=channels, dtype=dtypes.as_dtype(dtype), kind=kind, name=name or prim.name)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """A PNG file's pixels, ``[height, width, channels]`` (``channels=0``: as the file).

    ``channels`` 1 (grey), 2 (grey + alpha), 3 (RGB), 4 (RGBA) converts as TF1
    does; ``dtype`` is ``tf.uint8`` or ``tf.uint16``.

    Examples
    --------
    >>> import daskflow as tf
    >>> png = tf.image.encode_png(tf.zeros([2, 3, 1], tf.uint8))
    >>> tf.image.decode_png(png, channels=3).shape.as_list()
    [None, None, 3]
    >>> tf.Session().run(tf.image.decode_png(png)).shape
    (2, 3, 1)
    """
    return _decode(DecodePng, contents, channels, dtype, "png", "decode_png", name)


def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """A JPEG file's pixels, ``[height, width, channels]`` uint8 (decoded by Pillow;
    ``ratio``, ``fancy_upscaling``, ``dct_method``... are accepted and not used)."""
    return _decode(DecodeJpeg, contents, channels, dtypes.uint8, "jpeg", "decode_jpeg", name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """A PNG, JPEG, BMP or GIF file's pixels (a GIF's: ``[frames, height, width, 3]``),
    told apart by their first bytes; the static shape is unknown, as TF1's."""
    with name_scope(name or "decode_image"):
        return _decode(DecodeImage, contents, channels, dtype, "any", "decode_image", None)


def _encode_infer(inputs, **_):
    x = inputs[0]
    if x.shape.ndims not in (None, 3):
        raise ValueError(f"image {x.name} must be 3-D [height, width, channels], got shape {x.shape}")
    return (), dtypes.string


def _encode_png_kernel(xp, image, *, compression):
    from ..lib.io import png  # local import: the PNG codec loads with the first image coded

    image = np.asarray(image)
    if image.shape[-1] not in (1, 2, 3, 4):
        raise InvalidArgumentError(
            None, None, f"image must have 1, 2, 3, or 4 channels, got {image.shape[-1]}"
        )
    return np.array(png.encode(image, compression), dtype=object)


EncodePng = Primitive("EncodePng", _encode_infer, _encode_png_kernel, host_only=True)


def encode_png(image, compression=-1, name=None):
    """A PNG file (string scalar) of ``image``: uint8 or uint16, ``[height, width, channels]``."""
    x = convert_to_tensor(image)
    if x.dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"encode_png: image {x.name} must be uint8 or uint16, got {x.dtype.name}")
    return apply(EncodePng, x, compression=int(compression), name=name or "EncodePng")


def _encode_jpeg_kernel(xp, image, *, quality, progressive, optimize_size, chroma_downsampling, density):
    import io

    from PIL import Image

    image = np.asarray(image)
    if image.shape[-1] not in (1, 3):
        raise InvalidArgumentError(None, None, f"image must have 1 or 3 channels, got {image.shape[-1]}")
    picture = Image.fromarray(image[..., 0] if image.shape[-1] == 1 else image)
    out = io.BytesIO()
    picture.save(
        out,
        "JPEG",
        quality=quality,
        progressive=progressive,
        optimize=optimize_size,
        subsampling=2 if chroma_downsampling else 0,
        dpi=density,
    )
    return np.array(out.getvalue(), dtype=object)


EncodeJpeg = Primitive("EncodeJpeg", _encode_infer, _encode_jpeg_kernel, host_only=True)


def encode_jpeg(
    image,
    format="",  # noqa: A002 - TF1's name
    quality=95,
    progressive=False,
    optimize_size=False,
    chroma_downsampling=True,
    density_unit="in",
    x_density=300,
    y_density=300,
    xmp_metadata="",
    name=None,
):
    """A JPEG file (string scalar) of a uint8 ``image`` with 1 or 3 channels (encoded by Pillow)."""
    x = convert_to_tensor(image)
    if x.dtype is not dtypes.uint8:
        raise TypeError(f"encode_jpeg: image {x.name} must be uint8, got {x.dtype.name}")
    density = (int(x_density), int(y_density))
    return apply(
        EncodeJpeg,
        x,
        quality=int(quality),
        progressive=bool(progressive),
        optimize_size=bool(optimize_size),
        chroma_downsampling=bool(chroma_downsampling),
        density=density,
        name=name or "EncodeJpeg",
    )
