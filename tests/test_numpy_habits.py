"""What the standard leaves to the implementation follows NumPy 2; strict mode refuses it.

- Promotion of mixed kinds and of uint64 with signed integers, for every pair of dtypes, against
  ``np.result_type``; Python scalars of another kind against NumPy's NEP 50 rules.
- Elementwise functions on dtypes outside their category (integers in ``sqrt``, integer
  ``divide``, bool in ``add``): result dtype and values against the NumPy ufunc, for every
  function and dtype NumPy takes; TypeError where NumPy has no loop.
- Statistics of integer and bool arrays, ``where``, ``matmul``, item assignment and ``full``
  against NumPy.
- Strict mode (``strict()`` blocks, ``set_strict``, ``DLNUMBA_STRICT``) restores the errors.
- Dtype spellings: dlnumba's, NumPy's dtypes, scalar types and strings, Python's types, and
  ``np.dtype`` of a dlnumba dtype; bfloat16 as ``ml_dtypes.bfloat16``.
"""

import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import dlnumba as xp
from dlnumba._dtypes import CATEGORIES, as_dtype
from dlnumba.shared.scalar import FUNCTIONS

from helpers import NUMPY_NAMES
# Values every dtype holds, chosen to reach each loop's interesting cases (zero, sign, halves).
SAMPLES = [0, 1, 2, 3, 5, 7, 100, 127]


def sample(dtype):
    return np.asarray(SAMPLES, dtype=dtype)


def read(x):
    """A dlnumba array's values as a NumPy array (copied)."""
    return np.array(x)


def ufunc(name):
    return getattr(np, FUNCTIONS[name].ufunc)


def numpy_outcome(function, *args):
    """NumPy's result, or TypeError where NumPy refuses the dtypes."""
    try:
        with np.errstate(all="ignore"):
            return function(*args)
    except TypeError:
        return TypeError


# ---- promotion ----

@pytest.mark.parametrize("b", NUMPY_NAMES)
@pytest.mark.parametrize("a", NUMPY_NAMES)
def test_result_type_is_numpys(a, b):
    """Every pair of dtypes promotes as np.result_type: the standard's table where it has the
    pair, NumPy's beyond it (mixed kinds, uint64 with signed integers)."""
    assert xp.result_type(getattr(xp, a), getattr(xp, b)).name == np.result_type(a, b).name


@pytest.mark.parametrize("b", NUMPY_NAMES)
@pytest.mark.parametrize("a", NUMPY_NAMES)
def test_can_cast_is_numpys_safe_casting(a, b):
    """can_cast follows the promotion table within kinds and NumPy's safe casting across them
    (strict mode: False across kinds, as the table has no entry)."""
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == np.can_cast(a, b, casting="safe")
    with xp.strict():
        mixed = xp.isdtype(getattr(xp, a), "bool") != xp.isdtype(getattr(xp, b), "bool") or \
            xp.isdtype(getattr(xp, a), "integral") != xp.isdtype(getattr(xp, b), "integral")
        if mixed:
            assert xp.can_cast(getattr(xp, a), getattr(xp, b)) is False


@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1j])
@pytest.mark.parametrize("dtype", NUMPY_NAMES)
def test_python_scalars_promote_as_in_numpy(dtype, scalar):
    """A Python scalar of any kind with an array of any dtype: NEP 50's result dtype and value,
    from result_type and from the operators."""
    x = xp.asarray(sample(dtype)[:3])
    expected = numpy_outcome(np.add, sample(dtype)[:3], scalar)
    if expected is TypeError:  # bool + bool is or in NumPy, but True + array(bool) is too
        pytest.fail("NumPy takes every scalar with every dtype")
    assert xp.result_type(x, scalar).name == expected.dtype.name
    got = x + scalar
    assert got.dtype.name == expected.dtype.name
    np.testing.assert_array_equal(read(got), expected)
    np.testing.assert_array_equal(read(scalar * x), np.multiply(scalar, sample(dtype)[:3]))


