"""Manipulation functions: reshape, the views (broadcast_to, broadcast_arrays, expand_dims, flip,
moveaxis, permute_dims, squeeze, unstack) and the copies (concat, stack, roll, repeat, tile).

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
from dlnumba._dtypes import as_dtype

from helpers import ALL, DTYPES, NUMPY_NAMES, compare_with_numpy, data_address, to_numpy


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
        assert data_address(x) == address(a)
    if name == "bfloat16":
        x = xp.ndarray._new(x._address, x.shape, x._strides, as_dtype(xp.bfloat16), x.device,
                            x._owner, x._readonly)
    return x


def bits(x):
    """A NumPy view of a dlnumba array's memory (bfloat16 as uint16 bits)."""
    a = np.asarray(x)
    return a.view(np.uint16) if x.dtype == xp.bfloat16 else a


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
        assert data_address(r) % 64 == 0


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
        assert data_address(r) != data_address(x)
        before = a.copy()
        r[...] = xp.zeros((), dtype=r.dtype)
        assert a.tobytes() == before.tobytes()


@pytest.mark.parametrize("name", ALL)
def test_reshape_views_write_through(name):
    """A reshaped view of a contiguous array writes into the original memory."""
    a = np.zeros((2, 3, 4), dtype=storage(name))
    x = wrap(a, name)
    r = xp.reshape(x, (4, 6))
    assert data_address(r) == data_address(x)
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
    assert data_address(flat) != data_address(x)
    with pytest.raises(ValueError):
        xp.reshape(t, (12,), copy=False)
    split = xp.reshape(t, (2, 2, 3), copy=False)
    assert np.shares_memory(to_numpy(split), a)
    assert np.array_equal(to_numpy(split), a.T.reshape(2, 2, 3))


def test_reshape_reversed():
    a = np.arange(24, dtype=np.int16)
    x = xp.asarray(a)[::-1]
    r = xp.reshape(x, (4, 6), copy=False)
    assert r._strides == (-6, -1)
    assert np.array_equal(to_numpy(r), a[::-1].reshape(4, 6))
    r2 = xp.reshape(xp.asarray(a)[::-2], (3, 4), copy=False)
    assert np.array_equal(to_numpy(r2), a[::-2].reshape(3, 4))


def test_reshape_broadcast():
    """Zero strides survive where NumPy keeps them; merging a zero-stride axis copies."""
    a = np.broadcast_to(np.arange(4.0), (3, 4))
    x = xp.asarray(a)
    assert x._strides == (0, 1) and x._readonly
    v = xp.reshape(x, (3, 2, 2), copy=False)
    assert v._strides == (0, 2, 1) and v._readonly
    assert np.array_equal(to_numpy(v), a.reshape(3, 2, 2))
    c = xp.reshape(x, (12,))
    assert not c._readonly and not np.shares_memory(to_numpy(c), a)
    assert np.from_dlpack(c).tolist() == [0.0, 1.0, 2.0, 3.0] * 3
    with pytest.raises(ValueError):
        xp.reshape(x, (12,), copy=False)
    # a broadcast scalar: every element is one memory cell, so any shape is a view
    s = np.broadcast_to(np.float32(7.0), (2, 3))
    b = xp.asarray(s)
    for shape in [(6,), (3, 2), (1, 6, 1)]:
        v = xp.reshape(b, shape, copy=False)
        assert v._strides == np.reshape(s, shape, copy=False).strides == (0,) * len(shape)
        assert data_address(v) == data_address(b) and v._readonly
        assert np.array_equal(to_numpy(v), np.full(shape, 7.0, np.float32))


@pytest.mark.parametrize("name", ALL)
def test_reshape_zero_d(name):
    """0-d arrays reshape to any shape of size 1 and back, as views."""
    a = np.zeros((), dtype=storage(name))
    x = wrap(a, name)
    for shape, request in [((), ()), ((1,), (1,)), ((1,), -1), ((1,), (-1,)),
                           ((1, 1, 1), (1, -1, 1)), ((1, 1), [1, 1])]:
        r = xp.reshape(x, request, copy=False)
        assert r.shape == shape and data_address(r) == data_address(x)
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


