"""TF1's configuration messages: every field TF has, TF's types, defaults, text and errors.

The expectations come from TensorFlow 2.21's own descriptors and from running the same
config-building code under it (``tests/fixtures/make_config_protos.py`` wrote
``tf1_config_protos.json``).
"""

import builtins
import json
import logging
import pathlib
import pickle

import pytest

import daskflow as tf
from daskflow.runtime.messages import Message, message_class

ORACLE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tf1_config_protos.json").read_text())
MESSAGES = ORACLE["messages"]
# A value of each type that is not the field's default, so that it shows as set.
VALUES = {
    "bool": True,
    "int32": 7,
    "int64": 7,
    "uint32": 7,
    "uint64": 7,
    "double": 0.25,
    "float": 0.25,
    "string": "x",
    "bytes": b"x",
}
PLAIN = [name for name, m in MESSAGES.items() if not m["map_entry"]]


def _classes():
    """Each TF message as daskflow's class, reached the way a program reaches it."""
    for root, name in ORACLE["roots"].items():
        yield name, getattr(tf, root)


def _reach(name):
    """``ConfigProto.Experimental`` -> the class, through its enclosing classes."""
    outer, *inner = name.split(".")
    cls = getattr(tf, outer, None) or message_class(outer)
    for part in inner:
        cls = getattr(cls, part)
    return cls


def _value(field):
    if field["type"] == "enum":
        return next(n for n in ORACLE["enums"][field["target"]].values() if n != 0)
    return VALUES[field["type"]]


@pytest.mark.parametrize("name", PLAIN)
def test_every_field_has_tfs_default_and_takes_its_type_as_keyword_and_attribute(name):
    cls = _reach(name)
    fields = MESSAGES[name]["fields"]
    empty = cls()
    assert str(empty) == "" and empty.ListFields() == []
    for field in fields:
        if field["repeated"] or field["type"] == "message":
            continue
        assert getattr(empty, field["name"]) == field["default"], field["name"]
        assert getattr(cls(**{field["name"]: _value(field)}), field["name"]) == _value(field), field["name"]
        message = cls()
        setattr(message, field["name"], _value(field))
        assert [f.name for f, _ in message.ListFields()] == [field["name"]]


@pytest.mark.parametrize("name", PLAIN)
def test_message_fields_are_tfs_nested_classes_and_lists_take_items(name):
    cls = _reach(name)
    for field in MESSAGES[name]["fields"]:
        value = getattr(cls(), field["name"])
        if field["repeated"] and MESSAGES.get(field["target"], {}).get("map_entry"):
            assert dict(value) == {}, field["name"]
        elif field["repeated"]:
            assert list(value) == [], field["name"]
        elif field["type"] == "message":
            assert isinstance(value, _reach(field["target"])), field["name"]


def test_enum_constants_are_on_the_classes_with_tfs_numbers():
    checked = 0
    for name in PLAIN:
        cls = _reach(name)
        for enum in [e for e in ORACLE["enums"] if e.rsplit(".", 1)[0] == name]:
            wrapper = getattr(cls, enum.rsplit(".", 1)[1])
            for label, number in ORACLE["enums"][enum].items():
                assert getattr(cls, label) == number and wrapper.Value(label) == number
                checked += 1
    assert checked > 30
    assert tf.RunOptions.TraceLevel.Name(3) == "FULL_TRACE"
    assert tf.OptimizerOptions.ON_1 == 1 and tf.OptimizerOptions.L0 == -1
    assert tf.RewriterConfig.OFF == 2


@pytest.mark.parametrize("name", sorted(ORACLE["samples"]))
def test_a_config_built_as_tf1_programs_do_reads_as_tfs(name):
    sample = ORACLE["samples"][name]
    scope = {"tf": tf}
    exec(sample["code"], scope)
    assert str(scope["c"]) == sample["text"]


@pytest.mark.parametrize("name", sorted(ORACLE["errors"]))
def test_bad_fields_and_values_raise_tfs_error_type(name):
    case = ORACLE["errors"][name]
    with pytest.raises(getattr(builtins, case["error"])):
        exec(case["code"], {"tf": tf})


