"""Sorting kernels: rows sorted stably on order-preserving integer keys (an LSD radix sort on
the bits where the keys differ for long rows, a merge sort for short ones, whose values go to
the quicksort's sorting network where the CPU has AVX-512; one long real row is
sorted over the engine's threads, its values by counting where few bits of their keys differ,
else in buckets of their top bits, see :func:`sort_row`, and a shorter one in two halves, one
per thread, then merged, see :func:`sort_in_halves`), and the searches that use the same order.
A real row whose keys never fall, or always fall, is copied in its order or reversed; one
whose keys rarely fall is first tried by an insertion sort that stops when keys move far. Where
the CPU has AVX-512, keys of values that differ in more bits than two radix passes cover (in a
row sorted in halves, see :func:`_split_rather`) are quicksorted in vectors
(:mod:`.quicksort`): equal keys are equal values, so the result is the stable sort's. So are
the positions of such a row of 64-bit keys, packed below the keys' top bits (runs equal in
those are sorted again by the rest, see :func:`_packing`).

Every element becomes an unsigned key of its own width whose integer order is the sort order:
unsigned integers as they are, signed ones with the sign bit flipped, IEEE floats (float16,
bfloat16, float32, float64) with the sign bit set on positives and negatives negated (which
keeps the zero bits at the end of both). Every NaN gets the key of ``np.nan`` (the positive
quiet NaN with no payload), above +inf's, and both zeros the key of +0, so NaNs sort last
(first when descending, where keys are inverted) and equal values keep their order: both sorts
are stable. A sorted row of values is decoded from its keys; where the row has other NaNs or a
-0, whose keys lost their bits, those are then written again in the order they have in the
row. Complex numbers have three keys, compared in turn as NumPy orders them: which parts are
NaN (none, imaginary, real, both), the real part, the imaginary part; a complex row is sorted
by positions.

Layouts follow the copy engine: the dimensions other than the sorted one are a plan (``shape``,
two strides arrays, at least 2-D) walked with a runtime number of dimensions; the sorted axis is
a length and a stride per side. What compiles is chosen by the storage unit (``unit``, an empty
uint8/16/32/64 array: four cover every dtype), the kernel (:func:`sort_rows` for values,
:func:`order_rows` for positions) and whether rows are long enough for a radix sort; how bits
become keys is runtime data (``codec``, see :func:`key_layout`). The passes of :func:`sort_row`
compile per unit of the keys they move: the row's own, or uint64 for positions packed with keys
of up to 32 bits, or with 64-bit keys that differ in at most 32 (:func:`pack_piece`).
"""

import functools

import numpy as np
from .._numba import carray, njit, overload, types

from .. import _dtypes
from .._layout import size_of
from .._memory import ALIGNMENT, POOLED_BYTES, allocate_host as allocate, numpy_view
from ..shared.conversions import reinterpret
from ..shared.plan import make_plan
from ..shared.tags import UNITS
from .threads import (PARALLEL_BYTES, PIECE, RUNNER_WORDS, THREADS, WORD, pieces_state,
                      rows_apart, run_in_parallel, run_pieces)
from .quicksort import quicksort, quicksorts, sort_runs, split_part, split_pivot
from .transfer import _typed_pointer
from .vectors import lanes, wide_vectors
from .walk import Direct, advance, compile_run, entry_point, odometer

_SMALL = 16  # merge sorts start from runs this long, sorted by insertion
# Rows of this many elements per byte of their keys are radix sorted (measured crossovers with
# merging: 32 uint8, 64 int16, 128 int32, 256 float64).
_RADIX = 32
_NO_ORDER = np.empty(0, np.int64)  # a sort of values sorts its keys without positions
_TALLIES = np.empty(0, np.uint64)  # the type of a radix sort's counts
_POSITION = _NO_ORDER.dtype
# Radix sorts move keys by digits of at most 9 bits (wider digits' counts leave the cache), or
# by one of up to 10 bits where that saves a pass (measured).
_DIGIT, _ONE_PASS = 9, 10
# Radix passes over rows of _GAPPED keys or more leave _GAP places after each digit's keys:
# their work arrays have room for them (shorter rows' digits are too close to share cache
# sets, and their runs too short to read one by one).
_GAP, _GAPPED = 8, 1 << 14
_COUNTED_ROOM = 2 << _ONE_PASS  # a radix sort's counts: the digits' counts and ends
_QUICKSORTED = 2 * _DIGIT  # keys of values that differ in more bits are quicksorted where
# the target can (see .quicksort), values that take fewer radix passes are radix sorted
# A long row of values whose keys differ in _COUNTED bits or fewer is counted, and so is one
# with at least _COUNTED_EACH keys per value its keys can take (their counts then stay cached).
_COUNTED, _COUNTED_EACH = 16, 8
# Other long rows of values are first split into buckets of about _BUCKET keys, runs of the
# values of their top _PREFIX bits, which are then sorted in the cache, buckets of _FEW keys
# or fewer by insertion. Each bucket is followed by at least _SPACED free places, an odd number:
# buckets of equal counts would start a power of two apart, in the same cache sets, and with a
# whole cache line between them still at the same place in their lines and pages.
_PREFIX, _BUCKET, _FEW, _SPACED = 16, 16384, 32, 33
# Buckets of fewer than 2 * _BUCKET keys are sorted in a thread's work memory, which has room
# for them and their radix sort's gaps: without gaps its passes would write to digits a
# power of two apart, in the same cache sets.
_HELD = 2 * _BUCKET + (_GAP << _ONE_PASS)
_SAMPLED = 4096  # keys looked at to tell whether the row's neighbours share buckets
HALVES = 1 << 15  # a row of this many elements or more is sorted in halves on two threads
# Rows that are nearly sorted, as is data with a few areas out of order, are sorted by
# insertion, which stops when a key moves farther than _NEAR places or the keys so far have
# moved more than _NEAR_MOVES places each, with some more for the first ones (see _insertion).
# The first _NEAR_SLACK keys (at most an eighth of the row) may move that much more: areas out
# of order crowd a row's start by chance.
_NEAR, _NEAR_MOVES, _NEAR_SLACK = 1024, 4, 4096
_SEARCHED = 128  # an insertion finds a key's place among so many keys before it by bisection
_SKIPPED = 64  # and passes over blocks of so many keys in order at once
# A key whose place is among so many keys before it walks there: one mispredicted branch costs
# less than the bisection and a vector move, on rows whose falls the predictor has not learnt.
_WALKED = 64
_PROBED = 1 << 15  # a long row sorted with positions first tries the insertion on so many keys
_FALLS = 8  # long rows whose keys fall below the one before at most once in this many try it
_BLOCK = 4096  # rows are checked for order, and written when in order, in blocks this long
_CHUNK = 1024  # keys packed at a time for a split: they stay in the first-level cache


@njit(inline="always")
def _top(unit):
    """The sign bit of an array's items, as a uint64."""
    return np.uint64(1) << np.uint64(unit.itemsize * 8 - 1)


@njit(inline="always")
def _nan_key(infinity, top):
    """The key of every NaN (``infinity``: a codec's largest magnitude that is not NaN): that of
    ``np.nan``, the positive quiet NaN with no payload, which is what it decodes to; above
    +inf's (integers have no NaN)."""
    return infinity | (infinity & (np.uint64(0) - infinity)) >> np.uint64(1) | top


@njit(inline="always")
def _encode(bits, codec, top):
    """The key of the stored bits ``bits`` (a uint64; ``top`` is the unit's sign bit). Every
    branch is on data: a runtime kind would make LLVM copy loops."""
    infinity, positive, negative, zero_bits, zero_key, negated = codec
    if bits & ~top > infinity:
        return _nan_key(infinity, top)
    if bits & zero_bits == 0:
        return zero_key
    sign = bits & top  # two selects, not one of two sums: that vectorizes
    return (bits ^ (negative if sign else positive)) + (negated if sign else np.uint64(0))


@njit(inline="always")
def _decode(key, codec, top):
    """The stored bits of an (ascending) key; NaNs and zeros come out as one canonical form.
    Branchless: the signs of random data would mispredict."""
    _, positive, negative, _, _, negated = codec
    upper = np.uint64(0) - np.uint64(key >= top)
    return (key - (negated & ~upper)) ^ negative ^ ((positive ^ negative) & upper)


@njit(inline="always")
def _special(bits, codec, top):
    """Whether the element of stored bits ``bits`` (a uint64) is a NaN other than ``np.nan`` or
    a zero that is not +0, whose key loses its bits (see :func:`_refill`)."""
    nan = (bits & ~top > codec[0]) & (bits != _nan_key(codec[0], top) ^ top)
    return nan | ((bits & codec[3] == 0) & (bits != 0))


@njit(inline="always")
def _encode_keys(src, s, step, low, high, unit, keys, packed, codec, flip):
    """Write the keys of elements ``low`` to ``high`` of a real row of ``unit`` items at
    ``src[s]`` (``step`` apart; ``flip`` as for :func:`encode_piece`) to ``keys[:high - low]``,
    or with ``packed`` each key shifted into the upper half of a uint64 and its position in the
    lower half. Return whether some element is special (:func:`_special`), the least and the
    greatest key, the bits in which some key differs from the first one, that first key, and
    how many keys are less than the one before them. A contiguous row has a loop of its own,
    which LLVM vectorizes, and one for integers, whose keys are their bits xor-ed (as
    :func:`_encode` gives them, without its branches on the data); no branch is on the data."""
    top = _top(unit)
    first = _encode(np.uint64(src[s + low * step]), codec, top) ^ flip
    least, greatest, varying, special, falls = first, first, np.uint64(0), False, 0
    start, before = s + low * step, first
    if step == 1 and codec[1] == codec[2]:
        shift = codec[1] ^ flip
        for i in range(np.uint64(high - low)):
            key = np.uint64(src[np.uint64(start) + i]) ^ shift
            keys[i] = key << np.uint64(32) | np.uint64(low) + i if packed else key
            least, greatest, varying = min(least, key), max(greatest, key), varying | (key ^ first)
            falls, before = falls + (key < before), key
    elif step == 1:
        for i in range(high - low):
            bits = np.uint64(src[start + i])
            special |= _special(bits, codec, top)
            key = _encode(bits, codec, top) ^ flip
            keys[np.uint64(i)] = key << np.uint64(32) | np.uint64(low + i) if packed else key
            least, greatest, varying = min(least, key), max(greatest, key), varying | (key ^ first)
            falls, before = falls + (key < before), key
    else:
        for i in range(high - low):
            bits = np.uint64(src[start + i * step])
            special |= _special(bits, codec, top)
            key = _encode(bits, codec, top) ^ flip
            keys[np.uint64(i)] = key << np.uint64(32) | np.uint64(low + i) if packed else key
            least, greatest, varying = min(least, key), max(greatest, key), varying | (key ^ first)
            falls, before = falls + (key < before), key
    return special, least, greatest, varying, first, falls


