"""Same-dtype strided copies between any two layouts, moved as 1/2/4/8-byte units.

A copy is planned in Python (size-1 dims dropped, contiguous dims merged, the widest unit that
the addresses, strides and itemsize allow) and run by one compiled kernel per unit width, with
the number of dimensions a runtime value: four compilations cover every dtype and ndim.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .._layout import extent

_UNITS = {8: np.empty(0, np.uint64), 4: np.empty(0, np.uint32),
          2: np.empty(0, np.uint16), 1: np.empty(0, np.uint8)}


@intrinsic
def _typed_pointer(typingctx, address, witness):
    """A pointer to ``witness.dtype`` at the integer ``address``."""
    pointer_type = types.CPointer(witness.dtype)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer_type))

    return pointer_type(types.intp, witness), codegen


@njit(cache=True, nogil=True)
def _copy_units(src_address, dst_address, shape, src_strides, dst_strides, unit):
    """Copy ``shape`` units from ``src`` to ``dst``; strides are in units, the last dim innermost."""
    src = _typed_pointer(src_address, unit)
    dst = _typed_pointer(dst_address, unit)
    last = shape.size - 1
    inner, src_step, dst_step = shape[last], src_strides[last], dst_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = np.zeros(last + 1, np.int64)
    src_offset = dst_offset = 0
    for _ in range(outer):
        if src_step == 1 and dst_step == 1:
            for i in range(inner):
                dst[dst_offset + i] = src[src_offset + i]
        else:
            for i in range(inner):
                dst[dst_offset + i * dst_step] = src[src_offset + i * src_step]
        d = last - 1
        while d >= 0:
            index[d] += 1
            src_offset += src_strides[d]
            dst_offset += dst_strides[d]
            if index[d] < shape[d]:
                break
            src_offset -= src_strides[d] * shape[d]
            dst_offset -= dst_strides[d] * shape[d]
            index[d] = 0
            d -= 1


def copy_strided(src_address, src_strides, dst_address, dst_strides, shape, itemsize):
    """Copy elements of ``itemsize`` bytes from one layout to another of the same shape.

    Parameters
    ----------
    src_address, dst_address : int
        Addresses of the elements at index ``(0, ..., 0)``.
    src_strides, dst_strides : sequence of int
        Strides in bytes; any sign, zero in ``src`` for broadcasting.
    shape : sequence of int
        The common shape.
    itemsize : int
        Bytes per element.

    Overlapping source and destination give the result of copying from a snapshot of the source.
    """
    dims = [(n, s, d) for n, s, d in zip(shape, src_strides, dst_strides) if n != 1]
    if any(n == 0 for n, _, _ in dims):
        return
    sizes = [n for n, _, _ in dims]
    src_low, src_high = extent(sizes, [s for _, s, _ in dims])
    dst_low, dst_high = extent(sizes, [d for _, _, d in dims])
    snapshot = None
    if src_address + src_low < dst_address + dst_high + itemsize and \
            dst_address + dst_low < src_address + src_high + itemsize:
        if src_address == dst_address and all(s == d for _, s, d in dims):
            return
        src_address, dims, snapshot = _snapshot(src_address, dims, itemsize)
    merged = []
    for n, s, d in dims:
        if merged and merged[-1][1] == s * n and merged[-1][2] == d * n:
            merged[-1] = (merged[-1][0] * n, s, d)
        else:
            merged.append((n, s, d))
    unit = min(itemsize, 8)
    while any(v % unit for v in (src_address, dst_address, *(x for _, s, d in merged for x in (s, d)))):
        unit //= 2
    if unit < itemsize:
        merged.append((itemsize // unit, unit, unit))
    if not merged:
        merged.append((1, 0, 0))
    shape_units = np.array([n for n, _, _ in merged], np.int64)
    src_units = np.array([s // unit for _, s, _ in merged], np.int64)
    dst_units = np.array([d // unit for _, _, d in merged], np.int64)
    _copy_units(src_address, dst_address, shape_units, src_units, dst_units, _UNITS[unit])
    del snapshot  # the snapshot's memory had to outlive the kernel


def _snapshot(src_address, dims, itemsize):
    """Copy the source into fresh contiguous memory; return its address, layout and owner."""
    from .._memory import allocate_host

    count = 1
    for n, _, _ in dims:
        count *= n
    address, owner = allocate_host(count * itemsize)
    strides, step = [], itemsize
    for n, _, _ in reversed(dims):
        strides.append(step)
        step *= n
    strides.reverse()
    copy_strided(src_address, [s for _, s, _ in dims], address, strides, [n for n, _, _ in dims],
                 itemsize)
    return address, [(n, t, d) for (n, _, d), t in zip(dims, strides)], owner
