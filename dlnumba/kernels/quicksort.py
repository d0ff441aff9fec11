"""An unstable quicksort of unsigned keys in vectors (:mod:`.key_vectors`), for the sorts of
values, where equal keys are equal values and no order among them shows.

Each range of keys is partitioned in place around the median of a sample, a vector at a time
(:func:`_partition`); ranges of a few vectors' keys are sorted by a sorting network, and a range
that its partitions keep splitting unevenly by a heapsort, which bounds the work on any data.
A row sorted in halves on two threads is split around one pivot, each thread moving its half's
keys (:func:`split_part`), and each part of it is then sorted from two runs (:func:`sort_runs`).
"""

import numpy as np
from .._numba import njit, overload

from .key_vectors import compresses, partition_vector, sort_vectors
from .vectors import lanes as key_lanes

_LEAF = 16  # ranges of up to this many vectors' keys are sorted by the network
_UNROLL = 4  # vectors read from one side at once (one branch on the sides' room per block)


@njit(inline="always")
def _partition(keys, low, high, pivot, inclusive, stash, block):
    """Partition ``keys[low:high]`` (at least two blocks of ``block`` vectors) in place: the
    keys below ``pivot`` (or with ``inclusive`` not above it) first; return where the others
    start. The first and last blocks wait in ``stash``, which leaves room at both ends for
    whichever side is read next, the one with less room."""
    lanes = key_lanes(keys)
    width = block * lanes
    stash[:width] = keys[low:low + width]
    stash[width:2 * width] = keys[high - width:high]
    left, right = low, high
    read_left, read_right = low + width, high - width
    while (read_right - read_left) % width:
        count = min((read_right - read_left) % width, lanes)
        below = partition_vector(keys, read_left, count, pivot, inclusive, keys, left, right,
                                 False, False)
        left, right, read_left = left + below, right - (count - below), read_left + count
    while read_left < read_right:
        from_left = read_left - left <= right - read_right
        for v in range(block):  # from the right, downward: its writes may reach the block
            at = read_left + v * lanes if from_left else read_right - (v + 1) * lanes
            below = partition_vector(keys, at, lanes, pivot, inclusive, keys, left, right,
                                     True, False)  # past its keys below: read or free places
            left, right = left + below, right - (lanes - below)
        if from_left:
            read_left += width
        else:
            read_right -= width
    for v in range(2 * block):
        below = partition_vector(stash, v * lanes, lanes, pivot, inclusive, keys, left, right,
                                 False, False)
        left, right = left + below, right - (lanes - below)
    return left


