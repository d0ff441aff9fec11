"""nonzero, searchsorted, where and diff against NumPy and array-api-strict: every dtype,
layouts, broadcasting, Python scalars, NaNs and signed zeros."""

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from helpers import ALL, COMPLEX, INTS, NUMERIC, REAL_FLOATS, to_numpy
from test_sorting import arrays, assert_identical, to_xp


@given(arrays(max_dims=4))
def test_nonzero_matches_numpy(case):
    a, dtype = case
    ours = xp.nonzero(to_xp(a, dtype))
    expected = np.nonzero(a)
    assert len(ours) == a.ndim
    for o, e in zip(ours, expected):
        assert o.dtype == xp.int64
        assert np.array_equal(np.from_dlpack(o), e)


def test_nonzero_counts_negative_zero_as_zero_and_nan_as_nonzero():
    for dtype in (xp.float16, xp.bfloat16, xp.float64):
        x = xp.astype(xp.asarray([-0.0, np.nan, 0.0, -1.0]), dtype)
        assert np.from_dlpack(xp.nonzero(x)[0]).tolist() == [1, 3]
    c = xp.asarray(np.array([complex(0, -0.0), complex(-0.0, 1), complex(np.nan, 0)]))
    assert np.from_dlpack(xp.nonzero(c)[0]).tolist() == [1, 2]


def test_nonzero_of_0d_array_raises():
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(1))


@st.composite
def searches(draw, dtypes=INTS + REAL_FLOATS):
    """A sorted 1-D array (as sort orders it, NaNs last), search values, and the dtype."""
    a, dtype = draw(arrays(dtypes=dtypes, max_dims=1, max_side=40))
    v, _ = draw(arrays(dtypes=[dtype], max_dims=3))
    return np.sort(a), v, dtype


@given(searches(dtypes=ALL), st.sampled_from(["left", "right"]))
def test_searchsorted_matches_numpy(case, side):
    a, v, dtype = case
    ours = xp.searchsorted(to_xp(a, dtype), to_xp(v, dtype), side=side)
    assert ours.dtype == xp.int64
    assert_identical(np.from_dlpack(ours), np.searchsorted(a, v, side=side))


@given(searches(), st.sampled_from(["left", "right"]), st.randoms(use_true_random=False))
def test_searchsorted_with_sorter_matches_numpy(case, side, random):
    a, v, dtype = case
    shuffled = a[random.sample(range(a.size), a.size)] if a.size else a
    sorter = np.argsort(shuffled, kind="stable")
    ours = xp.searchsorted(to_xp(shuffled, dtype), to_xp(v, dtype), side=side,
                           sorter=xp.asarray(sorter.astype(np.int32)))
    assert np.array_equal(np.from_dlpack(ours), np.searchsorted(a, v, side=side))


@settings(max_examples=30)
@given(searches(dtypes=INTS + ["float32", "float64"]), st.sampled_from(["left", "right"]))
def test_searchsorted_matches_array_api_strict(case, side):
    a, v, _ = case
    ours = xp.searchsorted(xp.asarray(a), xp.asarray(v), side=side)
    theirs = strict.searchsorted(strict.asarray(a), strict.asarray(v), side=side)
    assert np.array_equal(np.from_dlpack(ours), np.asarray(theirs))


def test_searchsorted_promotes_and_takes_python_scalars():
    x1 = xp.asarray(np.array([1, 3, 5], np.int8))
    assert int(xp.searchsorted(x1, 3, side="right")) == 2
    assert xp.searchsorted(x1, 3).shape == ()
    assert np.from_dlpack(xp.searchsorted(x1, xp.asarray(np.array([300, -1], np.int16)))
                          ).tolist() == [3, 0]
    x1 = xp.asarray([-np.inf, -0.0, 1.0, np.nan])
    assert np.from_dlpack(xp.searchsorted(x1, xp.asarray([0.0, np.nan, np.inf]))).tolist() == \
        [1, 3, 3]
    assert int(xp.searchsorted(x1, 2.5)) == 3
    reversed_x1 = xp.asarray([9.0, 7.0, 5.0, 3.0])[::-1]  # a negative stride
    assert np.from_dlpack(xp.searchsorted(reversed_x1, xp.asarray([0.0, 3.0, 6.0, 10.0]),
                                          side="right")).tolist() == [0, 1, 2, 4]


