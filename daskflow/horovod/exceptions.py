"""Horovod's exceptions (``horovod.common.exceptions``), raised by the elastic API."""


class HorovodInternalError(RuntimeError):
    """A collective failed because the job's ranks changed; the elastic loop restores the
    last committed state and goes on with the ranks left."""


class HostsUpdatedInterrupt(RuntimeError):  # noqa: N818 - Horovod's name
    """Ranks are waiting to join: the elastic loop forms the new ring and goes on.

    Parameters
    ----------
    skip_sync : bool
        Whether the state need not be synchronized after the reset (Horovod's flag; only
        ranks leaving would allow it, and a leaving rank here fails its collectives instead).
    """

    def __init__(self, skip_sync=False):
        super().__init__("the job's ranks changed")
        self.skip_sync = skip_sync
