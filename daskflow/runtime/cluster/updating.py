"""The variables being updated by runs in flight, so that no two runs update one at once.

A cluster step reads its variables' values as they are when it is submitted and
commits new ones when it ends. Two runs updating one variable at once would each
commit what they made of the same value: one update would be lost. TF1 updates
in place, so its concurrent runs add up. A run updating variables therefore holds
them (:meth:`Updating.holding`) from its submission to its commit; a run from
another thread updating one of them waits until then, and reads what it made.
Runs updating other variables go on: a queue runner counting its epochs while
the training loop, waiting on that queue, updates the model. Local variables
(an input producer's epoch count, a metric's total) are not held: each is one
thread's, and its run may wait on a queue for as long as the program runs.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence

logger = logging.getLogger(__name__)
PATIENCE = 30.0  # seconds a run waits for another thread's variables before a warning says so


class Updating:
    """Which thread holds which variable for its run (a thread may ask again for one it holds)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held: dict[str, int] = {}  # variable name -> ident of the thread holding it

    @contextlib.contextmanager
    def holding(self, names: Sequence[str]) -> Iterator[None]:
        """Hold ``names`` for the body, once no other thread holds one of them. Past
        :data:`PATIENCE` seconds of waiting a warning names them, once: should the holder
        wait on something only this run would do (a queue), the program hangs, and says where."""
        me = threading.get_ident()
        with self._changed:
            warned = False
            while others := [name for name in names if self._held.get(name, me) != me]:
                if not self._changed.wait(PATIENCE) and not warned:
                    warned = True
                    logger.warning(
                        "daskflow: a run has waited %g s for variables another thread's run updates: %s",
                        PATIENCE,
                        sorted(others)[:5],
                    )
            taken = [name for name in names if name not in self._held]  # not those held already
            self._held.update(dict.fromkeys(taken, me))
        try:
            yield
        finally:
            with self._changed:
                for name in taken:
                    del self._held[name]
                self._changed.notify_all()

    def held(self) -> dict:
        """Variable name -> the ident of the thread holding it, now."""
        with self._changed:
            return dict(self._held)
