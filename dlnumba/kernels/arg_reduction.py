"""Index reductions (argmax, argmin): the position of the first extreme, or NaN, along one axis.

Runs below 2**14 elements in all run under :mod:`.walk`'s walk (:func:`arg_reduce_run`), which
compiles quickly; larger ones run :func:`arg_reduce` over the planned kept layout, one thread
per share of the runs.
"""

import functools

import numpy as np
from .._numba import njit

from .. import _dtypes
from .._layout import c_strides
from ..shared.conversions import convert
from ..shared.plan import make_plan
from ..shared.reductions import OP_TAGS, beyond, combine, identity
from ..shared.tags import TAGS
from .threads import PARALLEL_BYTES, THREADS, VECTORIZED_SIZE, run_in_parallel
from .transfer import _typed_pointer
from .walk import advance, byte_layout, compile_run, entry_point, odometer, walk_function

_INT64_TAG = np.empty(0, np.int64)
_ARG_BLOCK = 4096
_ARG_CHUNK = 64


@njit(nogil=True, error_model="numpy")
def _arg_run(op, x, start, n, stride, x_tag, compute_tag):
    """The first extreme (or NaN) of a run and its position.

    Block by block, in loops LLVM vectorizes: whether a block holds a better value or a NaN
    (one comparison per element; the first block always does), and only for such a block its
    extreme, then the first chunk holding it, then its position in that chunk.
    """
    best = convert(x[start], x_tag, compute_tag)
    position = 0
    if best != best:
        return best, position
    for first in range(0, n, _ARG_BLOCK):
        end = min(first + _ARG_BLOCK, n)
        if first:
            found = False
            if stride == 1:
                for i in range(first, end):
                    found |= beyond(op, convert(x[start + i], x_tag, compute_tag), best)
            else:
                for i in range(first, end):
                    found |= beyond(op, convert(x[start + i * stride], x_tag, compute_tag), best)
            if not found:
                continue
        extreme = identity(op, compute_tag)
        for i in range(first, end):
            extreme = combine(op, extreme, convert(x[start + i * stride], x_tag, compute_tag))
        if not beyond(op, extreme, best):
            continue
        for chunk in range(first, end, _ARG_CHUNK):
            last = min(chunk + _ARG_CHUNK, end)
            hit = False
            for i in range(chunk, last):
                value = convert(x[start + i * stride], x_tag, compute_tag)
                hit |= (value == extreme) | (value != value)
            if not hit:
                continue
            for i in range(chunk, last):
                value = convert(x[start + i * stride], x_tag, compute_tag)
                if value != value:
                    return value, i
                if value == extreme:
                    best, position = value, i
                    break
            break
    return best, position


@functools.lru_cache(maxsize=None)
def arg_reduce_run(op, x_tag, compute_tag):
    """The address of the run (:mod:`.walk`) of :func:`arg_reduce` for the operation and tags
    with these dtypes: for each of ``n`` int64 outputs (operand 0) the position of the first
    extreme or NaN in the run of the input that starts at its place (operand 1). Operand 2 is
    no array: its address is the length of the reduced runs, its stride theirs in bytes."""
    x_size = x_tag.itemsize

    def run(n, out_address, so, x_address, sx, length, stride):
        for i in range(n):
            x = _typed_pointer(x_address + i * sx, x_tag)
            best = convert(x[0], x_tag, compute_tag)
            position = 0
            k = 0
            while best == best and k < length - 1:
                k += 1
                value = convert(x[k * (stride // x_size)], x_tag, compute_tag)
                if value != value or beyond(op, value, best):
                    best, position = value, k
            _typed_pointer(out_address + i * so, _INT64_TAG)[0] = position
    return compile_run(run)


@entry_point(error_model="numpy")
def arg_reduce(op, shape, x_address, x_strides, x_tag, out_address, out_strides, n, stride,
               compute_tag):
    """``out`` = the position of the first extreme along a reduced dimension of ``n`` elements
    at ``stride``, for each index of the planned kept layout (at least 2-D)."""
    x = _typed_pointer(x_address, x_tag)
    out = _typed_pointer(out_address, _INT64_TAG)
    last = shape.size - 1
    outer = 1
    for d in range(last + 1):
        outer *= shape[d]
    index = odometer(last + 1)
    bx = bo = 0
    for _ in range(outer):
        out[bo] = _arg_run(op, x, bx, n, stride, x_tag, compute_tag)[1]
        bx, bo = advance(index, shape, last, (bx, bo), x_strides, out_strides)


@functools.lru_cache(maxsize=4096)
def _arg_walk(name, x_dtype, plan, stride):
    """The walk of a small arg-reduction over its kept plan, each run given the reduced
    ``stride`` (elements) as its third stride; and its layout, which it needs alive."""
    run = arg_reduce_run(OP_TAGS[name].dtype, TAGS[x_dtype].dtype,
                         TAGS[_dtypes.computation_dtype(x_dtype)].dtype)
    layout = byte_layout(plan, (8, x_dtype.itemsize), run_stride=stride * x_dtype.itemsize)
    return walk_function(run, layout), layout


def arg_reduce_array(name, x_address, x_strides, x_dtype, shape, axis, out_address):
    """The position of the first maximum (``name="max"``) or minimum (``"min"``) along ``axis``
    of a layout (a NaN counts as the extreme), written to the C-contiguous int64 array of the
    other dimensions at ``out_address``. The axis has at least one element."""
    kept_shape = shape[:axis] + shape[axis + 1:]
    kept_strides = x_strides[:axis] + x_strides[axis + 1:]
    n, stride = shape[axis], x_strides[axis]
    plan = make_plan(kept_shape, c_strides(kept_shape), kept_strides)
    if plan is None:
        return
    x_address += plan.offsets[1] * x_dtype.itemsize
    out_address += plan.offsets[0] * 8
    if plan.size * n < VECTORIZED_SIZE:
        _arg_walk(name, x_dtype, plan, stride)[0](out_address, x_address, n)
        return
    op, x_tag = OP_TAGS[name], TAGS[x_dtype]
    compute_tag = TAGS[_dtypes.computation_dtype(x_dtype)]
    out_strides, x_strides = plan.strides
    # One thread per run: a single long run is bound by memory, and a second thread's start
    # cost more than it saved.
    if (THREADS == 1 or plan.size < THREADS
            or plan.size * n * x_dtype.itemsize < PARALLEL_BYTES):
        arg_reduce(op, plan.shape, x_address, x_strides, x_tag, out_address, out_strides, n,
                   stride, compute_tag)
        return
    run_in_parallel(arg_reduce, [
        (op, part, x_address + x * x_dtype.itemsize, x_strides, x_tag, out_address + o * 8,
         out_strides, n, stride, compute_tag) for (o, x), part in plan.split(THREADS)])