def test_bfloat16_promotes_as_a_float_narrower_than_float32():
    assert xp.result_type(xp.bfloat16, xp.int8) is xp.bfloat16
    assert xp.result_type(xp.bfloat16, xp.bool) is xp.bfloat16
    assert xp.result_type(xp.bfloat16, xp.uint16) is xp.float32
    assert xp.result_type(xp.bfloat16, xp.int64) is xp.float64
    assert xp.result_type(xp.bfloat16, xp.float16) is xp.float32
    x = xp.asarray([1.5, 2.5], dtype=xp.bfloat16)
    assert (x + xp.asarray([1, 2], dtype=xp.int8)).dtype is xp.bfloat16
    assert read(xp.astype(x * 2, xp.float32)).tolist() == [3.0, 5.0]
    assert xp.sqrt(x).dtype is xp.bfloat16


# ---- elementwise functions outside their category ----

# NumPy loops that dlnumba does not have (each outside the standard's categories).
NUMPY_ONLY = ({("reciprocal", d) for d in NUMPY_NAMES[:9]}
              | {(n, c) for n in ("greater", "greater_equal", "less", "less_equal", "maximum",
                                  "minimum") for c in ("complex64", "complex128")})


UFUNC_CASES = [(name, dtype) for name in sorted(FUNCTIONS)
               if FUNCTIONS[name].ufunc is not None for dtype in NUMPY_NAMES
               if as_dtype(getattr(xp, dtype)).kind not in CATEGORIES[FUNCTIONS[name].category]]
# What NumPy users call where the ufunc is not the function they know.
NUMPY_FUNCTIONS = {"round": np.round}


@pytest.mark.parametrize("name, dtype", UFUNC_CASES)
def test_elementwise_dtypes_and_values_are_numpys(name, dtype):
    """Every function on every dtype outside its category (same-dtype operands): the NumPy
    function's result dtype and values, or TypeError where NumPy has no loop or dlnumba lacks
    NumPy's (integer reciprocal, complex ordering)."""
    arity = FUNCTIONS[name].arity
    operands = [sample(dtype), sample(dtype)[::-1].copy()][:arity]
    if name in ("bitwise_left_shift", "bitwise_right_shift", "pow") and dtype == "bool":
        operands[-1] = operands[-1] % 2 == 1
    expected = numpy_outcome(NUMPY_FUNCTIONS.get(name, ufunc(name)), *operands)
    if expected is TypeError or (name, dtype) in NUMPY_ONLY:
        with pytest.raises(TypeError, match=name):
            getattr(xp, name)(*(xp.asarray(o) for o in operands))
        return
    got = getattr(xp, name)(*(xp.asarray(o) for o in operands))
    assert got.dtype.name == expected.dtype.name
    rtol = 1e-3 if expected.dtype == np.float16 else 1e-6
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(read(got).astype(expected.dtype), expected, rtol=rtol,
                                   equal_nan=True)


@pytest.mark.parametrize("a, b", [("int64", "float32"), ("int8", "float16"), ("uint64", "int64"),
                                  ("bool", "float64"), ("int16", "complex64"),
                                  ("uint8", "int8")])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "atan2",
                                  "floor_divide", "maximum", "equal", "less", "logical_and"])
def test_mixed_operands_match_numpy(name, a, b):
    x1, x2 = sample(a), sample(b)[::-1].copy()
    expected = numpy_outcome(ufunc(name), x1, x2)
    if expected is TypeError or (name, np.result_type(a, b).name) in NUMPY_ONLY:
        with pytest.raises(TypeError, match=name):
            getattr(xp, name)(xp.asarray(x1), xp.asarray(x2))
        return
    got = getattr(xp, name)(xp.asarray(x1), xp.asarray(x2))
    assert got.dtype.name == expected.dtype.name
    np.testing.assert_allclose(read(got), expected, rtol=1e-3 if "16" in str(expected.dtype)
                               else 1e-6)


def test_operators_mix_kinds():
    i, f = xp.arange(4), xp.ones(4, dtype=xp.float32)
    assert read(i / 2).tolist() == [0.0, 0.5, 1.0, 1.5]
    assert (i * f).dtype is xp.float64
    assert (xp.asarray([1, 2, 3, 4], dtype=xp.int16) * f).dtype is xp.float32
    i += 1
    assert read(i).tolist() == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="in-place"):
        i += 1.5  # the result's dtype, float64, is not i's


