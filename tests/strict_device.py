"""A strict stand-in for the ``cupy`` module, so kernels prove portable on a machine with no GPU.

daskflow's kernels are written against an array namespace ``xp``: numpy on
the CPU, cupy on a GPU. A kernel that calls ``np.something`` on its input, or
relies on numpy-only behaviour, passes every CPU test and breaks on the first
GPU. This module plays cupy with numpy underneath, and fails loudly wherever
real cupy would fail or would silently copy to the host:

- :class:`DeviceArray` (``cupy.ndarray``) wraps a numpy array "on a device".
  Converting it to numpy implicitly raises ``TypeError`` as cupy does, so
  ``np.asarray(a)``, ``np.concatenate([a])`` and numpy ufuncs on it fail, and
  numpy's functions that delegate to an array's method (``np.sum(a)``,
  ``np.reshape(a, ...)``) fail too: a kernel must call ``xp``.
- Mixing a host ``np.ndarray`` with device arrays in an operator or an ``xp``
  function raises ``TypeError`` as cupy does; only ``asarray`` and friends
  upload host data (explicitly). Python and numpy scalars mix freely.
- ``cupy`` (the namespace) has exactly cupy 14's names, read from
  ``tests/fixtures/cupy_names.json``: a name numpy has and cupy lacks raises
  ``AttributeError``. Ufunc methods follow cupy's support (``add.at``, but no
  ``multiply.at``; ``reduce`` only for ``add`` and ``multiply``).
- ``cupy.scipy_special`` plays ``cupyx.scipy.special`` (its names, over scipy's functions),
  where daskflow's special-function kernels look for a stand-in's own.
- The device plumbing daskflow's runtime calls: ``cuda.Device(k)``,
  ``cuda.runtime.getDeviceCount()``, ``get_default_memory_pool()``,
  ``cuda.Stream.null.synchronize()``.

It is a test tool only; daskflow never imports it.

Examples
--------
>>> from tests.strict_device import cupy as xp
>>> a = xp.asarray([1.0, 2.0])
>>> float((a * 2).sum())
6.0
>>> xp.asnumpy(a + 1)
array([2., 3.])
"""

from __future__ import annotations

import json
import pathlib
import sys
import types
import weakref

import numpy as np
import scipy.special

NAMES = json.loads(pathlib.Path(__file__).with_name("fixtures").joinpath("cupy_names.json").read_text())
DEVICE_COUNT = 1
host_copies = 0  # explicit device-to-host copies that cupy allows but a kernel should not make

_live = weakref.WeakValueDictionary()  # id -> live DeviceArray, for the pool's used_bytes()
_current_device = [0]


def _count_host_copy():
    global host_copies
    host_copies += 1


# -- what crosses into numpy, and what comes back ---------------------------------------------


def _is_host_array(x):
    """A numpy array with data (not 0-d): cupy refuses to mix it with device arrays."""
    return type(x) is np.ndarray and x.ndim > 0


def _unwrap(x, where, host_ok=False):
    """``x`` with DeviceArrays replaced by their numpy arrays (inside lists and tuples too)."""
    if isinstance(x, DeviceArray):
        return x._a
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v, where, host_ok) for v in x)
    if not host_ok and _is_host_array(x):
        raise TypeError(f"Unsupported type {type(x)} in {where}: a host array mixed with device arrays")
    return x


def _wrap(r, given=()):
    """numpy results as DeviceArrays (0-d for scalars, as cupy returns); ``given`` keeps identity."""
    if isinstance(r, np.ndarray):
        for d in given:
            if d._a is r:
                return d
        return DeviceArray(r)
    if isinstance(r, np.generic):
        return DeviceArray(np.asarray(r))
    if isinstance(r, (list, tuple)) and not hasattr(r, "_fields"):
        return type(r)(_wrap(v, given) for v in r)
    if hasattr(r, "_fields"):  # numpy's result tuples (slogdet, unique_all...)
        return type(r)(*(_wrap(v, given) for v in r))
    return r


def _devices_in(args):
    out = []
    for a in args:
        if isinstance(a, DeviceArray):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(_devices_in(a))
    return out


