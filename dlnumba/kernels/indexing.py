"""Indexing kernels: element offsets from index arrays and masks, then gather and scatter.

Every array-indexed read or write is two steps: compute the element offset (in the source's
strides) of each selected element, then move the elements by offset as raw units. Offsets are
int64 NumPy arrays; bounds are checked while they are computed.
"""

from numba import njit

from .transfer import _typed_pointer
from .walk import odometer


@njit(cache=True, nogil=True)
def layout_offsets(shape, strides, out):
    """``out`` = the element offset of every index of ``shape``, in C order."""
    ndim = shape.size
    index = odometer(ndim)
    offset = 0
    for k in range(out.size):
        out[k] = offset
        d = ndim - 1
        while d >= 0:
            index[d] += 1
            offset += strides[d]
            if index[d] < shape[d]:
                break
            offset -= strides[d] * shape[d]
            index[d] = 0
            d -= 1


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def mask_offsets(mask, mask_shape, strides, out):
    """Write the offsets of the true elements of a C-ordered mask to ``out``; return the count."""
    ndim = mask_shape.size
    index = odometer(ndim)
    offset = 0
    count = 0
    for k in range(mask.size):
        if mask[k]:
            out[count] = offset
            count += 1
        d = ndim - 1
        while d >= 0:
            index[d] += 1
            offset += strides[d]
            if index[d] < mask_shape[d]:
                break
            offset -= strides[d] * mask_shape[d]
            index[d] = 0
            d -= 1
    return count


@njit(cache=True, nogil=True)
def gather(src_address, offsets, dst_address, unit):
    """``dst[k] = src[offsets[k]]``: a contiguous ``dst`` of units."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    for k in range(offsets.size):
        dst[k] = src[offsets[k]]


@njit(cache=True, nogil=True)
def scatter(src_address, offsets, dst_address, unit):
    """``dst[offsets[k]] = src[k]`` from a contiguous ``src`` of units (later writes win)."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    for k in range(offsets.size):
        dst[offsets[k]] = src[k]