@given(st.lists(st.integers(-2**31, 2**31), min_size=1, max_size=40),
       st.sampled_from(["int8", "int32", "int64", "uint16", "bool"]))
def test_statistics_of_integers_are_numpys(values, dtype):
    data = np.asarray(values).astype(dtype)
    x = xp.asarray(data)
    for name in ("mean", "var", "std"):
        got, expected = getattr(xp, name)(x), getattr(np, name)(data)
        assert got.dtype is xp.float64
        np.testing.assert_allclose(float(got), expected, rtol=1e-12, atol=1e-12)
    got = xp.var(x, correction=1, axis=0, keepdims=True)
    with np.errstate(all="ignore"):
        expected = np.var(data, ddof=1, axis=0, keepdims=True)
    np.testing.assert_allclose(read(got), expected, rtol=1e-12, equal_nan=True)


def test_ordering_reductions_take_bool():
    data = np.asarray([[False, True], [False, False]])
    x = xp.asarray(data)
    for name in ("max", "min", "argmax", "argmin"):
        for axis in (None, 0, 1):
            got, expected = getattr(xp, name)(x, axis=axis), getattr(np, name)(data, axis=axis)
            assert got.dtype.name == np.asarray(expected).dtype.name
            assert read(got).tolist() == np.asarray(expected).tolist()


def test_where_matmul_setitem_and_full_follow_numpy():
    condition = xp.asarray([1, 0, 2])
    got = xp.where(condition, xp.asarray([1, 2, 3]), 0.5)
    assert got.dtype is xp.float64 and read(got).tolist() == [1.0, 0.5, 3.0]
    assert read(xp.where(xp.asarray([True, False]), xp.asarray([1.5, 2.5]), True)).tolist() \
        == [1.5, 1.0]
    got = xp.where(xp.asarray([True, False]), 1, 2.5)
    assert got.dtype is xp.float64 and read(got).tolist() == [1.0, 2.5]
    a = np.arange(6).reshape(2, 3)
    b = np.ones((3, 2), dtype=np.float32)
    got = xp.asarray(a) @ xp.asarray(b)
    assert got.dtype.name == (a @ b).dtype.name and read(got).tolist() == (a @ b).tolist()
    x = xp.zeros(3, dtype=xp.int32)
    x[0] = 2.7
    x[1] = True
    assert read(x).tolist() == [2, 1, 0]
    assert read(xp.full(2, 1.9, dtype="int8")).tolist() == [1, 1]
    with pytest.raises(TypeError):
        x[2] = 1j
    with pytest.raises(OverflowError):
        x[2] = 2**40


# ---- strict mode ----

STRICT_ERRORS = {
    "divide of integers": lambda: xp.arange(3) / 2,
    "float scalar with integers": lambda: xp.arange(3) + 1.5,
    "int scalar with bool": lambda: xp.asarray([True]) + 1,
    "mixed kinds": lambda: xp.arange(3) * xp.ones(3),
    "uint64 with int64": lambda: xp.result_type(xp.uint64, xp.int64),
    "sqrt of integers": lambda: xp.sqrt(xp.arange(3)),
    "bool in add": lambda: xp.add(xp.asarray([True]), xp.asarray([False])),
    "mean of integers": lambda: xp.mean(xp.arange(3)),
    "max of bool": lambda: xp.max(xp.asarray([True])),
    "where on integers": lambda: xp.where(xp.arange(2), xp.ones(2), 2.0),
    "where of two scalars": lambda: xp.where(xp.asarray([True, False]), 1, 2.5),
    "matmul of mixed kinds": lambda: xp.matmul(xp.ones((2, 2)), xp.eye(2, dtype=xp.int64)),
    "float stored in an integer array": lambda: xp.full(2, 1.5, dtype=xp.int64),
    "string dtype": lambda: xp.asarray([1], dtype="float32"),
    "NumPy dtype": lambda: xp.zeros(2, dtype=np.float32),
    "Python type as dtype": lambda: xp.ones(2, dtype=float),
}


