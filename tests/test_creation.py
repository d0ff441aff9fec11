"""Creation functions: asarray, empty, zeros, ones, full, arange, the *_like forms, eye, linspace,
meshgrid, tril and triu.

Checked against NumPy (values, dtypes, shapes), against PyTorch for bfloat16 rounding, and for
the memory contract: zero-copy imports share memory, copies get fresh 64-byte aligned memory.
"""

import math

import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._dtypes import as_dtype

from helpers import NUMPY_NAMES, data_address, to_numpy

torch = pytest.importorskip("torch")

NP_DTYPES = [np.dtype(n) for n in NUMPY_NAMES]
XP_DTYPE = {d: getattr(xp, d.name) for d in NP_DTYPES}
ALL_XP_DTYPES = list(XP_DTYPE.values()) + [xp.bfloat16]
CREATORS = ("empty", "zeros", "ones", "full")

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def assert_same(actual, expected):
    """Same shape, dtype and bits."""
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.tobytes() == expected.tobytes()


def torch_bf16_bits(values):
    """bfloat16 bits of ``values`` as torch rounds them, as uint16."""
    t = torch.tensor(values, dtype=torch.bfloat16) if not isinstance(values, torch.Tensor) \
        else values
    return t.view(torch.int16).numpy().view(np.uint16)


def assert_same_bf16(actual, expected_bits):
    """A bfloat16 array has the same bits, except that any NaN matches any NaN (torch's tensor
    casts keep NaN payloads; torch.tensor(list) makes every NaN 0x7FC0; dlnumba keeps the sign,
    as ml_dtypes does)."""
    actual_bits, expected_bits = np.asarray(actual).view(np.uint16), np.asarray(expected_bits)
    assert actual_bits.shape == expected_bits.shape
    nan = lambda b: (b & 0x7F80 == 0x7F80) & (b & 0x007F != 0)
    assert np.array_equal(nan(actual_bits), nan(expected_bits))
    keep = ~nan(expected_bits)
    assert np.array_equal(actual_bits[keep], expected_bits[keep])


def value_for(dtype):
    """A Python scalar that fits ``dtype``'s kind."""
    return {"bool": True, "signed integer": -3, "unsigned integer": 3,
            "real floating": 2.5, "complex floating": 1 - 2j}[as_dtype(dtype).kind]


# ---- asarray from Python data ----

@pytest.mark.parametrize("obj, dtype", [
    (True, xp.bool), (False, xp.bool), (0, xp.int64), (-7, xp.int64), (1.5, xp.float64),
    (1j, xp.complex128), ([True, False], xp.bool), ([1, 2], xp.int64), ([True, 2], xp.int64),
    ([1, 2.5], xp.float64), ([True, 2.5], xp.float64), ([1, 2.5, 3j], xp.complex128),
    ([[1, 2], [3, 4]], xp.int64), (((1.0,), (2.0,)), xp.float64), ([], xp.float64),
    ([[]], xp.float64), (2**63 - 1, xp.int64), (-2**63, xp.int64),
])
def test_asarray_python_default_dtypes(obj, dtype):
    """Python scalars and nested sequences get the array API default dtypes."""
    x = xp.asarray(obj)
    assert x.dtype is dtype
    assert_same(np.from_dlpack(x), np.asarray(obj, dtype=as_dtype(dtype).storage))
    assert data_address(x) % 64 == 0


@given(st.data())
def test_asarray_nested_lists_match_numpy(data):
    """asarray(list, dtype=...) equals np.asarray(list, dtype=...) for every NumPy dtype."""
    dtype = data.draw(st.sampled_from(NP_DTYPES))
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=1,
                                                     max_side=4)))
    values = a.tolist()
    x = xp.asarray(values, dtype=XP_DTYPE[dtype])
    assert_same(np.from_dlpack(x), np.asarray(values, dtype=dtype))
    default = {"b": xp.bool, "i": xp.int64, "u": xp.int64, "f": xp.float64,
               "c": xp.complex128}[dtype.kind]
    if not (dtype == np.uint64 and np.any(a > np.iinfo(np.int64).max)):
        assert xp.asarray(values).dtype is default


@given(st.lists(st.floats(width=32), min_size=0, max_size=20))
def test_asarray_bfloat16_rounds_like_torch(values):
    """bfloat16 from Python floats: torch's bits (round to nearest even), NaN for NaN."""
    x = xp.asarray(values, dtype=xp.bfloat16)
    assert x.dtype is xp.bfloat16 and x.shape == (len(values),)
    assert_same_bf16(x, torch_bf16_bits(values))


