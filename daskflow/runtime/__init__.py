"""Running graphs: planning (prune, order, partition), compiling partitions to
straight-line callables, lowering to Dask graphs, and the Session."""
