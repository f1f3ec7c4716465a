"""A replica reading a dataset block held by another worker (``runtime/worker/sources.py``).

Dask's ``get_data`` has a handshake: the holder sends the data, then waits for the
reader's "OK" before it counts the transfer as done. A reader that never answers
leaves the holder's transfer open (``transfer_outgoing_count`` stays up, which
throttles its later transfers) and its comm waiting.
"""

import time

import numpy as np
from distributed import Client, LocalCluster

from daskflow.runtime.worker import sources


def _outgoing(client, address):
    return client.run(lambda dask_worker: dask_worker.transfer_outgoing_count, workers=[address])[address]


def test_a_block_read_from_another_worker_ends_the_holders_transfer():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        reader, holder = sorted(client.scheduler_info()["workers"])
        block = np.arange(12.0).reshape(3, 4)
        [future] = client.scatter([block], workers=[holder])

        async def read(dask_worker):
            return await sources._fetch(dask_worker, future.key, [holder])

        np.testing.assert_array_equal(client.run(read, workers=[reader])[reader], block)
        deadline = time.monotonic() + 10
        while _outgoing(client, holder) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _outgoing(client, holder) == 0, "the holder still waits for the reader's OK"


def test_a_block_moved_since_the_plan_is_found_where_the_scheduler_says():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        reader, holder = sorted(client.scheduler_info()["workers"])
        block = np.ones(5)
        [future] = client.scatter([block], workers=[holder])

        async def read(dask_worker):  # the plan's holder list names no worker that has it
            return await sources._fetch(dask_worker, future.key, [])

        np.testing.assert_array_equal(client.run(read, workers=[reader])[reader], block)