@given(hnp.arrays(np.uint32, st.integers(0, 30)))
def test_asarray_bfloat16_from_float32_bits_like_torch(bits):
    """Every float32 bit pattern (subnormals, NaN payloads, near-ties) rounds as torch does."""
    f = bits.view(np.float32)
    x = xp.asarray(f, dtype=xp.bfloat16)
    assert_same_bf16(x, torch_bf16_bits(torch.from_numpy(f.copy()).to(torch.bfloat16)))


def test_asarray_bfloat16_special_values():
    """Ties round to even; overflow goes to inf; NaN is the quiet NaN of its sign."""
    values = [1.00390625, 1.01171875, 3.3895313892515355e38, -3.4e38, 1e-45, -0.0, math.nan,
              -math.nan, math.inf, -math.inf]
    x = xp.asarray(values, dtype=xp.bfloat16)
    assert_same_bf16(x, torch_bf16_bits(values))
    assert np.asarray(x).view(np.uint16)[6:8].tolist() == [0x7FC0, 0xFFC0]


@pytest.mark.parametrize("value", [1.5, 0, True])
def test_asarray_bfloat16_scalar_is_0d(value):
    """A Python scalar with dtype=bfloat16 gives a 0-d array."""
    x = xp.asarray(value, dtype=xp.bfloat16)
    assert x.shape == ()
    assert float(x) == float(value)


@pytest.mark.parametrize("dtype", [xp.float16, xp.float32, xp.int8, xp.uint16, xp.complex64,
                                   xp.bool])
def test_asarray_python_with_dtype(dtype):
    """Python data with dtype= is converted to that dtype as NumPy converts it."""
    values = [[0, 1, 1], [1, 0, 1]]
    x = xp.asarray(values, dtype=dtype)
    assert x.dtype is dtype
    assert_same(np.from_dlpack(x), np.asarray(values, dtype=as_dtype(dtype).storage))
    assert float(xp.asarray(2, dtype=xp.float16)) == 2.0


@pytest.mark.parametrize("obj", [[[1, 2], [3]], [[1], 2], [[[1]], [2]]])
def test_asarray_ragged_raises(obj):
    """Ragged nested sequences raise an error."""
    with pytest.raises((ValueError, TypeError)):
        xp.asarray(obj)


@pytest.mark.parametrize("obj", ["abc", ["a", "b"], None, [None], object(), {1: 2}, [1, "a"],
                                 2**64, [2**64], [-2**63 - 1]])
def test_asarray_unconvertible_raises(obj):
    """Strings, None, objects and ints beyond 64 bits are refused."""
    with pytest.raises((TypeError, ValueError, OverflowError)):
        xp.asarray(obj)


NON_NUMBERS = [[None], [1.0, None], ["1"], [b"7"], [[1], ["2"]]]
NON_NUMBER_IDS = ["None", "float-None", "str", "bytes", "nested-str"]


@pytest.mark.parametrize("obj", NON_NUMBERS, ids=NON_NUMBER_IDS)
def test_asarray_non_numbers_raise(obj):
    """Sequences holding None, str or bytes are not numbers: TypeError."""
    with pytest.raises(TypeError):
        xp.asarray(obj)


@pytest.mark.parametrize("obj, dtype", list(zip(
    NON_NUMBERS, [xp.float64, xp.bfloat16, xp.int8, xp.int8, xp.int64])), ids=NON_NUMBER_IDS)
def test_asarray_non_numbers_raise_with_dtype(obj, dtype):
    """With dtype=..., sequences holding None, str or bytes still raise TypeError."""
    with pytest.raises(TypeError):
        xp.asarray(obj, dtype=dtype)


@pytest.mark.parametrize("obj", [1, 2.5, [1, 2], (1.0,), [[True]]])
def test_asarray_copy_false_python_data(obj):
    """copy=False with Python data (which must be copied) raises ValueError."""
    with pytest.raises(ValueError):
        xp.asarray(obj, copy=False)
    assert data_address(xp.asarray(obj, copy=True)) % 64 == 0


@pytest.mark.strict
def test_asarray_bad_dtype_argument():
    """In strict mode dtype must be one of the namespace's (NumPy dtype objects): strings,
    scalar types, Python types and other libraries' dtypes are TypeErrors."""
    assert xp.asarray([1.0], dtype=np.dtype("float32")).dtype is xp.float32
    for dtype in ("float32", np.float32, np.dtype(">f4"), float, torch.float32):
        with pytest.raises(TypeError):
            xp.asarray([1.0], dtype=dtype)


# ---- asarray from arrays: zero-copy and copies ----

