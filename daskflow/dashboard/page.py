"""The ``/daskflow`` Bokeh page: the collector's data, drawn again each second.

One session at a time (a menu lists every session the collector keeps; the
newest open one is shown first): its scalar summaries against the global
step, steps per second, each partition instance's task time in recent steps
(stacked; a task's time includes its wait for inputs) under the client's
wall time per step, the same steps' time by phase (submission and
scheduling, waiting for inputs, computing, updating variables, sending
results), the bytes each worker sent each other per step, replicas
used and gradients dropped, the staleness of asynchronous updates, and the
plan's placement as a graph and as tables.
"""

from __future__ import annotations

import collections
import math

from bokeh.layouts import column, row
from bokeh.models import (
    ColumnDataSource,
    DataTable,
    Div,
    FixedTicker,
    NumeralTickFormatter,
    Select,
    TableColumn,
)
from bokeh.palettes import Category10_10, Category20_20
from bokeh.plotting import figure

from ..runtime import dask_compat
from .collector import RATE_WINDOW, collector_of

RECENT = 100  # steps in the bar charts
REDRAW_MS = 1000


def daskflow_doc(scheduler, extra, doc):
    """Fill a new ``/daskflow`` document (Dask's dashboard calls it per visit)."""
    page = Page(collector_of(scheduler))
    template, theme = dask_compat.dashboard_look()
    doc.title = "Dask: daskflow"
    doc.template = template
    doc.template_variables.update(extra)
    doc.theme = theme
    doc.add_root(page.root)
    page.update()
    doc.add_periodic_callback(page.update, REDRAW_MS)


def _figure(title, y_label, x_label="step", **kw):
    fig = figure(
        title=title, height=260, sizing_mode="stretch_width", tools="pan,wheel_zoom,box_zoom,reset", **kw
    )
    fig.xaxis.axis_label, fig.yaxis.axis_label = x_label, y_label
    return fig


