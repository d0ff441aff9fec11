"""Bounds and read-only safety: no public operation makes a view outside its buffer, and
read-only memory cannot be written through any public path.

The views of every public view-making operation are checked against the buffer's byte range
(the lowest and highest byte any element touches); out-of-range requests must raise, with a
message naming the bad value.
"""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import dlnumba as xp

from dlpack_forge import READ_ONLY, Forged
from helpers import data_address, to_numpy

LIMIT = 2**62  # the bytes a dlnumba array may span
INT64_MAX = 2**63 - 1


def byte_range(x):
    """The first and one-past-last byte any element of ``x`` touches (None when empty)."""
    if x.size == 0:
        return None
    low = high = data_address(x)
    for n, s in zip(x.shape, x._strides):
        step = s * x.dtype.itemsize * (n - 1)
        low, high = (low + step, high) if step < 0 else (low, high + step)
    return low, high + x.dtype.itemsize


def strides_fit(x):
    """Whether each byte stride of ``x``, times its axis' size, stays within 2**62 (the bound
    DLPack import keeps), so that NumPy, repr and every DLPack consumer can take the layout."""
    itemsize = x.dtype.itemsize
    return all(abs(s * itemsize) * max(n, 1) <= LIMIT for n, s in zip(x.shape, x._strides))


def inside(view, base):
    """Whether every byte ``view`` reaches lies within ``base``'s bytes, its strides fitting."""
    assert strides_fit(view), (view.shape, view._strides)
    span = byte_range(view)
    if span is None:
        return True
    low, high = byte_range(base)
    return low <= span[0] and span[1] <= high


def base_array():
    return xp.reshape(xp.arange(24, dtype=xp.int32), (2, 3, 4))


# ---- views stay inside the buffer ----

indices = st.one_of(st.integers(-6, 6), st.integers(-2**70, 2**70))
steps = st.one_of(st.none(), st.integers(-5, 5).filter(bool),
                  st.integers(-2**70, 2**70).filter(bool))
slices = st.builds(slice, st.one_of(st.none(), indices), st.one_of(st.none(), indices), steps)
keys = st.lists(st.one_of(indices, slices, st.just(None), st.just(Ellipsis)), max_size=5)


@given(keys)
def test_getitem_views_stay_inside(key):
    """Any basic index either raises IndexError or gives a view inside the buffer, with the
    values NumPy gives."""
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = base_array()
    try:
        expected = a[tuple(key)]
    except (IndexError, OverflowError):  # NumPy: OverflowError for an index beyond int64
        with pytest.raises(IndexError):
            x[tuple(key)]
        return
    view = x[tuple(key)]
    assert inside(view, x)
    np.testing.assert_array_equal(to_numpy(view), expected)


def test_huge_step_on_one_element_keeps_the_stride():
    """Regression: ``x[::192153584101141163]`` on a (2, 3, 4) int32 array made a first stride
    of 2**61 + 4 elements, and np.asarray and repr raised OverflowError."""
    x = base_array()
    view = x[::192153584101141163]
    assert view.shape == (1, 3, 4) and view._strides == (12, 4, 1)
    np.testing.assert_array_equal(np.asarray(view), np.arange(12).reshape(1, 3, 4))
    assert "[[[ 0,  1,  2,  3]" in repr(view)
    assert x[5:2:2**70]._strides == (12, 4, 1)


def _view_operations(argument, shape):
    """Each view-making operation, as a pair (dlnumba's, NumPy's), for an array of ``shape``."""
    ndim = len(shape)
    axes = tuple(sorted(range(ndim), key=lambda i: (argument * (i + 1)) % 7))
    ones = tuple(i for i, n in enumerate(shape) if n == 1)
    new_shape = (-1,) if argument % 2 else tuple(n for n in shape if n != 1)[::-1]
    return {
        "permute": (lambda x: xp.permute_dims(x, axes), lambda a: np.transpose(a, axes)),
        "expand": (lambda x: xp.expand_dims(x, axis=argument % (ndim + 1)),
                   lambda a: np.expand_dims(a, argument % (ndim + 1))),
        "squeeze": (lambda x: xp.squeeze(x, axis=ones), lambda a: np.squeeze(a, axis=ones)),
        "broadcast": (lambda x: xp.broadcast_to(x, (argument % 3,) + shape),
                      lambda a: np.broadcast_to(a, (argument % 3,) + shape)),
        "reshape": (lambda x: xp.reshape(x, new_shape), lambda a: np.reshape(a, new_shape)),
        "flip": (xp.flip, np.flip),
        "mT": (lambda x: x.mT, lambda a: np.swapaxes(a, -1, -2)),
        "dlpack": (lambda x: xp.from_dlpack(x.__dlpack__(max_version=(1, 3))), lambda a: a),
    }


