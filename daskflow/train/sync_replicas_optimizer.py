"""``tf.train.SyncReplicasOptimizer``: synchronous data parallelism with backup workers.

As in TF1, it wraps another optimizer: each global step averages the
gradients of the first ``replicas_to_aggregate`` of ``total_num_replicas``
replicas and applies them once; the gradients that come later are dropped,
so ``total_num_replicas - replicas_to_aggregate`` replicas act as backup
workers that keep a straggler from setting the pace. TF1 builds this from
token and accumulator queues on the ps; here each gradient passes through an
``AggregateReplicas`` op on its variable's device, and the cluster runtime
hands that op the first replicas to finish (and cancels the rest). Embedded,
or with one replica, the wrapped optimizer's numbers come out unchanged.

In between-graph training (one client per worker, ``tf.train.Server``) the
ps gathers each round from the clients' update tasks itself
(``runtime/worker/sync_rounds.py``): no queue needs starting, so TF1's
``chief_init_op``, ``local_step_init_op``, ``get_init_tokens_op()`` and the
chief's queue runner are there for TF1 scripts to run, and do nothing more.
"""

from __future__ import annotations

from ..framework.constant import convert_to_tensor
from ..framework.graph import colocate_with, control_dependencies, name_scope
from ..ops.control_flow_ops import no_op
from ..ops.replica_ops import aggregate_replicas
from ..variables import global_variables, report_uninitialized_variables
from .hooks import SessionRunHook
from .optimizer import Optimizer
from .queue_runner import QueueRunner


class SyncReplicasOptimizer(Optimizer):
    """Average the first ``replicas_to_aggregate`` replicas' gradients each step.

    Parameters
    ----------
    opt : Optimizer
        The optimizer that applies the averaged gradients.
    replicas_to_aggregate : int
        How many replicas' gradients make a step.
    total_num_replicas : int, optional
        How many replicas run (default: ``replicas_to_aggregate``); must be
        the number of worker tasks the session replicates over.

    Examples
    --------
    >>> import daskflow as tf
    >>> w = tf.Variable(1.0)
    >>> opt = tf.train.SyncReplicasOptimizer(
    ...     tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2, total_num_replicas=3
    ... )
    >>> train_op = opt.minimize(tf.square(w), global_step=tf.train.get_or_create_global_step())
    """

    def __init__(
        self,
        opt,
        replicas_to_aggregate,
        total_num_replicas=None,
        variable_averages=None,
        variables_to_average=None,
        use_locking=False,
        name="sync_replicas",
    ):
        if variable_averages is not None or variables_to_average is not None:
            raise NotImplementedError("SyncReplicasOptimizer: variable_averages is not supported")
        total = replicas_to_aggregate if total_num_replicas is None else total_num_replicas
        if not 1 <= int(replicas_to_aggregate) <= int(total):
            raise ValueError(
                f"SyncReplicasOptimizer needs 1 <= replicas_to_aggregate <= total_num_replicas, "
                f"got {replicas_to_aggregate} and {total}"
            )
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = int(replicas_to_aggregate)
        self._total_num_replicas = int(total)

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Average each gradient over the replicas on its variable's device, then apply once.

        Raises
        ------
        ValueError
            If ``grads_and_vars`` is empty, or ``global_step`` is not given
            (TF1 needs it to check a gradient's staleness, and so does a TF1
            script run here).
        """
        if not grads_and_vars:  # TF1's checks, in TF1's order (a generator passes the first)
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        averaged = []
        with name_scope(self._name):
            self._protocol_ops()
            for g, v in grads_and_vars:
                if g is None:
                    averaged.append((g, v))
                    continue
                g = convert_to_tensor(g)  # rows made dense in the replica: replicas aggregate dense
                with colocate_with(v.op):
                    mean = aggregate_replicas(g, self._replicas_to_aggregate, self._total_num_replicas)
                averaged.append((mean, v))
        return self._opt.apply_gradients(averaged, global_step=global_step, name=name)

    def _protocol_ops(self):
        """TF1's ops of the token protocol, which has nothing for them to do here."""
        with control_dependencies(None):
            self.chief_init_op = no_op(name="chief_init_op")
            self.local_step_init_op = no_op(name="local_step_init_op")
            self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
            self._tokens_op = no_op(name="init_tokens")

    def get_chief_queue_runner(self):
        """The chief's queue runner (TF1's applies each round; here the ps does): no threads."""
        self._check_applied("Should be called after apply_gradients().")
        return _NoRounds(queue=self, enqueue_ops=[self._tokens_op])

    def get_init_tokens_op(self, num_tokens=-1):
        """TF1's first tokens for the workers; here an op with nothing to do."""
        self._check_applied("get_init_tokens_op() should be called after apply_gradients().")
        return self._tokens_op

    def _check_applied(self, message):
        if not hasattr(self, "_tokens_op"):  # TF1's messages, word for word
            raise ValueError(message)

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot (TF1 forwards every argument)."""
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """The hook TF1 needs to start the token queues; here it checks the replica count."""
        return _SyncReplicasHook(self._total_num_replicas)


class _NoRounds(QueueRunner):
    """The chief's queue runner, with no rounds to run: the ps applies them."""

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        return []


class _SyncReplicasHook(SessionRunHook):
    """Refuses a session that replicates over a different number of workers."""

    def __init__(self, total_num_replicas):
        self._total = total_num_replicas

    def after_create_session(self, session, coord):
        replicas = getattr(session, "num_replicas", None)
        if replicas not in (None, 1, self._total):
            raise ValueError(
                f"SyncReplicasOptimizer(total_num_replicas={self._total}) but the session replicates "
                f"over {replicas} worker tasks"
            )
