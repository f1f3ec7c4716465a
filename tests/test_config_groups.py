"""daskflow's own ConfigProto options, grouped by what they do (runtime/config_groups.py).

TF1's fields are covered by test_config_protos.py against TF's own descriptors;
here: the groups' defaults, the flat keywords and attributes as aliases of the
groups' fields, each record checked whole, and what a session reads from them.
"""

import dataclasses
import pickle

import pytest

import daskflow as tf
from daskflow.runtime.config_groups import (
    ALIASES,
    GROUPS,
    ClusterOptions,
    CompressionOptions,
    RecoveryOptions,
    ReplicationOptions,
    StepOptions,
)

# Each option's group and default, as the README and docs/architecture.md promise them.
DEFAULTS = {
    "placement": ("cluster", None),
    "low_latency": ("cluster", True),
    "send_bucket_bytes": ("cluster", 8 << 20),
    "steps_per_run": ("steps", 1),
    "async_dispatch": ("steps", 0),
    "stage_next_step": ("steps", True),
    "independent_replicas": ("replication", False),
    "max_staleness": ("replication", None),
    "gradient_compression": ("compression", None),
    "variable_compression": ("compression", None),
    "backup_variables": ("recovery", True),
    "backup_variables_secs": ("recovery", 30.0),
    "backup_variables_every": ("recovery", 0),
    "recovery_wait_secs": ("recovery", 20.0),
    "recovery_timeout_secs": ("recovery", 60.0),
}

# A value other than the default for each option, and how the group holds it.
OTHER = {
    "placement": ("cost", "cost"),
    "low_latency": (False, False),
    "send_bucket_bytes": (4096, 4096),
    "steps_per_run": (4, 4),
    "async_dispatch": (2, 2),
    "stage_next_step": (False, False),
    "independent_replicas": (True, True),
    "max_staleness": (1, 1),
    "gradient_compression": ("int8", "int8"),
    "variable_compression": ("bf16", "bf16"),
    "backup_variables": (False, False),
    "backup_variables_secs": (10, 10.0),
    "backup_variables_every": (3, 3),
    "recovery_wait_secs": (1, 1.0),
    "recovery_timeout_secs": (5, 5.0),
}


def test_every_option_is_in_one_group_with_its_default():
    assert {
        name: (group, getattr(getattr(tf.ConfigProto(), group), name)) for name, group in ALIASES.items()
    } == (DEFAULTS)
    assert list(GROUPS) == ["cluster", "steps", "replication", "compression", "recovery"]
    classes = [ClusterOptions, StepOptions, ReplicationOptions, CompressionOptions, RecoveryOptions]
    assert list(GROUPS.values()) == classes


def test_no_group_or_option_shadows_a_field_of_tfs_message():
    fields = set(tf.ConfigProto._FIELDS) | {name for name in vars(tf.ConfigProto) if not name.startswith("_")}
    assert not (set(GROUPS) | set(ALIASES)) & fields


@pytest.mark.parametrize("name", sorted(OTHER))
def test_a_flat_keyword_and_attribute_are_its_groups_field(name):
    given, held = OTHER[name]
    group = ALIASES[name]
    config = tf.ConfigProto(**{name: given})
    assert getattr(getattr(config, group), name) == held
    assert getattr(config, name) == held
    other = tf.ConfigProto()
    setattr(other, name, given)
    assert getattr(getattr(other, group), name) == held and other == config
    assert other != tf.ConfigProto()
    # The other groups are left as they were.
    assert all(getattr(config, g) == GROUPS[g]() for g in GROUPS if g != group)


