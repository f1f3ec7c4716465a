"""``tf.summary`` ops: graph ops whose value is a serialized ``Summary`` proto.

Each op is an ordinary primitive (no gradient) with a scalar ``tf.string``
output, so it runs on whichever worker its inputs are on and only the few
bytes of the proto travel to the client. The tag is fixed when the op is
built, by TF1's rule: the op's unique name scope (``layer1/loss``,
``layer1/loss_1``...), prefixed by ``family`` when one is given. Every op joins
``tf.GraphKeys.SUMMARIES`` (or the ``collections`` given), which
:func:`merge_all` merges.

Concatenated serialized ``Summary`` protos are themselves a valid
``Summary`` (its only field is repeated), which is all :func:`merge` does
once it has checked the parts.
"""

from __future__ import annotations

import contextlib
import logging
import re

import numpy as np

from .. import dtypes
from ..framework import protos
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import fmt
from ..variables import GraphKeys
from . import encode

logger = logging.getLogger("daskflow")

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")
_REAL = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8)
_REAL += (dtypes.int64, dtypes.uint16, dtypes.float16, dtypes.uint32, dtypes.uint64)
_IMAGE = (dtypes.uint8, dtypes.float32, dtypes.float16, dtypes.float64)


# -- shared pieces ---------------------------------------------------------------------------


def _clean_tag(name):
    """TF1's rule: characters other than ``[-/\\w.]`` become ``_``; leading slashes go."""
    if name is None:
        return None
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        logger.info("Summary name %s is illegal; using %s instead.", name, cleaned)
    return cleaned


@contextlib.contextmanager
def _summary_scope(name, family):
    """Yield ``(tag, op name)``: the op is named after its unique scope, the tag too."""
    name, family = _clean_tag(name), _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with get_default_graph().name_scope(base) as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else f"{family}/{tag}"), scope


def _collect(tensor, collections, default):
    for key in default if collections is None else collections:
        tensor.graph.add_to_collection(key, tensor)
    return tensor


def _require_dtype(t, allowed, parameter):
    if t.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(
            f"Value passed to parameter '{parameter}' ({t.name}) has DataType {t.dtype.name} "
            f"not in list of allowed values: {names}"
        )


def _summary_infer(inputs, **_):
    return (), dtypes.string


def _host(xp, x) -> np.ndarray:
    return np.asarray(x) if xp is np else xp.asnumpy(x)


def _serialized(*values) -> np.ndarray:
    """A scalar ``tf.string`` value holding ``Summary(value=values)``."""
    out = np.empty((), dtype=object)
    out[()] = protos.Summary(value=values).SerializeToString()
    return out


def _summary_op(prim, tag, scope, inputs, collections, **attrs):
    out = apply(prim, *inputs, name=scope, tag=tag, **attrs)
    return _collect(out, collections, [GraphKeys.SUMMARIES])


# -- scalar ----------------------------------------------------------------------------------


def _scalar_infer(inputs, **_):
    _require_dtype(inputs[0], _REAL, "values")
    return (), dtypes.string


def _scalar_kernel(xp, values, *, tag):
    values = _host(xp, values)
    if values.shape:
        raise ValueError(f"tags and values are not the same shape: [] != {list(values.shape)} (tag '{tag}')")
    return _serialized(protos.Summary.Value(tag=tag, simple_value=float(values)))


ScalarSummary = Primitive("ScalarSummary", _scalar_infer, _scalar_kernel, grad=NOT_DIFFERENTIABLE)


