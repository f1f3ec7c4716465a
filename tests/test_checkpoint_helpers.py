"""TF1's checkpoint helpers on daskflow's checkpoints, against TF1's own answers.

``tests/fixtures/scenarios_checkpoint_helpers.py`` saves checkpoints with
``tf.train.Saver`` and asks ``get_checkpoint_state``, ``latest_checkpoint``,
``NewCheckpointReader``, ``init_from_checkpoint``... about them;
``make_checkpoint_helpers.py`` ran it under TensorFlow 2.21 to write
``checkpoint_helpers.json``. Here the same scenario runs under daskflow, step
by step.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_checkpoint_helpers  # noqa: E402

TF1 = json.loads((FIXTURES / "checkpoint_helpers.json").read_text())["steps"]


@pytest.fixture(scope="module")
def daskflow_steps(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("ckpt"))
    steps = dict(scenarios_checkpoint_helpers.run(tf, root))
    tf.reset_default_graph()
    return steps


@pytest.mark.parametrize("label, expected", TF1, ids=[label for label, _ in TF1])
def test_each_step_answers_as_tf1(daskflow_steps, label, expected):
    assert daskflow_steps[label] == expected


def _saved(root):
    tf.reset_default_graph()
    v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        return tf.train.Saver().save(sess, f"{root}/model", global_step=1)


def test_the_meta_file_holds_tfs_meta_graph_def(tmp_path):
    from tensorboardX.proto import graph_pb2

    prefix = _saved(tmp_path)
    data = pathlib.Path(prefix + ".meta").read_bytes()
    fields, i = {}, 0
    while i < len(data):  # MetaGraphDef's top-level fields: (number << 3 | 2), length, bytes
        tag, i = _varint(data, i)
        size, i = _varint(data, i)
        fields[tag >> 3] = data[i : i + size]
        i += size
    assert sorted(fields) == [1, 2, 3, 4]  # meta_info_def, graph_def, saver_def, collection_def
    graph_def = graph_pb2.GraphDef.FromString(fields[2])
    assert "v" in [node.name for node in graph_def.node]
    assert "v" in [node.name for node in tf.train.export_meta_graph().graph_def.node]


def _varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value, i


def test_helpers_work_on_fsspec_urls():
    prefix = _saved("memory://helpers")
    assert tf.train.latest_checkpoint("memory://helpers") == prefix
    assert tf.train.get_checkpoint_state("memory://helpers").all_model_checkpoint_paths == [prefix]
    assert tf.train.list_variables("memory://helpers") == [("v", [4])]
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "v"), np.arange(4))
    assert tf.train.checkpoint_exists(prefix) and len(tf.train.get_checkpoint_mtimes([prefix])) == 1
    tf.train.remove_checkpoint(prefix)
    assert not tf.train.checkpoint_exists(prefix)


def test_a_state_file_written_by_earlier_daskflow_is_still_read(tmp_path):
    prefix = _saved(tmp_path)
    (tmp_path / "checkpoint").write_text(json.dumps({"latest": "model-1", "all": ["model-1"]}))
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix


def test_a_value_read_is_a_fresh_array(tmp_path):
    prefix = _saved(tmp_path)
    reader = tf.train.NewCheckpointReader(prefix)
    value = reader.get_tensor("v")
    value[0] = 99.0  # TF1 hands out a new array each time
    assert reader.get_tensor("v")[0] == 0.0


def test_saver_takes_tf1s_arguments_by_name_and_position():
    import inspect

    save = inspect.signature(tf.train.Saver.save)
    assert list(save.parameters)[1:] == [
        "sess",
        "save_path",
        "global_step",
        "latest_filename",
        "meta_graph_suffix",
        "write_meta_graph",
        "write_state",
        "strip_default_attrs",
        "save_debug_info",
    ]
    init = inspect.signature(tf.train.Saver.__init__)
    assert list(init.parameters)[1:] == [
        "var_list",
        "reshape",
        "sharded",
        "max_to_keep",
        "keep_checkpoint_every_n_hours",
        "name",
        "restore_sequentially",
        "saver_def",
        "builder",
        "defer_build",
        "allow_empty",
        "write_version",
        "pad_step_number",
        "save_relative_paths",
        "filename",
    ]


def _three_checkpoints(folder):
    """Checkpoints at steps 1, 2, 3 of a model whose variable holds its step (a fresh graph);
    returns the graph, the variable and the checkpoints' prefixes."""
    graph = tf.Graph()
    with graph.as_default():
        tf.train.get_or_create_global_step()
        step = tf.Variable(0.0, name="step")
        saver = tf.train.Saver()
        prefixes = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in (1, 2, 3):
                sess.run(step.assign(float(i)))
                prefixes.append(saver.save(sess, str(folder / "model"), global_step=i))
    return graph, step, prefixes


def _restored(folder, graph, step):
    config = dict(save_checkpoint_secs=None, save_summaries_steps=None, log_step_count_steps=None)
    with graph.as_default(), tf.train.MonitoredTrainingSession(checkpoint_dir=str(folder), **config) as sess:
        return sess.run(step)


def test_a_damaged_newest_checkpoint_falls_back_to_the_one_before_and_says_so(tmp_path, caplog):
    graph, step, prefixes = _three_checkpoints(tmp_path)
    data = pathlib.Path(prefixes[-1] + ".data-00000-of-00001")
    data.write_bytes(b"\xff" * len(data.read_bytes()))
    assert _restored(tmp_path, graph, step) == 2.0
    assert "model-3 skipped" in caplog.text


def test_a_lost_state_file_restores_the_newest_checkpoint_and_says_so(tmp_path, caplog):
    graph, step, _ = _three_checkpoints(tmp_path)
    (tmp_path / "checkpoint").unlink()
    assert _restored(tmp_path, graph, step) == 3.0
    assert "no checkpoint state file" in caplog.text


def test_a_state_file_naming_a_checkpoint_outside_its_folder_is_refused(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "../../etc/model"\n')
    with pytest.raises(ValueError, match="outside its folder"):
        tf.train.get_checkpoint_state(str(tmp_path))
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "/elsewhere/run/model-3"\n')
    with pytest.raises(ValueError, match="'/elsewhere/run/model-3', outside its folder"):
        tf.train.latest_checkpoint(str(tmp_path))