@given(st.sampled_from(NP_DTYPES), shapes)
def test_asarray_numpy_is_zero_copy(dtype, shape):
    """A NumPy array comes in zero-copy (copy=None/False) and as a fresh copy (copy=True)."""
    a = np.zeros(shape, dtype)
    for copy in (None, False):
        x = xp.asarray(a, copy=copy)
        assert x.dtype is XP_DTYPE[dtype] and x.shape == a.shape
        assert data_address(x) == a.ctypes.data
    c = xp.asarray(a, copy=True)
    assert_same(np.from_dlpack(c), a)
    assert data_address(c) % 64 == 0
    if a.size:
        assert data_address(c) != a.ctypes.data
        x = xp.asarray(a)
        x[(0,) * a.ndim] = value_for(x.dtype)
        assert a[(0,) * a.ndim] == value_for(x.dtype)  # shared
        assert np.from_dlpack(c)[(0,) * a.ndim] == 0  # not shared


def test_asarray_numpy_strided_zero_copy():
    """Non-contiguous and negative-stride NumPy views keep their layout (no copy)."""
    a = np.arange(24.0).reshape(4, 6)[::-1, ::2]
    x = xp.asarray(a)
    assert data_address(x) == a.ctypes.data
    assert tuple(s * 8 for s in x._strides) == a.strides
    assert_same(np.from_dlpack(x), a)
    c = xp.asarray(a, copy=True)
    assert c._strides == (3, 1)
    assert_same(np.from_dlpack(c), a)


def test_asarray_torch_zero_copy_and_copy():
    """A torch tensor comes in zero-copy; copy=True gives independent memory."""
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = xp.asarray(t)
    assert data_address(x) == t.data_ptr() and x.dtype is xp.float32 and x.shape == (2, 3)
    x[0, 0] = 9.0
    assert t[0, 0].item() == 9.0
    assert data_address(xp.asarray(t, copy=False)) == t.data_ptr()
    c = xp.asarray(t, copy=True)
    assert data_address(c) != t.data_ptr()
    c[1, 1] = -1.0
    assert t[1, 1].item() == 4.0
    b = torch.tensor([1.5, -2.0, 0.1], dtype=torch.bfloat16)
    y = xp.asarray(b)
    assert y.dtype is xp.bfloat16 and data_address(y) == b.data_ptr()
    assert_same(np.asarray(y).view(np.uint16), torch_bf16_bits(b))


def test_asarray_torch_strided_view():
    """A non-contiguous torch view (offset, transposed, stepped) keeps its layout."""
    base = torch.arange(24, dtype=torch.int16).reshape(4, 6)
    t = base[1:, ::2].T
    x = xp.asarray(t)
    assert data_address(x) == t.data_ptr()
    assert x._strides == tuple(t.stride()) and x.shape == tuple(t.shape)
    assert np.from_dlpack(x).tolist() == t.tolist()
    x[0, 0] = -1
    assert base[1, 0].item() == -1


def test_asarray_torch_with_dtype_casts():
    """asarray(tensor, dtype=...) casts into new memory; to bfloat16 like torch does."""
    f = torch.tensor([1.00390625, 3.3e38, -1e-40, float("nan")], dtype=torch.float32)
    x = xp.asarray(f, dtype=xp.bfloat16)
    assert data_address(x) != f.data_ptr()
    assert_same_bf16(x, torch_bf16_bits(f.to(torch.bfloat16)))
    y = xp.asarray(f, dtype=xp.float64)
    assert_same(np.from_dlpack(y), f.numpy().astype(np.float64))


def test_asarray_dlnumba_array():
    """From a dlnumba array: copy=None/False returns it; copy=True gives a new array."""
    x = xp.asarray([1.0, 2.0, 3.0])
    assert xp.asarray(x) is x
    assert xp.asarray(x, copy=False) is x
    assert xp.asarray(x, dtype=xp.float64) is x
    assert xp.asarray(x, device="cpu") is x
    c = xp.asarray(x, copy=True)
    assert c is not x and data_address(c) != data_address(x) and data_address(c) % 64 == 0
    assert_same(np.from_dlpack(c), np.from_dlpack(x))
    c[0] = 5.0
    assert float(x[0]) == 1.0


def test_asarray_copy_of_read_only_is_writable():
    """copy=True of read-only memory gives a writable array; the source stays intact."""
    a = np.arange(3.0)
    a.flags.writeable = False
    for source in (a, xp.asarray(a)):
        c = xp.asarray(source, copy=True)
        c[0] = 7.0
        assert float(c[0]) == 7.0 and a[0] == 0.0
    with pytest.raises(ValueError):
        xp.asarray(a)[0] = 7.0


