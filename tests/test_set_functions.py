"""unique_* and isin against NumPy and array-api-strict: every dtype, layouts, NaNs (each one
distinct), signed zeros (one value), duplicates."""

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dlnumba as xp
from helpers import ALL, INTS, to_numpy
from test_sorting import arrays, to_xp


def unique_reference(a):
    """NumPy's unique with each NaN distinct, counts, first indices and the inverse (x's
    shape)."""
    flat = a.reshape(-1)
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                               return_counts=True, equal_nan=False)
    return values, first, inverse.reshape(a.shape), counts


def check_values(actual, expected):
    assert actual.shape == expected.shape
    if expected.dtype.kind in "fc":
        assert np.array_equal(actual, expected, equal_nan=True)
    else:
        assert np.array_equal(actual, expected)


@given(arrays(max_dims=3))
def test_unique_all_matches_numpy(case):
    a, dtype = case
    x = to_xp(a, dtype)
    values, first, inverse, counts = unique_reference(a)
    result = xp.unique_all(x)
    assert result.values.dtype == x.dtype and result.values.ndim == 1
    check_values(to_numpy(result.values), values)
    for ours, theirs in ((result.indices, first), (result.inverse_indices, inverse),
                         (result.counts, counts)):
        assert ours.dtype == xp.int64
        assert np.array_equal(np.from_dlpack(ours), theirs) and ours.shape == theirs.shape


@given(arrays(max_dims=2))
def test_other_unique_functions_agree_with_unique_all(case):
    a, dtype = case
    x = to_xp(a, dtype)
    values, _, inverse, counts = unique_reference(a)
    check_values(to_numpy(xp.unique_values(x)), values)
    result = xp.unique_counts(x)
    check_values(to_numpy(result.values), values)
    assert np.array_equal(np.from_dlpack(result.counts), counts)
    result = xp.unique_inverse(x)
    check_values(to_numpy(result.values), values)
    assert np.array_equal(np.from_dlpack(result.inverse_indices), inverse)


def test_nans_are_distinct_and_zeros_are_one():
    x = xp.asarray([np.nan, -0.0, 0.0, np.nan, 1.0, complex(0, 0).real])
    result = xp.unique_all(x)
    assert np.array_equal(to_numpy(result.values), [-0.0, 1.0, np.nan, np.nan], equal_nan=True)
    assert np.signbit(to_numpy(result.values)[0])  # the first zero of x
    assert np.from_dlpack(result.counts).tolist() == [3, 1, 1, 1]
    assert np.from_dlpack(result.indices).tolist() == [1, 4, 0, 3]
    c = xp.asarray(np.array([complex(np.nan, 0), complex(1, np.nan), complex(1, np.nan), 1]))
    assert np.from_dlpack(xp.unique_counts(c).counts).tolist() == [1, 1, 1, 1]


def test_unique_of_0d_and_empty_arrays():
    result = xp.unique_all(xp.asarray(5))
    assert to_numpy(result.values).tolist() == [5] and result.inverse_indices.shape == ()
    result = xp.unique_inverse(xp.asarray(np.zeros((0, 3))))
    assert result.values.shape == (0,) and result.inverse_indices.shape == (0, 3)


@settings(max_examples=30)
@given(arrays(dtypes=INTS + ["float32", "float64"], max_dims=2))
def test_unique_matches_array_api_strict(case):
    a, _ = case
    ours, theirs = xp.unique_counts(xp.asarray(a)), strict.unique_counts(strict.asarray(a))
    check_values(np.from_dlpack(ours.values), np.asarray(theirs.values))
    assert np.array_equal(np.from_dlpack(ours.counts), np.asarray(theirs.counts))


@given(arrays(max_dims=2), arrays(max_dims=2), st.booleans())
def test_isin_matches_numpy(case1, case2, invert):
    (a1, dtype1), (a2, dtype2) = case1, case2
    x1, x2 = to_xp(a1, dtype1), to_xp(a2, dtype2)
    try:
        dtype = xp.result_type(x1, x2)
    except TypeError:
        with pytest.raises(TypeError):
            xp.isin(x1, x2)
        return
    ours = xp.isin(x1, x2, invert=invert)
    # NumPy compares in the promoted dtype (a bfloat16 operand rounds to it)
    b1, b2 = (to_numpy(xp.astype(x, dtype)) for x in (x1, x2))
    assert ours.dtype == xp.bool and ours.shape == a1.shape
    assert np.array_equal(np.from_dlpack(ours), np.isin(b1, b2, invert=invert))


@pytest.mark.strict
@settings(max_examples=30)
@given(arrays(dtypes=INTS, max_dims=2), arrays(dtypes=INTS, max_dims=2))
def test_isin_matches_array_api_strict(case1, case2):
    # array-api-strict 2.x drops invert= (it calls np.isin without it): compare invert=False
    (a1, _), (a2, _) = case1, case2
    try:
        expected = strict.isin(strict.asarray(a1), strict.asarray(a2))
    except TypeError:
        with pytest.raises(TypeError):
            xp.isin(xp.asarray(a1), xp.asarray(a2))
        return
    ours = xp.isin(xp.asarray(a1), xp.asarray(a2))
    assert np.array_equal(np.from_dlpack(ours), np.asarray(expected))


def test_isin_takes_python_ints():
    x = xp.asarray(np.array([1, 2, 3], np.int16))
    assert np.from_dlpack(xp.isin(x, 2)).tolist() == [False, True, False]
    result = xp.isin(2, x, invert=True)
    assert result.shape == () and not bool(result)


@pytest.mark.parametrize("call", [
    lambda: xp.isin(xp.asarray([1.0]), 1),
    lambda: xp.isin(xp.asarray([1]), 1.5),
    lambda: xp.isin(1, 2),
    lambda: xp.isin(xp.asarray([1]), xp.asarray([1]), invert=1),
    lambda: xp.isin(xp.asarray(np.array([1], np.uint64)), xp.asarray([1])),
    lambda: xp.unique_values(np.arange(3)),
])
@pytest.mark.strict
def test_bad_arguments_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("dtype", ALL)
def test_every_dtype_on_long_rows(dtype):
    a = np.random.default_rng(3).integers(0, 50, 2000).astype(np.float32 if dtype == "bfloat16"
                                                              else dtype)
    x = to_xp(a, dtype)
    result = xp.unique_all(x)
    values, first, inverse, counts = unique_reference(a)
    check_values(to_numpy(result.values), values)
    assert np.array_equal(np.from_dlpack(result.indices), first)
    assert np.array_equal(np.from_dlpack(result.inverse_indices), inverse)
    assert np.array_equal(np.from_dlpack(result.counts), counts)
