"""The ``daskflow`` command line.

``daskflow demo`` trains a small MLP on scikit-learn's digits (bundled with
the package, nothing downloaded) in an embedded Session, with a progress
bar, and prints the test accuracy.

``daskflow launch SCRIPT -- ARGS`` runs a TF1 between-graph script once per
task of a local cluster, with a Dask scheduler for them
(:mod:`daskflow.launcher`).

``daskflow doctor [--scheduler ADDRESS]`` prints what this machine offers
daskflow (versions, BLAS and its threads, numba, cupy and its GPUs) and the
workers of a running cluster as TF tasks (:mod:`daskflow.doctor`).

:func:`main` is the console entry point; :data:`cli` is the click group.
"""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import click

import daskflow as tf

from . import __version__
from .datasets import load_digits
from .doctor import DEFAULT_TIMEOUT, DoctorError, report
from .launcher import launch


def build_mlp(tf, features, hidden, classes, seed):
    """A one-hidden-layer MLP; returns (x, y_, logits)."""
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, features], name="x")
    y_ = tf.placeholder(tf.float32, [None, classes], name="y_")
    with tf.name_scope("hidden"):
        w1 = tf.Variable(tf.truncated_normal([features, hidden], stddev=0.1), name="weights")
        b1 = tf.Variable(tf.zeros([hidden]), name="biases")
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.name_scope("softmax_linear"):
        w2 = tf.Variable(tf.truncated_normal([hidden, classes], stddev=0.1), name="weights")
        b2 = tf.Variable(tf.zeros([classes]), name="biases")
        logits = tf.matmul(h, w2) + b2
    return x, y_, logits


def demo(args) -> float:
    from tqdm import tqdm

    data = load_digits(one_hot=True, seed=args.seed)
    tf.reset_default_graph()
    x, y_, logits = build_mlp(tf, data.train.images.shape[1], args.hidden, 10, args.seed)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss, global_step=global_step)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    start = time.perf_counter()
    with tf.Session(None) as sess:  # embedded, whatever cluster the environment names
        sess.run(tf.global_variables_initializer())
        bar = tqdm(range(args.steps), desc="training", unit="step", disable=args.quiet)
        for i in bar:
            xs, ys = data.train.next_batch(args.batch_size)
            _, value = sess.run([train_op, loss], {x: xs, y_: ys})
            if i % 50 == 0:
                bar.set_postfix(loss=f"{value:.3f}")
        bar.close()
        acc = sess.run(accuracy, {x: data.test.images, y_: data.test.labels})
        step = sess.run(global_step)
    elapsed = time.perf_counter() - start
    print(f"test accuracy: {acc:.4f}  ({step} steps, {data.test.num_examples} test digits, {elapsed:.1f} s)")
    return float(acc)


def _print_version(ctx, param, value):
    if not value or ctx.resilient_parsing:
        return
    click.echo(__version__)
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print daskflow's version and exit.",
)
def cli():
    """TensorFlow 1.x graphs, run by Dask."""