def test_a_group_is_a_keyword_as_a_record_or_a_dict():
    record = RecoveryOptions(backup_variables_secs=5, recovery_wait_secs=1)
    assert tf.ConfigProto(recovery=record).recovery is record
    config = tf.ConfigProto(recovery={"backup_variables_secs": 5}, backup_variables_every=2)
    assert config.recovery == RecoveryOptions(backup_variables_secs=5.0, backup_variables_every=2)
    config.steps = StepOptions(steps_per_run=3)
    assert config.steps_per_run == 3
    with pytest.raises(ValueError, match='RecoveryOptions has no "backup_variable_secs"'):
        tf.ConfigProto(recovery={"backup_variable_secs": 5})
    with pytest.raises(TypeError, match="recovery=.*expected a RecoveryOptions or a dict, got StepOptions"):
        tf.ConfigProto(recovery=StepOptions())


def test_the_records_are_frozen_and_checked_whole():
    config = tf.ConfigProto()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.recovery.backup_variables_secs = 1.0
    # Together, in either order: the record is made once from both.
    for options in ({"backup_variables": False, "backup_variables_every": 0}, {"backup_variables_every": 0}):
        assert tf.ConfigProto(**options).backup_variables_every == 0
    with pytest.raises(ValueError, match="backup_variables_every=5"):
        tf.ConfigProto(backup_variables_every=5, backup_variables=False)
    config = tf.ConfigProto(backup_variables_every=5)
    with pytest.raises(ValueError, match="backup_variables_every=5"):
        config.backup_variables = False
    assert config.recovery.backup_variables  # a refused assignment changes nothing


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("steps_per_run", 0),
        ("steps_per_run", 2.0),
        ("async_dispatch", -1),
        ("max_staleness", -1),
        ("backup_variables_secs", "soon"),
        ("recovery_wait_secs", -1),
        ("recovery_timeout_secs", -0.5),
        ("placement", "random"),
        ("gradient_compression", "int4"),
        ("variable_compression", "int8"),
    ],
)
def test_a_bad_value_is_a_value_error_naming_the_option(name, value):
    with pytest.raises(ValueError, match=rf"ConfigProto\({name}={value!r}\)"):
        tf.ConfigProto(**{name: value})
    with pytest.raises(ValueError, match=name):
        setattr(tf.ConfigProto(), name, value)
    with pytest.raises(ValueError, match=name):
        GROUPS[ALIASES[name]](**{name: value})


def test_options_stay_out_of_tfs_text_and_bytes_but_copy_pickle_and_merge():
    config = tf.ConfigProto(allow_soft_placement=True, steps_per_run=3, max_staleness=2)
    assert str(config) == "allow_soft_placement: true\n"
    assert config.SerializeToString() == tf.ConfigProto(allow_soft_placement=True).SerializeToString()
    assert pickle.loads(pickle.dumps(config)) == config
    copied = tf.ConfigProto()
    copied.CopyFrom(config)
    assert copied.steps == StepOptions(steps_per_run=3) and copied == config
    # protobuf's MergeFrom: what the other has set (off its default) wins, the rest stays.
    merged = tf.ConfigProto(async_dispatch=2, backup_variables_secs=5)
    merged.MergeFrom(tf.ConfigProto(steps_per_run=4, recovery_wait_secs=1))
    assert merged.steps == StepOptions(steps_per_run=4, async_dispatch=2)
    assert merged.recovery == RecoveryOptions(backup_variables_secs=5.0, recovery_wait_secs=1.0)


def test_a_session_reads_the_options_at_its_start_as_tf1_reads_its_config(fresh_graph):
    v = tf.Variable(0.0)
    dataset = tf.data.Dataset.from_tensor_slices([1.0] * 20)
    step = v.assign_add(tf.data.make_one_shot_iterator(dataset).get_next())
    config = tf.ConfigProto(steps_per_run=4)
    with tf.Session(config=config) as sess:
        sess.run(v.initializer)
        config.steps_per_run = 2  # after the session started: as TF1, it keeps what it read
        sess.run(step)
        assert sess.run(v) == 4.0


def test_a_session_config_that_is_not_a_configproto_is_tf1s_type_error():
    # TF1: TypeError('Argument `config` must be a tf.ConfigProto, but got "dict"').
    with pytest.raises(TypeError, match='Argument `config` must be a tf.ConfigProto, but got "dict"'):
        tf.Session(config={"allow_soft_placement": True})