def test_reshape_remembers_no_shape_of_other_types():
    """Reshape remembers the shapes it has checked: (4.0, 6) or a list inside stays a TypeError
    after (4, 6) succeeded, and (True, 24) reads as (1, 24), as ``operator.index`` reads it."""
    x = xp.arange(24)
    assert xp.reshape(x, (4, 6)).shape == (4, 6)
    for request in [(4.0, 6), (4, 6.0), ([4], 6)]:
        with pytest.raises(TypeError, match="tuple of ints"):
            xp.reshape(x, request)
    assert xp.reshape(x, (1, 24)).shape == xp.reshape(x, (True, 24)).shape == (1, 24)


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


# ---- views: broadcast_to, broadcast_arrays, expand_dims, flip, moveaxis, permute_dims,
# squeeze, unstack ----

def assert_view_of(r, expected, a, x):
    """``r`` has NumPy's values and sits on NumPy's view's memory; writes go through."""
    if not isinstance(expected, np.ndarray):  # NumPy gives a scalar for a 0-d view of ``a``
        expected = a[...]
    assert_same_values(r, expected)
    assert r.dtype is x.dtype and r._owner is x._owner
    if expected.size == 0:
        return
    assert address(bits(r)) == address(expected)
    assert [s for n, s in zip(r.shape, bits(r).strides) if n > 1] == \
        [s for n, s in zip(expected.shape, expected.strides) if n > 1]
    if not r._readonly and a.flags.writeable:
        out, index = bits(r), (0,) * r.ndim
        before = a.copy()
        out[index] = not out[index] if out.dtype == np.bool_ else np.frombuffer(
            bytes(255 - b for b in out[index].tobytes()), out.dtype)[0]
        assert a.tobytes() != before.tobytes()


@st.composite
def axis_sets(draw, ndim, min_size=0):
    """A tuple of distinct axes of ``ndim`` dimensions, some given as negative numbers."""
    axes = draw(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, min_size=min_size,
                         max_size=ndim)) if ndim else []
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


