"""The copy engine: every copy and cast between two strided layouts on the host, planned once
per layout and dtypes; overlapping and misaligned operands are handled here, the loops run in
:mod:`.transfer` (large layouts) or :mod:`.walk` (small ones)."""

import functools

import numpy as np

from .. import _dtypes
from .._layout import c_layout, size_of
from .._native import copy_memory
from ..shared.plan import make_plan
from ..shared.tags import COMPUTED, TAGS, UNITS
from .threads import PARALLEL_BYTES, THREADS, VECTORIZED_SIZE, run_in_parallel
from .transfer import transfer, transfer_run
from .walk import byte_layout, walk_function


class _Job:
    """Everything about a transfer that depends only on its layouts and dtypes."""

    __slots__ = ("plan", "src_tag", "dst_tag", "src_low", "src_high", "dst_low", "dst_high",
                 "src_start", "dst_start", "alignment", "parallel", "walk_layout", "walk")

    def __init__(self, shape, src_strides, dst_strides, src_dtype, dst_dtype):
        # Small layouts take the small-array engine, which walks them plainly (untiled).
        small = size_of(shape) < VECTORIZED_SIZE
        self.plan = plan = make_plan(shape, src_strides, dst_strides, tile_transposes=not small)
        if plan is None:
            return
        same = src_dtype is dst_dtype
        self.src_tag = UNITS[src_dtype.itemsize] if same else TAGS[src_dtype]
        self.dst_tag = UNITS[dst_dtype.itemsize] if same else TAGS[dst_dtype]
        src_size, dst_size = src_dtype.itemsize, dst_dtype.itemsize
        # Byte ranges touched, relative to the addresses; and where the planned walk starts.
        (src_low, src_high), (dst_low, dst_high) = plan.extents
        self.src_low, self.src_high = src_low * src_size, (src_high + 1) * src_size
        self.dst_low, self.dst_high = dst_low * dst_size, (dst_high + 1) * dst_size
        self.src_start, self.dst_start = plan.offsets[0] * src_size, plan.offsets[1] * dst_size
        self.alignment = min(src_size, 8) - 1 if same else 0
        self.parallel = (plan.size * max(src_size, dst_size) >= PARALLEL_BYTES and THREADS > 1
                         and (plan.tiled or src_dtype in COMPUTED or dst_dtype in COMPUTED))
        # The small-array engine's run is compiled (or loaded) on the first copy.
        self.walk_layout = byte_layout(plan, (src_size, dst_size)) if small else None
        self.walk = None


_job = functools.lru_cache(maxsize=4096)(_Job)


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
    if src_dtype is dst_dtype:
        count, dense_strides = c_layout(shape)
        if src_strides == dst_strides == dense_strides:
            copy_memory(dst_address, src_address, count * src_dtype.itemsize)
            return  # the common case, kept lean: one memmove
    job = _job(shape, src_strides, dst_strides, src_dtype, dst_dtype)
    plan = job.plan
    if plan is None:
        return
    if (src_address + job.src_low < dst_address + job.dst_high
            and dst_address + job.dst_low < src_address + job.src_high):
        if src_address == dst_address and src_strides == dst_strides and src_dtype is dst_dtype:
            return
        snapshot, address, strides = dense_copy(src_address, src_strides, src_dtype, shape,
                                                src_dtype)
        copy_array(address, strides, src_dtype, dst_address, dst_strides, dst_dtype, shape)
        return
    if (src_address | dst_address) & job.alignment:
        # Misaligned items of one dtype: move bytes, the item's bytes as the innermost dimension.
        size = src_dtype.itemsize
        copy_array(src_address, tuple(s * size for s in src_strides) + (1,), _dtypes.uint8,
                   dst_address, tuple(s * size for s in dst_strides) + (1,), _dtypes.uint8,
                   shape + (size,))
        return
    src_address += job.src_start
    dst_address += job.dst_start
    if job.walk_layout is not None:
        if job.walk is None:
            job.walk = walk_function(transfer_run(job.src_tag.dtype, job.dst_tag.dtype),
                                     job.walk_layout)
        job.walk(src_address, dst_address, 0)
        return
    src_strides, dst_strides = plan.strides
    if not job.parallel:
        transfer(src_address, dst_address, plan.shape, src_strides, dst_strides, plan.tile,
                 job.src_tag, job.dst_tag)
        return
    src_size, dst_size = job.src_tag.itemsize, job.dst_tag.itemsize
    run_in_parallel(transfer, [
        (src_address + s * src_size, dst_address + d * dst_size, part, src_strides, dst_strides,
         plan.tile, job.src_tag, job.dst_tag) for (s, d), part in plan.split(THREADS)])


def dense_copy(address, strides, dtype, shape, to_dtype):
    """The elements of a layout converted to ``to_dtype`` (as :func:`copy_array` converts
    them) in a new C-contiguous buffer.

    Returns
    -------
    buffer : numpy.ndarray
        The uint8 array that owns the copy: the caller keeps it while it uses the address.
    address : int
    strides : tuple of int
        The copy's C-contiguous strides, in elements.
    """
    count, dense = c_layout(shape)
    buffer = np.empty(count * to_dtype.itemsize, np.uint8)
    copy_array(address, strides, dtype, buffer.ctypes.data, dense, to_dtype, shape)
    return buffer, buffer.ctypes.data, dense