def scalar(name, tensor, collections=None, family=None):
    """A summary of one real number, shown as a curve in TensorBoard's Scalars tab.

    Parameters
    ----------
    name : str
        The tag (inside the current name scope, made unique as op names are).
    tensor : Tensor
        A real-valued scalar; a value of another shape fails when run.
    collections : list of str, optional
        Collections to add the summary to; default ``[GraphKeys.SUMMARIES]``.
    family : str, optional
        A prefix for the tag, the tab TensorBoard groups it under.

    Returns
    -------
    Tensor
        A scalar ``tf.string``: the serialized ``Summary`` proto.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     with tf.name_scope("layer1"):
    ...         s = tf.summary.scalar("loss", tf.constant(0.5))
    ...     tf.summary.Summary.FromString(tf.Session().run(s)).value[0].tag
    'layer1/loss'
    """
    with _summary_scope(name, family) as (tag, scope):
        return _summary_op(ScalarSummary, tag, scope, [tensor], collections)


# -- histogram -------------------------------------------------------------------------------


def _histogram_kernel(xp, values, *, tag):
    values = _host(xp, values).astype(np.float64).reshape(-1)
    bad = values[~np.isfinite(values)]
    if bad.size and np.isnan(bad[0]):
        raise ValueError(f"Nan in summary histogram for: {tag}")
    if bad.size:
        raise ValueError(f"Infinity in Histogram for: {tag}")
    return _serialized(protos.Summary.Value(tag=tag, histo=protos.HistogramProto(**encode.histogram(values))))


HistogramSummary = Primitive("HistogramSummary", _scalar_infer, _histogram_kernel, grad=NOT_DIFFERENTIABLE)


def histogram(name, values, collections=None, family=None):
    """A summary of the distribution of ``values`` (any shape), in TF1's bucket layout.

    Buckets grow by 10% from ±1e-12 to ±1e20, as TensorBoard's Histograms and
    Distributions tabs expect; NaN or infinite values fail when run.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     h = tf.summary.histogram("weights", tf.constant([1.0, 2.0, 2.5]))
    ...     tf.summary.Summary.FromString(tf.Session().run(h)).value[0].histo.num
    3.0
    """
    with _summary_scope(name, family) as (tag, scope):
        return _summary_op(HistogramSummary, tag, scope, [values], collections)


# -- image -----------------------------------------------------------------------------------


def _image_infer(inputs, **_):
    t = inputs[0]
    _require_dtype(t, _IMAGE, "tensor")
    dims = t._dims
    if dims is not None and (len(dims) != 4 or dims[-1] not in (None, 1, 3, 4)):
        raise ValueError(
            f"an image summary takes a 4-D [batch, height, width, channels] tensor with 1, 3 or 4 "
            f"channels; {t.name} has shape {fmt(dims)}"
        )
    return (), dtypes.string


def _image_kernel(xp, tensor, *, tag, max_images):
    images = _host(xp, tensor)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise ValueError(f"Tensor must be 4-D with last dim 1, 3, or 4, not {list(images.shape)}")
    values = []
    for i in range(min(len(images), max_images)):
        pixels = encode.to_uint8_image(images[i])
        height, width, channels = pixels.shape
        image = protos.Summary.Image(height=height, width=width, colorspace=channels)
        image.encoded_image_string = encode.png(pixels)
        # The tag depends on how many images were asked for, not how many there are.
        numbered = f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image"
        values.append(protos.Summary.Value(tag=numbered, image=image))
    return _serialized(*values)