@njit(inline="always")
def _digit(key, least, shift, mask):
    """A key's digit, unsigned: Numba checks signed indices for wrapping around, which slowed
    the passes of :func:`sort_row`."""
    return ((np.uint64(key) - least) >> shift) & mask


@njit(inline="always")
def _passes(bits):
    """How many passes a radix sort makes over keys that differ in ``bits`` bits."""
    return 1 if bits <= _ONE_PASS else (bits + _DIGIT - 1) // _DIGIT


@njit(nogil=True)
def _radix(keys, order, spare_keys, spare_order, n, least, low_bit, bits, counts, gap):
    """Stable LSD radix sort of ``keys[:n]`` (and ``order`` alongside unless it is empty) on
    the ``bits`` bits of ``key - least`` from ``low_bit`` on, where the keys differ; returns
    whether the result is in the spares. Each pass leaves ``gap`` places after each digit's
    keys, which the arrays have room for (``n + gap << _ONE_PASS``): digits of equal counts,
    as in a permutation, would otherwise start a power of two apart, in the same cache sets.
    The next pass reads the digits' runs one by one, and with gaps the result is then moved
    back to ``keys`` without them. ``counts`` (uint64) has room for ``_COUNTED_ROOM``
    numbers. Indices are unsigned (see :func:`_digit`)."""
    wide_vectors()
    with_order = order.size > 0
    result_keys, result_order = keys, order
    passes = _passes(bits)
    digit = (bits + passes - 1) // passes
    buckets = np.uint64(1) << np.uint64(digit)
    mask, one, space = buckets - np.uint64(1), np.uint64(1), np.uint64(gap)
    ends = counts[np.uint64(1) << np.uint64(_ONE_PASS):]  # where the last pass put each digit
    ends[0], runs = np.uint64(n), np.uint64(1)
    for p in range(passes):
        shift = np.uint64(low_bit + p * digit)
        for b in range(buckets):
            counts[b] = 0
        start = np.uint64(0)
        for run in range(runs):
            for i in range(start, ends[run]):
                counts[_digit(keys[i], least, shift, mask)] += one
            start = ends[run] + space
        total = np.uint64(0)
        for b in range(buckets):
            total, counts[b] = total + counts[b] + space, total
        start = np.uint64(0)
        for run in range(runs):
            for i in range(start, ends[run]):
                key = keys[i]  # once: the count's store might alias it for LLVM
                d = _digit(key, least, shift, mask)
                o = counts[d]
                counts[d] = o + one
                spare_keys[o] = key
                if with_order:
                    spare_order[o] = order[i]
            start = ends[run] + space
        if gap:  # else the digits' runs make one
            for b in range(buckets):
                ends[b] = counts[b]
            runs = buckets
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    if gap == 0:
        return passes % 2 == 1
    start, place = np.uint64(0), np.uint64(0)
    for run in range(runs):  # back to the arrays given, without the gaps
        for i in range(start, ends[run]):
            result_keys[place] = keys[i]
            if with_order:
                result_order[place] = order[i]
            place += one
        start = ends[run] + space
    return False


@njit(inline="always")
def _insertion(keys, order, low, high, reach, allowance, slack):
    """Stable insertion sort of ``keys[low:high]`` (and ``order`` alongside unless it is
    empty), in place, while no key moves more than ``reach`` places and the keys up to the
    ``i``-th one from ``low`` have moved no more than ``allowance * (i + slack)`` places in
    all; returns whether it sorted them (else they are still a permutation that keeps equal
    keys in order). Blocks of ``_SKIPPED`` keys in order are passed over by a count of their
    falls that LLVM vectorizes. A key whose place is among the ``_WALKED`` keys before it walks
    there, moving them one by one. Farther, its place is found first, by a binary search
    without branches among the ``_SEARCHED`` keys before it, farther one by one; then the keys
    after it move in a loop that LLVM vectorizes (unsigned indices: a signed one's wraparound
    check stops it)."""
    with_order = order.size > 0
    moves, one, first, far = 0, np.uint64(1), np.uint64(low), np.uint64(reach)
    start, end, skipped = first + one, np.uint64(high), np.uint64(_SKIPPED)
    walked = np.uint64(_WALKED)
    while start < end:
        block_end = min(start + skipped, end)
        falls = 0
        for m in range(start, block_end):
            falls += keys[m] < keys[m - one]
        if not falls:
            start = block_end
            continue
        for i in range(start, block_end):
            key = keys[i]
            if keys[i - one] <= key:
                continue
            position = order[i] if with_order else 0
            if i >= first + walked and keys[i - walked] <= key:
                j = i
                while keys[j - one] > key:
                    keys[j] = keys[j - one]
                    j -= one
            else:
                base = i - np.uint64(_SEARCHED) if i >= first + np.uint64(_SEARCHED) else first
                if keys[base] > key:  # the place of key: after the last key not above it
                    j = base
                    while j > first and keys[j - one] > key and i - j < far:
                        j -= one
                else:
                    span = i - base
                    while span > one:
                        half = span >> one
                        base += half * np.uint64(keys[base + half] <= key)  # no branch
                        span -= half
                    j = base + one
                for m in range(i - j):
                    keys[i - m] = keys[i - m - one]
            if with_order:
                for m in range(i - j):
                    order[i - m] = order[i - m - one]
                order[j] = position
            keys[j] = key
            moves += np.int64(i - j)
            if i - j >= far or moves > allowance * (np.int64(i - first) + slack):
                return False
        start = block_end
    return True


@njit(inline="always")
def _insert_few(keys, order, low, high):
    """Stable insertion sort of the few keys ``keys[low:high]`` (and ``order`` alongside unless
    it is empty), in place: each key walks back past the greater ones before it (unsigned
    indices, which Numba does not check for wrapping around)."""
    with_order = order.size > 0
    first, one = np.uint64(low), np.uint64(1)
    for i in range(first + one, np.uint64(high)):
        key, j = keys[i], i
        position = order[i] if with_order else 0
        while j > first and keys[j - one] > key:
            keys[j] = keys[j - one]
            if with_order:
                order[j] = order[j - one]
            j -= one
        keys[j] = key
        if with_order:
            order[j] = position


@njit(nogil=True)
def _merge_sort(keys, order, spare_keys, spare_order, n):
    """Stable merge sort of ``keys[:n]`` (and ``order`` alongside unless it is empty): runs of
    ``_SMALL`` sorted by insertion, then merged pairwise; returns whether the result is in the
    spares."""
    wide_vectors()
    with_order = order.size > 0
    for low in range(0, n, _SMALL):
        _insert_few(keys, order, low, min(low + _SMALL, n))
    swapped = False
    width = _SMALL
    while width < n:
        for low in range(0, n, 2 * width):
            middle, high = min(low + width, n), min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):
                if j >= high or (i < middle and keys[i] <= keys[j]):
                    spare_keys[k] = keys[i]
                    if with_order:
                        spare_order[k] = order[i]
                    i += 1
                else:
                    spare_keys[k] = keys[j]
                    if with_order:
                        spare_order[k] = order[j]
                    j += 1
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
        swapped = not swapped
        width *= 2
    return swapped


@njit(inline="always")
def _bit_length(value):
    """The number of bits of a uint64 up to its highest set one."""
    length = 0
    while value:
        value >>= np.uint64(1)
        length += 1
    return length


@njit(inline="always")
def _span(least, greatest, varying):
    """The lowest bit where keys from ``least`` to ``greatest`` differ (``varying``: the bits in
    which some differs from another) and how many bits from it up they span (0 and 0 where all
    are equal)."""
    if varying == 0:
        return 0, 0
    low_bit = _bit_length(varying & (np.uint64(0) - varying)) - 1
    return low_bit, _bit_length((greatest - least) >> np.uint64(low_bit))


@njit(inline="always")
def _spread(keys, n):
    """The least of ``keys[:n]``, the lowest bit where two of them differ and how many bits
    from it up they span (see :func:`_span`)."""
    first = np.uint64(keys[0])
    least, greatest, varying = first, first, np.uint64(0)
    for i in range(n):
        key = np.uint64(keys[i])
        least, greatest, varying = min(least, key), max(greatest, key), varying | (key ^ first)
    return (least, *_span(least, greatest, varying))