@pytest.mark.parametrize(
    "code, culprit",
    [
        ("tf.ConfigProto(allow_soft_placment=True)", '"allow_soft_placment"'),
        ("tf.GPUOptions(allow_grow=True)", '"allow_grow"'),
        ("tf.ConfigProto().gpu_options.__setattr__('allow_grow', True)", '"allow_grow"'),
        ("tf.ConfigProto(inter_op_parallelism_threads='2')", "inter_op_parallelism_threads"),
        ("tf.ConfigProto(log_device_placement='yes')", "log_device_placement"),
        ("tf.ConfigProto(device_count={'GPU': 'a'})", "device_count"),
        ("tf.OptimizerOptions(global_jit_level='ON_9')", "ON_9"),
        ("tf.ConfigProto().__setattr__('gpu_options', tf.GPUOptions())", '"gpu_options"'),
        ("tf.ConfigProto(gpu_options=5)", "gpu_options"),
    ],
)
def test_errors_name_the_culprit(code, culprit):
    with pytest.raises((ValueError, TypeError, AttributeError)) as info:
        eval(code, {"tf": tf})
    assert culprit in str(info.value)


def test_the_fields_tf1_programs_set_read_back():
    config = tf.ConfigProto(
        device_count={"GPU": 0},
        log_device_placement=True,
        allow_soft_placement=True,
        inter_op_parallelism_threads=2,
        intra_op_parallelism_threads=1,
    )
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    assert dict(config.device_count) == {"GPU": 0}
    assert config.log_device_placement and config.allow_soft_placement
    assert (config.inter_op_parallelism_threads, config.intra_op_parallelism_threads) == (2, 1)
    assert config.gpu_options.allow_growth and config.gpu_options.per_process_gpu_memory_fraction == 0.4
    assert config.graph_options.optimizer_options.global_jit_level == 1
    assert config.HasField("gpu_options") and not config.HasField("rpc_options")
    assert config.ListFields()[0][0].name == "device_count"  # in field-number order, as TF


def test_message_fields_are_copied_in_as_protobuf_does():
    gpu = tf.GPUOptions(allow_growth=True)
    config = tf.ConfigProto(gpu_options=gpu)
    gpu.allow_growth = False
    assert config.gpu_options.allow_growth


def test_compat_v1_experimental_messages():
    experimental = tf.ConfigProto.Experimental(collective_group_leader="/job:worker/task:0")
    config = tf.ConfigProto(experimental=experimental)
    assert config.experimental.collective_group_leader == "/job:worker/task:0"
    assert tf.GPUOptions.Experimental().use_unified_memory is False
    v1 = getattr(getattr(tf, "compat", None), "v1", None)
    if v1 is not None and hasattr(v1, "ConfigProto"):
        assert v1.ConfigProto.Experimental is tf.ConfigProto.Experimental


def test_configs_compare_copy_and_pickle():
    config = tf.ConfigProto(allow_soft_placement=True, steps_per_run=3, device_count={"GPU": 0})
    config.graph_options.rewrite_options.remapping = tf.RewriterConfig.OFF
    again = pickle.loads(pickle.dumps(config))
    assert again == config and again.steps_per_run == 3 and dict(again.device_count) == {"GPU": 0}
    assert again != tf.ConfigProto(allow_soft_placement=True, steps_per_run=3)
    copied = tf.ConfigProto()
    copied.CopyFrom(config)
    assert copied == config
    copied.ClearField("graph_options")
    assert not copied.HasField("graph_options") and config.HasField("graph_options")
    assert isinstance(config, Message)
    inner = pickle.loads(pickle.dumps(tf.ConfigProto.Experimental(disable_thread_spinning=True)))
    assert inner.disable_thread_spinning


