"""all, any, argmax, argmin and count_nonzero against NumPy (values) and array-api-strict
(result dtypes, errors), over every dtype, shapes up to 4-D, layouts, axes and keepdims."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import dlnumba as xp
from helpers import ALL, INTS, REAL_FLOATS, STANDARD, to_numpy
from test_statistical_functions import (ARG_CALLS, REDUCE_CALLS, arrays, axes,
                                         check_on_each_device, name_of)

strict = pytest.importorskip("array_api_strict")


@given(st.data())
def test_all_any_count_nonzero_match_numpy(data):
    dtype, x, values = data.draw(arrays(ALL, bounded=True))
    if dtype != "bool" and data.draw(st.booleans()):  # plenty of zeros (-0.0 too)
        values = np.where(values.real > 0, values, -np.zeros((), values.dtype))
        x = xp.asarray(values) if dtype != "bfloat16" else xp.astype(xp.asarray(values),
                                                                      xp.bfloat16)
    axis, keepdims = data.draw(axes(x.ndim)), data.draw(st.booleans())
    for name, reference in (("all", np.all), ("any", np.any),
                            ("count_nonzero", np.count_nonzero)):
        result = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
        expected = np.asarray(reference(values, axis=axis, keepdims=keepdims))
        assert result.dtype == (xp.int64 if name == "count_nonzero" else xp.bool)
        np.testing.assert_array_equal(to_numpy(result), expected)


def test_truth_of_special_values():
    values = np.array([-0.0, np.nan, 0.0], dtype=np.float32)
    for dtype in (xp.float16, xp.bfloat16, xp.float32):
        x = xp.astype(xp.asarray(values), dtype)
        assert int(xp.count_nonzero(x)) == 1
        assert bool(xp.any(x)) and not bool(xp.all(x))
    assert bool(xp.all(xp.zeros((0, 2))))
    assert not bool(xp.any(xp.zeros((0, 2))))
    assert int(xp.count_nonzero(xp.asarray([0j, 1j, 0j]))) == 1


@given(st.data())
def test_argmax_argmin_match_numpy(data):
    dtype, x, values = data.draw(arrays(INTS + REAL_FLOATS))
    if dtype in REAL_FLOATS and values.size and data.draw(st.booleans()):
        values = values.copy()
        values.reshape(-1)[data.draw(st.integers(0, values.size - 1))] = np.nan
        x = xp.asarray(values) if dtype != "bfloat16" else xp.astype(xp.asarray(values),
                                                                      xp.bfloat16)
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    keepdims = data.draw(st.booleans())
    for name in ("argmax", "argmin"):
        if axis is None and values.size == 0 or axis is not None and values.shape[axis] == 0:
            with pytest.raises(ValueError):
                getattr(xp, name)(x, axis=axis, keepdims=keepdims)
            continue
        result = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
        expected = getattr(np, name)(values, axis=axis, keepdims=keepdims)
        assert result.dtype == xp.int64
        np.testing.assert_array_equal(to_numpy(result), expected)


def test_argmax_first_occurrence_and_threads():
    values = np.zeros(3 << 20, dtype=np.float32)
    values[[5, 2 << 20, (3 << 20) - 1]] = 7
    x = xp.asarray(values)
    assert int(xp.argmax(x)) == 5
    assert int(xp.argmax(x[::-1])) == np.argmax(values[::-1])
    values[-2:] = np.nan
    assert int(xp.argmin(xp.asarray(values))) == values.size - 2
    matrix = np.random.default_rng(2).random((1024, 1024))
    for axis in (0, 1):
        np.testing.assert_array_equal(to_numpy(xp.argmin(xp.asarray(matrix), axis=axis)),
                                      matrix.argmin(axis=axis))


@pytest.mark.parametrize("dtype", ["int16", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("pattern", ["random", "ascending", "descending", "nan late",
                                     "nan first"])
def test_argmax_argmin_over_many_blocks(dtype, pattern):
    # Long runs are searched block by block (only a block with a better value or a NaN is
    # looked at twice): the extreme and the NaN may sit in any block.
    rng = np.random.default_rng(3)
    values = {"random": rng.integers(-1000, 1000, 50_001),
              "ascending": np.arange(50_001) // 3,
              "descending": -(np.arange(50_001) // 3)}.get(pattern, rng.integers(-9, 9, 50_001))
    values = values.astype(np.float32 if dtype == "bfloat16" else dtype)
    if pattern == "nan late":
        values[[40_000, 45_000]] = np.nan if dtype != "int16" else 9
        values[100] = 10 if dtype != "int16" else 9
    if pattern == "nan first":
        values[[0, 7]] = np.nan if dtype != "int16" else 9
    x = xp.asarray(values)
    if dtype == "bfloat16":  # compared with the float32 values it holds
        x = xp.astype(x, xp.bfloat16)
        values = np.from_dlpack(xp.astype(x, xp.float32))
    for view in (slice(None), slice(None, None, -3), slice(5, None, 2)):
        for name in ("argmax", "argmin"):
            assert int(getattr(xp, name)(x[view])) == getattr(np, name)(values[view]), \
                (name, view)


@pytest.mark.strict
@pytest.mark.parametrize("dtype", STANDARD)
def test_result_dtypes_and_categories_match_strict(dtype):
    ours, theirs = xp.ones((2, 3), dtype=getattr(xp, dtype)), strict.ones(
        (2, 3), dtype=getattr(strict, dtype))
    for name in ("all", "any", "argmax", "argmin", "count_nonzero"):
        try:
            expected = getattr(strict, name)(theirs, axis=1, keepdims=True)
        except TypeError:
            with pytest.raises(TypeError, match=dtype):
                getattr(xp, name)(ours, axis=1, keepdims=True)
            continue
        result = getattr(xp, name)(ours, axis=1, keepdims=True)
        assert (str(result.dtype), result.shape) == (name_of(expected.dtype), expected.shape)


def test_argument_errors():
    x = xp.ones((2, 3))
    with pytest.raises(TypeError, match="axis"):
        xp.argmax(x, axis=(0, 1))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.argmin(x, axis=-3)
    with pytest.raises(IndexError, match="out of bounds"):
        xp.any(x, axis=2)
    with pytest.raises(ValueError, match="more than once"):
        xp.count_nonzero(x, axis=(0, 0))
    with pytest.raises(TypeError, match="keepdims"):
        xp.all(x, keepdims="yes")
    with pytest.raises(TypeError, match="ndarray"):
        xp.any([1, 2])


# name: (NumPy's function, the dtype checked on each device, the calls): one dtype a function,
# as in test_statistical_functions
UTILITY_ON_EACH_DEVICE = {
    "all": (np.all, "float16", REDUCE_CALLS),
    "any": (np.any, "bool", REDUCE_CALLS),
    "count_nonzero": (np.count_nonzero, "complex64", REDUCE_CALLS),
    "argmax": (np.argmax, "float16", ARG_CALLS),
    "argmin": (np.argmin, "int32", ARG_CALLS),
    "nanargmax": (np.nanargmax, "float16", ARG_CALLS),
    "nanargmin": (np.nanargmin, "bfloat16", ARG_CALLS),
}


@pytest.mark.parametrize("name", sorted(UTILITY_ON_EACH_DEVICE))
def test_every_utility_reduction_matches_numpy_on_each_device(name, device):
    check_on_each_device(name, *UTILITY_ON_EACH_DEVICE[name], device)
