"""RunConfig reads TF_CONFIG as TF1 did (values checked against TF1's RunConfig docs)."""

import json

import pytest

import daskflow as tf

CLUSTER = {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4", "h:5"]}


def _config(monkeypatch, task, cluster=CLUSTER, **kwargs):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
    return tf.estimator.RunConfig(**kwargs)


def test_a_worker_task(monkeypatch):
    config = _config(monkeypatch, {"type": "worker", "index": 1})
    assert (config.task_type, config.task_id, config.is_chief) == ("worker", 1, False)
    assert config.master == "grpc://h:3"
    assert (config.num_ps_replicas, config.num_worker_replicas) == (2, 3)
    assert config.global_id_in_cluster == 2  # chief 0, worker 0 is 1, worker 1 is 2
    assert config.cluster_spec.as_dict() == CLUSTER


def test_the_chief_ps_and_evaluator(monkeypatch):
    chief = _config(monkeypatch, {"type": "chief", "index": 0})
    assert chief.is_chief and chief.master == "grpc://h:1" and chief.global_id_in_cluster == 0
    ps = _config(monkeypatch, {"type": "ps", "index": 1})
    assert not ps.is_chief and ps.global_id_in_cluster == 4
    evaluator = _config(monkeypatch, {"type": "evaluator", "index": 0})
    assert not evaluator.is_chief and evaluator.master == ""


def test_an_explicit_master_wins(monkeypatch):
    assert (
        _config(monkeypatch, {"type": "worker", "index": 0}, master="tcp://s:8786").master == "tcp://s:8786"
    )


def test_without_tf_config_one_chief(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    config = tf.estimator.RunConfig()
    assert (config.cluster_spec, config.task_type, config.is_chief, config.num_worker_replicas) == (
        None,
        None,
        True,
        1,
    )


@pytest.mark.parametrize(
    ("task", "cluster", "message"),
    [
        ({"type": "trainer", "index": 0}, CLUSTER, "task type 'trainer'"),
        ({"type": "worker", "index": -1}, CLUSTER, "task index must be a non-negative integer"),
        ({"type": "worker", "index": 5}, CLUSTER, "task worker:5 is not in its cluster"),
        ({"type": "worker", "index": 0}, {"worker": ["h:1"], "ps": ["h:2"]}, 'must have one "chief" node'),
        ({"type": "evaluator", "index": 1}, CLUSTER, "evaluator task index must be 0"),
    ],
)
def test_bad_tf_config_is_refused_naming_the_field(monkeypatch, task, cluster, message):
    with pytest.raises(ValueError, match=message):
        _config(monkeypatch, task, cluster)


def test_tf_config_that_is_not_json(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{cluster")
    with pytest.raises(ValueError, match="TF_CONFIG is not JSON"):
        tf.estimator.RunConfig()
