"""The bulk transport: large tensors between processes over plain sockets, read on threads.

Dask's comms read a message on the event loop, woken for each chunk the
socket holds, which costs over twice the CPU and wall time of a blocking
socket read on a thread (``benchmarks/RESULTS.md``, design measurements).
A data-parallel step moves several megabyte-sized arrays — each tower's
gradients, the new variable values pushed to the towers, the fed batches —
and every millisecond of CPU spent moving them is taken from the towers.

So a worker running daskflow steps also listens on a second port of its
host (:class:`.receiver.Receiver`, which the worker's
:class:`...worker.state.WorkerState` holds and closes with the worker), and
values made only of numeric arrays go there (:func:`.sender.send`), each over one
connection per destination and session written by its own thread
(:class:`.sender._Link`); small ones too: a Dask rpc, with its reply and the
``sizeof`` of every message, costs more than a write on a thread. What
arrives is handed to the worker's event loop, as Dask's comm handler would.

Only a session's own processes may send there. Each session makes a random
secret (:class:`..trust.Credentials`) that reaches its workers inside its programs'
worker plugin, over Dask's own comms (TLS where the cluster is), and is
forgotten there when the session closes. A connection starts with a
handshake: the receiver sends a random challenge, the sender answers with
its session's id and HMAC-SHA256(secret, challenge || "hello"); a receiver
that does not know the session, or finds the wrong MAC, hangs up having read
a few dozen bytes. Each message is then an 8-byte length, a msgpack header
(what the message is for, the receiver's token, each item's dtype and
shape), a MAC of that header keyed by the secret and chained to the
challenge and the message's number on the connection (:class:`.protocol.Seal`: a
message replayed, here or on another connection, is refused), and the
items' bytes. The bytes themselves carry no MAC: hashing them costs more
than reading them does, and a peer that could alter them on the wire could
read Dask's plaintext ``tcp://`` comms, secret included.

Before it allocates or reads an item the receiver checks the header's MAC,
its token (a port reused by another receiver), each item's dtype (numeric
only: nothing received is unpickled or evaluated) and shape, the message's
destination (a ``check`` the worker gives: :func:`..rendezvous.refusal`), and
its size against ``daskflow.bulk-max-bytes`` and against what the session's
messages already hold here unclaimed (``daskflow.bulk-max-buffered``); any
mismatch closes the connection, with a warning naming why. A handshake must
end within ``daskflow.bulk-handshake-timeout`` seconds and a message, once
begun, may stall at most ``daskflow.bulk-read-timeout`` seconds per read.
The receiver acknowledges each message once it has handed it on, so a send
completes only when the value is there; a send that fails (refused, or the
receiver restarted) is sent again on Dask's comms. Only ``tcp://`` workers
serve it; on TLS clusters (and where ``daskflow.bulk-transfers`` is false)
values keep to Dask's comms.

Between processes of one Linux machine the bytes need not cross a socket at
all: the receiver also listens on a Unix socket named after its token, and
a sender that reaches it (with the same handshake) sends each array's
address (the header's ``at``) instead; the receiver copies the arrays out of
the sender's memory while the sender waits for the acknowledgement
(:mod:`..inplace`), or answers ``RESEND`` and reads the bytes where the kernel
refuses.

The package is split by role: :mod:`.protocol` (the handshake, framing and
checks both ends share), :mod:`.receiver` (a worker's listening sockets and
reader threads), :mod:`.sender` (sender threads and this process's link
table); what other modules use is imported here.
"""

from ..trust import Credentials, Sessions
from .protocol import (
    ACK,
    CHALLENGE,
    HANDLER,
    HELLO,
    RESEND,
    BulkFormatError,
    Message,
    Seal,
    describe,
    eligible,
    handshake,
    hello_mac,
    in_place_enabled,
    max_buffered,
    max_bytes,
    read_message,
)
from .receiver import (
    Receiver,
    serve,
)
from .sender import (
    CLIENT_SESSIONS,
    close_links,
    forget,
    known,
    lookup,
    send,
    submit,
)

__all__ = [
    "ACK",
    "BulkFormatError",
    "CHALLENGE",
    "CLIENT_SESSIONS",
    "Credentials",
    "HANDLER",
    "HELLO",
    "Message",
    "RESEND",
    "Receiver",
    "Seal",
    "Sessions",
    "close_links",
    "describe",
    "eligible",
    "forget",
    "handshake",
    "hello_mac",
    "in_place_enabled",
    "known",
    "lookup",
    "max_buffered",
    "max_bytes",
    "read_message",
    "send",
    "serve",
    "submit",
]