operations = st.lists(st.one_of(
    st.tuples(st.just("index"), keys.map(tuple)),
    st.tuples(st.sampled_from(sorted(_view_operations(0, ()))), st.integers(0, 6))),
    max_size=6)


@st.composite
def empty_imports(draw):
    """An empty int32 tensor with any strides at any address, as Forged arguments."""
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    shape[draw(st.integers(0, len(shape) - 1))] = 0
    return dict(shape=tuple(shape), versioned=draw(st.booleans()),
                strides=tuple(draw(st.integers(-2**63, INT64_MAX)) for _ in shape),
                data=draw(st.integers(0, INT64_MAX - 4)))


@given(st.one_of(st.none(), empty_imports()), operations)
def test_chained_views_keep_strides_in_int64(empty_import, chain):
    """Any chain of view-making operations (basic indexing with huge steps, permute_dims,
    expand_dims, squeeze, broadcast_to, reshape, flip, mT, DLPack import), from a small array
    or from an empty import with any strides, gives views whose byte strides fit and whose
    address is one, that NumPy reads and repr prints, with NumPy's values."""
    if empty_import is None:
        a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
        x = base_array()
    else:
        forged = Forged(np.zeros(1, np.int32), **empty_import)
        a = np.zeros(empty_import["shape"], np.int32)
        x = xp.from_dlpack(forged.capsule)
    for operation, argument in chain:
        if operation == "index":
            ours, numpys = (lambda x: x[argument]), (lambda a: a[argument])
        else:
            ours, numpys = _view_operations(argument, x.shape)[operation]
        try:
            expected = numpys(a)
        except (IndexError, ValueError, OverflowError):
            continue
        x, a = ours(x), expected
        assert strides_fit(x), (operation, argument, x.shape, x._strides)
        assert 0 <= data_address(x) <= INT64_MAX, (operation, argument, data_address(x))
        np.testing.assert_array_equal(np.asarray(x), a)
        repr(x)
    if empty_import is not None:
        del x
        assert forged.calls == [forged.managed_address]
        forged.forget()


@pytest.mark.parametrize("key, message", [
    ((2,), r"index 2 is out of bounds for axis 0 with size 2"),
    ((0, -4), r"index -4 is out of bounds for axis 1 with size 3"),
    ((0, 0, 2**63), r"index 9223372036854775808 is out of bounds for axis 2 with size 4"),
    ((0, 0, 0, 0), r"too many indices: 4 given for an array of 3"),
    ((Ellipsis, Ellipsis), r"single ellipsis"),
    ((0.5,), r"only integers, slices"),
])
def test_getitem_errors_name_the_index(key, message):
    """An out-of-range or malformed index: IndexError naming it and the allowed range."""
    with pytest.raises(IndexError, match=message):
        base_array()[key]


@given(st.lists(st.integers(-3, 30), min_size=1, max_size=4))
def test_reshape_views_stay_inside(shape):
    """reshape gives a view of the same bytes, or raises ValueError naming the shape (sizes
    below -1, which NumPy takes as -1, included)."""
    x = base_array()
    for source in (x, x[:, ::-1], xp.permute_dims(x, (2, 0, 1))):
        try:
            if min(shape) < -1:
                raise ValueError
            expected = np.reshape(to_numpy(source), shape)
        except ValueError:
            with pytest.raises(ValueError, match=r"reshape|shape"):
                xp.reshape(source, tuple(shape))
            continue
        y = xp.reshape(source, tuple(shape))
        if y._owner is source._owner:
            assert inside(y, source)
        np.testing.assert_array_equal(to_numpy(y), expected)


@pytest.mark.parametrize("shape, message", [
    ((3, 5), r"shapes \(2, 3, 4\), \(3, 5\) cannot be broadcast together"),
    ((-1, 2, 3, 4), r"shape \(-1, 2, 3, 4\) has a negative size"),
    ((2**62, 2, 3, 4), r"shape \(4611686018427387904, 2, 3, 4\) of int32 holds more than 2\*\*62"),
])
def test_broadcast_to_errors(shape, message):
    """broadcast_to a shape it cannot reach, or one too large to address: ValueError naming it."""
    with pytest.raises(ValueError, match=message):
        xp.broadcast_to(base_array(), shape)


