"""Cost-based placement (``ConfigProto(placement="cost")``), TF1's whitepaper §3.2.1 in small.

The whole graph is placed once (per graph version), as TF1's placer did, so
every plan of a session agrees on where each op and variable goes. A greedy
simulation walks the graph's ops in creation order (a topological order) as
one step: each op no device scope placed goes to the device where it would
*finish* first — the device's next free moment or its inputs' arrival there,
whichever is later, plus the op's compute time (within a hop's latency of
the earliest, where most of its input bytes are). An input made on another
device arrives after a link's latency plus its bytes over the link's speed.
Explicit devices are kept. A variable no scope placed stays where its value
already lives, else goes with its heaviest reader (the most compute time);
ops colocated with it (``tf.colocate_with``: its initializer, its updates) go
where it goes. Constants, feeds and what is computed from them alone exist
everywhere before the step.

Before any step, costs are estimates from static shapes (an unknown
dimension counts as the latest fed batch's rows, :data:`DEFAULT_ROWS` before
any): a matrix product or convolution is its floating-point operations over
the rate :func:`measured_rates` found on this machine (one thread); any other
op moves its inputs' and outputs' bytes at the measured memory speed, and a
hop between workers costs :data:`LINK_LATENCY` plus its bytes at
:data:`LINK_BYTES_PER_S`. Then the session profiles: a plan's 2nd, 20th,
200th... run is traced, each op timed on its worker and each hop between
two partitions timed from the producer's end to the consumer's start with
the bytes it carried (:mod:`.measured_costs`). Measured times replace the estimates (at the batch they
were measured with), and the graph is placed again when the new placement's
simulated step is at least :data:`REPLACE_GAIN` shorter than the current
one's under the same measurements. Each placed op keeps why it went where it
did.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from ...framework.graph import Graph, Operation, Tensor

DEFAULT_ROWS = 64  # an unknown dimension's size until a run feeds a batch
OP_OVERHEAD = 5e-6  # seconds a kernel call costs besides its arithmetic (a Python call, a dispatch)
# A hop between two workers' partitions, measured on the development machine (2 shared
# cores): 0.3-0.6 ms from one partition's send to the other's receipt, loopback speed.
LINK_LATENCY = 0.5e-3
LINK_BYTES_PER_S = 1.0e9
# A new placement must promise a step this much shorter than the current one, simulated with
# the same measurements: a smaller gain is within their noise, and new plans cost a replanning.
REPLACE_GAIN = 0.1


@dataclass(frozen=True)
class Rates:
    """What one worker does per second: floating-point operations in a matrix product, and
    bytes an elementwise op reads and writes; and the link between two workers."""

    flops: float
    memory: float
    link_latency: float = LINK_LATENCY
    link_bytes_per_s: float = LINK_BYTES_PER_S


@functools.lru_cache(maxsize=1)
def measured_rates() -> Rates:
    """This machine's rates, measured once per process (a few tens of milliseconds)."""
    from threadpoolctl import threadpool_limits

    a = np.ones((256, 256), np.float32)
    x = np.ones(1 << 20, np.float32)
    with threadpool_limits(1):  # as a worker computes: one thread (dask worker --nthreads 1)
        flops = 2 * 256**3 / _best_time(lambda: a @ a)
    return Rates(flops=flops, memory=3 * x.nbytes / _best_time(lambda: x + x))


def _best_time(fn: Callable[[], object], repeats: int = 5) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return max(best, 1e-9)


