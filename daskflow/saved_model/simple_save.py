"""``tf.saved_model.simple_save``: a model for serving in one call."""

from __future__ import annotations

from . import signature_constants, tag_constants
from .builder import SavedModelBuilder
from .signature_def_utils import predict_signature_def

__all__ = ["simple_save"]


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Write ``session`` 's graph and variables to ``export_dir`` as a SavedModel tagged
    ``serve``, with one predict signature (``serving_default``) of ``inputs`` and
    ``outputs`` (``{key: tensor}``); the devices are cleared, as TF1's.
    """
    signatures = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)
    }
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signatures,
        main_op=legacy_init_op,
        clear_devices=True,
    )
    builder.save()