def test_asarray_copy_false_dtype_change():
    """copy=False with a dtype change raises ValueError, whatever the source."""
    sources = [xp.asarray([1, 2]), np.arange(3), torch.arange(3)]
    for source in sources:
        with pytest.raises(ValueError):
            xp.asarray(source, dtype=xp.float32, copy=False)


@given(st.sampled_from(NP_DTYPES + [None]))
def test_asarray_copy_true_with_dtype(dtype):
    """copy=True with a dtype change gives one fresh cast copy equal to NumPy's astype."""
    a = np.arange(-3, 5, dtype=np.int16)
    x = xp.asarray(a, dtype=None if dtype is None else XP_DTYPE[dtype], copy=True)
    assert data_address(x) != a.ctypes.data and data_address(x) % 64 == 0
    assert_same(np.from_dlpack(x), a.astype(a.dtype if dtype is None else dtype))


# ---- asarray from buffers ----

def test_asarray_bytearray_shares_memory():
    """A bytearray (writable buffer) comes in as uint8, zero-copy."""
    buf = bytearray(b"\x01\x02\x03")
    x = xp.asarray(buf)
    assert x.dtype is xp.uint8 and x.shape == (3,)
    x[1] = 200
    assert buf == bytearray(b"\x01\xc8\x03")
    c = xp.asarray(buf, copy=True)
    c[0] = 0
    assert buf[0] == 1


def test_asarray_bytes_is_read_only():
    """bytes are immutable: the array has their values and refuses writes."""
    data = b"abc"
    x = xp.asarray(data)
    assert np.from_dlpack(x).tolist() == [97, 98, 99]
    with pytest.raises(ValueError):
        x[0] = 1
    assert data == b"abc"
    c = xp.asarray(data, copy=True)
    c[0] = 1
    assert int(c[0]) == 1


@pytest.mark.parametrize("dtype", ["f", "d", "i", "B", "h", "q", "?", "e", "F", "D"])
def test_asarray_memoryview_formats(dtype):
    """A memoryview's format and shape decide the dtype and shape (buffer protocol)."""
    a = np.arange(6).astype(dtype).reshape(2, 3)
    x = xp.asarray(memoryview(a))
    assert x.dtype is XP_DTYPE[a.dtype] and x.shape == (2, 3)
    assert_same(np.from_dlpack(x), a)
    x[0, 0] = value_for(x.dtype)
    assert a[0, 0] == value_for(x.dtype)


def test_asarray_buffer_with_dtype():
    """A buffer with dtype= is converted (a copy), not reinterpreted."""
    x = xp.asarray(bytearray(b"\x01\x02"), dtype=xp.float32)
    assert np.from_dlpack(x).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        xp.asarray(bytearray(b"\x01\x02"), dtype=xp.float32, copy=False)


# ---- empty / zeros / ones / full ----

def _make(name, shape, dtype, fill=None):
    if name == "full":
        return xp.full(shape, fill, dtype=dtype)
    return getattr(xp, name)(shape, dtype=dtype)


@given(st.sampled_from(CREATORS), shapes | st.integers(0, 6), st.sampled_from(ALL_XP_DTYPES))
def test_creation_matches_numpy(name, shape, dtype):
    """empty/zeros/ones/full: shape (int or tuple), dtype, values, alignment, C strides."""
    fill = value_for(dtype)
    x = _make(name, shape, dtype, fill)
    expected_shape = (shape,) if isinstance(shape, int) else shape
    assert x.shape == expected_shape and x.dtype is dtype
    assert x.device == xp.Device("cpu")
    assert data_address(x) % 64 == 0
    assert x._readonly is False
    values = to_numpy(x)
    storage = np.float32 if dtype is xp.bfloat16 else dtype
    if dtype is not xp.bfloat16:
        assert values.flags.c_contiguous
    if name == "zeros":
        assert_same(values, np.zeros(expected_shape, storage))
    elif name == "ones":
        assert_same(values, np.ones(expected_shape, storage))
    elif name == "full":
        assert_same(values, np.full(expected_shape, fill, storage))


@pytest.mark.parametrize("name", CREATORS)
def test_creation_default_dtypes(name):
    """zeros/ones/empty default to float64; full takes its dtype from the fill value."""
    if name == "full":
        for fill, dtype in ((True, xp.bool), (3, xp.int64), (2.5, xp.float64),
                            (1j, xp.complex128)):
            assert xp.full(2, fill).dtype is dtype
    else:
        assert getattr(xp, name)((2, 3)).dtype is xp.float64


@pytest.mark.parametrize("name", CREATORS)
@pytest.mark.parametrize("shape", [-1, (2, -1), (-3,), (0, -1)])
def test_creation_negative_size(name, shape):
    """Negative sizes raise ValueError."""
    with pytest.raises(ValueError):
        _make(name, shape, xp.float32, 1.0)


