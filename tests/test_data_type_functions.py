"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type.

The standard's rules are checked against array-api-strict (every pair and every triple of the 13
standard dtypes), the float16/bfloat16 extension against NumPy and PyTorch promotion, limits
against numpy.finfo/iinfo and torch.finfo, and astype's values bit for bit against NumPy's
astype (bfloat16 against torch's ``.to(torch.bfloat16)``).
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._dtypes import as_dtype

from helpers import COMPLEX, HALF, REAL_FLOATS, STANDARD, data_address, integers_from_floats

strict = pytest.importorskip("array_api_strict")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.strict  # the standard's rules (test_numpy_habits.py: NumPy's beyond)

ALL = STANDARD + HALF
FLOATING = REAL_FLOATS + COMPLEX
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]
TORCH_DTYPE = {n: getattr(torch, n) for n in ALL}


def xd(name):
    return getattr(xp, name)


def sd(name):
    return getattr(strict, name)


STRICT_NAME = {sd(n): n for n in STANDARD}


def strict_outcome(function, *args):
    """The name of the dtype (or the bool) that array-api-strict returns, or the error type."""
    try:
        result = function(*args)
    except (TypeError, ValueError) as error:
        return type(error)
    return result if isinstance(result, bool) else STRICT_NAME[result]


def xp_outcome(function, *args):
    try:
        result = function(*args)
    except (TypeError, ValueError) as error:
        return type(error)
    if isinstance(result, bool):
        return result
    assert isinstance(result, np.dtype)
    return result.name


# ---- result_type and can_cast: the standard's table ----

@pytest.mark.parametrize("b", STANDARD)
@pytest.mark.parametrize("a", STANDARD)
def test_result_type_pairs_match_array_api_strict(a, b):
    """Every pair of standard dtypes promotes (or raises TypeError) as in array-api-strict."""
    expected = strict_outcome(strict.result_type, sd(a), sd(b))
    assert xp_outcome(xp.result_type, xd(a), xd(b)) == expected
    # the result is the very dtype object, and the order does not matter
    if expected is not TypeError:
        assert xp.result_type(xd(a), xd(b)) is xd(expected)
        assert xp.result_type(xd(b), xd(a)) is xd(expected)


@pytest.mark.parametrize("a, b", [
    ("bool", "int8"), ("bool", "uint64"), ("bool", "float32"), ("bool", "complex128"),
    ("int8", "float32"), ("int64", "float64"), ("uint8", "complex64"), ("uint32", "float64"),
    ("uint64", "int8"), ("uint64", "int16"), ("uint64", "int32"), ("uint64", "int64"),
])
def test_result_type_pairs_that_do_not_promote(a, b):
    """bool with numbers, integers with floats and uint64 with signed integers raise
    TypeError (both orders), as array-api-strict does."""
    for x, y in ((a, b), (b, a)):
        with pytest.raises(TypeError):
            strict.result_type(sd(x), sd(y))
        with pytest.raises(TypeError):
            xp.result_type(xd(x), xd(y))
        assert xp.can_cast(xd(x), xd(y)) is False


@pytest.mark.parametrize("b", STANDARD)
@pytest.mark.parametrize("a", STANDARD)
def test_can_cast_pairs_match_array_api_strict(a, b):
    """can_cast(a, b) is array-api-strict's answer, for dtypes and for arrays of dtype a."""
    expected = strict.can_cast(sd(a), sd(b))
    assert xp.can_cast(xd(a), xd(b)) is expected
    x = xp.zeros((2,), dtype=xd(a))
    assert xp.can_cast(x, xd(b)) is expected
    assert strict.can_cast(strict.zeros((2,), dtype=sd(a)), sd(b)) is expected


def test_result_type_triples_match_array_api_strict():
    """Every triple of standard dtypes (in every order) as array-api-strict gives it."""
    mismatches = []
    for a, b, c in itertools.product(STANDARD, repeat=3):
        expected = strict_outcome(strict.result_type, sd(a), sd(b), sd(c))
        actual = xp_outcome(xp.result_type, xd(a), xd(b), xd(c))
        if actual != expected:
            mismatches.append((a, b, c, expected, actual))
    assert mismatches == []


