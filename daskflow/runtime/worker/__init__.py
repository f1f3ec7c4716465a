"""What runs inside a Dask worker: compiled programs, replicas' arrivals, buffers."""