@pytest.mark.parametrize("shape", [2.0, (2.0, 3), "3", [2, None], None])
def test_creation_bad_shape_type(shape):
    """Shapes that are not ints or tuples of ints raise TypeError."""
    with pytest.raises(TypeError):
        xp.zeros(shape)


def test_creation_shape_forms():
    """Shape as int, tuple, list, numpy integers or ()."""
    assert xp.zeros(3).shape == (3,)
    assert xp.zeros(np.int64(3)).shape == (3,)
    assert xp.zeros([2, 3]).shape == (2, 3)
    assert xp.ones(()).shape == () and float(xp.ones(())) == 1.0
    assert xp.empty((0, 4)).size == 0


@pytest.mark.strict
@pytest.mark.parametrize("dtype", ALL_XP_DTYPES, ids=str)
@pytest.mark.parametrize("fill", [True, -5, 0.25, 2 - 1j], ids=lambda v: type(v).__name__)
def test_full_kind_rules(dtype, fill):
    """full follows the scalar kind rules: a fill of the wrong kind raises TypeError."""
    ok = {bool: ("bool",), int: ("signed integer", "real floating", "complex floating"),
          float: ("real floating", "complex floating"), complex: ("complex floating",)}
    if as_dtype(dtype).kind in ok[type(fill)]:
        x = xp.full((2,), fill, dtype=dtype)
        values = to_numpy(x)
        assert values.tolist() == [fill, fill]
    elif type(fill) is int and as_dtype(dtype).kind == "unsigned integer":
        with pytest.raises(OverflowError):
            xp.full((2,), fill, dtype=dtype)
    else:
        with pytest.raises(TypeError):
            xp.full((2,), fill, dtype=dtype)


def test_full_bad_fill_value():
    """full: overflow raises OverflowError; non-scalars TypeError."""
    with pytest.raises(OverflowError):
        xp.full(3, 300, dtype=xp.int8)
    with pytest.raises(OverflowError):
        xp.full(3, 2**63)
    for bad in ([1], None, "1", xp.asarray(1.0)):
        with pytest.raises(TypeError):
            xp.full(3, bad)


# ---- arange ----

@given(st.integers(-20, 20), st.integers(-20, 20) | st.none(),
       st.integers(-5, 5).filter(bool))
def test_arange_ints(start, stop, step):
    """Integer arange equals NumPy's (int64 by default), negative steps included."""
    if stop is None:
        x, expected = xp.arange(start), np.arange(start)
    else:
        x, expected = xp.arange(start, stop, step), np.arange(start, stop, step)
    assert x.dtype is xp.int64
    assert_same(np.from_dlpack(x), expected.astype(np.int64))
    assert data_address(x) % 64 == 0


@given(st.floats(-100, 100), st.floats(-100, 100),
       st.floats(-10, 10).filter(lambda v: abs(v) > 0.05))
@example(0.0, 5e-324, 2.0)
@example(0.0, -5e-324, -2.0)
def test_arange_floats(start, stop, step):
    """Float arange equals NumPy's and has ceil((stop - start) / step) elements: one where that
    quotient underflows to zero but is positive (subnormal ``stop - start``)."""
    x = xp.arange(start, stop, step)
    expected = np.arange(start, stop, step)
    assert x.dtype is xp.float64
    assert_same(np.from_dlpack(x), expected)
    delta = stop - start
    quotient = delta / step
    length = math.ceil(quotient) if quotient or not delta else int((delta > 0) == (step > 0))
    assert x.shape[0] == max(0, length)


@given(st.sampled_from([d for d in NP_DTYPES if d.kind in "iuf"]),
       st.integers(0, 20), st.integers(0, 40), st.integers(1, 4))
def test_arange_dtype(dtype, start, stop, step):
    """arange(..., dtype=...) equals NumPy's arange with that dtype."""
    x = xp.arange(start, stop, step, dtype=XP_DTYPE[dtype])
    assert x.dtype is XP_DTYPE[dtype]
    assert_same(np.from_dlpack(x), np.arange(start, stop, step, dtype=dtype))


def test_arange_mixed_and_bfloat16():
    """A float among the arguments gives float64; bfloat16 is rounded like torch."""
    assert xp.arange(0, 3, 0.5).dtype is xp.float64
    assert xp.arange(0.0, 3).dtype is xp.float64
    assert_same(np.from_dlpack(xp.arange(5, 0, -2.5)), np.arange(5, 0, -2.5))
    x = xp.arange(0, 3, 0.1, dtype=xp.bfloat16)
    expected = torch.arange(0, 3, 0.1, dtype=torch.float32).to(torch.bfloat16)
    assert x.shape == tuple(expected.shape)
    assert_same(np.asarray(x).view(np.uint16), torch_bf16_bits(expected))