@given(st.data())
def test_flip_permute_moveaxis_views(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    axes = data.draw(axis_sets(a.ndim), label="axes")
    choice = data.draw(st.sampled_from(["flip", "flip all", "flip int", "permute", "moveaxis"]))
    event(choice)
    if choice == "flip":
        r, expected = xp.flip(x, axis=axes), np.flip(a, axis=axes)
    elif choice == "flip all" or not a.ndim:
        r, expected = xp.flip(x), np.flip(a)
    elif choice == "flip int":
        r, expected = xp.flip(x, axis=-1), np.flip(a, axis=-1)
    elif choice == "permute":
        perm = tuple(data.draw(st.permutations(range(a.ndim))))
        perm = tuple(p - a.ndim if data.draw(st.booleans()) else p for p in perm)
        r, expected = xp.permute_dims(x, perm), np.transpose(a, perm)
    else:
        destination = tuple(data.draw(st.permutations(range(a.ndim))))[:len(axes)]
        r, expected = xp.moveaxis(x, axes, destination), np.moveaxis(a, axes, destination)
    assert r._readonly == x._readonly
    assert_view_of(r, expected, a, x)


@given(st.data())
def test_expand_squeeze_unstack_views(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    count = data.draw(st.integers(1, 3))
    axes = data.draw(axis_sets(a.ndim + count, min_size=count), label="expand")[:count]
    axis = axes if len(axes) > 1 or data.draw(st.booleans()) else axes[0]
    e = xp.expand_dims(x, axis)
    assert_view_of(e, np.expand_dims(a, axis), a, x)
    s = xp.squeeze(e, axis)
    assert_view_of(s, a, a, x)
    ones = tuple(i for i, n in enumerate(a.shape) if n == 1)
    if ones:
        assert_view_of(xp.squeeze(x, ones), np.squeeze(a, ones), a, x)
    if a.ndim:
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
        parts = xp.unstack(x, axis=axis)
        assert type(parts) is tuple and len(parts) == a.shape[axis]
        for i, part in enumerate(parts):
            assert_view_of(part, a[(slice(None),) * (axis % a.ndim) + (i, ...)], a, x)


@given(st.data())
def test_broadcast_to_and_arrays(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    shape = lead + tuple(data.draw(st.sampled_from([n, n] if n != 1 else [1, 0, 3]))
                         for n in a.shape)
    r = xp.broadcast_to(x, shape)
    assert r._readonly
    assert_view_of(r, np.broadcast_to(a, shape), a, x)
    with pytest.raises(ValueError):
        r[...] = xp.zeros((), dtype=r.dtype)
    other = wrap(np.zeros(shape[len(lead):] or (), storage(name)), name)
    out = xp.broadcast_arrays(x, other, r)
    assert type(out) is tuple and all(o.shape == shape for o in out)
    for o, src in zip(out, (x, other, r)):
        assert (o is src) == (src.shape == shape)
        if o is not src:
            assert o._readonly and o._owner is src._owner
    assert_same_values(out[0], np.broadcast_to(a, shape))


@pytest.mark.parametrize("shape, target", [((3,), (4,)), ((2, 3), (3,)), ((2, 1), (3, 1)),
                                           ((0,), (2,)), ((3,), (-1, 3))])
def test_broadcast_to_errors(shape, target):
    x = xp.zeros(shape)
    with pytest.raises(ValueError):
        xp.broadcast_to(x, target)
    with pytest.raises(TypeError):
        xp.broadcast_to(x, list(shape))
    with pytest.raises(TypeError):
        xp.broadcast_to(np.zeros(shape), shape)


def test_broadcast_arrays_errors_and_edge_cases():
    assert xp.broadcast_arrays() == ()
    x = xp.ones((2, 3))
    assert xp.broadcast_arrays(x)[0] is x
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.broadcast_arrays(xp.ones((2,)), xp.ones((3,)))
    with pytest.raises(TypeError):
        xp.broadcast_arrays(x, 1.0)


def test_view_functions_bad_axes():
    x = xp.zeros((2, 1, 3))
    for call in [lambda: xp.flip(x, axis=3), lambda: xp.flip(x, axis=-4),
                 lambda: xp.squeeze(x, 3), lambda: xp.expand_dims(x, 4),
                 lambda: xp.expand_dims(x, (0, -6)), lambda: xp.unstack(x, axis=3),
                 lambda: xp.moveaxis(x, 3, 0), lambda: xp.permute_dims(x, (0, 1, 3)),
                 lambda: xp.unstack(xp.zeros(()))]:
        with pytest.raises(IndexError, match="out of bounds"):
            call()
        with pytest.raises(ValueError):
            call()
    for call, match in [(lambda: xp.squeeze(x, 0), "size 2"),
                        (lambda: xp.flip(x, axis=(0, -3)), "more than once"),
                        (lambda: xp.expand_dims(x, (1, -4)), "more than once"),
                        (lambda: xp.moveaxis(x, (0, 1), 2), "same number"),
                        (lambda: xp.moveaxis(x, (0, 0), (1, 2)), "more than once"),
                        (lambda: xp.permute_dims(x, (0, 1)), "each of the 3"),
                        (lambda: xp.permute_dims(x, (0, 1, 1)), "more than once")]:
        with pytest.raises(ValueError, match=match):
            call()
    for call in [lambda: xp.flip(x, axis=1.0), lambda: xp.squeeze(x, None),
                 lambda: xp.expand_dims(x, True), lambda: xp.permute_dims(x, [0, 1, 2.0]),
                 lambda: xp.permute_dims(x, "012"), lambda: xp.unstack(x, axis="0"),
                 lambda: xp.flip(np.zeros(3))]:
        with pytest.raises(TypeError):
            call()


def test_expand_dims_tuple_positions():
    """Positions index the result (the standard's 2025.12 rule, as NumPy's)."""
    x = xp.zeros((2, 3))
    for axis, shape in [((0, 1), (1, 1, 2, 3)), ((-1, 0), (1, 2, 3, 1)), ((1, 3), (2, 1, 3, 1)),
                        (-1, (2, 3, 1)), (-3, (1, 2, 3)), (2, (2, 3, 1)), ((), (2, 3))]:
        assert xp.expand_dims(x, axis).shape == shape == np.expand_dims(np.zeros((2, 3)),
                                                                        axis).shape
        assert xp.expand_dims(x, axis=axis).shape == shape


# ---- copies: concat, stack, roll, repeat, tile ----

def assert_fresh(r, a):
    assert not r._readonly and bits(r).flags.c_contiguous
    if r.size and a.size:
        assert not np.shares_memory(bits(r), a)


@st.composite
def same_layouts(draw, count, shape, names):
    """``count`` arrays of ``shape`` in random layouts, dtypes from ``names``."""
    arrays = []
    for _ in range(count):
        name = draw(st.sampled_from(names))
        base = draw(layouts(st.just(name)))[1]
        flat = np.resize(base.reshape(-1) if base.size else np.zeros(1, storage(name)),
                         math.prod(shape))
        step = draw(st.sampled_from([1, -1]))
        a = flat[::step].reshape(shape)
        if a.ndim > 1 and draw(st.booleans()):
            a = np.ascontiguousarray(np.swapaxes(a, 0, -1)).swapaxes(0, -1)
        arrays.append((name, a))
    return arrays


def numpy_result_type(names):
    """The promoted dtype, by array-api-strict (which lacks float16 and bfloat16: they promote
    as float32 does with every other dtype)."""
    import array_api_strict as strict
    if len(set(names)) == 1:
        return storage(names[0])
    names = ["float32" if n in ("float16", "bfloat16") else n for n in names]
    return strict.result_type(*(getattr(strict, n) for n in names))._np_dtype


def check_join(function, numpy_function, parts, axis):
    """``function`` joins the (name, NumPy array) ``parts`` as NumPy does after casting them
    to the promoted dtype, or raises TypeError where promotion fails."""
    used = [n for n, _ in parts]
    arrays = [wrap(a, n) for n, a in parts]
    try:
        dtype = numpy_result_type(used)
    except TypeError:
        with pytest.raises(TypeError):
            function(arrays, axis=axis)
        return
    r = function(arrays, axis=axis)
    assert r.dtype is (xp.bfloat16 if used[0] == "bfloat16" else getattr(xp, dtype.name))
    assert_same_values(r, numpy_function([a.astype(dtype) for _, a in parts], axis=axis))
    assert_fresh(r, parts[0][1])


@pytest.mark.strict
@given(st.data())
def test_concat_matches_numpy(data):
    base = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = data.draw(st.integers(-len(base), len(base) - 1) | st.none(), label="axis")
    names = data.draw(st.sampled_from([ALL] + [[n] for n in ALL] + [NUMPY_NAMES]))
    count = data.draw(st.integers(1, 4))
    parts = []
    for _ in range(count):
        shape = list(base)
        if axis is not None:
            shape[axis] = data.draw(st.integers(0, 3))
        else:
            shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
        parts += data.draw(same_layouts(1, tuple(shape), names))
    used = [n for n, _ in parts]
    if "bfloat16" in used and len(set(used)) > 1:
        with np.errstate(invalid="ignore"):  # a NaN's or a negative's bits serve as well
            parts = [("bfloat16", a.astype(np.uint16)) for _, a in parts]
        used = ["bfloat16"] * len(parts)
    event("mixed" if len(set(used)) > 1 else "one dtype")
    check_join(xp.concat, np.concatenate, parts, axis)


@pytest.mark.strict
@given(st.data())
def test_stack_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    names = data.draw(st.sampled_from([[n] for n in ALL] + [NUMPY_NAMES]))
    parts = data.draw(same_layouts(data.draw(st.integers(1, 4)), shape, names))
    check_join(xp.stack, np.stack, parts, axis)


@pytest.mark.strict
def test_concat_stack_errors():
    a, b = xp.zeros((2, 3)), xp.zeros((2, 4))
    with pytest.raises(ValueError, match="same shape except along axis 0"):
        xp.concat([a, b])
    assert xp.concat([a, b], axis=1).shape == (2, 7)
    assert xp.concat([a, b], axis=None).shape == (14,)
    with pytest.raises(ValueError):
        xp.concat([a, xp.zeros((2, 3, 1))], axis=0)
    with pytest.raises(IndexError):
        xp.concat([xp.zeros(()), xp.zeros(())])
    assert xp.concat([xp.zeros(()), xp.ones(())], axis=None).shape == (2,)
    with pytest.raises(ValueError, match="at least one"):
        xp.concat([])
    with pytest.raises(ValueError, match="at least one"):
        xp.stack(())
    with pytest.raises(ValueError, match="same shape"):
        xp.stack([a, b])
    with pytest.raises(IndexError):
        xp.stack([a, a], axis=3)
    with pytest.raises(TypeError, match="no common dtype"):
        xp.concat([xp.zeros(2, dtype=xp.int64), xp.zeros(2, dtype=xp.uint64)])
    with pytest.raises(TypeError):
        xp.concat([xp.zeros(2, dtype=xp.bool), xp.zeros(2, dtype=xp.int8)])
    with pytest.raises(TypeError):
        xp.concat(a)
    with pytest.raises(TypeError):
        xp.stack([a, np.zeros((2, 3))])
    r = xp.stack((xp.asarray([1, 2], dtype=xp.int8), xp.asarray([3, 4], dtype=xp.int16)))
    assert r.dtype is xp.int16 and to_numpy(r).tolist() == [[1, 2], [3, 4]]


@given(st.data())
def test_roll_matches_numpy(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    shift = data.draw(st.integers(-7, 7))
    form = data.draw(st.sampled_from(["none", "int", "tuple", "same shift"]))
    if form == "none" or not a.ndim:
        r, expected = xp.roll(x, shift), np.roll(a, shift)
    elif form == "int":
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
        r, expected = xp.roll(x, shift, axis=axis), np.roll(a, shift, axis=axis)
    else:
        axes = tuple(data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), max_size=3)))
        shifts = tuple(data.draw(st.integers(-7, 7)) for _ in axes)
        if form == "same shift":
            shifts = shift
        r, expected = xp.roll(x, shifts, axis=axes), np.roll(a, shifts, axis=axes)
    event(form)
    assert r.shape == a.shape
    assert_same_values(r, expected)
    assert_fresh(r, a)


def test_roll_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2), axis=(0,))
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2))
    with pytest.raises(TypeError):
        xp.roll(x, 1.5)
    with pytest.raises(IndexError):
        xp.roll(x, 1, axis=2)
    assert xp.roll(x, (1,)).shape == (2, 3)


