"""Manipulation functions: reshape.

Checked against NumPy on random layouts (reversed and stepped slices, transposes, broadcast
zero strides, 0-d, size 0): the same values as np.reshape, a view exactly when NumPy's reshape
can make one (np.reshape(..., copy=False) succeeds), fresh memory for copy=True, and the
standard's errors.
"""

import math

import numpy as np
import pytest
from hypothesis import event, given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp

NP_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64", "complex64", "complex128"]
ALL = NP_NAMES + ["bfloat16"]


def address(a):
    return a.__array_interface__["data"][0]


def storage(name):
    return np.dtype("uint16" if name == "bfloat16" else name)


def wrap(a, name):
    """A dlnumba array over the very memory of the NumPy array ``a`` (bfloat16: ``a`` holds
    the bits as uint16, read by dlnumba as bfloat16)."""
    x = xp.asarray(a)
    assert x.shape == a.shape
    if a.size:
        assert x._address == address(a)
    if name == "bfloat16":
        x = xp.ndarray._new(x._address, x.shape, x._strides, xp.bfloat16, x.device, x._owner,
                            x._readonly)
    return x


def bits(x):
    """A NumPy view of a dlnumba array's memory (bfloat16 as uint16 bits)."""
    return x._numpy()


def assert_same_values(actual, expected):
    """Same shape, dtype and bits (NaN payloads included)."""
    out = bits(actual)
    assert actual.shape == expected.shape
    assert all(type(n) is int for n in actual.shape)
    assert out.dtype == expected.dtype
    assert out.tobytes() == np.ascontiguousarray(expected).tobytes()


@st.composite
def layouts(draw, dtypes=st.sampled_from(ALL)):
    """(name, NumPy array of random bits) in a random layout: each axis stepped by 1, 2, -1 or
    -2, axes permuted, some axes broadcast (stride 0); 0-d and size 0 included."""
    name = draw(dtypes)
    dtype = storage(name)
    min_side = draw(st.sampled_from([0] + [1] * 7))  # size 0 now and then
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=min_side, max_side=4))
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in shape]
    base_shape = [n * abs(s) for n, s in zip(shape, steps)]
    count = math.prod(base_shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if name == "bool":
        flat = rng.integers(0, 2, count).astype(np.bool_)
    else:
        flat = np.frombuffer(rng.bytes(count * dtype.itemsize), dtype).copy()
    a = flat.reshape(base_shape)[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    a = a.transpose(draw(st.permutations(range(a.ndim))))
    if a.ndim and draw(st.booleans()):  # broadcast some axes: zero strides
        axes = draw(st.sets(st.integers(0, a.ndim - 1), min_size=1))
        a = np.broadcast_to(a[tuple(slice(0, 1) if i in axes else slice(None)
                                    for i in range(a.ndim))], a.shape)
    if a.ndim < 4 and draw(st.integers(0, 4)) == 0:  # broadcast to new leading axes
        lead = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=4 - a.ndim)))
        a = np.broadcast_to(a, lead + a.shape)
    return name, a


def factor(n):
    """Prime factors of n > 0."""
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


@st.composite
def target_shapes(draw, size):
    """A random shape of ``size`` elements (up to 5 dimensions, with 1s and 0s sprinkled in)."""
    if size == 0:
        ndim = draw(st.integers(1, 5))
        shape = [draw(st.integers(0, 5)) for _ in range(ndim)]
        shape[draw(st.integers(0, ndim - 1))] = 0
        return tuple(shape)
    primes = draw(st.permutations(factor(size)))
    ndim = draw(st.integers(0 if size == 1 else 1, 5))
    if ndim == 0:
        return ()
    groups = [1] * ndim
    for p in primes:
        groups[draw(st.integers(0, ndim - 1))] *= p
    return tuple(groups)


def numpy_can_view(a, shape):
    try:
        np.reshape(a, shape, copy=False)
    except ValueError:
        return False
    return True


def with_minus_one(draw, shape):
    """``shape`` with one size replaced by -1 where that size can be inferred."""
    known = [i for i in range(len(shape))
             if math.prod(n for j, n in enumerate(shape) if j != i) != 0]
    if not known or not draw(st.booleans()):
        return shape
    i = draw(st.sampled_from(known))
    return shape[:i] + (-1,) + shape[i + 1:]