def test_arange_errors():
    """step=0 raises ValueError; bool/complex/None arguments and complex dtypes TypeError."""
    with pytest.raises(ValueError):
        xp.arange(0, 10, 0)
    with pytest.raises(ValueError):
        xp.arange(0.0, 1.0, 0.0)
    for args in ((True,), (0, 1j), (0, 5, None), ("5",)):
        with pytest.raises(TypeError):
            xp.arange(*args)
    for dtype in (xp.complex64, xp.complex128, xp.bool):
        with pytest.raises(TypeError):
            xp.arange(5, dtype=dtype)


def test_arange_empty():
    """Ranges with no elements have shape (0,)."""
    assert xp.arange(5, 0).shape == (0,)
    assert xp.arange(0, 5, -1).shape == (0,)
    assert xp.arange(0).shape == (0,)
    assert xp.arange(1.0, 1.0).shape == (0,)


# ---- *_like ----

@given(st.sampled_from(("empty_like", "zeros_like", "ones_like", "full_like")),
       shapes, st.sampled_from(ALL_XP_DTYPES), st.sampled_from(ALL_XP_DTYPES + [None]))
def test_like_functions(name, shape, source_dtype, dtype):
    """*_like take shape, dtype and device from x unless dtype=/device= are given."""
    x = xp.zeros(shape, dtype=source_dtype)
    if x.ndim:
        x = x[..., ::-1]  # the layout must not matter
    result_dtype = dtype or source_dtype
    fill = value_for(result_dtype)
    function = getattr(xp, name)
    args = (x, fill) if name == "full_like" else (x,)
    y = function(*args, dtype=dtype) if dtype is not None else function(*args)
    assert y.shape == x.shape and y.dtype is result_dtype and y.device == x.device
    assert data_address(y) % 64 == 0
    values = to_numpy(y)
    if name == "zeros_like":
        assert not np.any(values)
    elif name == "ones_like":
        assert np.all(values == 1)
    elif name == "full_like":
        assert np.all(values == fill)


def test_like_functions_reject_non_dlnumba():
    """*_like need a dlnumba array."""
    for function in (xp.empty_like, xp.zeros_like, xp.ones_like):
        with pytest.raises(TypeError):
            function(np.zeros(3))
    with pytest.raises(TypeError):
        xp.full_like([1, 2], 0)


@pytest.mark.strict
def test_full_like_kind_rules():
    """full_like with a fill of the wrong kind for x's dtype raises TypeError."""
    with pytest.raises(TypeError):
        xp.full_like(xp.zeros(3, dtype=xp.int32), 1.5)
    with pytest.raises(TypeError):
        xp.full_like(xp.zeros(3), True)
    assert xp.full_like(xp.zeros(3, dtype=xp.int32), 1.5, dtype=xp.float32).dtype is xp.float32


# ---- devices ----

def _create_on(name, dev):
    if name == "asarray":
        return xp.asarray([1.0, 2.0], device=dev)
    if name == "arange":
        return xp.arange(3, device=dev)
    if name == "full":
        return xp.full(2, 1.0, device=dev)
    if name == "full_like":
        return xp.full_like(xp.zeros(2), 1.0, device=dev)
    if name.endswith("_like"):
        return getattr(xp, name)(xp.zeros(2), device=dev)
    return getattr(xp, name)(2, device=dev)


CREATION_NAMES = ["empty", "zeros", "ones", "full", "arange", "asarray", "empty_like",
                  "zeros_like", "ones_like", "full_like"]


@pytest.mark.parametrize("dev", ["cpu", "cpu:0", (1, 0), xp.Device("cpu")], ids=str)
@pytest.mark.parametrize("name", CREATION_NAMES)
def test_creation_device_spellings(name, dev):
    """device= takes a Device, 'cpu', 'cpu:0' or a DLPack pair; the result lives there."""
    assert _create_on(name, dev).device == xp.Device("cpu")


@pytest.mark.parametrize("name", CREATION_NAMES)
def test_creation_on_device(name, device):
    """Every creation function makes its array on each device this build has."""
    x = _create_on(name, device)
    assert x.device == device


@pytest.mark.parametrize("dev", ["cuda:9", (2, 9), xp.Device("cuda", 9)])
def test_creation_unavailable_device(dev):
    """A device this machine lacks raises ValueError."""
    with pytest.raises(ValueError):
        xp.zeros(2, device=dev)
    with pytest.raises(ValueError):
        xp.asarray([1.0], device=dev)


