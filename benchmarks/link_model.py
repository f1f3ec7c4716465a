"""The link model: what a data-parallel step's transfers cost on real links, 2 to 64 workers.

``scaling_sim.py``'s workload (its MLP, ``--batch`` examples per replica on a
simulated ``--tflops`` device) on machines with a ``--nic-gbps`` full-duplex
link each. Per step, a ps shard receives every worker's gradients and sends
every worker the new variables: ``N M / k`` bytes each way (k shards); in a
ring all-reduce every worker sends and receives ``2 (N - 1) / N M``. The
busiest link's time is its larger direction's bytes over the rate.
Efficiency: compute / (compute + that time), transfers not overlapped with
compute (both modes' plain form), and for all-reduce with
``hvd.DistributedOptimizer``'s buckets, each started as soon as the backward
pass has made it: only the ring's time left after the backward pass counts.
"""

from __future__ import annotations

from data_parallel import SHAPES

WORKERS = (2, 4, 8, 16, 32, 64)


def parameter_bytes():
    return 4 * sum(a * b + b for a, b in zip(SHAPES, SHAPES[1:]))


def device_seconds(batch, rate):
    """A replica's simulated compute per step: its products' FLOPs (forward, and the weights'
    gradients; the input's gradient is not computed) over the device rate."""
    forward = sum(2 * a * b for a, b in zip(SHAPES, SHAPES[1:]))
    backward = forward + sum(2 * a * b for a, b in zip(SHAPES[1:], SHAPES[2:]))  # dW every layer, dx above
    return batch * (forward + backward) / rate


def link_seconds(mode, n, nic_gbps, shards=1):
    """The busiest link's seconds per step: ``mode`` "ps" (``shards`` shards) or "allreduce"."""
    model, rate = parameter_bytes(), nic_gbps * 1e9 / 8
    one_way = n * model / shards if mode == "ps" else 2 * (n - 1) / n * model
    return one_way / rate


def link_model(nic_gbps, batch, tflops, workers=WORKERS, shards=(1, 4)):
    """(compute seconds, rows): per N, each mode's link seconds per step and efficiency."""
    compute, rate = device_seconds(batch, tflops * 1e12), nic_gbps * 1e9 / 8
    rows = []
    for n in workers:
        links = {f"ps ({k} shard{'s' if k > 1 else ''})": link_seconds("ps", n, nic_gbps, k) for k in shards}
        links["all-reduce"] = link_seconds("allreduce", n, nic_gbps)
        links["all-reduce, buckets overlapped"] = exposed_ring(n, rate, batch, tflops * 1e12)
        rows.append((n, {mode: (t, compute / (compute + t)) for mode, t in links.items()}))
    return compute, rows


def exposed_ring(n, rate, batch, device_rate):
    """Seconds of ring all-reduce left after the backward pass ends, with hvd's buckets
    (``BUCKET_BYTES``, the last layers' first) each starting once the backward pass has made it
    and the ring free: the MLP's layers' products timed at the device rate, last layer first."""
    from daskflow.horovod.optimizer import BUCKET_BYTES

    layers = list(zip(SHAPES, SHAPES[1:]))
    clock = batch * sum(2 * a * b for a, b in layers) / device_rate  # the forward pass
    ready, filled = [], 0
    for k in reversed(range(len(layers))):
        a, b = layers[k]
        clock += batch * 2 * a * b / device_rate  # the weights' gradient
        filled += 4 * (a * b + b)
        if filled >= BUCKET_BYTES or k == 0:
            ready.append((clock, filled))
            filled = 0
        if k > 0:
            clock += batch * 2 * a * b / device_rate  # the gradient on to the layer below
    ring_free = 0.0
    for at, size in ready:
        ring_free = max(ring_free, at) + 2 * (n - 1) / n * size / rate
    return max(0.0, ring_free - clock)


def table(nic_gbps, batch, tflops):
    """(title, rows as lists of strings, compute seconds) of the model, for printing and RESULTS.md."""
    compute, rows = link_model(nic_gbps, batch, tflops)
    modes = list(rows[0][1])
    out = [["workers", *[f"{m}: link, efficiency" for m in modes]]]
    for n, links in rows:
        out.append([str(n), *[f"{t * 1e3:.0f} ms, {e:.0%}" for t, e in (links[m] for m in modes)]])
    title = f"Link model: {compute * 1e3:.0f} ms of compute per step, {nic_gbps:g} Gb/s full-duplex links"
    return title, out, compute
