"""TF1's ``tensorflow.python.client``: :mod:`.timeline` (and the ``RunMetadata`` protos it reads)."""