@pytest.mark.parametrize("dev", ["gpu", "cuda:x", (99, 0), (1, 1)])
def test_creation_bad_device_value(dev):
    """Strings and pairs that name no device raise ValueError."""
    with pytest.raises(ValueError):
        xp.zeros(2, device=dev)


@pytest.mark.parametrize("dev", [1, [1, 0], object(), (1,), (True, 0)])
def test_creation_bad_device_type(dev):
    """Objects that are not device spellings raise TypeError."""
    with pytest.raises(TypeError):
        xp.zeros(2, device=dev)


@given(st.sampled_from(ALL_XP_DTYPES), shapes)
def test_host_allocations_aligned(dtype, shape):
    """Every host allocation (creation, copies, Python data) is 64-byte aligned."""
    arrays = [xp.empty(shape, dtype=dtype), xp.zeros(shape, dtype=dtype),
              xp.ones(shape, dtype=dtype), xp.full(shape, value_for(dtype), dtype=dtype)]
    arrays.append(arrays[0]._copy())
    arrays.append(xp.asarray(arrays[1], copy=True))
    arrays.append(xp.empty_like(arrays[1]))
    if dtype is not xp.bfloat16:
        arrays.append(xp.asarray(np.zeros(shape, as_dtype(dtype).storage).tolist(), dtype=dtype))
    for x in arrays:
        assert data_address(x) % 64 == 0


# ---- eye, linspace, meshgrid, tril, triu ----

@given(st.integers(0, 6), st.integers(0, 6) | st.none(), st.integers(-8, 8),
       st.sampled_from(ALL_XP_DTYPES + [None]))
def test_eye_matches_numpy(n_rows, n_cols, k, dtype):
    x = xp.eye(n_rows, n_cols, k=k, dtype=dtype)
    dtype = dtype or xp.float64
    assert x.dtype is dtype and data_address(x) % 64 == 0
    expected = np.eye(n_rows, n_cols, k=k)
    if dtype is xp.bfloat16:
        assert_same(np.asarray(x).view(np.uint16),
                    torch_bf16_bits(expected.tolist()).reshape(expected.shape))
    else:
        assert_same(to_numpy(x), expected.astype(as_dtype(dtype).storage))


@pytest.mark.strict
def test_eye_errors():
    for call in [lambda: xp.eye(2.0), lambda: xp.eye(2, 3.0), lambda: xp.eye(2, k=1.0),
                 lambda: xp.eye(True), lambda: xp.eye(2, dtype="float64")]:
        with pytest.raises(TypeError):
            call()
    with pytest.raises(ValueError, match=">= 0"):
        xp.eye(-1)
    with pytest.raises(ValueError, match=">= 0"):
        xp.eye(2, -3)
    with pytest.raises(TypeError):
        xp.eye(2, n_cols=3)  # positional-only
    assert xp.eye(np.int64(2)).shape == (2, 2)


reals = st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False,
                                               min_value=-1e300, max_value=1e300)


@given(reals | st.complex_numbers(max_magnitude=1e100), reals, st.integers(0, 40),
       st.booleans())
def test_linspace_matches_numpy(start, stop, num, endpoint):
    """Bit for bit NumPy's linspace (float64, or complex128 for complex bounds)."""
    x = xp.linspace(start, stop, num, endpoint=endpoint)
    assert x.dtype is (xp.complex128 if isinstance(start, complex) else xp.float64)
    assert_same(to_numpy(x), np.linspace(start, stop, num, endpoint=endpoint))


@given(st.sampled_from([xp.float16, xp.float32, xp.float64, xp.complex64, xp.complex128]),
       st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.integers(0, 20), st.booleans())
def test_linspace_dtypes(dtype, start, stop, num, endpoint):
    """Computed in float64/complex128 and cast, as NumPy does."""
    x = xp.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)
    assert x.dtype is dtype
    assert_same(to_numpy(x), np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))


def test_linspace_bfloat16_and_special_cases():
    x = xp.linspace(0, 1, 5, dtype=xp.bfloat16)
    assert_same(np.asarray(x).view(np.uint16),
                torch_bf16_bits(torch.linspace(0, 1, 5, dtype=torch.float64).tolist()))
    assert to_numpy(xp.linspace(2, 3, 1)).tolist() == [2.0]
    assert to_numpy(xp.linspace(2, 3, 1, endpoint=False)).tolist() == [2.0]
    assert xp.linspace(2, 3, 0).shape == (0,)
    assert to_numpy(xp.linspace(0, 1, 4, endpoint=False)).tolist() == [0, 0.25, 0.5, 0.75]
    z = xp.linspace(0, 1 + 2j, 3)
    assert z.dtype is xp.complex128 and to_numpy(z).tolist() == [0, 0.5 + 1j, 1 + 2j]
    assert xp.linspace(0, 1, 3, dtype=xp.complex64).dtype is xp.complex64


