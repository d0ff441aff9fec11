"""Indexing kernels: element offsets from index arrays and masks, gathers and scatters, and
the one-call paths of 1-D selections.

A general array-indexed read or write is two steps: compute the element offset (in the
source's strides) of each selected element, then move the elements by offset as raw units.
Offsets are int64 NumPy arrays; bounds are checked while they are computed. A selection along
one run of elements (a 1-D array, or a C-contiguous one with a mask of its shape) is one call
instead: :func:`take` and :func:`put` for integer indices, :func:`compress` and :func:`expand`
for a mask, the last two without a branch per element.

Reads and writes at random offsets are asked for :data:`PREFETCH_DISTANCE` elements ahead
(:func:`_prefetch`), so that many cache misses are under way at once rather than the few the
CPU finds alone: a gather of 1M random float32 from 16 MiB takes half the time.
"""

import numpy as np
from llvmlite import ir
from .._numba import cgutils, intrinsic, njit, types

from .transfer import _typed_pointer
from .walk import advance, entry_point, odometer

PREFETCH_DISTANCE = 128


@intrinsic
def _prefetch(typingctx, pointer, offset):
    """Start moving ``pointer[offset]`` into the caches; an address outside memory is ignored."""
    def codegen(context, builder, signature, args):
        byte_pointer = ir.IntType(8).as_pointer()
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer] + [ir.IntType(32)] * 3)
        prefetch = cgutils.get_or_insert_function(builder.module, function_type,
                                                  "llvm.prefetch.p0i8")
        element = builder.bitcast(builder.gep(args[0], [args[1]]), byte_pointer)
        read, keep, data = (ir.Constant(ir.IntType(32), value) for value in (0, 3, 1))
        builder.call(prefetch, [element, read, keep, data])
        return context.get_dummy_value()

    return types.void(pointer, types.intp), codegen


@njit(inline="always")
def _rows(shape):
    """The number of innermost runs of a C-order walk over ``shape`` (at least 1-D)."""
    rows = 1
    for d in range(shape.size - 1):
        rows *= shape[d]
    return rows


@entry_point()
def layout_offsets(shape, strides, out):
    """``out`` = the element offset of every index of ``shape``, in C order."""
    if shape.size == 0:
        out[0] = 0
        return
    last = shape.size - 1
    inner, step = shape[last], strides[last]
    index = odometer(last + 1)
    base = k = 0
    for _ in range(_rows(shape) if inner else 0):
        for i in range(inner):
            out[k + i] = base + i * step
        k += inner
        base, = advance(index, shape, last - 1, (base,), strides)


@entry_point()
def add_index_offsets(offsets, indices, size, stride):
    """``offsets += wrap(indices) * stride``; return the position of the first index outside
    ``[-size, size)``, or -1."""
    for k in range(offsets.size):
        i = indices[k]
        if i < 0:
            i += size
        if i < 0 or i >= size:
            return k
        offsets[k] += i * stride
    return -1


@entry_point()
def mask_offsets(mask, mask_shape, strides, out):
    """Write the offsets of the true elements of a C-ordered mask to ``out``; return the count."""
    if mask_shape.size == 0:
        out[0] = 0
        return int(mask[0] != 0)
    last = mask_shape.size - 1
    inner, step = mask_shape[last], strides[last]
    index = odometer(last + 1)
    base = k = count = 0
    for _ in range(_rows(mask_shape) if inner else 0):
        for i in range(inner):
            if mask[k + i]:
                out[count] = base + i * step
                count += 1
        k += inner
        base, = advance(index, mask_shape, last - 1, (base,), strides)
    return count


@entry_point()
def gather(src_address, offsets, dst_address, unit):
    """``dst[k] = src[offsets[k]]``: a contiguous ``dst`` of units."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    ahead = offsets.size - PREFETCH_DISTANCE
    for k in range(offsets.size):
        if k < ahead:
            _prefetch(src, offsets[k + PREFETCH_DISTANCE])
        dst[k] = src[offsets[k]]


@njit(inline="always")  # compiled only into the C functions that call it (kernels.__init__)
def take(src_address, size, stride, index_address, count, dst_address, unit, index_unit):
    """``dst[k] = src[wrap(index[k]) * stride]`` for ``count`` contiguous int64 indices (read
    through ``index_unit``, uint64) into a contiguous ``dst``; return the position of the first
    index outside ``[-size, size)``, or -1."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    index = _typed_pointer(index_address, index_unit)
    outside = _first_outside(index, count, size)
    if outside >= 0:
        return outside
    ahead = count - PREFETCH_DISTANCE
    for k in range(count):  # checked above: no bounds test per element (half the time, 1M indices)
        if k < ahead:
            _prefetch(src, _wrap(index[k + PREFETCH_DISTANCE], size) * stride)
        dst[k] = src[_wrap(index[k], size) * stride]
    return -1


