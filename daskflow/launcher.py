"""Run a TF1 between-graph script as one process per task (``daskflow launch``).

TF1's distributed examples (``mnist_replica.py`` and its kin) are one script
started once per task of the cluster, each told who it is by flags
(``--job_name=worker --task_index=1 --ps_hosts=... --worker_hosts=...``) or by
the ``TF_CONFIG`` environment variable. Starting them by hand takes a terminal
per task; :func:`launch` does it on one machine:

1. it starts a Dask scheduler (``dask scheduler --preload daskflow.dashboard``)
   unless one is given, and passes its address to every task in
   ``DASK_SCHEDULER_ADDRESS``;
2. it picks a free TCP port per task and builds TF1's cluster dict from them;
3. it starts ``python SCRIPT [flags] [script args]`` once per task with
   ``TF_CONFIG`` set, and prints each task's output line by line, prefixed with
   the task's name (``[worker-1] ...``);
4. when the chief ends (``chief-0`` if there is one, else ``worker-0``, as in
   TF1), the other workers get a grace period to finish, then everything left
   (parameter servers, which ``server.join()`` forever, and the scheduler) is
   stopped. The chief's exit code is the launcher's.

Every child runs in a process group of its own, and stopping a task signals
its whole group, so processes a script starts (Dask worker processes, say) go
with it. POSIX only (process groups).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SCHEDULER_TIMEOUT = 60.0  # seconds for a new scheduler to write its scheduler file
STOP_TIMEOUT = 5.0  # seconds between SIGTERM and SIGKILL
POLL = 0.05

# The checkout (or site-packages) holding this daskflow: children import the
# launcher's daskflow (the scheduler's preload, the scripts' ``import daskflow``)
# even when daskflow is not installed.
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


# ---------------------------------------------------------------- the cluster


def free_ports(count, host="127.0.0.1"):
    """``count`` distinct TCP ports free on ``host`` now."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            s.bind((host, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def cluster_dict(ps=1, workers=2, chief=False, host="127.0.0.1", ports=None):
    """TF1's cluster dict: job name to its tasks' ``host:port`` addresses.

    Parameters
    ----------
    ps, workers : int
        Parameter-server and worker tasks.
    chief : bool
        Add a ``chief`` job with one task.
    host : str
        The host of every task.
    ports : sequence of int, optional
        One port per task, used in the order ps, worker, chief. Free ports
        on ``host`` by default.

    Returns
    -------
    dict
        ``{"ps": [...], "worker": [...]}``, with ``"chief": [one]`` if asked.

    Examples
    --------
    >>> cluster_dict(1, 2, ports=[41001, 41002, 41003])
    {'ps': ['127.0.0.1:41001'], 'worker': ['127.0.0.1:41002', '127.0.0.1:41003']}
    """
    sizes = {"ps": ps, "worker": workers, "chief": 1 if chief else 0}
    ports = list(ports) if ports is not None else free_ports(sum(sizes.values()), host)
    if len(ports) != sum(sizes.values()):
        raise ValueError(f"cluster_dict needs {sum(sizes.values())} ports, got {len(ports)}")
    cluster, taken = {}, 0
    for job, size in sizes.items():
        if job != "chief" or size:
            cluster[job] = [f"{host}:{port}" for port in ports[taken : taken + size]]
        taken += size
    return cluster


def tf_config(cluster, job, index):
    """The ``TF_CONFIG`` value (JSON) of task ``index`` of ``job``.

    Examples
    --------
    >>> tf_config({"worker": ["127.0.0.1:41002"]}, "worker", 0)
    '{"cluster": {"worker": ["127.0.0.1:41002"]}, "task": {"type": "worker", "index": 0}}'
    """
    return json.dumps({"cluster": cluster, "task": {"type": job, "index": index}})


