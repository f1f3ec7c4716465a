"""TF's ``feature.proto``: ``Feature`` (a list of bytes, floats or int64s), ``Features``,
``FeatureList``, ``FeatureLists`` (see :mod:`daskflow.core.example.example_pb2`)."""

from .example_pb2 import BytesList, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List

__all__ = ["BytesList", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List"]
