"""TF1's ``tensorflow.examples.tutorials.mnist``: the MNIST reader tutorials import."""

from . import input_data

__all__ = ["input_data"]
