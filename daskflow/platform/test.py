"""TF1's ``tf.test``: ``TestCase`` with sessions and array assertions, ``main``, device queries.

TF1 programs test their graphs with ``tf.test.TestCase`` (absl's ``TestCase``
underneath, as TF's): each test starts with a fresh default graph and fixed
seeds, ``self.session()`` / ``self.cached_session()`` / ``self.test_session()``
open a daskflow Session made the default (so ``Tensor.eval()`` works), and
``assertAllClose`` / ``assertAllEqual`` compare arrays, nested structures and
tensors (evaluated in the default session). ``tf.test.main()`` runs them with
absl's runner, as TF's does.

Examples
--------
::

    import daskflow as tf

    class SquareTest(tf.test.TestCase):
        def testSquare(self):
            with self.session():
                self.assertAllEqual(tf.square([2, 3]).eval(), [4, 9])

    if __name__ == "__main__":
        tf.test.main()
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import re
import tempfile

import numpy as np
from absl.testing import absltest

from ..errors import OpError
from ..framework.graph import Tensor, get_default_graph, get_default_session, reset_default_graph
from ..ops.random_ops import DEFAULT_GRAPH_SEED, set_random_seed

__all__ = [
    "TestCase",
    "get_temp_dir",
    "gpu_device_name",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_gpu_available",
    "main",
]

_TEMP_DIR = None


def main(argv=None):
    """Run the ``TestCase`` classes of ``__main__`` with absl's test runner (exits)."""
    return absltest.main(argv=argv)


def get_temp_dir():
    """A temporary folder for this test process, made on first use."""
    global _TEMP_DIR
    if _TEMP_DIR is None:
        _TEMP_DIR = tempfile.mkdtemp(prefix="daskflow_test_")
    return _TEMP_DIR


def is_built_with_cuda():
    """False: daskflow has no CUDA build; GPU work runs on cupy through Dask workers."""
    return False


def is_built_with_gpu_support():
    """False, as :func:`is_built_with_cuda`."""
    return False


