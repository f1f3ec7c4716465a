"""Reading arrays straight out of the sending process's memory, on one machine.

A socket moves a message's bytes twice: the sender's write copies them into
the kernel and the reader's read copies them out, each costing CPU on its
side; Linux's ``process_vm_readv`` copies them once, from the sender's pages
into the reader's, in about half the time (``benchmarks/RESULTS.md``, design
measurements). A data-parallel step on one machine moves several MLP-sized
sets of gradients and values, and its cores have no CPU to spare.

So :mod:`.bulk` also listens on a Unix socket in Linux's abstract namespace
(:func:`listen`), which only processes of the same machine and network
namespace reach; its connections prove their session as the TCP ones do
(:mod:`.bulk`'s handshake). A sender that reaches it sends each array's
address instead of its bytes, and the receiver reads them from the process at the other end
of that connection: the kernel names it (``SO_PEERCRED``), so a sender can
make a receiver read only its own memory, and only a sender of the
receiver's own user is read at all (any local process may connect to an
abstract socket; one of the same user could read the memory anyway). A
sender likewise uses the Unix socket only for a receiver whose host address
is one of this machine's, and only where the process listening there is of
its own user: another local process could otherwise take a remote
receiver's name and be sent its data. The receiver checks that the sender
is still waiting after copying: a sender that gave up (its send timed out)
may have freed the arrays, and such a copy is dropped. Where the kernel refuses the read
— Yama's ``ptrace_scope`` 1 (Ubuntu's default) refuses it between processes
that are not parent and child, and so may a container's seccomp profile —
the receiver asks for the bytes, and that connection sends bytes from then
on. The Dask config ``daskflow.bulk-in-place: false`` turns this off.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import socket
import struct
import sys
from typing import Any

logger = logging.getLogger(__name__)

_CHUNK = 1 << 30  # bytes per call: the kernel caps one transfer near 2 GiB


class _IoVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


def _process_vm_readv() -> Any:
    """libc's ``process_vm_readv``, or None where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        call = ctypes.CDLL(None, use_errno=True).process_vm_readv
    except (OSError, AttributeError):
        return None
    call.restype = ctypes.c_ssize_t
    iov = ctypes.POINTER(_IoVec)
    call.argtypes = [ctypes.c_int, iov, ctypes.c_ulong, iov, ctypes.c_ulong, ctypes.c_ulong]
    return call


_READV = _process_vm_readv()
AVAILABLE = _READV is not None


def local_name(token: str) -> str:
    """The abstract Unix socket name of the receiver whose token is ``token``."""
    return f"\0daskflow-bulk-{token}"


def listen(token: str) -> socket.socket | None:
    """A listening Unix socket for this machine's senders; None where there can be none.

    Callers check :func:`.bulk.in_place_enabled` (Linux, and not turned off) first; so does
    :func:`connect`'s.
    """
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(local_name(token))
        server.listen()
    except OSError:
        server.close()
        return None
    return server


def connect(host: str, token: str, timeout: float) -> socket.socket | None:
    """A connection to the receiver ``token`` at ``host``, if that is this machine; else None."""
    if not is_local(host):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(local_name(token))
    except OSError:  # another network namespace, or a receiver that has gone
        sock.close()
        return None
    if peer_pid(sock) is None:  # listened for by another user: not ours to trust
        sock.close()
        return None
    return sock


@functools.lru_cache(maxsize=256)
def is_local(host: str) -> bool:
    """Whether ``host`` (an IP address) is one of this machine's: only those can be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, 0))
        except OSError:
            return False
    return True


def peer_pid(conn: socket.socket) -> int | None:
    """The pid of the process at the other end of the Unix socket ``conn``, as the kernel says;
    None where it is of another user or out of sight (another pid namespace)."""
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return None
    pid, uid, _ = struct.unpack("3i", raw)
    if uid != os.geteuid():
        return None
    return pid or None  # 0: in a pid namespace this process cannot see


def still_waiting(conn: socket.socket) -> bool:
    """Whether the sender at the other end of ``conn`` has not hung up (it waits for a reply)."""
    timeout = conn.gettimeout()
    conn.settimeout(0.0)  # with a timeout set, Python would wait for data before peeking
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True  # nothing to read: still connected, waiting
    except OSError:
        return False
    finally:
        conn.settimeout(timeout)


def read(pid: int, address: int, out: Any) -> bool:
    """Fill the writable C-contiguous uint8 array ``out`` from ``pid``'s memory at ``address``.

    Returns False where the kernel refuses (or the range is not mapped there).
    """
    done, total, base = 0, out.nbytes, out.ctypes.data
    while done < total:
        n = min(_CHUNK, total - done)
        local, remote = _IoVec(base + done, n), _IoVec(address + done, n)
        got = _READV(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got != n:  # short where the range is partly unmapped: the sender's error either way
            errno = ctypes.get_errno()
            logger.debug("process_vm_readv from pid %d: %d of %d bytes, errno %d", pid, got, n, errno)
            return False
        done += n
    return True
