"""CPU kernels (``numba.njit``): the engine through which every copy and cast goes."""

import concurrent.futures
import functools
import os

import numba
import numpy as np

from .. import _dtypes
from .._layout import c_strides, size_of
from .elementwise import binary, signature_tag, strided_run, unary
from .plan import make_plan
from .transfer import BFLOAT16_TAG, FLOAT16_TAG, transfer, transfer_run
from .walk import byte_layout, walk

__all__ = ["copy_array", "apply_elementwise", "elementwise_job"]

_TAGS = {d: np.empty(0, BFLOAT16_TAG if d is _dtypes.bfloat16 else
                     FLOAT16_TAG if d is _dtypes.float16 else d.storage)
         for d in _dtypes.DTYPES}
_UNITS = {1: np.empty(0, np.uint8), 2: np.empty(0, np.uint16), 4: np.empty(0, np.uint32),
          8: np.empty(0, np.uint64), 16: np.empty(0, np.complex128)}
# Both cores pay off for tiled transposes and for float16/bfloat16 conversions; a streaming
# copy or cast is bound by memory bandwidth, which one core saturates here (a second measured
# 5-8% slower), so it stays on one thread.
_PARALLEL_BYTES = 1 << 21
_COMPUTED = (_dtypes.float16, _dtypes.bfloat16)
# Below this many elements, calls run the small-array engine (.walk), which compiles in a
# fraction of the time of the vectorized kernels and is as quick where the call's overhead rules.
_VECTORIZED_SIZE = 1 << 14
_THREADS = numba.config.NUMBA_NUM_THREADS
_pool = None


class _Job:
    """Everything about a transfer that depends only on its layouts and dtypes."""

    __slots__ = ("plan", "src_tag", "dst_tag", "src_low", "src_high", "dst_low", "dst_high",
                 "src_start", "dst_start", "alignment", "parallel", "walk_layout", "run")

    def __init__(self, shape, src_strides, dst_strides, src_dtype, dst_dtype):
        # Small layouts take the small-array engine, which walks them plainly (untiled).
        small = size_of(shape) < _VECTORIZED_SIZE
        self.plan = plan = make_plan(shape, src_strides, dst_strides, tile_transposes=not small)
        if plan is None:
            return
        same = src_dtype is dst_dtype
        self.src_tag = _UNITS[src_dtype.itemsize] if same else _TAGS[src_dtype]
        self.dst_tag = _UNITS[dst_dtype.itemsize] if same else _TAGS[dst_dtype]
        src_size, dst_size = src_dtype.itemsize, dst_dtype.itemsize
        # Byte ranges touched, relative to the addresses; and where the planned walk starts.
        (src_low, src_high), (dst_low, dst_high) = plan.extents
        self.src_low, self.src_high = src_low * src_size, (src_high + 1) * src_size
        self.dst_low, self.dst_high = dst_low * dst_size, (dst_high + 1) * dst_size
        self.src_start, self.dst_start = plan.offsets[0] * src_size, plan.offsets[1] * dst_size
        self.alignment = min(src_size, 8) - 1 if same else 0
        self.parallel = (plan.size * max(src_size, dst_size) >= _PARALLEL_BYTES and _THREADS > 1
                         and (plan.tiled or src_dtype in _COMPUTED or dst_dtype in _COMPUTED))
        # The small-array engine's run is compiled (or loaded) on the first copy.
        self.walk_layout = byte_layout(plan, (src_size, dst_size)) if small else None
        self.run = None


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
    job = _job(shape, src_strides, dst_strides, src_dtype, dst_dtype)
    plan = job.plan
    if plan is None:
        return
    if (src_address + job.src_low < dst_address + job.dst_high
            and dst_address + job.dst_low < src_address + job.src_high):
        if src_address == dst_address and src_strides == dst_strides and src_dtype is dst_dtype:
            return
        snapshot = np.empty(plan.size * src_dtype.itemsize, np.uint8)
        address, strides = snapshot.__array_interface__["data"][0], c_strides(shape)
        copy_array(src_address, src_strides, src_dtype, address, strides, src_dtype, shape)
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
        if job.run is None:
            job.run = transfer_run(job.src_tag.dtype, job.dst_tag.dtype)
        walk(job.run, job.walk_layout, src_address, dst_address, 0)
        return
    src_strides, dst_strides = plan.strides
    if not job.parallel:
        transfer(src_address, dst_address, plan.shape, src_strides, dst_strides, plan.tile,
                 job.src_tag, job.dst_tag)
        return
    src_size, dst_size = job.src_tag.itemsize, job.dst_tag.itemsize
    run_in_parallel(transfer, [
        (src_address + s * src_size, dst_address + d * dst_size, part, src_strides, dst_strides,
         plan.tile, job.src_tag, job.dst_tag) for (s, d), part in plan.split(_THREADS)])


def _forget_engine_threads():
    global _pool
    _pool = None  # a forked child has none of its parent's threads


os.register_at_fork(after_in_child=_forget_engine_threads)