class CostPlacer:
    """Places the ops no device scope placed on ``devices`` (device strings), for a batch of
    ``batch`` rows where a dimension is unknown; ``homes``: variable name -> the device
    holding its value now."""

    def __init__(
        self,
        devices: Iterable[str],
        rates: Rates | None = None,
        batch: int = 1,
        homes: dict[str, str] | None = None,
    ) -> None:
        self.devices = list(devices)
        self.rates = rates or measured_rates()
        self.batch = max(1, int(batch))
        self.homes = homes or {}
        self._placed: tuple[tuple, dict[Operation, str], dict[Operation, str]] | None = None
        # ((graph, its versions, batch), {op: device}, {op: why})
        self.measured: dict = {}  # op -> (seconds it took on its worker, its shapes then)
        self._left: set = set()  # placements measurements moved away from

    def observe(
        self, seconds: dict, link: tuple[float | None, float | None] | None = None, batch: int | None = None
    ) -> bool:
        """Take measured op times (``{op: seconds}``, measured at ``batch`` rows where an
        unknown dimension is, which becomes the batch) and link rates (``(latency, bytes
        per second)`` from :func:`link_rates`, either None where not measured); True when
        the graph was placed anew (the plans made from the old placement are stale)."""
        self.batch = max(1, int(batch or self.batch))
        self.measured.update({op: (t, self._shapes(op)) for op, t in seconds.items()})
        latency, speed = link or (None, None)
        self.rates = dataclasses.replace(
            self.rates,
            link_latency=self.rates.link_latency if latency is None else max(latency, 1e-6),
            link_bytes_per_s=speed or self.rates.link_bytes_per_s,
        )
        if self._placed is None:
            return False
        graph, placed = self._placed[0][0], self._placed[1]
        ops = graph.get_operations()
        current, fresh = _Simulation(self, ops, keep=placed), _Simulation(self, ops)
        key = (graph, graph.version, graph._mutations, self.batch)
        moved = _ops_placement(fresh.placed) != _ops_placement(current.placed)
        if not moved:  # the same places, chosen again (ops added since: placed now)
            self._placed = (key, fresh.placed, fresh.reasons)
            return False
        back = any(all(fresh.placed.get(op) == device for op, device in left) for left in self._left)
        if back or fresh.makespan > current.makespan * (1 - REPLACE_GAIN):
            self._placed = (key, current.placed, current.reasons)  # kept: too little to gain
            return False
        self._left.add(_ops_placement(current.placed))  # never back: noise must not flip-flop
        self._placed = (key, fresh.placed, fresh.reasons)
        return True

    def __call__(
        self, order: list[Operation], device_of: dict[Operation, str]
    ) -> tuple[dict[Operation, str], dict[Operation, str]]:
        """Fill in ``device_of`` (a plan's op -> device) for its ops with none, from the whole
        graph's placement; returns ``(devices of the variables, {op: why})`` for the plan."""
        placed, reasons = self.graph_placement(order[0].graph) if order else ({}, {})
        variables: dict[Operation, str] = {}
        why: dict[Operation, str] = {}
        for op in order:
            device = placed.get(op)
            if device is None or op.device:
                continue
            if op.primitive.is_variable:
                variables[op] = device
            else:
                device_of[op] = device
            why[op] = reasons[op]
        return variables, why

    def graph_placement(self, graph: Graph) -> tuple[dict[Operation, str], dict[Operation, str]]:
        """``({op: device}, {op: why})`` for every op of ``graph`` no scope placed; made again
        when the graph or the batch changes (variables then stay where their values live)."""
        key = (graph, graph.version, graph._mutations, self.batch)
        if self._placed is None or self._placed[0] != key:
            sim = _Simulation(self, graph.get_operations())
            self._placed = (key, sim.placed, sim.reasons)
        return self._placed[1:]

    def heavy(self, ops: Iterable[Operation], inputs_of: Callable[[Operation], Iterable[Tensor]]) -> bool:
        """Whether ``ops`` take longer than a hop between workers: worth a task of their own."""
        total = sum(self.compute_time(op, list(inputs_of(op))) for op in ops)
        return total > self.rates.link_latency

    # -- costs ----------------------------------------------------------------------------
    def compute_time(self, op: Operation, inputs: Sequence[Tensor]) -> float:
        """Seconds ``op`` takes on one worker: as measured with the shapes it has at this
        batch, else estimated from its tensors' static shapes."""
        seconds = self.measured_time(op)
        if seconds is not None:
            return seconds
        flops = self._flops(op, inputs)
        if flops is not None:
            return OP_OVERHEAD + flops / self.rates.flops
        moved = sum(self.nbytes(t) for t in inputs) + sum(self.nbytes(t) for t in op.outputs)
        return OP_OVERHEAD + moved / self.rates.memory

    def _flops(self, op: Operation, inputs: Sequence[Tensor]) -> int | None:
        """A matrix product's or convolution's floating-point operations, else None."""
        kind = op.type
        if kind == "MatMul" and len(inputs) == 2:
            a = self._dims(inputs[0])
            return 2 * self._size(op.outputs[0]) * (a[-1] if a else 1)
        if kind not in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter") or len(inputs) < 2:
            return None
        # All three multiply the output gradient's (or output's) values by a window of
        # kh * kw * in_channels filter values.
        out = op.outputs[0] if kind == "Conv2D" else inputs[2]
        kernel = self._dims(op.outputs[0] if kind == "Conv2DBackpropFilter" else inputs[1])
        window = int(np.prod(kernel[:3])) if len(kernel) == 4 else 1
        return 2 * self._size(out) * window

    def transfer_time(self, t: Tensor) -> float:
        return self.rates.link_latency + self.nbytes(t) / self.rates.link_bytes_per_s

    def nbytes(self, t: Tensor) -> int:
        try:
            itemsize = np.dtype(t.dtype.as_numpy_dtype).itemsize
        except (TypeError, AttributeError):  # strings, resources: a pointer's worth
            itemsize = 8
        return self._size(t) * itemsize

    def measured_time(self, op: Operation) -> float | None:
        """Seconds ``op`` took when measured with the shapes it has at this batch, or None."""
        seconds, shapes = self.measured.get(op, (None, None))
        return seconds if seconds is not None and shapes == self._shapes(op) else None

    def _shapes(self, op: Operation) -> tuple:
        """``op``'s inputs' and outputs' shapes at this batch: a measurement's validity."""
        return tuple(tuple(self._dims(t)) for t in (*op.inputs, *op.outputs))

    def _dims(self, t: Tensor) -> list[int]:
        dims = t._dims
        return [] if dims is None else [self.batch if d is None else d for d in dims]

    def _size(self, t: Tensor) -> int:
        return int(np.prod(self._dims(t), dtype=np.int64)) if t._dims else 1


