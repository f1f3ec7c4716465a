"""``daskflow launch``: one real process per TF1 task, on 127.0.0.1.

The scripts the tests launch are tiny and do not use daskflow: they print
their flags, ``TF_CONFIG`` and the scheduler address, parameter servers
sleep as ``server.join()`` would, and the chief ends after a moment.
"""

import json
import os
import queue
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

import daskflow
from daskflow.cli import cli, main
from daskflow.launcher import cluster_dict, launch, task_argv, tf_config

REPO = Path(__file__).resolve().parent.parent

# Every task prints who it is; parameter servers start a grandchild and sleep
# forever; worker 1 connects to the scheduler; the chief ends after a moment.
TASK_SCRIPT = """
import json, os, subprocess, sys, time
task = json.loads(os.environ["TF_CONFIG"])["task"]
job, index = task["type"], task["index"]
print("argv", json.dumps(sys.argv[1:]))
print("tf_config", os.environ["TF_CONFIG"])
print("scheduler", os.environ["DASK_SCHEDULER_ADDRESS"])
print("pid", os.getpid())
print(job, index, "x" * 3000)  # long lines from several tasks at once
if job == "ps":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print("grandchild", child.pid)
    time.sleep(600)
if (job, index) == ("worker", 1):
    from distributed import Client
    with Client(os.environ["DASK_SCHEDULER_ADDRESS"], timeout=30) as client:
        print("dask workers", len(client.scheduler_info()["workers"]))
        print("scheduler pid", client.run_on_scheduler(os.getpid))
    sys.exit(3)
time.sleep(1)
"""


