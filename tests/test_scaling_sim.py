"""benchmarks/sim_device.py, the simulated accelerator scaling_sim.py runs its replicas on."""

import importlib
import time
from pathlib import Path

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.kernels import devices

BENCHMARKS = str(Path(__file__).parent.parent / "benchmarks")


@pytest.fixture(scope="module")
def scaling_sim():
    """benchmarks/scaling_sim.py, imported with its folder on the path for this module only
    (as a benchmark script finds its neighbours: record, data_parallel, sim_device)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(BENCHMARKS)
        yield importlib.import_module("scaling_sim")


@pytest.fixture
def simulated(scaling_sim):
    sim_device = scaling_sim.sim_device
    previous = sim_device.RATE, sim_device.EXAMPLES_PER_ROW
    yield sim_device
    sim_device.configure(*previous)


def test_a_product_sleeps_its_flops_over_the_rate_and_returns_zeros(simulated):
    simulated.configure(rate=1e9, examples_per_row=2)
    a = simulated.asarray(np.ones((4, 300), np.float32))
    b = simulated.asarray(np.ones((300, 500), np.float32))
    before, start = simulated.asleep[0], time.perf_counter()
    c = a @ b
    waited = time.perf_counter() - start
    expected = 2 * 4 * 300 * 500 * 2 / 1e9  # FLOPs of 4x300 @ 300x500, two examples a row
    assert simulated.asleep[0] - before == pytest.approx(expected)
    assert waited >= expected
    assert type(c) is simulated.SimArray and c.shape == (4, 500) and c.dtype == np.float32
    assert not c.any()


def test_batched_products_broadcast_and_count_every_batch(simulated):
    simulated.configure(rate=1e12)
    before = simulated.asleep[0]
    c = simulated.matmul(np.ones((3, 1, 4, 5)), np.ones((2, 5, 6)))
    assert c.shape == (3, 2, 4, 6)
    assert simulated.asleep[0] - before == pytest.approx(2 * 4 * 5 * 6 * 6 / 1e12)
    with pytest.raises(ValueError, match="inner dimensions"):
        simulated.matmul(np.ones((2, 3)), np.ones((4, 5)))


def test_a_replica_on_a_gpu_worker_computes_its_products_on_the_simulated_device(simulated, scaling_sim):
    """scaling_sim's program on a one-GPU-worker cluster: every product of the replica's step
    (forward, and the gradients of the weights and of the hidden layers' inputs) is charged."""
    steps, rows_as = 2, 3
    with tf.local_cluster(ps=1, workers=0, gpu_workers=1, processes=False, dashboard_page=False) as cluster:
        with Client(cluster, set_as_default=False) as client:
            client.register_plugin(scaling_sim.SimulatedAccelerator(1e15, rows_as))
            graph, init, train = scaling_sim.build(1, 1, sync=True)
            with tf.Session(cluster, graph=graph) as sess:
                sess.run(init)
                before = simulated.asleep[0]
                for _ in range(steps):
                    sess.run(train)
                charged = simulated.asleep[0] - before
            client.unregister_worker_plugin(scaling_sim.SimulatedAccelerator.name)
    assert devices.current_gpu_module() is None  # the plugin's teardown put it back
    rows = scaling_sim.ROWS
    forward = 2 * rows * (784 * 2048 + 2048 * 2048 + 2048 * 10)
    weights = forward  # dW of each layer: the same FLOPs as its forward product
    inputs = 2 * rows * (2048 * 2048 + 2048 * 10)  # dx of the two upper layers (not of the data)
    assert charged == pytest.approx(steps * rows_as * (forward + weights + inputs) / 1e15)


@pytest.fixture(scope="module")
def bench():
    """benchmarks/link_model.py and sim_ranks.py, imported with their folder on the path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(BENCHMARKS)
        yield importlib.import_module("link_model"), importlib.import_module("sim_ranks")


def test_the_link_model_counts_each_direction_of_a_full_duplex_link(bench):
    link_model, _ = bench
    model = 4 * (784 * 2048 + 2048 + 2048 * 2048 + 2048 + 2048 * 10 + 10)  # the MLP's float32 parameters
    rate = 10e9 / 8
    # a ps takes N gradients in and sends N models out, each way at once; a ring rank 2 (N - 1) / N
    assert link_model.link_seconds("ps", 8, 10.0) == pytest.approx(8 * model / rate)
    assert link_model.link_seconds("ps", 8, 10.0, shards=4) == pytest.approx(2 * model / rate)
    assert link_model.link_seconds("allreduce", 8, 10.0) == pytest.approx(1.75 * model / rate)
    compute, rows = link_model.link_model(10.0, 7680, 3.0, workers=(8,))
    time, efficiency = rows[0][1]["all-reduce"]
    assert efficiency == pytest.approx(compute / (compute + 1.75 * model / rate))
    overlapped, _ = rows[0][1]["all-reduce, buckets overlapped"]
    assert 0 <= overlapped < time  # the buckets started during the backward pass hide part of the ring


@pytest.mark.process
def test_two_simulated_ranks_each_send_one_model_per_step(bench):
    """scaling_sim's all-reduce mode: two ranks under the launcher; in a ring of two each rank
    sends 2 (N - 1) / N = one model's bytes per step."""
    link_model, sim_ranks = bench
    step, sent, cpu = sim_ranks.measure(2, False, 2, 1e15, 1, 4)
    assert sent == link_model.parameter_bytes()
    assert step > 0 and 0 < cpu <= 1
