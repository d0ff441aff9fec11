"""ndarray: attributes, basic indexing, __setitem__, Python scalars, iteration and repr.

Differential tests against NumPy: arrays are made in NumPy (any dtype NumPy has, any layout:
negative, zero and non-contiguous strides, 0-d, size 0), brought in zero-copy with
``dlnumba.asarray`` and read back with ``np.from_dlpack``.
"""

import copy
import operator
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._dtypes import as_dtype

from helpers import NUMPY_NAMES, data_address, to_numpy

NP_DTYPES = [np.dtype(n) for n in NUMPY_NAMES]
XP_DTYPE = {d: getattr(xp, d.name) for d in NP_DTYPES}
ALL_XP_DTYPES = list(XP_DTYPE.values()) + [xp.bfloat16]


# ---- helpers ----

def random_values(rng, dtype, size):
    """``size`` values of ``dtype`` from random bits (so NaNs, infs and subnormals occur)."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size).astype(np.bool_)
    return np.frombuffer(rng.bytes(size * dtype.itemsize), dtype=dtype).copy()


@st.composite
def strided_arrays(draw, dtypes=st.sampled_from(NP_DTYPES), max_dims=5, max_side=4,
                   broadcast=True):
    """A NumPy array with a random layout: steps of any sign, permuted axes, maybe broadcast."""
    dtype = draw(dtypes)
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=max_side))
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in shape]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base_shape = tuple(n * abs(s) for n, s in zip(shape, steps))
    base = random_values(rng, dtype, int(np.prod(base_shape))).reshape(base_shape)
    view = base[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    view = view.transpose(draw(st.permutations(range(len(shape)))))
    if broadcast and view.ndim and draw(st.booleans()):
        axis = draw(st.integers(0, view.ndim - 1))
        if view.shape[axis]:
            view = np.broadcast_to(view[(slice(None),) * axis + (slice(0, 1),)], view.shape)
    return view


def assert_same(actual, expected):
    """Same shape, dtype and bits (so NaN payloads and signed zeros count)."""
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.tobytes() == expected.tobytes()


def numpy_view_key(key):
    """``key`` with a trailing Ellipsis, so NumPy returns a view even where it gives a scalar."""
    key = key if isinstance(key, tuple) else (key,)
    return key if any(k is Ellipsis for k in key) else key + (Ellipsis,)


def address(a):
    return a.__array_interface__["data"][0]


def scalar_for(dtype):
    """A Python scalar of the kind that ``dtype`` accepts, exact in every dtype of that kind."""
    kind = as_dtype(dtype).kind
    if kind == "bool":
        return True
    if kind in ("signed integer", "unsigned integer"):
        return 7
    if kind == "real floating":
        return -0.5
    return 1.5 - 2j


# ---- attributes ----

@given(strided_arrays())
def test_attributes_match_numpy(a):
    """dtype, device, ndim, shape, size match the NumPy array the memory came from."""
    x = xp.asarray(a)
    assert x.dtype is XP_DTYPE[a.dtype]
    assert x.device == xp.Device("cpu")
    assert x.ndim == a.ndim
    assert x.shape == a.shape and type(x.shape) is tuple
    assert x.size == a.size and type(x.size) is int


@given(strided_arrays())
def test_transposes(a):
    """T works for 2-D only (else ValueError); mT for ndim >= 2; both are views."""
    x = xp.asarray(a)
    if a.ndim == 2:
        assert_same(to_numpy(x.T), a.T)
        if a.size:
            assert data_address(x.T) == data_address(x)
    else:
        with pytest.raises(ValueError):
            x.T
    if a.ndim >= 2:
        assert_same(to_numpy(x.mT), np.swapaxes(a, -1, -2))
        assert x.mT.dtype is x.dtype
    else:
        with pytest.raises(ValueError):
            x.mT


def test_array_namespace():
    """__array_namespace__ returns dlnumba for every supported api_version, ValueError else."""
    x = xp.zeros(3)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2025.12") is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    assert xp.__array_api_version__ == "2025.12"
    for bad in ("2020.10", "2099.12", "latest", ""):
        with pytest.raises(ValueError):
            x.__array_namespace__(api_version=bad)


def test_direct_construction_is_refused():
    """dlnumba.ndarray(...) raises TypeError: arrays come from creation functions."""
    with pytest.raises(TypeError):
        xp.ndarray()
    with pytest.raises(TypeError):
        xp.ndarray((2, 3))
    with pytest.raises(TypeError):
        xp.ndarray(shape=(2,), dtype=xp.float32)


def test_attribute_types_and_dlpack_device():
    """ndim/size are ints; __dlpack_device__ is (kDLCPU, 0); to_device('cpu') is a no-op."""
    x = xp.zeros((2, 0, 3), dtype=xp.int16)
    assert (x.ndim, x.size, x.shape) == (3, 0, (2, 0, 3))
    assert x.__dlpack_device__() == (1, 0)
    assert x.to_device("cpu") is x
    assert x.to_device(xp.Device("cpu")) is x
    with pytest.raises(ValueError):
        x.to_device("cuda:9")


# ---- basic indexing ----

@given(st.data())
def test_getitem_matches_numpy(data):
    """Random basic indices give NumPy's values and shape, as a view at NumPy's address."""
    a = data.draw(strided_arrays())
    key = data.draw(hnp.basic_indices(a.shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    x = xp.asarray(a)
    view = x[key]
    expected = a[numpy_view_key(key)]
    assert_same(to_numpy(view), expected)
    assert isinstance(view, xp.ndarray) and view.dtype is x.dtype
    if expected.size:
        assert data_address(view) == address(expected)
        assert tuple(s * a.itemsize for s, n in zip(view._strides, view.shape) if n > 1) == \
            tuple(s for s, n in zip(expected.strides, expected.shape) if n > 1)


@given(st.data())
def test_getitem_view_writes_through(data):
    """Writing to x[key] changes exactly NumPy's a[key] in the shared memory."""
    a = data.draw(strided_arrays(broadcast=False))
    key = data.draw(hnp.basic_indices(a.shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    x = xp.asarray(a)
    before = a.copy()
    value = scalar_for(x.dtype)
    x[key][...] = value
    expected = before
    expected[numpy_view_key(key)] = value
    assert_same(a, expected)


@given(strided_arrays(broadcast=False))
def test_chained_views_share_memory(a):
    """A view of a view still writes through to the original memory."""
    assume(a.ndim >= 1 and a.shape[0] >= 2)
    x = xp.asarray(a)
    v = x[::-1][1:][None, ...][0]
    assert_same(to_numpy(v), a[::-1][1:])
    v[...] = scalar_for(x.dtype)
    assert_same(a[:-1], np.full(a[:-1].shape, scalar_for(x.dtype), a.dtype))


def test_integer_index_out_of_range():
    """An integer index outside [-n, n) raises IndexError, also on a size-0 axis."""
    x = xp.asarray(np.arange(12).reshape(3, 4))
    for key in (3, -4, (0, 4), (0, -5), (..., 4), (None, 3)):
        with pytest.raises(IndexError):
            x[key]
    with pytest.raises(IndexError):
        xp.zeros((0,))[0]
    assert int(x[-3, -4]) == 0 and int(x[2, 3]) == 11


def test_too_many_indices():
    """More integer/slice indices than dimensions raise IndexError (None and ... don't count)."""
    x = xp.zeros((2, 3))
    for key in ((0, 0, 0), (0, slice(None), 0), (0, 0, ...,  0), (slice(None),) * 3):
        with pytest.raises(IndexError):
            x[key]
    with pytest.raises(IndexError):
        xp.asarray(5)[0]
    assert x[0, 0, None, ...].shape == (1,)
    assert xp.asarray(5)[()].shape == ()
    assert xp.asarray(5)[None, ..., None].shape == (1, 1)


def test_two_ellipses():
    """An index with two ellipses raises IndexError."""
    x = xp.zeros((2, 3, 4))
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(IndexError):
        x[..., 0, ...]


@pytest.mark.strict
@pytest.mark.parametrize("key", [1.0, True, False, np.True_, np.float64(0), (0, 1.5),
                                 [0, 1], "0", (slice(None), True)])
def test_non_basic_index_kinds(key):
    """Floats, bools and other non-integer indices raise IndexError."""
    x = xp.zeros((3, 3))
    with pytest.raises(IndexError):
        x[key]


@pytest.mark.parametrize("key", [xp.asarray(1.0), (0, xp.asarray(0j))],
                         ids=["float64", "complex128"])
def test_non_integer_array_index(key):
    """A 0-d array of a non-integer, non-bool dtype is no index: IndexError, as for floats."""
    x = xp.zeros((3, 3))
    with pytest.raises(IndexError):
        x[key]


@pytest.mark.parametrize("flag, length", [(True, 1), (False, 0)])
def test_zero_d_bool_array_is_a_mask(flag, length):
    """A 0-d bool array indexes as a mask, adding a leading axis of length 1 or 0 (NumPy's)."""
    x = xp.zeros((3, 3))
    assert x[xp.asarray(flag)].shape == np.zeros((3, 3))[np.asarray(flag)].shape == (length, 3, 3)


def test_integer_like_indices():
    """numpy integers and 0-d integer dlnumba arrays work as integer indices."""
    a = np.arange(10)
    x = xp.asarray(a)
    assert int(x[np.int64(3)]) == 3
    assert int(x[np.uint8(4)]) == 4
    assert int(x[xp.asarray(5)]) == 5
    assert int(x[slice(np.int32(2), None)][0]) == 2


# ---- __setitem__ ----

_SCALAR_OK = {
    bool: {"bool"},
    int: {"signed integer", "unsigned integer", "real floating", "complex floating"},
    float: {"real floating", "complex floating"},
    complex: {"complex floating"},
}


@pytest.mark.strict
@pytest.mark.parametrize("dtype", ALL_XP_DTYPES, ids=str)
@pytest.mark.parametrize("value", [True, 3, -2.5, 1 - 1j], ids=lambda v: type(v).__name__)
def test_setitem_scalar_kind_rules(dtype, value):
    """bool only into bool, int into numeric, float into floating, complex into complex."""
    x = xp.zeros((2, 3), dtype=dtype)
    if as_dtype(dtype).kind in _SCALAR_OK[type(value)]:
        x[1, ::2] = value
        got = to_numpy(x)
        expected = np.zeros((2, 3), got.dtype)
        expected[1, ::2] = value
        assert_same(got, expected)
    else:
        with pytest.raises(TypeError):
            x[1, ::2] = value
        assert not np.any(to_numpy(x))


@given(st.data())
def test_setitem_scalar_matches_numpy(data):
    """x[key] = scalar equals NumPy's a[key] = scalar for random keys, layouts and dtypes."""
    a = data.draw(strided_arrays(broadcast=False))
    key = data.draw(hnp.basic_indices(a.shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    dtype = XP_DTYPE[a.dtype]
    value = data.draw(hnp.from_dtype(a.dtype).map(lambda v: v.item()))
    if as_dtype(dtype).kind in ("signed integer", "unsigned integer"):
        value = int(value)
    x = xp.asarray(a)
    expected = a.copy()
    expected[key] = value
    x[key] = value
    assert_same(a, expected)


@given(st.data())
def test_setitem_array_broadcasts_like_numpy(data):
    """x[key] = array (dlnumba, NumPy or list; any dtype) broadcasts and casts like NumPy."""
    a = data.draw(strided_arrays(broadcast=False, max_dims=4))
    key = data.draw(hnp.basic_indices(a.shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    target_shape = a[numpy_view_key(key)].shape
    ndim = data.draw(st.integers(0, len(target_shape)))
    value_shape = tuple(n if data.draw(st.booleans()) else 1
                        for n in target_shape[len(target_shape) - ndim:])
    source_dtype = data.draw(st.sampled_from(NP_DTYPES))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    count = int(np.prod(value_shape))
    if a.dtype.kind in "iu" and source_dtype.kind in "fc":
        # NaN, inf and out-of-range floats have no defined integer value: stay in range
        value = (rng.uniform(0, 100, count) - 1j * rng.uniform(0, 1, count)).reshape(value_shape)
        value = (value if source_dtype.kind == "c" else value.real).astype(source_dtype)
    else:
        value = random_values(rng, source_dtype, count).reshape(value_shape)
    kind = data.draw(st.sampled_from(["dlnumba", "numpy", "list"]))
    if kind == "list" and 0 in value_shape:
        kind = "numpy"  # an empty nested list cannot say its inner sizes
    x = xp.asarray(a)
    expected = a.copy()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if kind == "list":
            # a list holds Python scalars, so a float32 signalling NaN arrives quieted
            value = value.astype(a.dtype).tolist()
            expected[key] = value
            x[key] = value
        else:
            expected[key] = value
            x[key] = xp.asarray(value) if kind == "dlnumba" else value
    assert_same(a, expected)


def test_setitem_unbroadcastable_value():
    """A value that does not broadcast to x[key] raises ValueError and writes nothing."""
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError):
        x[...] = xp.ones(2)
    with pytest.raises(ValueError):
        x[0] = np.ones((3, 3))
    assert not np.any(to_numpy(x))


@pytest.mark.parametrize("case", [
    "x[1:] = x[:-1]", "x[:-1] = x[1:]", "x[::-1] = x", "x[::2] = x[1::2]",
    "x[1::2] = x[::-2]", "x[...] = x", "x[2:] = x[:-2][::-1]",
])
def test_setitem_overlapping_1d(case):
    """Self-assignment through overlapping views gives NumPy's (snapshot) result."""
    a = np.arange(10, dtype=np.int32)
    expected = a.copy()
    exec(case, {}, {"x": expected})
    x = xp.asarray(a)
    exec(case, {}, {"x": x})
    assert_same(a, expected)


@pytest.mark.parametrize("case", [
    "x[...] = x.T", "x[1:, :] = x[:-1, ::-1]", "x[:, 0] = x[0, :]", "x[::-1, ::-1] = x",
    "x[...] = x[0]",
])
def test_setitem_overlapping_2d(case):
    """2-D overlapping self-assignment (transposes, reversals, broadcasts) matches NumPy."""
    a = np.arange(16, dtype=np.complex128).reshape(4, 4) * (1 + 1j)
    expected = a.copy()
    exec(case, {}, {"x": expected})
    x = xp.asarray(a)
    exec(case, {}, {"x": x})
    assert_same(a, expected)


def test_setitem_overlapping_with_cast():
    """Overlapping assignment between dtypes (a reinterpreted view) matches NumPy."""
    raw = np.arange(16, dtype=np.int64)
    expected_raw = raw.copy()
    expected_raw[:8].view(np.float64)[...] = expected_raw[4:12].copy()
    x = xp.asarray(raw)
    f = xp.asarray(raw[:8].view(np.float64))
    f[...] = x[4:12]
    assert_same(raw, expected_raw)


def test_setitem_read_only():
    """Writes into read-only memory (and its views) raise ValueError; memory is untouched."""
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    for key, value in ((0, 1.0), ((1, 2), 5), (slice(None), xp.zeros(3)), (..., np.ones(3))):
        with pytest.raises(ValueError):
            x[key] = value
    with pytest.raises(ValueError):
        x[1:][0, ::-1] = 2.0
    with pytest.raises(ValueError):
        x.T[...] = 1.0
    assert_same(a, np.arange(6.0).reshape(2, 3))


def test_setitem_broadcast_import_is_read_only():
    """A zero-stride NumPy broadcast imports read-only: writes raise ValueError."""
    a = np.broadcast_to(np.arange(3), (4, 3))
    x = xp.asarray(a)
    with pytest.raises(ValueError):
        x[0, 0] = 9
    assert_same(a, np.broadcast_to(np.arange(3), (4, 3)))


@pytest.mark.parametrize("dtype, value", [
    (xp.int8, 300), (xp.int8, -129), (xp.uint8, 256), (xp.uint8, -1), (xp.int16, 2**15),
    (xp.uint16, -1), (xp.int32, 2**31), (xp.uint32, 2**32), (xp.int64, 2**63),
    (xp.int64, -2**63 - 1), (xp.uint64, 2**64), (xp.uint64, -1),
])
def test_setitem_int_overflow(dtype, value):
    """A Python int outside the integer dtype's range raises OverflowError."""
    x = xp.zeros(3, dtype=dtype)
    with pytest.raises(OverflowError):
        x[0] = value
    with pytest.raises(OverflowError):
        x[...] = value
    assert not np.any(to_numpy(x))


def test_setitem_int_bounds_fit():
    """The extreme ints of each integer dtype are stored exactly."""
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        info = np.iinfo(name)
        x = xp.zeros(2, dtype=getattr(xp, name))
        x[0], x[1] = int(info.min), int(info.max)
        assert to_numpy(x).tolist() == [info.min, info.max]


def test_setitem_bfloat16_arrays_cast_like_torch():
    """Arrays cast into and out of bfloat16 on assignment (with broadcasting) as torch does."""
    torch = pytest.importorskip("torch")
    f64 = np.array([[1.00390625, -2.5e-39, 3.4e38, np.inf]])
    b = xp.zeros((3, 4), dtype=xp.bfloat16)
    b[1:] = f64  # broadcast (1, 4) -> (2, 4)
    expected = torch.zeros((3, 4), dtype=torch.bfloat16)
    expected[1:] = torch.from_numpy(f64).to(torch.bfloat16)
    assert np.asarray(b).tobytes() == expected.view(torch.int16).numpy().tobytes()
    f = xp.zeros((3, 4), dtype=xp.float32)
    f[::-1] = b
    assert np.from_dlpack(f).tobytes() == expected.flip(0).float().numpy().tobytes()
    c = xp.zeros(4, dtype=xp.complex64)
    c[...] = b[2]
    assert np.from_dlpack(c).tolist() == expected[2].to(torch.complex64).tolist()


def test_setitem_bfloat16_rounds_like_torch():
    """Scalars and arrays stored into bfloat16 round like torch."""
    torch = pytest.importorskip("torch")
    values = [1.0, 1.00390625, 1.01171875, -3.3, 1e-40, float("inf"), float("nan"), 3.4e38]
    x = xp.zeros(len(values), dtype=xp.bfloat16)
    for i, v in enumerate(values):
        x[i] = v
    expected = torch.tensor(values, dtype=torch.bfloat16).view(torch.int16).numpy()
    assert np.asarray(x).tobytes() == expected.tobytes()
    y = xp.zeros(len(values), dtype=xp.bfloat16)
    y[...] = np.array(values, dtype=np.float32)
    assert np.asarray(y).tobytes() == expected.tobytes()


# ---- Python scalars ----

_CONVERSIONS = {"bool": bool, "int": int, "float": float, "complex": complex,
                "index": operator.index}


def _outcome(function, value):
    try:
        return function(value)
    except Exception as error:  # noqa: BLE001 - the exception type is the expected outcome
        return type(error)


@given(st.data())
def test_scalar_conversions_match_python(data):
    """bool/int/float/complex/index of a 0-d array equal Python's of the element (.item())."""
    dtype = data.draw(st.sampled_from(NP_DTYPES))
    value = data.draw(hnp.from_dtype(dtype))
    a = np.array(value, dtype=dtype)
    x = xp.asarray(a)
    item = a.item()
    kind = as_dtype(XP_DTYPE[dtype]).kind
    for name, function in _CONVERSIONS.items():
        if name in ("int", "float") and kind == "complex floating":
            expected = TypeError
        elif name == "index" and kind not in ("signed integer", "unsigned integer"):
            expected = TypeError
        else:
            expected = _outcome(function, item)
        got = _outcome(function, x)
        if isinstance(expected, type):
            assert got is expected, (name, value)
        elif isinstance(expected, float) and np.isnan(expected):
            assert np.isnan(got) and type(got) is float
        elif isinstance(expected, complex):
            assert type(got) is complex
            np.testing.assert_equal(got, expected)
        else:
            assert got == expected and type(got) is type(expected), (name, value)


def test_scalar_conversion_special_cases():
    """The array API's special cases: inf -> OverflowError, nan -> ValueError, -0.0 -> 0."""
    with pytest.raises(OverflowError):
        int(xp.asarray(float("inf")))
    with pytest.raises(ValueError):
        int(xp.asarray(float("nan")))
    assert int(xp.asarray(-0.0)) == 0
    assert int(xp.asarray(-2.7)) == -2
    assert float(xp.asarray(True)) == 1.0 and int(xp.asarray(False)) == 0
    assert complex(xp.asarray(2)) == 2 + 0j
    assert operator.index(xp.asarray(2**64 - 1, dtype=xp.uint64)) == 2**64 - 1
    assert bool(xp.asarray(float("nan"))) is True
    assert bool(xp.asarray(0j)) is False and bool(xp.asarray(-0.0)) is False
    assert bool(xp.asarray(1e-300 * 1j)) is True


def test_scalar_conversions_bfloat16():
    """0-d bfloat16 arrays convert through their exact float32 value."""
    b = xp.zeros(3, dtype=xp.bfloat16)
    bits = np.asarray(b).view(np.uint16)
    bits[...] = [0x3FC0, 0x8000, 0x0001]  # 1.5, -0.0, the smallest subnormal
    assert float(b[0]) == 1.5 and int(b[0]) == 1 and complex(b[0]) == 1.5 + 0j
    assert float(b[1]) == 0.0 and bool(b[1]) is False
    assert float(b[2]) == 2.0**-133 and bool(b[2]) is True
    with pytest.raises(TypeError):
        operator.index(b[0])


@pytest.mark.parametrize("shape", [(1,), (2,), (1, 1), (0,)])
@pytest.mark.parametrize("name", list(_CONVERSIONS))
def test_scalar_conversions_need_0d(shape, name):
    """Conversions of arrays that are not 0-d raise TypeError (even of size 1)."""
    x = xp.ones(shape, dtype=xp.int64)
    with pytest.raises(TypeError):
        _CONVERSIONS[name](x)


@given(strided_arrays())
def test_iteration(a):
    """Iteration yields views along axis 0 (0-d arrays for 1-D); a 0-d array is not iterable."""
    x = xp.asarray(a)
    if a.ndim == 0:
        with pytest.raises(TypeError):
            iter(x)
        return
    items = list(x)
    assert len(items) == a.shape[0]
    for item, expected in zip(items, a):
        assert isinstance(item, xp.ndarray)
        assert_same(to_numpy(item), expected)


# ---- repr ----

def expected_repr(values, dtype_name, shape):
    prefix = "ndarray("
    text = prefix + np.array2string(values, separator=", ", prefix=prefix)
    if values.size == 0 and len(shape) != 1:
        text += f", shape={shape}"
    return text + f", dtype={dtype_name})"


@given(strided_arrays(max_dims=3))
def test_repr_matches_numpy_formatting(a):
    """repr is NumPy's array2string of the values, with shape= for empties and the dtype."""
    x = xp.asarray(a)
    assert repr(x) == expected_repr(a, a.dtype.name, a.shape)


@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                  elements=st.floats(width=32)))
def test_repr_bfloat16(values):
    """bfloat16 prints its values (widened exactly to float32), not its bits."""
    x = xp.asarray(values, dtype=xp.bfloat16)
    widened = np.asarray(x).astype(np.float32)
    assert repr(x) == expected_repr(widened, "bfloat16", values.shape)


def test_repr_examples():
    """A few literal reprs."""
    assert repr(xp.asarray([1, 2, 3])) == "ndarray([1, 2, 3], dtype=int64)"
    assert repr(xp.asarray(2.5)) == "ndarray(2.5, dtype=float64)"
    assert repr(xp.zeros(0, dtype=xp.int8)) == "ndarray([], dtype=int8)"
    assert repr(xp.zeros((0, 3))) == "ndarray([], shape=(0, 3), dtype=float64)"
    assert repr(xp.zeros((2, 0), dtype=xp.bfloat16)) == \
        "ndarray([], shape=(2, 0), dtype=bfloat16)"
    assert repr(xp.asarray([[True], [False]])) == \
        "ndarray([[ True],\n         [False]], dtype=bool)"
    assert repr(xp.asarray([1.5, -2.0], dtype=xp.bfloat16)) == \
        "ndarray([ 1.5, -2. ], dtype=bfloat16)"


def test_pickle_protocol_5_buffers_and_copies():
    """Pickle protocol 5 hands the values over out of band (no copy), read-only where the
    buffer is; copy.copy and copy.deepcopy copy the values, as NumPy's do."""
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    buffers = []
    data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1
    frozen = pickle.loads(data, buffers=[bytes(b.raw()) for b in buffers])
    np.testing.assert_array_equal(np.asarray(frozen), np.asarray(x))
    with pytest.raises(ValueError, match="read-only"):
        frozen[0, 0] = 1.0
    buffers = []
    data = pickle.dumps(x[:, ::-1], protocol=5, buffer_callback=buffers.append)
    np.testing.assert_array_equal(np.asarray(pickle.loads(data, buffers=buffers)),
                                  np.arange(6.0).reshape(2, 3)[:, ::-1])
    dense = xp.asarray(np.arange(4.0))
    for copied in (copy.copy(dense), copy.deepcopy(dense)):
        dense[0] = 7.0
        assert float(copied[0]) == 0.0
        dense[0] = 0.0


def test_pickle_carries_values_to_another_process(tmp_path):
    """A pickle holds the values, never the address: another process (a Dask or Cubed worker)
    reads them back, large arrays (pooled memory) and views included."""
    arrays = {"large": xp.reshape(xp.arange(300_000, dtype=xp.float64), (600, 500)).mT[::2],
              "bfloat16": xp.asarray([1.5, -2.0], dtype=xp.bfloat16),
              "from NumPy": xp.asarray(np.arange(5, dtype=np.int16)),
              "0-d bool": xp.asarray(True)}
    path = tmp_path / "arrays.pickle"
    path.write_bytes(pickle.dumps(arrays))
    code = ("import pickle, sys, numpy as np, dlnumba as xp\n"
            "arrays = pickle.loads(open(sys.argv[1], 'rb').read())\n"
            "print({k: (v.dtype.name, v.shape, float(xp.sum(xp.astype(v, xp.float64))))"
            " for k, v in arrays.items()})")
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                            text=True, check=True)
    expected = {k: (v.dtype.name, v.shape, float(xp.sum(xp.astype(v, xp.float64))))
                for k, v in arrays.items()}
    assert result.stdout.strip() == str(expected)
    copied = copy.deepcopy(arrays["large"])
    assert data_address(copied) != data_address(arrays["large"])
    assert bool(xp.all(copied == arrays["large"]))
