"""train.Saver: safe, atomic checkpoints, embedded and written from the workers."""

import json
import pathlib
import shutil

import fsspec
import numpy as np
import pytest
from distributed import Client, get_task_stream

import daskflow as tf
from daskflow.runtime.cluster.devices import scheduler_identity

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _model():
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = tf.Variable(np.ones(3, np.float32), name="layer/b")
    step = tf.train.get_or_create_global_step()
    return w, b, step


@pytest.mark.parametrize("root", ["file", "memory"])
def test_save_restore_latest_and_pruning(tmp_path, root):
    base = str(tmp_path) if root == "file" else f"memory://saver-{tmp_path.name}"
    w, b, step = _model()
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        paths = []
        for _ in range(3):
            sess.run(tf.assign_add(step, 1))
            paths.append(saver.save(sess, f"{base}/model", global_step=step))
        assert paths[-1] == f"{base}/model-3"
        assert tf.train.latest_checkpoint(base) == paths[-1]
        assert saver.last_checkpoints == paths[1:]  # the oldest pruned
        with pytest.raises(ValueError, match="not a valid checkpoint: '.*model-1'"):  # TF1's type
            saver.restore(sess, paths[0])
        sess.run([tf.assign(w, tf.zeros([2, 3])), tf.assign(step, 0)])
        saver.restore(sess, paths[1])
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
        assert sess.run(step) == 2
    # TF's format, one data shard from the one process holding variables; the pruned one gone.
    assert tf.train.list_variables(paths[-1]) == [("global_step", []), ("layer/b", [3]), ("w", [2, 3])]
    fs, root = fsspec.core.url_to_fs(base)
    names = sorted(p.rsplit("/", 1)[-1] for p in fs.ls(root, detail=False))
    assert [n for n in names if n.startswith("model-3")] == [
        "model-3.data-00000-of-00001",
        "model-3.index",
        "model-3.meta",
    ]
    assert not [n for n in names if n.startswith("model-1")]


def _saved(tmp_path):
    w, b, step = _model()
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    path = saver.save(sess, f"{tmp_path}/model")
    sess.run(tf.assign(w, tf.fill([2, 3], 7.0)))
    return sess, saver, path, w


def test_a_checkpoint_of_another_graph_is_refused_with_the_full_list(tmp_path):
    sess, _, path, w = _saved(tmp_path)
    with sess.graph.as_default():
        other = tf.Variable(tf.zeros([3, 2]), name="w2")
        wide = tf.Variable(tf.zeros([2, 3], tf.int32), name="w3")
    saver = tf.train.Saver({"w": other, "extra": wide})
    with pytest.raises(tf.errors.NotFoundError) as err:
        saver.restore(sess, path)
    message = str(err.value)
    assert "Key extra not found" in message and "missing ['extra']" in message
    assert "w: checkpoint (2, 3) float32, graph (3, 2) float32" in message
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="w: checkpoint \\(2, 3\\) float32, graph \\(3, 2\\)"
    ):
        tf.train.Saver({"w": other}).restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), np.full((2, 3), 7.0))  # untouched
    sess.close()


def test_a_saver_of_some_variables_restores_them_from_a_fuller_checkpoint(tmp_path):
    # TF1's Saver restores its var_list and ignores the checkpoint's other variables.
    sess, _, path, w = _saved(tmp_path)
    tf.train.Saver([w]).restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))  # the saved value, not the 7s
    sess.close()


@pytest.mark.parametrize("damage", ["truncate", "flip", "missing", "index"])
def test_a_damaged_file_is_refused_before_any_variable_changes(tmp_path, damage):
    sess, saver, path, w = _saved(tmp_path)
    victim = tmp_path / ("model.index" if damage == "index" else "model.data-00000-of-00001")
    data = victim.read_bytes()  # the shard: global_step, layer/b, then w (names in order)
    if damage == "truncate":
        victim.write_bytes(data[: len(data) - 4])
    elif damage == "flip":
        victim.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "missing":
        victim.unlink()
    else:
        victim.write_bytes(data[:20] + bytes([data[20] ^ 1]) + data[21:])
    with sess.graph.as_default():
        zero_b = tf.assign(tf.global_variables()[1], tf.zeros([3]))
    sess.run(zero_b)
    named = "model.index" if damage == "index" else "model.data-00000-of-00001"
    with pytest.raises(tf.errors.DataLossError, match=named):
        saver.restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), np.full((2, 3), 7.0))
    np.testing.assert_array_equal(sess.run(tf.global_variables()[1]), np.zeros(3))  # read fine, not set
    sess.close()


