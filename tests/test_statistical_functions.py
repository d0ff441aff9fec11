"""Statistical functions against NumPy (values) and array-api-strict (result dtypes, errors).

Hypothesis draws every dtype a function takes, shapes up to 4-D (0-d and size 0 included),
layouts (negative and doubled steps, a swap of the last two axes), ``axis`` (None, an int,
negative ints, tuples in any order) and ``keepdims``. Integer results are exact (NumPy's
wrapping arithmetic); floating-point results are within a tolerance scaled by the magnitudes
involved; float16/bfloat16 are compared with NumPy on their float32 values.
"""

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp

from helpers import (axes, ALL, COMPLEX, DTYPES, INTS, NUMERIC, REAL_FLOATS, STANDARD,
                     assert_matches_numpy, to_numpy)

strict = pytest.importorskip("array_api_strict")
torch = pytest.importorskip("torch")

# Relative tolerance of a floating-point result, by dtype.
RTOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-12,
        "complex64": 2e-5, "complex128": 1e-12}
# The smallest subnormal of each dtype: a result rounded to the dtype may be off by this much
# near 0 whatever its relative error (the float16 variance of [0, 1.43e-06] is 5.1e-13: 0).
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "float64": 2.0**-1074,
        "complex64": 2.0**-149, "complex128": 2.0**-1074}


@st.composite
def arrays(draw, dtypes, bounded=False, max_dims=4):
    """A dlnumba array in some layout and the NumPy array of its logical values."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=5))
    storage = np.dtype(np.float32 if dtype == "bfloat16" else dtype)
    if storage.kind == "f" or storage.kind == "c":
        width = 16 if dtype == "float16" else 32 if dtype in ("float32", "bfloat16",
                                                               "complex64") else 64
        limit = 2.0 if bounded else 100.0
        real = st.floats(-limit, limit, width=width)
        elements = st.builds(complex, real, real) if storage.kind == "c" else real
    else:
        elements = None
    values = draw(hnp.arrays(storage, shape, elements=elements))
    if dtype == "bfloat16":
        values = torch.from_numpy(values.copy()).to(torch.bfloat16).float().numpy()
        x = xp.astype(xp.asarray(values), xp.bfloat16)
    else:
        x = xp.asarray(values.copy())
    steps = [draw(st.sampled_from([1, -1, 2, -2])) for _ in shape]
    key = tuple(slice(None, None, s) for s in steps)
    x, values = x[key], values[key]
    if len(shape) >= 2 and draw(st.booleans()):
        x, values = x.mT, np.swapaxes(values, -1, -2)
    return dtype, x, values


def name_of(dtype):
    """A dtype's bare name (array-api-strict prints ``array_api_strict.int64``)."""
    return str(dtype).rsplit(".", 1)[-1]


def default_dtype(dtype):
    """The standard's sum/prod dtype for an input dtype (and NumPy's for bool)."""
    if dtype == "bool" or dtype.startswith("int"):
        return "int64"
    return "uint64" if dtype.startswith("uint") else dtype


def assert_close(actual, expected, dtype, scale):
    """``actual`` (dlnumba) equals ``expected`` within ``RTOL[dtype] * scale`` per element, and
    the dtype's smallest subnormal; an infinity stands for the least magnitude that rounds to
    it in ``dtype`` (float16's 65520), since ``expected`` is computed wider."""
    got = to_numpy(actual)
    assert got.shape == np.shape(expected)
    if dtype not in RTOL:
        np.testing.assert_array_equal(got, expected)
        return
    expected = np.asarray(expected)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    got = got.astype(expected.dtype)
    if dtype in REAL_FLOATS and dtype != "float64":
        info = ml_dtypes.finfo(DTYPES[dtype])
        overflow = float(info.max) + 2.0 ** (info.maxexp - info.nmant - 2)  # half an ulp more
        got = np.where(np.isinf(got) & np.isfinite(expected), np.sign(got) * overflow, got)
    error = np.abs(got - expected)
    assert np.all(error[~nan] <= RTOL[dtype] * np.asarray(scale)[~nan] + 1e-30 + TINY[dtype]), (
        got, expected)


# ---------------------------------------------------------------- sum, prod

