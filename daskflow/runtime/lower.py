"""``daskflow.lower``: the Dask graph a ``Session.run`` would execute."""

from __future__ import annotations

from ..framework.graph import get_default_session


def lower(fetches, feed_dict=None, session=None) -> dict:
    """Return the Dask graph (``{key: Task | DataNode}``) of one run.

    One task per device partition of the pruned graph; ``dask.get(graph,
    keys)`` executes it. Uses the given session, else the default one.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [2])
    >>> with tf.Session() as sess:
    ...     graph = tf.lower(x * 2.0, {x: [1.0, 2.0]})
    >>> sorted(graph)
    ['feed-0', 'local-s0']
    """
    session = session or get_default_session()
    if session is None:
        raise ValueError("lower() needs a session: pass session= or use `with tf.Session():`")
    return session.lower(fetches, feed_dict)