def task_argv(python, script, job, index, cluster, flags=True, script_args=()):
    """The command line of one task.

    Parameters
    ----------
    python, script : str
        The interpreter and the script it runs.
    job : str
        ``"ps"``, ``"worker"``, ``"chief"`` or ``"evaluator"``.
    index : int
        The task's index in its job.
    cluster : dict
        TF1's cluster dict (:func:`cluster_dict`).
    flags : bool
        Add ``mnist_replica.py``'s flags before ``script_args``:
        ``--job_name``, ``--task_index``, ``--ps_hosts``, ``--worker_hosts``
        (the evaluator, outside the cluster, gets the first two only).
    script_args : sequence of str
        The script's own arguments, last.

    Examples
    --------
    >>> task_argv("python", "train.py", "ps", 0, {"ps": ["h:1"], "worker": ["h:2", "h:3"]})
    ['python', 'train.py', '--job_name=ps', '--task_index=0', '--ps_hosts=h:1', '--worker_hosts=h:2,h:3']
    """
    argv = [python, script]
    if flags:
        argv += [f"--job_name={job}", f"--task_index={index}"]
        if job != "evaluator":
            argv += [
                f"--ps_hosts={','.join(cluster.get('ps', []))}",
                f"--worker_hosts={','.join(cluster.get('worker', []))}",
            ]
    return argv + list(script_args)


def task_env(base, scheduler_address, cluster, job, index):
    """``base`` plus what a task learns from its environment."""
    env = dict(base)
    env["DASK_SCHEDULER_ADDRESS"] = scheduler_address
    env["TF_CONFIG"] = tf_config(cluster, job, index)
    env["PYTHONUNBUFFERED"] = "1"  # lines reach the launcher as they are printed
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, base.get("PYTHONPATH")) if p)
    return env


# ------------------------------------------------------------ child processes


@dataclass
class _Child:
    """One process the launcher started (a task or the scheduler) and its output pumps."""

    name: str
    process: subprocess.Popen
    pumps: list = field(default_factory=list)
    reported: bool = False

    @property
    def job(self):
        return self.name.rsplit("-", 1)[0]


class _Output:
    """The launcher's stdout and stderr, written one whole line at a time."""

    def __init__(self):
        self._lock = threading.Lock()

    def write(self, text, stream="stdout"):
        out = getattr(sys, stream)  # looked up each time: tests and notebooks swap sys.stdout
        with self._lock:
            try:
                out.write(text)
            except UnicodeEncodeError:
                out.write(text.encode("ascii", "backslashreplace").decode("ascii"))
            out.flush()

    def say(self, message, stream="stderr"):
        self.write(f"[launcher] {message}\n", stream)


def _pump(pipe, prefix, stream, output):
    # Keeps reading whatever happens to the output: a child whose pipe fills blocks.
    with pipe:
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace")
            with contextlib.suppress(Exception):
                output.write(prefix + (line if line.endswith("\n") else line + "\n"), stream)


def _start(name, argv, env, output):
    process = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: stopping it reaches what it starts
    )
    child = _Child(name, process)
    for pipe, stream in ((process.stdout, "stdout"), (process.stderr, "stderr")):
        pump = threading.Thread(target=_pump, args=(pipe, f"[{name}] ", stream, output), daemon=True)
        pump.start()
        child.pumps.append(pump)
    return child


