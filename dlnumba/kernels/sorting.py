"""Sorting kernels: rows sorted stably on order-preserving integer keys (an LSD radix sort for
long rows, a merge sort for short ones), and the searches that use the same order.

Every element becomes an unsigned key of its own width whose integer order is the sort order:
unsigned integers as they are, signed ones with the sign bit flipped, IEEE floats (float16,
bfloat16, float32, float64) with the sign bit set on positives and every bit flipped on
negatives. Every NaN gets the largest key and both zeros the key of +0, so NaNs sort last
(first when descending, where keys are inverted) and equal values keep their order: both sorts
are stable. A sorted row of values is decoded from its keys, and the NaNs and zeros, whose
keys lost their bits, are then written again in the order they have in the row. Complex numbers
have three keys, compared in turn as NumPy orders them: which parts are NaN (none, imaginary,
real, both), the real part, the imaginary part; a complex row is sorted by positions.

Layouts follow the copy engine: the dimensions other than the sorted one are a plan (``shape``,
two strides arrays, at least 2-D) walked with a runtime number of dimensions; the sorted axis is
a length and a stride per side. What compiles is chosen by the storage unit (``unit``, an empty
uint8/16/32/64 array: four cover every dtype), the kernel (:func:`sort_rows` for values,
:func:`order_rows` for positions) and whether rows are long enough for a radix sort; how bits
become keys is runtime data (``codec``, see :func:`key_layout`).
"""

import numpy as np
from numba import njit

from .. import _dtypes
from ..shared.plan import make_plan
from ..shared.tags import UNITS
from .threads import PARALLEL_BYTES, THREADS, run_in_parallel
from .transfer import _typed_pointer
from .walk import advance, odometer

_SMALL = 16  # merge sorts start from runs this long, sorted by insertion
_RADIX = 640  # rows this long are radix sorted (measured crossover with merging)
_COUNTS = 6 << 11  # a radix sort's buckets: 64-bit keys take 6 passes of 11 bits
_NO_ORDER = np.empty(0, np.int64)  # a sort of values sorts its keys without positions


@njit(inline="always")
def _top(unit):
    """The sign bit of an array's items, as a uint64."""
    return np.uint64(1) << np.uint64(unit.itemsize * 8 - 1)


@njit(inline="always")
def _encode(bits, codec, top, mask):
    """The key of the stored bits ``bits`` (a uint64; ``top`` is the unit's sign bit, ``mask``
    all of its bits). Every branch is on data: a runtime kind would make LLVM copy loops."""
    infinity, positive, negative, zero_bits, zero_key = codec
    if bits & ~top > infinity:
        return mask
    if bits & zero_bits == 0:
        return zero_key
    return bits ^ (negative if bits & top else positive)


@njit(inline="always")
def _decode(key, codec, top):
    """The stored bits of an (ascending) key; NaNs and zeros come out as one canonical form."""
    _, positive, negative, _, _ = codec
    return key ^ (positive if key & top else negative)


@njit(nogil=True)
def _radix(keys, order, spare_keys, spare_order, n, bits, counts):
    """Stable LSD radix sort of ``keys[:n]`` (and ``order`` alongside unless it is empty);
    returns whether the result is in the spares. ``counts`` has room for every pass's buckets
    (``_COUNTS``)."""
    with_order = order.size > 0
    digit = 11 if bits >= 32 else 8
    buckets = 1 << digit
    mask = np.uint64(buckets - 1)
    passes = (bits + digit - 1) // digit
    for i in range(passes * buckets):
        counts[i] = 0
    swapped = False
    for i in range(n):
        key = np.uint64(keys[i])
        for p in range(passes):
            counts[p * buckets + np.int64((key >> np.uint64(p * digit)) & mask)] += 1
    for p in range(passes):
        shift = np.uint64(p * digit)
        base = p * buckets
        if counts[base + np.int64((np.uint64(keys[0]) >> shift) & mask)] == n:
            continue  # every key has this digit: the pass would not move anything
        total = 0
        for b in range(base, base + buckets):
            total, counts[b] = total + counts[b], total
        if with_order:
            for i in range(n):
                d = base + np.int64((np.uint64(keys[i]) >> shift) & mask)
                spare_keys[counts[d]] = keys[i]
                spare_order[counts[d]] = order[i]
                counts[d] += 1
        else:
            for i in range(n):
                d = base + np.int64((np.uint64(keys[i]) >> shift) & mask)
                spare_keys[counts[d]] = keys[i]
                counts[d] += 1
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
        swapped = not swapped
    return swapped