ImageSummary = Primitive("ImageSummary", _image_infer, _image_kernel, grad=NOT_DIFFERENTIABLE)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A summary of up to ``max_outputs`` images of a ``[batch, height, width, channels]`` batch.

    ``channels`` is 1 (grey), 3 (RGB) or 4 (RGBA). uint8 values are taken as
    they are; float values are rescaled per image, as TF1 does: to 0..255 by
    the largest value when none is negative, else around 128. Each image is
    PNG-encoded under the tag ``<name>/image/<i>`` (``<name>/image`` when
    ``max_outputs`` is 1).

    Raises
    ------
    TypeError
        If the dtype is not uint8, float16, float32 or float64.
    ValueError
        If the static shape is not 4-D with 1, 3 or 4 channels (an unknown
        shape is checked when run).

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     im = tf.summary.image("digits", tf.zeros([2, 8, 8, 1]), max_outputs=2)
    ...     [v.tag for v in tf.summary.Summary.FromString(tf.Session().run(im)).value]
    ['digits/image/0', 'digits/image/1']
    """
    if int(max_outputs) < 1:
        raise ValueError(f"image summary {name!r}: max_outputs must be at least 1, got {max_outputs}")
    with _summary_scope(name, family) as (tag, scope):
        return _summary_op(ImageSummary, tag, scope, [tensor], collections, max_images=int(max_outputs))


# -- audio -----------------------------------------------------------------------------------


def _audio_infer(inputs, **_):
    t, rate = inputs
    _require_dtype(t, (dtypes.float32,), "tensor")
    _require_dtype(rate, (dtypes.float32,), "sample_rate")
    if t._dims is not None and len(t._dims) not in (2, 3):
        raise ValueError(
            f"an audio summary takes a [batch, frames(, channels)] tensor; {t.name} has shape {fmt(t._dims)}"
        )
    return (), dtypes.string


def _audio_kernel(xp, tensor, sample_rate, *, tag, max_outputs):
    audio, rate = _host(xp, tensor), _host(xp, sample_rate)
    if rate.size != 1:
        raise ValueError(f"sample_rate must be a single value, got shape {list(rate.shape)}")
    if audio.ndim not in (2, 3):
        raise ValueError(f"Tensor must be 3-D or 2-D, got: {list(audio.shape)}")
    batch, frames = audio.shape[:2]
    channels = 1 if audio.ndim == 2 else audio.shape[2]
    audio = audio.reshape(batch, frames, channels)
    rate = float(rate.reshape(()))
    header_rate = max(1, int(np.rint(np.float32(rate))))  # TF1's lrintf, and never 0
    values = []
    for i in range(min(batch, max_outputs)):
        clip = protos.Summary.Audio(sample_rate=rate, num_channels=channels, length_frames=frames)
        clip.content_type, clip.encoded_audio_string = "audio/wav", encode.wav(audio[i], header_rate)
        numbered = f"{tag}/audio/{i}" if max_outputs > 1 else f"{tag}/audio"
        values.append(protos.Summary.Value(tag=numbered, audio=clip))
    return _serialized(*values)


AudioSummaryV2 = Primitive("AudioSummaryV2", _audio_infer, _audio_kernel, grad=NOT_DIFFERENTIABLE)


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A summary of up to ``max_outputs`` clips of a ``[batch, frames(, channels)]`` float32 batch.

    Samples in [-1, 1] are written as 16-bit WAV at ``sample_rate`` Hz under
    the tag ``<name>/audio/<i>`` (``<name>/audio`` when ``max_outputs`` is 1).
    """
    if int(max_outputs) < 1:
        raise ValueError(f"audio summary {name!r}: max_outputs must be at least 1, got {max_outputs}")
    with _summary_scope(name, family) as (tag, scope):
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        inputs = [tensor, rate]
        return _summary_op(AudioSummaryV2, tag, scope, inputs, collections, max_outputs=int(max_outputs))


# -- tensors and text ------------------------------------------------------------------------


def _tensor_summary_kernel(xp, tensor, *, tag, metadata, plugin_name, display_name, description):
    meta = protos.SummaryMetadata.FromString(metadata)
    if plugin_name is not None:
        meta.plugin_data.plugin_name = plugin_name
    if display_name is not None:
        meta.display_name = display_name
    if description is not None:
        meta.summary_description = description
    return _serialized(
        protos.Summary.Value(tag=tag, tensor=protos.tensor_proto(_host(xp, tensor)), metadata=meta)
    )


TensorSummaryV2 = Primitive(
    "TensorSummaryV2", _summary_infer, _tensor_summary_kernel, grad=NOT_DIFFERENTIABLE
)


