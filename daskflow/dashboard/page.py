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

The per-step charts draw a step once its workers' detail is in (each redraw
waits briefly for their answer: :meth:`.Collector.answered`), so they end at
the same step and no step is drawn half. Legends sit beside the plots, never
on the data; a panel that does not apply to the session says why.
"""

from __future__ import annotations

import collections
import html

from bokeh.layouts import column, row
from bokeh.models import (
    BasicTicker,
    ColumnDataSource,
    Div,
    FixedTicker,
    Legend,
    NumeralTickFormatter,
    Range1d,
    Select,
)
from bokeh.palettes import Category10_10, Category20_20
from bokeh.plotting import figure

from ..runtime import dask_compat
from .collector import RATE_WINDOW, collector_of

RECENT = 100  # steps in the bar charts
REDRAW_MS = 1000
ANSWER_WAIT_SECS = 0.5  # how long a redraw waits for the workers' detail of the newest steps
HEIGHT = 260  # each plot's, in pixels
LEGEND_ROWS = 10  # a legend's rows beside a plot; more items make more columns
OPS_SHOWN = 40  # op names listed per (device, worker) group; the count is always exact
NOT_DATA_PARALLEL = "Not data-parallel: one replica per partition"
# Quantities counted in whole numbers: their axes have no tick between two of them.
WHOLE = ("step", "global step", "stage", "staleness", "replicas", "updates")


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
    doc.add_periodic_callback(page.refresh, REDRAW_MS)


def _figure(title, y_label, x_label="step", **kw):
    fig = figure(
        title=title, height=HEIGHT, sizing_mode="stretch_width", tools="pan,wheel_zoom,box_zoom,reset", **kw
    )
    fig.xaxis.axis_label, fig.yaxis.axis_label = x_label, y_label
    for axis, name in ((fig.xaxis, x_label), (fig.yaxis, y_label)):
        if name in WHOLE:
            axis.ticker = BasicTicker(min_interval=1, num_minor_ticks=0)
    return fig


def _legend(fig):
    """A legend beside ``fig``'s plot (right), which the glyphs drawn with ``legend_label`` join."""
    legend = Legend(
        location="top_left",
        label_text_font_size="8pt",
        glyph_height=12,
        glyph_width=12,
        label_height=12,
        spacing=2,
        padding=4,
        margin=4,
        border_line_alpha=0,
    )
    fig.add_layout(legend, "right")
    return legend


def _fit(legend):
    """Lay ``legend``'s items out in columns of at most ``LEGEND_ROWS``: it stays the plot's height."""
    legend.nrows = max(1, min(len(legend.items), LEGEND_ROWS))


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

    def __init__(self, name, title, y_label, line=None, y_format=None, ordered=False):
        self.title, self.y_label, self.line, self.y_format = title, y_label, line, y_format
        self.ordered = ordered  # stack the series in the order given, not by name
        self.keys = None
        self.source = ColumnDataSource({"step": []})
        self.name = name
        self.box = column(_figure(title, y_label, name=name), sizing_mode="stretch_width")

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
        fig = _figure(self.title, self.y_label, name=self.name)
        legend = _legend(fig)
        if keys:
            names = [f"s{i}" for i in range(len(keys))]
            fig.vbar_stack(
                names, x="step", width=0.8, source=self.source, color=_palette(len(keys)), legend_label=keys
            )
        if self.line:
            fig.line("step", "line", source=self.source, color="black", legend_label=self.line)
        if self.y_format:
            fig.yaxis.formatter = NumeralTickFormatter(format=self.y_format)
        _fit(legend)
        return fig


class _Panel:
    """A figure that may not apply to a session: then a note in its place says why."""

    def __init__(self, fig, name):
        self.fig = fig
        self.note = Div(
            name=f"{name}-note",
            visible=False,
            height=HEIGHT,
            sizing_mode="stretch_width",
            styles={"padding": "0 10px", "color": "#555"},
        )
        self.box = column(fig, self.note, sizing_mode="stretch_width")

    def why_not(self, reason):
        """Show the figure (``reason`` None), or its title and ``reason`` instead."""
        if reason is None:
            self.fig.visible, self.note.visible = True, False
            return
        text = f"<b>{html.escape(self.fig.title.text)}</b><p>{html.escape(reason)}.</p>"
        if self.note.text != text:
            self.note.text = text
        self.fig.visible, self.note.visible = False, True