@given(st.data())
def test_repeat_matches_numpy(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    axis = None if not a.ndim or data.draw(st.booleans()) else data.draw(
        st.integers(-a.ndim, a.ndim - 1))
    n = a.size if axis is None else a.shape[axis]
    form = data.draw(st.sampled_from(["int", "array", "array of one"]))
    event(form)
    if form == "int":
        repeats = data.draw(st.integers(0, 3))
        r, expected = xp.repeat(x, repeats, axis=axis), np.repeat(a, repeats, axis=axis)
    else:
        dtype = data.draw(st.sampled_from(["int8", "int64", "uint8", "uint64"]))
        counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=1 if form != "array"
                                             else n, max_size=1 if form != "array" else n)),
                          dtype)
        r = xp.repeat(x, xp.asarray(counts), axis=axis)
        expected = np.repeat(a, counts.astype(np.int64), axis=axis)
    assert_same_values(r, expected)
    assert_fresh(r, a)


def test_repeat_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match=">= 0"):
        xp.repeat(x, -1)
    with pytest.raises(ValueError, match=">= 0"):
        xp.repeat(x, xp.asarray([1, -1, 2]), axis=1)
    with pytest.raises(ValueError, match="do not match"):
        xp.repeat(x, xp.asarray([1, 2]), axis=1)
    with pytest.raises(ValueError, match="do not match"):
        xp.repeat(x, xp.asarray([[1, 2, 3]]), axis=1)
    with pytest.raises(TypeError):
        xp.repeat(x, xp.asarray([1.0, 2.0]), axis=0)
    with pytest.raises(TypeError):
        xp.repeat(x, 2.0)
    with pytest.raises(TypeError):
        xp.repeat(x, True)
    with pytest.raises(IndexError):
        xp.repeat(x, 2, axis=2)
    assert xp.repeat(x, xp.asarray(2), axis=0).shape == (4, 3)


