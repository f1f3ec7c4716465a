"""The cluster session's variable table: one object keeps a variable's value, home,
version and copy in step, and every change to them goes through it."""

import pytest
from distributed import Client, LocalCluster

from daskflow.runtime.cluster.held import Held
from daskflow.runtime.cluster.variables import Copy, VariableTable


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture
def futures(client):
    # Fresh keys per test: a key released by the previous test must not be reused.
    values = [(1.0, 2.0), (3.0, 4.0), 9.0, 7.0]
    return dict(zip(["t1", "t2", "c", "d"], client.scatter(values, hash=False)))


def test_a_rolled_back_step_leaves_the_values_as_before_and_forgets_what_it_created(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["c"])}, {"a": "ps-0"})
    change = table.change(["a", "b"])
    assert change.created == ("b",)
    table.commit({"a": Held(futures["t1"], 0), "b": Held(futures["t1"], 1)}, {"a": "ps-0", "b": "ps-0"})
    table.roll_back([change])
    assert table.values == {"a": Held(futures["c"])}


def test_commit_names_the_values_it_replaced_and_the_tuples_that_lost_an_item(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["t1"], 0), "b": Held(futures["t1"], 1)}, {"a": "ps-0", "b": "ps-0"})
    replaced, superseded = table.commit({"a": Held(futures["t2"], 0)}, {"a": "ps-1"})
    assert replaced == [Held(futures["t1"], 0)]
    assert superseded == {futures["t1"].key}
    assert table.homes == {"a": "ps-1", "b": "ps-0"}


def test_unshare_takes_the_items_left_out_of_a_superseded_tuple(client, futures):
    table = VariableTable()
    table.commit({"a": Held(futures["t1"], 0), "b": Held(futures["t1"], 1)}, {})
    _, superseded = table.commit({"a": Held(futures["c"])}, {})
    table.unshare(client, superseded)
    b = table.values["b"]
    assert b.index is None and b.future.key != futures["t1"].key
    assert b.future.result() == 2.0


def test_a_variable_is_stale_until_a_copy_of_its_newest_value_is_kept(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["c"])}, {"a": "ps-0"})
    assert table.stale() == ["a"]
    table.finished(["a"], 5, {"a": futures["d"]})
    assert table.stale() == [] and table.copies["a"] == Copy(futures["d"], 5)
    table.finished(["a"], 6, {})  # updated by a step that made no copy
    assert table.stale() == ["a"]


def test_a_copy_is_kept_only_of_the_current_value_and_never_replaces_a_newer_one(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["c"])}, {})
    current = table.values["a"].ident
    assert not table.offer_copy("a", Copy(futures["d"], 3), ident=(futures["t1"].key, 0))
    assert table.offer_copy("a", Copy(futures["d"], 3), ident=current)
    assert not table.offer_copy("a", Copy(futures["t2"], 2), ident=current)
    assert table.copies["a"] == Copy(futures["d"], 3)
    assert not table.offer_copy("gone", Copy(futures["d"], 9), ident=current)


def test_falling_back_makes_the_copy_the_value_and_counts_the_steps_lost(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["c"]), "b": Held(futures["t1"], 0)}, {"a": "ps-0", "b": "ps-0"})
    table.finished(["a", "b"], 10, {"a": futures["d"], "b": futures["t2"]})
    table.finished(["a"], 14, {})
    assert table.fall_back(["a", "b"], {"a": "worker-0", "b": "worker-1"}) == 4
    assert table.values == {"a": Held(futures["d"]), "b": Held(futures["t2"])}
    assert table.copies == {}  # the next update, or the next flush, makes a new copy
    assert table.homes == {"a": "worker-0", "b": "worker-1"}  # where the copies were
    assert sorted(table.stale()) == ["a", "b"]


def test_a_restored_checkpoint_drops_the_copies_of_older_values(futures):
    table = VariableTable()
    table.commit({"a": Held(futures["c"])}, {"a": "ps-0"})
    table.finished(["a"], 3, {"a": futures["d"]})
    table.restored({"a": futures["t1"]}, {"a": "ps-1"})
    assert table.values["a"] == Held(futures["t1"])
    assert "a" not in table.copies and "a" not in table.versions and table.homes["a"] == "ps-1"
    assert table.stale() == ["a"]