def test_broadcast_views_stay_inside():
    """Broadcast views repeat elements (zero strides) and stay inside the buffer."""
    x = base_array()
    for view in (xp.broadcast_to(x, (5, 2, 3, 4)), xp.broadcast_to(x[:, :1], (2, 3, 4)),
                 xp.broadcast_arrays(x[:1, ::-1], xp.ones((7, 1, 1, 1)))[0]):
        assert inside(view, x)


def test_manipulation_views_stay_inside():
    """Every view-making function stays inside the buffer."""
    x = base_array()[:, ::-1, 1:]
    for view in (xp.permute_dims(x, (2, 0, 1)), xp.expand_dims(x, axis=-1), xp.flip(x),
                 xp.moveaxis(x, 0, -1), xp.squeeze(x[:1], axis=0), *xp.unstack(x, axis=2),
                 x.T if x.ndim == 2 else x.mT):
        assert inside(view, x)


INDEX_DTYPES = [xp.int8, xp.int64, xp.uint8, xp.uint64]


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_take_out_of_range_raises(dtype):
    """take, take_along_axis and integer-array indexing: an index outside [-n, n) raises
    IndexError naming it; in range, negative ones count from the end."""
    x = xp.reshape(xp.arange(12), (3, 4))
    bad = [4, 100] + ([-5] if "u" not in str(dtype) else [])
    if dtype is xp.uint64:
        bad += [2**63, 2**64 - 1]  # used to wrap to negative int64 indices and read x[..., -1]
    if dtype is xp.int64:
        bad += [-2**63, 2**63 - 1]
    for value in bad:
        index = xp.asarray(np.array([value], dtype=str(dtype)))
        message = rf"index {value} is out of bounds for axis 1 with size 4"
        with pytest.raises(IndexError, match=message):
            xp.take(x, index, axis=1)
        with pytest.raises(IndexError, match=message):
            xp.take_along_axis(x, xp.reshape(index, (1, 1)), axis=1)
        with pytest.raises(IndexError, match=message):
            x[xp.asarray([0]), index]
        with pytest.raises(IndexError, match=message):
            x[xp.asarray([0]), index] = 1
    assert to_numpy(xp.take(x, xp.asarray(np.array([3], dtype=str(dtype))), axis=1)).tolist() == \
        [[3], [7], [11]]


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_flat_take_out_of_range_raises(dtype):
    """The one-call path (a 1-D array, 1-D indices) of take and ``x[indices]``: the same
    IndexError, naming the index; reversed indices and a reversed array read as in NumPy."""
    x = xp.arange(4)[::-1]
    bad = [4, 100] + ([-5] if "u" not in str(dtype) else [])
    bad += {xp.uint64: [2**63, 2**64 - 1], xp.int64: [-2**63, 2**63 - 1]}.get(dtype, [])
    for value in bad:
        index = xp.asarray(np.array([1, value], dtype=str(dtype)))[::-1]
        message = rf"index {value} is out of bounds for axis 0 with size 4"
        with pytest.raises(IndexError, match=message):
            xp.take(x, index)
        with pytest.raises(IndexError, match=message):
            x[index]
        with pytest.raises(IndexError, match=message):
            x[index] = 7  # nothing is written
        assert to_numpy(x).tolist() == [3, 2, 1, 0]
    index = xp.asarray(np.array([3, 0, 1], dtype=str(dtype)))[::-2]
    assert to_numpy(xp.take(x, index)).tolist() == to_numpy(x[index]).tolist() == [2, 0]


def test_threaded_take_names_the_first_bad_index():
    """A gather large enough for the threads: the first index out of bounds, in order, is
    named, whichever thread found it; in bounds, the result is NumPy's."""
    values = np.arange(1000.0)
    indices = np.random.default_rng(0).integers(-1000, 1000, 400_000)
    assert np.array_equal(to_numpy(xp.take(xp.asarray(values), xp.asarray(indices))),
                          values[indices])
    indices[[300_000, 399_999]] = 1000, -1001
    with pytest.raises(IndexError, match="index 1000 is out of bounds for axis 0 with size 1000"):
        xp.asarray(values)[xp.asarray(indices)]
    indices[100] = 5000
    with pytest.raises(IndexError, match="index 5000 is out of bounds"):
        xp.asarray(values)[xp.asarray(indices)]


