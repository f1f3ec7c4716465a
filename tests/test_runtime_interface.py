"""One runtime interface: a Session is the same façade over an embedded or a cluster runtime.

Both runtimes answer :class:`daskflow.runtime.interface.Runtime`; ``Session``
holds one and never asks which; what it offers Saver and MonitoredSession
(checkpoints, a limit on steps per run) is public; ``placement()`` gives
:class:`Placement` records in every mode.
"""

import ast
import inspect
import re
import sys
from pathlib import Path

import dask
import numpy as np
import pytest

import daskflow as tf
from daskflow.runtime.cluster import scope
from daskflow.runtime.cluster.runtime import ClusterRuntime
from daskflow.runtime.embedded import EmbeddedRuntime
from daskflow.runtime.interface import Placement, Runtime
from tests.clusters import module_cluster

cluster = module_cluster(ps=1, workers=1, processes=False, dashboard_address=None)


def _protocol_members():
    return {name for name in vars(Runtime) if not name.startswith("_")} | set(Runtime.__annotations__)


@pytest.mark.parametrize("runtime", [EmbeddedRuntime, ClusterRuntime])
def test_each_runtime_has_every_method_of_the_protocol_taking_its_parameters(runtime):
    for name in sorted(_protocol_members()):
        has = hasattr(runtime, name) or name in _instance_attributes(runtime)
        assert has, f"{runtime.__name__} lacks {name}"
        wanted = getattr(Runtime, name, None)
        if not inspect.isfunction(wanted):
            continue
        ours = list(inspect.signature(getattr(runtime, name)).parameters)
        assert ours[: len(inspect.signature(wanted).parameters)] == list(inspect.signature(wanted).parameters)


def _instance_attributes(cls) -> set:
    """Names ``cls.__init__`` assigns on ``self``."""
    return set(re.findall(r"self\.(\w+)\s*(?::[^=\n]+)?=", inspect.getsource(cls.__init__)))


def test_the_session_has_no_branch_on_its_mode():
    source = inspect.getsource(sys.modules[tf.Session.__module__])
    assert not re.search(r"_cluster is (not )?None|isinstance\([^)]*Runtime\)", source)


def _graph():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.float32(2.0), name="w")
        with tf.device("/job:worker/task:0"):
            y = tf.multiply(x, w, name="y")
        z = tf.add(y, 1.0, name="z")
    return graph, x, w, y, z


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_placement_is_a_record_with_the_same_fields_in_every_mode(where, request):
    graph, x, w, y, z = _graph()
    target = request.getfixturevalue("cluster") if where == "cluster" else None
    with tf.Session(target, graph=graph) as sess:
        placed = sess.placement(z)
    assert all(type(p) is Placement for p in placed.values())
    assert placed["y"].device == "/job:worker/task:0" and placed["y"].reason == "its device scope"
    assert placed["w"].device == "/job:ps/task:0"
    assert placed["z"].reason == "no device asked"
    assert "x" not in placed  # planned as fed
    workers = {op: p.worker for op, p in placed.items()}
    if where == "embedded":  # every op runs in this process
        assert set(workers.values()) == {None}
    else:
        assert workers["y"] == "worker-0" and workers["w"] == "ps-0"


def test_checkpoints_go_through_the_sessions_public_methods(tmp_path):
    graph, x, w, y, z = _graph()
    with tf.Session(graph=graph) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match=r"uninitialized variables \['w'\]"):
            sess.write_checkpoint(["w"], lambda i, n: f"{tmp_path}/never-{i}-of-{n}")
        sess.run(w.initializer)
        records, shards = sess.write_checkpoint(["w"], lambda i, n: f"{tmp_path}/data-{i}-of-{n}")
        assert shards == 1 and set(records) == {"w"}
        sess.load_variable(w, np.float32(5.0))
        sess.read_checkpoint({"w": (f"{tmp_path}/data-0-of-1", records["w"], "")})
        assert sess.run(w) == 2.0


def test_load_variable_keeps_a_copy_of_the_callers_array():
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.zeros(3, np.float32), name="v")
    mine = np.array([1.0, 2.0, 3.0], np.float32)
    with tf.Session(graph=graph) as sess:
        assert sess.uninitialized_variables() == ["v"]
        sess.load_variable(v, mine)
        mine[:] = -1.0  # still the caller's to write
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 3.0])
        assert sess.uninitialized_variables() == []
        with pytest.raises(ValueError, match=r"shape \(2,\).*v"):
            sess.load_variable(v, np.zeros(2, np.float32))


def _counting_loop():
    """A training step over a dataset (what steps_per_run loops): adds each element to ``total``."""
    graph = tf.Graph()
    with graph.as_default():
        step = tf.train.get_or_create_global_step()
        total = tf.Variable(0.0, name="total")
        data = tf.data.Dataset.range(100).map(lambda i: tf.cast(i, tf.float32))
        item = tf.data.make_one_shot_iterator(data)
        with tf.control_dependencies([tf.assign_add(total, item.get_next())]):
            train = tf.assign_add(step, 1)
        init = tf.global_variables_initializer()
    return graph, init, train, step


def test_limit_steps_bounds_the_steps_of_a_run_within_its_block():
    graph, init, train, step = _counting_loop()
    with tf.Session(graph=graph, config=tf.ConfigProto(steps_per_run=4)) as sess:
        sess.run(init)
        sess.run(train)
        assert sess.run(step) == 4
        with sess.limit_steps(1):
            sess.run(train)
            assert sess.run(step) == 5
            with sess.limit_steps(None):  # no limit inside, the outer one again after
                sess.run(train)
            assert sess.run(step) == 9
            sess.run(train)
        assert sess.run(step) == 10
        sess.run(train)
        assert sess.run(step) == 14


