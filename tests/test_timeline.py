"""Tracing a step: ``RunOptions(trace_level=FULL_TRACE)`` fills ``RunMetadata.step_stats``,
which ``FileWriter.add_run_metadata`` writes for TensorBoard and
``daskflow.client.timeline`` draws as a Chrome trace.

TF1's facts (device names, labels, output descriptions, the trace's layout)
come from ``fixtures/timeline.json`` (``fixtures/make_timeline.py``).
"""

import base64
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator as accumulator
from tensorboard.compat.proto import config_pb2

import daskflow as tf
from daskflow.client import timeline
from daskflow.client.run_metadata import message_class
from daskflow.client.step_stats import PartitionTimes, add_partition_stats
from daskflow.errors import InvalidArgumentError

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "timeline.json").read_text())
TRACE = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
ONES = np.ones((2, 3), np.float32)


def _matmul_graph():
    """The graph of the fixture: ``z = reduce_sum(matmul(x, w))``, ``x`` fed."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.matmul(x, w, name="y")
        z = tf.reduce_sum(y, name="z")
    return g, x, w, z


def _outputs(node):
    return [
        {
            "slot": o.slot,
            "dtype": o.tensor_description.dtype,
            "shape": [d.size for d in o.tensor_description.shape.dim],
            "requested_bytes": o.tensor_description.allocation_description.requested_bytes,
            "allocator": o.tensor_description.allocation_description.allocator_name,
        }
        for o in node.output
    ]


def _traced_embedded_run():
    g, x, w, z = _matmul_graph()
    meta = tf.RunMetadata()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        before = time.time_ns() // 1000
        value = sess.run(z, {x: ONES}, options=TRACE, run_metadata=meta)
        after = time.time_ns() // 1000
    return meta, value, before, after


# -- embedded: one NodeExecStats per op --------------------------------------------------------------
def test_an_embedded_traced_run_times_every_op_it_runs_in_order():
    meta, value, before, after = _traced_embedded_run()
    assert value == 12.0
    [device] = meta.step_stats.dev_stats
    assert device.device == FIXTURE["device"] == "/job:localhost/replica:0/task:0/device:CPU:0"
    nodes = {n.node_name: n for n in device.node_stats}
    # TF1 also lists its graph's own nodes (_SOURCE, _arg_x, w/read, Const, _retval);
    # daskflow runs no op for the fed x, reads w without an Identity, and Sum's axes are an attribute.
    assert set(nodes) == {"w", "y", "z"} < set(FIXTURE["node"])
    for node in device.node_stats:
        assert before <= node.all_start_micros <= node.all_start_micros + node.all_end_rel_micros <= after
        assert 0 <= node.op_start_rel_micros <= node.op_end_rel_micros <= node.all_end_rel_micros
        assert 0 <= node.op_start_rel_nanos <= node.op_end_rel_nanos <= node.all_end_rel_nanos
        assert node.thread_id == threading.get_native_id()  # the embedded step runs in the caller's thread
    assert [n.node_name for n in device.node_stats] == ["w", "y", "z"]  # in execution order
    ends = [n.all_start_nanos + n.all_end_rel_nanos for n in device.node_stats]
    starts = [n.all_start_nanos for n in device.node_stats]
    assert all(end <= start for end, start in zip(ends, starts[1:]))


def test_labels_and_output_descriptions_are_tf1s():
    meta, *_ = _traced_embedded_run()
    nodes = {n.node_name: n for n in meta.step_stats.dev_stats[0].node_stats}
    tf1 = FIXTURE["node"]
    assert nodes["w"].timeline_label == tf1["w"]["label"] == "w = VariableV2()"
    # TF reads w through w/read, feeds x as _arg_x_0_0, runs MKL's MatMul and gives Sum its
    # axes as an input: the same form, name = Type(inputs).
    assert nodes["y"].timeline_label == "y = MatMul(x, w)"
    assert tf1["y"]["label"] == "y = _MklMatMul(_arg_x_0_0, w/read)"
    assert (nodes["z"].timeline_label, tf1["z"]["label"]) == ("z = Sum(y)", "z = Sum(y, Const)")
    for name in ("w", "y", "z"):  # the allocator is TF1's CPU allocator; this TF build's is oneDNN's
        ours, theirs = _outputs(nodes[name]), tf1[name]["outputs"]
        assert [o.pop("allocator") for o in ours] == ["cpu"] and [o.pop("allocator") for o in theirs] == [
            "mklcpu"
        ]
        assert ours == theirs
    # Fields TF sets on every op (the relative times and thread may be 0, so unset).
    always = {"node_name", "timeline_label", "all_start_micros", "all_start_nanos", "scheduled_micros"}
    for name, node in nodes.items():
        assert always <= set(tf1[name]["fields"]) and always <= {f.name for f, _ in node.ListFields()}


def test_an_untraced_run_leaves_the_metadata_empty_as_tf1_clears_it():
    g, x, w, z = _matmul_graph()
    meta = tf.RunMetadata()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        sess.run(z, {x: ONES}, options=TRACE, run_metadata=meta)
        assert len(meta.step_stats.dev_stats) == 1
        sess.run(z, {x: ONES}, run_metadata=meta)
        assert len(meta.step_stats.dev_stats) == FIXTURE["cleared"] == 0
        sess.run(z, {x: ONES}, options=TRACE, run_metadata=meta)
        sess.run(z, {x: ONES}, options=tf.RunOptions(), run_metadata=meta)
        assert list(meta.step_stats.dev_stats) == []
        unused = tf.RunMetadata()
        assert sess.run(z, {x: ONES}, options=TRACE) == 12.0  # no metadata to fill: a plain run
    assert unused.SerializeToString() == b""


def test_a_traced_run_updates_variables_and_names_a_failing_op_as_a_plain_run_does():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        bump = tf.assign_add(v, 2.0, name="bump")
        x = tf.placeholder(tf.float32, [None], name="x")
        bad = tf.reshape(x, [3], name="bad")
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        meta = tf.RunMetadata()
        assert sess.run(bump, options=TRACE, run_metadata=meta) == 3.0
        assert sess.run(v) == 3.0
        names = {n.node_name for n in meta.step_stats.dev_stats[0].node_stats}
        assert "bump" in names
        for options in (None, TRACE):
            with pytest.raises(InvalidArgumentError, match="bad"):
                sess.run(bad, {x: [1.0, 2.0]}, options=options, run_metadata=tf.RunMetadata())
        assert sess.run(v) == 3.0


# -- the proto: TF's bytes ------------------------------------------------------------------------------
def test_run_metadata_is_a_protobuf_tf_and_tensorboard_read():
    meta, *_ = _traced_embedded_run()
    theirs = config_pb2.RunMetadata.FromString(meta.SerializeToString())
    assert [n.node_name for n in theirs.step_stats.dev_stats[0].node_stats] == [
        n.node_name for n in meta.step_stats.dev_stats[0].node_stats
    ]
    assert theirs.step_stats.dev_stats[0].node_stats[0].all_start_micros > 0
    again = tf.RunMetadata()
    again.ParseFromString(theirs.SerializeToString())
    assert again == meta and isinstance(again, tf.RunMetadata)
    copy = tf.RunMetadata()
    copy.CopyFrom(meta)
    assert copy.step_stats == meta.step_stats and list(copy.partition_graphs) == []


def test_file_writer_writes_the_traced_metadata_tensorboard_shows(tmp_path):
    meta, *_ = _traced_embedded_run()
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(meta, "step 10", global_step=10)
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["step 10"]
    read = acc.RunMetadata("step 10")
    assert [n.node_name for n in read.step_stats.dev_stats[0].node_stats] == [
        n.node_name for n in meta.step_stats.dev_stats[0].node_stats
    ]


# -- the timeline ------------------------------------------------------------------------------------
def test_the_timeline_of_tf1s_own_stats_is_tf1s_trace():
    stats = message_class("StepStats").FromString(base64.b64decode(FIXTURE["step_stats"]))
    assert timeline.Timeline(stats).generate_chrome_trace_format() == FIXTURE["trace_text"]
    stats = message_class("StepStats").FromString(base64.b64decode(FIXTURE["step_stats"]))
    memory = timeline.Timeline(stats).generate_chrome_trace_format(show_memory=True)
    assert json.loads(memory) == FIXTURE["trace_memory"]


def test_the_timeline_of_a_traced_run_names_every_op():
    meta, *_ = _traced_embedded_run()
    trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format())
    device = meta.step_stats.dev_stats[0].device
    processes = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"]
    assert processes == ["Allocators", f"{device} Compute", f"{device} Tensors"]
    ops = {e["args"]["name"]: e for e in trace["traceEvents"] if e["ph"] == "X"}
    assert set(ops) == {"w", "y", "z"}
    y = ops["y"]
    assert (y["name"], y["cat"], y["pid"], y["args"]["op"]) == ("MatMul", "Op", 1, "MatMul")
    assert (y["args"]["input0"], y["args"]["input1"]) == ("x", "w")
    tf1_y = next(e for e in FIXTURE["trace"]["traceEvents"] if e["ph"] == "X" and e["args"]["name"] == "y")
    assert sorted(y) == sorted(tf1_y) and sorted(y["args"]) == sorted(tf1_y["args"])


def test_the_timeline_draws_dataflow_between_lanes_and_devices():
    stats = message_class("StepStats")()
    ps = stats.dev_stats.add(device="/job:ps/replica:0/task:0/device:CPU:0")
    ps.node_stats.add(node_name="a", timeline_label="a = Const()", all_start_micros=10, all_end_rel_micros=5)
    ps.node_stats[0].output.add(slot=0)
    worker = stats.dev_stats.add(device="/job:worker/replica:0/task:0/device:CPU:0")
    worker.node_stats.add(
        node_name="b", timeline_label="b = Neg(a, ^c)", all_start_micros=20, all_end_rel_micros=3
    )
    trace = json.loads(timeline.Timeline(stats).generate_chrome_trace_format())["traceEvents"]
    flows = [(e["ph"], e["name"], e["pid"], e["ts"], e["id"]) for e in trace if e.get("cat") == "DataFlow"]
    assert flows == [("s", "a", 1, 15, 0), ("t", "a", 3, 20, 0)]
    quiet = json.loads(timeline.Timeline(stats).generate_chrome_trace_format(show_dataflow=False))
    assert not [e for e in quiet["traceEvents"] if e.get("cat") == "DataFlow"]


def test_partition_labels_name_the_instances_each_read_from():
    stats = message_class("StepStats")()
    records = [
        PartitionTimes("worker-s0/0", "worker-s0", 0, "tcp://w0", 1_000, [(2_000, 5_000, 7)]),
        PartitionTimes("worker-s0/1", "worker-s0", 1, "tcp://w1", 1_000, [(2_000, 6_000, 8)]),
        PartitionTimes("ps-0-s1", "ps-0-s1", None, "tcp://ps", 500, [(7_000, 9_000, 9)]),
    ]
    devices = {"tcp://w0": "/job:worker/replica:0/task:0/device:CPU:0", "tcp://w1": "W1", "tcp://ps": "PS"}
    reads = {"ps-0-s1": ["worker-s0"], "worker-s0": []}
    ops = {"ps-0-s1": ["apply", "step"], "worker-s0": ["loss"]}
    add_partition_stats(stats, records, lambda address, _: devices[address], reads, ops)
    nodes = {n.node_name: (d.device, n) for d in stats.dev_stats for n in d.node_stats}
    device, ps = nodes["ps-0-s1"]
    assert device == "PS"
    assert ps.timeline_label == "ps-0-s1 = ps-0-s1(worker-s0/0, worker-s0/1) [apply, step]"
    assert (ps.all_start_nanos, ps.op_start_rel_nanos, ps.op_end_rel_nanos, ps.thread_id) == (
        500,
        6500,
        8500,
        9,
    )
    assert nodes["worker-s0/1"][0] == "W1"


# -- on a cluster: one NodeExecStats per partition, on its worker ---------------------------------------
def _ps_worker_graph():
    """``loss = reduce_sum(matmul(x, w))`` on worker 0, ``w`` on ps 0: (graph, x, w, loss)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(tf.ones([3, 2]), name="w")
        with tf.device("/job:worker/task:0"):
            loss = tf.reduce_sum(tf.matmul(x, w, name="y"), name="loss")
    return g, x, w, loss