@given(st.data())
def test_tile_matches_numpy(data):
    name, a = data.draw(layouts(), label="a")
    x = wrap(a, name)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=5)))
    r = xp.tile(x, reps)
    assert_same_values(r, np.tile(a, reps))
    assert_fresh(r, a)


def test_tile_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(TypeError):
        xp.tile(x, [2, 2])
    with pytest.raises(TypeError):
        xp.tile(x, 2)
    with pytest.raises(TypeError):
        xp.tile(x, (2.0,))
    with pytest.raises(ValueError):
        xp.tile(x, (-1, 2))


@pytest.mark.parametrize("name", ALL)
def test_copies_of_every_dtype(name):
    """Each copying function moves every dtype's bits unchanged (bfloat16 and NaN payloads
    included)."""
    rng = np.random.default_rng(0)
    dtype = storage(name)
    a = (rng.integers(0, 2, (3, 4)).astype(bool) if name == "bool" else
         np.frombuffer(rng.bytes(12 * dtype.itemsize), dtype).reshape(3, 4))
    x = wrap(a, name)
    assert_same_values(xp.concat([x, x[::-1]], axis=1), np.concatenate([a, a[::-1]], axis=1))
    assert_same_values(xp.stack([x.T, x.T]), np.stack([a.T, a.T]))
    assert_same_values(xp.roll(x, 2, axis=1), np.roll(a, 2, axis=1))
    assert_same_values(xp.repeat(x, 2, axis=0), np.repeat(a, 2, axis=0))
    assert_same_values(xp.tile(x, (2, 1, 2)), np.tile(a, (2, 1, 2)))