def test_linspace_errors():
    with pytest.raises(ValueError, match=">= 0"):
        xp.linspace(0, 1, -1)
    for call in [lambda: xp.linspace(0, 1, 2.0), lambda: xp.linspace("0", 1, 2),
                 lambda: xp.linspace(0, None, 2), lambda: xp.linspace(0, 1, 3, dtype=xp.int64),
                 lambda: xp.linspace(0, 1, 3, dtype=xp.bool),
                 lambda: xp.linspace(0, 1j, 3, dtype=xp.float64),
                 lambda: xp.linspace(0, 1, num=True)]:
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):
        xp.linspace(start=0, stop=1, num=3)  # start and stop are positional-only


@given(st.lists(st.integers(0, 4), max_size=4), st.sampled_from(["xy", "ij"]),
       st.sampled_from(ALL_XP_DTYPES), st.booleans())
def test_meshgrid_matches_numpy(lengths, indexing, dtype, reverse):
    rng = np.random.default_rng(len(lengths))
    storage = np.uint16 if dtype is xp.bfloat16 else as_dtype(dtype).storage
    vectors = [np.frombuffer(rng.bytes(n * np.dtype(storage).itemsize), storage).copy()
               if dtype is not xp.bool else rng.integers(0, 2, n).astype(bool)
               for n in lengths]
    arrays = [xp.asarray(v) for v in vectors]
    if dtype is xp.bfloat16:
        arrays = [xp.ndarray._new(a._address, a.shape, a._strides, as_dtype(xp.bfloat16), a.device,
                                  a._owner, a._readonly) for a in arrays]
    if reverse:
        arrays, vectors = [a[::-1] for a in arrays], [v[::-1] for v in vectors]
    grids = xp.meshgrid(*arrays, indexing=indexing)
    expected = np.meshgrid(*vectors, indexing=indexing)
    assert type(grids) is tuple and len(grids) == len(expected)
    for g, e in zip(grids, expected):
        got = np.asarray(g).view(storage)
        assert g.dtype is dtype and not g._readonly and got.flags.c_contiguous
        assert_same(got, e)
        if g.size:
            assert not any(np.shares_memory(got, v) for v in vectors)


def test_meshgrid_errors():
    a, b = xp.asarray([1, 2]), xp.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="same dtype"):
        xp.meshgrid(a, b)
    with pytest.raises(ValueError, match="1-D"):
        xp.meshgrid(a, xp.ones((2, 2), dtype=xp.int64))
    with pytest.raises(ValueError, match="'xy' or 'ij'"):
        xp.meshgrid(a, indexing="xx")
    with pytest.raises(TypeError):
        xp.meshgrid(a, [1, 2])
    assert xp.meshgrid() == ()


@given(st.data())
def test_tril_triu_match_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5))
    dtype = data.draw(st.sampled_from(NP_DTYPES))
    a = data.draw(hnp.arrays(dtype, shape))
    if data.draw(st.booleans()):
        a = a[..., ::-1, :]
    if data.draw(st.booleans()):
        a = np.swapaxes(a, -1, -2)
    k = data.draw(st.integers(-6, 6))
    x = xp.asarray(a)
    for name in ("tril", "triu"):
        r = getattr(xp, name)(x, k=k)
        assert r.dtype is XP_DTYPE[dtype] and not r._readonly
        assert_same(to_numpy(r), getattr(np, name)(a, k=k))
        if a.size:
            assert not np.shares_memory(to_numpy(r), a)


def test_tril_triu_bfloat16_and_errors():
    bits = np.arange(1, 7, dtype=np.uint16).reshape(2, 3)
    x = xp.ndarray._new(xp.asarray(bits)._address, (2, 3), (3, 1), as_dtype(xp.bfloat16),
                        xp.Device("cpu"), bits, False)
    assert np.asarray(xp.tril(x)).view(np.uint16).tolist() == [[1, 0, 0], [4, 5, 0]]
    assert np.asarray(xp.triu(x, k=1)).view(np.uint16).tolist() == [[0, 2, 3], [0, 0, 6]]
    for name in ("tril", "triu"):
        f = getattr(xp, name)
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            f(xp.ones(3))
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            f(xp.ones(()))
        with pytest.raises(TypeError):
            f(xp.ones((2, 2)), k=1.0)
        with pytest.raises(TypeError):
            f(np.ones((2, 2)))
        with pytest.raises(TypeError):
            f(xp.ones((2, 2)), 1)  # k is keyword-only