def test_a_traced_cluster_run_names_every_partition_on_the_worker_that_ran_it():
    g, x, w, loss = _ps_worker_graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            step = tf.assign_sub(w, tf.gradients(loss, w)[0] * 0.0, name="step")
    # The matmul on the worker; w's gradient (from the fed x: the loss's gradient is folded)
    # and its update on the ps, which nothing of the worker's feeds: both stage 0.
    partitions = {"worker-0-s0", "ps-0-s0"}
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, tf.Session(cluster, graph=g) as sess:
        sess.run(w.initializer)
        meta = tf.RunMetadata()
        before = time.time_ns() // 1000
        value, _ = sess.run([loss, step], {x: ONES}, options=TRACE, run_metadata=meta)
        after = time.time_ns() // 1000
        assert value == 12.0
        left = sess.runtime.client.run(lambda dask_worker: len(dask_worker.extensions["daskflow"].traces))
        untraced = tf.RunMetadata()
        untraced.CopyFrom(meta)
        sess.run(loss, {x: ONES}, run_metadata=untraced)
    assert set(left.values()) == {0}  # the client took every time noted
    assert list(untraced.step_stats.dev_stats) == []
    nodes = [(d.device, n) for d in meta.step_stats.dev_stats for n in d.node_stats]
    where = {n.node_name: (d, n) for d, n in nodes if n.node_name in partitions}
    assert set(where) == partitions and len(partitions) >= 2
    for name, (device, node) in where.items():
        job, task = name.split("-")[:2]
        assert device == f"/job:{job}/replica:0/task:{task}/device:CPU:0"
        assert before <= node.all_start_micros <= node.all_start_micros + node.all_end_rel_micros <= after
        assert 0 <= node.op_start_rel_micros <= node.op_end_rel_micros <= node.all_end_rel_micros
        assert node.timeline_label.startswith(f"{name} = {name}(")
    worker = next(n for d, n in where.values() if d.startswith("/job:worker"))
    assert "y" in worker.timeline_label.partition("[")[2] and "loss" in worker.timeline_label
    trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format())["traceEvents"]
    drawn = {e["args"]["name"]: e for e in trace if e["ph"] == "X"}
    assert partitions <= set(drawn)
    assert all(drawn[name]["name"] in partitions and drawn[name]["args"]["ops"] for name in partitions)


