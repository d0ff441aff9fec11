"""CPU kernels (``numba.njit``): the engine through which every copy and cast goes."""

import concurrent.futures
import os

import numpy as np

from .. import _dtypes
from .._layout import c_strides
from .plan import make_plan, split
from .transfer import BFLOAT16_TAG, FLOAT16_TAG, transfer

__all__ = ["copy_array"]

_TAGS = {d: np.empty(0, BFLOAT16_TAG if d is _dtypes.bfloat16 else
                     FLOAT16_TAG if d is _dtypes.float16 else d.storage)
         for d in _dtypes.DTYPES}
_UNITS = {1: np.empty(0, np.uint8), 2: np.empty(0, np.uint16), 4: np.empty(0, np.uint32),
          8: np.empty(0, np.uint64), 16: np.empty(0, np.complex128)}
_PARALLEL_BYTES = 1 << 21
_THREADS = os.cpu_count() or 1
_pool = None


def copy_array(src_address, src_strides, src_dtype, dst_address, dst_strides, dst_dtype, shape):
    """Write the elements of one layout, converted to ``dst_dtype``, into another layout.

    Parameters
    ----------
    src_address, dst_address : int
        Addresses of the elements at index ``(0, ..., 0)``.
    src_strides, dst_strides : tuple of int
        Strides in elements; the source may have zero strides (broadcasting).
    src_dtype, dst_dtype : DType
    shape : tuple of int

    The conversion is NumPy's ``astype`` (unsafe casting). Overlapping source and destination
    behave as if the source were read completely before the first write.
    """
    src_size, dst_size = src_dtype.itemsize, dst_dtype.itemsize
    plan = make_plan(shape, src_strides, dst_strides, max(src_size, dst_size))
    if plan is None:
        return
    same = src_dtype is dst_dtype
    src_low, src_high = (src_address + e * src_size for e in plan.src_extent)
    dst_low, dst_high = (dst_address + e * dst_size for e in plan.dst_extent)
    if src_low < dst_high + dst_size and dst_low < src_high + src_size:
        if same and src_address == dst_address and src_strides == dst_strides:
            return
        snapshot = np.empty(plan.size * src_size, np.uint8)
        address, strides = snapshot.__array_interface__["data"][0], c_strides(shape)
        copy_array(src_address, src_strides, src_dtype, address, strides, src_dtype, shape)
        copy_array(address, strides, src_dtype, dst_address, dst_strides, dst_dtype, shape)
        return
    if not same:
        src_tag, dst_tag = _TAGS[src_dtype], _TAGS[dst_dtype]
    elif (src_address | dst_address) % min(src_size, 8) == 0:
        src_tag = dst_tag = _UNITS[src_size]
    else:  # misaligned: move bytes, the item's bytes being the innermost dimension
        plan = make_plan(shape + (src_size,), tuple(s * src_size for s in src_strides) + (1,),
                         tuple(s * src_size for s in dst_strides) + (1,), 1)
        src_tag = dst_tag = _UNITS[1]
        src_size = dst_size = 1
    src_address += plan.src_offset * src_size
    dst_address += plan.dst_offset * dst_size
    if plan.size * max(src_size, dst_size) < _PARALLEL_BYTES or _THREADS == 1:
        transfer(src_address, dst_address, plan.shape, plan.src_strides, plan.dst_strides,
                 plan.tile, src_tag, dst_tag)
        return
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(_THREADS, "dlnumba-copy")
    jobs = [_pool.submit(transfer, src_address + s * src_size, dst_address + d * dst_size, part,
                         plan.src_strides, plan.dst_strides, plan.tile, src_tag, dst_tag)
            for s, d, part in split(plan, _THREADS)]
    for job in jobs:
        job.result()
