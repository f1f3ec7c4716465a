"""``tf.saved_model.builder``: ``SavedModelBuilder`` writes a SavedModel TensorFlow loads."""

from __future__ import annotations

import os

import fsspec

from ..errors import UnimplementedError
from ..framework.graph import get_default_graph
from ..train.meta_graph import export_meta_graph
from ..train.saver import Saver
from ..variables import global_variables
from . import constants, saved_model_file

__all__ = ["SavedModelBuilder"]


class SavedModelBuilder:
    """Build a SavedModel in ``export_dir`` (TF1's ``tf.saved_model.builder.SavedModelBuilder``).

    The first meta graph comes with the variables (``add_meta_graph_and_variables``: a
    checkpoint in TF's format, ``variables/variables.index`` and ``.data-*``); others share
    them (``add_meta_graph``); ``save`` writes ``saved_model.pb``. Each meta graph is
    found by its ``tags`` and holds its ``signature_def_map``.

    Parameters
    ----------
    export_dir : str or path
        A folder that does not exist or is empty (any fsspec URL).

    Examples
    --------
    >>> import daskflow as tf, tempfile, os
    >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
    >>> x = tf.placeholder(tf.float32, [None], name="x")
    >>> w = tf.Variable(2.0, name="w")
    >>> with tf.Session() as sess:
    ...     sess.run(w.initializer)
    ...     builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    ...     signature = tf.saved_model.predict_signature_def({"x": x}, {"y": x * w})
    ...     builder.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": signature})
    ...     path = builder.save()
    >>> sorted(os.listdir(export_dir))
    ['saved_model.pb', 'variables']
    """

    def __init__(self, export_dir):
        export_dir = os.fspath(export_dir)
        fs, stripped = fsspec.core.url_to_fs(export_dir)
        if fs.exists(stripped) and fs.ls(stripped):
            raise AssertionError(
                "Export directory already exists, and isn't empty. Please choose a different export "
                f"directory, or delete all the contents of the specified directory: {export_dir}"
            )
        fs.makedirs(stripped, exist_ok=True)
        self._export_dir = export_dir
        self._saved_model = saved_model_file.saved_model_class()(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION
        )
        self._has_saved_variables = False

    def add_meta_graph_and_variables(
        self,
        sess,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Save ``sess`` 's variables and its graph as the meta graph of ``tags``.

        ``main_op`` (or ``legacy_init_op``) runs when the SavedModel is loaded, after the
        variables are restored. ``saver`` (default: one of every global variable) writes
        them. A non-empty ``assets_collection`` is refused (daskflow copies no assets yet);
        attributes at TF's defaults are always left out (``strip_default_attrs``).
        """
        _no_assets(assets_collection)
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. "
                "Please invoke `add_meta_graph()` instead."
            )
        _check_signatures(signature_def_map)
        with sess.graph.as_default():
            saver = saver if saver is not None else _default_saver()
            if saver is not None:
                saver.save(
                    sess,
                    saved_model_file.variables_path(self._export_dir),
                    write_meta_graph=False,
                    write_state=False,
                )
            self._add_meta_graph(tags, signature_def_map, main_op or legacy_init_op, clear_devices, saver)
        self._has_saved_variables = True

    def add_meta_graph(
        self,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Add the default graph as the meta graph of ``tags``, over the variables already saved."""
        _no_assets(assets_collection)
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. "
                "Please invoke `add_meta_graph_and_variables()` first."
            )
        _check_signatures(signature_def_map)
        saver = saver if saver is not None else _default_saver()
        self._add_meta_graph(tags, signature_def_map, main_op or legacy_init_op, clear_devices, saver)

    def _add_meta_graph(self, tags, signature_def_map, main_op, clear_devices, saver):
        graph = get_default_graph()
        if main_op is not None:
            graph.clear_collection(constants.MAIN_OP_KEY)
            graph.add_to_collection(constants.MAIN_OP_KEY, getattr(main_op, "op", main_op))
        meta = export_meta_graph(
            graph=graph,
            saver_def=saver.saver_def if saver is not None else None,
            clear_devices=clear_devices,
            saved_variables=saver._vars if saver is not None else None,
        )
        meta.meta_info_def.tags.extend([tags] if isinstance(tags, str) else tags)
        for key, signature in (signature_def_map or {}).items():
            meta.signature_def[key].CopyFrom(signature)
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def save(self, as_text=False):
        """Write ``saved_model.pb`` (``.pbtxt`` with ``as_text``); return its path as bytes."""
        return saved_model_file.write(self._export_dir, self._saved_model, as_text).encode()


def _no_assets(assets_collection):
    if assets_collection:  # (TF1 copies the files into assets/; daskflow does not yet)
        raise UnimplementedError(None, None, "SavedModelBuilder: assets_collection is not supported yet")


def _default_saver():
    return Saver(global_variables(), allow_empty=True) if global_variables() else None


def _check_signatures(signature_def_map):
    for key, signature in (signature_def_map or {}).items():
        if not hasattr(signature, "method_name") or not hasattr(signature, "inputs"):
            raise TypeError(
                f"signature_def_map[{key!r}] must be a SignatureDef; got {type(signature).__name__}"
            )