@njit(inline="always")
def _insertion(keys, order, low, high):
    """Stable insertion sort of ``keys[low:high]`` (and ``order`` alongside unless it is
    empty), in place."""
    with_order = order.size > 0
    for i in range(low + 1, high):
        key, position = keys[i], order[i] if with_order else 0
        j = i - 1
        while j >= low and keys[j] > key:
            keys[j + 1] = keys[j]
            if with_order:
                order[j + 1] = order[j]
            j -= 1
        keys[j + 1] = key
        if with_order:
            order[j + 1] = position


@njit(nogil=True)
def _merge_sort(keys, order, spare_keys, spare_order, n):
    """Stable merge sort of ``keys[:n]`` (and ``order`` alongside unless it is empty): runs of
    ``_SMALL`` sorted by insertion, then merged pairwise; returns whether the result is in the
    spares."""
    with_order = order.size > 0
    for low in range(0, n, _SMALL):
        _insertion(keys, order, low, min(low + _SMALL, n))
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


@njit(nogil=True)
def _sort_keys(keys, order, spare_keys, spare_order, n, counts):
    """Sort ``keys[:n]`` stably (``order`` alongside unless it is empty); returns whether the
    result is in the spares. Rows of ``_RADIX`` or more are radix sorted in ``counts``'s
    buckets; shorter ones, which pass ``counts`` None, are merge sorted, and then the radix sort
    is not even compiled."""
    if counts is None:
        return _merge_sort(keys, order, spare_keys, spare_order, n)
    return _radix(keys, order, spare_keys, spare_order, n, keys.itemsize * 8, counts)


@njit(nogil=True)
def _sort_values(src, s, src_step, dst, t, dst_step, n, codec, flip, keys, spare, no_order,
                 counts):
    """Write the sorted values of one real row (its keys sorted without an order)."""
    top, mask = _top(keys), _top(keys) * np.uint64(2) - np.uint64(1)
    infinity, zero_bits = codec[0], codec[3]
    nans = negatives = zeros = 0
    refill = False
    for i in range(n):
        bits = np.uint64(src[s + i * src_step])
        if bits & ~top > infinity:
            nans += 1
        elif bits & zero_bits == 0:
            zeros += 1
            refill = refill or bits != 0
        elif bits & top:
            negatives += 1
        keys[i] = _encode(bits, codec, top, mask) ^ flip
    if _sort_keys(keys, no_order, spare, no_order, n, counts):
        keys = spare
    for i in range(n):
        dst[t + i * dst_step] = _decode(np.uint64(keys[i]) ^ flip, codec, top)
    if refill or nans:  # NaNs and zeros again, with their own bits, in their order in the row
        if flip:
            nan_slot, zero_slot = 0, n - negatives - zeros
        else:
            nan_slot, zero_slot = n - nans, negatives
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
    top, mask = _top(keys), _top(keys) * np.uint64(2) - np.uint64(1)
    for i in range(n):
        order[i] = i
    for part in range(components - 1, -1 - (components > 1), -1):
        if part < 0:
            for i in range(n):
                keys[i] = _nan_parts(src, s + order[i] * src_step, codec[0], top) ^ flip
        else:
            for i in range(n):
                bits = np.uint64(src[(s + order[i] * src_step) * components + part])
                keys[i] = _encode(bits, codec, top, mask) ^ flip
        if _sort_keys(keys, order, spare, spare_order, n, counts):
            for i in range(n):
                order[i] = spare_order[i]
    return order


@njit(cache=True, nogil=True)
def sort_rows(shape, src_strides, dst_strides, src_address, dst_address, n, src_step, dst_step,
              unit, codec, descending, keys, spare, no_order, counts):
    """Write the sorted values of every real row of ``n`` elements of a layout (see the module
    docstring). ``keys`` and ``spare`` have room for ``n`` keys, ``no_order`` is empty, and
    ``counts`` is room for a radix sort's buckets, or None for rows shorter than ``_RADIX``."""
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


