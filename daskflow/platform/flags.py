"""TF1's ``tf.flags`` (also ``tf.app.flags``): absl's flags, as TF1 shipped them.

Everything in :mod:`absl.flags` is here under the same name (``DEFINE_string``,
``DEFINE_integer``, ``DEFINE_enum``, ``DEFINE_multi_string``...), and flags
defined here are absl flags, shared with any absl code in the process.
Three things are TF1's own:

- ``DEFINE_string``, ``DEFINE_integer``, ``DEFINE_float`` and
  ``DEFINE_boolean``/``DEFINE_bool`` also take the pre-absl keyword names
  ``flag_name``, ``default_value`` and ``docstring``.
- Reading a flag from :data:`FLAGS` before anything parsed the command line
  parses ``sys.argv`` first, instead of raising absl's
  ``UnparsedFlagAccessError``. Arguments no flag claims (what pytest or a
  Jupyter kernel put in ``sys.argv``) are left alone rather than rejected.
- The pre-absl spellings ``FLAGS._parse_flags(args=None)`` and
  ``FLAGS.__flags`` (a ``{name: value}`` dict) still work.

Examples
--------
>>> from daskflow.platform import flags
>>> _ = flags.DEFINE_integer("doc_example_steps", 10, "Training steps.")
>>> flags.FLAGS(["prog", "--doc_example_steps=3", "rest"], known_only=True)
['prog', 'rest']
>>> flags.FLAGS.doc_example_steps
3
"""

import functools
import sys

import absl.flags as _absl
from absl.flags import *  # noqa: F403 - this module is absl.flags, as in TF1

# The DEFINE wrappers below run in this module; absl must credit the flags
# to the module that called them, not to this one.
_absl.disclaim_key_flags()

_OLD_KEYWORDS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_keywords(define):
    """Wrap an absl DEFINE function so it also takes TF's pre-absl keywords."""

    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        for old, new in _OLD_KEYWORDS.items():
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{define.__name__}() got both {old!r} and {new!r}")
                kwargs[new] = kwargs.pop(old)
        return define(*args, **kwargs)

    return wrapper


DEFINE_string = _accept_old_keywords(_absl.DEFINE_string)
DEFINE_integer = _accept_old_keywords(_absl.DEFINE_integer)
DEFINE_float = _accept_old_keywords(_absl.DEFINE_float)
DEFINE_boolean = _accept_old_keywords(_absl.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean


class _FlagValuesWrapper:
    """absl's ``FLAGS`` that parses ``sys.argv`` on the first read of a flag.

    Every attribute, item and call goes to the wrapped ``FlagValues``; only a
    read of an unparsed flag and the pre-absl spellings are handled here.
    """

    def __init__(self, flag_values):
        object.__setattr__(self, "_wrapped", flag_values)

    def __getattribute__(self, name):
        wrapped = object.__getattribute__(self, "_wrapped")
        if name == "_parse_flags":
            return object.__getattribute__(self, "_parse_flags")
        if name == "__flags":
            _parse_if_needed(wrapped)
            return wrapped.flag_values_dict()
        return type(wrapped).__getattribute__(wrapped, name)

    def __getattr__(self, name):
        # Only reached for names that are not plain attributes: the flags.
        wrapped = object.__getattribute__(self, "_wrapped")
        _parse_if_needed(wrapped)
        return wrapped.__getattr__(name)

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_wrapped"), name, value)

    def __delattr__(self, name):
        delattr(object.__getattribute__(self, "_wrapped"), name)

    def __dir__(self):
        return dir(object.__getattribute__(self, "_wrapped"))

    def __getitem__(self, name):
        return object.__getattribute__(self, "_wrapped")[name]

    def __setitem__(self, name, flag):
        object.__getattribute__(self, "_wrapped")[name] = flag

    def __contains__(self, name):
        return name in object.__getattribute__(self, "_wrapped")

    def __len__(self):
        return len(object.__getattribute__(self, "_wrapped"))

    def __iter__(self):
        return iter(object.__getattribute__(self, "_wrapped"))

    def __str__(self):
        return str(object.__getattribute__(self, "_wrapped"))

    def __call__(self, *args, **kwargs):
        return object.__getattribute__(self, "_wrapped")(*args, **kwargs)

    def _parse_flags(self, args=None):
        """Parse `args` (default ``sys.argv``), keep unknown ones; return the rest."""
        wrapped = object.__getattribute__(self, "_wrapped")
        return wrapped(sys.argv if args is None else list(args), known_only=True)


def _parse_if_needed(flag_values):
    # TF1 read sys.argv here; known_only keeps the arguments of pytest or a
    # Jupyter kernel (``-f kernel.json``) from being rejected as unknown flags.
    if not flag_values.is_parsed():
        flag_values(sys.argv or ["python"], known_only=True)


FLAGS = _FlagValuesWrapper(_absl.FLAGS)
