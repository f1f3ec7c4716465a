"""Running graphs: the Session, and the rooms it runs a graph with.

``plan/`` turns fetches and feeds into compiled partitions, once per
signature; ``cluster/`` is the client's side of a cluster session;
``worker/`` is what a Dask worker runs for a step; ``wire/`` moves values
between processes; ``dask_compat`` is the one door to Dask's internals.
"""