def tensor_summary(
    name,
    tensor,
    summary_description=None,
    collections=None,
    summary_metadata=None,
    family=None,
    display_name=None,
):
    """A summary holding a whole tensor, for TensorBoard plugins that read tensors.

    ``summary_metadata`` is a ``SummaryMetadata`` proto (or its bytes) naming
    the plugin; ``summary_description`` and ``display_name`` are set on it.
    """
    if summary_metadata is None:
        metadata = b""
    elif isinstance(summary_metadata, bytes):
        metadata = summary_metadata
    else:
        metadata = summary_metadata.SerializeToString()
    attrs = dict(metadata=metadata, display_name=display_name, description=summary_description)
    return _tensor_summary(name, tensor, collections, family, plugin_name=None, **attrs)


def _tensor_summary(name, tensor, collections, family, **attrs):
    with _summary_scope(name, family) as (tag, scope):
        return _summary_op(TensorSummaryV2, tag, scope, [tensor], collections, **attrs)


def text(name, tensor, collections=None):
    """A summary of a ``tf.string`` tensor (any shape), shown in TensorBoard's Text tab.

    Raises
    ------
    ValueError
        If ``tensor`` is not a string tensor.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     t = tf.summary.text("notes", tf.constant("**hello**"))
    ...     tf.summary.Summary.FromString(tf.Session().run(t)).value[0].tensor.string_val
    [b'**hello**']
    """
    tensor = convert_to_tensor(tensor)
    if tensor.dtype is not dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got {tensor.dtype!r}")
    attrs = dict(metadata=b"", plugin_name="text", display_name=None, description=None)
    return _tensor_summary(name, tensor, collections, None, **attrs)


# -- merging ---------------------------------------------------------------------------------


def _merge_infer(inputs):
    if not inputs:
        raise ValueError("merge takes at least one summary; the list of inputs is empty")
    wrong = [t for t in inputs if t.dtype is not dtypes.string]
    if wrong:
        culprits = ", ".join(f"{t.name} is {t.dtype.name}" for t in wrong)
        raise TypeError(f"summaries to merge must be string tensors: {culprits}")
    return (), dtypes.string


def _merge_kernel(xp, *inputs):
    from google.protobuf.message import DecodeError

    parts = [blob for x in inputs for blob in np.asarray(x, dtype=object).reshape(-1)]
    seen = set()
    for blob in parts:
        try:
            summary = protos.Summary.FromString(blob)
        except DecodeError:
            raise ValueError("Could not parse one of the summary inputs") from None
        for value in summary.value:
            if value.tag and value.tag in seen:
                raise ValueError(f"Duplicate tag {value.tag} found in summary inputs")
            seen.add(value.tag)
    out = np.empty((), dtype=object)
    out[()] = b"".join(parts)
    return out


MergeSummary = Primitive("MergeSummary", _merge_infer, _merge_kernel, grad=NOT_DIFFERENTIABLE)


def merge(inputs, collections=None, name=None):
    """One summary holding every value of ``inputs`` (serialized ``Summary`` string tensors).

    Tags must be distinct across the inputs; a repeated tag fails when run.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     a = tf.summary.scalar("a", tf.constant(1.0))
    ...     b = tf.summary.scalar("b", tf.constant(2.0))
    ...     m = tf.summary.merge([a, b])
    ...     [v.tag for v in tf.summary.Summary.FromString(tf.Session().run(m)).value]
    ['a', 'b']
    """
    with get_default_graph().name_scope(name or "Merge"):
        merged = apply(MergeSummary, *inputs, name=name or "MergeSummary")
    return _collect(merged, collections, [])


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """:func:`merge` of every summary in the collection ``key``; None when it is empty.

    ``scope`` keeps only summaries whose names match it (a regular expression).
    """
    summaries = get_default_graph().get_collection(key, scope=scope)
    return merge(summaries, name=name) if summaries else None