def test_result_type_many_arguments():
    """Longer argument lists fold the table; one dtype gives itself."""
    for name in ALL:
        assert xp.result_type(xd(name)) is xd(name)
        assert xp.result_type(*[xd(name)] * 5) is xd(name)
    assert xp.result_type(xp.int8, xp.uint8, xp.int16, xp.uint16) is xp.int32
    assert xp.result_type(xp.uint8, xp.uint16, xp.uint32, xp.int8) is xp.int64
    assert xp.result_type(xp.float32, xp.complex64, xp.float64) is xp.complex128
    with pytest.raises(TypeError):
        xp.result_type(xp.int64, xp.uint32, xp.uint64)
    with pytest.raises(TypeError):
        xp.result_type(xp.float32, xp.float32, xp.int8)


# ---- float16 / bfloat16 extension ----

EXTENSION = {
    ("float16", "float16"): "float16", ("bfloat16", "bfloat16"): "bfloat16",
    ("float16", "bfloat16"): "float32",
    ("float16", "float32"): "float32", ("bfloat16", "float32"): "float32",
    ("float16", "float64"): "float64", ("bfloat16", "float64"): "float64",
    ("float16", "complex64"): "complex64", ("bfloat16", "complex64"): "complex64",
    ("float16", "complex128"): "complex128", ("bfloat16", "complex128"): "complex128",
}


@pytest.mark.parametrize("b", ALL)
@pytest.mark.parametrize("a", ["float16", "bfloat16"])
def test_result_type_half_precision_extension(a, b):
    """float16 and bfloat16 promote as floats narrower than float32 (together: float32),
    and never with bool or integers."""
    key = (a, b) if (a, b) in EXTENSION else (b, a)
    if key in EXTENSION:
        expected = EXTENSION[key]
        assert xp.result_type(xd(a), xd(b)) is xd(expected)
        assert xp.result_type(xd(b), xd(a)) is xd(expected)
        # PyTorch, which has both, agrees
        assert torch.promote_types(TORCH_DTYPE[a], TORCH_DTYPE[b]) is TORCH_DTYPE[expected]
        if "bfloat16" not in (a, b):  # and so does NumPy's float16
            assert np.result_type(a, b) == np.dtype(expected)
        assert xp.can_cast(xd(a), xd(b)) is (expected == b)
        assert xp.can_cast(xd(b), xd(a)) is (expected == a)
    else:
        with pytest.raises(TypeError):
            xp.result_type(xd(a), xd(b))
        with pytest.raises(TypeError):
            xp.result_type(xd(b), xd(a))
        assert xp.can_cast(xd(a), xd(b)) is False
        assert xp.can_cast(xd(b), xd(a)) is False


def test_can_cast_half_precision():
    """Widening casts only: float16/bfloat16 go up, never down or across."""
    assert xp.can_cast(xp.float16, xp.float32) and xp.can_cast(xp.bfloat16, xp.float32)
    assert xp.can_cast(xp.float16, xp.complex64) and xp.can_cast(xp.bfloat16, xp.complex128)
    assert not xp.can_cast(xp.float32, xp.float16)
    assert not xp.can_cast(xp.float32, xp.bfloat16)
    assert not xp.can_cast(xp.float16, xp.bfloat16)
    assert not xp.can_cast(xp.bfloat16, xp.float16)
    assert not xp.can_cast(xp.int8, xp.float16) and not xp.can_cast(xp.bool, xp.bfloat16)
    assert xp.can_cast(xp.zeros(3, dtype=xp.bfloat16), xp.float64)


@pytest.mark.parametrize("b", ALL)
@pytest.mark.parametrize("a", ALL)
def test_can_cast_is_promotion_to_target(a, b):
    """can_cast(a, b) holds exactly when result_type(a, b) is b (and is a bool)."""
    try:
        promoted = xp.result_type(xd(a), xd(b))
    except TypeError:
        promoted = None
    result = xp.can_cast(xd(a), xd(b))
    assert type(result) is bool
    assert result is (promoted is xd(b))


# ---- result_type with arrays and Python scalars ----

