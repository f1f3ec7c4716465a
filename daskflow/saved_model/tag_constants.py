"""``tf.saved_model.tag_constants``: the tags a meta graph of a SavedModel is found by."""

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