NPY_CHECKPOINT = pathlib.Path(__file__).parent / "fixtures" / "daskflow_npy_checkpoint"


def _npy_checkpoint(tmp_path):
    """A copy of a checkpoint in daskflow's first format, and a graph of its variables."""
    folder = tmp_path / "npy"
    shutil.copytree(NPY_CHECKPOINT, folder)
    kernel = tf.Variable(tf.zeros([2, 3]), name="dense/kernel")
    bias = tf.Variable(tf.zeros([2], tf.float64), name="dense/bias")
    return folder, kernel, bias


def test_checkpoints_of_daskflows_first_format_still_restore_and_read(tmp_path):
    folder, kernel, bias = _npy_checkpoint(tmp_path)
    path = tf.train.latest_checkpoint(str(folder))
    assert path == f"{folder}/model-7"
    with tf.Session() as sess:
        tf.train.Saver([kernel, bias]).restore(sess, path)
        np.testing.assert_array_equal(sess.run(kernel), np.arange(6).reshape(2, 3))
        np.testing.assert_array_equal(sess.run(bias), [0.5, -1.5])
    assert tf.train.load_variable(path, "global_step") == 7
    assert tf.train.list_variables(path) == [
        ("dense/bias", [2]),
        ("dense/kernel", [2, 3]),
        ("global_step", []),
    ]


@pytest.mark.parametrize("damage", ["truncate", "flip", "missing", "pickle"])
def test_a_damaged_file_of_the_first_format_is_refused_before_any_variable_changes(tmp_path, damage):
    folder, kernel, bias = _npy_checkpoint(tmp_path)
    victim = next(folder.glob("model-7.data-*")) / "00001.npy"  # dense/kernel, read after dense/bias
    data = victim.read_bytes()
    if damage == "truncate":
        victim.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        victim.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "missing":
        victim.unlink()
    else:  # a pickled object array in place of the data, manifest updated to match
        import hashlib
        import io

        buffer = io.BytesIO()
        np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
        victim.write_bytes(buffer.getvalue())
        manifest = json.loads((folder / "model-7.index.json").read_text())
        manifest["variables"]["dense/kernel"].update(
            bytes=len(buffer.getvalue()), sha256=hashlib.sha256(buffer.getvalue()).hexdigest()
        )
        (folder / "model-7.index.json").write_text(json.dumps(manifest))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.DataLossError, match="00001.npy"):
            tf.train.Saver([kernel, bias]).restore(sess, f"{folder}/model-7")
        np.testing.assert_array_equal(sess.run(bias), [0.0, 0.0])  # read fine, not set


def test_a_manifest_that_is_not_one_is_refused(tmp_path):
    folder, kernel, bias = _npy_checkpoint(tmp_path)
    manifest = folder / "model-7.index.json"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        manifest.write_text('{"format": "daskflow-checkpoint-1", "variables": {"w": 3}}')
        with pytest.raises(tf.errors.DataLossError, match="not a daskflow checkpoint manifest"):
            tf.train.Saver([kernel]).restore(sess, f"{folder}/model-7")
        manifest.write_text("{not json")
        with pytest.raises(tf.errors.DataLossError):
            tf.train.Saver([kernel]).restore(sess, f"{folder}/model-7")
        np.testing.assert_array_equal(sess.run(kernel), np.zeros((2, 3)))


def _dies_after_writing(sess):
    """Make ``sess``'s next checkpoint write every data shard, then fail (as a save that dies
    before its index)."""
    write = sess.write_checkpoint

    def write_then_die(names, shard_url):
        write(names, shard_url)
        sess.write_checkpoint = write
        assert pathlib.Path(shard_url(0, 1)).exists()  # the shard was written
        raise OSError("the save died after writing its data")

    sess.write_checkpoint = write_then_die


