"""The client's side of a cluster session: lowering steps to Dask graphs, placement,
variables, recovery, the session's effects on the cluster."""