def test_a_traced_cluster_run_times_every_op_on_the_worker_that_ran_it():
    """As embedded, one ``NodeExecStats`` per op (TF1's label and output description), on
    its partition's device and within its partition's computation."""
    g, x, w, loss = _ps_worker_graph()
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster, tf.Session(cluster, graph=g) as sess:
        sess.run(w.initializer)
        sess.run(loss, {x: ONES})  # planned and run untraced first: the traced variant comes later
        meta = tf.RunMetadata()
        assert sess.run(loss, {x: ONES}, options=TRACE, run_metadata=meta) == 12.0
    worker = "/job:worker/replica:0/task:0/device:CPU:0"
    nodes = {n.node_name: (d.device, n) for d in meta.step_stats.dev_stats for n in d.node_stats}
    partition = next(n for name, (d, n) in nodes.items() if d == worker and name.startswith("worker-0"))
    begin = partition.all_start_nanos + partition.op_start_rel_nanos
    end = partition.all_start_nanos + partition.op_end_rel_nanos
    for name, label, shape in (("y", "y = MatMul(x, w)", [2, 2]), ("loss", "loss = Sum(y", [])):
        device, node = nodes[name]
        assert device == worker and node.timeline_label.startswith(label)
        assert begin <= node.all_start_nanos <= node.all_start_nanos + node.all_end_rel_nanos <= end
        description = node.output[0].tensor_description
        assert [d.size for d in description.shape.dim] == shape
        assert description.allocation_description.requested_bytes == 4 * int(np.prod(shape))
