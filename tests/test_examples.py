"""``tf.train.Example`` protos and TF1's parsing functions against what TensorFlow wrote
and answered (``tests/fixtures/make_tf_examples.py`` made ``tests/fixtures/tf_examples/``):
the protos' bytes, the values, dtypes and static shapes of ``parse_example``,
``parse_single_example``, ``parse_single_sequence_example`` and ``parse_sequence_example``,
and the type and message of each error."""

import base64
import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import daskflow as tf
from tests.fixtures import feature_specs

HERE = pathlib.Path(__file__).resolve().parent / "fixtures" / "tf_examples"
ANSWERS = json.loads((HERE / "answers.json").read_text())
RECORDS = dict(zip(ANSWERS["records"], tf.python_io.tf_record_iterator(str(HERE / "records.tfrecord"))))
CASES = {c["case"]: c for c in ANSWERS["cases"]}
# Where daskflow's message says more than TF's, it still names the feature:
# TF's single-example path reports an empty list as "Some int64_list slice was not parsed"
# (the batch path: the count of values); TF's SparseFeature error names no feature.
OWN_MESSAGES = {"err_empty_list", "err_sparse_lengths"}


pytestmark = pytest.mark.usefixtures("fresh_graph")


def specs(raw):
    return feature_specs.specs(raw, tf)


def serialized(names):
    return [RECORDS[n] if isinstance(n, str) else base64.b64decode(n["raw"]) for n in names]


def build(case):
    data = serialized(case["examples"])
    fn = case["function"]
    if fn == "parse_single_example":
        return tf.parse_single_example(data[0], specs(case["features"]))
    if fn == "parse_example":
        return tf.parse_example(data, specs(case["features"]))
    if fn == "parse_single_sequence_example":
        return tf.io.parse_single_sequence_example(data[0], specs(case["context"]), specs(case["sequence"]))
    return tf.io.parse_sequence_example(data, specs(case["context"]), specs(case["sequence"]))


def static(t):
    if isinstance(t, tf.SparseTensor):
        return {"sparse": [static(t.indices), static(t.values), static(t.dense_shape)]}
    return {"dtype": t.dtype.name, "shape": t.shape.as_list() if t.shape.ndims is not None else None}


def decoded(answer):
    if "sparse" in answer:
        return tf.SparseTensorValue(*(decoded(a) for a in answer["sparse"]))
    if answer["dtype"] == "object":
        values = np.empty(len(answer["data"]), dtype=object)
        values[:] = [base64.b64decode(v) for v in answer["data"]]
    else:
        values = np.array(answer["data"], dtype=answer["dtype"])
    return values.reshape(answer["shape"])


def over(fn, ours, theirs):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            fn(ours[key], theirs[key], key)
    else:
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            over(fn, o, t)


def same_value(ours, theirs, key):
    theirs = decoded(theirs)
    if isinstance(theirs, tf.SparseTensorValue):
        for o, t in zip(ours, theirs):
            _same_array(o, t, key)
    else:
        _same_array(ours, theirs, key)


def _same_array(ours, theirs, key):
    ours = np.asarray(ours, dtype=object if isinstance(ours, bytes) else None)  # a scalar string
    assert ours.dtype == theirs.dtype, key
    assert ours.shape == theirs.shape, key
    assert ours.tolist() == theirs.tolist(), key


def same_static(ours, theirs, key):
    assert static(ours) == theirs, key


RUNS = [c for c in CASES.values() if "graph_error" not in c]


@pytest.mark.parametrize("case", RUNS, ids=lambda c: c["case"])
def test_parsing_gives_tfs_values_dtypes_and_static_shapes(case):
    with tf.Graph().as_default():
        outputs = build(case)
        over(same_static, outputs, case["static"])
        with tf.Session() as sess:
            if "error" in case:
                kind, message = case["error"]
                with pytest.raises(getattr(tf.errors, kind)) as raised:
                    sess.run(outputs)
                if case["case"] in OWN_MESSAGES:
                    assert case["features"] and all(key in raised.value.message for key in case["features"])
                else:
                    assert raised.value.message == message
                return
            over(same_value, sess.run(outputs), case["values"])


@pytest.mark.parametrize("case", [c for c in CASES.values() if "graph_error" in c], ids=lambda c: c["case"])
def test_bad_specs_are_refused_as_tf_refuses_them_naming_the_feature(case):
    kind, _ = case["graph_error"]
    with (
        tf.Graph().as_default(),
        pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[kind]) as raised,
    ):
        build(case)
    features = case.get("features") or case.get("sequence") or {}
    assert all(key in str(raised.value) for key in features)


def _feature(values):
    if isinstance(values, tuple):
        kind, values = values
    else:
        kind = (
            "bytes" if isinstance(values[0], bytes) else "float" if isinstance(values[0], float) else "int64"
        )
    if kind == "bytes":
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def test_protos_read_tfs_bytes_and_write_what_tf_reads():
    ours = tf.train.Example(
        features=tf.train.Features(
            feature={"age": _feature([41]), "tags": _feature([b"c"]), "seq": _feature([5.0, 6.0])}
        )
    )
    theirs = tf.train.Example.FromString(RECORDS["sparse"])
    assert theirs.features.feature["age"].int64_list.value == [41]
    assert {k: theirs.features.feature[k] for k in ours.features.feature} == dict(ours.features.feature)
    sequence = tf.train.SequenceExample.FromString(RECORDS["seq_short"])
    assert sequence.feature_lists.feature_list["frames"].feature[0].float_list.value == [9.0, 8.0]
    assert tf.train.SequenceExample.FromString(sequence.SerializeToString()) == sequence
    from daskflow.core.example import example_pb2, feature_pb2

    assert example_pb2.Example is tf.train.Example and feature_pb2.Feature is tf.train.Feature
    assert type(ours).DESCRIPTOR.full_name == "tensorflow.Example"