def test_a_save_that_fails_half_way_leaves_the_previous_checkpoint_latest(tmp_path):
    w, b, step = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, f"{tmp_path}/model", global_step=1)
        sess.run(tf.assign(w, tf.zeros([2, 3])))
        _dies_after_writing(sess)
        with pytest.raises(OSError):
            saver.save(sess, f"{tmp_path}/model", global_step=2)
        # It wrote its shard, under a temporary name; failing, it took that away again.
        assert not list(tmp_path.glob("model-2*"))
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))


def test_saving_an_uninitialised_variable_names_it(tmp_path):
    _model()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="global_step"):
            tf.train.Saver().save(sess, f"{tmp_path}/model")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_on_a_cluster_each_variable_is_written_and_restored_on_its_worker(tmp_path):
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    with tf.device("/job:ps/task:1"):
        b = tf.Variable(np.ones(3, np.float32), name="b")
    saver = tf.train.Saver()
    with tf.local_cluster(ps=2, workers=1, processes=False) as cluster, Client(cluster) as client:
        with tf.Session(cluster) as sess:
            sess.run(tf.global_variables_initializer())
            with get_task_stream(client) as stream:
                path = saver.save(sess, f"{tmp_path}/model")
            sess.run([tf.assign(w, tf.zeros([2, 3])), tf.assign(b, tf.zeros([3]))])
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
            futures = sess.variable_futures()
            names = {a: info["name"] for a, info in scheduler_identity(client)["workers"].items()}
            holders = client.who_has(list(futures.values()))
            assert {n: {names[a] for a in holders[f.key]} for n, f in futures.items()} == {
                "w": {"ps-0"},
                "b": {"ps-1"},
            }
            names = {a: info["name"] for a, info in scheduler_identity(client)["workers"].items()}
            writers = sorted(
                names[r["worker"]] for r in stream.data if str(r["key"]).startswith("checkpoint-write")
            )
            assert writers == ["ps-0", "ps-1"]  # each shard written where its variables live
    assert sorted(p.name for p in tmp_path.glob("model.data-*")) == [
        "model.data-00000-of-00002",
        "model.data-00001-of-00002",
    ]


def test_saving_again_under_the_same_prefix_keeps_the_old_checkpoint_whole_until_replaced(tmp_path):
    w, _, _ = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, f"{tmp_path}/model")
        sess.run(tf.assign(w, tf.zeros([2, 3])))
        _dies_after_writing(sess)  # the second save dies before its index
        with pytest.raises(OSError):
            saver.save(sess, f"{tmp_path}/model")
        saver.restore(sess, path)  # the first checkpoint's files were never touched
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
        sess.run(tf.assign(w, tf.zeros([2, 3])))
        saver.save(sess, f"{tmp_path}/model")  # now it replaces it, and the dead save's files go
        assert [p.name for p in tmp_path.glob("model.data-*")] == ["model.data-00000-of-00001"]
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), np.zeros((2, 3)))


def test_a_default_saver_lists_the_graphs_variables_once_built(tmp_path):
    # TF1's Saver(var_list=None) fills _var_list with the graph's variables when it
    # builds (programs read it: easy-tensorflow's basics_save_and_restore.py).
    a = tf.get_variable("A", initializer=tf.constant(3, shape=[2]))
    b = tf.get_variable("B", initializer=tf.constant(5, shape=[3]))
    saver = tf.train.Saver()
    assert [v.name for v in saver._var_list] == ["A:0", "B:0"]
    deferred = tf.train.Saver(defer_build=True)
    assert deferred._var_list is None
    deferred.build()
    assert list(deferred._var_list) == [a, b]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "v"))
    with tf.Session() as sess:
        saver.restore(sess, path)
        assert sess.run(b).tolist() == [5, 5, 5]


def test_a_var_list_dict_saves_and_restores_under_its_own_names(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v1")
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = tf.train.Saver({"renamed": v}).save(sess, str(tmp_path / "model"))
    assert tf.train.list_variables(prefix) == [("renamed", [2])]
    with tf.Graph().as_default():
        other = tf.Variable([0.0, 0.0], name="other")
        with tf.Session() as sess:
            tf.train.Saver({"renamed": other}).restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(other), [1.0, 2.0])