@pytest.mark.parametrize("call, error", [
    (lambda: xp.searchsorted(xp.asarray([[1, 2]]), xp.asarray([1])), ValueError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), xp.asarray([1]), side="middle"), ValueError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), 1,
                             sorter=xp.asarray([0, 2])), ValueError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), 1, sorter=xp.asarray([0])), ValueError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), 1, sorter=xp.asarray([0.0, 1.0])), TypeError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), 1.5), TypeError),
    (lambda: xp.searchsorted(xp.asarray([1, 2]), xp.asarray([True])), TypeError),
    (lambda: xp.searchsorted([1, 2], 1), TypeError),
])
@pytest.mark.strict
def test_searchsorted_bad_arguments(call, error):
    with pytest.raises(error):
        call()


def _broadcastable(draw, shape):
    """A shape that broadcasts with ``shape`` (dimensions dropped from the left or set to 1)."""
    shape = shape[draw(st.integers(0, len(shape))):]
    return tuple(1 if draw(st.booleans()) else n for n in shape)


@given(arrays(), st.data())
def test_where_matches_numpy(case, data):
    a, dtype = case
    other, other_dtype = data.draw(arrays(min_dims=0, max_dims=a.ndim, min_side=1, max_side=1))
    condition = data.draw(hnp.arrays(np.bool_, _broadcastable(data.draw, a.shape)))
    if data.draw(st.booleans()):
        a, other, dtype, other_dtype = other, a, other_dtype, dtype
    x1, x2 = to_xp(a, dtype), to_xp(other, other_dtype)
    try:
        result_dtype = xp.result_type(x1, x2)
    except TypeError:
        with pytest.raises(TypeError):
            xp.where(xp.asarray(condition), x1, x2)
        return
    ours = xp.where(xp.asarray(condition), x1, x2)
    assert ours.dtype == result_dtype
    e1, e2 = (to_numpy(xp.astype(x, result_dtype)) for x in (x1, x2))
    assert_identical(to_numpy(ours), np.where(condition, e1, e2))


@pytest.mark.strict
@pytest.mark.parametrize("scalar", [True, 3, -2.5, 1j, float("nan")])
@pytest.mark.parametrize("dtype", ["bool", "int16", "uint8", "float32", "bfloat16",
                                   "complex64"])
def test_where_python_scalars_match_array_api_strict(scalar, dtype):
    a = np.array([[1, 0, 2], [0, 1, 1]]).astype(np.float32 if dtype == "bfloat16" else dtype)
    condition = np.array([True, False, True])
    x = to_xp(a, dtype)
    try:
        expected_dtype = xp.result_type(x, scalar)
    except TypeError:
        for args in ((scalar, x), (x, scalar)):
            with pytest.raises(TypeError):
                xp.where(xp.asarray(condition), *args)
        return
    for args in ((scalar, x), (x, scalar)):
        ours = xp.where(xp.asarray(condition), *args)
        assert ours.dtype == expected_dtype and ours.shape == (2, 3)
        if dtype != "bfloat16":
            s_args = [strict.asarray(a) if isinstance(v, xp.ndarray) else v for v in args]
            theirs = strict.where(strict.asarray(condition), *s_args)
            assert np.array_equal(to_numpy(ours), np.asarray(theirs), equal_nan=True)


def test_where_large_strided_operands():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((600, 1000)).astype(np.float32)
    condition = rng.random((1000, 600)) < 0.5
    ours = xp.where(xp.asarray(condition).mT, xp.asarray(a[::-1]), xp.asarray(np.float32(7)))
    assert np.array_equal(np.from_dlpack(ours), np.where(condition.T, a[::-1], 7))


