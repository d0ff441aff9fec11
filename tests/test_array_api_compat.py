"""Array-API code runs unchanged on dlnumba: array-api-compat finds the namespace, and the
functions of array-api-extra (written against the standard only) give NumPy's results."""

import warnings

import array_api_compat
import array_api_extra as xpx
import numpy as np
import pytest

import dlnumba as xp

from helpers import to_numpy


def test_array_namespace_is_dlnumba():
    x = xp.asarray([1.0, 2.0])
    assert array_api_compat.array_namespace(x) is xp
    assert array_api_compat.array_namespace(x, 1.0, None) is xp
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.device(x) == xp.Device("cpu")
    assert array_api_compat.size(xp.ones((2, 3))) == 6


def test_mixing_dlnumba_and_numpy_is_refused_by_array_namespace():
    with pytest.raises(TypeError):
        array_api_compat.array_namespace(xp.asarray([1.0]), np.asarray([1.0]))


a = np.arange(12.0).reshape(3, 4) / 7 - 0.5
with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an all-NaN row is NaN
    NAN_TO_NUM = np.nan_to_num(a / 0.0)
    NANMEAN = np.nanmean(np.where(a > 0, a, np.nan), axis=1)

# (name, call on the namespace's arrays, NumPy's answer)
CASES = [
    ("atleast_nd", lambda x: xpx.atleast_nd(x[0, 0], ndim=3), a[0, 0].reshape(1, 1, 1)),
    ("cov", lambda x: xpx.cov(x), np.cov(a)),
    ("create_diagonal", lambda x: xpx.create_diagonal(x[0]), np.diag(a[0])),
    ("isclose", lambda x: xpx.isclose(x, x + 1e-12), np.isclose(a, a + 1e-12)),
    ("kron", lambda x: xpx.kron(x[:2, :2], x[:2, :2]), np.kron(a[:2, :2], a[:2, :2])),
    ("nunique", lambda x: xpx.nunique(xp.round(x * 2)), np.unique(np.round(a * 2)).size),
    ("pad", lambda x: xpx.pad(x, 2), np.pad(a, 2)),
    ("setdiff1d", lambda x: xpx.setdiff1d(x[0], x[0, 1:3]), np.setdiff1d(a[0], a[0, 1:3])),
    ("union1d", lambda x: xpx.union1d(x[0], x[1]), np.union1d(a[0], a[1])),
    ("sinc", lambda x: xpx.sinc(x), np.sinc(a)),
    ("nan_to_num", lambda x: xpx.nan_to_num(x / 0.0), NAN_TO_NUM),
    ("nansum", lambda x: xpx.nansum(xp.where(x > 0, x, xp.nan)),
     np.nansum(np.where(a > 0, a, np.nan))),
    ("nanmean", lambda x: xpx.nanmean(xp.where(x > 0, x, xp.nan), axis=1),
     NANMEAN),
    ("deg2rad", lambda x: xpx.deg2rad(x), np.deg2rad(a)),
    ("one_hot", lambda x: xpx.one_hot(xp.asarray([0, 2, 1]), 3),
     np.eye(3)[[0, 2, 1]]),
    ("apply_where", lambda x: xpx.apply_where(x > 0, x, xp.sqrt, fill_value=-1.0),
     np.where(a > 0, np.sqrt(np.abs(a)), -1.0)),
    ("at_set", lambda x: xpx.at(x)[1, :].set(9.0), np.where(np.arange(3)[:, None] == 1, 9.0, a)),
    ("at_add", lambda x: xpx.at(x)[x > 0].add(1.0), np.where(a > 0, a + 1, a)),
]


@pytest.mark.parametrize("name, call, expected", CASES, ids=[c[0] for c in CASES])
def test_array_api_extra_function(name, call, expected):
    result = call(xp.asarray(a, copy=True))
    np.testing.assert_allclose(to_numpy(xp.asarray(result)), expected, rtol=1e-12, atol=1e-15)


def test_array_api_extra_at_with_copy_leaves_the_input_alone():
    x = xp.asarray(a, copy=True)
    y = xpx.at(x)[0, 0].set(100.0, copy=True)
    np.testing.assert_array_equal(to_numpy(x), a)
    assert to_numpy(y)[0, 0] == 100.0
