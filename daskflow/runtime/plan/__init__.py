"""Planning a run, before anything runs: prune, partition, replicate, fold, compile."""
