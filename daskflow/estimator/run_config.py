"""``RunConfig``: where an Estimator keeps its checkpoints and how its sessions run.

Besides TF1's arguments, ``master`` (keyword only) is the target every
session of the Estimator is made with: empty (the default) runs embedded in
this process; a Dask scheduler address, a ``distributed.Client`` or a
cluster object runs the same graphs on that cluster (see ``tf.Session``).
TF1 read it from the ``TF_CONFIG`` environment variable; daskflow does not
read ``TF_CONFIG``.
"""

from __future__ import annotations

import copy
import os

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

    # Single process: one chief, no cluster spec (TF1 read these from TF_CONFIG).
    is_chief = property(lambda self: True)
    cluster_spec = property(lambda self: None)
    task_type = property(lambda self: None)
    task_id = property(lambda self: 0)
    global_id_in_cluster = property(lambda self: 0)
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _REPLACEABLE)
        return f"RunConfig({fields})"
