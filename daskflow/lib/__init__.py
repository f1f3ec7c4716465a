"""Library code below the API (TF1's ``tensorflow/python/lib``): file formats."""
