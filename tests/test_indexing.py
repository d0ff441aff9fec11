"""Array indexing against NumPy: boolean masks, integer arrays, take, take_along_axis."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba.kernels.indexing import PREFETCH_DISTANCE

from helpers import to_numpy

SAMPLE_DTYPES = ["bool", "int8", "uint16", "int32", "float32", "float64", "complex64", "complex128"]


@st.composite
def strided_arrays(draw, min_dims=1, max_dims=4):
    """A NumPy array of a random dtype and layout (reversed or stepped axes, transposed)."""
    dtype = draw(st.sampled_from(SAMPLE_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=5))
    base = np.arange(int(np.prod([2 * n for n in shape]))).astype(dtype)
    a = base.reshape([2 * n for n in shape])[tuple(
        draw(st.sampled_from([slice(None, n), slice(None, None, 2), slice(n - 1 if n else None,
                                                                           None, -1)]))
        for n in shape)]
    if draw(st.booleans()):
        a = a.transpose(draw(st.permutations(range(a.ndim))))
    return a


@given(strided_arrays(), st.data())
def test_mask_getitem_matches_numpy(a, data):
    k = data.draw(st.integers(0, a.ndim))
    mask = data.draw(hnp.arrays(np.bool_, a.shape[:k]))
    assert np.array_equal(to_numpy(xp.asarray(a)[xp.asarray(mask)]), a[mask])


@given(strided_arrays(), st.data())
def test_mask_of_the_whole_shape_matches_numpy(a, data):
    """A mask of the array's own shape, in any layout: 1-D and C-contiguous pairs are
    compressed in one call, other layouts take the offsets path."""
    mask = data.draw(hnp.arrays(np.bool_, [2 * n for n in a.shape]))[
        tuple(slice(None, None, data.draw(st.sampled_from([2, -2]))) for _ in a.shape)]
    if data.draw(st.booleans()):
        mask = np.ascontiguousarray(mask)
        a = np.ascontiguousarray(a)
    assert np.array_equal(to_numpy(xp.asarray(a)[xp.asarray(mask)]), a[mask])
    # writes: one value, a one-element array, or one value per selected element
    count = int(mask.sum())
    for value in (np.array(7), np.array([5]), np.arange(count)[::-1]):
        expected, x = a.copy(), xp.asarray(a.copy())
        expected[mask] = value.astype(a.dtype)
        x[xp.asarray(mask)] = xp.asarray(value.astype(a.dtype))
        assert np.array_equal(to_numpy(x), expected)
    with pytest.raises(ValueError):
        xp.asarray(a.copy())[xp.asarray(mask)] = xp.asarray(np.zeros(count + 2, a.dtype))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_large_mask_is_counted_before_it_is_compressed(dtype):
    a = np.arange(80_000).astype(dtype)[::-1]
    mask = np.arange(80_000) % 7 == 3
    x = xp.asarray(a)[xp.asarray(mask)]
    assert np.array_equal(to_numpy(x), a[mask])
    assert x._owner.__len__() <= (mask.sum() + 1) * a.itemsize + 64  # room for the count only


@pytest.mark.parametrize("count", [PREFETCH_DISTANCE - 1, PREFETCH_DISTANCE,
                                   PREFETCH_DISTANCE + 1, 3000])
def test_random_reads_and_writes_past_the_prefetch_distance_match_numpy(count):
    """Gathers and scatters long enough to ask for elements ahead: ``take``, ``x[i]``,
    ``x[i] = v`` on a reversed 1-D array, ``x[i, j]`` and ``x[i, j] = v`` on a transposed
    one, with negative and repeated indices."""
    rng = np.random.default_rng(count)
    a = np.arange(2 * 5000, dtype=np.float64)[::-2]
    i = rng.integers(-a.size, a.size, count)
    x = xp.asarray(a)
    assert np.array_equal(to_numpy(xp.take(x, xp.asarray(i))), np.take(a, i))
    assert np.array_equal(to_numpy(x[xp.asarray(i)]), a[i])
    values = np.arange(count, dtype=a.dtype)
    expected = a.copy()
    expected[i] = values
    x[xp.asarray(i)] = xp.asarray(values)
    assert np.array_equal(to_numpy(x), expected)

    b = np.arange(60 * 70, dtype=np.int32).reshape(60, 70).T
    key = rng.integers(-70, 70, count), rng.integers(-60, 60, count)
    y = xp.asarray(b.copy())
    assert np.array_equal(to_numpy(y[tuple(map(xp.asarray, key))]), b[key])
    expected = b.copy()
    expected[key] = values.astype(b.dtype)
    y[tuple(map(xp.asarray, key))] = xp.asarray(values.astype(b.dtype))
    assert np.array_equal(to_numpy(y), expected)


@given(strided_arrays(), st.data())
def test_mask_setitem_matches_numpy(a, data):
    a = a.copy()
    mask = data.draw(hnp.arrays(np.bool_, a.shape))
    x = xp.asarray(a.copy())
    expected = a.copy()
    expected[mask] = a.dtype.type(1)
    x[xp.asarray(mask)] = True if a.dtype == np.bool_ else 1
    assert np.array_equal(to_numpy(x), expected)


@given(strided_arrays(), st.data())
def test_integer_arrays_getitem_matches_numpy(a, data):
    if 0 in a.shape:
        return
    index_shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4))
    key = []
    for n in a.shape:
        if data.draw(st.booleans()):
            key.append(data.draw(st.integers(-n, n - 1)))
        else:
            shape = index_shape[data.draw(st.integers(0, len(index_shape))):]
            key.append(data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-n, n - 1))))
    if all(isinstance(k, int) for k in key):
        return
    ours = xp.asarray(a)[tuple(xp.asarray(k) if isinstance(k, np.ndarray) else k for k in key)]
    assert np.array_equal(to_numpy(ours), a[tuple(key)])


@given(strided_arrays(max_dims=2), st.data())
def test_integer_arrays_setitem_matches_numpy(a, data):
    if 0 in a.shape:
        return
    a = a.copy()
    key = tuple(data.draw(hnp.arrays(np.int64, (3,), elements=st.integers(-n, n - 1)))
                for n in a.shape)
    # duplicates make NumPy's result order-dependent; keep positions unique
    flat = np.ravel_multi_index(tuple(k % n for k, n in zip(key, a.shape)), a.shape)
    if len(set(flat.tolist())) != flat.size:
        return
    values = np.arange(3).astype(a.dtype)
    expected = a.copy()
    expected[key] = values
    x = xp.asarray(a.copy())
    x[tuple(xp.asarray(k) for k in key)] = xp.asarray(values)
    assert np.array_equal(to_numpy(x), expected)


@given(strided_arrays(), st.data())
def test_take_matches_numpy(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    indices = data.draw(hnp.arrays(np.int64, data.draw(st.integers(0, 6)),
                                   elements=st.integers(-n, n - 1) if n else st.just(0)))
    if n == 0 and indices.size:
        return
    ours = xp.take(xp.asarray(a), xp.asarray(indices), axis=axis)
    assert np.array_equal(to_numpy(ours), np.take(a, indices, axis=axis))


@given(strided_arrays(max_dims=1), st.data())
def test_flat_take_matches_numpy(a, data):
    """A 1-D array and 1-D indices of any integer dtype and layout, taken in one call."""
    n = a.shape[0]
    dtype = data.draw(st.sampled_from(["int8", "uint8", "int16", "int32", "uint32", "int64",
                                       "uint64"]))
    low = 0 if dtype.startswith("u") else -min(n, 128)
    values = data.draw(hnp.arrays(dtype, data.draw(st.integers(0, 12)),
                                  elements=st.integers(low, min(n, 128) - 1) if n else st.just(0)))
    if n == 0 and values.size:
        return
    step = data.draw(st.sampled_from([1, 2, -1]))
    indices = values[::step]
    expected = a[indices]
    x, index = xp.asarray(a), xp.asarray(values)[::step]
    assert np.array_equal(to_numpy(xp.take(x, index)), expected)
    assert np.array_equal(to_numpy(x[index]), expected)


@given(strided_arrays(max_dims=1), st.data())
def test_flat_integer_setitem_matches_numpy(a, data):
    """``x[indices] = value`` on a 1-D array in one call: repeated indices (the last write
    wins, as in NumPy), one value or one per index, strided indices."""
    n = a.shape[0]
    if n == 0:
        return
    values = data.draw(hnp.arrays(np.int32, data.draw(st.integers(0, 12)),
                                  elements=st.integers(-n, n - 1)))[::data.draw(
                                      st.sampled_from([1, -1, 2]))]
    for value in (np.array(1), np.arange(values.size) % 2 == 0):
        expected, x = a.copy(), xp.asarray(a.copy())
        expected[values] = value.astype(a.dtype)
        x[xp.asarray(values)] = xp.asarray(value.astype(a.dtype))
        assert np.array_equal(to_numpy(x), expected)


@given(strided_arrays(), st.data())
def test_take_along_axis_matches_numpy(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    if n == 0:
        return
    shape = list(a.shape)
    shape[axis] = data.draw(st.integers(0, 5))
    shape = [s if d == axis % a.ndim or not data.draw(st.booleans()) else 1
             for d, s in enumerate(shape)]
    indices = data.draw(hnp.arrays(np.int64, tuple(shape), elements=st.integers(-n, n - 1)))
    ours = xp.take_along_axis(xp.asarray(a), xp.asarray(indices), axis=axis)
    assert np.array_equal(to_numpy(ours), np.take_along_axis(a, indices, axis=axis))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "complex128"])
def test_gather_moves_every_item_size_exactly(dtype):
    x = xp.astype(xp.asarray(np.arange(10.0)), getattr(xp, dtype))
    picked = x[xp.asarray([9, 0, -1])]
    values = xp.real(picked) if dtype == "complex128" else xp.astype(picked, xp.float64)
    assert np.array_equal(to_numpy(values), [9.0, 0.0, 9.0])


def test_index_arrays_of_any_integer_dtype():
    a = np.arange(12).reshape(3, 4)
    x = xp.asarray(a)
    for dtype in (xp.int8, xp.uint8, xp.int16, xp.uint64):
        assert to_numpy(x[xp.asarray([2, 0], dtype=dtype), 1]).tolist() == [9, 1]


# ---- errors ----

def test_out_of_bounds_indices_raise_index_error():
    x = xp.asarray(np.arange(12).reshape(3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        x[xp.asarray([3]), 0]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        xp.take(x, xp.asarray([-5]), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        xp.take_along_axis(x, xp.asarray([[4]]), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        x[xp.asarray([0]), xp.asarray([9])] = 1


def test_mask_rules():
    """A mask's sizes equal the array's or are 0 (2025.12): an empty mask selects nothing."""
    x = xp.zeros((3, 4))
    with pytest.raises(IndexError, match="does not match"):
        x[xp.asarray([True, False])]
    with pytest.raises(IndexError, match="does not match"):
        x[xp.zeros((3, 4, 1), dtype=xp.bool)]
    assert x[xp.zeros((0,), dtype=xp.bool)].shape == (0, 4)
    assert x[xp.zeros((3, 0), dtype=xp.bool)].shape == (0,)
    x[xp.zeros((0, 4), dtype=xp.bool)] = 1.0
    assert not xp.any(x)
    with pytest.raises(IndexError, match="only index"):
        x[xp.asarray([True, False, True]), 0]


@pytest.mark.strict
def test_integer_array_rules():
    x = xp.zeros((3, 4))
    with pytest.raises(IndexError, match="one index per dimension: 2, not 1"):
        x[xp.asarray([0, 1])]
    with pytest.raises(IndexError, match="only integers and integer arrays"):
        x[xp.asarray([0]), 1:]
    with pytest.raises(IndexError, match="only integers and integer arrays"):
        x[..., xp.asarray([0])]
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x[xp.asarray([0, 1]), xp.asarray([0, 1, 2])]


def test_take_arguments():
    x = xp.zeros((3, 4))
    with pytest.raises(ValueError, match="needs an axis"):
        xp.take(x, xp.asarray([0]))
    with pytest.raises(TypeError, match="integer indices"):
        xp.take(x, xp.asarray([0.0]), axis=0)
    with pytest.raises(ValueError, match="1-D indices"):
        xp.take(x, xp.asarray([[0]]), axis=0)
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        xp.take(x, xp.asarray([0]), axis=2)
    with pytest.raises(ValueError, match="2 dimensions"):
        xp.take_along_axis(x, xp.asarray([0]), axis=0)


def test_read_only_arrays_refuse_array_index_writes():
    a = np.arange(4)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    with pytest.raises(ValueError, match="read-only"):
        x[xp.asarray([True, False, True, False])] = 0
    with pytest.raises(ValueError, match="read-only"):
        x[xp.asarray([1])] = 0
    assert a.tolist() == [0, 1, 2, 3]


def test_results_are_new_memory():
    a = np.arange(6)
    x = xp.asarray(a)
    picked = x[xp.asarray([0, 1])]
    picked[0] = 99
    assert a[0] == 0