@njit(inline="always")
def _near(keys, order, low, high):
    """Try the insertion sort of ``keys[low:high]`` of a nearly sorted row (see ``_NEAR``);
    return whether it did."""
    return _insertion(keys, order, low, high, _NEAR, _NEAR_MOVES,
                      min(_NEAR_SLACK, (high - low) // 8))


@njit(nogil=True)
def _sort_keys(keys, order, spare_keys, spare_order, n, counts, near):
    """Sort ``keys[:n]`` stably (``order`` alongside unless it is empty, with as much room as
    ``keys``); returns whether the result is in the spares. Rows of ``_RADIX`` elements per
    key byte or more are radix sorted in ``counts``'s buckets, on the bits where their keys
    differ, with ``_GAP`` places between digits where the arrays have room for them (see
    :func:`_radix`), unless ``near`` asks to try an insertion sort first, which sorts rows that
    are nearly sorted (see ``_NEAR``); shorter ones, which pass ``counts`` None, are merge
    sorted, and then the radix sort is not even compiled; or without an order, where the
    target can, quicksorted (their sorting network: equal keys are equal values)."""
    wide_vectors()
    if counts is None:
        if not order.size and quicksorts(keys):
            quicksort(keys, spare_keys, n)
            return False
        return _merge_sort(keys, order, spare_keys, spare_order, n)
    if near and _near(keys, order, 0, n):
        return False
    least, low_bit, bits = _spread(keys, n)
    if not order.size and bits > _QUICKSORTED and quicksorts(keys):
        quicksort(keys, spare_keys, n)
        return False
    return _radix_keys(keys, order, spare_keys, spare_order, n, counts, least, low_bit, bits)


@njit(inline="always")
def _radix_keys(keys, order, spare_keys, spare_order, n, counts, least, low_bit, bits):
    """:func:`_radix` of ``keys[:n]`` whose :func:`_spread` is ``least, low_bit, bits`` (none
    where they are all equal), with gaps where the arrays have room; returns whether the result
    is in the spares."""
    if bits == 0:
        return False
    gapped = min(keys.size, spare_keys.size) >= n + (_GAP << _ONE_PASS)
    return _radix(keys, order, spare_keys, spare_order, n, least, low_bit, bits, counts,
                  _GAP if gapped else 0)


def _signed_key(bits, shift):
    """``bits ^ shift`` read as a signed integer of the width of ``bits`` (compiled only)."""


@overload(_signed_key, inline="always")
def _signed_key_overload(bits, shift):
    unsigned = types.Integer.from_bitwidth(bits.bitwidth, signed=False)
    signed = types.Integer.from_bitwidth(bits.bitwidth, signed=True)
    return lambda bits, shift: signed(bits ^ unsigned(shift))


@njit(inline="always")
def _changes(src, s, step, start, end, codec, flip, top):
    """Whether some key of a row rises, and whether one falls, from the element before
    ``start`` to the one before ``end``: a count of the falls, in a loop without an exit,
    which LLVM vectorizes."""
    falls = 0
    if codec[1] == codec[2]:  # integers: their keys order as their bits xor-ed, read signed
        shift = codec[1] ^ top ^ flip
        for i in range(start, end):
            falls += _signed_key(src[s + i * step], shift) < _signed_key(
                src[s + (i - 1) * step], shift)
    elif flip:  # NaNs first
        for i in range(start, end):
            before = _as_float(src[s + (i - 1) * step], codec[0], top)
            rises = (before != before) | (_as_float(src[s + i * step], codec[0], top) <= before)
            falls += not rises
    else:
        for i in range(start, end):
            key = _as_float(src[s + i * step], codec[0], top)
            rises = (key != key) | (key >= _as_float(src[s + (i - 1) * step], codec[0], top))
            falls += not rises
    return falls < end - start, falls > 0


def _as_float(bits, infinity, top):
    """A float that orders as the float of stored bits ``bits`` (``infinity`` its largest
    magnitude that is not NaN, ``top`` its sign bit) does, NaNs after every number (compiled
    only): the float32 or float64 itself, compared as floats in lanes of their width; for
    16-bit floats a float32 of their magnitude, negated for negatives, or of 2**20 for NaNs
    (arithmetic, not branches: LLVM vectorizes the loops that call it)."""


@overload(_as_float, inline="always")
def _as_float_overload(bits, infinity, top):
    if bits.bitwidth <= 16:  # 8 bits: compiled for integer keys, never run
        def as_float(bits, infinity, top):
            magnitude = np.int64(np.uint64(bits) & ~top)
            sign = np.int64(0) - np.int64(np.uint64(bits) & top != 0)
            nan = np.int64(magnitude > np.int64(infinity))
            return np.float32(((magnitude ^ sign) - sign) * (1 - nan) + (nan << 20))
        return as_float
    kind = np.float32 if bits.bitwidth == 32 else np.float64
    return lambda bits, infinity, top: reinterpret(bits, kind)


@njit(inline="always")
def _write_block(src, s, src_step, dst, t, dst_step, n, start, end, direction, positions,
                 origin):
    """Write places ``start`` to ``end`` of the sort of a real row of ``n`` elements that is
    the row itself (``direction`` 1) or its reverse (-1): values, or with ``positions`` the
    positions of the row's elements, counted from ``origin``; a loop for each case, which LLVM
    vectorizes."""
    last = n - 1 if direction < 0 else 0
    if positions:
        for j in range(start, end):
            dst[t + j * dst_step] = origin + last + direction * j
    elif direction > 0:
        for j in range(start, end):
            dst[t + j * dst_step] = src[s + j * src_step]
    else:
        for j in range(start, end):
            dst[t + j * dst_step] = src[s + (last - j) * src_step]


@njit(inline="always")
def _write_if_ordered(src, s, src_step, dst, t, dst_step, n, codec, flip, top, positions,
                      back, origin):
    """Write the sort of a real row of ``n`` elements whose keys never fall (the row is its own
    stable sort; return 1) or always fall (its reverse is, written from ``back`` in ``dst``
    rather than ``t``; return -1), as :func:`_write_block` does; else return 0, with some of
    ``dst`` written. Each block of ``_BLOCK`` elements is checked, then written while it is in
    the cache: from the row's start, or where the first block falls, from its end, so that the
    result is written in order. A row's first blocks of one value, as their bits show, are
    checked without their keys, and after the first block, written as they are checked."""
    first = src[s]
    uniform = rising = falling = True
    for start in range(0, n, _BLOCK):
        end = min(start + _BLOCK, n)
        written = uniform and start > 0  # after a first block of one value, none falls
        if uniform:
            differ = first ^ first
            if not written:
                for i in range(start, end):
                    differ |= src[s + i * src_step] ^ first
            elif positions:  # written as it is checked
                for i in range(start, end):
                    differ |= src[s + i * src_step] ^ first
                    dst[t + i * dst_step] = origin + i
            else:
                for i in range(start, end):
                    value = src[s + i * src_step]
                    differ |= value ^ first
                    dst[t + i * dst_step] = value
            uniform = differ == 0
            falling &= uniform and end == 1 or not uniform and start == 0
        if not uniform:
            ups, downs = _changes(src, s, src_step, max(start, 1), end, codec, flip, top)
            rising &= not downs
            falling &= not ups
            if not (rising or falling):
                return 0
        if not rising:
            break
        if not (written and uniform):
            _write_block(src, s, src_step, dst, t, dst_step, n, start, end, 1, positions,
                         origin)
    if rising:
        return 1
    for start in range((n - 1) // _BLOCK * _BLOCK, -1, -_BLOCK):  # the first block falls
        end = min(start + _BLOCK, n)
        if start and _changes(src, s, src_step, start, end, codec, flip, top)[0]:
            return 0
        _write_block(src, s, src_step, dst, back, dst_step, n, n - end, n - start, -1,
                     positions, origin)
    return -1


@njit(nogil=True)
def _sort_values(src, s, src_step, dst, t, dst_step, n, codec, flip, keys, spare, no_order,
                 counts):
    """Write the sorted values of one real row (its keys sorted without an order)."""
    wide_vectors()
    top = _top(keys)
    if _write_if_ordered(src, s, src_step, dst, t, dst_step, n, codec, flip, top, False, t, 0):
        return
    special = _encode_keys(src, s, src_step, 0, n, keys, keys, False, codec, flip)[0]
    if _sort_keys(keys, no_order, spare, no_order, n, counts, True):
        keys = spare
    for i in range(n):
        dst[t + i * dst_step] = _decode(np.uint64(keys[i]) ^ flip, codec, top)
    if special:
        _refill(src, s, src_step, dst, t, dst_step, n, keys, codec, flip)


@njit(inline="always")
def _first_at_least(row, t, step, n, key, codec, flip, top):
    """The first place of a sorted row of values whose key is ``key`` or more (``n`` if
    none)."""
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if _encode(np.uint64(row[t + middle * step]), codec, top) ^ flip < key:
            low = middle + 1
        else:
            high = middle
    return low


@njit(nogil=True)
def _refill(src, s, src_step, dst, t, dst_step, n, unit, codec, flip):
    """Write a sorted row's NaNs and zeros again, with their own bits, in their order in the
    row (their keys lost those bits)."""
    wide_vectors()
    top = _top(unit)
    infinity, zero_bits = codec[0], codec[3]
    nan_slot = _first_at_least(dst, t, dst_step, n, _nan_key(infinity, top) ^ flip, codec,
                               flip, top)
    zero_slot = _first_at_least(dst, t, dst_step, n, codec[4] ^ flip, codec, flip, top)
    for i in range(n):
        bits = src[s + i * src_step]
        if np.uint64(bits) & ~top > infinity:
            dst[t + nan_slot * dst_step] = bits
            nan_slot += 1
        elif np.uint64(bits) & zero_bits == 0:
            dst[t + zero_slot * dst_step] = bits
            zero_slot += 1


@njit(inline="always")
def _nan_parts(src, element, infinity, top):
    """Which parts of a complex number are NaN, in NumPy's order: 0 none, 1 the imaginary part,
    2 the real part, 3 both."""
    real, imaginary = np.uint64(src[2 * element]), np.uint64(src[2 * element + 1])
    return np.uint64(2 * (real & ~top > infinity) + (imaginary & ~top > infinity))


@njit(nogil=True)
def _sort_order(src, s, src_step, n, codec, flip, components, keys, spare, order, spare_order,
                counts):
    """The positions that sort one row stably: by each key, the least significant first (a
    complex number's NaN parts, real part, imaginary part)."""
    wide_vectors()
    top = _top(keys)
    for i in range(n):
        order[i] = i
    for part in range(components - 1, -1 - (components > 1), -1):
        if part < 0:
            for i in range(n):
                keys[i] = _nan_parts(src, s + order[i] * src_step, codec[0], top) ^ flip
        else:
            for i in range(n):
                bits = np.uint64(src[(s + order[i] * src_step) * components + part])
                keys[i] = _encode(bits, codec, top) ^ flip
        if _sort_keys(keys, order, spare, spare_order, n, counts, True):
            for i in range(n):
                order[i] = spare_order[i]
    return order


@entry_point()
def sort_rows(shape, src_strides, dst_strides, src_address, dst_address, n, src_step, dst_step,
              unit, codec, descending, keys, spare, no_order, counts):
    """Write the sorted values of every real row of ``n`` elements of a layout (see the module
    docstring). ``keys`` and ``spare`` have room for ``n`` keys (``n + _GAP << _ONE_PASS``
    for a radix sort of ``_GAPPED`` keys or more, see :func:`_sort_keys`), ``no_order`` is empty,
    and ``counts`` is room for a radix sort's buckets, or None for rows shorter than ``_RADIX``
    per byte of ``unit``."""
    wide_vectors()
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    flip = _top(unit) * np.uint64(2) - np.uint64(1) if descending else np.uint64(0)
    ndim = shape.size
    outer = 1
    for d in range(ndim):
        outer *= shape[d]
    index = odometer(ndim)
    s = t = np.int64(0)  # not the literal 0: helpers would compile once for it
    for _ in range(outer):
        _sort_values(src, s, src_step, dst, t, dst_step, n, codec, flip, keys, spare, no_order,
                     counts)
        s, t = advance(index, shape, ndim - 1, (s, t), src_strides, dst_strides)


@entry_point()
def order_rows(shape, src_strides, dst_strides, src_address, dst_address, n, src_step, dst_step,
               unit, codec, components, descending, indices, keys, spare, order, spare_order,
               counts):
    """Sort every row of ``n`` elements of a layout by positions (a real row in order or in
    reverse by none, see :func:`_write_if_ordered`): write the int64 positions that sort each row
    (``indices``), or its values in that order (complex rows:
    ``components`` 2, ``unit`` the component's storage). ``order`` and ``spare_order`` have
    room for as many positions as ``keys`` has for keys; the rest is as for
    :func:`sort_rows`."""
    wide_vectors()
    src = _typed_pointer(src_address, unit)
    dst_values = _typed_pointer(dst_address, unit)
    dst_indices = _typed_pointer(dst_address, order)
    flip = _top(unit) * np.uint64(2) - np.uint64(1) if descending else np.uint64(0)
    ndim = shape.size
    outer = 1
    for d in range(ndim):
        outer *= shape[d]
    index = odometer(ndim)
    top = _top(unit)
    s = t = np.int64(0)
    for _ in range(outer):
        if components > 1 or not (
                _write_if_ordered(src, s, src_step, dst_indices, t, dst_step, n, codec, flip,
                                  top, True, t, 0) if indices else
                _write_if_ordered(src, s, src_step, dst_values, t, dst_step, n, codec, flip,
                                  top, False, t, 0)):
            positions = _sort_order(src, s, src_step, n, codec, flip, components, keys, spare,
                                    order, spare_order, counts)
            for j in range(n):
                k = positions[j]
                if indices:
                    dst_indices[t + j * dst_step] = k
                else:
                    for c in range(components):
                        dst_values[(t + j * dst_step) * components + c] = \
                            src[(s + k * src_step) * components + c]
        s, t = advance(index, shape, ndim - 1, (s, t), src_strides, dst_strides)


@njit(inline="always")
def _write_part_if_ordered(src, src_step, dst, dst_step, start, high, codec, flip, top,
                           positions, back):
    """:func:`_write_if_ordered` of elements ``start`` to ``high`` of a row, their positions
    counted from ``start``; with steps of 1 as constants, for which LLVM vectorizes the reverse
    too."""
    if src_step == 1 and dst_step == 1:
        return _write_if_ordered(src, start, 1, dst, start, 1, high - start, codec, flip, top,
                                 positions, back, start)
    return _write_if_ordered(src, start * src_step, src_step, dst, start * dst_step, dst_step,
                             high - start, codec, flip, top, positions, back, start)


@entry_point()
def ordered_row(src_address, src_step, dst_address, dst_step, n, low, high, unit, codec, flip,
                indices, positions):
    """Write elements ``low - 1`` (unless ``low`` is 0) to ``high`` of a real row of ``n``
    elements where the row's sort puts them, if their keys never fall (return 1: the row is its
    own stable sort if every part of it is) or always fall (return -1: its reverse is), see
    :func:`_write_if_ordered` (``flip`` as for :func:`encode_piece`): their values, or with
    ``indices`` their int64 positions (``positions`` is an empty int64 array); else return 0,
    with some of the row at ``dst_address`` written."""
    wide_vectors()
    start = max(low - 1, 0)
    src, top, back = _typed_pointer(src_address, unit), _top(unit), (n - high) * dst_step
    if indices:
        return _write_part_if_ordered(src, src_step, _typed_pointer(dst_address, positions),
                                      dst_step, start, high, codec, flip, top, True, back)
    return _write_part_if_ordered(src, src_step, _typed_pointer(dst_address, unit), dst_step,
                                  start, high, codec, flip, top, False, back)


@entry_point()
def encode_piece(address, step, low, high, unit, codec, flip, keys, packed, summary):
    """Write the keys of elements ``low`` to ``high`` of a real row at ``address`` (``step``
    apart; ``flip``-ped: all ones for a descending sort) to ``keys[low:high]``, or with
    ``packed`` each key shifted into the upper half of a uint64 and its position in the lower
    half. Write to the uint64 ``summary`` the least and the greatest key, the bits in which some
    key differs from the first one, that first key, whether some element is special (see
    :func:`_special`) and how many keys are less than the one before them."""
    wide_vectors()
    src = _typed_pointer(address, unit)
    summary[4], summary[0], summary[1], summary[2], summary[3], summary[5] = _encode_keys(
        src, 0, step, low, high, unit, keys[low:], packed, codec, flip)


@njit(inline="always")
def _packed(key, position, least, shift, positions):
    """A 64-bit key's bits from ``shift`` on over ``least``, above its ``position`` in the
    lowest ``positions`` bits."""
    return (key - least) >> shift << positions | np.uint64(position)


@entry_point()
def pack_piece(keys, low, high, least, low_bit):
    """Pack ``keys[low:high]``, 64-bit keys that differ in at most 32 bits from ``low_bit`` on
    over ``least``, as :func:`encode_piece` packs keys of up to 32 bits: those bits in the upper
    half of each, its position in the lower."""
    wide_vectors()
    for i in range(np.uint64(low), np.uint64(high)):
        keys[i] = _packed(keys[i], i, least, low_bit, np.uint64(32))


@entry_point()
def near_piece(keys, order, low, high, done):
    """Try the insertion sort of ``keys[low:high]`` of a nearly sorted row (see ``_NEAR``; with
    their positions in ``order`` unless it is empty, which are first written); set ``done[0]``
    to whether it sorted them (else they are a permutation that keeps equal keys in order)."""
    wide_vectors()
    if order.size:
        for i in range(low, high):
            order[i] = i
    done[0] = _near(keys, order, low, high)


@entry_point()
def merge_piece(keys, order, middle, n, start, end, address, step, codec, flip, packed):
    """Write places ``start`` to ``end`` of the stable merge of the sorted ``keys[:middle]`` and
    ``keys[middle:n]`` (and ``order`` alongside unless it is empty) to the row at ``address``
    (``step`` apart, positive): their positions, from ``order`` or ``packed`` in the keys, else
    their values (``flip`` as for :func:`encode_piece`)."""
    wide_vectors()
    second_order = order[middle:] if order.size else order
    size = (n - 1) * step + 1
    if order.size or packed:
        _merge_half(keys, order, middle, keys[middle:], second_order, n - middle, start, end,
                    carray(_typed_pointer(address, order), size), step, codec, flip, packed)
    else:
        _merge_half(keys, order, middle, keys[middle:], second_order, n - middle, start, end,
                    carray(_typed_pointer(address, keys), size), step, codec, flip, False)


@njit(inline="always")
def _run_bounds(ends, space, low, high, r):
    """Where in a row's keys its places ``low`` to ``high`` that are in run ``r`` lie (see
    :func:`count_piece`)."""
    first = max(low, ends[r - 1] if r else np.uint64(0))
    return first + r * space, max(first, min(high, ends[r])) + r * space


@entry_point()
def count_piece(keys, ends, space, low, high, least, shift, mask, counts):
    """Count the keys of places ``low`` to ``high`` of a row by their digit
    ``((key - least) >> shift) & mask`` in the uint64 ``counts``; up to ``1 << _ONE_PASS``
    digits, in four tallies that take turns, so that keys crowded in a few digits do not each
    wait for the last one's count. ``keys`` holds the row in runs, each followed by ``space``
    free places: run ``r`` holds places ``ends[r - 1]`` to ``ends[r]`` (uint64)."""
    wide_vectors()
    buckets = np.uint64(counts.size)
    ways = 4 if buckets <= 1 << _ONE_PASS else 1
    tallies = np.zeros(ways * buckets, np.uint64)
    for r in range(ends.size):
        start, stop = _run_bounds(ends, space, np.uint64(low), np.uint64(high), np.uint64(r))
        for i in range(start, stop):
            way = (i % np.uint64(ways)) * buckets
            tallies[way + _digit(keys[i], least, shift, mask)] += np.uint64(1)
    for d in range(buckets):
        total = np.uint64(0)
        for way in range(ways):
            total += tallies[np.uint64(way) * buckets + d]
        counts[d] = total


@entry_point()
def move_piece(keys, low, high, least, shift, mask, buckets, offsets, spare, runs):
    """Move ``keys[low:high]`` to the uint64 ``offsets`` of their bucket, ``buckets[digit]``
    (uint16, see :func:`count_piece`), counting up, in ``spare``. With ``runs`` (keys next to
    each other mostly share a bucket) the offset of the last key's bucket stays in a register
    until a key of another bucket comes: its count in memory would make each key wait for the
    one before."""
    wide_vectors()
    if runs and high > low:
        last = buckets[_digit(keys[np.uint64(low)], least, shift, mask)]
        o = offsets[last]
        for i in range(low, high):
            key = keys[np.uint64(i)]
            b = buckets[_digit(key, least, shift, mask)]
            if b != last:
                offsets[last] = o
                o, last = offsets[b], b
            spare[o] = key
            o += np.uint64(1)
        offsets[last] = o
        return
    for i in range(low, high):
        key = keys[np.uint64(i)]
        b = buckets[_digit(key, least, shift, mask)]
        o = offsets[b]
        offsets[b] = o + np.uint64(1)
        spare[o] = key


@entry_point()
def scatter_piece(keys, order, ends, space, low, high, least, shift, mask, offsets, spare_keys,
                  spare_order, first, address, step, codec, flip, packed):
    """One pass of a radix sort over threads: move the keys of places ``low`` to ``high`` of a
    row (held in runs, see :func:`count_piece`; and ``order`` alongside when ``spare_order``
    has elements; ``first``: the order is still ``0, 1, ...`` and ``order`` is not read) to the
    uint64 ``offsets`` of their digit, counting up, in the spares. The last pass (``address``
    not 0) writes to the row of the result at ``address`` instead (``step`` apart): the
    positions (``packed``: the lower halves of the keys), or the values decoded from the keys
    (``flip`` undoes a descending sort's inversion)."""
    wide_vectors()
    with_order = spare_order.size > 0
    one = np.uint64(1)
    for r in range(ends.size):
        start, stop = _run_bounds(ends, space, np.uint64(low), np.uint64(high), np.uint64(r))
        for u in range(start, stop):
            key = keys[u]
            d = _digit(key, least, shift, mask)
            o = offsets[d]
            offsets[d] = o + one
            if address == 0:
                spare_keys[o] = key
                if with_order:
                    spare_order[o] = np.int64(u) if first else order[u]
            elif with_order:
                _typed_pointer(address, spare_order)[np.int64(o) * step] = \
                    np.int64(u) if first else order[u]
            elif packed:
                _typed_pointer(address, spare_order)[np.int64(o) * step] = \
                    key & np.uint64(0xFFFFFFFF)
            else:
                _typed_pointer(address, keys)[np.int64(o) * step] = \
                    _decode(np.uint64(key) ^ flip, codec, _top(keys))


@entry_point()
def finish_piece(keys, spare, ends, starts, first, last, counts, work, address, step, codec,
                 flip):
    """Sort buckets ``first`` to ``last`` of a row's ``keys`` (bucket ``b`` holds places
    ``ends[b - 1]`` to ``ends[b]`` of the row, and starts at ``starts[b]`` in ``keys``, with
    room up to ``starts[b + 1]``) and write their values to the row at ``address`` (``step``
    apart): a few keys by insertion, more by :func:`_sort_keys` (counted in the uint64
    ``counts``), all in the cache: in ``work`` (``2 * _HELD`` keys) where they fit with
    their gaps, else in place through ``spare``, whose room after the bucket holds them."""
    wide_vectors()
    values = _typed_pointer(address, keys)
    top, no_order = _top(keys), np.empty(0, np.int64)
    held, held_spare = work[:_HELD], work[_HELD:]
    for b in range(first, last):
        place = np.uint64(ends[b - 1] if b else 0)
        start, room = np.uint64(starts[b]), np.uint64(starts[b + 1])
        n = np.uint64(ends[b]) - place
        sorted_keys, at = keys, start
        # no insertion first: each of the many buckets would pay for a failed try
        if _FEW < n < 2 * _BUCKET:
            for i in range(n):
                held[i] = keys[start + i]
            sorted_keys, at = held, np.uint64(0)
            if _sort_keys(held, no_order, held_spare, no_order, np.int64(n), counts, False):
                sorted_keys = held_spare
        elif n > _FEW:
            if _sort_keys(keys[start:room], no_order, spare[start:room], no_order,
                          np.int64(n), counts, False):
                sorted_keys = spare
        else:
            _insert_few(keys, no_order, start, start + n)
        for i in range(n):
            values[np.int64(place + i) * step] = _decode(np.uint64(sorted_keys[at + i]) ^ flip,
                                                         codec, top)


@entry_point()
def fill_piece(ends, bucket, low, high, least, shift, address, step, unit, codec, flip):
    """Write places ``low`` to ``high`` of a row sorted by counting its keys (see
    :func:`sort_row`): the value of the key ``least + (b << shift)`` up to place ``ends[b]``,
    from ``bucket``, the bucket of place ``low``, on."""
    wide_vectors()
    values = _typed_pointer(address, unit)
    top = _top(unit)
    i = low
    while i < high:
        value = _decode((least + (np.uint64(bucket) << shift)) ^ flip, codec, top)
        end = min(ends[bucket], high)
        while i < end:
            values[i * step] = value
            i += 1
        bucket += 1


@entry_point()
def refill(src_address, src_step, dst_address, dst_step, n, unit, codec, flip):
    """:func:`_refill` for one row sorted by :func:`sort_row` or :func:`sort_in_halves`."""
    wide_vectors()
    _refill(_typed_pointer(src_address, unit), 0, src_step, _typed_pointer(dst_address, unit),
            0, dst_step, n, unit, codec, flip)


@njit(nogil=True)
def _compare(a, i, b, j, codec, components, top):
    """-1, 0 or 1 as element ``i`` of ``a`` sorts before, with or after element ``j`` of ``b``
    (element positions; NaNs compare equal to each other here)."""
    if components > 1:
        p, q = _nan_parts(a, i, codec[0], top), _nan_parts(b, j, codec[0], top)
        if p != q:
            return -1 if p < q else 1
    for c in range(components):
        p = _encode(np.uint64(a[i * components + c]), codec, top)
        q = _encode(np.uint64(b[j * components + c]), codec, top)
        if p != q:
            return -1 if p < q else 1
    return 0


@njit(nogil=True)
def _has_nan(a, i, codec, components, top):
    for c in range(components):
        if np.uint64(a[i * components + c]) & ~top > codec[0]:
            return True
    return False


@entry_point()
def group_sorted(address, n, order, unit, codec, components, first, counts, inverse):
    """Group the ``n`` elements of a contiguous row at ``order`` (positions that sort it
    stably; the row is sorted when ``order`` is empty) into runs of equal values (NaNs each
    alone); return the number of runs.

    Writes each run's first position in the row to ``first``, its length to ``counts``, and,
    when ``inverse`` has elements, each element's run to ``inverse``.
    """
    src = _typed_pointer(address, unit)
    top = _top(unit)
    runs = previous = 0
    for i in range(n):
        j = order[i] if order.size else i
        if (i == 0 or _has_nan(src, j, codec, components, top)
                or _compare(src, previous, src, j, codec, components, top) != 0):
            first[runs] = j
            counts[runs] = 0
            runs += 1
        counts[runs - 1] += 1
        if inverse.size:
            inverse[j] = runs - 1
        previous = j
    return runs


@entry_point()
def search_sorted(address, n, step, order, values_address, unit, codec, components, mode,
                  out):
    """For each value of a contiguous row at ``values_address`` (``out.size`` of them), search a
    row of ``n`` elements (``step`` apart) sorted ascending, in the order of the positions
    ``order`` when it has elements.

    ``mode`` 0 and 1 write the insertion points (left and right sides) to the int64 ``out``;
    2 and 3 write to the bool ``out`` whether the value occurs (does not occur) in the row.
    Returns the position in ``order`` of a position outside ``[0, n)``, or -1.
    """
    for k in range(order.size):
        if order[k] < 0 or order[k] >= n:
            return k
    src = _typed_pointer(address, unit)
    values = _typed_pointer(values_address, unit)
    top = _top(unit)
    right = mode == 1
    for k in range(out.size):
        low, high = 0, n
        while low < high:
            middle = (low + high) >> 1
            i = (order[middle] if order.size else middle) * step
            sign = _compare(src, i, values, k, codec, components, top)
            if sign < 0 or (right and sign == 0):
                low = middle + 1
            else:
                high = middle
        if mode < 2:
            out[k] = low
        else:
            found = low < n and not _has_nan(values, k, codec, components, top) and \
                _compare(src, (order[low] if order.size else low) * step, values, k, codec,
                         components, top) == 0
            out[k] = found != (mode == 3)
    return -1



_INFINITY = {_dtypes.float16: 0x7C00, _dtypes.bfloat16: 0x7F80, _dtypes.float32: 0x7F800000,
             _dtypes.float64: 0x7FF0000000000000, _dtypes.complex64: 0x7F800000,
             _dtypes.complex128: 0x7FF0000000000000}


@njit(inline="always")
def _split_rather(keys, bits):
    """Whether the halves of a row of values whose keys differ in ``bits`` bits are better
    split around a pivot and quicksorted than radix sorted and merged: from two radix passes
    for 32-bit keys, from four for 64-bit keys (a radix pass costs about the same for both,
    the quicksort's vectors hold half as many 64-bit keys)."""
    return _passes(bits) >= keys.itemsize // 2


@njit(nogil=True)
def _sort_half(src, unit, step, low, high, codec, flip, keys, spare, order, spare_order, counts,
               notes, packed):
    """Write the keys of elements ``low`` to ``high`` of a real row of ``unit`` items (an empty
    array) to the start of ``keys`` and sort them there stably, through the spares, all with
    room for the radix sort's gaps (which leaves its result in ``keys``): with their positions
    in ``order`` unless it is empty, or ``packed`` with them (see :func:`_encode_keys`): the
    order of packed keys is the stable one. ``notes`` are set to whether some element is
    special (see :func:`_special`), whether the keys are left unsorted, for the quicksort of
    the whole row (see :func:`_split_rather`), and the least and greatest key and the bits in
    which some key differs from another (see :func:`_packing`). The insertion sort is
    tried where at most one key in ``_FALLS`` falls below the one before it."""
    wide_vectors()
    n = high - low
    special, least, greatest, varying, _, falls = _encode_keys(src, 0, step, low, high, unit,
                                                               keys, packed, codec, flip)
    notes[0], notes[1], notes[2], notes[3], notes[4] = special, 0, least, greatest, varying
    near = falls <= n // _FALLS
    if order.size:
        for i in range(n):
            order[i] = low + i
    if not (packed or quicksorts(keys)):
        _sort_keys(keys, order, spare, spare_order, n, counts, near)
        return
    if near and _near(keys, order, 0, n):
        return
    low_bit, bits = _span(least, greatest, varying)
    if packed:  # the radix sort leaves the positions, already in order, alone
        least, low_bit = least << np.uint64(32), low_bit + 32
    # packed keys take at most four radix passes, which beat their quicksort
    notes[1] = not packed and _split_rather(keys, bits)
    if not notes[1]:
        _radix_keys(keys, order, spare, spare_order, n, counts, least, low_bit, bits)


@njit(inline="always")
def _packing(notes, n, with_order):
    """How the 64-bit keys of both halves of a row of ``n`` (``notes``: the halves' from
    :func:`_sort_half`) are packed with their positions ``with_order``, in keys the quicksort
    sorts in the stable order (:func:`_packed`): each key's bits from the lowest where keys
    differ over the least key, as many of them as fit above the bits of the positions. Returns
    the least key, that lowest bit, the lowest packed bit, the positions' bits (uint64s), and
    the positions' mask where keys whose packed bits are equal may differ (see
    :func:`_sort_ties`), else (and without ``with_order``) 0."""
    least = min(np.uint64(notes[2]), np.uint64(notes[7]))
    greatest = max(np.uint64(notes[3]), np.uint64(notes[8]))
    varying = np.uint64(notes[4]) | np.uint64(notes[9]) | (np.uint64(notes[2]) ^
                                                           np.uint64(notes[7]))
    low_bit, bits = _span(least, greatest, varying)
    positions = _bit_length(np.uint64(n - 1))
    shift = low_bit + max(0, bits - (64 - positions))
    mask = (np.uint64(1) << np.uint64(positions)) - np.uint64(1)
    ties = mask if with_order and shift > low_bit else np.uint64(0)
    return least, np.uint64(low_bit), np.uint64(shift), np.uint64(positions), ties


@njit(inline="always")
def _split_half(keys, order, spare, n, room, k, notes):
    """Partition half ``k`` of a row's keys (``keys[k * room:]``; with an ``order`` packed
    with their positions as they go, see :func:`_packing`) into its half of ``spare`` around
    the pivot of a sample of both halves, the same for both (:func:`.quicksort.split_pivot`):
    the first half's keys below it first, the second's last, so that those above it lie
    together between them, a chunk at a time. Returns how many were below."""
    with_order, halves = order.size > 0, (n // 2, n - n // 2)
    least, _, shift, positions, ties = _packing(notes, n, with_order)
    width = lanes(spare)
    sample = np.empty(2 * width, spare.dtype)
    for j in range(2 * width):
        half = j // width
        i = half * room + (2 * (j % width) + 1) * halves[half] // (2 * width)
        sample[j] = _packed(keys[i], order[i], least, shift, positions) if with_order else \
            keys[i]
    pivot, inclusive = split_pivot(sample, ties)
    own = k * room
    low = 0 if k == 0 else halves[0]
    below, high = 0, low + halves[k]
    chunk = np.empty(_CHUNK if with_order else 0, spare.dtype)
    for start in range(0, halves[k], _CHUNK):
        m = min(_CHUNK, halves[k] - start)
        part = keys[own + start:]
        if with_order:
            for i in range(np.uint64(m)):  # unsigned: a signed index's wraparound check
                at = np.uint64(own + start) + i  # stops LLVM vectorizing this loop
                chunk[i] = _packed(keys[at], order[at], least, shift, positions)
            part = chunk
        split = split_part(part, m, pivot, inclusive, spare, low, high, k == 1)
        low, high = (low + split, high - (m - split)) if k == 0 else \
            (low + m - split, high - split)
        below += split
    return below


@njit(inline="always")
def _sort_ties(keys, low, high, src, unit, step, codec, flip, packing, spare):
    """Sort each run of ``keys[low:high]`` (:func:`_packing`'s, sorted) whose packed bits
    are equal by the bits of their keys that did not fit, then positions: each key of the run
    is packed again from its element (``src``, of ``unit`` items ``step`` apart), with those
    bits (no more than the positions') above its position. ``spare`` as for the quicksort."""
    least, low_bit, shift, positions, _ = packing
    one, top = np.uint64(1), _top(unit)
    mask, rest = (one << positions) - one, (one << (shift - low_bit)) - one
    i = low + 1
    while i < high:
        block = min(i + _BLOCK, high)
        tied = 0
        for j in range(np.uint64(i), np.uint64(block)):  # LLVM vectorizes this search for a run
            tied += keys[j] ^ keys[j - one] <= mask
        if not tied:
            i = block
            continue
        while keys[i] ^ keys[i - 1] > mask:
            i += 1
        start, end = i - 1, i + 1
        while end < high and keys[end] ^ keys[start] <= mask:
            end += 1
        ordered = True
        for k in range(start, end):
            position = keys[k] & mask
            key = _encode(np.uint64(src[np.int64(position) * step]), codec, top) ^ flip
            keys[k] = ((key - least) >> low_bit & rest) << positions | position
            ordered &= k == start or keys[k] > keys[k - 1]
        if not ordered:
            quicksort(keys[start:end], spare, end - start)
        i = end + 1


@njit(inline="always")
def _write_positions(dst, t, dst_step, keys, low, high, mask):
    """Write the positions in the bits ``mask`` of ``keys[low:high]`` from place ``t``, in a loop
    that LLVM vectorizes where places are contiguous (see :func:`_write_run`)."""
    if dst_step == 1:
        for k in range(np.uint64(high - low)):
            dst[np.uint64(t) + k] = np.int64(keys[np.uint64(low) + k] & mask)
    else:
        for k in range(high - low):
            dst[np.uint64((t + k) * dst_step)] = np.int64(keys[low + k] & mask)


@njit(inline="always")
def _merge_rank(first, first_n, second, second_n, place):
    """How many keys of the first of two sorted runs come before ``place`` in their stable
    merge."""
    lo, hi = max(0, place - second_n), min(place, first_n)
    while lo < hi:
        i = (lo + hi) // 2
        if first[i] <= second[place - i - 1]:
            lo = i + 1
        else:
            hi = i
    return lo


@njit(inline="always")
def _next_of_merge(first, first_order, i, second, second_order, j):
    """The next key of the stable merge of ``first[i:]`` and ``second[j:]`` (neither empty),
    its position (0 without orders) and whether it is the second run's; no branch on the keys,
    which would mispredict."""
    a, b = first[np.uint64(i)], second[np.uint64(j)]
    later = b < a
    position = (second_order[np.uint64(j)] if later else first_order[np.uint64(i)]) \
        if first_order.size else 0
    return (b if later else a), position, later


@njit(inline="always")
def _write_merged(dst, t, dst_step, key, position, with_order, codec, flip, top, packed):
    """Write a merged key's value (or with orders its position, or ``packed`` the position in
    its lower half) to place ``t``."""
    if with_order:
        dst[np.uint64(t * dst_step)] = position
    elif packed:
        dst[np.uint64(t * dst_step)] = np.int64(key & np.uint64(0xFFFFFFFF))
    else:
        dst[np.uint64(t * dst_step)] = _decode(np.uint64(key) ^ flip, codec, top)


@njit(inline="always")
def _write_run(dst, t, dst_step, keys, order, low, high, codec, flip, top, packed):
    """Write ``keys[low:high]``'s values (or with an ``order`` their positions, or ``packed``
    the positions in their lower halves) from place ``t``, in a loop that LLVM vectorizes where
    places are contiguous (and indices unsigned: a signed one's wraparound check stops it)."""
    if dst_step != 1:
        for k in range(high - low):
            _write_merged(dst, t + k, dst_step, keys[low + k], order[low + k] if order.size
                          else 0, order.size > 0, codec, flip, top, packed)
    elif order.size:
        for k in range(np.uint64(high - low)):
            dst[np.uint64(t) + k] = order[np.uint64(low) + k]
    elif packed:
        _write_positions(dst, t, 1, keys, low, high, np.uint64(0xFFFFFFFF))
    else:
        for k in range(np.uint64(high - low)):
            dst[np.uint64(t) + k] = _decode(np.uint64(keys[np.uint64(low) + k]) ^ flip, codec,
                                            top)


@njit(inline="always")
def _merge_rest(first, first_order, i, i_end, second, second_order, j, j_end, dst, t, dst_step,
                codec, flip, packed):
    """Write the stable merge of ``first[i:i_end]`` and ``second[j:j_end]`` from place ``t``.
    The keys of ``first`` that come before all of ``second``, and the rest of either once the
    other is done, are written by :func:`_write_run`: the runs of nearly sorted rows hardly
    overlap."""
    with_order, top = first_order.size > 0, _top(first)
    if i < i_end and j < j_end:
        lead, high = i, i_end  # the first place of first's keys after second[j]
        while lead < high:
            middle = (lead + high) // 2
            if first[middle] <= second[j]:
                lead = middle + 1
            else:
                high = middle
        _write_run(dst, t, dst_step, first, first_order, i, lead, codec, flip, top, packed)
        t += lead - i
        i = lead
    while i < i_end and j < j_end:
        key, position, later = _next_of_merge(first, first_order, i, second, second_order, j)
        i += 1 - later
        j += later
        _write_merged(dst, t, dst_step, key, position, with_order, codec, flip, top, packed)
        t += 1
    _write_run(dst, t, dst_step, first, first_order, i, i_end, codec, flip, top, packed)
    _write_run(dst, t + i_end - i, dst_step, second, second_order, j, j_end, codec, flip, top,
               packed)


@njit(nogil=True)
def _merge_half(first, first_order, first_n, second, second_order, second_n, start, end, dst,
                dst_step, codec, flip, packed):
    """Write places ``start`` to ``end`` of the stable merge of two sorted runs of keys: their
    values to ``dst`` (``dst_step`` apart), or with orders (or ``packed``, see
    :func:`_write_merged`) their positions. The two halves of
    the places are merged in one loop: each step waits on the last one's comparison, and two
    such chains run at once."""
    wide_vectors()
    middle = (start + end) // 2
    i = _merge_rank(first, first_n, second, second_n, start)
    p = _merge_rank(first, first_n, second, second_n, middle)
    p_end = _merge_rank(first, first_n, second, second_n, end)
    i_end, j, j_end, q, q_end = p, start - i, middle - p, middle - p, end - p_end
    t, u = start, middle
    with_order, top = first_order.size > 0, _top(first)
    while True:
        steps = min(i_end - i, j_end - j, p_end - p, q_end - q)
        if steps <= 0:
            break
        for _ in range(steps):
            key, position, later = _next_of_merge(first, first_order, i, second, second_order, j)
            i += 1 - later
            j += later
            _write_merged(dst, t, dst_step, key, position, with_order, codec, flip, top, packed)
            t += 1
            key, position, later = _next_of_merge(first, first_order, p, second, second_order, q)
            p += 1 - later
            q += later
            _write_merged(dst, u, dst_step, key, position, with_order, codec, flip, top, packed)
            u += 1
    _merge_rest(first, first_order, i, i_end, second, second_order, j, j_end, dst, t, dst_step,
                codec, flip, packed)
    _merge_rest(first, first_order, p, p_end, second, second_order, q, q_end, dst, u, dst_step,
                codec, flip, packed)


# The words of a row sorted in halves (sort_in_halves), after the runner's: the phase, the row,
# its result, the work arrays' addresses, the flip and the codec, each half's notes (whether it
# has special elements, whether its keys are left for the quicksort, their span: _sort_half,
# from which _packing derives how positions are packed with 64-bit keys), and how many keys of
# each half the split puts below its pivot. The phases: sort the halves, merge them, split the
# keys of both, quicksort each part and write it.
(_PHASE, _SRC, _SRC_STEP, _DST, _DST_STEP, _N, _KEYS, _SPARE, _ORDER, _SPARE_ORDER, _COUNTS,
 _FLIP, _CODEC) = range(13)
_NOTED = 5  # words of notes per half
_NOTES = _CODEC + 6
_SPLIT = _NOTES + 2 * _NOTED
_HALF_WORDS = _SPLIT + 2
_SORT, _MERGE, _SPLIT_KEYS, _QUICKSORT = range(4)


def _packs(itemsize, indices):
    """Whether a sort of positions (``indices``) of keys of ``itemsize`` bytes in halves packs
    the positions with the keys."""
    return indices and itemsize <= 4


@functools.cache
def _halves_piece(itemsize, indices):
    """The address of ``piece(words, k)`` (:func:`.threads.pieces_state`) that sorts half
    ``k`` of a row of ``itemsize``-byte units, or writes half ``k`` of its result (values, or
    with ``indices`` positions; ``words``: ``_PHASE`` to ``_SPLIT``), or in the quicksort's
    phases splits the keys of half ``k`` (:func:`_split_half`) or quicksorts and writes part
    ``k``. Positions of keys of up to 32 bits are packed with them (see :func:`_encode_keys`),
    those of 64-bit keys for the quicksort only (see :func:`_packing`)."""
    unit, position = UNITS[itemsize].dtype, _POSITION  # dtypes: a shipped piece is keyed by them
    result = position if indices else unit
    packed = _packs(itemsize, indices)
    key, with_order = np.dtype(np.uint64) if packed else unit, indices and not packed

    def piece(words_address, k):
        wide_vectors()
        words = carray(_typed_pointer(words_address, WORD), _HALF_WORDS)
        n = words[_N]
        room = n // 2 + 1 + (_GAP << _ONE_PASS)  # a half's share of each work array
        codec = (np.uint64(words[_CODEC]), np.uint64(words[_CODEC + 1]),
                 np.uint64(words[_CODEC + 2]), np.uint64(words[_CODEC + 3]),
                 np.uint64(words[_CODEC + 4]), np.uint64(words[_CODEC + 5]))
        flip = np.uint64(words[_FLIP])
        keys = carray(_typed_pointer(words[_KEYS], key), 2 * room)
        spare = carray(_typed_pointer(words[_SPARE], key), 2 * room)
        if with_order:
            order = carray(_typed_pointer(words[_ORDER], position), 2 * room)
            spare_order = carray(_typed_pointer(words[_SPARE_ORDER], position), 2 * room)
        else:
            order = spare_order = carray(_typed_pointer(words[_ORDER], position), 0)
        middle = n // 2
        low, high = (0, middle) if k == 0 else (middle, n)  # the half sorted, then written
        half, second = slice(k * room, (k + 1) * room), slice(room, 2 * room)
        phase = words[_PHASE]
        if phase == _SORT:
            counts = carray(_typed_pointer(words[_COUNTS], _TALLIES), 2 * _COUNTED_ROOM)
            src = _typed_pointer(words[_SRC], unit)
            _sort_half(src, carray(src, 0), words[_SRC_STEP], low, high, codec, flip,
                       keys[half], spare[half], order[half] if with_order else order,
                       spare_order[half] if with_order else spare_order,
                       counts[k * _COUNTED_ROOM:(k + 1) * _COUNTED_ROOM],
                       words[_NOTES + _NOTED * k:_NOTES + _NOTED * (k + 1)], packed)
            return
        if phase == _SPLIT_KEYS:
            words[_SPLIT + k] = _split_half(keys, order, spare, n, room, k, words[_NOTES:_SPLIT])
            return
        step = words[_DST_STEP]  # positive: a pointer's writes would seem to change the runs
        dst = carray(_typed_pointer(words[_DST], result), (n - 1) * step + 1)
        if phase == _MERGE:
            _merge_half(keys, order, middle, keys[second],
                        order[second] if with_order else order, n - middle, low, high, dst, step,
                        codec, flip, packed)
            return
        first_below, second_below = words[_SPLIT], words[_SPLIT + 1]
        below, scratch = first_below + second_below, spare[n:] if k == 0 else keys[n:]
        packing = _packing(words[_NOTES:_SPLIT], n, with_order)
        ties = packing[4]
        if k == 0:  # the keys below the pivot, at both ends of the spare
            sort_runs(spare, 0, first_below, n - second_below, n, keys, 0, ties, scratch)
            low, high = 0, below
        else:
            sort_runs(spare, first_below, middle, middle, n - second_below, keys, below, ties,
                      scratch)
            low, high = below, n
        if not with_order:
            _write_run(dst, low, step, keys, order, low, high, codec, flip, _top(keys), packed)
            return
        if ties:  # some bits of the keys did not fit
            src = _typed_pointer(words[_SRC], unit)
            _sort_ties(keys, low, high, src, carray(src, 0), words[_SRC_STEP], codec, flip,
                       packing, scratch)
        _write_positions(dst, low, step, keys, low, high,
                         (np.uint64(1) << packing[3]) - np.uint64(1))

    return compile_run(piece, PIECE)


@functools.lru_cache(maxsize=None)
def key_layout(dtype):
    """How elements of ``dtype`` become keys: ``(unit, codec, components)``.

    ``unit`` is the storage of one (real or imaginary) component; ``components`` 1 or 2;
    ``codec`` six uint64 numbers: the largest magnitude that is not NaN, what positive and
    negative items are xor-ed with, the bits that are all zero in a zero (-0 included), the
    key of zero, and what negative items' keys then add: one for floats, whose negative keys
    are then their bits negated, with the trailing zero bits of their values, as positive
    keys have (a radix sort skips bits where no key differs).
    """
    components = 2 if dtype.kind == "complex floating" else 1
    unit = UNITS[dtype.itemsize // components]
    top = 1 << (unit.itemsize * 8 - 1)
    mask = 2 * top - 1
    if dtype in _INFINITY:
        codec = (_INFINITY[dtype], top, mask, mask ^ top, top, 1)
    elif dtype.kind == "signed integer":
        codec = (mask, top, top, mask, top, 0)
    else:
        codec = (mask, 0, 0, mask, 0, 0)
    return unit, tuple(np.uint64(v) for v in codec), components


def _room(n, dtype):
    """An uninitialised NumPy array of ``n`` items of ``dtype``: a large one in host memory
    from :func:`allocate`, which reuses large blocks, since the page faults of fresh memory
    cost more than a radix pass over it."""
    if n * dtype.itemsize < POOLED_BYTES:
        return np.empty(n, dtype)
    address, owner = allocate(n * dtype.itemsize)
    return numpy_view(address, (n,), (1,), dtype, False, owner)


def sort_axis(x, axis, out, descending, indices):
    """Sort the ndarray ``x`` along ``axis`` into ``out`` (an ndarray of ``x``'s shape): the
    values (``x``'s dtype), or with ``indices`` the int64 positions along the axis."""
    n = x._shape[axis]
    unit, codec, components = key_layout(x._dtype)
    if components == 1 and size_of(x._shape) == n and (
            n >= HALVES or n * unit.itemsize >= min(POOLED_BYTES, PARALLEL_BYTES)):
        if _sorted_one_row(x, axis, out, n, unit, codec, descending, indices):
            return
    drop = lambda t: t[:axis] + t[axis + 1:]
    plan = make_plan(drop(x._shape), drop(x._strides), drop(out._strides))
    if plan is None or n == 0:
        return
    sizes = x._dtype.itemsize, out._dtype.itemsize
    by_order = indices or components > 1

    def arguments(offsets, part):
        layout = (part, *plan.strides, x._address + (plan.offsets[0] + offsets[0]) * sizes[0],
                  out._address + (plan.offsets[1] + offsets[1]) * sizes[1], n,
                  x._strides[axis], out._strides[axis], unit, codec)
        radix = n >= _RADIX * unit.itemsize
        counts = np.empty(_COUNTED_ROOM, np.uint64) if radix else None
        room = n + (_GAP << _ONE_PASS if radix and n >= _GAPPED else 0)
        work = (_room(room, unit.dtype), _room(room, unit.dtype))
        if by_order:
            return (*layout, components, descending, indices, *work, _room(room, _POSITION),
                    _room(room, _POSITION), counts)
        return (*layout, descending, *work, _NO_ORDER, counts)

    if x.size * sizes[0] >= PARALLEL_BYTES and THREADS > 1 and plan.size > 1:
        run_in_parallel(order_rows if by_order else sort_rows,
                        [arguments(*piece) for piece in plan.split(THREADS)])
    else:
        called = arguments((0, 0), plan.shape)
        (_ORDER_ROWS if by_order else _SORT_ROWS)((unit.itemsize, called[-1] is None), *called)


_SORT_ROWS, _ORDER_ROWS = Direct(sort_rows), Direct(order_rows)  # by unit, and counts or not
_ORDERED_ROW = Direct(ordered_row)  # by unit


def _sorted_one_row(x, axis, out, n, unit, codec, descending, indices):
    """Sort an ``x`` of one real row of ``n`` elements (``HALVES`` or ``POOLED_BYTES`` at
    least) along ``axis`` as :func:`sort_axis` does, if its order or the engine's threads allow
    it without :func:`sort_rows`: checked for order first, before any work memory
    (:func:`ordered_row`, over the threads when long), then sorted by :func:`sort_row` when
    long, else by :func:`sort_in_halves`. Returns whether it is sorted."""
    src, src_step, dst, dst_step = x._address, x._strides[axis], out._address, out._strides[axis]
    flip = _FLIPS[unit.itemsize][descending]
    if n * unit.itemsize >= PARALLEL_BYTES:
        row = (src, src_step, dst, dst_step, n, unit, codec)
        if not _ordered(row, flip, indices):
            sort_row(*row, flip, indices)
        return True
    checked = (src, src_step, dst, dst_step, n, 0, n, unit, codec, flip, indices, _NO_ORDER)
    if (_ORDERED_ROW.get(unit.itemsize) or _ORDERED_ROW.entry(unit.itemsize, checked))(*checked):
        return True
    if THREADS > 1 and n >= HALVES and dst_step > 0:
        sort_in_halves(src, src_step, dst, dst_step, n, unit, codec, flip, indices)
        return True
    return False


_FLIPS = {size: (np.uint64(0), np.uint64(2 ** (8 * size) - 1)) for size in (1, 2, 4, 8)}


def _ordered(row, flip, indices):
    """Whether one long real row (``src, src_step, dst, dst_step, n, unit, codec``) is its own
    stable sort or its reverse is, written then (:func:`ordered_row`, one call per piece of the
    row, over the engine's threads; ``flip`` as for :func:`encode_piece`)."""
    src, src_step, dst, dst_step, n, unit, codec = row
    bounds = [n * k // THREADS for k in range(THREADS + 1)]
    calls = [(src, src_step, dst, dst_step, n, low, high, unit, codec, flip, indices, _NO_ORDER)
             for low, high in zip(bounds[:-1], bounds[1:])]
    return abs(sum(run_in_parallel(ordered_row, calls))) == THREADS


def sort_row(src, src_step, dst, dst_step, n, unit, codec, flip, indices):
    """Sort one long real row (``n`` elements at address ``src``, ``src_step`` apart) that is
    not in order or in reverse (:func:`ordered_row`) into the row at ``dst``: its values, or
    with ``indices`` the int64 positions (``flip`` as for :func:`encode_piece`).

    The engine's threads each take a piece of the row, then of every pass. Its keys
    (:func:`encode_piece`) are sorted on the bits where they differ, less the least key: by
    counting them when they are values that differ in at most ``_COUNTED`` bits, or that are
    at least ``_COUNTED_EACH`` per value their bits can take (:func:`_count_row`); where at
    most one key in ``_FALLS`` falls below the one before it, by insertion in two halves, then
    merged, if that sorts them (:func:`_near_row`); else values in buckets of their top bits
    (:func:`_bucket_row`), positions, and values crowded in a few buckets, by a stable LSD
    radix sort (:func:`_radix_row`). Positions are packed with keys of up to 32 bits as they
    are encoded, and with 64-bit keys that differ in at most 32 bits after (:func:`pack_piece`).
    """
    bounds = [n * k // THREADS for k in range(THREADS + 1)]
    pieces = list(zip(bounds[:-1], bounds[1:]))
    packed = indices and unit.itemsize <= 4 and n <= 2 ** 32
    keys = _room(n + (_GAP << _ONE_PASS), np.dtype(np.uint64) if packed else unit.dtype)
    summary = np.empty((THREADS, 6), np.uint64)
    run_in_parallel(encode_piece, [(src, src_step, low, high, unit, codec, flip, keys, packed,
                                    summary[k]) for k, (low, high) in enumerate(pieces)])
    least = summary[:, 0].min()
    varying = np.bitwise_or.reduce(summary[:, 2] | (summary[:, 3] ^ summary[0, 3]))
    low_bit = (int(varying) & -int(varying)).bit_length() - 1 if varying else 0
    bits = int((summary[:, 1].max() - least) >> np.uint64(low_bit)).bit_length()
    if indices and not packed and bits <= 32 and n <= 2 ** 32:  # 64-bit keys, packed after all
        run_in_parallel(pack_piece, [(keys, low, high, least, np.uint64(low_bit))
                                     for low, high in pieces])
        packed, least, low_bit = True, np.uint64(0), 0
    done, order = False, _NO_ORDER  # 64-bit keys' positions: implicit until an insertion moves them
    if not indices and (bits <= _COUNTED or n >> bits >= _COUNTED_EACH):
        _count_row(keys, pieces, least, low_bit, bits, dst, dst_step, unit, codec, flip)
        done = True
    elif summary[:, 5].sum() <= n // _FALLS and dst_step > 0:
        done, order = _near_row(keys, n, indices and not packed, dst, dst_step, codec, flip,
                                packed)
    if not done and (indices or not _bucket_row(keys, pieces, least, low_bit, bits, dst,
                                                dst_step, codec, flip)):
        if packed:
            least, low_bit = least << np.uint64(32), low_bit + 32
        _radix_row(keys, order, pieces, least, low_bit, bits, indices and not packed, packed,
                   dst, dst_step, codec, flip)
    if not indices and summary[:, 4].any():
        refill(src, src_step, dst, dst_step, n, unit, codec, flip)


def sort_in_halves(src, src_step, dst, dst_step, n, unit, codec, flip, indices):
    """Sort one real row as :func:`sort_row` does, on two threads (``dst_step`` positive):
    each sorts the keys of half of the row in its cache (:func:`_sort_half`), then writes half
    of the stable merge of the two (:func:`_merge_half`). Keys that :func:`_sort_half` leaves
    for the quicksort are split around a pivot instead, each thread splitting its half
    (:func:`_split_half`; 64-bit keys are packed with their positions as they are split), and
    each thread quicksorts and writes one part."""
    room = n // 2 + 1 + (_GAP << _ONE_PASS)
    packed = _packs(unit.itemsize, indices)
    keys_bytes = _lines(2 * room * (8 if packed else unit.itemsize))
    order_bytes = _lines(2 * room * _POSITION.itemsize) if indices and not packed else 0
    keys, owner = allocate(2 * keys_bytes + 2 * order_bytes + 8 * 2 * _COUNTED_ROOM)
    spare = keys + keys_bytes
    order = spare + keys_bytes
    spare_order = order + order_bytes
    counts = spare_order + order_bytes
    words = [0, src, src_step, dst, dst_step, n, keys, spare, order, spare_order, counts,
             *_signed_words(flip, codec), *[0] * (_HALF_WORDS - _NOTES)]
    piece = _halves_piece(unit.itemsize, indices)
    sorting = pieces_state(piece, 2, words)
    run_pieces(sorting)
    notes = sorting[RUNNER_WORDS + _NOTES:RUNNER_WORDS + _SPLIT].tolist()
    words[_NOTES:_SPLIT] = notes  # for the split, which packs positions with 64-bit keys
    special, left = notes[0] or notes[_NOTED], notes[1] or notes[_NOTED + 1]
    words[_PHASE] = _MERGE
    if left:  # keys left for the quicksort
        words[_PHASE] = _SPLIT_KEYS
        splitting = pieces_state(piece, 2, words)
        run_pieces(splitting)
        words[_SPLIT:] = splitting[RUNNER_WORDS + _SPLIT:].tolist()
        words[_PHASE] = _QUICKSORT
    run_pieces(pieces_state(piece, 2, words))
    del owner  # the pieces are done with the work memory
    if not indices and special:
        refill(src, src_step, dst, dst_step, n, unit, codec, flip)


def _lines(nbytes):
    """``nbytes`` rounded up to whole cache lines: each thread's counts then start a line of
    their own."""
    return -(-nbytes // ALIGNMENT) * ALIGNMENT


@functools.lru_cache(maxsize=None)
def _signed_words(flip, codec):
    """``flip`` and the six numbers of ``codec`` (uint64) as the int64 words of their bits."""
    return np.array([flip, *codec], np.uint64).view(np.int64).tolist()


def _whole(pieces):
    """The ``ends`` of a row in one run (see :func:`count_piece`)."""
    return np.array([pieces[-1][1]], np.uint64)


def _count_row(keys, pieces, least, low_bit, bits, dst, dst_step, unit, codec, flip):
    """Sort the values of a row whose ``keys`` differ in ``bits`` bits from ``low_bit`` on by
    counting them: each thread counts a piece of the keys (:func:`count_piece`), then writes a
    piece of the places (:func:`fill_piece`)."""
    shift, mask = np.uint64(low_bit), np.uint64((1 << bits) - 1)
    counts = np.empty((len(pieces), 1 << bits), np.uint64)
    run_in_parallel(count_piece, [(keys, _whole(pieces), np.uint64(0), low, high, least, shift,
                                   mask, counts[k]) for k, (low, high) in enumerate(pieces)])
    ends = np.cumsum(counts.sum(0)).astype(np.int64)
    run_in_parallel(fill_piece, [
        (ends, int(np.searchsorted(ends, low, "right")), low, high, least, shift, dst, dst_step,
         unit, codec, flip) for low, high in pieces if low < high])


def _near_row(keys, n, with_order, dst, dst_step, codec, flip, packed):
    """Try the insertion sort of the two halves of a row's ``keys`` (and ``with_order`` their
    positions alongside), one per thread (:func:`near_piece`), and where both sort, write their
    stable merge (:func:`merge_piece`). Return whether it did, and the positions of the keys
    then (empty where they are still ``0, 1, ...``)."""
    halves = [(0, n // 2), (n // 2, n)]
    done = np.zeros(2, np.uint8)
    if with_order:  # a try that fails would cost the positions' pass: first try copies of starts
        starts = [keys[low:min(low + _PROBED, high)].copy() for low, high in halves]
        run_in_parallel(near_piece, [(start, _NO_ORDER, 0, start.size, done[k:k + 1])
                                     for k, start in enumerate(starts)])
        if not done.all():
            return False, _NO_ORDER
    order = _room(keys.size, _POSITION) if with_order else _NO_ORDER
    run_in_parallel(near_piece, [(keys, order, low, high, done[k:k + 1])
                                 for k, (low, high) in enumerate(halves)])
    if not done.all():
        return False, order
    run_in_parallel(merge_piece, [(keys, order, n // 2, n, start, end, dst, dst_step, codec, flip,
                                   packed) for start, end in halves])
    return True, order


def _radix_row(keys, order, pieces, least, low_bit, bits, with_order, packed, dst, dst_step,
               codec, flip):
    """Sort the ``keys`` of a row (and its positions alongside, in arrays ``with_order``: in
    ``order``, or where it is empty still ``0, 1, ...``; or ``packed`` in the keys' lower
    halves) stably on ``bits`` bits from ``low_bit`` on: passes of at most ``_DIGIT`` bits (one
    pass for up to ``_ONE_PASS``), each of which counts each piece's digits
    (:func:`count_piece`) and moves each piece's keys to its own part of every
    digit's place (:func:`scatter_piece`), with ``_GAP`` free places after each digit's keys
    (see :func:`_radix`; ``keys`` has room for them). The last pass writes the result."""
    n, room = pieces[-1][1], keys.size
    spare_keys = _room(room, keys.dtype)
    first = with_order and not order.size
    if first:
        order = _room(room, _POSITION)
    spare_order = _room(room, _POSITION) if with_order else _NO_ORDER
    ends, space = _whole(pieces), np.uint64(0)
    passes = 1 if bits <= _ONE_PASS else -(-bits // _DIGIT)
    digit = -(-bits // passes)
    mask = np.uint64((1 << digit) - 1)
    counts = np.empty((len(pieces), 1 << digit), np.uint64)
    for p in range(passes):
        shift = np.uint64(low_bit + p * digit)
        run_in_parallel(count_piece, [(keys, ends, space, low, high, least, shift, mask,
                                       counts[k]) for k, (low, high) in enumerate(pieces)])
        totals = counts.sum(0)
        last = p == passes - 1
        if not last and totals.max() == n:
            continue  # every key has this digit: the pass would not move anything
        gap = np.uint64(0 if last else _GAP)
        starts = np.cumsum(totals + gap) - totals - gap
        offsets = rows_apart(np.cumsum(counts, 0) - counts + starts)
        run_in_parallel(scatter_piece, [
            (keys, order, ends, space, low, high, least, shift, mask, offsets[k], spare_keys,
             spare_order, first, dst if last else 0, dst_step, codec, flip, packed)
            for k, (low, high) in enumerate(pieces)])
        keys, spare_keys, order, spare_order = spare_keys, keys, spare_order, order
        ends, space, first = np.cumsum(totals), gap, False


def _in_runs(keys, n, least, shift, mask, buckets):
    """Whether most keys of a row share a bucket (``buckets[digit]``, see :func:`move_piece`)
    with the key before them, in at most ``_SAMPLED`` keys from four places of the row."""
    same = pairs = 0
    for k in range(4):
        start = k * n // 4
        sample = keys[start:min(start + _SAMPLED // 4, n)].astype(np.uint64)
        found = buckets[((sample - least) >> shift) & mask]
        same += np.count_nonzero(found[1:] == found[:-1])
        pairs += max(found.size - 1, 0)
    return same * 2 > pairs


def _bucket_row(keys, pieces, least, low_bit, bits, dst, dst_step, codec, flip):
    """Sort the values of a row whose ``keys`` differ in ``bits`` bits from ``low_bit`` on in
    buckets of about ``_BUCKET`` keys, runs of the ``_PREFIX`` top bits' values that a
    count of them sets, unless a few values of those bits hold too many keys for the threads
    to share the work (then return False). Each thread counts and moves a piece of the keys
    (:func:`count_piece`, :func:`move_piece`), then sorts the rest of whole buckets, about as
    many keys each (:func:`finish_piece`)."""
    n = pieces[-1][1]
    prefix = min(bits, _PREFIX)
    shift, mask = np.uint64(low_bit + bits - prefix), np.uint64((1 << prefix) - 1)
    counts = np.empty((len(pieces), 1 << prefix), np.uint64)
    run_in_parallel(count_piece, [(keys, _whole(pieces), np.uint64(0), low, high, least, shift,
                                   mask, counts[k]) for k, (low, high) in enumerate(pieces)])
    totals = counts.sum(0)
    size = max(1, min(_BUCKET, n // (16 * len(pieces))))  # short rows: buckets to share
    runs = ((np.cumsum(totals) - totals) // size).astype(np.int64)
    new = np.diff(runs, prepend=-1) != 0  # the prefix values that start a bucket
    buckets = (np.cumsum(new) - 1).astype(np.uint16)  # a table that stays in the cache
    counts = np.add.reduceat(counts, np.flatnonzero(new), axis=1)
    totals = counts.sum(0)
    ends = np.cumsum(totals)
    cuts = [0, *np.searchsorted(ends, [high for _, high in pieces[:-1]]), ends.size]
    shares = np.diff(np.append(np.uint64(0), ends)[cuts])
    if shares.max() > 5 * n // (4 * len(pieces)):
        return False
    # room after each bucket: a long one's for the gaps of its radix sort (see _radix)
    spaces = np.where(totals >= 2 * _BUCKET, _GAP << _ONE_PASS, _SPACED).astype(np.uint64)
    starts = np.append(np.uint64(0), np.cumsum(totals + spaces)).astype(np.int64)
    offsets = rows_apart(np.cumsum(counts, 0) - counts + starts[:-1].astype(np.uint64))
    spare = _room(int(starts[-1]), keys.dtype)
    # the radix sorts of buckets too long for a thread's work memory go through room of their own
    scratch = _room(spare.size, keys.dtype) if (totals >= 2 * _BUCKET).any() else spare[:0]
    runs = _in_runs(keys, n, least, shift, mask, buckets)
    run_in_parallel(move_piece, [(keys, low, high, least, shift, mask, buckets, offsets[k],
                                  spare, runs) for k, (low, high) in enumerate(pieces)])
    run_in_parallel(finish_piece, [
        (spare, scratch, ends.astype(np.int64), starts, first, last,
         np.empty(_COUNTED_ROOM, np.uint64), _room(2 * _HELD, keys.dtype), dst, dst_step, codec,
         flip) for first, last in zip(cuts[:-1], cuts[1:])])
    return True
