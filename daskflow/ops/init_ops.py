"""Initializers: objects that build a variable's initial value for a shape.

TF1's protocol: ``initializer(shape, dtype=None, partition_info=None)``
returns a tensor. ``get_variable`` and the layers call them; users pass them
as ``initializer=`` or ``kernel_initializer=``. Random ones draw from
daskflow's streams: the same distributions as TF1, not the same numbers.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..framework.constant import constant
from . import array_ops, random_ops


class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None)`` builds a tensor."""

    dtype = None

    def _dtype(self, dtype):
        return dtypes.as_dtype(dtype or self.dtype or dtypes.float32)

    def get_config(self):
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    """All zeros."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        if dtype is dtypes.string:
            return array_ops.fill(shape, constant(b""))
        return array_ops.zeros(shape, dtype)


class Ones(Zeros):
    """All ones."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, self._dtype(dtype))


class Constant(Initializer):
    """A fixed value (a scalar fills the shape; a list must fit it, as in TF1)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        self.value, self.dtype, self.verify_shape = value, dtypes.as_dtype(dtype), verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        verify = self.verify_shape if verify_shape is None else verify_shape
        return constant(self.value, dtype=self._dtype(dtype), shape=shape, verify_shape=verify)


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        maxval = self.maxval if self.maxval is not None else (None if dtype.is_integer else 1.0)
        return random_ops.random_uniform(shape, self.minval, maxval, dtype, seed=self.seed)


class RandomNormal(Initializer):
    """Normal values."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, self._dtype(dtype), seed=self.seed)


class TruncatedNormal(RandomNormal):
    """Normal values redrawn beyond two standard deviations."""

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)


def _fans(shape):
    """TF's fan-in and fan-out: a conv kernel's receptive field multiplies both."""
    shape = [int(d) for d in shape]
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Values with variance ``scale / n``; ``n`` is the fan-in, fan-out or their mean.

    ``distribution`` "normal" and "truncated_normal" draw a truncated normal
    whose standard deviation is corrected for the truncation (TF1's rule),
    "untruncated_normal" a plain normal, "uniform" ``U(-limit, limit)``.
    """

    def __init__(
        self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=dtypes.float32
    ):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / 0.87962566103423978  # the std of N(0,1) truncated at 2
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    """Glorot (Xavier) uniform: the default initializer of ``get_variable`` and the layers."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype}


class GlorotNormal(VarianceScaling):
    """Glorot (Xavier) normal, truncated."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype}


class UniformUnitScaling(Initializer):
    """Uniform in ``±sqrt(3 / fan_in) * factor`` (TF1's deprecated initializer)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed, self.dtype = factor, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = [int(d) for d in shape]
        fan_in = math.prod(dims[:-1]) if len(dims) > 1 else (dims[0] if dims else 1)
        limit = math.sqrt(3.0 / max(1.0, fan_in)) * self.factor
        return random_ops.random_uniform(shape, -limit, limit, self._dtype(dtype), seed=self.seed)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal one, times ``gain``.

    The matrix is drawn when the graph is built (``seed`` fixes it); TF1 draws
    it in the graph.
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed, self.dtype = gain, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = [int(d) for d in shape]
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = math.prod(dims[:-1]), dims[-1]
        rng = np.random.default_rng(random_ops.get_seed(self.seed))
        a = rng.standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        q = q.T if rows < cols else q
        return constant(self.gain * q.reshape(dims), dtype=self._dtype(dtype))


class Identity(Initializer):
    """The identity matrix times ``gain`` (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain, self.dtype = gain, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = [int(d) for d in shape]
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return constant(self.gain * np.eye(*dims), dtype=self._dtype(dtype))


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


def default_initializer(name, shape, dtype):
    """``get_variable``'s default: Glorot uniform for floats, zeros for the rest."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_floating:
        return GlorotUniform()
    if dtype.is_integer or dtype.is_bool or dtype is dtypes.string:
        return Zeros(dtype)
    raise ValueError(f"An initializer for variable {name} of {dtype!r} is required")