def test_daskflows_own_session_options_still_work():
    config = tf.ConfigProto(
        steps_per_run=4,
        gradient_compression="fp16",
        placement="cost",
        backup_variables=False,
        max_staleness=3,
        gpu_options=tf.GPUOptions(allow_growth=True),
    )
    assert (config.steps_per_run, config.gradient_compression, config.placement) == (4, "fp16", "cost")
    assert config.backup_variables is False and config.max_staleness == 3
    assert tf.ConfigProto().backup_variables_secs == 30.0
    assert "steps_per_run" not in str(config)  # not a field of TF's message
    with pytest.raises(ValueError, match="steps_per_run"):
        tf.ConfigProto(steps_per_run=0)
    with pytest.raises(ValueError, match="intra_op_parallelism_threads"):
        tf.ConfigProto().intra_op_parallelism_threads = -1


def test_graph_options_set_in_place_turn_rewrites_off():
    config = tf.ConfigProto()
    assert config.graph_options.passes().remapping
    config.graph_options.rewrite_options.remapping = tf.RewriterConfig.OFF
    config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    passes = config.graph_options.passes()
    assert not passes.remapping and not passes.common_subexpressions and passes.arithmetic


def test_a_session_logs_which_fields_have_no_meaning_here(caplog):
    config = tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0})
    config.gpu_options.allow_growth = True
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    config.graph_options.rewrite_options.remapping = tf.RewriterConfig.OFF
    with caplog.at_level(logging.DEBUG, logger="daskflow"), tf.Graph().as_default():
        tf.Session(config=config).close()
    lines = [r.getMessage() for r in caplog.records if "no meaning" in r.getMessage()]
    assert len(lines) == 1
    for name in (
        "device_count",
        "gpu_options.allow_growth",
        "graph_options.optimizer_options.global_jit_level",
    ):
        assert name in lines[0]
    assert "allow_soft_placement" not in lines[0] and "remapping" not in lines[0]


def test_a_session_with_only_honoured_fields_logs_nothing(caplog):
    config = tf.ConfigProto(allow_soft_placement=True, intra_op_parallelism_threads=1)
    with caplog.at_level(logging.DEBUG, logger="daskflow"), tf.Graph().as_default():
        tf.Session(config=config).close()
    assert not [r for r in caplog.records if "no meaning" in r.getMessage()]


def test_log_device_placement_prints_the_graph_when_first_placed_as_tf1(capsys):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        c = tf.constant([1.0, 2.0], name="c")
        y = tf.square(x * c, name="y")
        unused = tf.exp(x, name="unused")
        with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
            sess.run(y, {x: [1.0, 2.0]})
            sess.run(y, {x: [1.0, 2.0]})
            first = capsys.readouterr().out.splitlines()
            z = tf.multiply(y, c, name="z")
            sess.run(z, {x: [1.0, 2.0]})
            later = capsys.readouterr().out.splitlines()
    assert unused.op.type == "Exp"
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    # What TF1 prints: every op of the graph on the first run, once (in another order), and
    # all of them again when a run places the grown graph.
    expected = ["x: (Placeholder)", "c: (Const)", "mul: (Mul)", "y: (Square)", "unused: (Exp)"]
    assert sorted(first) == sorted(f"{line}: {cpu}" for line in expected)
    assert sorted(later) == sorted(f"{line}: {cpu}" for line in [*expected, "z: (Mul)"])


def test_run_options_and_metadata_still_trace_a_step():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.square(x, name="y")
        meta = tf.RunMetadata()
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=1000)
        with tf.Session() as sess:
            assert sess.run(y, {x: 3.0}, options=options, run_metadata=meta) == 9.0
        assert [n.node_name for n in meta.step_stats.dev_stats[0].node_stats] == ["y"]


@pytest.mark.parametrize("name", sorted(ORACLE["samples"]))
def test_a_config_serializes_to_tfs_bytes(name):
    sample = ORACLE["samples"][name]
    scope = {"tf": tf}
    exec(sample["code"], scope)
    assert scope["c"].SerializeToString(deterministic=True).hex() == sample["bytes"]


def test_run_metadata_has_tf1s_fields():
    fields = [[f.name, f.number] for f in tf.RunMetadata.DESCRIPTOR.fields]
    assert fields == ORACLE["run_metadata"]
