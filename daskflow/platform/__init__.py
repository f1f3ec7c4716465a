"""TF1's script frame: ``tf.app``, ``tf.flags``, ``tf.logging`` and ``tf.gfile``.

A TF1 training script starts with ``tf.app.flags.DEFINE_...`` lines, logs
with ``tf.logging.info``, reads and writes files through ``tf.gfile`` and
ends with ``tf.app.run()``. These modules give it the same names:

- :mod:`daskflow.platform.app` -- ``run(main=None, argv=None)`` and ``flags``;
- :mod:`daskflow.platform.flags` -- absl's flags with TF1's conveniences;
- :mod:`daskflow.platform.tf_logging` -- ``tf.logging`` over the standard
  :mod:`logging` module (logger ``"daskflow"``);
- :mod:`daskflow.platform.gfile` -- ``tf.gfile`` over fsspec, so ``memory://``
  and ``s3://`` paths work like local ones.

None of them imports dask.
"""
