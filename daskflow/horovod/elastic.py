"""Horovod Elastic for TF1 graphs: training that goes on as ranks are lost and join.

Start the ranks with ``daskflow launch --np 4 --min-np 2 train.py`` (as
``horovodrun -np 4 --min-np 2``). The launcher is the job's driver: a rank
that dies is dropped and the others form a new ring at once; a replacement
(``--max-np``, ``--reset-limit``) joins at the ranks' next ``state.commit()``
and gets rank 0's state by broadcast. The script wraps its loop::

    state = hvd.elastic.TensorFlowState(session=sess, batch=0)

    @hvd.elastic.run
    def train(state):
        for state.batch in range(state.batch, steps):
            sess.run(train_op)
            state.commit()

    train(state)

Where a collective fails because a rank was lost, ``run`` restores the state
last committed (a step that failed half-way leaves no trace), forms the next
ring, broadcasts rank 0's state and calls ``train`` again.
"""

from __future__ import annotations

import functools

from ..errors import OpError
from ..framework.graph import get_default_session
from ..variables import global_variables
from . import basics
from .exceptions import HorovodInternalError, HostsUpdatedInterrupt
from .functions import broadcast_variables
from .objects import broadcast_object


class State:
    """State kept in memory on every rank, committed, restored after a failure and
    synchronized from rank 0 when the ranks change.

    Parameters
    ----------
    bcast_object : callable
        Broadcasts an object from rank 0.
    get_rank : callable
        This rank.
    """

    def __init__(self, bcast_object, get_rank):
        self._bcast_object = bcast_object
        self._rank = get_rank
        self._reset_callbacks = []

    def register_reset_callbacks(self, callbacks):
        """Call ``callbacks`` after every reset (ranks lost or added): to rescale the
        learning rate to the new ``hvd.size()``, say."""
        self._reset_callbacks.extend(callbacks)

    def on_reset(self):
        for callback in self._reset_callbacks:
            callback()

    def commit(self):
        """Save the state (what a failure rolls back to), then raise
        :class:`HostsUpdatedInterrupt` on every rank if ranks are waiting to join."""
        self.save()
        self.check_host_updates()

    def check_host_updates(self):
        """Raise :class:`HostsUpdatedInterrupt`, on every rank at once, where the driver has
        announced a generation with new ranks (rank 0's view decides, so all agree)."""
        ring, newest = basics.hosts_updated()
        if self._bcast_object(newest) > ring:
            raise HostsUpdatedInterrupt(False)

    def save(self):
        raise NotImplementedError

    def restore(self):
        raise NotImplementedError

    def sync(self):
        raise NotImplementedError


class ObjectState(State):
    """State of plain Python values, given as keyword arguments and kept as attributes."""

    def __init__(self, bcast_object, get_rank, **kwargs):
        self._saved_state = kwargs
        self._set_attrs()
        super().__init__(bcast_object, get_rank)

    def save(self):
        self._saved_state = {attr: getattr(self, attr) for attr in self._saved_state}

    def restore(self):
        self._set_attrs()

    def sync(self):
        if self._saved_state:
            self._saved_state = self._bcast_object(self._saved_state)
            self._set_attrs()

    def _set_attrs(self):
        for attr, value in self._saved_state.items():
            setattr(self, attr, value)


class TensorFlowState(ObjectState):
    """State of TF variables (all global variables by default) and keyword values.

    Parameters
    ----------
    variables : list of Variable, optional
        The variables to keep; ``tf.global_variables()`` by default.
    session : Session, optional
        The session holding their values; the default session by default.
    **kwargs
        Python values kept alongside (``batch=0``, ``epoch=0``), as attributes.
    """

    def __init__(self, variables=None, session=None, **kwargs):
        self.variables = variables or global_variables()
        self.session = session or get_default_session()
        self._bcast_op = broadcast_variables(self.variables, root_rank=0)
        self._values = []
        self._save_model()
        super().__init__(broadcast_object, basics.rank, **kwargs)

    def save(self):
        self._save_model()
        super().save()

    def restore(self):
        for var, value in zip(self.variables, self._values):
            var.load(value, self.session)
        super().restore()

    def sync(self):
        if self.session is not None:
            self.session.run(self._bcast_op)
        self._save_model()
        super().sync()

    def _save_model(self):
        self._values = self.session.run(list(self.variables)) if self.variables else []


def run(func):
    """Decorate an elastic job's training function ``func(state, ...)``: run it, and where a
    rank is lost (:class:`HorovodInternalError`) restore the last commit, or where ranks
    join (:class:`HostsUpdatedInterrupt`) keep the state; then form the next ring, call the
    state's reset callbacks, synchronize it from rank 0 and run ``func`` again.

    ``func`` must not start with a collective (a joining rank's first collectives are the
    state's synchronization)."""

    @functools.wraps(func)
    def wrapper(state, *args, **kwargs):
        reset_required = False
        while True:
            if reset_required:
                basics.reset()
                state.on_reset()
            try:
                state.sync()
                return func(state, *args, **kwargs)
            except HorovodInternalError:
                state.restore()
            except OpError as e:
                if not _rank_lost(e):
                    raise
                state.restore()
            except HostsUpdatedInterrupt:
                pass
            reset_required = True

    return wrapper


def _rank_lost(error: OpError) -> bool:
    """Whether a step failed because a rank of the ring is gone (Horovod's internal error)."""
    from ..runtime.collectives import RanksChangedError  # local import: it loads Dask

    return isinstance(error, RanksChangedError)


__all__ = ["ObjectState", "State", "TensorFlowState", "run"]
