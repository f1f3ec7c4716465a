"""tf.TensorArray, map_fn, scan, foldl, foldr, dynamic_rnn and
bidirectional_dynamic_rnn: values, gradients and variable names against TF1's
own (``tests/fixtures/make_map_scan_rnn.py`` ran TF1's control flow and stored
``map_scan_rnn.json``), and errors."""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
from daskflow.ops.higher_order_ops import foldl, foldr, map_fn, scan
from daskflow.ops.tensor_array_ops import TensorArray
from daskflow.rnn.dynamic import bidirectional_dynamic_rnn, dynamic_rnn

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_map_scan_rnn as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "map_scan_rnn.json").read_text())
OPS = dict(
    TensorArray=TensorArray,
    map_fn=map_fn,
    scan=scan,
    foldl=foldl,
    foldr=foldr,
    dynamic_rnn=dynamic_rnn,
    bidirectional_dynamic_rnn=bidirectional_dynamic_rnn,
)


def _close(mine, theirs):
    if isinstance(theirs, dict):
        assert mine.keys() == theirs.keys()
        for k in theirs:
            _close(mine[k], theirs[k])
    elif isinstance(theirs, list) and any(isinstance(t, (list, dict)) for t in theirs):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            _close(a, b)
    elif isinstance(theirs, list) and theirs and all(isinstance(t, str) for t in theirs):
        assert mine == theirs  # variable names
    else:
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_tensor_array_values_and_gradients_match_tf1():
    _close(sc.tensor_array_values(tf, OPS), TF1["tensor_array"])


def test_map_fn_scan_and_folds_match_tf1():
    _close(sc.map_scan_values(tf, OPS), TF1["map_scan"])


@pytest.fixture(scope="module")
def rnn_values():
    return sc.rnn_values(tf, OPS)


@pytest.mark.parametrize("case", ["plain", "lengths", "short", "time_major", "pair"])
def test_dynamic_rnn_matches_tf1(rnn_values, case):
    # values and gradients, the static output shape and the variables' names
    _close(rnn_values[case], TF1["rnn"][case])


def test_bidirectional_dynamic_rnn_matches_tf1():
    _close(sc.bidirectional_values(tf, OPS), TF1["bidirectional"])


def test_dynamic_rnn_runs_the_library_cells_as_tf1_does():
    _close(sc.library_cell_values(tf, OPS), TF1["library_cells"])


def test_bad_builds_raise_what_tf1_raises():
    assert sc.build_errors(tf, OPS) == TF1["build_errors"]


def test_reading_past_the_end_names_the_read():
    assert sc.read_out_of_range(tf, OPS) == tuple(TF1["read_out_of_range"])


# -- daskflow-only checks: unknown batch sizes, and error messages naming the culprit ------------


def test_unknown_batch_and_length_give_tf1s_values():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable([0.5, -0.25, 1.5], dtype=tf.float32)
        squares = map_fn(lambda r: tf.reduce_sum(r * r * w), x)
        cums = scan(lambda a, r: a * w + r, x)
        assert squares.shape.as_list() == [None] and cums.shape.as_list() == [None, 3]
        got = sc._run(tf, [squares, cums], {x: sc.X})
    _close(got, [TF1["map_scan"][0], TF1["map_scan"][3]])


@pytest.mark.parametrize("case", ["plain", "lengths"])
def test_dynamic_rnn_with_an_unknown_batch_size(case):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 2])
        lengths = tf.placeholder(tf.int32, [None]) if case == "lengths" else None
        outputs, state = dynamic_rnn(sc.ElmanCell(tf, 3), x, sequence_length=lengths, dtype=tf.float32)
        assert outputs.shape.as_list() == [None, None, 3] and state.shape.as_list() == [None, 3]
        feeds = {x: sc.SEQ, **({lengths: [4, 1, 3]} if lengths is not None else {})}
        got = sc._run(tf, [outputs, state], feeds)
    _close(got, TF1["rnn"][case]["values"][:2])


