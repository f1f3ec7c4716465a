"""The dashboard's Groups page keeps daskflow's layout while a session is open
(daskflow/dashboard/groups.py), on a scheduler that does not preload the dashboard too."""

import subprocess
import sys
import textwrap

from daskflow.dashboard import groups

# In a fresh process, so that nothing has imported daskflow.dashboard before the session.
# beside the clusters: no timings checked and no fixed port bound (free ports only)

SCRIPT = textwrap.dedent(
    """
    import sys
    from distributed.dashboard.components.scheduler import TaskGroupGraph
    import daskflow as tf

    def layout():
        groups = sys.modules.get("daskflow.dashboard.groups")
        return groups is not None and TaskGroupGraph.update_layout is groups.group_layout

    if __name__ == "__main__":
        with tf.local_cluster(ps=0, workers=1, processes=False, dashboard_page=False) as cluster:
            preloads = [p.name for p in cluster.scheduler.preloads]
            before = layout()
            with tf.Session(cluster) as sess:
                value = sess.run(tf.constant([1.0, 2.0]) * 2).tolist()
                during = layout()
            print(preloads, before, value, during, layout(), sep="|")
    """
)


def test_a_scheduler_without_the_dashboard_preload_lays_groups_out_during_a_session(tmp_path):
    script = tmp_path / "groups_page.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    preloads, before, value, during, after = done.stdout.strip().splitlines()[-1].split("|")
    assert "daskflow.dashboard" not in preloads
    assert value == "[2.0, 4.0]"
    # Not before the session, during it, and Dask's own once the last session closed.
    assert (before, during, after) == ("False", "True", "False")


def test_the_layout_places_each_group_after_those_it_depends_on():
    order = groups.groups_in_order(
        {"worker_0 step": {"ps_0 values"}, "ps_0 values": {"var-w"}, "var-w": set(), "a": {"b"}, "b": {"a"}}
    )
    assert order.index("var-w") < order.index("ps_0 values") < order.index("worker_0 step")
    assert sorted(order) == sorted(["worker_0 step", "ps_0 values", "var-w", "a", "b"])  # a cycle broken