@given(st.data())
def test_reshape_matches_numpy(data):
    """copy=None: NumPy's values; a view (same memory, writes go through) exactly when NumPy
    can reshape without a copy, else a fresh C-contiguous copy."""
    name, a = data.draw(layouts(), label="a")
    shape = data.draw(target_shapes(a.size), label="shape")
    request = with_minus_one(data.draw, shape)
    x = wrap(a, name)
    expected = np.reshape(a, shape)
    view = numpy_can_view(a, shape)
    if a.size:
        assert view == np.shares_memory(expected, a)
    event("size 0" if a.size == 0 else "view" if view else "copy")
    event("broadcast" if 0 in a.strides and a.size > 1 else "no broadcast")
    event("-1" if request != shape else "explicit")
    r = xp.reshape(x, request)
    assert r.shape == shape and r.dtype is x.dtype and r.device == x.device
    assert_same_values(r, expected)
    if a.size == 0:
        return
    if view:
        assert np.shares_memory(bits(r), a)
        assert r._owner is x._owner and r._readonly == x._readonly
        # every element sits where NumPy's view puts it
        assert address(bits(r)) == address(expected)
        assert [s for n, s in zip(shape, bits(r).strides) if n > 1] == \
            [s for n, s in zip(shape, expected.strides) if n > 1]
        if a.flags.writeable:  # write through the reshaped view: the NumPy array changes
            before = a.copy()
            out, index = bits(r), (0,) * r.ndim
            out[index] = not out[index] if name == "bool" else np.frombuffer(
                bytes(255 - b for b in out[index].tobytes()), out.dtype)[0]
            assert a.tobytes() != before.tobytes()
    else:
        assert not np.shares_memory(bits(r), a)
        assert bits(r).flags.c_contiguous and r._readonly is False
        assert r._address % 64 == 0


@given(st.data())
def test_reshape_copy_false(data):
    """copy=False: a view when NumPy can make one, else ValueError (as NumPy's copy=False)."""
    name, a = data.draw(layouts(), label="a")
    shape = data.draw(target_shapes(a.size), label="shape")
    request = with_minus_one(data.draw, shape)
    x = wrap(a, name)
    if not numpy_can_view(a, shape):
        with pytest.raises(ValueError):
            xp.reshape(x, request, copy=False)
        return
    r = xp.reshape(x, request, copy=False)
    assert r.shape == shape
    assert_same_values(r, np.reshape(a, shape))
    if a.size:
        assert np.shares_memory(bits(r), a)
        assert address(bits(r)) == address(np.reshape(a, shape, copy=False))


@given(st.data())
def test_reshape_copy_true(data):
    """copy=True: always fresh, writable, C-contiguous memory with NumPy's values."""
    name, a = data.draw(layouts(), label="a")
    shape = data.draw(target_shapes(a.size), label="shape")
    request = with_minus_one(data.draw, shape)
    x = wrap(a, name)
    r = xp.reshape(x, request, copy=True)
    assert r.shape == shape and r.dtype is x.dtype
    assert_same_values(r, np.reshape(a, shape, copy=True))
    assert r._readonly is False and bits(r).flags.c_contiguous
    if a.size:
        assert not np.shares_memory(bits(r), a)
        assert r._address != x._address
        before = a.copy()
        r[...] = xp.zeros((), dtype=r.dtype)
        assert a.tobytes() == before.tobytes()


@pytest.mark.parametrize("name", ALL)
def test_reshape_views_write_through(name):
    """A reshaped view of a contiguous array writes into the original memory."""
    a = np.zeros((2, 3, 4), dtype=storage(name))
    x = wrap(a, name)
    r = xp.reshape(x, (4, 6))
    assert r._address == x._address
    one = xp.ones((), dtype=x.dtype)
    r[1, 2] = one
    flat_index = 1 * 6 + 2
    assert a.reshape(-1)[flat_index] != 0
    assert np.count_nonzero(a) == 1
    # and a view of a view
    rr = xp.reshape(r, (-1,))
    rr[23] = one
    assert a[1, 2, 3] != 0


