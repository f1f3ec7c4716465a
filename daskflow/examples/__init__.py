"""TF1's ``tensorflow.examples`` paths that tutorials import (``tutorials.mnist.input_data``)."""
