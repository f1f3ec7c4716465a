"""``FileWriter``: summaries, graphs and session logs into TensorBoard event files.

Events are appended to an ``events.out.tfevents.*`` file through
tensorboardX's record writer (TFRecord framing with CRCs, the format
TensorBoard reads). Writes are buffered and reach the disk when ``max_queue``
events are pending, every ``flush_secs`` seconds, on :meth:`FileWriter.flush`
and on :meth:`FileWriter.close`; a flush returns only once everything added
before it is on disk.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import weakref

from ..framework import protos
from ..framework.graph import get_default_graph
from ..framework.graph_export import graph_def as to_graph_def
from ..runtime import events

logger = logging.getLogger("daskflow")

_file_numbers = itertools.count()  # distinct file names for writers opened in the same second


class _EventFile:
    """One open event file, flushed by size, by a timer, and on demand."""

    def __init__(self, logdir, max_queue, flush_secs, filename_suffix):
        from tensorboardX.event_file_writer import EventsWriter
        from tensorboardX.record_writer import directory_check

        directory_check(logdir)
        # TF's own names carry the pid and a counter, so reopening never overwrites a file.
        suffix = f".{os.getpid()}.{next(_file_numbers)}{filename_suffix or ''}"
        self._writer = EventsWriter(os.path.join(logdir, "events"), suffix)
        self._max_queue = max(1, int(max_queue))
        self._pending = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._timer = threading.Thread(target=self._flush_every, args=(flush_secs,), daemon=True)
        self._timer.start()

    @property
    def path(self) -> str:
        return self._writer._file_name

    def add(self, event):
        from tensorboardX.proto import event_pb2

        if not isinstance(event, event_pb2.Event):  # TF's Event (daskflow's has source_metadata)
            event = event_pb2.Event.FromString(event.SerializeToString())  # its bytes, unknown field kept
        with self._lock:
            self._writer.write_event(event)
            self._pending += 1
            if self._pending >= self._max_queue:
                self._flush_locked()

    def flush(self):
        with self._lock:
            self._flush_locked()

    def _flush_locked(self):
        if self._pending:
            self._writer.flush()
            self._pending = 0

    def _flush_every(self, seconds):
        while not self._closing.wait(seconds):
            self.flush()

    def close(self):
        self._closing.set()
        self._timer.join()
        with self._lock:
            self._writer.close()


class FileWriter:
    """Writes ``Summary`` protos, graphs and session logs to an event file in ``logdir``.

    Parameters
    ----------
    logdir : str
        Directory of the event files (created if missing). A local path;
        ``s3://`` and ``gs://`` work where tensorboardX's clients for them
        (boto3, google-cloud-storage) are installed.
    graph : Graph, optional
        Written at once, for TensorBoard's Graphs tab (usually ``sess.graph``).
    max_queue : int
        Events buffered before an ``add_*`` call writes them to disk.
    flush_secs : float
        How often pending events are written to disk.
    graph_def : GraphDef, optional
        Deprecated form of ``graph``.
    filename_suffix : str, optional
        Appended to the event file's name.
    session : Session, optional
        Accepted for TF1 compatibility; events are written from this process
        either way.

    Examples
    --------
    >>> import tempfile
    >>> import daskflow as tf
    >>> with tf.Graph().as_default() as g:
    ...     loss = tf.summary.scalar("loss", tf.constant(0.25))
    ...     with tf.Session() as sess, tf.summary.FileWriter(tempfile.mkdtemp(), sess.graph) as w:
    ...         w.add_summary(sess.run(loss), global_step=1)
    """

    def __init__(
        self,
        logdir,
        graph=None,
        max_queue=10,
        flush_secs=120,
        graph_def=None,
        filename_suffix=None,
        session=None,
    ):
        self._logdir = os.fspath(logdir)
        self._options = (max_queue, flush_secs, filename_suffix)
        self._file = _EventFile(self._logdir, *self._options)
        self._closed = False
        self._seen_summary_tags = set()
        self._run_metadata_tags = set()
        self._graph = None  # the Graph added last: its cluster sessions show this writer's scalars
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    # -- what goes into the file -----------------------------------------------------------
    def add_summary(self, summary, global_step=None):
        """Add a ``Summary`` proto, or its serialized bytes (what ``sess.run`` of a summary gives).

        Plugin metadata is written with the first value of each tag only, as
        TF1 does: TensorBoard keeps the first it reads. The summary is also
        emitted as a record (:class:`daskflow.runtime.events.ScalarsWritten`):
        the dashboard page shows its scalars for each cluster session open in
        this process running this writer's graph (any, if it has none), against
        ``global_step``.
        """
        if isinstance(summary, (bytes, bytearray)):
            summary = protos.Summary.FromString(bytes(summary))
        elif not hasattr(summary, "value") or not hasattr(summary, "SerializeToString"):
            raise TypeError(f"add_summary takes a Summary proto or its bytes, got {type(summary).__name__}")
        elif not isinstance(summary, protos.Summary):  # another library's Summary class, e.g. TensorFlow's
            summary = protos.Summary.FromString(summary.SerializeToString())
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self._add_event(protos.Event(summary=summary), global_step)
        if not self._closed:
            events.emit(events.ScalarsWritten(summary, global_step, self._graph and self._graph()))

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Add ``graph`` (a daskflow Graph, or a ``GraphDef`` proto) for TensorBoard's Graphs tab."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        given = graph if graph is not None else graph_def
        if hasattr(given, "get_operations"):
            proto = to_graph_def(given, add_shapes=True)
            self._graph = weakref.ref(given)
        elif hasattr(given, "node") and hasattr(given, "SerializeToString"):
            logger.warning("Passing a GraphDef to the FileWriter is deprecated; pass a Graph (sess.graph).")
            proto = given
        else:
            raise TypeError(f"The passed graph must be a Graph or a GraphDef, got {type(given).__name__}")
        self._add_event(protos.Event(graph_def=proto.SerializeToString()), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Add a ``SessionLog`` proto (``START``, ``STOP``, ``CHECKPOINT``)."""
        self._add_event(protos.Event(session_log=session_log), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Add a step's run metadata under ``tag`` (each tag once).

        ``run_metadata`` is a proto (anything with ``SerializeToString``) or its
        bytes; TensorBoard reads it as TF's ``RunMetadata``.
        """
        if tag in self._run_metadata_tags:
            raise ValueError(f"The provided tag {tag!r} was already used for this event type")
        if isinstance(run_metadata, bytes):
            data = run_metadata
        elif hasattr(run_metadata, "SerializeToString"):
            data = run_metadata.SerializeToString()
        else:
            kind = type(run_metadata).__name__
            raise TypeError(f"add_run_metadata takes a RunMetadata proto or bytes, got {kind}")
        self._run_metadata_tags.add(tag)
        tagged = protos.TaggedRunMetadata(tag=tag, run_metadata=data)
        self._add_event(protos.Event(tagged_run_metadata=tagged), global_step)

    def add_event(self, event):
        """Add an ``Event`` proto as it is."""
        if self._usable():
            self._file.add(event)

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    # -- the file ---------------------------------------------------------------------------
    def get_logdir(self) -> str:
        """The directory this writer writes to."""
        return self._logdir

    def flush(self):
        """Write every pending event to disk."""
        if not self._closed:
            self._file.flush()

    def close(self):
        """Flush and close the event file; :meth:`reopen` starts a new one."""
        if not self._closed:
            self._file.close()
            self._closed = True

    def reopen(self):
        """After :meth:`close`, continue in a new event file in the same directory."""
        if self._closed:
            self._file = _EventFile(self._logdir, *self._options)
            self._closed = False

    def _usable(self) -> bool:
        if self._closed:
            logger.warning(
                "Attempting to use a closed FileWriter. The operation will be a noop unless "
                "the FileWriter is explicitly reopened."
            )
        return not self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<FileWriter logdir={self._logdir!r}{' closed' if self._closed else ''}>"


class FileWriterCache:
    """One shared :class:`FileWriter` per log directory (what hooks and Supervisor use)."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir) -> FileWriter:
        """The writer for ``logdir``, made (with the default graph) on first use."""
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=get_default_graph())
            return FileWriterCache._cache[logdir]

    @staticmethod
    def clear():
        """Close every cached writer and forget them."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