@pytest.mark.parametrize("call", [
    lambda: xp.where(xp.asarray([1, 0]), xp.asarray([1, 2]), 0),
    lambda: xp.where([True], xp.asarray([1]), 0),
    lambda: xp.where(xp.asarray([True]), 1, 2),
    lambda: xp.where(xp.asarray([True]), xp.asarray([1]), 2.5),
    lambda: xp.where(xp.asarray([True]), xp.asarray([1]), xp.asarray([True])),
    lambda: xp.where(xp.asarray([True]), xp.asarray([1]), "a"),
])
@pytest.mark.strict
def test_where_bad_arguments_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_where_shapes_that_do_not_broadcast_raise_value_error():
    with pytest.raises(ValueError):
        xp.where(xp.asarray([True, False]), xp.asarray([1, 2, 3]), 0)


@given(arrays(dtypes=NUMERIC), st.data())
def test_diff_matches_numpy(case, data):
    a, dtype = case
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.integers(0, 3))
    kwargs = {}
    for name in ("prepend", "append"):
        if data.draw(st.booleans()):
            shape = list(a.shape)
            shape[axis] = data.draw(st.integers(0, 2))
            kwargs[name] = data.draw(hnp.arrays(a.dtype, tuple(shape),
                                                elements=st.integers(0, 3)))
    x = to_xp(a, dtype)
    ours = xp.diff(x, axis=axis, n=n, **{k: to_xp(v, dtype) for k, v in kwargs.items()})
    # joined first: NumPy drops prepend/append when n is 0, the standard keeps them
    joined = np.concatenate([to_numpy(to_xp(kwargs[k], dtype)) if k in kwargs else to_numpy(x)
                             for k in ("prepend", "x", "append") if k in kwargs or k == "x"],
                            axis=axis)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = np.diff(joined, axis=axis, n=n)
    assert ours.dtype == x.dtype and ours.shape == expected.shape
    if dtype in ("float16", "bfloat16"):  # rounded at every step, as NumPy's float16 is
        expected = to_numpy(xp.astype(xp.asarray(expected.astype(np.float32)), x.dtype))
        if n > 1:
            return
    assert np.array_equal(to_numpy(ours), expected, equal_nan=dtype in REAL_FLOATS + COMPLEX)


def test_diff_matches_array_api_strict():
    a = np.array([[1, 5, 2], [8, -3, 0]], np.int16)
    for kwargs in ({}, {"axis": 0}, {"n": 2}, {"n": 5}):
        ours = xp.diff(xp.asarray(a), **kwargs)
        assert np.array_equal(np.from_dlpack(ours), np.asarray(strict.diff(strict.asarray(a),
                                                                           **kwargs)))
    ours = xp.diff(xp.asarray(a), prepend=xp.asarray(np.zeros((2, 1), np.int16)))
    theirs = strict.diff(strict.asarray(a), prepend=strict.asarray(np.zeros((2, 1), np.int16)))
    assert np.array_equal(np.from_dlpack(ours), np.asarray(theirs))


@pytest.mark.parametrize("call, error", [
    (lambda: xp.diff(xp.asarray([True, False])), TypeError),
    (lambda: xp.diff(xp.asarray(3)), ValueError),
    (lambda: xp.diff(xp.asarray([1, 2]), n=-1), ValueError),
    (lambda: xp.diff(xp.asarray([1, 2]), n=1.0), TypeError),
    (lambda: xp.diff(xp.asarray([1, 2]), axis=1), IndexError),
    (lambda: xp.diff(xp.asarray([1, 2]), prepend=0), TypeError),
    (lambda: xp.diff(xp.asarray([[1, 2]]), append=xp.asarray([1])), ValueError),
    (lambda: xp.diff(xp.asarray([1, 2]), append=xp.asarray([True])), TypeError),
])
@pytest.mark.strict
def test_diff_bad_arguments(call, error):
    with pytest.raises(error):
        call()