class _Simulation:
    """The greedy earliest-finish pass over a graph's ops (see the module's docstring)."""

    def __init__(
        self, placer: CostPlacer, ops: list[Operation], keep: dict[Operation, str] | None = None
    ) -> None:
        self.placer = placer
        self.keep = keep or {}  # op -> device: a placement to simulate rather than choose
        self.free = dict.fromkeys(placer.devices, 0.0)  # device -> when it is next idle
        self.ready: dict = {}  # tensor -> (device, seconds into the step it exists)
        self.known: set = set()  # tensors that exist everywhere before the step (fed, constant)
        self.constant: set = set()  # constants and what is made from them alone
        self.placed: dict = {}  # op -> device
        self.reasons: dict = {}
        self.cost: dict = {}  # op -> its estimated compute time
        follows = _followers(ops)
        for op in ops:
            if op not in follows:
                self._simulate(op)
        self.makespan = max(self.free.values(), default=0.0)  # when the simulated step ends
        self._place_variables([op for op in ops if op.primitive.is_variable], ops)
        for op in reversed(ops):  # a follower's leader comes after it, or is a variable
            if op in follows and not op.device:
                leader = follows[op]
                self.placed[op] = self.placed.get(leader) or leader.device or placer.devices[0]
                self.reasons[op] = f"with {leader.name}"

    def _simulate(self, op: Operation) -> None:
        prim, root = op.primitive, op.colocation
        if prim.is_variable:
            return
        inputs = list(op.inputs)
        if prim.is_placeholder:  # fed: there before the step, where it is read
            self.known.update(op.outputs)
            return
        if not prim.stateful and all(t in self.constant for t in inputs):  # folded at plan time
            self.constant.update(op.outputs)
            self.known.update(op.outputs)
            return
        fixed = op.device or root.device or self.placed.get(root, "")
        self.cost[op] = cost = self.placer.compute_time(op, inputs)
        candidates = [fixed] if fixed else self.placer.devices
        finishes = {d: self._start(d, inputs) + cost for d in candidates}
        device = fixed or self.keep.get(op) or self._choose(finishes, inputs)
        if not op.device:
            self.placed[op] = device
            self.reasons[op] = self._why(
                root, fixed, finishes, self.placer.measured_time(op), op in self.keep
            )
        self.free[device] = finishes[device]
        for t in op.outputs:
            self.ready[t] = (device, finishes[device])

    def _choose(self, finishes: dict[str, float], inputs: Iterable[Tensor]) -> str:
        """The earliest finish; within a hop's latency of it, where most input bytes are (then
        the first device): a gain smaller than a hop is within the estimates' error."""
        best = min(finishes.values())
        close = [d for d, t in finishes.items() if t <= best + self.placer.rates.link_latency]
        held = dict.fromkeys(close, 0)
        for t in inputs:
            where = self.ready.get(t)
            if where is not None and where[0] in held:
                held[where[0]] += self.placer.nbytes(t)
        return max(close, key=lambda d: held[d])  # the first listed wins a tie

    def _start(self, device: str, inputs: Iterable[Tensor]) -> float:
        start = self.free.setdefault(device, 0.0)
        for t in inputs:
            var = t.op
            if var.primitive.is_variable:  # its value comes from where it lives, if known yet
                home = var.device or self.placer.homes.get(var.name)
                start = max(start, self.placer.transfer_time(t) if home and home != device else 0.0)
                continue
            where = self.ready.get(t)
            if where is None or t in self.known:
                continue  # there before the step
            made_on, at = where
            start = max(start, at if made_on == device else at + self.placer.transfer_time(t))
        return start

    def _place_variables(self, variables: Iterable[Operation], ops: Iterable[Operation]) -> None:
        """Each variable no scope placed: where its value lives, else with its heaviest reader."""
        readers: dict = {}
        for op in ops:
            for t in op.inputs if op in self.cost else ():
                if t.op.primitive.is_variable:
                    readers.setdefault(t.op, []).append(op)
        for var in variables:
            if var.device:
                continue
            home = self.placer.homes.get(var.name)
            if home:
                self.placed[var], self.reasons[var] = home, "cost: where its value lives"
                continue
            heaviest = max(readers.get(var, ()), key=lambda op: self.cost.get(op, 0.0), default=None)
            if heaviest is None:
                self.placed[var], self.reasons[var] = self.placer.devices[0], "cost: no reader placed"
            else:
                self.placed[var] = self.placed.get(heaviest) or heaviest.device
                self.reasons[var] = f"cost: with its heaviest reader, {heaviest.name}"

    @staticmethod
    def _why(
        root: Operation, fixed: bool, finishes: dict[str, float], measured: float | None, kept: bool
    ) -> str:
        if fixed:
            return f"colocated with {root.name}"
        ms = ", ".join(f"{d} {t * 1e3:.3f} ms" for d, t in finishes.items())
        if measured is None:
            return f"cost: earliest estimated finish ({ms})"
        if kept:
            gain = f"moving ops gained less than {REPLACE_GAIN:.0%}"
            return f"cost: kept where it was ({gain}), measured at {measured * 1e3:.3f} ms ({ms})"
        return f"cost: earliest finish, measured at {measured * 1e3:.3f} ms ({ms})"


def _followers(ops: list[Operation]) -> dict[Operation, Operation]:
    """Ops placed with another instead of by the simulation, and whom they follow: those
    colocated with a variable no scope placed (its initializer's assign, its updates), and
    ops whose every reader follows (the initializer's random values)."""
    follows = {
        op: op.colocation
        for op in ops
        if op.colocation is not op and op.colocation.primitive.is_variable and not op.colocation.device
    }
    readers: dict = {}
    for op in ops:
        for t in op.inputs:
            readers.setdefault(t.op, []).append(op)
    for op in reversed(ops):
        mine = readers.get(op)
        if op not in follows and not op.primitive.is_variable and mine and all(r in follows for r in mine):
            follows[op] = mine[0]
    return follows


def _ops_placement(placed: dict[Operation, str]) -> frozenset[tuple[Operation, str]]:
    """The devices of ``placed``'s ops (variables stay where their values live)."""
    return frozenset((op, device) for op, device in placed.items() if not op.primitive.is_variable)