class Page:
    """The figures of one ``/daskflow`` document and how each redraw fills them."""

    def __init__(self, collector):
        self.collector = collector
        self.status = Div(text="No daskflow session yet.", name="status")
        self.select = Select(title="Session", options=[], value="")
        self._followed = ""  # the session the page chose itself; another value is the user's choice
        self.scalars = _figure("Scalar summaries", "value", x_label="global step", name="scalars")
        self.scalar_legend = _legend(self.scalars)
        self.scalar_sources: dict = {}
        self.rate_source = ColumnDataSource({"step": [], "rate": []}, name="steps-per-second")
        self.rate = _figure("Steps per second", "steps/s", name="rate")
        self.rate.line("step", "rate", source=self.rate_source)
        self.breakdown = _Stacked(
            "task-time", "Task time per partition instance (ms)", "ms", line="client wall time"
        )
        self.phases = _Stacked(
            "phases",
            "Step time by phase, summed over the step's partition instances (ms)",
            "ms",
            line="client wall time",
            ordered=True,
        )
        self.bytes = _Stacked("bytes", "Bytes sent between workers per step", "bytes", y_format="0.0 b")
        self.replica_source = ColumnDataSource({"step": [], "used": [], "dropped": []}, name="replicas")
        replicas = _figure("Replicas used / gradients dropped", "replicas", name="replicas")
        _legend(replicas)
        replicas.line("step", "used", source=self.replica_source, legend_label="used")
        replicas.vbar(
            "step", top="dropped", width=0.8, source=self.replica_source, color="red", legend_label="dropped"
        )
        self.replicas = _Panel(replicas, "replicas")
        self.staleness_source = ColumnDataSource({"staleness": [], "count": []}, name="staleness")
        staleness = _figure(
            "Staleness of applied updates (recent steps)", "updates", x_label="staleness", name="staleness"
        )
        staleness.vbar("staleness", top="count", width=0.8, source=self.staleness_source)
        self.staleness = _Panel(staleness, "staleness")
        self.nodes = ColumnDataSource(
            {"x": [], "y": [], "name": [], "align": [], "offset": []}, name="placement-nodes"
        )
        self.edges = ColumnDataSource({"x0": [], "y0": [], "x1": [], "y1": []}, name="placement-edges")
        self.graph = _figure(
            "Placement: partition instances by stage and worker", "worker", x_label="stage", name="placement"
        )
        self.graph.x_range, self.graph.y_range = Range1d(-0.5, 0.5), Range1d(-0.5, 0.5)
        self.graph.xaxis.ticker = FixedTicker(ticks=[0], minor_ticks=[])
        self.graph.segment("x0", "y0", "x1", "y1", source=self.edges, color="gray", alpha=0.6)
        self.graph.scatter("x", "y", source=self.nodes, size=12)
        # Each name beside its node, inward: right of it, or left of it on the last stage.
        self.graph.text(
            "x",
            "y",
            text="name",
            source=self.nodes,
            text_font_size="8pt",
            text_align="align",
            text_baseline="middle",
            x_offset="offset",
        )
        self.instances = Div(name="instances", sizing_mode="stretch_width")
        self.groups = Div(name="devices", sizing_mode="stretch_width")
        self.shown_plan = None
        self.root = column(
            row(self.select, self.status, sizing_mode="stretch_width"),
            self.scalars,
            row(self.rate, self.replicas.box, self.staleness.box, sizing_mode="stretch_width"),
            self.breakdown.box,
            self.phases.box,
            self.bytes.box,
            row(self.graph, self.instances, sizing_mode="stretch_width"),
            self.groups,
            sizing_mode="stretch_width",
        )

    # -- each second -----------------------------------------------------------------------------
    async def refresh(self):
        """Each second: the workers' detail of the newest steps (waited for briefly), then a redraw."""
        if self.collector is not None:
            await self.collector.answered(ANSWER_WAIT_SECS)
        self.update()

    def update(self):
        if self.collector is None:
            self.status.text = "The scheduler has no daskflow collector."
            return
        record = self._chosen()
        if record is None:
            return
        view = record.summary(last=RECENT, detailed=True)  # the steps whose detail is in
        self._status(view, record.steps)
        self._scalars(view["scalars"])
        self._rates(record.steps)
        steps = view["steps"]
        x = [s["step"] for s in steps]
        self._breakdown(x, steps)
        self._phases(x, steps)
        self._bytes(x, steps)
        self._replicas(x, steps, view["placement"])
        self._placement(view["placement"])

    def _chosen(self):
        """The session the menu names: the newest open one, until the user picks another.

        A page opened before a session's first record arrives would otherwise stay on the
        session it showed first, though that one has closed and a newer one trains.
        """
        sessions = self.collector.sessions
        if not sessions:
            return None
        newest = next((k for k in reversed(sessions) if sessions[k].open), next(reversed(sessions)))
        self.select.options = [(k, f"{k} ({'open' if s.open else 'closed'})") for k, s in sessions.items()]
        if self.select.value not in sessions or self.select.value == self._followed:
            self.select.value = self._followed = newest
        return sessions[self.select.value]

    def _status(self, view, steps):
        """The session's newest step (all steps, not only those whose detail is in)."""
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
                _fit(self.scalar_legend)
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
        """One series per (sender, receiver) pair, as the workers counted them."""
        series: dict = {}
        for j, s in enumerate(steps):
            for a, b, n in s["bytes_by_pair"]:
                series.setdefault(f"{a} → {b}", [0] * len(steps))[j] = n
        self.bytes.update(x, series)

    def _replicas(self, x, steps, placement):
        reason = _not_data_parallel(placement)
        self.replicas.why_not(reason)
        self.replica_source.data = {
            "step": x,
            "used": [s["replicas_used"] or 0 for s in steps],
            "dropped": [s["gradients_dropped"] for s in steps],
        }
        counts = collections.Counter(v for s in steps for v in s["staleness"])
        values = sorted(counts)
        if reason is None and steps and not values:
            reason = "No asynchronous updates in these steps: every replica's update is applied in step"
        self.staleness.why_not(reason)
        self.staleness_source.data = {"staleness": values, "count": [counts[v] for v in values]}

    def _placement(self, placement):
        if not placement or placement["plan"] == self.shown_plan:
            return
        self.shown_plan = placement["plan"]
        instances = placement["instances"]
        workers = sorted({i["worker"] for i in instances})
        stages = max((i["stage"] for i in instances), default=0) + 1
        at = _spots(instances, {w: k for k, w in enumerate(workers)})
        last = stages - 1 if stages > 1 else None  # names go left of the last stage's nodes
        self.nodes.data = {
            "x": [at[i["name"]][0] for i in instances],
            "y": [at[i["name"]][1] for i in instances],
            "name": [i["name"] for i in instances],
            "align": ["right" if i["stage"] == last else "left" for i in instances],
            "offset": [-9 if i["stage"] == last else 9 for i in instances],
        }
        edges = [(at[a], at[b]) for a, b in placement["edges"] if a in at and b in at]
        self.edges.data = {
            "x0": [a[0] for a, _ in edges],
            "y0": [a[1] for a, _ in edges],
            "x1": [b[0] for _, b in edges],
            "y1": [b[1] for _, b in edges],
        }
        self.graph.x_range.update(start=-0.5, end=stages - 0.5)
        self.graph.y_range.update(start=-0.5, end=len(workers) - 0.5)
        self.graph.height = max(HEIGHT, 90 + 30 * len(workers))  # room for each worker's names
        self.graph.xaxis.ticker = FixedTicker(ticks=list(range(stages)), minor_ticks=[])
        self.graph.yaxis.ticker = FixedTicker(ticks=list(range(len(workers))), minor_ticks=[])
        self.graph.yaxis.major_label_overrides = dict(enumerate(workers))
        self.instances.text = _table(
            ("partition instance", "worker", "device", "stage", "ops"),
            [(i["name"], i["worker"], i["device"] or "(default)", i["stage"], i["ops"]) for i in instances],
        )
        groups = placement["groups"]
        self.groups.text = _table(
            ("device", "worker", "ops", "op names"),
            [(g["device"] or "(default)", g["worker"], g["count"], _op_names(g)) for g in groups],
        )


