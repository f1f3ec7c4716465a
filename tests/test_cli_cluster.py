"""Integration: the same programs on a cluster started with `dask scheduler` / `dask worker`."""

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from tests.cli_cluster import cli_cluster
from tests.models import assert_same_training
from tests.test_cluster import _in_graph_replicated, _model_parallel
from tests.test_data_parallel import contract_program


@pytest.fixture(scope="module")
def cli():
    with cli_cluster(["ps-0", "worker-0", "worker-1", "worker-2"]) as (address, _):
        yield address


pytestmark = [pytest.mark.usefixtures("fresh_graph"), pytest.mark.process]


def test_in_graph_replication_on_a_cli_cluster(cli):
    assert_same_training(*_in_graph_replicated(8, cli), *_in_graph_replicated(8, None))


def test_model_parallel_on_a_cli_cluster_keeps_variables_on_the_ps(cli):
    losses, final, who, placement = _model_parallel(6, cli)
    ref_losses, _, _, _ = _model_parallel(6, None)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    with Client(cli, set_as_default=False) as client:
        names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
        spec = tf.train.ClusterSpec.from_client(client)
    assert {names[h] for holders in who.values() for h in holders} == {"ps-0"}
    assert spec.as_dict() == {"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]}


def test_the_data_parallel_contract_program_on_a_cli_cluster(cli):
    accuracy, metrics = contract_program(cli, sync=True)
    assert accuracy >= 0.95
    assert {m["replicas_used"] for m in metrics if m["replicas_used"]} == {2}
