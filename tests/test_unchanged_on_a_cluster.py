"""An unchanged TF1 program on a cluster: its ``tf.Session()`` finds the cluster through the
configuration (``daskflow.session-target``), and its relative file paths lead where the
program runs, as they do embedded, though its reading and writing ops run in worker
processes started in another folder.

The cluster's worker processes start in the suite's folder; each test then moves this
process into a fresh one (``monkeypatch.chdir``), as a user's ``python train.py`` runs in
its own project folder while ``dask worker`` was started elsewhere. Where the workers
resolved paths against their own folder, the files were written there (and the saves and
reads below failed).
"""

# beside the clusters: one cluster of this module's, no timings, no fixed port

from __future__ import annotations

import json
import os
import sys

import dask
import numpy as np
import pytest

import daskflow as tf
from tests.clusters import module_cluster
from tests.conformance import __main__ as driver
from tests.conformance import compare

cluster = module_cluster(ps=1, workers=1, threads_per_worker=2)
threads = module_cluster("threads", ps=0, workers=1, processes=False)  # workers see this config


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """This process in a fresh folder of its own, the workers' folder noted to check after."""
    workers_cwd = os.getcwd()
    workers_folder = set(os.listdir(workers_cwd))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    assert set(os.listdir(workers_cwd)) == workers_folder  # nothing landed there


def test_a_session_without_a_target_runs_on_the_configured_cluster(cluster):
    with tf.Graph().as_default():
        total = tf.Variable(0.0, name="total")
        step = total.assign_add(1.0)
        with tf.Session() as sess:
            assert sess.runtime.client is None  # nothing configured: in this process, as TF1's
        with dask.config.set({"daskflow.session-target": cluster.scheduler_address}):
            with tf.Session() as sess:
                sess.run(total.initializer)
                sess.run(step)
                assert sess.runtime.client is not None
                assert {w.worker for w in sess.placement(step).values()} == {"worker-0"}
            seen = _SessionSeen()
            with tf.train.MonitoredTrainingSession(hooks=[seen]) as sess:
                assert sess.run(step) == 1.0
            assert seen.client is not None


class _SessionSeen(tf.train.SessionRunHook):
    def after_create_session(self, session, coord):
        self.client = session.runtime.client


def test_daskflows_own_sessions_stay_in_their_process_whatever_is_configured(threads):
    # A dataset function runs in a session of its own, on the worker: with the target
    # configured where the worker could read it, it would open a client of its own there.
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            ds = tf.data.Dataset.range(4).map(lambda x: x * 2).filter(lambda x: x > 2)
            got = ds.batch(4).make_one_shot_iterator().get_next()
        with dask.config.set({"daskflow.session-target": threads.scheduler_address}):
            assert tf.Session(None).runtime.client is None
            with tf.Session() as sess:
                assert sess.runtime.client is not None
                assert list(sess.run(got)) == [4, 6]


def test_an_unreachable_configured_cluster_is_named_by_the_session(cluster):
    with tf.Graph().as_default(), dask.config.set({"daskflow.session-target": "tcp://127.0.0.1:1"}):
        with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
            with pytest.raises(tf.errors.UnavailableError, match="tcp://127.0.0.1:1"):
                tf.Session()


def _lines(path, rows):
    path.write_text("".join(f"{a},{b}\n" for a, b in rows))


def test_a_saver_writes_and_restores_relative_paths_in_the_programs_folder(cluster, elsewhere):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver()
        with tf.Session(cluster) as sess:
            sess.run(v.initializer)
            prefix = saver.save(sess, "./model/m.ckpt", global_step=3)
            assert prefix == "./model/m.ckpt-3"  # as given, as TF1 returns it
            assert (elsewhere / "model" / "m.ckpt-3.index").is_file()
            assert tf.train.latest_checkpoint("./model") == os.path.join("./model", "m.ckpt-3")
            sess.run(v.assign([5.0, 6.0]))
            saver.restore(sess, "./model/m.ckpt-3")
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


def test_a_reader_on_a_worker_reads_a_relative_file_of_a_queue_runners_filename_queue(cluster, elsewhere):
    _lines(elsewhere / "scores.csv", [(1, 10), (2, 20), (3, 30)])
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            names = tf.train.string_input_producer(["scores.csv"], shuffle=False, num_epochs=1)
            _, line = tf.TextLineReader().read(names)
            a, b = tf.decode_csv(line, record_defaults=[[0], [0]])
            batch = tf.train.batch([a, b], batch_size=3)
        with tf.Session(cluster) as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            first, second = sess.run(batch)
            coord.request_stop()
            coord.join(threads)
    np.testing.assert_array_equal(first, [1, 2, 3])
    np.testing.assert_array_equal(second, [10, 20, 30])


def test_datasets_read_file_and_list_files_on_a_worker_take_relative_names(cluster, elsewhere):
    (elsewhere / "data").mkdir()
    _lines(elsewhere / "data" / "a.csv", [(1, 2)])
    _lines(elsewhere / "data" / "b.csv", [(3, 4)])
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            listed = tf.data.Dataset.list_files("data/*.csv", shuffle=False)
            names = listed.batch(2).make_one_shot_iterator().get_next()
            lines = tf.data.TextLineDataset(["data/a.csv", "data/b.csv"]).batch(2)
            text = lines.make_one_shot_iterator().get_next()
            whole = tf.read_file("data/b.csv")
        with tf.Session(cluster) as sess:
            got_names, got_text, got_whole = sess.run([names, text, whole])
    assert list(got_names) == [b"data/a.csv", b"data/b.csv"]  # the pattern's form, as embedded
    assert list(got_text) == [b"1,2", b"3,4"]
    assert got_whole == b"3,4\n"


def test_a_missing_relative_file_is_named_as_the_program_gave_it_and_changes_nothing(cluster, elsewhere):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:0"):
            whole = tf.read_file("absent.txt")
            with tf.control_dependencies([whole]):
                step = v.assign_add(1.0)
        with tf.Session(cluster) as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.NotFoundError, match="absent.txt"):
                sess.run(step)
            assert sess.run(v) == 1.0


# Corpus programs (unchanged but for imports and data paths) that read files through queue
# runners and save checkpoints under relative paths: each failed on a cluster before.
FILE_PROGRAMS = [
    "corpus/chiphuyen_stanford_tensorflow_tutorials/y2017_05_csv_reader.py",
    "corpus/golbin_tensorflow_tutorials/ch05_01_saver.py",
    "heldout/binroot_tensorflow_book/ch02_concept10_queue_text.py",
]


def test_corpus_programs_reading_and_saving_files_run_unchanged_on_the_cluster(cluster, monkeypatch):
    """The programs' ``tf.Session()`` opens on the cluster through the environment, as
    ``python -m tests.conformance --cluster`` runs the corpus; each lands within TF1's spread."""
    monkeypatch.setenv("DASK_DASKFLOW__SESSION_TARGET", cluster.scheduler_address)
    found = {}
    driver.run_all(FILE_PROGRAMS, "daskflow", [0], sys.executable, 1, found.__setitem__)
    oracle = json.loads(driver.ORACLE.read_text())
    for program in FILE_PROGRAMS:
        (run,) = found[program]
        assert run["status"] == "ok", (program, run.get("where"), run.get("error"))
        assert compare.verdict(oracle[program], run) == "matches", (program, run["result"])