def _call(fn, where, args, kwargs, host_ok=False, given=()):
    given = [*given, *_devices_in(list(args) + list(kwargs.values()))]
    args = _unwrap(args, where, host_ok)
    kwargs = {k: _unwrap(v, where, host_ok) for k, v in kwargs.items()}
    return _wrap(fn(*args, **kwargs), given)


def _refuse_numpy_caller(name):
    """numpy's functions call an array's method of the same name (``np.sum(a)`` -> ``a.sum()``)."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    if caller == "numpy" or caller.startswith("numpy."):
        raise TypeError(f"numpy.{name} called on a device array: use xp.{name} in the kernel")


# -- the array ---------------------------------------------------------------------------------

_ARRAY_METHODS = frozenset(NAMES["ndarray"])
_PLAIN_ATTRIBUTES = {"shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"}
_UNMODELLED = {"data", "flat", "cstruct", "mdspan", "toDlpack", "dump", "dumps", "tofile", "scatter_add"}
_UNMODELLED |= {"scatter_max", "scatter_min", "reduced_view"}
_DEVICE_KINDS = frozenset("biufc")  # no strings, objects, records or datetimes on a GPU


class DeviceArray:
    """An array on the stand-in device (``cupy.ndarray``): numpy inside, never given to numpy."""

    __slots__ = ("_a", "device", "__weakref__")
    __array_ufunc__ = None  # numpy scalars and arrays defer to our reflected operators, as with cupy
    __hash__ = None

    def __init__(self, a: np.ndarray):
        if a.dtype.kind not in _DEVICE_KINDS:
            raise TypeError(f"Unsupported dtype {a.dtype}: cupy arrays hold numbers and booleans only")
        self._a = a
        self.device = _Device(_current_device[0])
        _live[id(self)] = self

    def __array__(self, dtype=None, copy=None):
        raise TypeError("implicit conversion of a device array to a host (numpy) array")

    def __repr__(self):
        return f"DeviceArray({self._a!r})"

    def __getattr__(self, name):
        if name in _PLAIN_ATTRIBUTES:
            return getattr(self._a, name)
        if name not in _ARRAY_METHODS or name in _UNMODELLED:
            raise AttributeError(f"cupy.ndarray has no {name!r} in the stand-in")
        value = getattr(self._a, name)
        if not callable(value):
            return _wrap(value)

        def method(*args, **kwargs):
            _refuse_numpy_caller(name)
            return _call(value, f"ndarray.{name}", args, kwargs, given=(self,))

        return method

    # explicit transfers and values cupy gives as Python objects (they synchronize)
    def get(self, stream=None, order="C", out=None):
        return self._a.copy()

    def set(self, arr, stream=None):
        self._a[...] = arr

    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        _count_host_copy()
        return self._a.tolist()

    def tobytes(self, order="C"):
        _count_host_copy()
        return self._a.tobytes(order)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __bool__(self):
        return bool(self._a)

    def __index__(self):
        return self._a.__index__()

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (DeviceArray(np.asarray(v)) for v in self._a)

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, "indexing", host_ok=True)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key, "indexing", host_ok=True)] = _unwrap(value, "item assignment")

    @property
    def flags(self):
        """cupy's flags: no ``writeable`` (a device array always is)."""
        f = self._a.flags
        return types.SimpleNamespace(
            c_contiguous=f.c_contiguous, f_contiguous=f.f_contiguous, owndata=f.owndata
        )

    @property
    def base(self):
        return None if self._a.base is None else DeviceArray(self._a.base)


def _binary(name):
    op = getattr(np.ndarray, name)

    def method(self, other):
        if _is_host_array(other):
            raise TypeError(f"Unsupported type {type(other)}: {name} of a device and a host array")
        return _wrap(op(self._a, _unwrap(other, name)))

    return method


def _inplace(name):
    op = getattr(np.ndarray, name)

    def method(self, other):
        if _is_host_array(other):
            raise TypeError(f"Unsupported type {type(other)}: {name} of a device and a host array")
        op(self._a, _unwrap(other, name))
        return self

    return method


def _unary(name):
    op = getattr(np.ndarray, name)
    return lambda self: _wrap(op(self._a))


_OPS = "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split()
for _op in _OPS:
    setattr(DeviceArray, f"__{_op}__", _binary(f"__{_op}__"))
    setattr(DeviceArray, f"__r{_op}__", _binary(f"__r{_op}__"))
    setattr(DeviceArray, f"__i{_op}__", _inplace(f"__i{_op}__"))
