"""``tf.io``: TF1's namespace of reading and parsing. Most of its names are TF1's top-level
ops under another path (``tf.io.parse_example`` is ``tf.parse_example``); this module holds
the ones TF1 has only here. A name daskflow lacks says so."""

from .._namespaces import module_getattr
from ..ops.example_parsing_ops import parse_sequence_example

__all__ = ["parse_sequence_example"]

__getattr__ = module_getattr("tf.io")
