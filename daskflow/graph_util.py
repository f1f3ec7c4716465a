"""``tf.graph_util``: GraphDef surgery (see :mod:`daskflow.framework.graph_util`). A name
daskflow lacks says so."""

from ._namespaces import module_getattr
from .framework.graph_util import convert_variables_to_constants, extract_sub_graph

__all__ = ["convert_variables_to_constants", "extract_sub_graph"]

__getattr__ = module_getattr("tf.graph_util")
