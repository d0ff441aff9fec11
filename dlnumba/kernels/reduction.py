"""Reductions over any set of axes (sum, prod, max, min, any, all, count, sumsq).

A reduction walks its input in memory order (a plan of the input and an accumulator that has
zero strides along the reduced axes; :func:`.shared.plan.make_plan` orders and merges the
dimensions). When the innermost dimension is reduced, each run of it is reduced to one value
(:func:`.runs.reduced_run`) and combined into its accumulator; when it is kept, whole rows are
combined into the accumulator row. The operation travels as a tag (an empty array whose record
dtype's one field names it), so each (operation, input dtype, accumulator dtype) is one
compiled, cached specialization for every layout. Below 2**14 elements, reductions run the same
arithmetic as small runs (:func:`reduce_run`) under :mod:`.walk`'s walk, which compile quickly;
large ones run in pieces on the engine's threads (:func:`reduce_piece`).
"""

import functools

import numpy as np
from .._numba import carray, njit

from .._native import copy_memory
from .._layout import c_strides, size_of
from .._shipped import shipped_address
from ..shared.plan import make_plan
from ..shared.reductions import COMBINE_PARTIALS, OP_TAGS, combine, identity_value, load
from ..shared.tags import TAGS
from .copy import copy_array, dense_copy
from .runs import in_order_strided_run, pairwise_strided_run, reduced_run, sums_pairwise
from .threads import (PARALLEL_BYTES, PIECE, PIECES, RUNNER_WORDS, THREADS, VECTORIZED_SIZE,
                      WORD, pieces_state, run_pieces)
from .transfer import _typed_pointer
from .walk import RUN, advance, byte_layout, compile_run, elements, odometer, walk_function


@njit(nogil=True, error_model="numpy")
def _reduce(op, shape, x_address, x_strides, x_tag, acc_address, acc_strides, acc_tag):
    """``acc = op(acc, x)`` over a planned layout (at least 2-D) where ``acc`` has zero strides
    along the reduced dimensions (``op`` and the tags are dtypes)."""
    x = _typed_pointer(x_address, x_tag)
    acc = _typed_pointer(acc_address, acc_tag)
    last = shape.size - 1
    inner, sx, sa = shape[last], x_strides[last], acc_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    dims, xs, accs = elements(shape), elements(x_strides), elements(acc_strides)
    bx = ba = 0
    for _ in range(outer):
        if sa == 0:
            if sx == 1:  # a constant stride: the run's contiguous loop alone
                value = reduced_run(op, x, bx, inner, 1, x_tag, acc_tag)
            else:
                value = reduced_run(op, x, bx, inner, sx, x_tag, acc_tag)
            acc[ba] = combine(op, acc[ba], value)
        elif sx == 1 and sa == 1:
            for i in range(inner):
                acc[ba + i] = combine(op, acc[ba + i], load(op, x[bx + i], x_tag, acc_tag))
        else:
            for i in range(inner):
                acc[ba + i * sa] = combine(op, acc[ba + i * sa],
                                            load(op, x[bx + i * sx], x_tag, acc_tag))
        bx, ba = advance(index, dims, last - 1, (bx, ba), xs, accs)


# The words of a reduction's pieces (reduce_piece), after the runner's: the pieces' table, the
# plan's ndim, the addresses of its accumulator and input strides, the accumulator's and the
# input's base addresses. A row of the table: the piece's accumulator and input offsets (bytes)
# and the address of its shape.
_TABLE, _NDIM, _ACC_STRIDES, _X_STRIDES, _ACC_BASE, _X_BASE = range(6)
_ROW_ACC_OFFSET, _ROW_X_OFFSET, _ROW_SHAPE = range(3)
_PIECE_WORDS, _ROW_WORDS = 6, 3


@functools.cache
def reduce_piece(op, x_tag, acc_tag):
    """The address of ``piece(words, k)`` (:func:`.threads.pieces_state`), which runs the
    ``k``-th piece of a reduction for the operation and tags with these dtypes (``words``:
    ``_TABLE`` to ``_X_BASE``)."""
    return compile_run(_reduce_piece_function(op, x_tag, acc_tag), PIECE)