@given(st.data())
def test_sum_matches_numpy(data):
    dtype, x, values = data.draw(arrays(ALL))
    axis, keepdims = data.draw(axes(x.ndim)), data.draw(st.booleans())
    result = xp.sum(x, axis=axis, keepdims=keepdims)
    assert result.dtype == getattr(xp, default_dtype(dtype))
    if dtype in RTOL:
        wide = values.astype(np.complex128 if dtype in COMPLEX else np.float64)
        expected = np.sum(wide, axis=axis, keepdims=keepdims)
        scale = np.sum(np.abs(wide), axis=axis, keepdims=keepdims) + np.abs(expected)
        assert_close(result, expected, dtype, scale)
    else:
        expected = np.sum(values, axis=axis, keepdims=keepdims, dtype=default_dtype(dtype))
        assert_close(result, expected, dtype, None)


@given(st.data())
@settings(max_examples=40)
def test_prod_matches_numpy(data):
    dtype, x, values = data.draw(arrays(NUMERIC, bounded=True, max_dims=3))
    axis, keepdims = data.draw(axes(x.ndim)), data.draw(st.booleans())
    result = xp.prod(x, axis=axis, keepdims=keepdims)
    assert result.dtype == getattr(xp, default_dtype(dtype))
    if dtype in RTOL:
        wide = values.astype(np.complex128 if dtype in COMPLEX else np.float64)
        expected = np.prod(wide, axis=axis, keepdims=keepdims)
        scale = np.prod(np.maximum(np.abs(wide), 1), axis=axis, keepdims=keepdims) * 4
        assert_close(result, expected, dtype, scale)
    else:
        expected = np.prod(values, axis=axis, keepdims=keepdims, dtype=default_dtype(dtype))
        assert_close(result, expected, dtype, None)


@pytest.mark.parametrize("function", ["sum", "prod"])
@pytest.mark.parametrize("dtype", STANDARD)
def test_sum_prod_dtypes_match_strict(function, dtype):
    x = xp.ones((2, 3), dtype=getattr(xp, dtype))
    result = getattr(xp, function)(x, axis=0)
    if dtype == "bool":  # the standard asks for numeric; dlnumba sums bool as NumPy does
        assert result.dtype == xp.int64
        return
    expected = getattr(strict, function)(strict.ones((2, 3), dtype=getattr(strict, dtype)),
                                         axis=0)
    assert str(result.dtype) == name_of(expected.dtype)


@pytest.mark.parametrize("source, target", [("int8", "int8"), ("int64", "int16"),
                                            ("uint8", "float32"), ("float32", "float64"),
                                            ("float64", "float32"), ("int32", "complex64"),
                                            ("float16", "float16"), ("bool", "uint8")])
def test_sum_dtype_argument_casts_first(source, target):
    values = np.array([[100, 120, 7], [-3, 90, 60]], dtype=np.float64)
    if source.startswith("uint") or source == "bool":
        values = np.abs(values)
    values = values.astype(source)
    result = xp.sum(xp.asarray(values), axis=1, dtype=getattr(xp, target))
    assert result.dtype == getattr(xp, target)
    np.testing.assert_array_equal(to_numpy(result), np.sum(values, axis=1, dtype=target))


@pytest.mark.strict
def test_dtype_argument_errors():
    x = xp.ones(3, dtype=xp.complex64)
    with pytest.raises(TypeError, match="complex64"):
        xp.sum(x, dtype=xp.float32)
    with pytest.raises(TypeError, match="numeric"):
        xp.prod(xp.ones(3), dtype=xp.bool)
    with pytest.raises(TypeError, match="namespace's dtypes"):
        xp.sum(xp.ones(3), dtype="float32")