def _not_data_parallel(placement):
    """Why the replicas and staleness panels do not apply to ``placement`` (None: they do)."""
    if not placement:
        return "No plan placed yet"
    per_partition = collections.Counter(i.get("partition", i["name"]) for i in placement["instances"])
    return None if any(n > 1 for n in per_partition.values()) else NOT_DATA_PARALLEL


def _spots(instances, y):
    """Instance name -> (stage, y): instances sharing a (stage, worker) spread within its band."""
    shared = collections.Counter((i["stage"], i["worker"]) for i in instances)
    seen: collections.Counter = collections.Counter()
    at = {}
    for i in instances:
        spot = (i["stage"], i["worker"])
        n = shared[spot]
        at[i["name"]] = (i["stage"], y[i["worker"]] + (seen[spot] - (n - 1) / 2) * min(0.3, 0.8 / n))
        seen[spot] += 1
    return at


def _op_names(group):
    names = group["ops"][:OPS_SHOWN]
    more = group["count"] - len(names)
    return ", ".join(names) + (f" … and {more} more" if more > 0 else "")


TABLE_STYLE = "border-collapse: collapse; width: 100%; font-size: 12px"
CELL_STYLE = "text-align: left; padding: 3px 8px; border-bottom: 1px solid #e5e5e5; vertical-align: top"
# Short columns keep their words on one line; the last (names, lists) wraps, anywhere if it must.
WRAP = ("white-space: nowrap", "overflow-wrap: anywhere")


def _table(header, rows):
    """An HTML table, as tall as its rows and as wide as its box: the last column wraps, so
    no cell is cut off."""

    def cells(tag, values):
        last = len(values) - 1
        return "".join(
            f'<{tag} style="{CELL_STYLE}; {WRAP[k == last]}">{html.escape(str(v))}</{tag}>'
            for k, v in enumerate(values)
        )

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f'<table style="{TABLE_STYLE}"><tr>{cells("th", header)}</tr>{body}</table>'