for _op in "lt le gt ge eq ne divmod".split():
    setattr(DeviceArray, f"__{_op}__", _binary(f"__{_op}__"))
for _op in "neg pos abs invert".split():
    setattr(DeviceArray, f"__{_op}__", _unary(f"__{_op}__"))


# -- functions and ufuncs ----------------------------------------------------------------------

_UPLOADS = {"asarray", "array", "asanyarray", "ascontiguousarray"}  # explicit host-to-device copies


def _function(fn, name, prefix="cupy"):
    if name in _UPLOADS:
        return _upload_function(fn, name)

    def call(*args, **kwargs):
        return _call(fn, f"{prefix}.{name}", args, kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _upload_function(fn, name):
    """``asarray`` and friends: host data is copied to the device, never shared with the host."""

    def upload(*args, **kwargs):
        result = _call(fn, f"cupy.{name}", args, kwargs, host_ok=True)
        if _devices_in(args) or not isinstance(result, DeviceArray):
            return result
        return DeviceArray(result._a.copy())

    upload.__name__ = upload.__qualname__ = name
    return upload


def _viewing(name):
    """A property of ``DeviceArray`` giving numpy's view ``name`` (``T``, ``real``...), on the device."""
    return property(lambda self: DeviceArray(getattr(self._a, name)))


for _name in ("T", "mT", "real", "imag"):
    setattr(DeviceArray, _name, _viewing(_name))


class _Ufunc:
    """A numpy ufunc behind cupy's ufunc interface, its methods limited to what cupy supports."""

    def __init__(self, ufunc):
        self._u, self.__name__ = ufunc, ufunc.__name__
        self.nin, self.nout, self.nargs = ufunc.nin, ufunc.nout, ufunc.nargs

    def __call__(self, *args, **kwargs):
        return _call(self._u, f"cupy.{self.__name__}", args, kwargs)

    def _method(self, method, supported):
        if self.__name__ not in supported:
            raise NotImplementedError(f"`cupy.{self.__name__}.{method}` is not supported yet")
        return getattr(self._u, method)

    def at(self, a, indices, b=None):
        if not isinstance(a, DeviceArray):
            raise TypeError(f"cupy.{self.__name__}.at writes into a device array, got {type(a)}")
        at = self._method("at", NAMES["ufunc_at"])
        args = (a._a, _unwrap(indices, "ufunc.at", host_ok=True))
        at(*args, *(() if b is None else (_unwrap(b, f"cupy.{self.__name__}.at"),)))

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        fn = self._method("reduce", NAMES["ufunc_reduce_accumulate"])
        return _call(fn, "ufunc.reduce", (array, axis, dtype, out, keepdims), {})

    def accumulate(self, array, axis=0, dtype=None, out=None):
        fn = self._method("accumulate", NAMES["ufunc_reduce_accumulate"])
        return _call(fn, "ufunc.accumulate", (array, axis, dtype, out), {})

    def outer(self, a, b, **kwargs):
        return _call(self._u.outer, "ufunc.outer", (a, b), kwargs)


def _lookup(numpy_module, name, cupy_names, prefix):
    """cupy's ``name``, built on ``numpy_module``'s; AttributeError when cupy lacks it."""
    if name not in cupy_names:
        raise AttributeError(f"{prefix} has no {name!r}")
    try:
        value = getattr(numpy_module, name)
    except AttributeError:
        raise AttributeError(f"{prefix}.{name} is not modelled by the stand-in (numpy lacks it)") from None
    if isinstance(value, np.ufunc):
        return _Ufunc(value)
    if callable(value) and not isinstance(value, type):
        return _function(value, name, prefix)
    return value  # dtypes, finfo, constants, newaxis


class _Namespace(types.ModuleType):
    """A module whose missing attributes are cupy's names over a numpy module."""

    def __init__(self, name, numpy_module, cupy_names):
        super().__init__(name)
        self._numpy, self._names = numpy_module, frozenset(cupy_names)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _lookup(self._numpy, name, self._names, self.__name__)
        setattr(self, name, value)
        return value


# -- random: cupy's Generator has fewer methods than numpy's -----------------------------------


class _Generator:
    def __init__(self, generator):
        self._g = generator

    def __getattr__(self, name):
        if name not in NAMES["random.Generator"]:
            raise AttributeError(f"cupy.random.Generator has no {name!r}")
        return _function(getattr(self._g, name), name, "cupy.random.Generator")


def _default_rng(seed=None):
    return _Generator(np.random.default_rng(_unwrap(seed, "cupy.random.default_rng")))


# -- device plumbing ---------------------------------------------------------------------------


class _Device:
    """``cupy.cuda.Device``: a context manager that makes device ``id`` current."""

    def __init__(self, device=None):
        self.id = _current_device[0] if device is None else int(device)
        if not 0 <= self.id < DEVICE_COUNT:
            raise ValueError(f"stand-in device {self.id} does not exist ({DEVICE_COUNT} devices)")
        self._outer = []

    def use(self):
        _current_device[0] = self.id

    def __enter__(self):
        self._outer.append(_current_device[0])
        self.use()
        return self

    def __exit__(self, *exc):
        _current_device[0] = self._outer.pop()

    def __eq__(self, other):
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class _MemoryPool:
    def used_bytes(self):
        return sum(a._a.nbytes for a in list(_live.values()))

    def total_bytes(self):
        return self.used_bytes()

    def free_all_blocks(self):
        pass


_pool = _MemoryPool()


def _asnumpy(a, stream=None, order="C", out=None):
    """``cupy.asnumpy``: the explicit copy to the host (host values pass through)."""
    return a.get() if isinstance(a, DeviceArray) else np.asarray(a)


def _get_array_module(*args):
    return cupy if _devices_in(args) else np


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: DEVICE_COUNT),
    Stream=types.SimpleNamespace(null=types.SimpleNamespace(synchronize=lambda: None)),
    get_device_id=lambda: _current_device[0],
    is_available=lambda: True,
)