@entry_point()
def put(src_address, src_stride, index_address, count, dst_address, size, stride, unit,
        index_unit):
    """``dst[wrap(index[k]) * stride] = src[k * src_stride]`` for ``count`` contiguous int64
    indices (read through ``index_unit``, uint64), later writes winning; nothing is written
    unless every index is in ``[-size, size)``. Return the position of the first that is not,
    or -1."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    index = _typed_pointer(index_address, index_unit)
    outside = _first_outside(index, count, size)
    if outside >= 0:
        return outside
    ahead = count - PREFETCH_DISTANCE
    for k in range(count):
        if k < ahead:
            _prefetch(dst, _wrap(index[k + PREFETCH_DISTANCE], size) * stride)
        dst[_wrap(index[k], size) * stride] = src[k * src_stride]
    return -1


@entry_point()
def first_outside(index_address, count, size, index_unit):
    """The position of the first of ``count`` contiguous int64 indices (read through
    ``index_unit``, uint64) outside ``[-size, size)``, or -1."""
    return _first_outside(_typed_pointer(index_address, index_unit), count, size)


@njit(inline="always")
def _wrap(index, size):
    """The uint64 ``index``, read as an int64 in ``[-size, size)``, wrapped into ``[0, size)``
    without a branch."""
    i = np.int64(index)
    return i + (size & (i >> 63))


@njit(inline="always")
def _first_outside(index, count, size):
    """The position of the first of ``count`` uint64 ``index`` values that is, as an int64,
    outside ``[-size, size)``, or -1. The test of all is one loop LLVM vectorizes."""
    bound = np.uint64(2 * size)
    outside = False
    for k in range(count):  # i + size < 2 * size, unsigned, for exactly the i in range
        outside |= index[k] + np.uint64(size) >= bound
    if outside:
        for k in range(count):
            if index[k] + np.uint64(size) >= bound:
                return k
    return -1


@entry_point()
def compress(src_address, size, stride, mask_address, mask_stride, dst_address, unit, flag_unit):
    """Write the elements ``src[i * stride]`` whose bool ``mask[i * mask_stride]`` (read
    through ``flag_unit``, uint8) is true, in order, to a contiguous ``dst`` with room for
    ``size`` of them (or for their count + 1); return their count."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    mask = _typed_pointer(mask_address, flag_unit)
    count = 0
    for i in range(size):  # every element is written; only the selected ones advance
        dst[count] = src[i * stride]
        count += mask[i * mask_stride] != 0
    return count


@njit(inline="always")  # compiled only into the C function that calls it (kernels.__init__)
def expand(src_address, src_stride, size, mask_address, mask_stride, dst_address, stride, unit,
           flag_unit):
    """``dst[i * stride] = src[k * src_stride]`` for the ``k``-th true bool
    ``mask[i * mask_stride]`` (read through ``flag_unit``, uint8), ``i < size``; ``src`` has
    room for one value more than the mask selects."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    mask = _typed_pointer(mask_address, flag_unit)
    k = 0
    for i in range(size):  # every element is rewritten: no branch to mispredict
        selected = mask[i * mask_stride] != 0
        value = src[k * src_stride]
        dst[i * stride] = value if selected else dst[i * stride]
        k += selected


@entry_point()
def scatter(src_address, offsets, dst_address, unit):
    """``dst[offsets[k]] = src[k]`` from a contiguous ``src`` of units (later writes win)."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    ahead = offsets.size - PREFETCH_DISTANCE
    for k in range(offsets.size):
        if k < ahead:
            _prefetch(dst, offsets[k + PREFETCH_DISTANCE])
        dst[offsets[k]] = src[k]
