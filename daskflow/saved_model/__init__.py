"""``tf.saved_model`` (TF1's): write and load SavedModels, the format TF Serving reads.

A SavedModel is a folder: ``saved_model.pb`` (TF's ``SavedModel`` proto: one or more
meta graphs, each found by its tags, each with its signatures) and ``variables/`` (a
checkpoint in TF's format). Written by :func:`simple_save` or :mod:`.builder`, read by
:mod:`.loader`; TensorFlow loads what daskflow writes and the reverse. Assets (vocabulary
files a graph reads) are not copied.
"""

from .._namespaces import module_getattr
from . import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from .constants import *  # noqa: F403 - TF1 binds the constants here too
from .signature_constants import *  # noqa: F403
from .simple_save import simple_save
from .tag_constants import *  # noqa: F403

__all__ = [
    "builder",
    "constants",
    "loader",
    "main_op",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]
__getattr__ = module_getattr("tf.saved_model")