def test_reshape_transposed_needs_copy():
    """A transpose reshaped to 1-D needs a copy; to a compatible split it is a view."""
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a)
    t = x.T
    flat = xp.reshape(t, (12,))
    assert np.from_dlpack(flat).tolist() == a.T.reshape(12).tolist()
    assert flat._address != x._address
    with pytest.raises(ValueError):
        xp.reshape(t, (12,), copy=False)
    split = xp.reshape(t, (2, 2, 3), copy=False)
    assert np.shares_memory(split._numpy(), a)
    assert np.array_equal(split._numpy(), a.T.reshape(2, 2, 3))


def test_reshape_reversed():
    a = np.arange(24, dtype=np.int16)
    x = xp.asarray(a)[::-1]
    r = xp.reshape(x, (4, 6), copy=False)
    assert r._strides == (-6, -1)
    assert np.array_equal(r._numpy(), a[::-1].reshape(4, 6))
    r2 = xp.reshape(xp.asarray(a)[::-2], (3, 4), copy=False)
    assert np.array_equal(r2._numpy(), a[::-2].reshape(3, 4))


def test_reshape_broadcast():
    """Zero strides survive where NumPy keeps them; merging a zero-stride axis copies."""
    a = np.broadcast_to(np.arange(4.0), (3, 4))
    x = xp.asarray(a)
    assert x._strides == (0, 1) and x._readonly
    v = xp.reshape(x, (3, 2, 2), copy=False)
    assert v._strides == (0, 2, 1) and v._readonly
    assert np.array_equal(v._numpy(), a.reshape(3, 2, 2))
    c = xp.reshape(x, (12,))
    assert not c._readonly and not np.shares_memory(c._numpy(), a)
    assert np.from_dlpack(c).tolist() == [0.0, 1.0, 2.0, 3.0] * 3
    with pytest.raises(ValueError):
        xp.reshape(x, (12,), copy=False)
    # a broadcast scalar: every element is one memory cell, so any shape is a view
    s = np.broadcast_to(np.float32(7.0), (2, 3))
    b = xp.asarray(s)
    for shape in [(6,), (3, 2), (1, 6, 1)]:
        v = xp.reshape(b, shape, copy=False)
        assert v._strides == np.reshape(s, shape, copy=False).strides == (0,) * len(shape)
        assert v._address == b._address and v._readonly
        assert np.array_equal(v._numpy(), np.full(shape, 7.0, np.float32))


@pytest.mark.parametrize("name", ALL)
def test_reshape_zero_d(name):
    """0-d arrays reshape to any shape of size 1 and back, as views."""
    a = np.zeros((), dtype=storage(name))
    x = wrap(a, name)
    for shape, request in [((), ()), ((1,), (1,)), ((1,), -1), ((1,), (-1,)),
                           ((1, 1, 1), (1, -1, 1)), ((1, 1), [1, 1])]:
        r = xp.reshape(x, request, copy=False)
        assert r.shape == shape and r._address == x._address
        assert xp.reshape(r, ()).shape == ()
    with pytest.raises(ValueError):
        xp.reshape(x, (2,))
    with pytest.raises(ValueError):
        xp.reshape(x, (0,))


def test_reshape_size_zero():
    a = np.zeros((0, 3), np.float32)
    x = xp.asarray(a)
    for request, shape in [((3, 0), (3, 0)), ((0,), (0,)), (-1, (0,)), ((2, 0, 5), (2, 0, 5)),
                           ((-1, 3), (0, 3)), ((5, -1), (5, 0))]:
        for copy in (None, False, True):
            r = xp.reshape(x, request, copy=copy)
            assert r.shape == shape == np.reshape(a, request).shape
    for request in [(0, -1), (-1, 0), (1,), (3,)]:
        with pytest.raises(ValueError):
            np.reshape(a, request)
        with pytest.raises(ValueError):
            xp.reshape(x, request)


