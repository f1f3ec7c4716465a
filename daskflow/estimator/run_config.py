"""``RunConfig``: where an Estimator keeps its checkpoints and how its sessions run.

Besides TF1's arguments, ``master`` (keyword only) is the target every
session of the Estimator is made with: empty (the default) runs embedded in
this process; a Dask scheduler address, a ``distributed.Client`` or a
cluster object runs the same graphs on that cluster (see ``tf.Session``).

As in TF1, the ``TF_CONFIG`` environment variable (JSON: ``{"cluster": {job:
[host:port, ...]}, "task": {"type": ..., "index": ...}}``, as ``daskflow
launch`` sets it) makes this process one task of a between-graph job: the
config then has the cluster spec, this task's type and index, whether it is
the chief (the ``chief`` task; a cluster with workers must have one), and
``master`` is this task's ``grpc://`` target, which ``tf.train.Server``
serves (``tf.estimator.train_and_evaluate`` starts it).
"""

from __future__ import annotations

import copy
import json
import os

from ..train.cluster_spec import ClusterSpec

__all__ = ["RunConfig"]

_USE_DEFAULT = object()

_REPLACEABLE = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
    "master",
    "evaluation_master",
)


class RunConfig:
    """How an :class:`Estimator` runs: model folder, seeds, checkpoint and log cadence.

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Where checkpoints and summaries go (a local folder or fsspec URL).
    tf_random_seed : int, optional
        The graph-level seed of every graph the Estimator builds.
    save_summary_steps : int
        Write the training summaries (``tf.summary.*``, and ``loss``) every this
        many steps; 0 or None: never.
    save_checkpoints_steps, save_checkpoints_secs : int, optional
        At most one; with neither, a checkpoint every 600 seconds (TF1's
        default). A checkpoint is always written when training ends.
    session_config : ConfigProto, optional
    keep_checkpoint_max : int
        Checkpoints kept in ``model_dir`` (None or 0: all).
    log_step_count_steps : int
        Log the loss, the global step and global steps/sec this often
        (``tf.logging`` at INFO); None: never.
    train_distribute, eval_distribute, experimental_distribute
        Distribution strategies are not built; anything but None raises
        NotImplementedError.
    device_fn : callable, optional
        A device function applied around graph building (as
        ``tf.device(device_fn)``).
    keep_checkpoint_every_n_hours, protocol, checkpoint_save_graph_def
        Accepted for TF1 compatibility; unused.
    experimental_max_worker_delay_secs, session_creation_timeout_secs
        Accepted for TF1 compatibility; unused.
    master : str, distributed.Client or cluster, keyword only
        The session target: ``""`` (default) runs embedded; a scheduler
        address (``"tcp://host:8786"``) runs on that Dask cluster.
    evaluation_master : keyword only, optional
        The target for evaluation; default: ``master``.

    Raises
    ------
    ValueError
        If both ``save_checkpoints_steps`` and ``save_checkpoints_secs`` are set.

    Examples
    --------
    >>> import daskflow as tf
    >>> config = tf.estimator.RunConfig(save_checkpoints_steps=50, tf_random_seed=1)
    >>> config.save_checkpoints_secs is None, config.master
    (True, '')
    >>> config.replace(log_step_count_steps=10).log_step_count_steps
    10
    """

    def __init__(
        self,
        model_dir=None,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_steps=_USE_DEFAULT,
        save_checkpoints_secs=_USE_DEFAULT,
        session_config=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        train_distribute=None,
        device_fn=None,
        protocol=None,
        eval_distribute=None,
        experimental_distribute=None,
        experimental_max_worker_delay_secs=None,
        session_creation_timeout_secs=7200,
        checkpoint_save_graph_def=True,
        *,
        master="",
        evaluation_master=None,
    ):
        steps_default = save_checkpoints_steps is _USE_DEFAULT
        secs_default = save_checkpoints_secs is _USE_DEFAULT
        if steps_default and secs_default:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif secs_default:
            save_checkpoints_secs = None
        elif steps_default:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set.")
        for name, strategy in (
            ("train_distribute", train_distribute),
            ("eval_distribute", eval_distribute),
            ("experimental_distribute", experimental_distribute),
        ):
            if strategy is not None:
                raise NotImplementedError(f"RunConfig({name}=...): distribution strategies are not built")
        self._model_dir = None if model_dir is None else os.fspath(model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = None
        self._device_fn = device_fn
        self._protocol = protocol
        self._eval_distribute = None
        self._experimental_distribute = None
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._master = master
        self._evaluation_master = evaluation_master
        self._task = _task_from_tf_config(os.environ.get("TF_CONFIG", ""))
        if self._task.cluster is not None and not master and self._task.type != "evaluator":
            self._master = "grpc://" + self._task.cluster.task_address(self._task.type, self._task.index)

    def replace(self, **kwargs):
        """A copy with some properties replaced (those of the constructor).

        Raises
        ------
        ValueError
            For a property that cannot be replaced, or both checkpoint cadences set.
        """
        unknown = sorted(set(kwargs) - set(_REPLACEABLE))
        if unknown:
            raise ValueError(f"RunConfig.replace: {', '.join(unknown)} cannot be replaced")
        values = {name: getattr(self, name) for name in _REPLACEABLE}
        values["evaluation_master"] = self._evaluation_master
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs:
            values["save_checkpoints_secs"] = _USE_DEFAULT
        if "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs:
            values["save_checkpoints_steps"] = _USE_DEFAULT
        values.update(kwargs)
        master = values.pop("master")
        evaluation_master = values.pop("evaluation_master")
        new = RunConfig(**values, master=master, evaluation_master=evaluation_master)
        new._session_config = copy.copy(new._session_config)
        return new

    # -- TF1's read-only properties -------------------------------------------------------
    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    experimental_max_worker_delay_secs = property(lambda self: self._experimental_max_worker_delay_secs)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    checkpoint_save_graph_def = property(lambda self: self._checkpoint_save_graph_def)
    master = property(lambda self: self._master)

    @property
    def evaluation_master(self):
        return self._master if self._evaluation_master is None else self._evaluation_master

    # From TF_CONFIG (one task of a between-graph job); without it, one chief process.
    cluster_spec = property(lambda self: self._task.cluster)
    task_type = property(lambda self: self._task.type)
    task_id = property(lambda self: self._task.index)
    is_chief = property(lambda self: self._task.type in (None, "chief", "master"))
    num_ps_replicas = property(lambda self: self._task.count("ps"))
    num_worker_replicas = property(lambda self: self._task.count("chief", "master", "worker") or 1)

    @property
    def global_id_in_cluster(self):
        """This task's number among the chief, workers and ps tasks, in TF1's order."""
        task = self._task
        if task.cluster is None:
            return 0
        before = 0
        for job in ("chief", "master", "worker", "ps"):
            if job == task.type:
                return before + task.index
            before += task.count(job)
        raise ValueError(f"task type {task.type!r} has no id in the cluster")

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _REPLACEABLE)
        return f"RunConfig({fields})"


