"""CUDA kernels: the strided copy/cast engine on one device.

One kernel per (source, destination) dtype pair, compiled on first use: the layout travels as
an int64 array (shape, then each operand's strides, in elements) with a runtime rank, so no
rank or layout is ever specialized; a same-dtype copy moves raw 1/2/4/8/16-byte units. Index
arithmetic is 64-bit. Conversions are the CPU engine's own (``kernels.transfer._convert``,
compiled for the device), so a cast gives the same bits on both backends.
"""

import functools

import numpy as np
from numba import cuda, njit

from ..kernels import _TAGS, _UNITS
from ..kernels.plan import make_plan
from ..kernels.transfer import _convert
from ._backend import allocate, copy_bytes, device_view, launch_shape, plan_view


@functools.lru_cache(maxsize=None)
def _transfer_kernel(src_dtype, dst_dtype):
    """The copy kernel from ``src_dtype`` to ``dst_dtype`` elements (raw units when they are
    the same dtype)."""
    src_tag, dst_tag = _tags(src_dtype, dst_dtype)

    @njit
    def convert(value):
        return _convert(value, src_tag, dst_tag)

    @cuda.jit
    def transfer(src, src_start, dst, dst_start, layout, ndim, n):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < n:
            rest = i
            s = src_start
            d = dst_start
            k = ndim - 1
            while k >= 0:
                q = rest // layout[k]
                r = rest - q * layout[k]
                s += r * layout[ndim + k]
                d += r * layout[2 * ndim + k]
                rest = q
                k -= 1
            dst[d] = convert(src[s])
            i += step

    return transfer


def _storage(tag):
    """The NumPy dtype of the memory behind a tag (float16/bfloat16 tags are records of their
    uint16 bits)."""
    return np.dtype(np.uint16) if tag.dtype.fields else tag.dtype


def _tags(src_dtype, dst_dtype):
    if src_dtype is dst_dtype:
        unit = _UNITS[src_dtype.itemsize]
        return unit, unit
    return _TAGS[src_dtype], _TAGS[dst_dtype]


def copy_array(src_address, src_strides, src_dtype, dst_address, dst_strides, dst_dtype, shape,
               index):
    """Write the elements of one layout on CUDA device ``index``, converted to ``dst_dtype``,
    into another layout on the same device; the arguments are those of
    :func:`dlnumba.kernels.copy_array`, and so is the result (NumPy's ``astype``; an overlapping
    source is read completely before the first write)."""
    plan = make_plan(shape, src_strides, dst_strides)
    if plan is None:
        return
    (src_low, src_high), (dst_low, dst_high) = plan.extents
    src_size, dst_size = src_dtype.itemsize, dst_dtype.itemsize
    if (src_address + src_low * src_size < dst_address + (dst_high + 1) * dst_size
            and dst_address + dst_low * dst_size < src_address + (src_high + 1) * src_size):
        if src_address == dst_address and src_strides == dst_strides and src_dtype is dst_dtype:
            return
        nbytes = (src_high - src_low + 1) * src_size
        address, owner = allocate(nbytes, index)
        copy_bytes(address, src_address + src_low * src_size, nbytes, index)
        copy_array(address - src_low * src_size, src_strides, src_dtype, dst_address,
                   dst_strides, dst_dtype, shape, index)
        return
    src_tag, dst_tag = _tags(src_dtype, dst_dtype)
    kernel = _transfer_kernel(src_dtype, dst_dtype)
    blocks, threads = launch_shape(plan.size)
    with cuda.gpus[index]:
        src = device_view(src_address + src_low * src_size, src_high - src_low + 1,
                          _storage(src_tag))
        dst = device_view(dst_address + dst_low * dst_size, dst_high - dst_low + 1,
                          _storage(dst_tag))
        layout = plan_view(np.concatenate([plan.shape, *plan.strides]))
        kernel[blocks, threads](
            src, plan.offsets[0] - src_low, dst, plan.offsets[1] - dst_low, layout,
            plan.shape.size, plan.size)
        cuda.synchronize()

