"""daskflow's page in Dask's dashboard, served by the scheduler at ``/daskflow``.

For every daskflow session on the cluster, updated each second: the scalar
summaries the program writes (``FileWriter.add_summary``) against the
global step; steps per second and each partition's task time for recent
steps; bytes each worker sent other workers per step (daskflow's own
transfers, which Dask's Bandwidth panel does not see); replicas used,
gradients dropped and staleness; and where the plan placed each op. The
same data, as JSON, is at ``/daskflow/data.json``.

``tf.local_cluster`` installs it. For a scheduler of your own::

    dask scheduler --preload daskflow.dashboard

Sessions send what the page shows on their client's stream to the scheduler,
which a step's graph already travels on; no step waits for it
(:mod:`.publish`, :mod:`.collector`).
"""

from __future__ import annotations

from ..runtime import dask_compat
from .collector import LIMIT, Collector, collector_of, data_handler

ROUTE = "/daskflow"
DATA_ROUTE = r"/daskflow/data\.json"
TITLE = "Daskflow"


def dask_setup(scheduler):
    """Install the collector and the page on ``scheduler`` (``--preload daskflow.dashboard``)."""
    install(scheduler)


def install(scheduler, limit=None):
    """Install the collector, the data endpoint and the page on ``scheduler`` (once).

    Parameters
    ----------
    scheduler : distributed.Scheduler
        Call on its event loop (a preload's ``dask_setup`` is).
    limit : int, optional
        Steps kept per session (``collector.LIMIT``, 2,000, by default).

    Returns
    -------
    Collector
        The scheduler's collector (the one installed before, if any).
    """
    found = collector_of(scheduler)
    if found is not None:
        return found
    collector = Collector(limit or LIMIT)
    collector.install(scheduler)
    dask_compat.add_http_route(scheduler, DATA_ROUTE, data_handler(), {"collector": collector})
    try:
        from .page import daskflow_doc  # local import: bokeh is optional
    except ImportError:  # no bokeh: the data endpoint still answers
        return collector
    dask_compat.add_dashboard_page(scheduler, ROUTE, daskflow_doc, TITLE)
    return collector