def run_in_parallel(kernel, calls):
    """Run ``kernel(*args)`` for each argument tuple, the first on this thread and the others
    on the engine's threads; return when all are done."""
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(_THREADS - 1, "dlnumba-kernels")
    running = [_pool.submit(kernel, *args) for args in calls[1:]]
    try:
        kernel(*calls[0])
    finally:
        for call in running:
            call.result()


class _ElementwiseJob:
    """Everything about an elementwise call that depends only on its layouts and dtypes."""

    __slots__ = ("plan", "kernel", "signature", "head", "layout", "sizes", "starts", "lows",
                 "highs", "parallel", "entry")

    def __init__(self, name, kind, layouts, shape, compute_dtype):
        self.plan = plan = make_plan(shape, *(strides for strides, _ in layouts))
        if plan is None:
            return
        signature = signature_tag(name, kind, [_TAGS[dtype] for _, dtype in layouts]
                                  + [_TAGS[compute_dtype]])
        self.sizes = sizes = [dtype.itemsize for _, dtype in layouts]
        self.signature = signature
        self.head = signature  # for the walk, replaced by its run's address on the first call
        if plan.size < _VECTORIZED_SIZE:
            self.kernel, self.layout = walk, byte_layout(plan, sizes)
        else:
            self.kernel = unary if len(layouts) == 2 else binary
            self.layout = np.array([plan.shape, *plan.strides])
        self.starts = [offset * size for offset, size in zip(plan.offsets, sizes)]
        self.lows = [low * size for (low, _), size in zip(plan.extents, sizes)]
        self.highs = [(high + 1) * size for (_, high), size in zip(plan.extents, sizes)]
        self.parallel = plan.size * sizes[-1] >= _PARALLEL_BYTES and _THREADS > 1
        self.entry = self._first_call

    def call(self, *addresses):
        """Run on one thread for operands at ``addresses`` that do not overlap the output."""
        starts = self.starts
        if len(addresses) == 3:
            self.entry(self.head, self.layout, addresses[0] + starts[0],
                       addresses[1] + starts[1], addresses[2] + starts[2])
        elif self.kernel is walk:
            self.entry(self.head, self.layout, addresses[0] + starts[0],
                       addresses[1] + starts[1], 0)
        else:
            self.entry(self.head, self.layout, addresses[0] + starts[0],
                       addresses[1] + starts[1])

    def _first_call(self, head, *arguments):
        if self.kernel is walk:
            # From the signature, not ``head``: a thread that arrives while another makes the
            # first call may already pass the run's address.
            self.head = head = strided_run(self.signature.dtype)
        self.kernel(head, *arguments)
        # From now on the compiled function itself: a job's argument types never change, and
        # Numba's dispatch (typing each argument) was a third of a small call.
        self.entry = self.kernel.overloads[
            tuple(self.kernel.typeof_pyval(a) for a in (head, *arguments))].entry_point

    def arguments(self, addresses, plan_shape, offsets):
        """The kernel's arguments for the part of the plan of ``plan_shape`` at ``offsets``."""
        layout = self.layout.copy()
        layout[0] = plan_shape
        return (self.head, layout,
                *[address + start + offset * size for address, start, offset, size
                  in zip(addresses, self.starts, offsets, self.sizes)])


elementwise_job = functools.lru_cache(maxsize=4096)(_ElementwiseJob)


def apply_elementwise(name, kind, inputs, out, shape, compute_dtype):
    """Compute ``out = name(*inputs)`` elementwise.

    Parameters
    ----------
    name, kind : str
        The scalar operation and the kind of ``compute_dtype`` (``bool``, ``int``, ``float``,
        ``complex``) that select its implementation in :mod:`.scalar`.
    inputs : sequence of (address, strides, dtype)
        One or two operands, strides in elements already broadcast to ``shape``.
    out : (address, strides, dtype)
    shape : tuple of int
    compute_dtype : DType
        The dtype the operands are converted to before the operation.

    An input that overlaps the output other than exactly (``x[1:] += x[:-1]``) is read from a
    snapshot, so the result is as if every input were read before the first write.
    """
    operands = (*inputs, out)
    job = elementwise_job(name, kind, tuple((strides, dtype) for _, strides, dtype in operands),
                          shape, compute_dtype)
    if job.plan is None:
        return
    out_address = out[0]
    for k, (address, strides, dtype) in enumerate(inputs):
        if (address + job.lows[k] < out_address + job.highs[-1]
                and out_address + job.lows[-1] < address + job.highs[k]
                and not (address == out_address and strides == out[1])):
            snapshot = np.empty(job.plan.size * dtype.itemsize, np.uint8)
            copy = snapshot.__array_interface__["data"][0], c_strides(shape), dtype
            copy_array(address, strides, dtype, copy[0], copy[1], dtype, shape)
            return apply_elementwise(name, kind, [copy if i == k else operand for i, operand
                                                  in enumerate(inputs)], out, shape,
                                     compute_dtype)
    addresses = [address for address, _, _ in operands]
    if not job.parallel:
        job.call(*addresses)
        return
    run_in_parallel(job.kernel, [job.arguments(addresses, part, offsets)
                                 for offsets, part in job.plan.split(_THREADS)])