@pytest.mark.parametrize("request_, shape", [
    (-1, (24,)), ((-1,), (24,)), ((-1, 4), (6, 4)), ((2, -1), (2, 12)), ((2, -1, 3), (2, 4, 3)),
    ((1, -1, 1), (1, 24, 1)), ((4, 3, 2, -1), (4, 3, 2, 1)), (24, (24,)), ([3, 8], (3, 8)),
    ((np.int64(4), np.int32(6)), (4, 6)), (np.array([2, 12]), (2, 12)),
])
def test_reshape_shape_forms_and_inference(request_, shape):
    """A tuple, a bare int, a list or NumPy integers; one -1 is inferred."""
    a = np.arange(24)
    x = xp.asarray(a)
    r = xp.reshape(x, request_)
    assert r.shape == shape == np.reshape(a, request_).shape
    assert all(type(n) is int for n in r.shape)
    assert np.array_equal(np.from_dlpack(r), np.reshape(a, request_))


@pytest.mark.parametrize("request_", [
    (-1, -1), (-1, 2, -1), (-1, -1, -1), (5,), (5, 5), (25,), (23,), (0, 24), (7, -1),
    (5, -1), (0, -1), (-1, 0), (4, 7), 25, (48, -1), (2, 3, 5),
])
def test_reshape_bad_sizes(request_):
    """Two -1s, a -1 that cannot be inferred, and size mismatches: ValueError, like NumPy."""
    a = np.arange(24)
    with pytest.raises(ValueError):
        np.reshape(a, request_)
    x = xp.asarray(a)
    for copy in (None, False, True):
        with pytest.raises(ValueError):
            xp.reshape(x, request_, copy=copy)


@pytest.mark.parametrize("request_", [(-3, 8), (-2,), -2, (-24,), (-2, -12), (2, -12),
                                      (-2, 3, -4), (-5, 0)])
def test_reshape_negative_sizes(request_):
    """Sizes below -1 raise ValueError (NumPy reads any negative size as "unknown"; the
    standard knows only -1)."""
    x = xp.asarray(np.arange(24))
    for copy in (None, False, True):
        with pytest.raises(ValueError):
            xp.reshape(x, request_, copy=copy)


@pytest.mark.parametrize("request_", [
    (2.0, 12), 24.0, (2, "12"), "24", None, (2, None), (np.float64(24),), ((2, 12),),
    (2, 12.5), object(),
])
def test_reshape_non_integer_shape(request_):
    """Non-integer sizes: TypeError."""
    x = xp.asarray(np.arange(24))
    with pytest.raises(TypeError):
        xp.reshape(x, request_)


@pytest.mark.parametrize("bad", [np.arange(6), [1, 2, 3, 4, 5, 6], 6, None])
def test_reshape_rejects_non_arrays(bad):
    with pytest.raises(TypeError):
        xp.reshape(bad, (2, 3))


def test_reshape_keeps_source_alive():
    """A reshaped view keeps its memory alive after the source array is gone."""
    x = xp.asarray([[1, 2, 3], [4, 5, 6]], dtype=xp.int32)
    r = xp.reshape(x, (3, 2))
    del x
    import gc
    gc.collect()
    assert np.from_dlpack(r).tolist() == [[1, 2], [3, 4], [5, 6]]


def test_reshape_to_max_dimensions():
    """Up to 'max dimensions' (64, as in NumPy) dimensions reshape, and the result travels."""
    n = xp.__array_namespace_info__().capabilities()["max dimensions"]
    x = xp.asarray(np.arange(4))
    shape = (2,) + (1,) * (n - 2) + (2,)
    for copy in (None, True):
        r = xp.reshape(x, shape, copy=copy)
        assert r.ndim == n
        assert np.array_equal(np.from_dlpack(r), np.reshape(np.arange(4), shape))


@pytest.mark.parametrize("copy", [None, False, True])
def test_reshape_beyond_max_dimensions(copy):
    n = xp.__array_namespace_info__().capabilities()["max dimensions"]
    with pytest.raises(ValueError):
        np.reshape(np.arange(1), (1,) * (n + 1))
    with pytest.raises(ValueError):
        xp.zeros((1,) * (n + 1))
    with pytest.raises(ValueError):
        xp.reshape(xp.asarray(np.arange(1)), (1,) * (n + 1), copy=copy)
