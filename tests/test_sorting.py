"""sort and argsort against NumPy's stable sorts and array-api-strict: every dtype, layout, axis,
direction, NaNs, infinities, signed zeros and many equal keys."""

import os
import subprocess
import sys
from unittest import mock

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba.kernels import key_vectors, quicksort, sorting

from helpers import ALL, COMPLEX, INTS, REAL_FLOATS, to_numpy

_REALS = [-np.inf, -2.5, -1.0, -0.0, 0.0, 1.0, 2.5, np.inf, np.nan]


def pool(dtype):
    """Values that make duplicates and every special case of ``dtype``."""
    if dtype == "bool":
        return [False, True]
    if dtype in INTS:
        info = np.iinfo(dtype)
        return sorted({int(info.min), int(info.min) + 1, 0, 1, 2, 7, int(info.max)})
    if dtype in COMPLEX:
        return [complex(r, i) for r in (-1.0, -0.0, 0.0, 2.0, np.nan)
                for i in (-np.inf, 0.0, -0.0, 1.0, np.nan)]
    return _REALS


def storage(dtype):
    """The NumPy dtype that holds the test values (bfloat16 values as float32)."""
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


def to_xp(a, dtype):
    """A dlnumba array of ``dtype`` with ``a``'s values: ``a`` itself (a view of its memory), or
    for bfloat16 a contiguous copy (the layout paths are the same as uint16's)."""
    x = xp.asarray(a)
    return xp.astype(x, xp.bfloat16) if dtype == "bfloat16" else x


def assert_identical(actual, expected):
    """Same shape and the same bits (NaN payloads, signed zeros)."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    assert np.ascontiguousarray(actual).tobytes() == np.ascontiguousarray(expected).tobytes(), \
        (actual, expected)


@st.composite
def arrays(draw, dtypes=ALL, min_dims=1, max_dims=3, max_side=6, min_side=0):
    """A NumPy array of test values in a random layout (stepped, reversed, transposed), and its
    dtype name."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                  max_side=max_side))
    values = pool(dtype)
    base = draw(hnp.arrays(storage(dtype), tuple(2 * n for n in shape),
                           elements=st.sampled_from(values)))
    a = base[tuple(draw(st.sampled_from([slice(None, n), slice(None, None, 2),
                                         slice(n - 1 if n else None, None, -1)]))
                   for n in shape) + (Ellipsis,)]
    if draw(st.booleans()):
        a = a.transpose(draw(st.permutations(range(a.ndim))))
    return a, dtype