@pytest.mark.parametrize("b", STANDARD)
@pytest.mark.parametrize("a", STANDARD)
def test_result_type_with_arrays(a, b):
    """Arrays count by their dtype, mixed freely with dtypes."""
    x, y = xp.zeros((2,), dtype=xd(a)), xp.ones((), dtype=xd(b))
    sx, sy = strict.zeros((2,), dtype=sd(a)), strict.ones((), dtype=sd(b))
    expected = strict_outcome(strict.result_type, sx, sy)
    assert xp_outcome(xp.result_type, x, y) == expected
    assert xp_outcome(xp.result_type, x, xd(b)) == expected
    assert xp_outcome(xp.result_type, xd(a), y) == expected
    assert xp.result_type(x) is xd(a)


# The standard's scalar rules: bool with bool arrays; int with integer and floating arrays;
# float with floating arrays; complex with floating arrays (checked separately below).
# Mixing a float with an integer array, or a complex with an integer array, is left to the
# implementation; dlnumba (like array-api-strict) raises TypeError.
@pytest.mark.parametrize("scalar", [True, False, 0, 7, 1.5, -0.0, math.inf])
@pytest.mark.parametrize("name", STANDARD)
def test_result_type_scalars_match_array_api_strict(name, scalar):
    """A Python scalar never changes the result; one of the wrong kind raises TypeError."""
    expected = strict_outcome(strict.result_type, sd(name), scalar)
    assert expected in (name, TypeError)
    assert xp_outcome(xp.result_type, xd(name), scalar) == expected
    assert xp_outcome(xp.result_type, scalar, xd(name)) == expected
    x, s = xp.zeros((3,), dtype=xd(name)), strict.zeros((3,), dtype=sd(name))
    assert xp_outcome(xp.result_type, x, scalar) == strict_outcome(strict.result_type, s, scalar)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "float32", "float64",
                                  "complex64", "complex128"])
def test_result_type_negative_int_scalar(name):
    """A negative Python int with signed and floating dtypes keeps the dtype."""
    assert STRICT_NAME[strict.result_type(sd(name), -3)] == name
    assert xp.result_type(xd(name), -3) is xd(name)
    assert xp.result_type(-128, xp.zeros(1, dtype=xd(name))) is xd(name)


@pytest.mark.parametrize("name", [n for n in STANDARD if "complex" in n])
def test_result_type_complex_scalar_with_complex(name):
    """A Python complex with a complex dtype keeps the dtype."""
    assert xp.result_type(xd(name), 1j) is xd(name)
    assert xp.result_type(1 + 2j, xp.zeros(2, dtype=xd(name))) is xd(name)
    assert STRICT_NAME[strict.result_type(sd(name), 1j)] == name


@pytest.mark.parametrize("name", ["bool", "int8", "int64", "uint8", "uint64"])
def test_result_type_complex_scalar_with_non_floating_raises(name):
    """A Python complex with bool or integer dtypes raises TypeError."""
    with pytest.raises(TypeError):
        xp.result_type(xd(name), 1j)
    with pytest.raises(TypeError):
        strict.result_type(sd(name), 1j)


@pytest.mark.parametrize("name, expected", [("float32", "complex64"),
                                            ("float64", "complex128")])
def test_result_type_complex_scalar_with_real_floating(name, expected):
    """Python complex with a real floating dtype: complex of the same precision."""
    assert STRICT_NAME[strict.result_type(sd(name), 1j)] == expected
    assert xp.result_type(xd(name), 1j) is xd(expected)
    assert xp.result_type(xp.zeros(2, dtype=xd(name)), 2.5, 1 - 1j) is xd(expected)


def test_result_type_scalars_with_several_dtypes():
    """Scalars are checked against the promoted result of all the dtypes."""
    assert xp.result_type(xp.int8, xp.uint8, 300) is xp.int16
    assert xp.result_type(xp.float32, 1, xp.float64, 2.5) is xp.float64
    assert xp.result_type(True, xp.bool, False) is xp.bool
    assert xp.result_type(xp.float16, 1.5, 2) is xp.float16
    assert xp.result_type(xp.bfloat16, 1.5, 2) is xp.bfloat16
    assert xp.result_type(xp.complex64, 1, 2.0, 3j) is xp.complex64
    with pytest.raises(TypeError):
        xp.result_type(xp.int8, xp.int16, 1.0)
    with pytest.raises(TypeError):
        xp.result_type(xp.float16, True)
    with pytest.raises(TypeError):
        xp.result_type(xp.bfloat16, False)


