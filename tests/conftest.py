"""Suite-wide settings and the fixtures test modules share.

Each test gets a fresh default graph where its module asks for one
(``fresh_graph``, dropped after the test). What a test opens (sessions, clients,
clusters) it closes: nothing a module made stays alive after it, so no later
module's garbage collections walk it.

The suite runs on two pytest-xdist processes (``pyproject.toml``'s ``addopts``).
Every module that starts Dask clusters, processes or a browser is in one group,
run by one process a test at a time, so no two clusters compete for the cores or
for ports and the timing checks of recovery and stragglers hold; each other
module is a group of its own (its module-scoped fixtures run once) and runs on
the other process meanwhile, niced, so the clusters' processes get the cores first.
The modules that run whole programs in runner processes (the public programs, the
corpus, the notebooks, live TensorFlow), and the cluster modules that check no timings and
take no fixed ports, are groups of their own too, so the cluster group is not the suite's
whole length.
"""

import functools
import os
import pathlib
import re
import sys
import uuid

import pytest

import daskflow as tf

# What a module does to start clusters, processes or a browser.
STARTS_PROCESSES = re.compile(
    r"local_cluster|module_cluster|LocalCluster|cli_cluster|subprocess|Popen|chromium|Client\(|multiprocessing"
)


# What a module does to run whole programs in runner processes (each runner niced with it).
RUNS_PROGRAMS = re.compile(r"survey_daskflow|conformance import|nbclient|tf_oracle import")


# What a module does that another cluster beside it could upset: time its steps, wait out
# timeouts, bind a fixed port.
TIMED = re.compile(
    r"monotonic\(\)|perf_counter\(\)|time\.time\(\)|wall_time|straggl|timeout|seconds|poll_for|settled\("
    r"|8786|8787"
)


# A module whose clusters check no timings and take no fixed port, though its words say so,
# says why on a line of its own; it runs beside the clusters (niced), a group of its own.
BESIDE_THE_CLUSTERS = re.compile(r"^# beside the clusters: \S", re.M)


@functools.cache
def _group(path: str) -> str:
    source = pathlib.Path(path).read_text()
    timed = TIMED.search(source) and not BESIDE_THE_CLUSTERS.search(source)
    if STARTS_PROCESSES.search(source) and timed and not RUNS_PROGRAMS.search(source):
        return "clusters"
    return pathlib.Path(path).stem


def _start_order(items) -> dict:
    """Each group's place in the queue pytest-xdist hands out (``--no-loadscope-reorder``).

    The cluster group first: it is the suite's longest and cannot be split, so it starts at
    once on one process; the other process meanwhile takes the rest, one group at a time,
    and the first to be free takes the next. Among the rest, the groups that run whole
    programs come first, then those that start processes, the groups of small tests last:
    the two processes run out of work at about the same time.
    """
    counts, paths = {}, {}
    for item in items:
        group = _group(str(item.path))
        counts[group] = counts.get(group, 0) + 1
        paths.setdefault(group, item.path)

    def rank(group):
        if group == "clusters":
            return (0, 0, group)
        source = pathlib.Path(paths[group]).read_text()
        kind = 1 if RUNS_PROGRAMS.search(source) else 2 if STARTS_PROCESSES.search(source) else 3
        return (kind, -counts[group], group)

    return {group: rank(group) for group in counts}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(str(item.path))))
    order = _start_order(items)
    items.sort(key=lambda item: order[_group(str(item.path))])  # stable: file order within a group


@pytest.fixture(autouse=True, scope="module")
def _clusters_go_first(request):
    """While a module of the other groups runs beside the clusters, its process is niced:
    the cores go to the clusters' processes first, whose tests check timings."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or _group(str(request.path)) == "clusters":
        yield
        return
    before = os.getpriority(os.PRIO_PROCESS, 0)
    os.setpriority(os.PRIO_PROCESS, 0, max(before, 10))
    yield
    try:
        os.setpriority(os.PRIO_PROCESS, 0, before)
    except PermissionError:  # only a privileged process may lower its niceness again
        pass


@pytest.fixture(autouse=True, scope="module")
def _closed_dask_servers_forgotten():
    """After each module, Dask's process-wide caches let go of the servers its clusters closed.

    ``distributed.core._expects_comm`` (a ``functools.cache`` of every comm handler a server
    called, as bound methods) and the dashboard's memoized ``template_variables(scheduler)``
    keep each Scheduler and Worker that ever ran in this process alive, with all it held
    (tasks, plans, worker state): a suite's worth of them slowed every full garbage
    collection 2-4x by its end. Both are pure caches: dropping their entries costs a
    recomputation at most.
    """
    yield
    core = sys.modules.get("distributed.core")  # not imported: nothing cached (nor imported here)
    if core is not None:
        core._expects_comm.cache_clear()
    dashboard = sys.modules.get("distributed.dashboard.scheduler")
    if dashboard is None:
        return
    # toolz.memoize keeps its dict in the wrapper's closure (no attribute names it).
    template_variables = dashboard.template_variables
    cache = template_variables.__closure__[template_variables.__code__.co_freevars.index("cache")]
    for scheduler in [s for s in cache.cell_contents if s.status.name == "closed"]:
        del cache.cell_contents[scheduler]


@pytest.fixture
def fresh_graph():
    """A new, empty default graph for the test (also the default graph of the threads it
    starts), dropped after it: no names taken, no ops left by earlier tests."""
    tf.reset_default_graph()
    yield tf.get_default_graph()
    tf.reset_default_graph()


class FakeClock:
    """A monotonic clock that moves only when told (:meth:`advance`)."""

    def __init__(self, start=1000.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def mailbox_clock(monkeypatch):
    """The clock the workers' mailboxes read (:mod:`daskflow.runtime.wire.mailbox`), faked:
    a value's age is what the test advances it by, not what the machine's load makes it."""
    from daskflow.runtime.wire import mailbox

    clock = FakeClock()
    monkeypatch.setattr(mailbox, "monotonic", clock)
    return clock


@pytest.fixture(params=["local", "memory"])
def root(request, tmp_path):
    """A folder for the test's files: on the local disk, then in fsspec's memory file system
    (removed after the test, as ``tmp_path`` is in time)."""
    if request.param == "local":
        yield str(tmp_path)
        return
    from daskflow.platform import gfile

    url = f"memory://test-{uuid.uuid4().hex}"
    gfile.MakeDirs(url)
    yield url
    if gfile.Exists(url):
        gfile.DeleteRecursively(url)