class _Task:
    """This process's task of a between-graph job, from ``TF_CONFIG``."""

    def __init__(self, cluster=None, task_type=None, index=0):
        self.cluster, self.type, self.index = cluster, task_type, index

    def count(self, *jobs) -> int:
        if self.cluster is None:
            return 0
        return sum(self.cluster.num_tasks(job) for job in jobs if job in self.cluster.jobs)


_TASK_TYPES = ("chief", "master", "worker", "ps", "evaluator")


def _task_from_tf_config(text) -> _Task:
    """The task ``TF_CONFIG`` describes, checked as TF1 checked it (ValueError naming the field)."""
    if not text.strip():
        return _Task()

    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not JSON: {e}") from None
    cluster, task = config.get("cluster") or {}, config.get("task") or {}
    if not cluster:
        return _Task(task_type=task.get("type"), index=int(task.get("index", 0)))
    task_type = task.get("type")
    if task_type not in _TASK_TYPES:
        raise ValueError(f"TF_CONFIG's task type {task_type!r} must be one of {list(_TASK_TYPES)}")
    index = task.get("index")
    if not isinstance(index, int) or index < 0:
        raise ValueError(f"TF_CONFIG's task index must be a non-negative integer, got {index!r}")
    spec = ClusterSpec(cluster)
    if "worker" in spec.jobs and "chief" not in spec.jobs and "master" not in spec.jobs:
        raise ValueError('If "cluster" is set in TF_CONFIG, it must have one "chief" node.')
    if task_type != "evaluator":
        if task_type not in spec.jobs or index not in spec.task_indices(task_type):
            raise ValueError(f"TF_CONFIG's task {task_type}:{index} is not in its cluster {spec.as_dict()}")
    elif index != 0:
        raise ValueError(f"TF_CONFIG's evaluator task index must be 0, got {index}")
    return _Task(spec, task_type, index)