def _reduce_piece_function(op, x_tag, acc_tag):
    def piece(words_address, k):
        words = carray(_typed_pointer(words_address, WORD), _PIECE_WORDS)
        row = carray(_typed_pointer(words[_TABLE] + 8 * _ROW_WORDS * k, WORD), _ROW_WORDS)
        ndim = words[_NDIM]
        _reduce(op, carray(_typed_pointer(row[_ROW_SHAPE], WORD), ndim),
                words[_X_BASE] + row[_ROW_X_OFFSET],
                carray(_typed_pointer(words[_X_STRIDES], WORD), ndim), x_tag,
                words[_ACC_BASE] + row[_ROW_ACC_OFFSET],
                carray(_typed_pointer(words[_ACC_STRIDES], WORD), ndim), acc_tag)
    return piece


@functools.lru_cache(maxsize=None)
def reduce_run(op, x_tag, acc_tag):
    """The address of the run (:mod:`.walk`) of :func:`reduce` for the operation and tags with
    these dtypes: ``acc = op(acc, x)`` over one run of the accumulator (operand 0) and the input
    (operand 1), the accumulator's stride zero where the run is reduced."""
    return compile_run(_reduce_run_function(op, x_tag, acc_tag))


def _reduce_run_function(op, x_tag, acc_tag):
    x_size, acc_size = x_tag.itemsize, acc_tag.itemsize
    # A constant of the closure (Numba prunes the other branch): a dispatcher there would
    # change the run's cache key in every process.
    pairwise = sums_pairwise(op.names[0], acc_tag.kind in "fc" and acc_tag.names is None)

    def run(n, acc_address, sa, x_address, sx, unused_address, unused_stride):
        x = _typed_pointer(x_address, x_tag)
        acc = _typed_pointer(acc_address, acc_tag)
        if sa == 0:
            if pairwise:
                value = pairwise_strided_run(op, x, 0, n, sx // x_size, x_tag, acc_tag)
            else:
                value = in_order_strided_run(op, x, 0, n, sx // x_size, x_tag, acc_tag)
            acc[0] = combine(op, acc[0], value)
        else:
            sx //= x_size
            sa //= acc_size
            for i in range(n):
                acc[i * sa] = combine(op, acc[i * sa], load(op, x[i * sx], x_tag, acc_tag))
    return run


# ---- the engine: plans, jobs and threads ----


def split_plan(plan, parts):
    """Pieces of ``plan`` cut along its outermost kept dimension with at least ``parts``
    elements, else along its outermost such reduced one (fewer parts where no dimension has
    that many): (offsets, shape) of each, and whether they were cut along a reduced dimension.

    Where that kept dimension is the innermost, pieces across it would shorten the rows the
    kernel streams: they are cut along a reduced dimension instead while their rows of partial
    results stay small beside the input, else one per thread across the kept one."""
    sizes, acc_strides = plan.shape, plan.strides[0]
    parts = min(parts, int(sizes.max()))
    candidates = [d for d in range(sizes.size) if sizes[d] >= parts]
    kept = [d for d in candidates if acc_strides[d] != 0]
    axis = (kept or candidates)[0]
    if kept and axis == sizes.size - 1:
        reduced = [d for d in candidates if acc_strides[d] == 0]
        kept_size = int(np.prod(sizes[acc_strides != 0]))
        if reduced and kept_size * parts * _SMALL_PARTIALS <= int(np.prod(sizes)):
            axis = reduced[0]
        else:
            parts = min(parts, THREADS)
    n = int(sizes[axis])
    step = -(-n // parts)
    pieces = []
    for start in range(0, n, step):
        shape = sizes.copy()
        shape[axis] = min(step, n - start)
        pieces.append((tuple(start * int(s[axis]) for s in plan.strides), shape))
    return pieces, acc_strides[axis] == 0


_SMALL_PARTIALS = 16  # partial results small enough: at most a 16th of the input


_IDENTITY_BLOCK = 512


class _ReduceJob:
    """Everything about a reduction that depends only on its layout, axes and dtypes:
    ``call(x_address, acc_address)`` reduces the layout at ``x_address`` into the C-contiguous
    accumulator at ``acc_address``."""

    __slots__ = ("name", "plan", "op", "x_tag", "acc_tag", "acc_dtype", "acc_shape",
                 "acc_strides", "identity", "identity_address", "identity_bytes",
                 "reduced_split", "walk_layout", "walk", "x_start", "acc_start", "pieces",
                 "state", "kept", "call")

    def __init__(self, name, shape, x_strides, x_dtype, axes, acc_dtype, parallel):
        self.name, self.acc_dtype = name, acc_dtype
        self.acc_shape = tuple(n for d, n in enumerate(shape) if d not in axes)
        self.acc_strides = c_strides(self.acc_shape)
        strides = iter(self.acc_strides)
        placed = tuple(0 if d in axes else next(strides) for d in range(len(shape)))
        self.plan = plan = make_plan(shape, placed, x_strides)
        self.op, self.x_tag, self.acc_tag = OP_TAGS[name], TAGS[x_dtype], TAGS[acc_dtype]
        # The accumulator's first values; up to _IDENTITY_BLOCK of them, ready for one memmove.
        kept = size_of(self.acc_shape)
        self.identity = np.full(kept if kept <= _IDENTITY_BLOCK else 1,
                                identity_value(name, acc_dtype), acc_dtype.storage)
        self.identity_address = self.identity.ctypes.data
        self.identity_bytes = self.identity.nbytes if self.identity.size == kept else 0
        self.reduced_split = self.walk_layout = self.walk = None
        self.call = self._set_identity
        if plan is None:
            return
        self.acc_start = plan.offsets[0] * acc_dtype.itemsize
        self.x_start = plan.offsets[1] * x_dtype.itemsize
        if plan.size < VECTORIZED_SIZE:
            self.walk_layout = byte_layout(plan, (acc_dtype.itemsize, x_dtype.itemsize))
            self.call = self._first_walk
            return
        if parallel and THREADS > 1 and plan.size * x_dtype.itemsize >= PARALLEL_BYTES:
            pieces, self.reduced_split = split_plan(plan, PIECES)
        else:
            pieces, self.reduced_split = [((0, 0), plan.shape)], False
        self._place(pieces, kept)
        self.call = self._call_pieces

    def _place(self, pieces, kept):
        """The pieces' state (:func:`reduce_piece`) for ``pieces`` ((offsets, shape) of each),
        but the base addresses; and what it points to: each piece's shape, the table, the
        plan's strides."""
        acc_size, x_size = self.acc_dtype.itemsize, self.x_tag.dtype.itemsize
        shapes = [np.ascontiguousarray(shape, np.int64) for _, shape in pieces]
        table = np.array([(self.acc_start + (k * kept if self.reduced_split else a) * acc_size,
                           self.x_start + x * x_size, shape.ctypes.data)
                          for k, (((a, x), _), shape) in enumerate(zip(pieces, shapes))],
                         np.int64)
        strides = [np.ascontiguousarray(s, np.int64) for s in self.plan.strides]
        piece = reduce_piece(self.op.dtype, self.x_tag.dtype, self.acc_tag.dtype)
        words = [0] * _PIECE_WORDS
        words[_TABLE], words[_NDIM] = table.ctypes.data, self.plan.shape.size
        words[_ACC_STRIDES], words[_X_STRIDES] = strides[0].ctypes.data, strides[1].ctypes.data
        self.state = pieces_state(piece, len(pieces), words)
        self.pieces = (shapes, table, strides)  # kept alive: the state has their addresses
        self.kept = kept

    def _set_identity(self, x_address, acc_address):
        if self.identity_bytes:
            copy_memory(acc_address, self.identity_address, self.identity_bytes)
        else:
            copy_array(self.identity_address, (0,) * len(self.acc_shape), self.acc_dtype,
                       acc_address, self.acc_strides, self.acc_dtype, self.acc_shape)

    def _first_walk(self, x_address, acc_address):
        self.walk = walk_function(reduce_run(self.op.dtype, self.x_tag.dtype,
                                             self.acc_tag.dtype), self.walk_layout)
        self.call = self._call_walk if self.identity_bytes else self._call_walk_after_identity
        self.call(x_address, acc_address)

    def _call_walk(self, x_address, acc_address):
        copy_memory(acc_address, self.identity_address, self.identity_bytes)
        self.walk(acc_address + self.acc_start, x_address + self.x_start)

    def _call_walk_after_identity(self, x_address, acc_address):
        self._set_identity(x_address, acc_address)
        self.walk(acc_address + self.acc_start, x_address + self.x_start)

    def _call_pieces(self, x_address, acc_address):
        self._set_identity(x_address, acc_address)
        state = self.state.copy()
        state[RUNNER_WORDS + _X_BASE] = x_address
        if not self.reduced_split:
            state[RUNNER_WORDS + _ACC_BASE] = acc_address
            run_pieces(state)
            return
        # Each piece reduces into its own row of partial results, then the rows are combined.
        partials = np.empty((len(self.pieces[0]), self.kept), self.acc_dtype.storage)
        partials[...] = self.identity
        state[RUNNER_WORDS + _ACC_BASE] = partials.ctypes.data
        run_pieces(state)
        reduce_array(COMBINE_PARTIALS.get(self.name, self.name), partials.ctypes.data,
                     (self.kept, 1), self.acc_dtype, partials.shape, (0,), acc_address,
                     self.acc_dtype, parallel=False)


class _CastReduceJob:
    """A sum or product into another dtype whose kernel is not shipped, run as NumPy runs it:
    the input is cast to the accumulator's dtype (:func:`.copy.dense_copy`), then the shipped
    reduction of that dtype runs (``inner``)."""

    __slots__ = ("cast", "inner")

    def __init__(self, cast, inner):
        self.cast, self.inner = cast, inner

    def call(self, x_address, acc_address):
        x_strides, x_dtype, shape, acc_dtype = self.cast
        buffer, cast_address, _ = dense_copy(x_address, x_strides, x_dtype, shape, acc_dtype)
        self.inner.call(cast_address, acc_address)


_EXACT_KINDS = ("bool", "signed integer", "unsigned integer")  # sums in any order


@functools.lru_cache(maxsize=4096)
def _reduce_job(name, shape, x_strides, x_dtype, axes, acc_dtype, parallel):
    """The job of a reduction (see :func:`reduce_job`): a :class:`_CastReduceJob` where
    :func:`reduced_dtype` says so, else its own (compiled if not shipped)."""
    if reduced_dtype(name, shape, x_strides, x_dtype, acc_dtype) is acc_dtype is not x_dtype:
        return _CastReduceJob((x_strides, x_dtype, shape, acc_dtype), _ReduceJob(
            name, shape, c_strides(shape), acc_dtype, axes, acc_dtype, parallel))
    return _ReduceJob(name, shape, x_strides, x_dtype, axes, acc_dtype, parallel)


def reduced_dtype(name, shape, x_strides, x_dtype, acc_dtype):
    """The dtype whose elements :func:`reduce_array` reduces: ``acc_dtype`` where the input is
    cast to it first (the reduction from ``x_dtype`` is not shipped, that of ``acc_dtype``
    is), else ``x_dtype``. A floating sum is cast only from a C-contiguous input, whose order
    of summation the cast keeps."""
    size = size_of(shape)
    if (name in ("sum", "prod") and x_dtype is not acc_dtype and size
            and (acc_dtype.kind in _EXACT_KINDS or x_strides == c_strides(shape))
            and not _ships_reduction(name, x_dtype, acc_dtype, size)
            and _ships_reduction(name, acc_dtype, acc_dtype, size)):
        return acc_dtype
    return x_dtype


def _ships_reduction(name, x_dtype, acc_dtype, size):
    """Whether the shipped object holds the kernel that reduces ``size`` elements of
    ``x_dtype`` into ``acc_dtype`` (:class:`_ReduceJob` picks it by the size)."""
    tags = OP_TAGS[name].dtype, TAGS[x_dtype].dtype, TAGS[acc_dtype].dtype
    if size < VECTORIZED_SIZE:
        return shipped_address(_reduce_run_function(*tags), RUN) is not None
    return shipped_address(_reduce_piece_function(*tags), PIECE) is not None


def reduce_job(name, shape, x_strides, x_dtype, axes, acc_dtype):
    """The job whose ``call(x_address, acc_address)`` does what :func:`reduce_array` does for
    these arguments."""
    return _reduce_job(name, shape, x_strides, x_dtype, axes, acc_dtype, True)


def reduce_array(name, x_address, x_strides, x_dtype, shape, axes, acc_address, acc_dtype,
                 parallel=True):
    """Reduce the elements of a layout along ``axes`` into an accumulator.

    Parameters
    ----------
    name : str
        ``sum``, ``prod``, ``max``, ``min``, ``any``, ``all``, ``count`` (of non-zero elements)
        or ``sumsq`` (of squared magnitudes).
    x_address, x_strides, x_dtype, shape
        The input layout (strides in elements).
    axes : tuple of int
        The reduced axes, each in ``range(len(shape))``.
    acc_address, acc_dtype
        A C-contiguous array of the kept dimensions; set to the reductions (in ``acc_dtype``:
        bool for ``any`` and ``all``, a computation dtype otherwise, never float16/bfloat16).
    """
    _reduce_job(name, shape, x_strides, x_dtype, axes, acc_dtype, parallel).call(x_address,
                                                                                 acc_address)


