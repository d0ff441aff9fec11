"""The CPU backend: the entry points of :class:`dlnumba._backend.Backend`, on ``numba.njit``
kernels.

The copy engine (:mod:`.copy`), the elementwise engine (:mod:`.elementwise`), the reductions
(:mod:`.reduction`) and the thread pool (:mod:`.threads`) have modules of their own; the entry
points here only translate the interface's arguments (item sizes, dtypes) into the tags the
kernels take. The host-only families (:mod:`.sorting`, :mod:`.linalg`) are called directly.
"""

import functools

import numpy as np
from .._numba import carray

from .._layout import c_strides, size_of
from .._memory import allocate_host as allocate, numpy_view
from ..shared.tags import TAGS, UNITS
from . import creation, indexing, searching
from .copy import copy_array
from .arg_reduction import arg_reduce_array
from .elementwise import apply_elementwise, elementwise_job
from .fused import fused_job, fused_reduction
from .reduction import reduce_array, reduce_job
from .scan import scan_array
from .sorting import key_layout
from .threads import (PARALLEL_BYTES, PIECE, PIECES, RUNNER_WORDS, THREADS, WORD, pieces_state,
                      run_in_parallel, run_pieces)
from .transfer import _typed_pointer
from .walk import Direct, compile_call, compile_run

# The unit tags as dtypes: a compiled function unboxes a dtype for nothing and an array at a
# cost; the kernels read only its dtype.
_UNITS = {size: tag.dtype for size, tag in UNITS.items()}

_INT64 = np.dtype(np.int64)

__all__ = ["allocate", "apply_elementwise", "arg_reduce_array", "check_pointer", "compress",
           "copy_array", "elementwise_job", "expand", "fused_job", "fused_reduction", "gather",
           "hand_over", "linspace", "nonzero", "put", "reduce_array", "reduce_job", "scan_array",
           "scatter", "take", "where", "zero_triangle"]


def check_pointer(address):
    """Nothing to check: host memory is wherever the address says."""


def hand_over(stream):
    """Nothing to order: host work is done when its call returns."""


def gather(src_address, offsets, dst_address, itemsize):
    """``dst[i] = src[offsets[i]]`` for items of ``itemsize`` bytes (``offsets``: 1-D int64,
    C-contiguous)."""
    arguments = (src_address, offsets, dst_address, _UNITS[itemsize])
    (_GATHER.get(itemsize) or _GATHER.entry(itemsize, arguments))(*arguments)


def scatter(src_address, offsets, dst_address, itemsize):
    """``dst[offsets[i]] = src[i]`` for items of ``itemsize`` bytes (``offsets``: 1-D int64,
    C-contiguous)."""
    arguments = (src_address, offsets, dst_address, _UNITS[itemsize])
    (_SCATTER.get(itemsize) or _SCATTER.entry(itemsize, arguments))(*arguments)


