"""File formats TF1 reads and writes (TF1's ``tensorflow/python/lib/io``)."""
