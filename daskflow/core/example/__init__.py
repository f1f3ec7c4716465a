"""``tensorflow.core.example``: the ``Example`` and ``SequenceExample`` protos."""