def _palette(n):
    return (Category10_10 if n <= 10 else Category20_20 * (1 + n // 20))[:n]


PHASES = (
    "submission and scheduling",
    "waiting for inputs",
    "computing",
    "updating variables",
    "sending results",
)


class _Stacked:
    """Stacked bars per step whose series (partition instances, worker pairs) may change."""

    def __init__(self, title, y_label, line=None, y_format=None, ordered=False):
        self.title, self.y_label, self.line, self.y_format = title, y_label, line, y_format
        self.ordered = ordered  # stack the series in the order given, not by name
        self.keys = None
        self.source = ColumnDataSource({"step": []})
        self.box = column(_figure(title, y_label), sizing_mode="stretch_width")

    def update(self, steps, series: dict, line=None):
        keys = list(series) if self.ordered else sorted(series)
        data = {"step": steps, **{f"s{i}": series[k] for i, k in enumerate(keys)}}
        if self.line:
            data["line"] = line
        if keys != self.keys:  # new series: a new figure (a stack's layers are fixed when drawn)
            self.keys = keys
            self.source = ColumnDataSource(data)
            self.box.children = [self._draw(keys)]
        else:
            self.source.data = data

    def _draw(self, keys):
        fig = _figure(self.title, self.y_label)
        if keys:
            names = [f"s{i}" for i in range(len(keys))]
            fig.vbar_stack(
                names, x="step", width=0.8, source=self.source, color=_palette(len(keys)), legend_label=keys
            )
        if self.line:
            fig.line("step", "line", source=self.source, color="black", legend_label=self.line)
        if self.y_format:
            fig.yaxis.formatter = NumeralTickFormatter(format=self.y_format)
        if fig.legend:
            fig.legend.location, fig.legend.label_text_font_size = "top_left", "8pt"
        return fig


class Page:
    """The figures of one ``/daskflow`` document and how each redraw fills them."""

    def __init__(self, collector):
        self.collector = collector
        self.status = Div(text="No daskflow session yet.")
        self.select = Select(title="Session", options=[], value="")
        self.scalars = _figure("Scalar summaries", "value", x_label="global step")
        self.scalar_sources: dict = {}
        self.rate_source = ColumnDataSource({"step": [], "rate": []}, name="steps-per-second")
        self.rate = _figure("Steps per second", "steps/s")
        self.rate.line("step", "rate", source=self.rate_source)
        self.breakdown = _Stacked("Task time per partition instance (ms)", "ms", line="client wall time")
        self.phases = _Stacked(
            "Step time by phase, summed over the step's partition instances (ms)",
            "ms",
            line="client wall time",
            ordered=True,
        )
        self.bytes = _Stacked("Bytes sent between workers per step", "bytes", y_format="0.0 b")
        self.replica_source = ColumnDataSource({"step": [], "used": [], "dropped": []}, name="replicas")
        self.replicas = _figure("Replicas used / gradients dropped", "replicas")
        self.replicas.line("step", "used", source=self.replica_source, legend_label="used")
        self.replicas.vbar(
            "step", top="dropped", width=0.8, source=self.replica_source, color="red", legend_label="dropped"
        )
        self.staleness_source = ColumnDataSource({"staleness": [], "count": []}, name="staleness")
        self.staleness = _figure(
            "Staleness of applied updates (recent steps)", "updates", x_label="staleness"
        )
        self.staleness.vbar("staleness", top="count", width=0.8, source=self.staleness_source)
        self.nodes = ColumnDataSource({"x": [], "y": [], "name": []}, name="placement-nodes")
        self.edges = ColumnDataSource({"x0": [], "y0": [], "x1": [], "y1": []}, name="placement-edges")
        self.graph = _figure("Placement: partition instances by stage and worker", "worker", x_label="stage")
        self.graph.segment("x0", "y0", "x1", "y1", source=self.edges, color="gray", alpha=0.6)
        self.graph.scatter("x", "y", source=self.nodes, size=12)
        self.graph.text("x", "y", text="name", source=self.nodes, text_font_size="8pt", x_offset=8)
        self.graph.x_range.range_padding = 0.3  # room for the last stage's names, drawn to the right
        self.instances = ColumnDataSource({k: [] for k in ("name", "worker", "device", "stage", "ops")})
        self.groups = ColumnDataSource({k: [] for k in ("device", "worker", "count", "ops")})
        self.shown_plan = None
        self.root = column(
            row(self.select, self.status, sizing_mode="stretch_width"),
            self.scalars,
            row(self.rate, self.replicas, self.staleness, sizing_mode="stretch_width"),
            self.breakdown.box,
            self.phases.box,
            self.bytes.box,
            row(self.graph, _table(self.instances, 400), sizing_mode="stretch_width"),
            _table(self.groups, 250),
            sizing_mode="stretch_width",
        )

    # -- each second -----------------------------------------------------------------------------
    def update(self):
        if self.collector is None:
            self.status.text = "The scheduler has no daskflow collector."
            return
        self.collector.poll()  # what only the workers know, for the next redraw
        record = self._chosen()
        if record is None:
            return
        view = record.summary(last=RECENT)
        self._status(view)
        self._scalars(view["scalars"])
        self._rates(record.steps)
        steps = view["steps"]
        x = [s["step"] for s in steps]
        self._breakdown(x, steps)
        self._phases(x, steps)
        self._bytes(x, steps)
        self._replicas(x, steps)
        self._placement(view["placement"])

    def _chosen(self):
        sessions = self.collector.sessions
        if not sessions:
            return None
        newest = next((k for k in reversed(sessions) if sessions[k].open), next(reversed(sessions)))
        self.select.options = [(k, f"{k} ({'open' if s.open else 'closed'})") for k, s in sessions.items()]
        if self.select.value not in sessions:
            self.select.value = newest
        return sessions[self.select.value]

    def _status(self, view):
        steps = view["steps"]
        rate = view["steps_per_second"]
        parts = [
            f"<b>session {view['session']}</b> ({'open' if view['open'] else 'closed'})",
            f"{steps[-1]['step'] + 1 if steps else 0} steps",
            f"{rate:.1f} steps/s" if rate else "",
            f"last step {1000 * steps[-1]['wall_time']:.1f} ms" if steps else "",
        ]
        self.status.text = " &middot; ".join(p for p in parts if p)

    def _scalars(self, scalars):
        colors = _palette(max(len(scalars), 1))
        for i, (tag, points) in enumerate(sorted(scalars.items())):
            source = self.scalar_sources.get(tag)
            if source is None:
                source = self.scalar_sources[tag] = ColumnDataSource(
                    {"step": [], "value": []}, name=f"scalar:{tag}"
                )
                self.scalars.line(
                    "step", "value", source=source, legend_label=tag, color=colors[i % len(colors)]
                )
            if len(source.data["step"]) != len(points) or (
                points and source.data["value"][-1:] != [points[-1][1]]
            ):
                source.data = {"step": [p[0] for p in points], "value": [p[1] for p in points]}

    def _rates(self, steps):
        steps = list(steps)
        x, rate = [], []
        for i in range(RATE_WINDOW - 1, len(steps)):
            span = steps[i]["time"] - steps[i - RATE_WINDOW + 1]["time"]
            if span > 0:
                x.append(steps[i]["step"])
                rate.append((RATE_WINDOW - 1) / span)
        self.rate_source.data = {"step": x, "rate": rate}

    def _breakdown(self, x, steps):
        names = sorted({f"{i} @ {t['worker']}" for s in steps for i, t in s["tasks"].items()})
        series = {name: [0.0] * len(steps) for name in names}
        for j, s in enumerate(steps):
            for i, t in s["tasks"].items():
                series[f"{i} @ {t['worker']}"][j] = 1000 * t["duration"]
        self.breakdown.update(x, series, line=[1000 * s["wall_time"] for s in steps])

    def _phases(self, x, steps):
        """Each step's submission and scheduling (until its first task started), then what its
        tasks did, as their workers measured it."""
        series = {name: [0.0] * len(steps) for name in PHASES}
        for j, s in enumerate(steps):
            series["submission and scheduling"][j] = 1000 * (s["submission"] or 0.0)
            for p in s["phases"].values():
                series["waiting for inputs"][j] += 1000 * p["waiting"]
                series["updating variables" if p["updates"] else "computing"][j] += 1000 * p["computing"]
                series["sending results"][j] += 1000 * p["sending"]
        self.phases.update(x, series, line=[1000 * s["wall_time"] for s in steps])

    def _bytes(self, x, steps):
        """One series per (sender, receiver) pair, as the workers counted them; a gap where
        they have not been asked yet (every counted step has its tasks' phases)."""
        empty = [0 if s["phases"] else math.nan for s in steps]
        series: dict = {}
        for j, s in enumerate(steps):
            for a, b, n in s["bytes_by_pair"]:
                series.setdefault(f"{a} → {b}", list(empty))[j] = n
        self.bytes.update(x, series)

    def _replicas(self, x, steps):
        # Replicas are counted by the workers, asked at most once a second: a step not yet
        # counted (or not replicated) is a gap in both series, not a zero.
        known = [s["replicas_used"] is not None for s in steps]
        self.replica_source.data = {
            "step": x,
            "used": [s["replicas_used"] if k else math.nan for s, k in zip(steps, known)],
            "dropped": [s["gradients_dropped"] if k else math.nan for s, k in zip(steps, known)],
        }
        counts = collections.Counter(v for s in steps for v in s["staleness"])
        values = sorted(counts)
        self.staleness_source.data = {"staleness": values, "count": [counts[v] for v in values]}

    def _placement(self, placement):
        if not placement or placement["plan"] == self.shown_plan:
            return
        self.shown_plan = placement["plan"]
        instances = placement["instances"]
        workers = sorted({i["worker"] for i in instances})
        y = {w: k for k, w in enumerate(workers)}
        seen: collections.Counter = collections.Counter()
        at = {}
        for i in instances:
            spot = (i["stage"], i["worker"])
            at[i["name"]] = (i["stage"], y[i["worker"]] + 0.15 * seen[spot])  # two devices of one worker
            seen[spot] += 1
        self.nodes.data = {
            "x": [at[i["name"]][0] for i in instances],
            "y": [at[i["name"]][1] for i in instances],
            "name": [i["name"] for i in instances],
        }
        edges = [(at[a], at[b]) for a, b in placement["edges"] if a in at and b in at]
        self.edges.data = {
            "x0": [a[0] for a, _ in edges],
            "y0": [a[1] for a, _ in edges],
            "x1": [b[0] for _, b in edges],
            "y1": [b[1] for _, b in edges],
        }
        self.graph.yaxis.ticker = FixedTicker(ticks=list(range(len(workers))))
        self.graph.yaxis.major_label_overrides = {k: w for w, k in y.items()}
        self.instances.data = {
            k: [i[k] for i in instances] for k in ("name", "worker", "device", "stage", "ops")
        }
        groups = placement["groups"]
        self.groups.data = {
            "device": [g["device"] or "(default)" for g in groups],
            "worker": [g["worker"] for g in groups],
            "count": [g["count"] for g in groups],
            "ops": [", ".join(g["ops"]) + (" ..." if g["count"] > len(g["ops"]) else "") for g in groups],
        }


def _table(source, height):
    columns = [TableColumn(field=k, title=k) for k in source.data]
    return DataTable(
        source=source, columns=columns, height=height, sizing_mode="stretch_width", index_position=None
    )
