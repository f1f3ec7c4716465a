"""The store of a between-graph job's variables on a worker (runtime/worker/between_graph.py)."""

import time

import numpy as np
import pytest

from daskflow.errors import FailedPreconditionError, InvalidArgumentError
from daskflow.runtime.worker.between_graph import Definition, SharedVariables

W = Definition((2,), "float32", "ps-0")


def test_writes_count_versions_and_reads_see_the_newest():
    store = SharedVariables()
    store.define("job", {"w": W})
    with pytest.raises(FailedPreconditionError, match="uninitialized value w"):
        store.read("job", "w", required=True)
    store.write("job", {"w": np.zeros(2, np.float32)})
    store.write("job", {"w": np.ones(2, np.float32)})
    assert store.version("job", "w") == 2
    np.testing.assert_array_equal(store.read("job", "w", required=True), [1, 1])
    assert store.read("other job", "w", required=False) is None  # jobs never meet


def test_a_different_definition_names_the_variable_and_records_nothing():
    store = SharedVariables()
    store.define("job", {"w": W})
    with pytest.raises(InvalidArgumentError, match=r"Variable w is defined with shape \(3,\)"):
        store.define("job", {"a": W, "w": Definition((3,), "float32", "ps-0")})
    store.define("job", {"a": Definition((9,), "int32", "ps-0")})  # "a" was not recorded then
    with pytest.raises(InvalidArgumentError, match="Variable a .*dtype 'float32' where .* 'int32'"):
        store.define("job", {"a": Definition((9,), "float32", "ps-0")})


def test_staleness_counts_the_updates_since_the_versions_a_step_read():
    store = SharedVariables()
    store.write("job", {"w": np.zeros(2)})
    store.read_many("job", ["w"], step=7)  # step 7 read version 1
    store.write("job", {"w": np.ones(2)})
    store.write("job", {"w": np.ones(2)})
    assert store.staleness("job", 7, ["w"]) == 2
    assert store.staleness("job", 7, ["w"]) == 0  # forgotten once taken
    assert store.staleness("job", 8, ["w"]) == 0  # read nothing elsewhere


def test_copies_keep_the_newest_and_restore_only_an_empty_job():
    source = SharedVariables()
    source.write("job", {"w": np.zeros(2)})
    old = source.snapshot("job")
    source.write("job", {"w": np.ones(2)})
    new = source.snapshot("job")
    keeper = SharedVariables()
    keeper.keep_copy("job", "ps-0", new)
    keeper.keep_copy("job", "ps-0", old)  # an older copy arriving late is not kept
    assert keeper.copies[("job", "ps-0")].updates() == 2
    restarted = SharedVariables()
    assert restarted.restore("job", keeper.copies[("job", "ps-0")])
    np.testing.assert_array_equal(restarted.read("job", "w", required=True), [1, 1])
    assert restarted.version("job", "w") == 2
    assert not restarted.restore("job", old)  # another client restored it first: left alone
    np.testing.assert_array_equal(restarted.read("job", "w", required=True), [1, 1])


def test_a_copy_is_due_once_the_interval_has_passed():
    store = SharedVariables()
    assert not store.copy_due("job", 0, "w1")  # off
    for _ in range(4):  # past the early copies (1st, 2nd and 4th updates), see below
        store.copy_due("job", 60, "w1")
    assert not store.copy_due("job", 60, "w1")  # the 5th
    time.sleep(0.01)
    assert store.copy_due("job", 1e-3, "w1")
    assert not store.copy_due("job", 60, "w1")  # the clock started again


def test_the_early_updates_and_a_new_copy_holder_make_a_copy_due():
    store = SharedVariables()
    due = [n for n in range(1, 20) if store.copy_due("job", 60, "w1")]
    assert due == [1, 2, 4, 8, 16]  # a ps lost early loses under half its updates
    assert store.copy_due("job", 60, "w2")  # the worker holding the copies changed
    assert not store.copy_due("job", 60, "w2")


def test_drop_forgets_values_and_copies():
    store = SharedVariables()
    store.write("job", {"w": np.zeros(2)})
    store.keep_copy("job", "ps-0", store.snapshot("job"))
    store.drop("job")
    assert store.names("job") == [] and store.copies == {}


def test_a_retired_job_takes_no_values_from_an_update_still_running():
    """A session's own job, retired as the session leaves: an update that was in flight writes
    nowhere (it used to give the job its variables back after the drop, for good)."""
    store = SharedVariables()
    store.write("session-a", {"w": np.ones(2, np.float32)})
    store.write("other", {"w": np.ones(2, np.float32)})
    store.retire("session-a")
    store.write("session-a", {"w": np.zeros(2, np.float32)})
    assert store.names("session-a") == [] and "session-a" not in store.jobs()
    assert store.names("other") == ["w"]
    store.keep_copy("session-a", "ps-0", store.snapshot("other"))  # a backup copy arriving late
    assert store.copies == {}
