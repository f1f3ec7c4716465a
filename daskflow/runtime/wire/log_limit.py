"""Warnings about what peers send, at most once a minute per peer, with a count.

A peer that keeps sending what is refused (a port scanner, a stale process from another
run) would otherwise write a log line per attempt: hundreds of thousands a minute, a denial
of service by disk. The first refusal of a peer is logged at once; the next ones in the
same minute are counted and said with the next line logged for that peer. Every refusal
is also logged at debug level, for whoever is looking into one.
"""

from __future__ import annotations

import logging
import threading
import time


class OncePerPeer:
    """``limit(peer, detail, who=peer)``: log ``message % (peer, detail)`` as a warning for a
    peer at most once per ``seconds`` (a line after others were held back says how many);
    each one, with ``who`` (the peer's address and port), at debug level."""

    def __init__(self, logger: logging.Logger, message: str, seconds: float = 60.0) -> None:
        self._logger, self._message, self._seconds = logger, message, seconds
        self._lock = threading.Lock()
        self._peers: dict[str, list] = {}  # peer -> [time last logged, refusals since]

    def __call__(self, peer: str, detail: object, who: str | None = None) -> None:
        self._logger.debug(self._message, who or peer, detail)
        now = time.monotonic()
        with self._lock:
            seen = self._peers.get(peer)
            if seen is not None and now - seen[0] < self._seconds:
                seen[1] += 1
                return
            skipped = seen[1] if seen is not None else 0
            self._peers[peer] = [now, 0]
            if len(self._peers) > 10_000:  # many peers: forget the quiet ones
                self._peers = {p: v for p, v in self._peers.items() if now - v[0] < self._seconds}
        more = f" (and {skipped} more refused since the last such line)" if skipped else ""
        self._logger.warning(self._message + "%s", peer, detail, more)
