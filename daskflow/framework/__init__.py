"""The graph layer: tensors, operations, scopes, shapes and devices. Imports no dask."""
