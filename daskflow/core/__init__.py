"""TF's ``tensorflow.core`` protos that programs import by module (``example_pb2``)."""