def test_result_type_bool_scalar_with_int_array():
    """bool with an integer array (or dtype) is a TypeError, as in array-api-strict."""
    for name in ("int8", "int64", "uint8", "uint64"):
        with pytest.raises(TypeError):
            strict.result_type(strict.zeros(2, dtype=sd(name)), True)
        with pytest.raises(TypeError):
            xp.result_type(xp.zeros(2, dtype=xd(name)), True)
        with pytest.raises(TypeError):
            xp.result_type(False, xd(name))


@pytest.mark.parametrize("args", [(), (1,), (1.0, 2), (True,), (1j, 2.0, False)])
def test_result_type_needs_an_array_or_dtype(args):
    """Without any array or dtype: ValueError, as in array-api-strict."""
    with pytest.raises(ValueError):
        strict.result_type(*args)
    with pytest.raises(ValueError):
        xp.result_type(*args)


@pytest.mark.parametrize("bad", [
    "float32", "int8", np.float32, np.dtype(">f4"), np.dtype("<U2"), float, int, None,
    np.zeros(3), np.float64(1.0), np.int32(3), strict.float32, torch.float32, [1, 2],
])
def test_result_type_and_can_cast_reject_non_dtypes(bad):
    """Strings, NumPy dtypes and scalars, Python types, other libraries' dtypes: TypeError."""
    with pytest.raises(TypeError):
        xp.result_type(bad)
    with pytest.raises(TypeError):
        xp.result_type(xp.float32, bad)
    with pytest.raises(TypeError):
        xp.can_cast(bad, xp.float64)
    with pytest.raises(TypeError):
        xp.can_cast(xp.float32, bad)


# ---- astype ----

