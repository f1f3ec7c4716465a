"""``tf.contrib``: the few pieces TF1 scripts commonly took from it.

Everything else in TF1's contrib (``tf.contrib.factorization``, ``slim``...)
is not part of daskflow and says so when asked for.
"""

from .._namespaces import module_getattr
from . import layers, rnn, training  # noqa: F401 - tf.contrib.layers, .rnn, .training

__getattr__ = module_getattr("tf.contrib")
