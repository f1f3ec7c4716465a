"""``tf.random``: the random ops under their TF 1.13+ names."""

from ._namespaces import module_getattr
from .ops.random_ops import (
    categorical,
    multinomial,
    set_random_seed,
    truncated_normal,
)
from .ops.random_ops import (
    random_normal as normal,
)
from .ops.random_ops import (
    random_shuffle as shuffle,
)
from .ops.random_ops import (
    random_uniform as uniform,
)

__all__ = [
    "categorical",
    "multinomial",
    "normal",
    "set_random_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
__getattr__ = module_getattr("tf.random")
