"""``tf.saved_model.loader``: load a SavedModel (TensorFlow's or daskflow's) into a session."""

from __future__ import annotations

import os

from ..framework.graph import prepend_name_scope
from ..train.meta_graph import import_meta_graph
from . import constants, saved_model_file

__all__ = ["load", "maybe_saved_model_directory"]


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Import the meta graph of ``tags`` from the SavedModel in ``export_dir`` into
    ``sess`` 's graph, restore its variables, run its main op; return the ``MetaGraphDef``
    (its ``signature_def`` names the tensors to feed and fetch).

    Raises
    ------
    OSError
        ``export_dir`` holds no SavedModel.
    RuntimeError
        No meta graph has exactly ``tags``.
    """
    export_dir = os.fspath(export_dir)
    saved_model = saved_model_file.read(export_dir)
    wanted = {tags} if isinstance(tags, str) else set(tags)
    found = [m for m in saved_model.meta_graphs if set(m.meta_info_def.tags) == wanted]
    if not found:
        available = [list(m.meta_info_def.tags) for m in saved_model.meta_graphs]
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(sorted(wanted)).strip('[]')} could not be found in "
            f"SavedModel, with available tags '{available}'. To inspect available tag-sets in the "
            "SavedModel, please use the SavedModel CLI: `saved_model_cli`."
        )
    meta = found[0]
    with sess.graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        if saver is not None:
            saver.restore(sess, saved_model_file.variables_path(export_dir))
        main_op = _main_op(meta, sess.graph, import_scope)
        if main_op is not None:
            sess.run(main_op)
    return meta


def _main_op(meta, graph, import_scope):
    """The meta graph's own main op (not one another loaded model put in the graph)."""
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        names = meta.collection_def[key].node_list.value if key in meta.collection_def else []
        if names:
            return graph.get_operation_by_name(prepend_name_scope(names[0], import_scope))
    return None


def maybe_saved_model_directory(export_dir):
    """Whether ``export_dir`` holds a SavedModel (``saved_model.pb`` or ``.pbtxt``)."""
    return saved_model_file.exists(os.fspath(export_dir))