def _local_gpus():
    try:
        import cupy
    except ImportError:
        return 0
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - a cupy without a driver or device
        return 0


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether this process can run kernels on a GPU (cupy and a device), as TF1 asks of itself."""
    if not _local_gpus():
        return False
    if min_cuda_compute_capability is None:
        return True
    import cupy

    major, minor = (int(v) for v in min_cuda_compute_capability)
    have = int(cupy.cuda.Device(0).compute_capability)
    return have >= major * 10 + minor


def gpu_device_name():
    """``'/device:GPU:0'`` when a GPU is available, else ``''`` (TF1's answer)."""
    return "/device:GPU:0" if is_gpu_available() else ""


def _as_array(value):
    return np.asarray(value)


class TestCase(absltest.TestCase):
    """A test case for graphs: a fresh default graph and seeds per test, sessions, and
    array assertions (TF1's ``tf.test.TestCase``)."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._cached_session = None

    def setUp(self):
        super().setUp()
        reset_default_graph()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        set_random_seed(DEFAULT_GRAPH_SEED)

    def tearDown(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
        super().tearDown()

    def get_temp_dir(self):
        """A temporary folder of this test method's own."""
        path = os.path.join(get_temp_dir(), self.id())
        os.makedirs(path, exist_ok=True)
        return path

    # -- sessions ----------------------------------------------------------------------------
    def _new_session(self, graph, config):
        from ..runtime.session import Session  # local import: the runtime loads dask, only for a session

        graph = graph if graph is not None else get_default_graph()
        return Session(None, graph=graph, config=config)  # in this process, as TF1's test sessions

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new Session over ``graph`` (the default graph), the default session in the block."""
        sess = self._new_session(graph, config)
        try:
            with sess.as_default():
                yield sess
        finally:
            sess.close()

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """One Session per test method, reused by every call (closed when the test ends)."""
        if self._cached_session is None:
            self._cached_session = self._new_session(graph, config)
        elif graph is not None and self._cached_session.graph is not graph:
            raise ValueError(
                "The graph used to get the cached session is different than the one that was "
                "used to create the session. Maybe create a new session with self.session()"
            )
        with self._cached_session.as_default():
            yield self._cached_session

    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """TF1's older name of :meth:`cached_session` (run on its own, it is no test: skipped)."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")
        return self.cached_session(graph, config, use_gpu, force_gpu)

    def evaluate(self, tensors):
        """The values of ``tensors`` (any nested structure) in the default session."""
        sess = get_default_session()
        if sess is None:
            with self.session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    # -- assertions ----------------------------------------------------------------------------
    def _value(self, a):
        return self.evaluate(a) if isinstance(a, Tensor) or hasattr(a, "_as_tensor") else a

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802 - TF1's name
        """``a`` and ``b`` (arrays, tensors, or equal structures of them) agree elementwise
        within ``atol + rtol * |b|``."""
        a, b = self._value(a), self._value(b)
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(set(a), set(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if _is_sequence_of_arrays(a) or _is_sequence_of_arrays(b):
            self.assertEqual(len(a), len(b), msg)
            for x, y in zip(a, b):
                self.assertAllClose(x, y, rtol, atol, msg)
            return
        a, b = _as_array(a), _as_array(b)
        self.assertEqual(a.shape, b.shape, f"shape mismatch: {a.shape} vs {b.shape}. {msg or ''}")
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802 - TF1's name
        """``a`` and ``b`` have the same shape and equal entries."""
        a, b = _as_array(self._value(a)), _as_array(self._value(b))
        same_shape = a.shape == b.shape or a.size == b.size == 1
        self.assertTrue(same_shape, f"shape mismatch: {a.shape} vs {b.shape}. {msg or ''}")
        np.testing.assert_array_equal(a.reshape(b.shape) if same_shape else a, b, err_msg=msg or "")

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802 - TF1's name
        """``|f1 - f2| <= err``."""
        self.assertTrue(abs(f1 - f2) <= err, f"{f1} != {f2} +/- {err}{' : ' + msg if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802 - TF1's name
        """Two lists of numbers agree entry by entry within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802 - TF1's name
        """Two numpy arrays or scalars or tensors have the same shape (a tensor's static one).

        Raises
        ------
        TypeError
            When either is no numpy array, numpy scalar or Tensor (TF1's check).
        """
        for name, value in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(value, (np.ndarray, np.generic, Tensor)):
                raise TypeError(
                    f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor. "
                    f"Instead received {type(value)}"
                )
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    # TF's is unittest's assertCountEqual under its Python 2 name (same elements, any order).
    assertItemsEqual = absltest.TestCase.assertCountEqual  # noqa: N815 - TF1's name

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """A context manager: its block must raise ``exception_type`` that the predicate accepts.

        Parameters
        ----------
        exception_type : type
            The exception the block must raise.
        expected_err_re_or_predicate : callable or str
            A function of the exception that returns whether it is the expected one, or a
            regular expression searched for in its message (an ``OpError``'s message with
            its op's name appended, as TF1 does).
        """
        predicate = expected_err_re_or_predicate
        if not callable(predicate):
            predicate = functools.partial(_error_matches, expected_err_re_or_predicate)
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - TF1 re-raises any mismatch as AssertionError
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e


def _error_matches(pattern, e):
    # TF1 searches an OpError's message followed by the names of its op and the ops it came from.
    if isinstance(e, OpError):
        err_str, op = str(e.message), e.op
    else:
        err_str, op = str(e), None
    while op is not None:
        err_str += "\nCaused by: " + op.name
        op = getattr(op, "_original_op", None)
    return re.search(pattern, err_str)


def _is_sequence_of_arrays(v):
    return isinstance(v, (list, tuple)) and any(
        isinstance(x, (np.ndarray, list, tuple, dict)) or hasattr(x, "_as_tensor") for x in v
    )