def reference_order(a, axis, descending):
    """The positions of a stable sort (descending: larger first, equal ones in their order)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    flipped = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return a.shape[axis] - 1 - np.flip(flipped, axis)


def check_sorts(a, dtype, axis, descending):
    x = to_xp(a, dtype)
    order = reference_order(a, axis, descending)
    indices = xp.argsort(x, axis=axis, descending=descending)
    values = xp.sort(x, axis=axis, descending=descending, stable=False)
    assert indices.dtype == xp.int64 and values.dtype == x.dtype
    assert_identical(np.from_dlpack(indices), order)
    assert_identical(to_numpy(values), np.take_along_axis(a, order, axis))


@given(arrays(), st.data())
def test_sort_and_argsort_match_stable_numpy(case, data):
    a, dtype = case
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check_sorts(a, dtype, axis, data.draw(st.booleans()))


@settings(max_examples=30)
@given(arrays(max_dims=2, min_side=20, max_side=200), st.booleans())
def test_long_rows_match_stable_numpy(case, descending):
    a, dtype = case
    check_sorts(a, dtype, -1, descending)
    check_sorts(a, dtype, 0, descending)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("descending", [False, True])
def test_radix_sorted_rows_of_every_dtype(dtype, descending):
    values = np.array(pool(dtype), dtype=storage(dtype))
    a = np.random.default_rng(5).choice(values, (2, 1500))
    if dtype in INTS + REAL_FLOATS:  # integers that every one of these dtypes holds exactly
        info = np.iinfo(dtype) if dtype in INTS else np.iinfo(np.int16)
        low, high = max(info.min, -255), min(info.max, 255)
        a[1] = np.clip(np.round(np.random.default_rng(6).standard_normal(1500) * 100), low, high)
    check_sorts(a, dtype, 1, descending)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "complex128"])
@pytest.mark.parametrize("descending", [False, True])
def test_equal_keys_keep_their_order(dtype, descending):
    keys = np.random.default_rng(1).integers(0, 3, 5000).astype(dtype)
    order = np.from_dlpack(xp.argsort(xp.asarray(keys), descending=descending))
    ranked = keys[order]
    assert np.all(ranked[:-1] >= ranked[1:]) if descending else np.all(ranked[:-1] <= ranked[1:])
    for key in range(3):
        positions = order[ranked == key]
        assert np.all(np.diff(positions) > 0)


@settings(max_examples=30)
@given(arrays(dtypes=INTS + ["float32", "float64"]), st.data())
def test_matches_array_api_strict(case, data):
    a, _ = case
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    descending = data.draw(st.booleans())
    s = strict.asarray(a)
    ours = xp.argsort(xp.asarray(a), axis=axis, descending=descending)
    theirs = strict.argsort(s, axis=axis, descending=descending)
    assert np.array_equal(np.from_dlpack(ours), np.asarray(theirs))
    values = xp.sort(xp.asarray(a), axis=axis, descending=descending)
    assert np.array_equal(np.from_dlpack(values), np.asarray(strict.sort(s, axis=axis,
                                                                         descending=descending)),
                          equal_nan=a.dtype.kind == "f")


@pytest.mark.parametrize("axis", [0, 1])
def test_large_arrays_on_every_thread(axis):
    a = np.random.default_rng(2).standard_normal((6, 200_000))
    a[:, ::1000] = np.nan
    a = a if axis == 1 else a.T.copy()
    x = xp.asarray(a)
    assert np.array_equal(np.from_dlpack(xp.sort(x, axis=axis)), np.sort(a, axis=axis),
                          equal_nan=True)
    assert np.array_equal(np.from_dlpack(xp.argsort(x, axis=axis, descending=True)),
                          reference_order(a, axis, True))


@settings(max_examples=60)
@given(arrays(dtypes=INTS + REAL_FLOATS + ["bool"], max_dims=2, max_side=300), st.data())
def test_one_row_over_threads_matches_stable_numpy(case, data):
    """Every row of one, whatever its length, takes the path of long rows over the threads."""
    a, dtype = case
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1):
        check_sorts(a, dtype, axis, data.draw(st.booleans()))


@settings(max_examples=60)
@given(arrays(dtypes=INTS + REAL_FLOATS + ["bool"], max_dims=2, max_side=300), st.data())
def test_one_row_in_halves_matches_stable_numpy(case, data):
    """Every row of one, whatever its length, takes the path of rows sorted in two halves and
    merged (one half may be empty)."""
    a, dtype = case
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    with mock.patch.object(sorting, "HALVES", 1):
        check_sorts(a, dtype, axis, data.draw(st.booleans()))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "bfloat16", "int16", "uint64"])
@pytest.mark.parametrize("values", ["permutation", "few", "special"])
@pytest.mark.parametrize("descending", [False, True])
def test_rows_sorted_in_halves_match_stable_numpy(dtype, values, descending):
    """Rows long enough to be sorted in halves on two threads (and shorter than the threads'
    path): a permutation (every radix digit as frequent), a few values with zero low bits
    (negative floats' keys keep them), and NaNs, infinities and zeros of both signs."""
    rng = np.random.default_rng(11)
    n = 2 * sorting.HALVES + 1
    exact = 256 if dtype == "bfloat16" else 1 << 15  # integers that the dtype holds
    if values == "permutation":
        a = rng.permutation(n) % exact
    elif values == "few":
        a = rng.integers(-min(500, exact // 2), min(500, exact // 2), n)
    else:
        a = rng.choice(np.array(pool(dtype), storage(dtype)), n)
    a = a.astype(storage(dtype))
    check_sorts(a, dtype, 0, descending)
    check_sorts(a[::-3], dtype, 0, descending)


@pytest.mark.parametrize("dtype, values", [
    ("float64", lambda rng, n: rng.standard_normal(n) * 1e6),  # every bit varies: 8 passes
    ("float32", lambda rng, n: rng.choice(np.array(_REALS, np.float32), n)),
    ("int32", lambda rng, n: rng.integers(-500, 500, n)),  # 10 bits: counted, or 1 pass
    ("int64", lambda rng, n: rng.integers(-2**63, 2**63 - 1, n) >> 20 << 20),  # low bits 0
    ("int64", lambda rng, n: rng.integers(-2**30, 2**30, n) << 3),  # 31 bits: packed positions
    ("uint16", lambda rng, n: np.full(n, 7)),  # one value: counted in one bucket
    ("float16", lambda rng, n: rng.standard_normal(n)),  # 16 bits: counted
])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_over_threads_match_stable_numpy(dtype, values, descending):
    rng = np.random.default_rng(7)
    n = 3 * (sorting.PARALLEL_BYTES // np.dtype(dtype).itemsize) // 2
    a = np.asarray(values(rng, n)).astype(dtype)
    if dtype in ("float64", "float16"):
        a[rng.integers(0, n, 100)] = np.array([np.nan, -np.nan, -0.0, 0.0])[rng.integers(0, 4, 100)]
    check_sorts(a, dtype, 0, descending)
    check_sorts(a[::-1], dtype, 0, descending)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint64"])
@pytest.mark.parametrize("n", [5, 700, 300_000])
@pytest.mark.parametrize("shape", ["ordered", "reversed", "one value", "ties", "last out",
                                   "one value but the last", "zeros of both signs"])
@pytest.mark.parametrize("descending", [False, True])
def test_rows_in_order_or_in_reverse(dtype, n, shape, descending):
    """Rows that are their own sort, or whose reverse is, are written without sorting them:
    NaNs, signed zeros and ties (which a reversal would swap) where a stable sort puts them,
    and rows that are in order but for their last element are sorted."""
    steps = np.arange(n) % {"int8": 120, "float16": 2000}.get(dtype, n)
    if shape.startswith("one value"):
        a = np.full(n, 3).astype(dtype)
        a[-1] = 2 if shape == "one value but the last" else 3
    elif shape == "zeros of both signs":  # one key, other bits
        a = np.where(np.arange(n) % 3 == 1, -0.0, 0.0).astype(dtype)
    else:
        a = np.sort(steps.astype(dtype))
        if shape == "ties":
            a = np.repeat(a[: (n + 1) // 2], 2)[:n]
        if dtype.startswith("float") and n > 5:
            a[-3:] = [-0.0, 0.0, np.nan] if shape == "ties" else np.nan
            a[:2] = [-np.inf, -0.0]
            a = np.sort(a, kind="stable")
        if shape == "reversed":
            a = a[::-1].copy()
        if shape == "last out":
            a[-1] = a[0]
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1 if n == 700 else sorting.PARALLEL_BYTES):
        check_sorts(a, dtype, 0, descending)
        check_sorts(a[::-1], dtype, 0, descending)


@settings(max_examples=60)
@given(st.sampled_from(["int32", "uint16", "float32", "float64"]),
       st.sampled_from(["ordered", "reversed", "one value"]),
       st.integers(1, 3 * sorting._BLOCK + 6), st.sampled_from(["tie", "rise", "fall", None]),
       st.booleans(), st.booleans())
def test_rows_almost_in_order_or_in_reverse(dtype, shape, changed, change, descending, long):
    """Rows of a few blocks of the order check, in order, in reverse or of one value, with one
    element made equal to the one before it, greater or less: the check settles each block
    before it writes it, and a reversed row from its end."""
    n = 3 * sorting._BLOCK + 7
    a = {"ordered": np.arange(n), "reversed": np.arange(n)[::-1],
         "one value": np.full(n, 5)}[shape] * 2 + 10
    if change is not None:
        a[changed] = a[changed - 1] + {"tie": 0, "rise": 1, "fall": -1}[change]
    a = a.astype(dtype)
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1 if long else sorting.PARALLEL_BYTES):
        check_sorts(a, dtype, 0, descending)


@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("shape", ["rises", "falls"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_whose_halves_are_in_order_but_not_across(dtype, shape, descending):
    """A long row is checked for order in pieces over the threads, each with the element before
    it: halves in order (or in reverse) that meet out of it are sorted."""
    n = 3 * (sorting.PARALLEL_BYTES // np.dtype(dtype).itemsize) // 2
    half = np.arange(n // 2)
    a = np.concatenate([half, half + (1 if shape == "rises" else -1) * n // 4])
    a = (a if shape == "rises" else a[::-1]).astype(dtype)
    check_sorts(a, dtype, 0, descending)
    check_sorts(a[1:], dtype, 0, descending)


@settings(max_examples=60)
@given(st.sampled_from(["int32", "uint16", "float32", "float64", "int64"]),
       st.sampled_from([300, 5000, 70_000]), st.integers(1, 2 * sorting._NEAR),
       st.integers(0, 30), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_nearly_sorted_rows_match_stable_numpy(dtype, n, width, areas, descending, long, seed):
    """Rows in order but for a few areas shuffled, with ties: sorted by insertion while their
    keys move few places, else (areas wider than the insertion's reach) by the radix sort,
    which then starts from what the insertion left; ``long`` rows take the threads' path,
    where each thread tries the insertion on half of the row."""
    rng = np.random.default_rng(seed)
    a = np.arange(n) // 3
    for start in rng.integers(0, n, areas):
        rng.shuffle(a[start:start + width])
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1 if long else sorting.PARALLEL_BYTES):
        check_sorts(a.astype(dtype), dtype, 0, descending)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_nearly_sorted_rows_are_merged_from_insertion_sorted_halves(dtype, descending):
    """A long row in the order sorted (or in reverse) but for areas of a hundred shuffled
    (NumPy's random_unsorted_area), with ties, and zeros of both signs and NaNs where they
    sort: each half sorted by insertion, then merged."""
    rng = np.random.default_rng(12)
    n = 3 * (sorting.PARALLEL_BYTES // np.dtype(dtype).itemsize) // 2
    a = (np.arange(n) // 2).astype(dtype)
    if dtype.startswith("float"):
        a[:2], a[-3:] = [-0.0, 0.0], [np.inf, np.nan, -np.nan]
    for start in rng.integers(0, n - 100, n // 1000):
        rng.shuffle(a[start:start + 100])
    a = a[::-1].copy() if descending else a
    merge = mock.Mock(wraps=sorting.merge_piece)
    with mock.patch.object(sorting, "merge_piece", merge):
        check_sorts(a, dtype, 0, descending)
    assert merge.called


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
@pytest.mark.parametrize("shift", [0, 1, sorting._SKIPPED - 1])
@pytest.mark.parametrize("long", [False, True])
def test_insertion_finds_each_fall_among_blocks_in_order(dtype, shift, long):
    """Rows in order but for keys that fall at the first or last place of a block of
    ``_SKIPPED`` that the insertion would pass over, each equal to a key some places before
    it: fewer than ``_WALKED`` (it walks there), or more (it is searched for). Every fall is
    found and ties keep their order, in rows sorted in halves and over the threads."""
    rng = np.random.default_rng(shift)
    n = (3 * (sorting.PARALLEL_BYTES // np.dtype(dtype).itemsize) // 2 if long
         else 3 * sorting.HALVES // 2) + 5
    a = np.arange(n) // 2
    blocks = rng.choice(np.arange(3, n // sorting._SKIPPED - 1), n // 2000, replace=False)
    for block, back in zip(blocks, rng.choice([1, 2, sorting._WALKED - 1, sorting._WALKED + 7,
                                               150], blocks.size)):
        place = block * sorting._SKIPPED + shift + 1
        a[place] = a[place - back]
    a = a.astype(dtype)
    check_sorts(a, dtype, 0, False)
    check_sorts(a[::-1], dtype, 0, True)


def test_insertion_takes_areas_crowded_at_a_rows_start():
    """Half of a row of NumPy's random_unsorted_area whose first 3000 keys hold twice the
    average of areas out of order (a 64K row drawn with seed 0) is sorted by insertion."""
    rng = np.random.default_rng(0)
    a = np.arange(1 << 16, dtype=np.uint32)
    for start in rng.integers(0, a.size - 100, a.size // 1000):
        rng.shuffle(a[start:start + 100])
    keys, done = a[:a.size // 2].copy(), np.zeros(1, np.uint8)
    sorting.near_piece(keys, sorting._NO_ORDER, 0, keys.size, done)
    assert done[0] == 1 and np.array_equal(keys, np.sort(a[:a.size // 2]))


@pytest.mark.parametrize("first_fails", [False, True])
def test_long_rows_of_64_bit_positions_after_a_failed_insertion(first_fails):
    """A long row of 64-bit keys that differ in more bits than leave room for positions, that
    falls rarely, whose insertion sort fails in the try on copies of the halves' starts (the
    positions are not written then), or after it, in the whole halves (the radix sort starts
    from the positions the insertion left)."""
    n = 160 if first_fails else 2 * sorting._PROBED + 200
    a = np.full(n, 1 << 40, np.int64)
    a[[117, n - 4, n - 3, n - 2, n - 1] if first_fails else [n - 50, n - 1]] = 0
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1):
        check_sorts(a, "int64", 0, False)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint64"])
@pytest.mark.parametrize("n", [700, 5000, 300_000])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_sorted_in_buckets(dtype, n, descending):
    """Values spread over the buckets of their top bits: the buckets' path, with buckets of a
    few keys (insertion) and of many (radix passes), duplicates and signed zeros."""
    rng = np.random.default_rng(n)
    if dtype.startswith("float"):
        a = (rng.random(n) * 2 - 1).astype(dtype)
        a[rng.integers(0, n, n // 50)] = rng.choice(np.array([-0.0, 0.0, 0.5], dtype), n // 50)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        a[rng.integers(0, n, n // 50)] = a[:n // 50]
    finish = mock.Mock(wraps=sorting.finish_piece)
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1), \
            mock.patch.object(sorting, "finish_piece", finish):
        check_sorts(a, dtype, 0, descending)
    assert finish.called


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
@pytest.mark.parametrize("data", ["blocks", "pairs", "random"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_whose_neighbours_share_buckets(dtype, data, descending):
    """Values whose neighbours mostly share a bucket (ascending runs that interleave, as
    NumPy's sorted blocks do, and a row in order but for swapped pairs too far apart for the
    insertion sort) are moved with their bucket's count in a register; random values are not."""
    n, rng = 5000, np.random.default_rng(9)
    steps = np.arange(n)
    if data == "blocks":
        a = steps[np.argsort(steps % 5, kind="stable")]
    elif data == "pairs":
        a = steps.copy()
        for x, y in rng.integers(0, n, (n // 100, 2)):
            a[x], a[y] = a[y], a[x]
    else:
        a = rng.permutation(n)
    scale = {"int32": 400_001, "uint64": 2 ** 40 + 1}.get(dtype, 0.37)  # keys of many bits
    a = (a * scale - (0 if dtype == "uint64" else n // 2 * scale)).astype(dtype)
    move = mock.Mock(wraps=sorting.move_piece)
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1), \
            mock.patch.object(sorting, "move_piece", move):
        check_sorts(a, dtype, 0, descending)
    assert {call.args[-1] for call in move.call_args_list} == {data != "random"}


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_short_rows_of_every_length_match_stable_numpy(dtype, descending):
    """Rows of every length up to past the radix sort's (a sorting network's values, where
    the target has AVX-512, in vectors partly filled; and a partition before it for the
    longest rows of 64-bit keys) sort as NumPy's stable sort does, with NaNs, both zeros and
    infinities."""
    rng = np.random.default_rng(5)
    for n in range(1, 260, 3):
        a = rng.integers(0, 40, (3, n)).astype(dtype)
        if dtype.startswith("float"):
            a = np.where(a == 1, np.nan, np.where(a == 2, -0.0, np.where(
                a == 3, -np.inf, np.where(a == 4, np.inf, a - 20)))).astype(dtype)
        check_sorts(a, dtype, 1, descending)


def test_sorting_kernels_ask_for_wide_vectors():
    """A kernel that calls ``wide_vectors`` asks LLVM for 512-bit vectors, which the x86-64-v4
    level would otherwise not use, and is never inlined into a caller without that wish; it
    still computes what it did."""
    from dlnumba._numba import njit
    from dlnumba.kernels.vectors import wide_vectors

    @njit
    def total(a):
        wide_vectors()
        s = 0
        for v in a:
            s += v
        return s

    assert total(np.arange(1000)) == 499500
    ir = next(iter(total.inspect_llvm().values()))
    definition = next(line for line in ir.splitlines()
                      if line.startswith("define") and "total" in line and "cpython" not in line)
    group = definition.rsplit("#", 1)[1].split()[0]  # the attributes are listed apart
    attributes = next(line for line in ir.splitlines() if line.startswith(f"attributes #{group} "))
    assert '"prefer-vector-width"="512"' in attributes and "noinline" in attributes


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_buckets_sorted_in_work_memory_and_in_place(dtype):
    """Buckets of fewer than twice ``_BUCKET`` keys are sorted in a thread's work memory, with
    room for the radix sort's gaps; a larger one (a value repeated) in place, in the room its
    bucket was given; both as NumPy sorts them."""
    rng = np.random.default_rng(12)
    a = rng.integers(-10 ** 6, 10 ** 6, 400_000).astype(dtype)
    a[rng.permutation(a.size)[:50_000]] = 7
    finish = mock.Mock(wraps=sorting.finish_piece)
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1), \
            mock.patch.object(sorting, "finish_piece", finish):
        check_sorts(a, dtype, 0, False)
        check_sorts(a, dtype, 0, True)
    sizes = np.diff(finish.call_args.args[2], prepend=0)
    assert sizes.max() >= 2 * sorting._BUCKET and (sizes < 2 * sorting._BUCKET).sum() > 8


def test_long_rows_of_a_few_crowded_buckets():
    """Keys that crowd one bucket (two thirds of them one value) fall back to the passes over
    the whole row; NaNs and infinities too."""
    a = np.random.default_rng(8).random(300_000)
    a[::3], a[1::3] = 0.25, 0.25
    a[:3] = [1e30, np.nan, -np.inf]
    finish = mock.Mock(wraps=sorting.finish_piece)
    with mock.patch.object(sorting, "PARALLEL_BYTES", 1), \
            mock.patch.object(sorting, "finish_piece", finish):
        check_sorts(a, "float64", 0, False)
        check_sorts(a.astype(np.float32), "float32", 0, True)
    assert not finish.called or sorting.THREADS == 1


def test_long_rows_with_one_thread():
    """A long row takes the threads' path with no engine threads at all, and a shorter one,
    sorted in halves where there are two threads, is sorted on the one."""
    code = ("import numpy as np, dlnumba as xp"
            "; a = np.random.default_rng(3).standard_normal(1 << 19); x = xp.asarray(a)"
            "; assert np.array_equal(np.from_dlpack(xp.sort(x[:1 << 16])), np.sort(a[:1 << 16]))"
            "; assert np.array_equal(np.from_dlpack(xp.sort(x)), np.sort(a))"
            "; assert np.array_equal(np.from_dlpack(xp.argsort(x)), np.argsort(a, kind='stable'))"
            "; b = a.astype(np.float32); b[::1000] = np.nan"
            "; assert np.array_equal(np.from_dlpack(xp.sort(xp.asarray(b))), np.sort(b),"
            " equal_nan=True)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=600, env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr


def test_results_are_new_c_contiguous_arrays():
    a = np.arange(12.0).reshape(3, 4)[:, ::-1]
    x = xp.asarray(a)
    for result in (xp.sort(x, axis=0), xp.argsort(x, axis=0)):
        assert result.shape == (3, 4)
        assert np.from_dlpack(result).flags.c_contiguous
    assert xp.sort(xp.asarray(np.zeros((0, 3))), axis=0).shape == (0, 3)
    assert xp.argsort(xp.asarray(np.zeros((2, 0))), axis=1).shape == (2, 0)


@pytest.mark.parametrize("call, error", [
    (lambda: xp.sort(np.arange(3)), TypeError),
    (lambda: xp.sort(xp.asarray([1, 2]), axis=1), IndexError),
    (lambda: xp.argsort(xp.asarray([1, 2]), axis=-2), IndexError),
    (lambda: xp.sort(xp.asarray([1, 2]), axis=0.0), TypeError),
    (lambda: xp.sort(xp.asarray(1.0)), IndexError),
    (lambda: xp.sort(xp.asarray([1, 2]), descending="yes"), TypeError),
    (lambda: xp.argsort(xp.asarray([1, 2]), stable=None), TypeError),
])
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("dtype", ["int32", "uint32", "float32", "int64", "float64"])
@pytest.mark.parametrize("n", [129, 200, 513, 1000, 4097, 70_000])
@pytest.mark.parametrize("values", ["full range", "least and greatest", "one value and a few",
                                    "special"])
@pytest.mark.parametrize("descending", [False, True])
def test_values_of_wide_keys_match_numpy(dtype, n, values, descending):
    """Values whose keys differ in many bits (quicksorted where the CPU has the vectors):
    lengths around the vectors' blocks, a pivot that is the least key, many keys equal to it,
    and NaNs, infinities and zeros of both signs."""
    rng = np.random.default_rng(n)
    if dtype.startswith("float"):
        a = (rng.standard_normal(n) * 1e6).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if values == "least and greatest":
        a = np.where(rng.random(n) < 0.5, a.min(), a.max()).astype(dtype)
    elif values == "one value and a few":
        a[rng.random(n) < 0.9] = a[0]
    elif values == "special":
        for value in (np.nan, np.inf, -np.inf, 0.0, -0.0) if dtype.startswith("float") else ():
            a[rng.integers(0, n, n // 10)] = value
    check_sorts(a, dtype, 0, descending)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64"])
@pytest.mark.parametrize("values", ["crowded at both ends", "one half narrow"])
@pytest.mark.parametrize("descending", [False, True])
def test_positions_of_keys_that_span_every_bit(dtype, values, descending):
    """argsort of rows sorted in halves whose 64-bit keys span every bit: the keys packed with
    positions keep only their top bits, and each run of keys equal in those is sorted again by
    the rest. Keys crowded near both ends of the span make long runs; a first half of keys that
    differ in a few bits is radix sorted before it is packed. Some values repeat, and keep
    their order."""
    rng = np.random.default_rng(5)
    n = 2 * sorting.HALVES + 7
    low = rng.integers(0, 1 << 20, n)
    ends = rng.random(n) < 0.5
    if values == "one half narrow":
        ends[:n // 2] = True
        low[n // 2:] = rng.integers(0, 1 << 62, n - n // 2)
    if dtype == "float64":
        a = np.where(ends, -1.0, 1.0) * (1.0 + low * 2.0 ** -52)
    else:
        info = np.iinfo(dtype)
        a = np.where(ends, np.array(info.min, dtype) + low.astype(dtype),
                     np.array(info.max, dtype) - low.astype(dtype))
    a[rng.integers(0, n, n // 10)] = a[0]
    check_sorts(a, dtype, 0, descending)
    check_sorts(a[::-2], dtype, 0, descending)


@pytest.mark.parametrize("dtype, values", [
    ("float32", lambda rng, n: rng.integers(-500, 500, n)),  # a thousand values: 17 bits
    ("int32", lambda rng, n: rng.integers(0, 1 << 18, n)),  # 18 bits, every value
])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_of_many_keys_per_value_are_counted(dtype, values, descending):
    """A row with at least eight keys per value its keys' bits can take is counted even where
    they differ in more than ``_COUNTED`` bits; NaNs and zeros of both signs are written back."""
    rng = np.random.default_rng(3)
    n = sorting._COUNTED_EACH << 18
    a = np.asarray(values(rng, n)).astype(dtype)
    if dtype == "float32":
        a[rng.integers(0, n, 100)] = np.array([np.nan, -0.0, 0.0], dtype)[rng.integers(0, 3, 100)]
    check_sorts(a, dtype, 0, descending)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [50, 5000, 70_000, "long"])
@pytest.mark.parametrize("nans", ["np.nan", "other bits"])
@pytest.mark.parametrize("descending", [False, True])
def test_nans_keep_their_bits(dtype, n, nans, descending):
    """Every NaN's key decodes to ``np.nan``'s bits; rows with other NaNs (negative, with a
    payload) get theirs back, in their order in the row, on every path (merged, radix sorted,
    in halves, over threads)."""
    if n == "long":
        n = 3 * (sorting.PARALLEL_BYTES // np.dtype(dtype).itemsize) // 2
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 100).astype(dtype)
    a[rng.random(n) < 0.1] = np.nan
    if nans == "other bits":
        bits = a.view(f"u{a.itemsize}")
        top = np.array(1 << (8 * a.itemsize - 1), bits.dtype)
        others = np.flatnonzero(np.isnan(a))[::3]
        bits[others] |= top  # -nan
        bits[others[::2]] += 1  # and a payload
    check_sorts(a, dtype, 0, descending)


@pytest.mark.skipif(not key_vectors.compresses(32), reason="the CPU lacks the quicksort's vectors")
@pytest.mark.parametrize("splits", [0, 1, 3])
@pytest.mark.parametrize("unit", [np.uint32, np.uint64])
def test_quicksort_falls_back_to_heapsort(splits, unit):
    """Ranges still long after their splits are heapsorted: the bound on any input's work."""
    keys = np.random.default_rng(splits).integers(0, 1 << 20, 3000).astype(unit)
    keys[::7] = 5
    expected = np.sort(keys)
    quicksort._quicksort(keys, np.empty_like(keys), keys.size, splits)
    assert np.array_equal(keys, expected)