def test_threaded_put_of_one_value_writes_all_or_nothing():
    """``x[indices] = scalar`` large enough for the threads: NumPy's result (negative and
    repeated indices), and nothing written when one index, anywhere, is out of bounds."""
    values = np.arange(1000.0)
    indices = np.random.default_rng(1).integers(-1000, 1000, 400_000)
    x = xp.asarray(values.copy())
    x[xp.asarray(indices)] = -1.0
    expected = values.copy()
    expected[indices] = -1.0
    assert np.array_equal(to_numpy(x), expected)
    for position in (0, 199_999, 200_000, 399_999):
        bad = indices.copy()
        bad[position] = 1000
        x = xp.asarray(values.copy())
        with pytest.raises(IndexError, match="index 1000 is out of bounds"):
            x[xp.asarray(bad)] = -1.0
        assert np.array_equal(to_numpy(x), values)


@pytest.mark.parametrize("value", [2**63, -2**70, 4, -5])
def test_integer_with_array_index_out_of_range(value):
    """A Python int next to an integer array index, beyond int64 too: IndexError naming it
    (it used to raise OverflowError)."""
    x = xp.reshape(xp.arange(12), (3, 4))
    with pytest.raises(IndexError, match=rf"index {value} is out of bounds for axis 1 with size 4"):
        x[xp.asarray([0, 1]), value]


def test_mask_of_wrong_shape():
    """A boolean mask of the wrong shape: IndexError naming both shapes."""
    with pytest.raises(IndexError, match=r"boolean index of shape \(2,\) does not match.*\(3,\)"):
        xp.arange(3)[xp.asarray([True, False])]


# ---- read-only arrays cannot be written ----

def read_only_arrays():
    """Read-only arrays from each source: a READ_ONLY versioned capsule, a broadcast view,
    a read-only NumPy array."""
    a = np.arange(6.0)
    frozen = np.arange(6.0)
    frozen.flags.writeable = False
    return [("READ_ONLY capsule", xp.from_dlpack(Forged(a, flags=READ_ONLY).capsule), a),
            ("broadcast_to", xp.broadcast_to(xp.from_dlpack(a), (2, 6)), a),
            ("numpy read-only", xp.from_dlpack(frozen), frozen)]


def write_first(v):
    v[0] = 1.0


@pytest.mark.parametrize("index", range(3), ids=["capsule", "broadcast", "numpy"])
def test_read_only_cannot_be_written(index):
    """setitem, in-place operators, legacy export, and a versioned export to a writable
    consumer all refuse; the memory is unchanged."""
    numba = pytest.importorskip("numba")
    name, x, source = read_only_arrays()[index]
    before = source.copy()
    with pytest.raises(ValueError, match="read-only"):
        x[...] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x[(xp.asarray([0]),) * x.ndim] = 1.0  # integer-array indexing
    for operation in ("__iadd__", "__imul__", "__isub__", "__itruediv__", "__ipow__"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(x, operation)(2.0)
    with pytest.raises(BufferError, match="read-only array cannot be exported through a legacy"):
        xp.to_dlpack(x)
    exported = np.from_dlpack(x)  # NumPy asks for a versioned capsule: READ_ONLY reaches it
    assert not exported.flags.writeable
    with pytest.raises(ValueError):
        exported[...] = 1.0
    with pytest.raises(numba.core.errors.TypingError, match="readonly"):
        numba.njit(write_first)(x if x.ndim == 1 else x[0])
    np.testing.assert_array_equal(source, before)
    assert xp.from_dlpack(x.__dlpack__(max_version=(1, 3)))._readonly


def test_read_only_njit_reads():
    """A read-only array is still readable in @njit code."""
    numba = pytest.importorskip("numba")
    _, x, source = read_only_arrays()[0]
    assert numba.njit(lambda v: v.sum())(x) == source.sum()


@pytest.mark.parametrize("shape", [(0, 2**62), (2**40, 2**40), (2**31, 2**31, 0, 2)])
def test_creation_beyond_2_62_bytes_names_the_shape(shape):
    """Even an empty array's strides must fit DLPack's int64 (NumPy could not import it)."""
    for create in (xp.empty, xp.zeros, lambda s: xp.full(s, 1.0)):
        with pytest.raises(ValueError, match=re.escape(f"shape {shape} and dtype float64 would "
                                                       "span more than 2**62 bytes")):
            create(shape)
