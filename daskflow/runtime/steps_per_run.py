"""Several steps in one run: ``ConfigProto(steps_per_run=K)``.

On a cluster a step of a small model costs more in Dask's round trip than in
computation, so a training run whose inputs come from a ``tf.data`` dataset
(read on the workers) runs K steps in one submission (TPUEstimator's
``iterations_per_loop``, Keras's ``steps_per_execution``): each partition's
task runs its program K times (:func:`.worker.programs.run_loop`). A run
counts K steps everywhere — embedded, on a cluster, between-graph — so a
program trains the same wherever it runs; only the cost differs.

What a run of K steps returns and keeps:

* fetched tensors are the last step's, and a fetched variable its value as
  the last step starts, as a one-step run reads it;
* when step k fails, the error (of the failing op's type) names it, and the
  variables keep the k - 1 steps before it where every update finished them
  (else they are as before the run).
"""

from __future__ import annotations

from ..errors import OpError


def loops(executable, graph) -> bool:
    """Whether ``executable`` is a training step over a dataset (it reads an iterator and
    updates a global variable; an evaluation's metrics update local ones): K of it make one run."""
    trains = getattr(executable, "trains", None)
    if trains is None:
        names = {v.op.name for v in graph.get_collection("variables")} if executable.reads_dataset else ()
        trains = executable.trains = any(u.name in names for u in executable.updates)
    return trains


def failed_step(error) -> int | None:
    """The round (0-based) in which a several-step run failed, as its partition noted it."""
    for e in (error, error.__cause__, error.__context__):
        step = getattr(e, "daskflow_step", None)
        if step is not None:
            return step
    return None


def one_by_one(step, steps, total=None, first=0):
    """Call ``step()`` ``steps`` times, each a whole step committed as it finishes, as steps
    ``first``... of a run of ``total``; the last one's results. An ``OpError`` names its step
    and says the steps before it are kept."""
    results = None
    for k in range(first, first + steps):
        try:
            results = step()
        except OpError as e:
            raise naming_step(e, k, total or steps, k) from e
    return results


def naming_step(error, k, steps, kept):
    """``error`` again, of its type, saying that step ``k`` (0-based) of ``steps`` failed and
    how many of the steps before it the variables keep (``kept``)."""
    if not isinstance(error, OpError) or k is None:
        return error
    if kept:
        outcome = f"the variables keep the {kept} step{'s' if kept > 1 else ''} before it"
    else:
        outcome = "the variables are as they were before this run"
    where = f"in step {k + 1} of the {steps} of this run (ConfigProto(steps_per_run={steps}))"
    message = f"{error.message} [{where}; {outcome}]"
    named = type(error)(error.node_def, error.op, message)
    named.daskflow_step = k
    return named