@pytest.mark.parametrize("case", sorted(STRICT_ERRORS))
def test_strict_mode_restores_the_standards_errors(case):
    STRICT_ERRORS[case]()
    with xp.strict():
        assert xp.is_strict()
        with pytest.raises(TypeError):
            STRICT_ERRORS[case]()
        with xp.strict(False):
            STRICT_ERRORS[case]()
    assert not xp.is_strict()


def test_set_strict_is_process_wide_and_strict_blocks_are_per_thread():
    seen = {}
    previous = xp.set_strict(True)
    try:
        assert previous is False
        thread = threading.Thread(target=lambda: seen.update(other=xp.is_strict()))
        thread.start()
        thread.join()
        assert seen["other"] is True
        with xp.strict(False):
            xp.arange(2) / 2
            thread = threading.Thread(target=lambda: seen.update(other=xp.is_strict()))
            thread.start()
            thread.join()
            assert seen["other"] is True  # a block only covers its own thread
    finally:
        assert xp.set_strict(previous) is True
    with pytest.raises(TypeError, match="bool"):
        xp.set_strict(1)


def test_strict_mode_from_the_environment():
    code = ("import dlnumba as xp\n"
            "try:\n    xp.arange(2) / 2\nexcept TypeError as e:\n    print('refused:', e)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "DLNUMBA_STRICT": "1"}, check=True)
    assert "refused: divide takes arrays of floating-point dtypes, not int64" in result.stdout


# ---- dtype spellings ----

@pytest.mark.parametrize("spelling, name", [
    ("float32", "float32"), ("f4", "float32"), ("int", "int64"), ("uint8", "uint8"),
    ("complex", "complex128"), ("bfloat16", "bfloat16"), (np.float32, "float32"),
    (np.dtype("int16"), "int16"), (np.bool_, "bool"), (bool, "bool"), (int, "int64"),
    (float, "float64"), (complex, "complex128"), (xp.uint32, "uint32"),
])
def test_dtype_spellings(spelling, name):
    assert xp.asarray([1, 0], dtype=spelling).dtype is getattr(xp, name)
    assert xp.zeros(2, dtype=spelling).dtype is getattr(xp, name)
    assert xp.astype(xp.arange(2), spelling).dtype is getattr(xp, name)
    assert xp.finfo(spelling) if name.startswith(("float", "complex", "bf")) else True


@pytest.mark.parametrize("spelling", ["float33", "U5", object, None, [1], ">f4", "datetime64"])
def test_bad_dtype_spellings_are_named(spelling):
    with pytest.raises(TypeError, match="dtype|dlnumba"):
        xp.zeros(2, dtype=spelling) if spelling is not None else xp.astype(xp.ones(2), spelling)


@pytest.mark.parametrize("name", [d for d in NUMPY_NAMES])
def test_numpy_reads_dlnumba_dtypes(name):
    assert np.dtype(getattr(xp, name)) == np.dtype(name)
    assert np.zeros(2, dtype=getattr(xp, name)).dtype == np.dtype(name)


def test_bfloat16_is_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert np.dtype(xp.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    x = xp.asarray([1.5, -2.0, 3.0], dtype=xp.bfloat16)
    seen = np.asarray(x)
    assert seen.dtype == np.dtype(ml_dtypes.bfloat16)
    assert seen.astype(np.float32).tolist() == [1.5, -2.0, 3.0]
    x[0] = 4.0  # zero-copy: NumPy sees the change
    assert float(seen[0]) == 4.0
    assert xp.asarray(seen).dtype is xp.bfloat16


# ---- NumPy scalars, NumPy indices, NumPy's keywords ----

def test_numpy_scalars_are_typed_operands():
    """A NumPy scalar is a 0-d array of its own dtype (NEP 50), also np.float64, which is a
    Python float too."""
    f32 = xp.ones(2, dtype=xp.float32)
    assert (f32 + np.float64(1)).dtype is xp.float64
    assert (f32 * np.int8(2)).dtype is xp.float32
    assert (xp.arange(2, dtype=xp.int8) + np.int16(300)).dtype is xp.int16
    assert read(f32 - np.float32(0.5)).tolist() == [0.5, 0.5]
    with xp.strict(), pytest.raises(TypeError):
        f32 + np.float32(1)


KEYS = [np.array([0, 2]), [1, 0], (slice(None), np.array([3, 0])), (Ellipsis, [2, 2, 0]),
        (slice(None), np.array([[0, 2], [1, 1]]), slice(1, 3)), np.array([True, False, True]),
        (slice(None, None, -1), [2, 0], Ellipsis), (np.array([1, 2]), np.array([0, 1]), 0)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_numpy_and_list_indices_match_numpy(key):
    """NumPy arrays and lists index as NumPy's do, also one integer array among slices and
    ``...`` (the standard takes integer arrays only one per dimension, with no slices)."""
    values = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    got = xp.asarray(values)[key]
    np.testing.assert_array_equal(read(got), values[key])
    target, expected = xp.asarray(values.copy()), values.copy()
    target[key] = -1
    expected[key] = -1
    np.testing.assert_array_equal(read(target), expected)


def test_numpy_keywords_and_take_of_an_int():
    x = xp.reshape(xp.arange(12), (3, 4))
    assert xp.mean(x, dtype=xp.float32).dtype is xp.float32
    assert xp.mean(xp.ones(3, dtype=xp.float32), dtype="float64").dtype is xp.float64
    np.testing.assert_allclose(read(xp.var(x, axis=0, ddof=1)),
                               np.var(np.arange(12).reshape(3, 4), axis=0, ddof=1))
    np.testing.assert_allclose(float(xp.std(x, ddof=2)), np.std(np.arange(12), ddof=2))
    assert read(xp.take(x, 2, axis=1)).tolist() == [2, 6, 10]
    assert int(xp.take(xp.arange(5), 3)) == 3
    with pytest.raises(TypeError, match="not both"):
        xp.var(xp.ones(3), correction=1, ddof=1)
    with pytest.raises(TypeError, match="floating"):
        xp.mean(xp.ones(3), dtype=xp.int64)
    with xp.strict():
        for call in (lambda: xp.mean(xp.ones(3), dtype=xp.float32),
                     lambda: xp.var(xp.ones(3), ddof=1), lambda: xp.take(xp.arange(3), 1)):
            with pytest.raises(TypeError):
                call()


def test_non_numeric_numpy_arrays_are_refused():
    with pytest.raises(TypeError, match="<U1"):
        xp.asarray(np.array(["a", "b"]))


# ---- NaN-skipping reductions ----

NAN_FUNCTIONS = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"]


@given(st.lists(st.sampled_from([0.5, -2.0, 3.0, 1e3, np.nan]), min_size=12, max_size=12),
       st.sampled_from([None, 0, 1, (0, 1)]), st.booleans(),
       st.sampled_from(["float64", "float32", "int32"]))
def test_nan_functions_match_numpy(values, axis, keepdims, dtype):
    data = np.asarray(values).reshape(3, 4)
    data = data.astype(dtype) if dtype != "int32" else np.nan_to_num(data).astype(dtype)
    x = xp.asarray(data)
    for name in NAN_FUNCTIONS:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = getattr(np, name)(data, axis=axis, keepdims=keepdims)
        got = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
        assert got.dtype.name == np.asarray(expected).dtype.name, name
        np.testing.assert_allclose(read(got), expected, rtol=1e-5, equal_nan=True,
                                   err_msg=name)
    if axis is None or isinstance(axis, int):
        for name in ("nanargmax", "nanargmin"):
            if np.isnan(data).all(axis=axis).any():
                with pytest.raises(ValueError, match="all-NaN"):
                    getattr(xp, name)(x, axis=axis)
            else:
                assert read(getattr(xp, name)(x, axis=axis)).tolist() == \
                    getattr(np, name)(data, axis=axis).tolist()
    if axis in (0, 1):
        np.testing.assert_allclose(read(xp.nancumsum(x, axis=axis)), np.nancumsum(data, axis))
