"""``tf.train.Server``'s scheduler serves its dashboard on a free port, not Dask's 8787.

Servers side by side on one machine (tests, a user's jobs, any other Dask) must not
fight over Dask's default dashboard port; ``daskflow.server-dashboard-address`` picks
one when a user wants it. Everything listens on 127.0.0.1 only.
"""

import urllib.request
import warnings

import dask
import pytest

import daskflow as tf
from daskflow.runtime.dask_compat import open_port

DASK_DEFAULT_PORT = 8787


def _answer(link):
    """The body of the dashboard's ``/health`` page at ``link``'s host and port."""
    base = link.removesuffix("/status")
    with urllib.request.urlopen(f"{base}/health", timeout=10) as response:
        return response.read().decode()


def _port(link):
    return int(link.removesuffix("/status").rsplit(":", 1)[1])


@pytest.fixture
def servers():
    started = []
    yield started
    for server in started:
        server.stop()


def test_two_local_servers_each_serve_a_dashboard_of_their_own(servers):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        servers.append(tf.train.Server.create_local_server())
        servers.append(tf.train.Server.create_local_server())
    links = [server.dashboard_link for server in servers]
    assert all(link.startswith("http://127.0.0.1:") and link.endswith("/status") for link in links), links
    ports = [_port(link) for link in links]
    assert ports[0] != ports[1] and DASK_DEFAULT_PORT not in ports, ports
    # Dask warns when a dashboard's port is taken and it moves to another: none did.
    assert not [str(w.message) for w in caught if "already in use" in str(w.message)]
    assert [_answer(link) for link in links] == ["ok", "ok"]


def test_the_config_key_names_the_port(servers):
    port = open_port("127.0.0.1")
    with dask.config.set({"daskflow.server-dashboard-address": f":{port}"}):
        servers.append(tf.train.Server.create_local_server())
    assert servers[0].dashboard_link == f"http://127.0.0.1:{port}/status"
    assert _answer(servers[0].dashboard_link) == "ok"


def test_every_task_knows_the_schedulers_dashboard_and_a_stopped_one_none(servers):
    ps, worker = open_port("127.0.0.1"), open_port("127.0.0.1")
    spec = tf.train.ClusterSpec({"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{worker}"]})
    servers.append(tf.train.Server(spec, job_name="ps", task_index=0))  # starts the scheduler
    servers.append(tf.train.Server(spec, job_name="worker", task_index=0))
    assert servers[1].dashboard_link == servers[0].dashboard_link
    assert _answer(servers[1].dashboard_link) == "ok"
    unstarted = tf.train.Server(spec, job_name="worker", task_index=0, start=False)
    assert unstarted.dashboard_link is None
    servers[1].stop()
    assert servers[1].dashboard_link is None