def test_map_fn_errors_name_the_elems():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="not scalars.*scalar_elems"):
            map_fn(lambda v: v, tf.constant(1.0, name="scalar_elems"))
        with pytest.raises(ValueError, match="first dimensions: a:0 has 3 and b:0 has 2"):
            map_fn(lambda e: e[0], (tf.zeros([3], name="a"), tf.zeros([2], name="b")))
        with pytest.raises(ValueError, match="map_fn: the structures differ"):
            map_fn(lambda e: e[0], (tf.zeros([2]), tf.zeros([2])))


def test_writing_the_wrong_dtype_or_shape_names_the_value():
    with tf.Graph().as_default():
        ta = TensorArray(tf.float32, size=2)
        with pytest.raises(TypeError, match="TensorArray dtype is float32 but ints:0"):
            ta.write(0, tf.constant([1, 2], name="ints"))
        ta = ta.write(0, tf.zeros([2]))
        with pytest.raises(ValueError, match="saw \\(3,\\) but expected \\(2,\\).*wide:0"):
            ta.write(1, tf.zeros([3], name="wide"))
        with pytest.raises(ValueError, match="size"):
            TensorArray(tf.float32)


def _run_error(fetch):
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(fetch)
    return str(info.value)


def test_run_time_errors_name_the_tensor_array_op():
    with tf.Graph().as_default():
        ta = TensorArray(tf.float32, size=2)
        _, over = tf.while_loop(
            lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, 1.0, name="fill")), [0, ta]
        )
        assert "fill" in _run_error(over.stack())
        assert "array is not resizeable and size is: 2" in _run_error(over.stack())
        message = _run_error(TensorArray(tf.float32, size=3).stack(name="nothing_written"))
        assert "nothing_written" in message and "no element has been written" in message
        read = TensorArray(tf.float32, size=2).write(0, [1.0]).read(-1, name="negative")
        assert "negative" in _run_error(read) and "index -1" in _run_error(read)


def test_a_dynamic_size_array_grows_in_a_loop_and_reports_its_size():
    with tf.Graph().as_default():
        ta = TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, tf.stack([i, i * i]))), [0, ta]
        )
        values, size = sc._run(tf, [ta.stack(), ta.size()])
    assert values == [[0, 0], [1, 1], [2, 4], [3, 9]] and size == 4


def test_rnn_cell_protocol_is_checked():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="'cell'.*'output_size' property is missing"):
            dynamic_rnn(object(), tf.zeros([3, 2, 2]), dtype=tf.float32)
        with pytest.raises(ValueError, match="you must give a dtype"):
            dynamic_rnn(sc.ElmanCell(tf, 2), tf.zeros([3, 2, 2]))
        with pytest.raises(ValueError, match="at least rank 3.*flat:0"):
            dynamic_rnn(sc.ElmanCell(tf, 2), tf.zeros([3, 2], name="flat"), dtype=tf.float32)


def test_an_rnn_runs_inside_one_task_on_a_cluster():
    with tf.local_cluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3, 4, 2])
            setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")
            with tf.device(setter):  # variables made in the loop body go to the ps
                outputs, state = dynamic_rnn(
                    sc.ElmanCell(tf, 3), x, sequence_length=[4, 1, 3], dtype=tf.float32
                )
                grads = tf.gradients(tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state), [x])
            with tf.Session(cluster) as sess:
                sess.run(tf.global_variables_initializer())
                got = sess.run([outputs, state, grads], {x: sc.SEQ})
                placed = sess.placement([outputs, grads[0]], {x: sc.SEQ})
                kernel = tf.global_variables()[0]
                assert sess.placement([kernel])[kernel.op.name].worker == "ps-0"
    _close(sc._plain(got), TF1["rnn"]["lengths"]["values"][:2] + [TF1["rnn"]["lengths"]["values"][2][:1]])
    loops = [where for name, where in placed.items() if name.endswith(("While", "WhileGrad"))]
    assert sorted(w.worker for w in loops) == ["worker-0", "worker-0"]