# ---------------------------------------------------------------- every function on each device

# name: the call, written once for NumPy and dlnumba (``m``), on strided views of a (3, 4, 2)
# array ``a``: copies read stepped, reversed and transposed sources on the device too
ON_EACH_DEVICE = {
    "broadcast_arrays": lambda m, a: m.broadcast_arrays(a[:, :1, ::-1], a[0, ::-1]),
    "broadcast_to": lambda m, a: m.broadcast_to(a[0, ::2], (3, 2, 2)),
    "concat": lambda m, a: m.concat([a[::-1], a[:1, ::-1]], axis=0),
    "expand_dims": lambda m, a: m.expand_dims(a[:, ::-2], axis=(0, 3)),
    "flip": lambda m, a: m.flip(a, axis=(0, 2)),
    "moveaxis": lambda m, a: m.moveaxis(a[::2], 0, -1),
    "pad": lambda m, a: m.pad(a[:, ::-1], ((1, 0), (0, 2), (1, 1))),
    "permute_dims": lambda m, a: m.permute_dims(a[::-1], (2, 0, 1)),
    "repeat": lambda m, a: m.repeat(a[:, ::-1], m.asarray([2, 0, 1, 3], device=a.device), axis=1),
    "reshape": lambda m, a: m.reshape(m.permute_dims(a, (1, 0, 2)), (4, 6)),
    "roll": lambda m, a: m.roll(a[::-1], (1, -2), axis=(0, 1)),
    "squeeze": lambda m, a: m.squeeze(a[:1, :, 1:], axis=(0, 2)),
    "stack": lambda m, a: m.stack([a[0], a[2, ::-1]], axis=1),
    "tile": lambda m, a: m.tile(a[::2, 1], (2, 1, 2)),
    "unstack": lambda m, a: m.unstack(a[:, ::-1], axis=1),
}


def test_every_function_is_checked_on_each_device():
    names = {"broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
             "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"}
    assert names <= set(xp.__all__) and set(ON_EACH_DEVICE) == names | {"pad"}


@pytest.mark.parametrize("name", sorted(ON_EACH_DEVICE))
def test_every_function_matches_numpy_on_each_device(name, device):
    """Each manipulation function gives NumPy's values, a dtype of each kind, on each device
    (results, views and copies alike, stay on the device of the input)."""
    a = np.arange(24).reshape(3, 4, 2) - 7
    for dtype in ("bool", "int16", "bfloat16", "float64", "complex64"):
        compare_with_numpy(ON_EACH_DEVICE[name], a.astype(DTYPES[dtype]), device=device)