@cli.command("demo")
@click.option("--steps", type=click.IntRange(min=1), default=1500, show_default=True, help="Training steps.")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True, help="Batch size.")
@click.option("--hidden", type=click.IntRange(min=1), default=128, show_default=True, help="Hidden units.")
@click.option("--learning-rate", type=float, default=0.005, show_default=True, help="Adam's learning rate.")
@click.option("--seed", type=int, default=0, show_default=True, help="Graph and data seed.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def _demo_command(**options):
    """Train an MLP on the bundled digits (embedded session)."""
    demo(SimpleNamespace(**options))
    return 0


_LAUNCH_HELP = """Run SCRIPT once per task of a TF1 cluster on this machine.

Starts a Dask scheduler (with daskflow's dashboard page) unless --scheduler
is given, picks a free port for every task and starts `python SCRIPT
[FLAGS] [SCRIPT_ARGS]` per task, with DASK_SCHEDULER_ADDRESS and TF1's
TF_CONFIG set. Each output line is prefixed with its task ([ps-0],
[worker-1], ...). When the chief (chief-0 with --chief, else worker-0) ends,
the other workers get --grace seconds, then the rest (parameter servers,
the scheduler) is stopped; the chief's exit code is the launcher's. A
parameter server that ends first stops everything (exit code 1); Ctrl-C
stops everything (exit code 130).

Put the script's own arguments after `--`. Example, TF1's mnist_replica.py
with one parameter server and two workers:

\b
    daskflow launch mnist_replica.py --ps 1 --workers 2 -- --train_steps=200

A Horovod script's four ranks (as `horovodrun -np 4 python train.py`):

\b
    daskflow launch --np 4 train.py

An elastic one (`hvd.elastic.run`), which goes on with two or three ranks
while a lost rank's slot is started again:

\b
    daskflow launch --np 4 --min-np 2 train.py
"""


@cli.command("launch", help=_LAUNCH_HELP, short_help="Run a TF1 between-graph script, one process per task.")
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--ps",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Number of parameter-server tasks (job 'ps').",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Number of worker tasks (job 'worker'); worker 0 is the chief without --chief.",
)
@click.option(
    "--chief/--no-chief",
    default=False,
    show_default=True,
    help="Add a separate 'chief' task 0, which is then the chief instead of worker 0.",
)
@click.option(
    "--evaluator/--no-evaluator",
    default=False,
    show_default=True,
    help="Add an 'evaluator' task, outside the cluster dict as in TF1's TF_CONFIG.",
)
@click.option(
    "--flags/--no-flags",
    default=True,
    show_default=True,
    help="Pass --job_name, --task_index, --ps_hosts and --worker_hosts to every task "
    "(TF_CONFIG is set either way).",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Host the scheduler and every task's port are on."
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Use the running Dask scheduler at ADDRESS instead of starting one.",
)
@click.option(
    "--grace",
    type=click.FloatRange(min=0),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds the other workers get to finish after the chief ends, before they are stopped.",
)
@click.option(
    "--python",
    metavar="PATH",
    default=sys.executable,
    show_default=True,
    help="Python interpreter that runs the tasks and the scheduler.",
)
@click.option(
    "--np",
    "np",
    type=click.IntRange(min=1),
    default=None,
    help="Run NP ranks of a Horovod script (`import daskflow.horovod as hvd`), as `horovodrun -np NP`: "
    "tasks worker-0..NP-1, no parameter server, no flags; one rank failing stops them all.",
)
@click.option(
    "--min-np",
    type=click.IntRange(min=1),
    default=None,
    help="Make the NP ranks an elastic job (`hvd.elastic`, as `horovodrun --min-np`): a rank that dies is "
    "dropped and the others go on; below MIN_NP ranks the job waits for more.",
)
@click.option(
    "--max-np",
    type=click.IntRange(min=1),
    default=None,
    help="Elastic: start a lost rank's slot again while fewer than MAX_NP ranks run (default NP).",
)
@click.option(
    "--reset-limit",
    type=click.IntRange(min=0),
    default=None,
    help="Elastic: how many times lost slots are started again (default NP).",
)
@click.option(
    "--elastic-timeout",
    type=click.FloatRange(min=0),
    default=600.0,
    show_default=True,
    metavar="SECONDS",
    help="Elastic: how long the job may wait with fewer than MIN_NP ranks.",
)
def _launch_command(script, script_args, **options):
    try:
        return launch(script, script_args, **options)
    except (RuntimeError, OSError, ValueError) as e:
        raise click.ClickException(str(e)) from e


@cli.command("doctor", short_help="Versions, BLAS, numba, GPUs, a cluster's TF tasks.")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="A running Dask scheduler to check, with its workers (default: DASK_SCHEDULER_ADDRESS).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Seconds to reach the scheduler.",
)
def _doctor_command(scheduler, timeout):
    """Print what daskflow finds here: versions, BLAS and its threads, numba, cupy and the
    GPUs it sees; with a scheduler, its workers as TF tasks (exit status 1 if unreachable)."""
    try:
        lines = report(scheduler, timeout)
    except DoctorError as e:
        click.echo("\n".join(e.lines))
        raise click.ClickException(str(e)) from None
    click.echo("\n".join(lines))
    return 0


def main(argv=None) -> int:
    """Run the ``daskflow`` command line; return its exit code.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (``sys.argv[1:]`` by default).

    Returns
    -------
    int
        0 on success, 2 for a usage error, 130 after Ctrl-C, 1 for other
        errors; ``launch`` returns its chief's exit code.

    Examples
    --------
    >>> # Not run in the suite: the demo trains for over a second (and prints its time).
    >>> main(["demo", "--steps", "20", "--quiet"])  # doctest: +SKIP
    test accuracy: 0.89...  (20 steps, 360 test digits, ... s)
    0
    """
    try:
        code = cli.main(args=argv, prog_name="daskflow", standalone_mode=False)
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.Abort as e:  # click's name for Ctrl-C (and for end of input at a prompt)
        click.echo("Aborted!", err=True)
        return 130 if isinstance(e.__cause__, KeyboardInterrupt) else 1
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