@njit(cache=True, nogil=True)
def order_rows(shape, src_strides, dst_strides, src_address, dst_address, n, src_step, dst_step,
               unit, codec, components, descending, indices, keys, spare, order, spare_order,
               counts):
    """Sort every row of ``n`` elements of a layout by positions: write the int64 positions
    that sort each row (``indices``), or its values in that order (complex rows:
    ``components`` 2, ``unit`` the component's storage). ``order`` and ``spare_order`` have
    room for ``n`` positions; the rest is as for :func:`sort_rows`."""
    src = _typed_pointer(src_address, unit)
    dst_values = _typed_pointer(dst_address, unit)
    dst_indices = _typed_pointer(dst_address, order)
    flip = _top(unit) * np.uint64(2) - np.uint64(1) if descending else np.uint64(0)
    ndim = shape.size
    outer = 1
    for d in range(ndim):
        outer *= shape[d]
    index = odometer(ndim)
    s = t = np.int64(0)
    for _ in range(outer):
        positions = _sort_order(src, s, src_step, n, codec, flip, components, keys, spare, order,
                                spare_order, counts)
        for j in range(n):
            if indices:
                dst_indices[t + j * dst_step] = positions[j]
            else:
                for c in range(components):
                    dst_values[(t + j * dst_step) * components + c] = \
                        src[(s + positions[j] * src_step) * components + c]
        s, t = advance(index, shape, ndim - 1, (s, t), src_strides, dst_strides)


@njit(nogil=True)
def _compare(a, i, b, j, codec, components, top):
    """-1, 0 or 1 as element ``i`` of ``a`` sorts before, with or after element ``j`` of ``b``
    (element positions; NaNs compare equal to each other here)."""
    mask = top * np.uint64(2) - np.uint64(1)
    if components > 1:
        p, q = _nan_parts(a, i, codec[0], top), _nan_parts(b, j, codec[0], top)
        if p != q:
            return -1 if p < q else 1
    for c in range(components):
        p = _encode(np.uint64(a[i * components + c]), codec, top, mask)
        q = _encode(np.uint64(b[j * components + c]), codec, top, mask)
        if p != q:
            return -1 if p < q else 1
    return 0


@njit(nogil=True)
def _has_nan(a, i, codec, components, top):
    for c in range(components):
        if np.uint64(a[i * components + c]) & ~top > codec[0]:
            return True
    return False


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


def key_layout(dtype):
    """How elements of ``dtype`` become keys: ``(unit, codec, components)``.

    ``unit`` is the storage of one (real or imaginary) component; ``components`` 1 or 2;
    ``codec`` five uint64 numbers: the largest magnitude that is not NaN, what positive and
    negative items are xor-ed with, the bits that are all zero in a zero (-0 included), and
    the key of zero.
    """
    components = 2 if dtype.kind == "complex floating" else 1
    unit = UNITS[dtype.itemsize // components]
    top = 1 << (unit.itemsize * 8 - 1)
    mask = 2 * top - 1
    if dtype in _INFINITY:
        codec = (_INFINITY[dtype], top, mask, mask ^ top, top)
    elif dtype.kind == "signed integer":
        codec = (mask, top, top, mask, top)
    else:
        codec = (mask, 0, 0, mask, 0)
    return unit, tuple(np.uint64(v) for v in codec), components


def sort_axis(x, axis, out, descending, indices):
    """Sort the ndarray ``x`` along ``axis`` into ``out`` (an ndarray of ``x``'s shape): the
    values (``x``'s dtype), or with ``indices`` the int64 positions along the axis."""
    n = x.shape[axis]
    drop = lambda t: t[:axis] + t[axis + 1:]
    plan = make_plan(drop(x.shape), drop(x._strides), drop(out._strides))
    if plan is None or n == 0:
        return
    sizes = x._dtype.itemsize, out._dtype.itemsize
    unit, codec, components = key_layout(x._dtype)
    by_order = indices or components > 1

    def arguments(offsets, part):
        layout = (part, *plan.strides, x._address + (plan.offsets[0] + offsets[0]) * sizes[0],
                  out._address + (plan.offsets[1] + offsets[1]) * sizes[1], n,
                  x._strides[axis], out._strides[axis], unit, codec)
        work = (np.empty(n, unit.dtype), np.empty(n, unit.dtype))
        counts = np.empty(_COUNTS, np.int64) if n >= _RADIX else None
        if by_order:
            return (*layout, components, descending, indices, *work, np.empty(n, np.int64),
                    np.empty(n, np.int64), counts)
        return (*layout, descending, *work, _NO_ORDER, counts)

    kernel = order_rows if by_order else sort_rows
    if x.size * sizes[0] >= PARALLEL_BYTES and THREADS > 1 and plan.size > 1:
        run_in_parallel(kernel, [arguments(*piece) for piece in plan.split(THREADS)])
    else:
        kernel(*arguments((0, 0), plan.shape))