def test_a_tfrecord_dataset_of_examples_parses_in_batches():
    dataset = tf.data.TFRecordDataset(str(HERE / "records.tfrecord")).take(2).batch(2)
    spec = {"age": tf.FixedLenFeature([], tf.int64, -1), "tags": tf.VarLenFeature(tf.string)}
    batch = dataset.map(lambda records: tf.parse_example(records, spec)).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = sess.run(batch)
    assert out["age"].tolist() == [29, 41]
    assert out["tags"].values.tolist() == [b"a", b"b", b"c"]
    assert out["tags"].dense_shape.tolist() == [2, 2]


def test_a_bad_record_names_the_example_given_in_example_names():
    spec = {"age": tf.FixedLenFeature([], tf.int64)}
    parsed = tf.parse_example([RECORDS["full"], RECORDS["empty"]], spec, example_names=["first", "second"])
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match="Name: second, Feature: age"),
    ):
        sess.run(parsed)


_NUMERIC = {"a": tf.FixedLenFeature([3], tf.float32, [0.5, 1.5, 2.5]), "b": tf.FixedLenFeature([2], tf.int64)}
_INT64 = st.integers(-(2**63), 2**63 - 1)


@st.composite
def _records(draw):
    """Serialized Examples whose numeric features are right, missing, of another length or
    type, or bytes that are no Example at all."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()) and draw(st.booleans()):
            out.append(draw(st.binary(max_size=40)))
            continue
        feature = {"b": _feature(("int64", draw(st.lists(_INT64, min_size=1, max_size=3))))}
        a = draw(st.sampled_from(["right", "missing", "short", "ints"]))
        if a != "missing":
            values = [1.0, -2.0, 3.25] if a == "right" else [1.0]
            feature["a"] = _feature(values) if a != "ints" else _feature(("int64", [1, 2, 3]))
        out.append(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())
    return out


def _parsed(records):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            return sess.run(tf.parse_example(records, _NUMERIC))
        except tf.errors.InvalidArgumentError as e:
            return type(e)


@settings(max_examples=60, deadline=None)
@given(records=_records())
def test_dense_features_read_in_place_match_protobufs_parse(records):
    from daskflow.kernels.compiled import use_compiled

    in_place = _parsed(records)
    with use_compiled(False):  # protobuf's path only
        parsed = _parsed(records)
    if isinstance(parsed, dict):
        assert isinstance(in_place, dict)
        for key in parsed:
            assert in_place[key].dtype == parsed[key].dtype
            np.testing.assert_array_equal(in_place[key], parsed[key])
    else:
        assert in_place is parsed


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _entry(key, feature_bytes):
    body = b"\x0a" + _varint(len(key)) + key + b"\x12" + _varint(len(feature_bytes)) + feature_bytes
    return b"\x0a" + _varint(len(body)) + body


def _example_of(*entries):
    features = b"".join(entries)
    return b"\x0a" + _varint(len(features)) + features


_GOOD_A = _entry(b"a", b"\x12\x0e\x0a\x0c" + np.array([1, 2, 3], "<f4").tobytes())
HOSTILE = {
    "negative length": b"\x12" + _varint(-11),
    "huge length": b"\x12" + _varint(2**62) + b"xx",
    "varint cut short": b"\x0a\xff",
    "eleven-byte varint": b"\x0a" + b"\xff" * 10 + b"\x01",
    "field number 0": b"\x02\x00",
    "fixed64 past the end": b"\x09\x01\x02",
    "negative entry length": b"\x0a\x0c\x0a" + _varint(-3),
    "int64 varint past its list": _example_of(_GOOD_A, _entry(b"b", b"\x1a\x04\x0a\x02\x80\x80")),
    "int64 list of three": _example_of(_GOOD_A, _entry(b"b", b"\x1a\x05\x0a\x03\x01\x02\x03")),
    "unpacked floats": _example_of(
        _entry(b"a", b"\x12\x0f" + b"".join(b"\x0d" + np.float32(v).tobytes() for v in (1, 2, 3))),
        _entry(b"b", b"\x1a\x04\x0a\x02\x01\x02"),
    ),
    "right": _example_of(_GOOD_A, _entry(b"b", b"\x1a\x04\x0a\x02\x01\x7f")),
}


@pytest.mark.parametrize("record", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hand_made_records_read_in_place_as_protobuf_reads_them(record):
    from daskflow.kernels.compiled import use_compiled

    in_place = _parsed([record, record])
    with use_compiled(False):
        parsed = _parsed([record, record])
    if isinstance(parsed, dict):
        assert isinstance(in_place, dict)
        for key in parsed:
            np.testing.assert_array_equal(in_place[key], parsed[key])
    else:
        assert in_place is parsed
    assert isinstance(in_place, dict) == (record in (HOSTILE["right"], HOSTILE["unpacked floats"]))