@njit(inline="always")
def _pivot(keys, low, high, sample):
    """The median of a vector of keys spread over ``keys[low:high]``."""
    lanes = key_lanes(keys)
    step = (high - low) // lanes
    for k in range(lanes):
        sample[k] = keys[low + k * step + step // 2]
    sort_vectors(sample, 0, lanes, 1)
    return sample[lanes // 2]


@njit(inline="always")
def _sift(keys, low, root, n):
    """Move ``keys[low + root]`` down the max-heap of ``keys[low:low + n]``."""
    key = keys[low + root]
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and keys[low + child + 1] > keys[low + child]:
            child += 1
        if keys[low + child] <= key:
            break
        keys[low + root] = keys[low + child]
        root = child
    keys[low + root] = key


@njit(inline="always")
def _heapsort(keys, low, high):
    """Sort ``keys[low:high]`` in place by a heapsort."""
    n = high - low
    for root in range(n // 2 - 1, -1, -1):
        _sift(keys, low, root, n)
    for end in range(n - 1, 0, -1):
        keys[low], keys[low + end] = keys[low + end], keys[low]
        _sift(keys, low, 0, end)


@njit(inline="always")
def _sort_leaf(keys, low, high):
    """Sort ``keys[low:high]`` (at most ``_LEAF`` vectors' keys) by the fewest vectors that
    hold them."""
    lanes, n = key_lanes(keys), high - low
    if n <= lanes:
        sort_vectors(keys, low, n, 1)
    elif n <= 2 * lanes:
        sort_vectors(keys, low, n, 2)
    elif n <= 4 * lanes:
        sort_vectors(keys, low, n, 4)
    elif n <= 8 * lanes:
        sort_vectors(keys, low, n, 8)
    else:
        sort_vectors(keys, low, n, 16)


@njit(nogil=True)
def _quicksort(keys, spare, n, splits):
    """Sort ``keys[:n]`` in place (``spare``: room for ``2 * _UNROLL`` vectors of keys), a
    range that is split ``splits`` times and still long by a heapsort."""
    lanes = key_lanes(keys)
    pending = np.empty((64, 3), np.int64)  # ranges waiting, the larger part of each split
    pending[0, 0], pending[0, 1], pending[0, 2] = 0, n, splits
    waiting = 1
    while waiting:
        waiting -= 1
        low, high, splits = pending[waiting, 0], pending[waiting, 1], pending[waiting, 2]
        while high - low > _LEAF * lanes:
            if splits == 0:
                _heapsort(keys, low, high)
                low = high
                break
            splits -= 1
            pivot = _pivot(keys, low, high, spare)
            block = _UNROLL if high - low >= 4 * _UNROLL * lanes else 1
            middle = _partition(keys, low, high, pivot, False, spare, block)
            if middle == low:  # the pivot is the least key: its equals are in place
                low = _partition(keys, low, high, pivot, True, spare, block)
                continue
            if middle - low < high - middle:
                pending[waiting, 0], pending[waiting, 1] = middle, high
                low, high = low, middle
            else:
                pending[waiting, 0], pending[waiting, 1] = low, middle
                low = middle
            pending[waiting, 2] = splits
            waiting += 1
        if high > low:
            _sort_leaf(keys, low, high)


@njit(inline="always")
def _quicksort_range(keys, spare, n):
    """Sort ``keys[:n]`` in place (see :func:`quicksort`)."""
    if n <= _LEAF * key_lanes(keys):
        _sort_leaf(keys, 0, n)
        return
    bits = 0
    while n >> bits:
        bits += 1
    _quicksort(keys, spare, n, 2 * bits)  # twice the splits of even ones


@njit(inline="always")
def _split_pivot(sample, ties):
    """The pivot of a split of keys at the median of ``sample`` (two vectors of them, sorted
    here), and whether keys equal to it go below it: where the least of the sample is equal
    to the median, else keys below it might be too few. Keys equal but in the bits ``ties``
    fall on one side."""
    lanes = key_lanes(sample)
    sort_vectors(sample, 0, 2 * lanes, 2)
    median = sample[lanes]
    inclusive = sample[0] ^ median <= ties
    return (median | ties if inclusive else median & ~ties), inclusive


@njit(inline="always")
def _split_part(keys, count, pivot, inclusive, dst, low, high, above_first):
    """Partition ``keys[:count]`` into ``dst[low:high]`` (``count`` places) around ``pivot``:
    the keys below it (or with ``inclusive`` not above it) first, or with ``above_first``
    last; return how many were below."""
    lanes, below = key_lanes(keys), 0
    for at in range(0, count, lanes):
        width = min(lanes, count - at)
        if above_first:
            part = partition_vector(keys, at, width, pivot, inclusive, dst, low, high, False,
                                    True)
            low, high = low + width - part, high - part
        else:
            part = partition_vector(keys, at, width, pivot, inclusive, dst, low, high, False,
                                    False)
            low, high = low + part, high - (width - part)
        below += part
    return below


@njit(inline="always")
def _sort_runs(src, first, first_end, second, second_end, dst, t, ties, spare):
    """Sort the keys of ``src[first:first_end]`` and ``src[second:second_end]`` together into
    ``dst`` from place ``t``: the quicksort's first split, around the median of a sample of
    both, moves them there, then each side is quicksorted (``ties`` as for
    :func:`_split_pivot`, ``spare`` as for :func:`quicksort`)."""
    lanes, first_n = key_lanes(src), first_end - first
    n = first_n + second_end - second
    if n == 0:
        return
    sample = np.empty(2 * lanes, src.dtype)
    for j in range(2 * lanes):
        i = (2 * j + 1) * n // (4 * lanes)
        sample[j] = src[first + i] if i < first_n else src[second + i - first_n]
    pivot, inclusive = _split_pivot(sample, ties)
    below = _split_part(src[first:], first_n, pivot, inclusive, dst, t, t + n, False)
    below += _split_part(src[second:], n - first_n, pivot, inclusive, dst, t + below,
                         t + n - (first_n - below), False)
    for low, high in ((t, t + below), (t + below, t + n)):
        _quicksort_range(dst[low:high], spare, high - low)


def quicksorts(keys):
    """Whether :func:`quicksort` sorts ``keys`` on this target (compiled only)."""


@overload(quicksorts)
def _quicksorts_overload(keys):
    sorts = compresses(keys.dtype.bitwidth)
    return lambda keys: sorts


def quicksort(keys, spare, n):
    """Sort ``keys[:n]`` in place where :func:`quicksorts` (compiled only); a range of up to
    ``_LEAF`` vectors' keys, as a short row is, by the sorting network alone."""


@overload(quicksort)
def _quicksort_overload(keys, spare, n):
    if not compresses(keys.dtype.bitwidth):
        return lambda keys, spare, n: None

    return lambda keys, spare, n: _quicksort_range(keys, spare, n)


def split_pivot(sample, ties):
    """:func:`_split_pivot` where :func:`quicksorts` (compiled only)."""


@overload(split_pivot)
def _split_pivot_overload(sample, ties):
    if not compresses(sample.dtype.bitwidth):
        return lambda sample, ties: (sample[0], False)
    return lambda sample, ties: _split_pivot(sample, ties)


def split_part(keys, count, pivot, inclusive, dst, low, high, above_first):
    """:func:`_split_part` where :func:`quicksorts` (compiled only)."""


@overload(split_part)
def _split_part_overload(keys, count, pivot, inclusive, dst, low, high, above_first):
    if not compresses(keys.dtype.bitwidth):
        return lambda keys, count, pivot, inclusive, dst, low, high, above_first: 0
    return lambda keys, count, pivot, inclusive, dst, low, high, above_first: _split_part(
        keys, count, pivot, inclusive, dst, low, high, above_first)


def sort_runs(src, first, first_end, second, second_end, dst, t, ties, spare):
    """:func:`_sort_runs` where :func:`quicksorts` (compiled only)."""


@overload(sort_runs)
def _sort_runs_overload(src, first, first_end, second, second_end, dst, t, ties, spare):
    if not compresses(src.dtype.bitwidth):
        return lambda src, first, first_end, second, second_end, dst, t, ties, spare: None
    return lambda src, first, first_end, second, second_end, dst, t, ties, spare: _sort_runs(
        src, first, first_end, second, second_end, dst, t, ties, spare)