@st.composite
def source_arrays(draw, name):
    """(dlnumba array, NumPy array of its values or bfloat16 bits as uint16) with random bits
    (NaN, inf, subnormals) in a random layout: reversed and stepped slices, transposes."""
    storage = np.dtype("uint16" if name == "bfloat16" else name)
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base_shape = [n * abs(s) for n, s in zip(shape, steps)]
    count = int(np.prod(base_shape))
    if name == "bool":
        flat = rng.integers(0, 2, count).astype(np.bool_)
    elif draw(st.booleans()):  # random bits
        flat = np.frombuffer(rng.bytes(count * storage.itemsize), storage).copy()
    else:  # modest values, most casts keep them
        real, imag = rng.normal(0, 50, count), rng.normal(0, 50, count)
        if name == "bfloat16":
            flat = bf16_bits(torch.from_numpy(real).to(torch.bfloat16))
        elif storage.kind == "c":
            flat = (real + 1j * imag).astype(storage)
        elif storage.kind == "f":
            flat = real.astype(storage)
        else:
            flat = np.clip(real, np.iinfo(storage).min, np.iinfo(storage).max).astype(storage)
    a = flat.reshape(base_shape)[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    a = a.transpose(draw(st.permutations(range(a.ndim))))
    x = xp.asarray(a)
    assert data_address(x) == a.__array_interface__["data"][0] or a.size == 0
    if name == "bfloat16":  # the same memory, read as bfloat16
        x = xp.ndarray._new(x._address, x.shape, x._strides, as_dtype(xp.bfloat16), x.device,
                            x._owner, x._readonly)
    return x, a


def widened(name, a):
    """The exact values of ``a``: bfloat16 bits widen to float32."""
    return (a.astype(np.uint32) << 16).view(np.float32) if name == "bfloat16" else a


def numpy_astype(source, dst):
    """NumPy's ``source.astype(dst)``; floats to integers as C converts each element."""
    if np.dtype(dst).kind in "iu" and source.dtype.kind in "fc":
        return integers_from_floats(source, dst)
    return source.astype(dst)


def bf16_bits(t):
    return t.contiguous().view(torch.int16).numpy().view(np.uint16)


def bf16_nan(bits):
    return (bits & 0x7F80 == 0x7F80) & (bits & 0x007F != 0)


@given(st.data())
def test_astype_matches_numpy(data):
    """astype(x, dtype) has NumPy's astype values (bfloat16: torch's rounding) for every
    pair of the 15 dtypes; complex to anything real raises TypeError."""
    src = data.draw(st.sampled_from(ALL), label="src")
    dst = data.draw(st.sampled_from(ALL), label="dst")
    x, a = data.draw(source_arrays(src), label="x")
    if "complex" in src and "complex" not in dst:
        with pytest.raises(TypeError):
            xp.astype(x, xd(dst))
        return
    y = xp.astype(x, xd(dst))
    assert y.dtype is xd(dst) and y.shape == a.shape and y.device == x.device
    assert y._readonly is False and data_address(y) % 64 == 0
    if a.size:
        assert not np.shares_memory(np.asarray(y), a)
    source = widened(src, a)
    out = np.asarray(y).view(np.uint16) if dst == "bfloat16" else np.asarray(y)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if dst == "bfloat16":
            if src == "bfloat16":
                expected = a
            else:
                expected = bf16_bits(torch.from_numpy(source.copy()).to(torch.bfloat16))
            assert np.array_equal(bf16_nan(out), bf16_nan(expected))
            keep = ~bf16_nan(expected)
            assert np.array_equal(out[keep], expected[keep])
            return
        expected = numpy_astype(source, dst)
    assert out.dtype == expected.dtype
    assert out.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dst", ALL)
@pytest.mark.parametrize("src", ALL)
def test_astype_special_values(src, dst):
    """NaN, infinities, -0.0, rounding halfway cases: NumPy's astype, torch's bfloat16."""
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.5, 100.25, 65504.0, 1e-3, math.nan,
              math.inf, -math.inf, 1e30]
    if "complex" in src and "complex" not in dst:
        with pytest.raises(TypeError, match=f"{src}.*{dst}"):
            xp.astype(xp.zeros(3, dtype=xd(src)), xd(dst))
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if src == "bfloat16":
            bits = bf16_bits(torch.tensor(values, dtype=torch.bfloat16))
            x = xp.zeros(bits.shape, dtype=xp.bfloat16)
            np.asarray(x).view(np.uint16)[...] = bits
            source = widened("bfloat16", bits)
            tsource = torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16)
        else:
            a = np.array(values, np.float64).astype(src)
            if "complex" in src:
                a = a + 1j * a[::-1]
            x, source, tsource = xp.asarray(a), a, torch.from_numpy(a)
        y = xp.astype(x, xd(dst))
        if dst == "bfloat16":
            expected = bf16_bits(tsource.to(torch.bfloat16))
            out = np.asarray(y).view(np.uint16)
            assert np.array_equal(bf16_nan(out), bf16_nan(expected))
            assert np.array_equal(out[~bf16_nan(out)], expected[~bf16_nan(expected)])
            return
        expected = numpy_astype(source, dst)
    assert np.asarray(y).tobytes() == expected.tobytes()


