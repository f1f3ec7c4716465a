"""How a cluster session's dashboard records reach the scheduler: today's path against Dask's
public event log, measured in the same run.

A session's records (one per finished step, batched every 0.2 s) go to the scheduler's
collector. Two ways are measured, each sending the same batches:

* **stream** (daskflow's path): the batch is one message on the client's batched stream to
  the scheduler, handled by the collector's stream handler
  (``dask_compat.send_to_scheduler`` / ``serve_stream``); nothing is awaited;
* **log_event** (Dask's public API): ``Client.log_event(topic, batch)``, received by the
  collector as a ``SchedulerPlugin.log_event`` hook. ``Client.log_event`` is a blocking call
  (a round trip to the scheduler), so it is made from a thread of its own, as the publisher
  would have to.

For each: the client's time per batch (what the sending thread spends), the time until the
scheduler has taken every batch, and what stays on the scheduler afterwards (the event log
keeps every event up to ``distributed.admin.low-level-log-length``).

Run: ``python benchmarks/dashboard_records.py [--batches 2000] [--records 50] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import SchedulerPlugin
from record import record  # noqa: F401  (notes the load average before measuring)

from daskflow.runtime import dask_compat

OP = "daskflow-bench-records"
TOPIC = "daskflow-bench-records"


class Counter(SchedulerPlugin):
    """Counts the batches the scheduler took, by either path."""

    name = "daskflow-bench-counter"

    def __init__(self):
        self.stream = self.events = 0

    def receive(self, records=(), **_):
        self.stream += 1

    def log_event(self, topic, msg):
        if topic == TOPIC:
            self.events += 1


def _install(dask_scheduler=None):
    counter = Counter()
    dask_scheduler.add_plugin(counter, name=Counter.name, idempotent=False)
    dask_compat.serve_stream(dask_scheduler, OP, counter.receive)


def _batch(n, first):
    return [{"kind": "step", "plan": 1, "n": first + i, "wall": 0.01, "time": 1.0e9 + i} for i in range(n)]


def _wait_for(scheduler, attr, count, timeout=120):
    plugin = scheduler.plugins[Counter.name]
    deadline = time.monotonic() + timeout
    while getattr(plugin, attr) < count and time.monotonic() < deadline:
        time.sleep(0.001)
    return getattr(plugin, attr)


def via_stream(client, scheduler, batches, records):
    base = scheduler.plugins[Counter.name].stream
    start = time.perf_counter()
    for b in range(batches):
        dask_compat.send_to_scheduler(client, {"op": OP, "records": _batch(records, b * records)})
    sent = time.perf_counter() - start
    _wait_for(scheduler, "stream", base + batches)
    return sent / batches, time.perf_counter() - start


def via_log_event(client, scheduler, batches, records):
    base = scheduler.plugins[Counter.name].events
    times = {}

    def send():
        start = time.perf_counter()
        for b in range(batches):
            client.log_event(TOPIC, _batch(records, b * records))
        times["sent"] = time.perf_counter() - start

    start = time.perf_counter()
    sender = threading.Thread(target=send)
    sender.start()
    sender.join()
    _wait_for(scheduler, "events", base + batches)
    return times["sent"] / batches, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2000)
    parser.add_argument("--records", type=int, default=50, help="step records per batch")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        scheduler = cluster.scheduler
        client.run_on_scheduler(_install)
        results = {"stream": [], "log_event": []}
        for _ in range(args.rounds):  # alternating, so load drifts fall on both alike
            results["stream"].append(via_stream(client, scheduler, args.batches, args.records))
            results["log_event"].append(via_log_event(client, scheduler, args.batches, args.records))
        kept = len(client.get_events(TOPIC))
    print(f"{args.batches} batches of {args.records} step records, {args.rounds} alternating rounds (median)")
    print(f"{'path':<10} {'client us/batch':>16} {'all taken (s)':>14}")
    medians = {}
    for path, runs in results.items():
        per_batch = statistics.median(r[0] for r in runs) * 1e6
        total = statistics.median(r[1] for r in runs)
        medians[path] = (per_batch, total)
        print(f"{path:<10} {per_batch:>16.1f} {total:>14.3f}")
    stream, event = medians["stream"], medians["log_event"]
    ratios = event[0] / stream[0], event[1] / stream[1]
    print(f"log_event / stream: client time per batch {ratios[0]:.1f}x, until taken {ratios[1]:.2f}x")
    print(f"events the scheduler keeps afterwards under the topic: {kept} (the stream path keeps none)")


if __name__ == "__main__":
    main()
