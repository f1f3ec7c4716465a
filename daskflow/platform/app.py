"""TF1's ``tf.app``: the entry point of a script, ``run``, and its ``flags``.

Examples
--------
A TF1 script keeps its shape::

    import daskflow as tf

    tf.app.flags.DEFINE_integer("steps", 100, "Training steps.")
    FLAGS = tf.app.flags.FLAGS

    def main(argv):
        print(FLAGS.steps, argv[1:])

    if __name__ == "__main__":
        tf.app.run()
"""

import sys

from absl import app as _absl_app

from . import flags

__all__ = ["flags", "run"]


def run(main=None, argv=None):
    """Parse the command line's flags, call `main`, exit with its result.

    Parameters
    ----------
    main : callable or None, optional
        Called as ``main(argv)`` with the arguments no flag claimed
        (``argv[0]`` is the program name). If None, the ``main`` function of
        the ``__main__`` module is used.
    argv : list of str or None, optional
        Command line to parse, program name first; default ``sys.argv``.

    Raises
    ------
    SystemExit
        Always: ``sys.exit(main(argv))``, so a ``main`` returning None exits
        with status 0 and one returning an int exits with that status.
    absl.flags.IllegalFlagValueError
        If a defined flag is given a value of the wrong kind.
    AttributeError
        If `main` is None and ``__main__`` has no ``main`` function.

    Notes
    -----
    As in TF1, arguments that name no defined flag are passed on to `main`
    instead of being rejected, and ``--help``, ``--helpshort`` and
    ``--helpfull`` print the usage and exit with status 1.

    Examples
    --------
    >>> import pytest
    >>> with pytest.raises(SystemExit) as done:
    ...     run(lambda argv: len(argv), argv=["prog", "a", "b"])
    >>> done.value.code
    3
    """
    _absl_app.define_help_flags()
    rest = flags.FLAGS(sys.argv if argv is None else list(argv), known_only=True)
    if main is None:
        main = _main_of_main_module()
    sys.exit(main(rest))


def _main_of_main_module():
    module = sys.modules["__main__"]
    try:
        return module.main
    except AttributeError:
        name = getattr(module, "__file__", None) or "__main__"
        raise AttributeError(
            f"app.run() was given no main and the __main__ module ({name}) defines no 'main' function"
        ) from None
