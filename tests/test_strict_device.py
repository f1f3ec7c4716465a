"""The strict cupy stand-in fails where real cupy would, and computes like numpy elsewhere."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from tests import strict_device
from tests.strict_device import DeviceArray
from tests.strict_device import cupy as xp

NAMES = json.loads((pathlib.Path(__file__).parent / "fixtures" / "cupy_names.json").read_text())


def test_implicit_conversion_to_numpy_raises():
    a = xp.asarray([1.0, 2.0, 3.0])
    for convert in (np.asarray, np.argmax, lambda v: np.concatenate([v]), lambda v: np.maximum(v, 0)):
        with pytest.raises(TypeError):
            convert(a)
    with pytest.raises(TypeError, match="numpy.sum"):  # numpy would call a.sum(): refused
        np.sum(a)


def test_mixing_host_and_device_arrays_raises():
    a, host = xp.ones(3), np.ones(3)
    with pytest.raises(TypeError, match="Unsupported type"):
        a + host
    with pytest.raises(TypeError, match="Unsupported type"):
        host * a
    with pytest.raises(TypeError, match="cupy.concatenate"):
        xp.concatenate([a, host])
    with pytest.raises(TypeError, match="item assignment"):
        a[:] = host


def test_scalars_mix_freely_and_results_stay_on_the_device():
    a = xp.arange(4, dtype=xp.float32)
    for r in (a * 2, np.float32(2) * a, 2.0 - a, a.sum(), xp.maximum(a, np.float64(1)), a[1], -a):
        assert isinstance(r, xp.ndarray)
    assert a.sum().ndim == 0 and float(a.sum()) == 6.0  # reductions give 0-d arrays, as in cupy
    np.testing.assert_array_equal(xp.asnumpy(xp.where(a > 1, a, -a)), [0, -1, 2, 3])


def test_names_numpy_has_but_cupy_lacks_raise_attribute_error():
    assert "errstate" not in NAMES["top_level"] and hasattr(np, "errstate")
    with pytest.raises(AttributeError, match="errstate"):
        xp.errstate  # noqa: B018
    with pytest.raises(AttributeError, match="permutation"):
        xp.random.default_rng(0).permutation  # noqa: B018
    with pytest.raises(AttributeError, match="itemset"):
        xp.ones(2).itemset  # noqa: B018
    assert xp.float32 is np.float32 and xp.newaxis is None and xp.pi == np.pi


def test_upload_and_download_round_trip():
    host = np.arange(6.0).reshape(2, 3)
    a = xp.asarray(host)
    assert isinstance(a, DeviceArray) and a.shape == (2, 3) and a.dtype == np.float64
    a[0, 0] = 9.0  # the upload is a copy: the host array is unchanged
    assert host[0, 0] == 0.0
    back = xp.asnumpy(a)
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, [[9, 1, 2], [3, 4, 5]])
    assert xp.asarray(a) is a


def test_strings_cannot_live_on_the_device():
    with pytest.raises(TypeError, match="Unsupported dtype"):
        xp.asarray(np.array(["a", "b"]))


def test_ufunc_methods_follow_cupy():
    a = xp.zeros(3)
    xp.add.at(a, xp.asarray([0, 2, 0]), xp.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(a.get(), [4.0, 0.0, 2.0])
    xp.maximum.at(a, [1], 5.0)
    np.testing.assert_array_equal(a.get(), [4.0, 5.0, 2.0])
    with pytest.raises(NotImplementedError, match="multiply.at"):
        xp.multiply.at(a, [0], 2.0)
    np.testing.assert_array_equal(xp.add.reduce(xp.ones((2, 3)), axis=1).get(), [3.0, 3.0])
    with pytest.raises(NotImplementedError, match="maximum.reduce"):
        xp.maximum.reduce(a)
    assert xp.add.outer(xp.ones(2), xp.ones(3)).shape == (2, 3)


def test_indexing_and_setitem():
    a = xp.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(a[1].get(), [4, 5, 6, 7])
    np.testing.assert_array_equal(a[:, None, 2].get(), [[2], [6], [10]])
    np.testing.assert_array_equal(a[..., xp.asarray([0, 3])].get(), [[0, 3], [4, 7], [8, 11]])
    np.testing.assert_array_equal(a[np.array([2, 0])][:, 0].get(), [8, 0])  # numpy indices are uploaded
    np.testing.assert_array_equal(a[a > 9].get(), [10, 11])
    a[a > 9] = 0
    a[0] = xp.asarray([1, 1, 1, 1])
    np.testing.assert_array_equal(a.get(), [[1, 1, 1, 1], [4, 5, 6, 7], [8, 9, 0, 0]])
    assert isinstance(a.T, DeviceArray) and a.T.shape == (4, 3)


def test_host_copies_are_counted():
    before = strict_device.host_copies
    a = xp.asarray([1, 2])
    assert a.tolist() == [1, 2] and a.tobytes() == np.array([1, 2]).tobytes()
    assert strict_device.host_copies == before + 2
    assert int(a[0]) == 1 and a[1].item() == 2 and strict_device.host_copies == before + 2


def test_device_plumbing():
    assert xp.cuda.runtime.getDeviceCount() == 1
    with xp.cuda.Device(0) as device:
        assert xp.cuda.Device().id == 0 and device.id == 0
    xp.cuda.Stream.null.synchronize()
    pool = xp.get_default_memory_pool()
    before = pool.used_bytes()
    a = xp.zeros(1000)
    assert pool.used_bytes() >= before + 8000
    del a
    assert pool.used_bytes() == before
    with pytest.raises(ValueError, match="device 3"):
        xp.cuda.Device(3)