def test_a_cluster_sessions_lower_reads_the_variables_values(cluster):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        w = tf.Variable([1.0, 2.0], name="w")
        with tf.device("/job:worker/task:0"):
            y = tf.reduce_sum(x * w)
    with tf.Session(cluster, graph=graph) as sess:
        sess.run(w.initializer)
        sess.load_variable(w, np.array([3.0, 5.0], np.float32))
        lowered = sess.lower(y, {x: [3.0, 4.0]})
    (result,) = dask.get(lowered, "worker-0-s0")  # in this process, the value gathered from ps
    assert result == 3.0 * 3.0 + 4.0 * 5.0


def test_an_embedded_session_has_no_variable_futures_and_no_step_metrics():
    graph, x, w, y, z = _graph()
    with tf.Session(graph=graph) as sess:
        with pytest.raises(ValueError, match="needs a cluster session"):
            sess.variable_futures()
        assert sess.step_metrics() == [] and sess.recoveries == [] and sess.num_replicas == 1
        assert sess.dashboard_link is None and not sess.shares_variables


def test_a_cost_placed_session_logs_each_ops_device_and_worker(cluster, capsys):
    # The log used to unpack (device, worker) pairs: cost placement's triples broke it.
    graph, x, w, y, z = _graph()
    config = tf.ConfigProto(placement="cost", log_device_placement=True)
    with tf.Session(cluster, graph=graph, config=config) as sess:
        sess.run(w.initializer)
        assert list(sess.run(z, {x: [1.0, 2.0]})) == [3.0, 5.0]
    assert "y: /job:worker/task:0 -> worker-0" in capsys.readouterr().out


def test_an_embedded_sessions_runtime_shows_its_variables_and_has_no_client():
    graph, x, w, y, z = _graph()
    with tf.Session(graph=graph) as sess:
        runtime = sess.runtime
        assert type(runtime) is EmbeddedRuntime and runtime.client is None
        assert dict(runtime.variables) == {}
        sess.run(w.initializer)
        assert list(runtime.variables) == ["w"] and runtime.variables["w"] == 2.0
        with pytest.raises(TypeError):  # a view: only steps and restores change the variables
            runtime.variables["w"] = np.float32(3.0)
        executable = sess.executable(z, {x: None})  # the values are not read
        assert sess.executable(z, {x: [1.0]}) is executable
        assert sess.executable(y, {x: None}) is not executable  # another signature
        sess.run(z, {x: [1.0]})
        assert executable in [planned for _, planned, _ in runtime.signatures.values()]  # the run's
        assert len(runtime.signatures) == 3  # the initializer's, z's, y's: the run planned nothing new


def test_a_cluster_sessions_runtime_tells_where_its_steps_run(cluster):
    from distributed import Client

    graph, x, w, y, z = _graph()
    names = {info["name"]: address for address, info in cluster.scheduler_info["workers"].items()}
    with tf.Session(cluster, graph=graph) as sess:
        runtime = sess.runtime
        assert type(runtime) is ClusterRuntime and isinstance(runtime.client, Client)
        assert runtime.client.scheduler.address == cluster.scheduler_address
        assert runtime.addresses() == runtime.workers_now() == names
        executable = sess.executable(z, {x: None})
        assert executable not in runtime.lowered  # planned; lowered by its first step
        sess.run(w.initializer)
        assert sess.run(z, {x: [1.0]}) == [3.0]
        lowered = runtime.lowered[executable]
        assert "worker-0" in lowered.worker_names  # y's device
        with pytest.raises(TypeError):  # a view: the session's plans are the runtime's to change
            runtime.lowered[executable] = lowered
        assert list(runtime.variables) == ["w"]
        prefix = scope.programs_prefix(runtime.token)
        installed = runtime.client.run_on_scheduler(
            lambda dask_scheduler: [n for n in dask_scheduler.worker_plugins if n.startswith(prefix)]
        )
        assert prefix + lowered.plan_id in installed  # the plan lowered is the one on the workers
    assert dict(runtime.lowered) == {}  # closing takes the plans off


# A test reaches a session's state through its public members (Session.runtime,
# Session.executable, the runtime's client, variables, lowered, addresses()...): one
# written against a private name breaks when the session's insides move, as 38 reaches
# into ``sess._cluster`` did when the runtime split from the session.
_SESSION_NAMES = {"sess", "session", "runtime"}


def _private_reaches(tree) -> list:
    """``owner._name`` where the owner is called ``sess``, ``session`` or ``runtime``
    (``self.sess``, ``sess.runtime`` too), and ``._cluster`` on anything."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        owner = node.value
        owner_name = getattr(owner, "id", None) or getattr(owner, "attr", None)
        if node.attr == "_cluster" or owner_name in _SESSION_NAMES:
            found.append((node.lineno, node.col_offset, ast.unparse(node)))
    return [f"{line}: {text}" for line, _, text in sorted(found)]


def test_the_check_for_private_reaches_finds_them():
    code = "sess._entry(y, {})\nself.sess._cache\na._cluster.token\nsess.runtime._plans\nruntime._lower(e)\n"
    code += "sess.runtime.lowered\nmodule._missing_tasks\nsess.__class__\n"
    assert [line.split(": ")[1] for line in _private_reaches(ast.parse(code))] == [
        "sess._entry",
        "self.sess._cache",
        "a._cluster",
        "sess.runtime._plans",
        "runtime._lower",
    ]


def test_no_test_or_benchmark_reaches_into_a_sessions_private_state():
    root = Path(__file__).resolve().parent.parent  # the benchmarks broke too when _cluster went
    reaches = {
        str(path.relative_to(root)): found
        for folder in ("tests", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if (found := _private_reaches(ast.parse(path.read_text(), str(path))))
    }
    assert reaches == {}