def _group_alive(pgid):
    """Whether process group ``pgid`` has a member that is not a zombie."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # Zombies answer signals too; where nothing reaps orphans they stay for good.
    import psutil

    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                return True
    return False


def _signal_group(pgid, signum):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _stop(children, timeout=STOP_TIMEOUT):
    """SIGTERM every child's process group, SIGKILL what is left after ``timeout``."""
    for child in children:
        child.process.poll()  # reaps a finished leader, so it no longer counts as a member
        _signal_group(child.process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    left = list(children)
    while left and time.monotonic() < deadline:
        time.sleep(POLL)
        for child in left:
            child.process.poll()
        left = [c for c in left if _group_alive(c.process.pid)]
    for child in left:
        _signal_group(child.process.pid, signal.SIGKILL)
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(timeout)
        for pump in child.pumps:
            pump.join(timeout)


def _exit_code(returncode):
    """A shell's view of a return code: killed by signal N reads 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


# ------------------------------------------------------------------ signals


class _Signals:
    """Records SIGINT, SIGTERM and SIGHUP instead of dying of them, while installed.

    The launcher then stops its children itself: they live in process groups
    of their own, so a terminal's Ctrl-C does not reach them.
    """

    def __init__(self):
        self.received = None
        self._previous = {}

    def _handle(self, signum, frame):
        self.received = self.received or signum

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self  # signals arrive in the main thread only; KeyboardInterrupt still stops
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            # A SIGHUP ignored on purpose (nohup) stays ignored.
            if signum == signal.SIGHUP and signal.getsignal(signum) == signal.SIG_IGN:
                continue
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)


class _Interrupted(KeyboardInterrupt):
    """A signal (SIGINT, SIGTERM, SIGHUP) asked the launcher to stop."""


# ---------------------------------------------------------------- scheduler


def _start_scheduler(python, host, workdir, output, signals):
    """Start ``dask scheduler`` with daskflow's dashboard page; return (child, address, dashboard)."""
    scheduler_file = Path(workdir) / "scheduler.json"
    argv = [python, "-m", "distributed.cli.dask_scheduler", "--host", host, "--port", "0"]
    argv += ["--dashboard-address", f"{host}:0", "--scheduler-file", str(scheduler_file)]
    argv += ["--preload", "daskflow.dashboard"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    env.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # its warnings and errors, not its chatter
    child = _start("scheduler", argv, env, output)
    deadline = time.monotonic() + SCHEDULER_TIMEOUT
    while time.monotonic() < deadline:
        info = _read_scheduler_file(scheduler_file)
        if info:
            dashboard = info.get("services", {}).get("dashboard")
            return child, info["address"], dashboard
        if signals.received:
            raise _Interrupted
        if child.process.poll() is not None:
            raise RuntimeError(f"the Dask scheduler exited with code {child.process.returncode} at start")
        time.sleep(POLL)
    raise RuntimeError(
        f"the Dask scheduler wrote no scheduler file ({scheduler_file}) within {SCHEDULER_TIMEOUT:.0f} s"
    )


def _read_scheduler_file(path):
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):  # not there yet, or half written
        return None
    return info if "address" in info else None


def _dashboard_port(address, timeout=10.0):
    """Ask a running scheduler for its dashboard's port (None if it has none)."""
    import asyncio

    from distributed.core import rpc

    async def identity():
        remote = rpc(address, timeout=timeout)
        try:
            return await asyncio.wait_for(remote.identity(), timeout)
        finally:
            await remote.close_rpc()

    try:
        info = asyncio.run(identity())
    except (OSError, asyncio.TimeoutError, ValueError) as e:
        raise RuntimeError(f"cannot reach the Dask scheduler at {address!r}: {e}") from e
    return info.get("services", {}).get("dashboard")


def _dashboard_link(address, port, page="/status"):
    from distributed.comm import get_address_host

    return f"http://{get_address_host(address)}:{port}{page}" if port else "none"


# ------------------------------------------------------------------- launch


def _tasks(cluster, evaluator):
    """(job, index) of every task, parameter servers first so they listen before workers look."""
    order = ["ps", "chief", "worker"]
    tasks = [(job, i) for job in order for i in range(len(cluster.get(job, [])))]
    return tasks + ([("evaluator", 0)] if evaluator else [])


def launch(
    script,
    script_args=(),
    ps=1,
    workers=2,
    chief=False,
    evaluator=False,
    flags=True,
    host="127.0.0.1",
    scheduler=None,
    grace=10.0,
    python=None,
    np=None,
    min_np=None,
    max_np=None,
    reset_limit=None,
    elastic_timeout=600.0,
):
    """Run ``script`` once per task of a TF1 cluster on this machine (or ``np`` ranks of a
    Horovod script).

    Parameters
    ----------
    script : str or path
        The between-graph training script.
    script_args : sequence of str
        Arguments for every task, after the launcher's flags.
    ps, workers : int
        Parameter-server tasks (0 or more) and worker tasks (1 or more).
    chief : bool
        Add a separate ``chief`` task; without it worker 0 is the chief, as in TF1.
    evaluator : bool
        Add an ``evaluator`` task (outside the cluster dict, as in TF1's ``TF_CONFIG``).
    flags : bool
        Pass ``--job_name``, ``--task_index``, ``--ps_hosts`` and
        ``--worker_hosts`` (:func:`task_argv`); ``TF_CONFIG`` is always set.
    host : str
        The address the scheduler and the tasks' ports are on.
    scheduler : str, optional
        An existing Dask scheduler's address; by default one is started
        (with daskflow's dashboard page) and stopped at the end.
    grace : float
        Seconds the other workers and the evaluator get to finish after the chief ends.
    python : str, optional
        The interpreter for the tasks and the scheduler; ``sys.executable`` by default.
    np : int, optional
        Run ``np`` ranks of a Horovod script instead (``horovodrun -np``): tasks
        ``worker-0`` to ``worker-<np-1>`` with ``HOROVOD_RANK``, ``HOROVOD_SIZE`` and
        the job's secret in their environment, no flags, no parameter server; one rank
        failing stops them all (unless the job is elastic).
    min_np, max_np : int, optional
        Make the ``np`` ranks an elastic job (``horovodrun --min-np/--max-np``,
        :mod:`daskflow.horovod.elastic`): the launcher drives it; a rank that dies is
        dropped and the others go on; its slot is started again while fewer than
        ``max_np`` (default ``np``) ranks run, and the new rank joins at the others'
        next commit. Below ``min_np`` (default ``np``) ranks the job waits for more,
        ``elastic_timeout`` seconds at most.
    reset_limit : int, optional
        How many times an elastic job's lost slots are started again (default ``np``).
    elastic_timeout : float
        Seconds an elastic job may wait with fewer than ``min_np`` ranks.

    Returns
    -------
    int
        The chief's exit code (with ``np``: the first failing rank's, else 0; an elastic
        job: 0 if the ranks of its last generation finished, else 1); 1 if a
        parameter server or the scheduler ended before the chief; 128 + N if signal N
        (Ctrl-C: 130) stopped the launcher.

    Raises
    ------
    ValueError
        ``ps`` below 0 or ``workers`` below 1.
    RuntimeError
        The scheduler did not start, or ``scheduler`` cannot be reached.

    Examples
    --------
    >>> launch("mnist_replica.py", ["--train_steps=200"], ps=1, workers=2)  # doctest: +SKIP
    """
    elastic = min_np is not None or max_np is not None
    if np is not None:
        if np < 1:
            raise ValueError(f"launch: np must be 1 or more, got {np}")
        ps, workers, chief, evaluator, flags = 0, np, False, False, False
        min_np, max_np = min_np or np, max_np or np
        if elastic and not 1 <= min_np <= np <= max_np:
            raise ValueError(f"launch: need 1 <= min_np <= np <= max_np, got {min_np}, {np}, {max_np}")
    elif elastic:
        raise ValueError("launch: min_np and max_np make an elastic Horovod job: give np too")
    if ps < 0:
        raise ValueError(f"launch: ps must be 0 or more, got {ps}")
    if workers < 1:
        raise ValueError(f"launch: workers must be 1 or more, got {workers}")
    python = python or sys.executable
    output = _Output()
    children = []
    with _Signals() as signals, tempfile.TemporaryDirectory(prefix="daskflow-launch-") as workdir:
        try:
            address = _announce_scheduler(scheduler, python, host, workdir, output, signals, children)
            cluster = cluster_dict(ps, workers, chief, host)
            output.say(f"cluster {json.dumps(cluster)}", "stdout")
            job_name = secrets.token_hex(8)
            ranks = horovod_env(np, job_name, elastic) if np is not None else {}

            def start(job, index):
                argv = task_argv(python, str(script), job, index, cluster, flags, script_args)
                env = {**task_env(os.environ, address, cluster, job, index), **ranks.get(index, {})}
                return _start(f"{job}-{index}", argv, env, output)

            children.extend(start(job, index) for job, index in _tasks(cluster, evaluator))
            if elastic:
                limits = (min_np, max_np, np if reset_limit is None else reset_limit, elastic_timeout)
                return _supervise_elastic(children, start, address, job_name, limits, output, signals)
            if np is not None:
                return _supervise_ranks(children, output, signals)
            return _supervise(children, "chief-0" if chief else "worker-0", grace, output, signals)
        except KeyboardInterrupt:  # _Interrupted, or Ctrl-C off the main thread
            signum = signals.received or signal.SIGINT
            output.say(f"{signal.Signals(signum).name}: stopping every task")
            return 128 + signum
        finally:
            _stop(children)


def _announce_scheduler(scheduler, python, host, workdir, output, signals, children):
    if scheduler:
        link = _dashboard_link(scheduler, _dashboard_port(scheduler))
        output.say(f"Dask scheduler {scheduler}, dashboard {link}", "stdout")
        return scheduler
    child, address, port = _start_scheduler(python, host, workdir, output, signals)
    children.append(child)
    link, page = _dashboard_link(address, port), _dashboard_link(address, port, "/daskflow")
    output.say(f"Dask scheduler {address}, dashboard {link} (daskflow's page: {page})", "stdout")
    return address


def _supervise(children, chief_name, grace, output, signals):
    """Wait for the chief, then give the others ``grace`` seconds; return the exit code."""
    chief = next(c for c in children if c.name == chief_name)
    while chief.process.poll() is None:
        for child in children:
            if child is not chief and child.process.poll() is not None and not child.reported:
                if child.job in ("ps", "scheduler"):
                    code = child.process.returncode
                    output.say(f"{child.name} exited with code {code} before {chief.name}; stopping all")
                    return 1
                _report(child, output)
        if signals.received:
            raise _Interrupted
        time.sleep(POLL)
    chief.reported = True
    output.say(f"{chief.name} exited with code {chief.process.returncode}", "stderr")
    deadline = time.monotonic() + grace
    finishing = [c for c in children if c.job in ("worker", "evaluator") and c is not chief]
    while any(c.process.poll() is None for c in finishing) and time.monotonic() < deadline:
        if signals.received:
            raise _Interrupted
        time.sleep(POLL)
    for child in finishing:
        if child.process.poll() is not None:
            _report(child, output)
        else:
            output.say(f"{child.name} still running {grace:g} s after {chief.name} ended; stopping it")
    return _exit_code(chief.process.returncode)


def horovod_env(np, job, elastic=False):
    """Each rank's Horovod environment, by rank: its place (all on this machine) and the
    job's name and secret (``daskflow.horovod`` reads them).

    Examples
    --------
    >>> env = horovod_env(2, "j1")[1]
    >>> env["HOROVOD_RANK"], env["HOROVOD_SIZE"], env["HOROVOD_LOCAL_RANK"], env["DASKFLOW_HOROVOD_JOB"]
    ('1', '2', '1', 'j1')
    """
    secret = secrets.token_hex(32)
    common = {
        "HOROVOD_SIZE": str(np),
        "HOROVOD_LOCAL_SIZE": str(np),
        "HOROVOD_CROSS_RANK": "0",
        "HOROVOD_CROSS_SIZE": "1",
        "HOROVOD_HOSTNAME": socket.gethostname(),
        "DASKFLOW_HOROVOD_JOB": job,
        "DASKFLOW_HOROVOD_SECRET": secret,
        **({"HOROVOD_ELASTIC": "1"} if elastic else {}),
    }
    return {r: {**common, "HOROVOD_RANK": str(r), "HOROVOD_LOCAL_RANK": str(r)} for r in range(np)}


def _supervise_ranks(children, output, signals):
    """Wait for every rank; the first to fail stops the others (its code is returned)."""
    ranks = [c for c in children if c.job == "worker"]
    while any(c.process.poll() is None for c in ranks):
        failed = next((c for c in ranks if c.process.poll() not in (None, 0)), None)
        if failed is not None or any(c.job == "scheduler" and c.process.poll() is not None for c in children):
            culprit = failed or next(c for c in children if c.job == "scheduler")
            code = _exit_code(culprit.process.returncode)
            output.say(f"{culprit.name} exited with code {code}; stopping every rank")
            return code or 1
        if signals.received:
            raise _Interrupted
        time.sleep(POLL)
    for child in ranks:
        _report(child, output)
    return next((code for code in (_exit_code(c.process.returncode) for c in ranks) if code), 0)


def _supervise_elastic(children, start, address, job, limits, output, signals):
    """Drive an elastic job (:class:`daskflow.runtime.collectives.driver.Driver`): drop the
    ranks that die, start their slots again while restarts and ``max_np`` allow, and end when
    the ranks of the last generation have finished (0) or too few are left (1)."""
    from distributed import Client

    from .runtime.collectives import membership  # local import: launching loads Dask only here
    from .runtime.collectives.driver import Driver, TooFewRanksError  # local import: as above

    min_np, max_np, restarts, timeout = limits
    ranks = {int(c.name.rsplit("-", 1)[1]): c for c in children if c.job == "worker"}
    with Client(address, set_as_default=False) as client:
        driver = Driver(client, job, len(ranks), min_np, timeout)
        finished: set[int] = set()
        try:
            while True:
                for slot, child in list(ranks.items()):
                    code = child.process.poll()
                    if code is None or slot in finished:
                        continue
                    if code == 0:
                        finished.add(slot)
                        continue
                    code = _exit_code(code)
                    if finished:  # the job is ending: its last ring cannot form again without them
                        output.say(f"{child.name} exited with code {code} after others finished; stopping")
                        return code
                    output.say(f"{child.name} exited with code {code}; the others go on without it")
                    driver.lost(slot)
                    del ranks[slot]
                    if restarts > 0 and len(ranks) < max_np:
                        restarts -= 1
                        ranks[slot] = start("worker", slot)
                        children.append(ranks[slot])
                if not ranks:
                    output.say("every rank exited and none is started again; stopping")
                    return 1
                if not finished:  # ranks that finished leave: no generation after them
                    _say_generation(driver.step(), driver.slots(), output)
                elif set(driver.slots()) <= finished or set(ranks) <= finished:
                    return 0  # the last generation's ranks are done (any left never joined), or all are
                if any(c.job == "scheduler" and c.process.poll() is not None for c in children):
                    output.say("the Dask scheduler exited; stopping every rank")
                    return 1
                if signals.received:
                    raise _Interrupted
                time.sleep(POLL)
        except TooFewRanksError as e:
            output.say(f"{e}; stopping every rank")
            return 1
        finally:
            membership.forget(client, job)


def _say_generation(generation, slots, output):
    """Say a newly published generation (``slots``: its members' slots), if any."""
    if generation is not None:
        slots = ", ".join(map(str, slots))
        state = "" if generation.ready else " (fewer than --min-np: waiting for more)"
        count = len(generation.members)
        output.say(f"elastic generation {generation.number}: {count} rank(s), slots {slots}{state}")


def _report(child, output):
    """Say once that a worker or the evaluator ended, if it failed."""
    if not child.reported:
        child.reported = True
        if child.process.returncode != 0:
            output.say(f"{child.name} exited with code {_exit_code(child.process.returncode)}")