OUT_OF_RANGE = [-1.0, -1.5, -129.0, 200.0, 300.0, 40000.0, 70000.0, -40000.0, 3e9, -3e9,
                5e9, 9.3e18, 1.8e19, -1e19, 1e30, -1e30, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_floats_out_of_an_integer_range_convert_as_numpy_does(device, src):
    """Floats out of an integer type's range, NaN and infinities become what NumPy's astype of
    a contiguous array gives on x86-64 (float16 as its exact float32 value), the same in a fused
    chain and on every device, in a contiguous, a stepped and a reversed layout."""
    with np.errstate(all="ignore"):
        values = np.array(OUT_OF_RANGE * 3, dtype=src)
    x = xp.asarray(values, device=device)
    for dst in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        with np.errstate(all="ignore"):  # NumPy's vector loop, not its scalar tail
            wide = values.astype(np.float32 if src == "float16" else src)
            numpy = np.tile(wide, 64).astype(dst)[:values.size]
        assert np.array_equal(integers_from_floats(values, dst), numpy), dst
        fused = xp.fuse(lambda t: xp.astype(t, xd(dst)))
        for view, reference in [(x, numpy), (x[::2], numpy[::2]), (x[::-1], numpy[::-1])]:
            assert np.asarray(xp.astype(view, xd(dst)).to_device("cpu")).tobytes() == \
                reference.tobytes(), (dst, view.shape)
            assert np.asarray(fused(view).to_device("cpu")).tobytes() == reference.tobytes(), dst


@pytest.mark.parametrize("name", ALL)
def test_astype_copy_false_same_dtype_is_identity(name):
    """copy=False with the array's own dtype returns the very same object, even when the
    array is a strided view or read-only."""
    x = xp.ones((4, 3), dtype=xd(name))
    assert xp.astype(x, xd(name), copy=False) is x
    v = x[::-1, ::2]
    assert xp.astype(v, xd(name), copy=False) is v
    assert xp.astype(x, xd(name), copy=False, device="cpu") is x
    assert xp.astype(x, xd(name), copy=False, device=xp.Device("cpu")) is x


def test_astype_copy_false_read_only_is_identity():
    a = np.broadcast_to(np.arange(3.0), (4, 3))
    x = xp.asarray(a)
    assert x._readonly
    assert xp.astype(x, xp.float64, copy=False) is x


@pytest.mark.parametrize("name", ALL)
def test_astype_copy_true_same_dtype_is_new_memory(name):
    """copy=True (the default) always gives fresh memory, even for the same dtype."""
    a = np.arange(12).reshape(3, 4)
    x = xp.astype(xp.asarray(a), xd(name))
    for y in (xp.astype(x, xd(name)), xp.astype(x, xd(name), copy=True)):
        assert y is not x and y.dtype is x.dtype and y.shape == x.shape
        assert data_address(y) != data_address(x)
        assert not np.shares_memory(np.asarray(y), np.asarray(x))
        assert np.asarray(y).tobytes() == np.asarray(x).tobytes()
    # writing to the copy leaves the source alone
    y = xp.astype(x, xd(name), copy=True)
    y[...] = xp.zeros((), dtype=xd(name))
    assert np.asarray(x).tobytes() == np.asarray(xp.astype(xp.asarray(a), xd(name))).tobytes()


def test_astype_copy_false_other_dtype_is_new_array():
    """copy=False with another dtype still casts, into new memory."""
    a = np.arange(6, dtype=np.int32)
    x = xp.asarray(a)
    y = xp.astype(x, xp.float64, copy=False)
    assert y is not x and y.dtype is xp.float64
    assert not np.shares_memory(np.asarray(y), a)
    assert np.array_equal(np.from_dlpack(y), a.astype(np.float64))


def test_astype_copy_of_broadcast_is_writable():
    a = np.broadcast_to(np.arange(3.0), (4, 3))
    y = xp.astype(xp.asarray(a), xp.float64)
    assert y._readonly is False and y._strides == (3, 1)
    y[0, 0] = 9.0
    assert a[0, 0] == 0.0
    assert np.array_equal(np.from_dlpack(y)[1:], a[1:])


def test_astype_on_device(device):
    """astype takes device=; on the array's own device it casts in place there."""
    x = xp.asarray([1, 2, 3], device=device)
    for spelling in (device, str(device), device.type):
        y = xp.astype(x, xp.float32, device=spelling)
        assert y.dtype is xp.float32 and y.device == x.device
        assert np.from_dlpack(y.to_device("cpu")).tolist() == [1.0, 2.0, 3.0]


def test_astype_unavailable_device():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(ValueError, match="cuda:9 is not available"):
        xp.astype(x, xp.float32, device="cuda:9")


@pytest.mark.parametrize("src", ["complex64", "complex128"])
@pytest.mark.parametrize("dst", ["bool", "int8", "uint64", "float16", "bfloat16", "float32",
                                 "float64"])
def test_astype_complex_to_real_raises(src, dst):
    """Complex to any real dtype (bool included) raises TypeError naming both dtypes, as
    array-api-strict does."""
    if dst in STANDARD:
        with pytest.raises(TypeError):
            strict.astype(strict.asarray([1 + 1j], dtype=sd(src)), sd(dst))
    x = xp.asarray([1 + 1j, 0j], dtype=xd(src))
    with pytest.raises(TypeError, match=f"{src}.*{dst}"):
        xp.astype(x, xd(dst))
    with pytest.raises(TypeError):
        xp.astype(x, xd(dst), copy=False)


@pytest.mark.parametrize("bad", [np.arange(3), [1, 2, 3], 3.0, strict.asarray([1, 2]),
                                 torch.arange(3), None])
def test_astype_rejects_non_arrays(bad):
    with pytest.raises(TypeError):
        xp.astype(bad, xp.float32)


@pytest.mark.parametrize("bad", ["float32", np.float32, np.dtype(">f4"), float,
                                 strict.float32, torch.float32, None])
def test_astype_rejects_non_dtypes(bad):
    with pytest.raises(TypeError):
        xp.astype(xp.asarray([1.0, 2.0]), bad)
    with pytest.raises(TypeError):
        xp.astype(xp.asarray([1.0, 2.0]), bad, copy=False)


# ---- finfo / iinfo ----

@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo_matches_array_api_strict_and_numpy(name):
    """Complex dtypes report their real component: finfo(complex64) is float32's."""
    info = xp.finfo(xd(name))
    ref = strict.finfo(sd(name))
    real = {"complex64": "float32", "complex128": "float64"}.get(name, name)
    npi = np.finfo(real)
    assert info.bits == ref.bits == npi.bits
    assert info.eps == ref.eps == float(npi.eps)
    assert info.max == ref.max == float(npi.max)
    assert info.min == ref.min == float(npi.min)
    assert info.smallest_normal == ref.smallest_normal == float(npi.smallest_normal)
    assert info.dtype is xd(real) and STRICT_NAME[ref.dtype] == real
    assert type(info.bits) is int
    for field in ("eps", "max", "min", "smallest_normal"):
        assert type(getattr(info, field)) is float


def test_finfo_float16_matches_numpy():
    info, npi = xp.finfo(xp.float16), np.finfo(np.float16)
    assert info.bits == 16 and info.dtype is xp.float16
    assert (info.eps, info.max, info.min, info.smallest_normal) == (
        float(npi.eps), float(npi.max), float(npi.min), float(npi.smallest_normal))
    assert (info.eps, info.max, info.smallest_normal) == (2.0**-10, 65504.0, 2.0**-14)
    ti = torch.finfo(torch.float16)
    assert (info.eps, info.max, info.min, info.smallest_normal) == (
        ti.eps, ti.max, ti.min, ti.smallest_normal)


def test_finfo_bfloat16_matches_torch():
    info, ti = xp.finfo(xp.bfloat16), torch.finfo(torch.bfloat16)
    assert info.bits == ti.bits == 16 and info.dtype is xp.bfloat16
    assert info.eps == ti.eps == 2.0**-7
    assert info.max == ti.max == (2 - 2.0**-7) * 2.0**127
    assert info.min == ti.min == -(2 - 2.0**-7) * 2.0**127
    assert info.smallest_normal == ti.smallest_normal == 2.0**-126
    for field in ("eps", "max", "min", "smallest_normal"):
        assert type(getattr(info, field)) is float
    # max is the largest finite bfloat16: bits 0x7F7F
    assert np.array([0x7F7F << 16], np.uint32).view(np.float32)[0] == info.max


@pytest.mark.parametrize("name", [n for n in STANDARD if "int" in n])
def test_iinfo_matches_array_api_strict_and_numpy(name):
    info, ref, npi = xp.iinfo(xd(name)), strict.iinfo(sd(name)), np.iinfo(name)
    assert info.bits == ref.bits == npi.bits
    assert info.max == ref.max == int(npi.max)
    assert info.min == ref.min == int(npi.min)
    assert info.dtype is xd(name) and STRICT_NAME[ref.dtype] == name
    assert type(info.bits) is int and type(info.max) is int and type(info.min) is int


@pytest.mark.parametrize("name", ALL)
def test_finfo_iinfo_accept_arrays(name):
    """finfo/iinfo take an array as well as a dtype, and give the same answer."""
    x = xp.zeros((2, 2), dtype=xd(name))
    if name in FLOATING:
        assert xp.finfo(x) == xp.finfo(xd(name))
        with pytest.raises(TypeError):
            xp.iinfo(x)
    elif name == "bool":
        with pytest.raises(TypeError):
            xp.finfo(x)
        with pytest.raises(TypeError):
            xp.iinfo(x)
    else:
        assert xp.iinfo(x) == xp.iinfo(xd(name))
        with pytest.raises(TypeError):
            xp.finfo(x)


@pytest.mark.parametrize("name", ALL)
def test_finfo_iinfo_wrong_kinds(name):
    """finfo of bool/integers and iinfo of bool/floats raise TypeError, as array-api-strict's
    do (for the standard dtypes)."""
    if name not in FLOATING:
        with pytest.raises(TypeError):
            xp.finfo(xd(name))
        if name in STANDARD:
            with pytest.raises((TypeError, ValueError)):
                strict.finfo(sd(name))
    if name == "bool" or name in FLOATING:
        with pytest.raises(TypeError):
            xp.iinfo(xd(name))
        if name in STANDARD:
            with pytest.raises((TypeError, ValueError)):
                strict.iinfo(sd(name))


@pytest.mark.parametrize("bad", ["float32", np.float32, np.dtype(">i2"), float, int,
                                 np.zeros(3), strict.float32, None])
def test_finfo_iinfo_reject_non_dtypes(bad):
    with pytest.raises(TypeError):
        xp.finfo(bad)
    with pytest.raises(TypeError):
        xp.iinfo(bad)


# ---- isdtype ----

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", STANDARD)
def test_isdtype_kinds_match_array_api_strict(name, kind):
    result = xp.isdtype(xd(name), kind)
    assert type(result) is bool
    assert result is strict.isdtype(sd(name), kind)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_isdtype_half_precision(name):
    """float16 and bfloat16 are real floating, numeric, and nothing else."""
    expected = {"real floating": True, "numeric": True}
    for kind in KINDS:
        assert xp.isdtype(xd(name), kind) is expected.get(kind, False)
    assert xp.isdtype(xd(name), xd(name))
    assert not xp.isdtype(xp.float16, xp.bfloat16) and not xp.isdtype(xp.bfloat16, xp.uint16)
    assert not xp.isdtype(xd(name), xp.float32)


@pytest.mark.parametrize("other", STANDARD)
@pytest.mark.parametrize("name", STANDARD)
def test_isdtype_with_dtype_kinds(name, other):
    """A dtype as the kind: true only for that very dtype, as in array-api-strict."""
    assert xp.isdtype(xd(name), xd(other)) is strict.isdtype(sd(name), sd(other)) \
        is (name == other)


@given(st.sampled_from(STANDARD),
       st.lists(st.one_of(st.sampled_from(KINDS),
                          st.sampled_from(STANDARD).map(lambda n: ("d", n))),
                min_size=0, max_size=4))
def test_isdtype_tuples_match_array_api_strict(name, kinds):
    """Tuples of kind names and dtypes: true when any member matches."""
    as_xp = tuple(xd(k[1]) if isinstance(k, tuple) else k for k in kinds)
    as_strict = tuple(sd(k[1]) if isinstance(k, tuple) else k for k in kinds)
    result = xp.isdtype(xd(name), as_xp)
    assert type(result) is bool
    assert result is strict.isdtype(sd(name), as_strict)


@pytest.mark.parametrize("kind", ["float", "integer", "Bool", "real", "complex", "",
                                  "signed_integer", "numeric "])
def test_isdtype_unknown_kind(kind):
    with pytest.raises(ValueError):
        strict.isdtype(strict.int8, kind)
    with pytest.raises(ValueError):
        xp.isdtype(xp.int8, kind)
    with pytest.raises(ValueError):
        xp.isdtype(xp.float32, (kind,))


@pytest.mark.parametrize("kind", [1, None, np.float32, np.dtype(">f4"), strict.float32,
                                  ["bool"]])
def test_isdtype_bad_kind_type(kind):
    with pytest.raises(TypeError):
        xp.isdtype(xp.float32, kind)


@pytest.mark.parametrize("bad", ["float32", np.float32, np.dtype(">f4"),
                                 strict.float32, None])
def test_isdtype_rejects_non_dtypes(bad):
    with pytest.raises(TypeError):
        xp.isdtype(bad, "real floating")