def _thread_starts(count):
    """Where each thread's share of ``count`` items starts, and ``count`` last."""
    return [count * k // THREADS for k in range(THREADS + 1)]


def take(src_address, size, stride, index_address, count, dst_address, itemsize):
    """``dst[k] = src[wrap(index[k]) * stride]`` for ``count`` C-contiguous int64 indices at
    ``index_address``; the position of the first index outside ``[-size, size)``, or -1.
    Large gathers are split across the threads."""
    if count * itemsize < PARALLEL_BYTES or THREADS == 1:
        return _take_function(itemsize)(src_address, size, stride, index_address, count,
                                        dst_address)
    state = pieces_state(_take_piece(itemsize), PIECES, [
        src_address, size, stride, index_address, count, dst_address, *[-1] * PIECES])
    run_pieces(state)
    found = state[RUNNER_WORDS + _FOUND:]
    return next((count * k // PIECES + int(bad) for k, bad in enumerate(found)
                 if bad >= 0), -1)


def put(src_address, src_stride, index_address, count, dst_address, size, stride, itemsize):
    """``dst[wrap(index[k]) * stride] = src[k * src_stride]`` for ``count`` C-contiguous int64
    indices, later writes winning; nothing is written unless every index is in
    ``[-size, size)``. The position of the first that is not, or -1. Large writes of one
    value (``src_stride`` 0: the order of the writes cannot matter) are split across the
    threads."""
    arguments = (src_address, src_stride, index_address, count, dst_address, size, stride,
                 _UNITS[itemsize], _UNITS[8])
    run = _PUT.get(itemsize) or _PUT.entry(itemsize, arguments)
    if src_stride or count * 8 < PARALLEL_BYTES or THREADS == 1:
        return run(*arguments)
    bad = indexing.first_outside(index_address, count, size, _UNITS[8])
    if bad < 0:
        starts = _thread_starts(count)
        run_in_parallel(run, [(src_address, 0, index_address + 8 * a, b - a, *arguments[4:])
                              for a, b in zip(starts, starts[1:])])
    return bad


def compress(src_address, size, stride, mask_address, mask_stride, dst_address, itemsize):
    """Write ``src[i * stride]`` for each true ``mask[i * mask_stride]``, in order, to
    ``dst`` (room for ``size`` items, or for their count + 1); return their count."""
    arguments = (src_address, size, stride, mask_address, mask_stride, dst_address,
                 _UNITS[itemsize], _UNITS[1])
    return (_COMPRESS.get(itemsize) or _COMPRESS.entry(itemsize, arguments))(*arguments)


def expand(src_address, src_stride, size, mask_address, mask_stride, dst_address, stride,
           itemsize):
    """``dst[i * stride] = src[k * src_stride]`` for the ``k``-th true ``mask[i * mask_stride]``
    (the inverse of :func:`compress`; ``src_stride`` 0 writes one value everywhere)."""
    _expand_function(itemsize)(src_address, src_stride, size, mask_address, mask_stride,
                               dst_address, stride)


_GATHER, _SCATTER, _PUT, _COMPRESS, _WHERE, _NONZERO = (
    Direct(indexing.gather), Direct(indexing.scatter), Direct(indexing.put),
    Direct(indexing.compress), Direct(searching.where),
    Direct(searching.nonzero))  # by item size (of the unit, for nonzero)


@functools.cache
def _expand_function(itemsize):
    """:func:`.indexing.expand` for items of ``itemsize`` bytes, as a builtin of its seven
    ints."""
    unit, flag_unit = _UNITS[itemsize], _UNITS[1]

    def expand(src_address, src_stride, size, mask_address, mask_stride, dst_address, stride):
        indexing.expand(src_address, src_stride, size, mask_address, mask_stride, dst_address,
                        stride, unit, flag_unit)

    return compile_call(expand, 7, "none")


@functools.cache
def _take_function(itemsize):
    """:func:`.indexing.take` for items of ``itemsize`` bytes, as a builtin of its six ints."""
    unit, index_unit = _UNITS[itemsize], _UNITS[8]

    def take(src_address, size, stride, index_address, count, dst_address):
        return indexing.take(src_address, size, stride, index_address, count, dst_address,
                             unit, index_unit)

    return compile_call(take, 6, "ssize")


# The words of a large take's pieces (_take_piece), after the runner's: take's first six
# arguments, then one word per piece for the position, in the piece, of its first index outside
# [-size, size) (or -1).
_SRC, _SIZE, _STRIDE, _INDEX, _COUNT, _DST, _FOUND = range(7)


@functools.cache
def _take_piece(itemsize):
    """The address of ``piece(words, k)`` (:func:`.threads.pieces_state`) that runs the ``k``-th
    of a large take's ``PIECES`` pieces (``words``: ``_SRC`` to ``_FOUND``)."""
    unit, index_unit = _UNITS[itemsize], _UNITS[8]
    pieces = PIECES  # a closure value: a cached or shipped piece is keyed by it

    def piece(words_address, k):
        words = carray(_typed_pointer(words_address, WORD), _FOUND + pieces)
        count = words[_COUNT]
        start, end = count * k // pieces, count * (k + 1) // pieces
        words[_FOUND + k] = indexing.take(
            words[_SRC], words[_SIZE], words[_STRIDE], words[_INDEX] + 8 * start, end - start,
            words[_DST] + itemsize * start, unit, index_unit)

    return compile_run(piece, PIECE)


def where(plan, condition_address, x1_address, x2_address, out_address, itemsize):
    """``out = condition ? x1 : x2`` over a plan of the four layouts."""
    arguments = [plan.shape]
    for address, offset, strides, size in zip(
            (condition_address, x1_address, x2_address, out_address), plan.offsets,
            plan.strides, (1, itemsize, itemsize, itemsize)):
        arguments += (address + offset * size, strides)
    _WHERE(itemsize, *arguments, _UNITS[itemsize])


def nonzero(address, strides, dtype, shape, output):
    """The indices of the non-zero elements, in C order, into ``output(count)``."""
    unit, codec, components = key_layout(dtype)
    layout = (np.array(shape, np.int64), np.array(strides, np.int64), address, unit, codec[3],
              components)
    count = _NONZERO(unit.itemsize, *layout, np.empty((0, 0), np.int64)) if size_of(
        shape) else 0
    indices_shape = (len(shape), count)
    out = numpy_view(output(count), indices_shape, c_strides(indices_shape), _INT64, False,
                     None)
    if count:
        _NONZERO(unit.itemsize, *layout, out)


def linspace(out_address, num, start, stop, divisor, endpoint, dtype):
    """The ``num`` values of ``linspace`` in ``dtype`` (float64 or complex128)."""
    creation.linspace(out_address, num, start, stop, divisor, endpoint, TAGS[dtype])


def zero_triangle(address, batch, rows, cols, k, lower, itemsize):
    """Zero a triangle of each of ``batch`` C-contiguous matrices."""
    if batch * rows * cols:
        creation.zero_triangle(address, batch, rows, cols, k, lower, _UNITS[itemsize])
