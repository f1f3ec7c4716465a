"""The GraphDef version daskflow's graphs declare: TF1's ``tf.GRAPH_DEF_VERSION`` and kin.

A ``GraphDef`` says which version of TF's op schema its nodes follow
(``versions.producer``) and the oldest reader that may load it
(``versions.min_consumer``). daskflow names its ops and their attributes as
TensorFlow 2.21's op registry does (the TF whose ``compat.v1`` is daskflow's
oracle, and whose schemas daskflow's protos come from), so it declares that
release's GraphDef version.
"""

GRAPH_DEF_VERSION = 2474  # tf.GRAPH_DEF_VERSION of TensorFlow 2.21
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