def write_script(tmp_path, text, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def lines_of(out, name):
    prefix = f"[{name}] "
    return [line[len(prefix) :] for line in out.splitlines() if line.startswith(prefix)]


def printed(out, name, key):
    """The value task ``name`` printed after ``key``."""
    (value,) = [line[len(key) + 1 :] for line in lines_of(out, name) if line.startswith(key + " ")]
    return value


# ------------------------------------------------------------------ helpers


def test_cluster_dict_gives_ports_to_ps_then_workers_then_the_chief():
    assert cluster_dict(1, 2, ports=[41001, 41002, 41003]) == {
        "ps": ["127.0.0.1:41001"],
        "worker": ["127.0.0.1:41002", "127.0.0.1:41003"],
    }
    assert cluster_dict(0, 1, chief=True, host="10.0.0.5", ports=[7, 8]) == {
        "ps": [],
        "worker": ["10.0.0.5:7"],
        "chief": ["10.0.0.5:8"],
    }


def test_cluster_dict_picks_distinct_ports_and_refuses_a_wrong_count():
    cluster = cluster_dict(2, 3, chief=True)
    addresses = [a for tasks in cluster.values() for a in tasks]
    assert len(set(addresses)) == 6 and all(a.startswith("127.0.0.1:") for a in addresses)
    with pytest.raises(ValueError, match="3 ports"):
        cluster_dict(1, 2, ports=[1, 2])


def test_tf_config_is_tf1s_format():
    cluster = {"ps": ["h:1"], "worker": ["h:2"]}
    assert json.loads(tf_config(cluster, "worker", 0)) == {
        "cluster": {"ps": ["h:1"], "worker": ["h:2"]},
        "task": {"type": "worker", "index": 0},
    }


def test_task_argv_puts_mnist_replica_flags_before_the_scripts_arguments():
    cluster = {"ps": ["h:1"], "worker": ["h:2", "h:3"], "chief": ["h:4"]}
    hosts = ["--ps_hosts=h:1", "--worker_hosts=h:2,h:3"]
    assert task_argv("py", "s.py", "worker", 1, cluster, script_args=["--a=1"]) == [
        "py",
        "s.py",
        "--job_name=worker",
        "--task_index=1",
        *hosts,
        "--a=1",
    ]
    assert task_argv("py", "s.py", "chief", 0, cluster)[2:] == ["--job_name=chief", "--task_index=0", *hosts]
    assert task_argv("py", "s.py", "evaluator", 0, cluster)[2:] == ["--job_name=evaluator", "--task_index=0"]
    assert task_argv("py", "s.py", "ps", 0, cluster, flags=False, script_args=["x"]) == ["py", "s.py", "x"]


@pytest.mark.parametrize(("kwargs", "name"), [({"ps": -1}, "ps"), ({"workers": 0}, "workers")])
def test_launch_refuses_impossible_clusters(tmp_path, kwargs, name):
    with pytest.raises(ValueError, match=name):
        launch(write_script(tmp_path, "pass"), **kwargs)


# --------------------------------------------------------------------- runs


@pytest.mark.process
def test_a_cluster_runs_until_the_chief_ends_and_leaves_no_process(tmp_path, capsys):
    script = write_script(tmp_path, TASK_SCRIPT)
    code = launch(script, ["--extra=1"], ps=1, workers=2, evaluator=True, grace=30)
    out, err = capsys.readouterr()
    assert code == 0  # the chief's (worker 0), not worker 1's 3

    names = ["ps-0", "worker-0", "worker-1", "evaluator-0"]
    task_line = re.compile(r"\[(ps-0|worker-[01]|evaluator-0)\] ")
    assert all(task_line.match(line) or line.startswith("[launcher] ") for line in out.splitlines())
    for name in names:  # each long line whole, under its own task's prefix
        job, index = name.split("-")
        assert f"{job} {index} {'x' * 3000}" in lines_of(out, name)

    flags = {name: json.loads(printed(out, name, "argv")) for name in names}
    ps_hosts = flags["ps-0"][2].removeprefix("--ps_hosts=").split(",")
    worker_hosts = flags["ps-0"][3].removeprefix("--worker_hosts=").split(",")
    assert flags["worker-1"] == ["--job_name=worker", "--task_index=1", *flags["ps-0"][2:4], "--extra=1"]
    assert flags["ps-0"][:2] == ["--job_name=ps", "--task_index=0"]
    assert flags["evaluator-0"] == ["--job_name=evaluator", "--task_index=0", "--extra=1"]
    for name in names:
        config = json.loads(printed(out, name, "tf_config"))
        assert config["cluster"] == {"ps": ps_hosts, "worker": worker_hosts}
        assert config["task"] == {"type": name.split("-")[0], "index": int(name.split("-")[1])}

    address = printed(out, "worker-0", "scheduler")
    assert address.startswith("tcp://127.0.0.1:")
    assert f"Dask scheduler {address}, dashboard http://127.0.0.1:" in out
    assert printed(out, "worker-1", "dask workers") == "0"
    assert "[launcher] worker-1 exited with code 3" in err

    pids = [int(printed(out, name, "pid")) for name in names]
    pids += [int(printed(out, "ps-0", "grandchild")), int(printed(out, "worker-1", "scheduler pid"))]
    assert [pid for pid in pids if alive(pid)] == []


@pytest.mark.process
def test_an_early_ps_exit_stops_every_task_with_exit_code_1(tmp_path, capsys):
    script = write_script(
        tmp_path,
        """
        import json, os, sys, time
        print("pid", os.getpid())
        if json.loads(os.environ["TF_CONFIG"])["task"]["type"] == "ps":
            time.sleep(0.5)
            sys.exit(0)
        time.sleep(600)
        """,
    )
    started = time.monotonic()
    code = launch(script, ps=1, workers=2, flags=False)
    out, err = capsys.readouterr()
    assert code == 1
    assert "[launcher] ps-0 exited with code 0 before worker-0" in err
    pids = [int(printed(out, name, "pid")) for name in ("ps-0", "worker-0", "worker-1")]
    assert [pid for pid in pids if alive(pid)] == []
    assert time.monotonic() - started < 60


@pytest.mark.process
def test_a_separate_chief_ends_the_run_after_the_grace_period_on_a_scheduler_that_stays(tmp_path, capsys):
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0"]
        + ["--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(scheduler_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or "address" not in scheduler_file.read_text():
            assert time.monotonic() < deadline and scheduler.poll() is None, "no scheduler"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        script = write_script(
            tmp_path,
            """
            import json, os, sys, time
            task = json.loads(os.environ["TF_CONFIG"])["task"]
            print("scheduler", os.environ["DASK_SCHEDULER_ADDRESS"])
            print("pid", os.getpid())
            if task["type"] == "chief":
                sys.exit(7)
            time.sleep(600)
            """,
        )
        code = launch(script, ps=0, workers=1, chief=True, scheduler=address, grace=0.5)
        out, err = capsys.readouterr()
        assert code == 7  # the chief's exit code
        assert "[launcher] worker-0 still running 0.5 s after chief-0 ended; stopping it" in err
        assert not alive(int(printed(out, "worker-0", "pid")))
        assert printed(out, "chief-0", "scheduler") == address
        assert printed(out, "worker-0", "scheduler") == address
        assert scheduler.poll() is None  # not the launcher's to stop
    finally:
        scheduler.terminate()
        scheduler.wait(10)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.process
def test_a_signal_to_the_launcher_stops_everything(tmp_path, signum, code):
    script = write_script(
        tmp_path,
        """
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print("ready", flush=True)
        time.sleep(600)
        """,
    )
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    launcher = subprocess.Popen(
        [sys.executable, "-m", "daskflow.cli", "launch", script, "--ps", "1", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in launcher.stdout], daemon=True).start()
    try:
        ready = 0
        while ready < 3:  # ps-0, worker-0, worker-1
            ready += lines.get(timeout=60).endswith("] ready\n")
        processes = psutil.Process(launcher.pid).children(recursive=True)
        assert len(processes) == 1 + 3 * 2  # the scheduler, and every task with its grandchild
        launcher.send_signal(signum)
        assert launcher.wait(30) == code
        assert signal.Signals(signum).name in launcher.stderr.read()
        assert [p for p in processes if alive(p.pid)] == []
    finally:
        if launcher.poll() is None:
            launcher.kill()


# ---------------------------------------------------------------------- CLI


def test_launch_usage_errors_name_the_option_or_the_path(tmp_path):
    script = write_script(tmp_path, "pass")
    runner = CliRunner()
    result = runner.invoke(cli, ["launch", script, "--workers", "0"])
    assert result.exit_code == 2 and "'--workers'" in result.output
    result = runner.invoke(cli, ["launch", script, "--ps", "-1"])
    assert result.exit_code == 2 and "'--ps'" in result.output
    missing = str(tmp_path / "missing.py")
    result = runner.invoke(cli, ["launch", missing])
    assert result.exit_code == 2 and missing in result.output


def test_help_mentions_every_option_and_an_example():
    runner = CliRunner()
    top = runner.invoke(cli, ["--help"])
    assert top.exit_code == 0
    assert all(word in top.output for word in ("--version", "demo", "launch"))
    text = runner.invoke(cli, ["launch", "--help"]).output
    options = ["--ps", "--workers", "--chief", "--no-chief", "--evaluator", "--no-evaluator", "--flags"]
    options += ["--no-flags", "--host", "--scheduler", "--grace", "--python"]
    assert [option for option in options if option not in text] == []
    assert "daskflow launch mnist_replica.py" in text


def test_main_returns_exit_codes(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == daskflow.__version__
    assert main(["demo", "--steps", "0"]) == 2
    assert "'--steps'" in capsys.readouterr().err


@pytest.mark.process
def test_demo_still_trains(capsys):
    assert main(["demo", "--steps", "20", "--quiet"]) == 0
    assert re.search(r"test accuracy: [01]\.\d{4}  \(20 steps", capsys.readouterr().out)