cupy = _Namespace("cupy", np, NAMES["top_level"])
cupy.ndarray = DeviceArray
cupy.asnumpy = _asnumpy
cupy.get_array_module = _get_array_module
cupy.get_default_memory_pool = lambda: _pool
cupy.is_available = lambda: True
cupy.cuda = cuda
cupy.linalg = _Namespace("cupy.linalg", np.linalg, NAMES["linalg"])
cupy.fft = _Namespace("cupy.fft", np.fft, NAMES["fft"])
cupy.random = _Namespace("cupy.random", np.random, NAMES["random"])
cupy.random.default_rng = _default_rng
# cupyx.scipy.special's names (cupy's cupyx/scipy/special/__init__.py), over scipy.special's:
# daskflow's special-function kernels find a stand-in's module as ``scipy_special``.
SPECIAL_NAMES = (
    *("i0", "i0e", "i1", "i1e", "j0", "j1", "y0", "y1", "yn"),
    *("bdtr", "bdtrc", "bdtri", "btdtr", "btdtri", "fdtr", "fdtrc", "fdtri", "gdtr", "gdtrc"),
    *("nbdtr", "nbdtrc", "nbdtri", "pdtr", "pdtrc", "pdtri", "chdtr", "chdtrc", "chdtri"),
    *("ndtr", "log_ndtr", "ndtri", "logit", "expit", "log_expit", "boxcox", "boxcox1p"),
    *("inv_boxcox", "inv_boxcox1p", "entr", "huber", "kl_div", "pseudo_huber", "rel_entr"),
    *("gamma", "gammaln", "loggamma", "gammasgn", "gammainc", "gammaincinv", "gammaincc"),
    *("gammainccinv", "beta", "betaln", "betainc", "betaincinv", "psi", "rgamma", "polygamma"),
    *("multigammaln", "digamma", "poch", "erf", "erfc", "erfcx", "erfinv", "erfcinv", "lpmv"),
    *("sph_harm", "expn", "softmax", "log_softmax", "zeta", "cbrt", "exp10", "exp2", "radian"),
    *("cosdg", "sindg", "tandg", "cotdg", "log1p", "expm1", "round", "xlogy", "xlog1py", "sinc"),
)
cupy.lib = types.SimpleNamespace(
    stride_tricks=_Namespace("cupy.lib.stride_tricks", np.lib.stride_tricks, NAMES["lib.stride_tricks"])
)
cupy.scipy_special = _Namespace("cupyx.scipy.special", scipy.special, SPECIAL_NAMES)
