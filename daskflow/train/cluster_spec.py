"""``ClusterSpec``: the jobs of a cluster and their tasks (TF1's API)."""

from __future__ import annotations


class ClusterSpec:
    """Jobs and their tasks: ``{"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}``.

    Entries are Dask worker names (or addresses). Also accepts, as TF1 does,
    a dict of ``{task index: address}`` per job, or another ``ClusterSpec``;
    :meth:`from_client` reads one off a running cluster.

    Examples
    --------
    >>> import daskflow as tf
    >>> spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    >>> spec.num_tasks("worker"), spec.task_address("ps", 0)
    (2, 'ps-0')
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec takes a dict of job name -> tasks, got {type(cluster).__name__}")
        self._jobs = {job: _tasks_of(job, tasks) for job, tasks in cluster.items()}

    @classmethod
    def from_client(cls, client) -> ClusterSpec:
        """The cluster a ``distributed.Client`` is connected to, by worker names."""
        # local import: the runtime's cluster side loads dask, only when asked of a client
        from ..runtime.cluster.devices import cluster_workers, scheduler_identity

        jobs: dict = {}
        for w in cluster_workers(scheduler_identity(client)):
            jobs.setdefault(w.job, {})[w.task] = str(w.name)
        return cls(jobs)

    @property
    def jobs(self) -> list[str]:
        return list(self._jobs)

    def num_tasks(self, job_name) -> int:
        return len(self._tasks(job_name))

    def task_indices(self, job_name) -> list[int]:
        return sorted(self._tasks(job_name))

    def task_address(self, job_name, task_index) -> str:
        tasks = self._tasks(job_name)
        if task_index not in tasks:
            raise ValueError(f"job {job_name!r} has no task {task_index}; it has {sorted(tasks)}")
        return tasks[task_index]

    def job_tasks(self, job_name) -> list[str]:
        tasks = self._tasks(job_name)
        return [tasks[i] for i in sorted(tasks)]

    def as_dict(self) -> dict:
        return {job: self.job_tasks(job) if _dense(t) else dict(t) for job, t in self._jobs.items()}

    def _tasks(self, job_name):
        if job_name not in self._jobs:
            raise ValueError(f"no job {job_name!r} in the cluster; jobs: {self.jobs}")
        return self._jobs[job_name]

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


def _dense(tasks):
    return sorted(tasks) == list(range(len(tasks)))


def _tasks_of(job, tasks) -> dict:
    """``{task index: address}`` of one job, checked as TF1 checks a cluster dict."""
    if not isinstance(job, str):
        raise TypeError(f"Job name {job!r} must be bytes or unicode")
    if not job:
        raise ValueError("a job name must not be empty: no device string could name its tasks")
    if isinstance(tasks, (list, tuple)):
        tasks = dict(enumerate(tasks))
    elif not isinstance(tasks, dict):
        raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to strings")
    out = {}
    for index, address in tasks.items():
        try:
            index = int(index)
        except (TypeError, ValueError) as e:
            raise ValueError(f"job {job!r}: task index {index!r} is not an integer") from e
        if not isinstance(address, (str, bytes)):
            raise TypeError(f"Task address {address!r} of job {job!r} must be bytes or unicode")
        out[index] = address.decode() if isinstance(address, bytes) else address
    return out