def test_float32_sum_is_pairwise_accurate():
    rng = np.random.default_rng(0)
    values = rng.random(1 << 20, dtype=np.float32)
    exact = values.astype(np.float64).sum()
    for layout in (slice(None), slice(None, None, -1)):
        ours = float(xp.sum(xp.asarray(values[layout])))
        theirs = float(np.sum(values[layout]))
        assert abs(ours - exact) <= 2 * abs(theirs - exact) + 1e-6 * exact
    matrix = values.reshape(1024, 1024)
    ours = to_numpy(xp.sum(xp.asarray(matrix), axis=1))
    error = np.abs(ours - matrix.astype(np.float64).sum(axis=1))
    assert error.max() <= 2 * np.abs(matrix.sum(axis=1) - matrix.astype(np.float64).sum(1)).max() \
        + 1e-4


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@given(data=st.data())
@settings(max_examples=20, deadline=None)
def test_vectorized_float_reductions_keep_special_values(dtype, data):
    """Runs long enough for the vector accumulators (whole 128-element blocks and a rest):
    max and min equal NumPy's, a NaN wins, and a zero result is IEEE 754's maximum (minimum)
    of the zeros, +0 above -0 (NumPy returns whichever zero it met first); sums stay close.
    Zeros of one sign with one of the other, or among positive (negative) values, make the
    minimum (maximum) -0.0 (0.0) exactly where one is there."""
    n = data.draw(st.integers(1 << 14, (1 << 14) + 300))
    values = np.random.default_rng(data.draw(st.integers(0, 99))).random(n).astype(dtype)
    special = data.draw(st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0]))
    values[data.draw(st.integers(0, n - 1))] = special
    if special == 0:
        values *= data.draw(st.sampled_from([0, 1, -1]))  # all zeros, or one sign of values
        values[data.draw(st.integers(0, n - 1))] = -special
        values[data.draw(st.integers(0, n - 1))] = special
    x = xp.asarray(values)
    for name in ("max", "min"):
        expected = getattr(np, name)(values)
        actual = to_numpy(getattr(xp, name)(x))
        np.testing.assert_array_equal(actual, expected)
        if expected == 0:
            winner = -0.0 if name == "min" else 0.0
            there = any(v == 0 and np.signbit(v) == np.signbit(winner) for v in values)
            assert np.signbit(actual) == np.signbit(winner if there else -winner)
    exact = values.astype(np.float64).sum()
    np.testing.assert_allclose(to_numpy(xp.sum(x)), exact, rtol=1e-5 if dtype == "float32"
                               else 1e-12)
    rows = values[: n - n % 64].reshape(-1, 64)
    np.testing.assert_allclose(to_numpy(xp.sum(xp.asarray(rows.T), axis=1)),
                               rows.astype(np.float64).sum(axis=0), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_nan_anywhere_in_a_vectorized_run_wins(dtype):
    """The quick maximum and minimum note NaNs in every vector, the first ones included."""
    n = 1 << 15  # above the small-array engine's sizes
    base = np.random.default_rng(0).random(n).astype(dtype)
    for position in [*range(130), *range(n - 70, n)]:
        values = base.copy()
        values[position] = np.nan
        rows = xp.reshape(xp.asarray(values), (2, n // 2))
        for name in ("max", "min"):
            assert np.isnan(float(getattr(xp, name)(xp.asarray(values)))), (position, name)
            assert np.isnan(to_numpy(getattr(xp, name)(rows, axis=1))[position // (n // 2)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vectorized_runs_give_the_same_bits_at_every_offset_into_a_line(dtype):
    """A run that starts inside a 64-byte line is read in whole lines: its sum, product,
    maximum and minimum are those of an aligned copy, bit for bit, and a NaN or a signed zero
    among the first or the last line's elements still counts."""
    lanes, n = 64 // np.dtype(dtype).itemsize, 37 * 887  # rows of 887: every offset
    rng = np.random.default_rng(2)
    cases = {"values": 0.99 + 0.02 * rng.random(n), "nan first": np.r_[np.nan, np.ones(n - 1)],
             "nan last": np.r_[np.ones(n - 1), np.nan], "zero last": np.r_[-np.zeros(n - 1), 0.0],
             "negative zero first": np.r_[-0.0, np.zeros(n - 1)]}
    for case, values in cases.items():
        for offset in range(lanes):
            padded = np.zeros(n + lanes, dtype)
            padded[offset:offset + n] = values
            view = xp.asarray(padded, copy=True)[offset:offset + n]  # an allocation: aligned
            aligned = xp.asarray(view, copy=True)
            for name in ("sum", "prod", "max", "min"):
                for shape, axis in (((n,), None), ((37, n // 37), 1)):
                    results = [getattr(xp, name)(xp.reshape(x, shape), axis=axis)
                               for x in (view, aligned)]
                    assert to_numpy(results[0]).tobytes() == to_numpy(results[1]).tobytes(), (
                        case, offset, name, shape)
            largest, least = float(xp.max(view)), float(xp.min(view))
            if "nan" in case:
                assert np.isnan(largest) and np.isnan(least), (case, offset)
            elif "zero" in case:
                assert not np.signbit(largest) and np.signbit(least), (case, offset)


def _vector_pairwise_sum(values):
    """The sum of a contiguous float run whose length is a multiple of 128, as the vector
    kernel adds it: lane ``i % lanes`` of accumulator ``i // lanes % 4`` within each block of
    2048, the accumulators pairwise, the blocks' vectors pairwise (each k-th block pairs with
    the stack once per trailing one bit of k), then the vector's halves."""
    lanes, stack = 64 // values.itemsize, []
    for k, first in enumerate(range(0, values.size, 2048)):
        vectors = values[first:first + 2048].reshape(-1, 4, lanes)
        slots = [np.full(lanes, -0.0, values.dtype) for _ in range(4)]
        for row in vectors:
            slots = [slot + vector for slot, vector in zip(slots, row)]
        pushed = (slots[0] + slots[1]) + (slots[2] + slots[3])
        while k & 1:
            pushed, k = stack.pop() + pushed, k >> 1
        stack.append(pushed)
    value = stack.pop()
    while stack:
        value = stack.pop() + value
    while value.size > 1:
        value = value[: value.size // 2] + value[value.size // 2:]
    return value[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_contiguous_float_sum_pairs_its_blocks_as_vectors(dtype):
    """The vector kernel's order of additions, bit for bit (runs from 2**14 elements, the
    small-array engine's bound, to one thread's 2 MiB): whole and short blocks, and a stack of
    blocks paired at several depths; at an offset into a line too."""
    rng = np.random.default_rng(3)
    for n in (8 * 2048, 8 * 2048 + 128, 15 * 2048 + 3 * 128, 33 * 2048):
        values = (rng.random(n) - 0.4).astype(dtype)
        expected = _vector_pairwise_sum(values)
        padded = np.zeros(n + 8, dtype)
        padded[3:3 + n] = values
        for x in (xp.asarray(values), xp.asarray(padded)[3:3 + n]):
            assert to_numpy(xp.sum(x)).tobytes() == expected.tobytes(), (n, dtype)


def test_large_reductions_take_the_threaded_paths():
    rng = np.random.default_rng(1)
    values = rng.random((1024, 1024)).astype(np.float32)
    x = xp.asarray(values)
    for axis in (None, 0, 1, (0, 1)):
        expected = values.astype(np.float64).sum(axis=axis)
        np.testing.assert_allclose(to_numpy(xp.sum(x, axis=axis)), expected, rtol=1e-5)
        np.testing.assert_array_equal(to_numpy(xp.max(x, axis=axis)), values.max(axis=axis))
    # Pieces along the reduced rows, with small partial results, or across the kept columns.
    for shape in ((4096, 256), (16, 1 << 16)):
        rows = rng.random(shape).astype(np.float32)
        np.testing.assert_allclose(to_numpy(xp.sum(xp.asarray(rows), axis=0)),
                                   rows.astype(np.float64).sum(axis=0), rtol=1e-5)
        np.testing.assert_array_equal(to_numpy(xp.min(xp.asarray(rows), axis=0)),
                                      rows.min(axis=0))
    wide = np.arange(3 * (1 << 20), dtype=np.int64).reshape(3, -1)
    np.testing.assert_array_equal(to_numpy(xp.sum(xp.asarray(wide), axis=0)), wide.sum(axis=0))
    np.testing.assert_array_equal(to_numpy(xp.count_nonzero(xp.asarray(wide % 3))),
                                  np.count_nonzero(wide % 3))


def test_empty_reductions():
    empty = xp.zeros((0, 3))
    np.testing.assert_array_equal(to_numpy(xp.sum(empty, axis=0)), np.zeros(3))
    np.testing.assert_array_equal(to_numpy(xp.prod(empty, axis=0)), np.ones(3))
    assert float(xp.sum(xp.zeros(0, dtype=xp.int8))) == 0
    assert to_numpy(xp.max(empty, axis=1)).shape == (0,)
    for function in (xp.max, xp.min):
        with pytest.raises(ValueError, match="empty"):
            function(empty, axis=0)
        with pytest.raises(ValueError, match="empty"):
            function(empty)
    assert np.isnan(float(xp.mean(xp.zeros(0))))
    mean = complex(xp.mean(xp.zeros(0, dtype=xp.complex64)))
    assert np.isnan(mean.real) and np.isnan(mean.imag)
    assert to_numpy(xp.mean(empty, axis=1)).shape == (0,)
    assert np.isnan(float(xp.var(xp.zeros(0))))


# ---------------------------------------------------------------- max, min

@given(st.data())
def test_max_min_match_numpy(data):
    dtype, x, values = data.draw(arrays(INTS + REAL_FLOATS))
    axis, keepdims = data.draw(axes(x.ndim)), data.draw(st.booleans())
    reduced = values.shape if axis is None else [values.shape[a] for a in np.atleast_1d(axis)]
    for name in ("max", "min"):
        if 0 in reduced:
            with pytest.raises(ValueError):
                getattr(xp, name)(x, axis=axis, keepdims=keepdims)
            continue
        result = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
        assert result.dtype == x.dtype
        np.testing.assert_array_equal(to_numpy(result),
                                      getattr(np, name)(values, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", REAL_FLOATS)
def test_max_min_propagate_nan(dtype):
    values = np.array([[1.0, np.nan, -np.inf], [np.inf, 2.0, -1.0]], dtype=np.float32)
    x = xp.astype(xp.asarray(values), getattr(xp, dtype))
    for name in ("max", "min"):
        for axis in (None, 0, 1):
            expected = getattr(np, name)(values, axis=axis)
            np.testing.assert_array_equal(to_numpy(getattr(xp, name)(x, axis=axis)), expected)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "int64"])
def test_max_min_integer_limits(dtype):
    info = np.iinfo(dtype)
    values = np.array([info.min, info.max, 0], dtype=dtype)
    assert int(xp.max(xp.asarray(values))) == info.max
    assert int(xp.min(xp.asarray(values))) == info.min


# ---------------------------------------------------------------- mean, var, std

@given(st.data())
def test_mean_var_std_match_numpy(data):
    dtype, x, values = data.draw(arrays(REAL_FLOATS + COMPLEX))
    axis, keepdims = data.draw(axes(x.ndim)), data.draw(st.booleans())
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2.0]))
    wide = values.astype(np.complex128 if dtype in COMPLEX else np.float64)
    scale = np.mean(np.abs(wide), axis=axis, keepdims=keepdims) if wide.size else None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean = np.mean(wide, axis=axis, keepdims=keepdims)
        var = np.var(wide, axis=axis, keepdims=keepdims, ddof=correction)
        count = wide.size // max(mean.size, 1) if wide.size else 0
        if count - correction <= 0:
            var = np.full_like(var, np.nan)
    real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    result = xp.mean(x, axis=axis, keepdims=keepdims)
    assert result.dtype == x.dtype
    if scale is None or np.size(mean) == 0:
        assert to_numpy(result).shape == np.shape(mean)
        return
    assert_close(result, mean, dtype, scale + np.abs(mean))
    square_scale = np.mean(np.abs(wide) ** 2, axis=axis, keepdims=keepdims) * 4 + 1e-30
    for name, expected, tolerance in (("var", var, square_scale),
                                      ("std", np.sqrt(var), np.sqrt(square_scale) * 4)):
        result = getattr(xp, name)(x, axis=axis, keepdims=keepdims, correction=correction)
        assert result.dtype == getattr(xp, real)
        assert_close(result, expected, real, tolerance / max(count - correction, 1e-3)
                     * max(count, 1))


def test_var_is_two_pass_accurate():
    values = (1e4 + np.arange(1000) % 7).astype(np.float32)
    expected = np.var(values.astype(np.float64))
    assert abs(float(xp.var(xp.asarray(values))) - expected) <= 1e-4 * expected


def test_float16_variance_below_the_subnormals_is_zero_as_in_numpy():
    """The variance of [0, 1.43e-06] is 5.1e-13, below float16's smallest subnormal: 0, as
    NumPy gives (the thorough profile found the test's tolerance, not dlnumba, wrong)."""
    values = np.array([0, 1.43e-06], np.float16)
    x = xp.asarray(values)
    assert to_numpy(xp.var(x)) == np.var(values) == 0
    # std takes the root before rounding to float16 (NumPy rounds the variance first: 0)
    assert to_numpy(xp.std(x)) == np.float16(np.std(values.astype(np.float64)))


def test_mean_keeps_nan():
    values = np.array([1.0, np.nan, 2.0])
    assert np.isnan(float(xp.mean(xp.asarray(values))))
    assert np.isnan(float(xp.std(xp.asarray(values))))


# ---------------------------------------------------------------- cumulative_sum, cumulative_prod

@given(st.data())
@settings(max_examples=40)
def test_cumulative_match_numpy(data):
    dtype, x, values = data.draw(arrays(ALL, bounded=True, max_dims=3))
    if x.ndim == 0:
        return
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim > 1 else data.draw(
        st.sampled_from([None, 0, -1]))
    include_initial = data.draw(st.booleans())
    along = 0 if axis is None else axis % x.ndim
    for name, numpy_name, identity in (("cumulative_sum", "cumsum", 0),
                                       ("cumulative_prod", "cumprod", 1)):
        result = getattr(xp, name)(x, axis=axis, include_initial=include_initial)
        target = default_dtype(dtype)
        assert result.dtype == getattr(xp, target)
        reference = values.astype(np.complex128 if dtype in COMPLEX else np.float64
                                  if dtype in RTOL else target)
        if include_initial:
            shape = list(values.shape)
            shape[along] = 1
            reference = np.concatenate([np.full(shape, identity, reference.dtype), reference],
                                       axis=along)
        expected = getattr(np, numpy_name)(reference, axis=along)
        scale = getattr(np, numpy_name)(np.maximum(np.abs(reference), 1), axis=along) * 4
        assert_close(result, expected, dtype if dtype in RTOL else target, scale)


def test_cumulative_float16_rounds_each_step_as_numpy():
    values = np.linspace(0, 3, 2000).astype(np.float16)
    np.testing.assert_array_equal(to_numpy(xp.cumulative_sum(xp.asarray(values))),
                                  np.cumsum(values))


def test_cumulative_errors():
    with pytest.raises(ValueError, match="axis"):
        xp.cumulative_sum(xp.ones((2, 2)))
    with pytest.raises(ValueError, match="0-d"):
        xp.cumulative_prod(xp.asarray(1.0))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.cumulative_sum(xp.ones(3), axis=1)
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(xp.ones(3), include_initial=1)
    assert xp.cumulative_sum(xp.ones(0), include_initial=True).shape == (1,)


# ---------------------------------------------------------------- argument checking

@pytest.mark.strict
@pytest.mark.parametrize("name, kinds", [
    ("sum", ALL), ("prod", ALL), ("max", INTS + REAL_FLOATS), ("min", INTS + REAL_FLOATS),
    ("mean", REAL_FLOATS + COMPLEX), ("var", REAL_FLOATS + COMPLEX),
    ("std", REAL_FLOATS + COMPLEX), ("cumulative_sum", ALL), ("cumulative_prod", ALL)])
def test_dtype_categories(name, kinds):
    for dtype in ALL:
        x = xp.ones(2, dtype=getattr(xp, dtype))
        if dtype in kinds:
            getattr(xp, name)(x)
        else:
            with pytest.raises(TypeError, match=dtype):
                getattr(xp, name)(x)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std"])
def test_axis_and_keepdims_errors(name):
    x = xp.ones((2, 3))
    function = getattr(xp, name)
    with pytest.raises(IndexError, match="out of bounds"):
        function(x, axis=2)
    with pytest.raises(IndexError, match="out of bounds"):
        function(x, axis=(0, -3))
    with pytest.raises(ValueError, match="more than once"):
        function(x, axis=(1, -1))
    with pytest.raises(TypeError, match="axis"):
        function(x, axis=1.0)
    with pytest.raises(TypeError, match="keepdims"):
        function(x, keepdims=None)
    with pytest.raises(TypeError, match="ndarray"):
        function(np.ones(3))
    with pytest.raises(TypeError):
        function(x, 0)  # axis is keyword-only


def test_results_match_strict_dtypes_and_shapes():
    for name in ("sum", "prod", "max", "min", "mean", "var", "std"):
        for dtype in ("float32", "float64") + (("int16", "uint8") if name in
                                               ("sum", "prod", "max", "min") else ()):
            ours = getattr(xp, name)(xp.ones((2, 3, 4), dtype=getattr(xp, dtype)),
                                     axis=(0, 2), keepdims=True)
            theirs = getattr(strict, name)(strict.ones((2, 3, 4), dtype=getattr(strict, dtype)),
                                           axis=(0, 2), keepdims=True)
            assert (str(ours.dtype), ours.shape) == (name_of(theirs.dtype), theirs.shape)


# ---------------------------------------------------------------- every reduction on each device

def device_case(dtype, device):
    """A (2, 3, 2) view of a ``dtype`` array on ``device``, axes permuted and one stepped
    backwards, holding -0.0, 0.0 and a NaN (floating dtypes) among values of -2..2; and NumPy's
    array of its values (bfloat16 as float32). Small: the CUDA simulator runs each thread of a
    reduction's blocks (one per result element) as a Python thread."""
    rng = np.random.default_rng(7)
    values = rng.uniform(-2, 2, (3, 2, 4)).round(1)
    values[1, 1, 1], values[0, 1, 3] = -0.0, 0.0  # the view takes [..., 3] and [..., 1]
    if dtype in INTS:
        values = np.abs(values * 2) if dtype.startswith("u") else values * 2
    elif dtype in REAL_FLOATS + COMPLEX:
        values[2, 0, 1] = np.nan
        if dtype in COMPLEX:
            values = values + 1j * rng.uniform(-2, 2, values.shape).round(1)
    x = xp.astype(xp.asarray(values), DTYPES[dtype]).to_device(device)
    view = xp.permute_dims(x, (2, 0, 1))[::-2]
    return view, to_numpy(view)


REDUCE_CALLS = [{}, {"axis": 0, "keepdims": True}, {"axis": (-1, 0)}]
ARG_CALLS = [{}, {"axis": 1, "keepdims": True}, {"axis": -1}]
SCAN_CALLS = [{"axis": 0}, {"axis": -1, "include_initial": True}]


def check_on_each_device(name, reference, dtype, calls, device):
    """``xp.<name>`` of a strided view on ``device`` against NumPy's ``reference`` for each
    keyword set of ``calls``: integer and bool results exactly, floating ones (NumPy's in float64
    or complex128) within RTOL[dtype] and RTOL[dtype] times the sum of the magnitudes; the
    result dtype the CPU gives; the result on ``device``."""
    view, values = device_case(dtype, device)
    wide = values.astype(np.complex128 if dtype in COMPLEX else np.float64) \
        if dtype in RTOL else values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scale = float(np.nansum(np.abs(wide)))
        for kwargs in calls:
            result = getattr(xp, name)(view, **kwargs)
            assert result.dtype == getattr(xp, name)(view.to_device("cpu"), **kwargs).dtype
            exact = result.dtype.kind in "biu"
            assert_matches_numpy(result, reference(wide, **kwargs), check_dtype=False,
                                 device=device, rtol=0 if exact else 4 * RTOL[dtype],
                                 atol=0 if exact else RTOL[dtype] * scale,
                                 err_msg=f"{name} {dtype} {kwargs}")


# name: (NumPy's function, the dtype checked on each device, the calls). One dtype a function,
# each kind in turn: the CUDA simulator compiles a reduction's kernels for each dtype (a second
# or two), and the nan* functions, mean and std share those of the reductions they build on.
STATISTICAL_ON_EACH_DEVICE = {
    "sum": (np.sum, "int8", REDUCE_CALLS),
    "prod": (np.prod, "complex64", REDUCE_CALLS),
    "max": (np.max, "float16", REDUCE_CALLS),
    "min": (np.min, "bfloat16", REDUCE_CALLS),
    "mean": (np.mean, "float32", REDUCE_CALLS),
    "var": (np.var, "complex128", REDUCE_CALLS),
    "std": (np.std, "complex128", REDUCE_CALLS),
    "cumulative_sum": (np.cumulative_sum, "float64", SCAN_CALLS),
    "cumulative_prod": (np.cumulative_prod, "uint16", SCAN_CALLS),
    "nansum": (np.nansum, "float32", REDUCE_CALLS),
    "nanprod": (np.nanprod, "complex64", REDUCE_CALLS),
    "nanmax": (np.nanmax, "float16", REDUCE_CALLS),
    "nanmin": (np.nanmin, "bfloat16", REDUCE_CALLS),
    "nanmean": (np.nanmean, "float32", REDUCE_CALLS),
    "nanvar": (np.nanvar, "complex128", REDUCE_CALLS),
    "nanstd": (np.nanstd, "complex128", REDUCE_CALLS),
    "nancumsum": (np.nancumsum, "float64", [{"axis": 1}]),
    "nancumprod": (np.nancumprod, "float32", [{"axis": 0}]),
}


@pytest.mark.parametrize("name", sorted(STATISTICAL_ON_EACH_DEVICE))
def test_every_statistical_function_matches_numpy_on_each_device(name, device):
    check_on_each_device(name, *STATISTICAL_ON_EACH_DEVICE[name], device)
