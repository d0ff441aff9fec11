"""Elementwise kernels: one scalar operation applied over broadcast, strided layouts.

A call's types travel in one *signature*: the record dtype (or an empty array of it) that holds
the operation's tag (a record whose one field names the implementation, ``"add:float"``) and
the tags of the operands', the output's and the computation's dtypes. Each (operation, dtypes)
pair is its own compiled C function, cached on disk, called by address with ints only: the
addresses of the operands and of the layout, whose rows are the shape and every operand's
strides. Operands are loaded from storage and converted to the computation dtype, combined by
the scalar function from :mod:`.shared.scalar`, and stored converted to the output's dtype.

Small arrays run :func:`strided_run`'s runs under :mod:`.walk`'s walk: one strided loop per
(operation, dtypes), quick to compile. Large arrays run :func:`unary` and :func:`binary` (in
:func:`layout_run`), whose innermost dimension has a contiguous fast path (and one for a
broadcast scalar operand) that LLVM vectorizes; :func:`unary` gathers a strided input onto the
stack, a block at a time, to run that path too. An operation with common code (``sin``,
``cos``) runs :func:`unary_common`. The largest calls are cut into pieces that the engine's
threads run (:func:`.threads.run_pieces`).
"""

import functools

import numpy as np
from .._numba import carray, njit, types

from .._layout import c_layout
from .._native import c_caller
from .._shipped import shipped_address
from ..shared.conversions import convert, store
from ..shared.plan import make_plan
from ..shared.scalar import FUNCTIONS, apply, apply_common, outside_common
from ..shared.tags import TAGS, signature_tag, unpack
from .copy import dense_copy
from .threads import (PARALLEL_BYTES, PIECE, PIECES, RUNNER_WORDS, THREADS, VECTORIZED_SIZE,
                      WORD, pieces_state, run_pieces)
from .transfer import _typed_pointer, stack_values
from .walk import (RUN, advance, byte_layout, call_function, compile_run, odometer,
                   walk_function)

@functools.lru_cache(maxsize=None)
def strided_run(signature):
    """The address of the run (:mod:`.walk`) of the operation and dtypes of a signature's
    dtype: ``out = op(x)`` or ``out = op(x, y)`` over one strided run, operands in the order
    of the signature's tags."""
    return compile_run(_strided_run_function(signature))


def _strided_run_function(signature):
    if len(signature.names) == 4:
        def run(n, x_address, sx, out_address, so, unused_address, unused_stride):
            op, x_tag, out_tag, compute_tag = unpack(signature)
            for i in range(n):
                x = _typed_pointer(x_address + i * sx, x_tag)[0]
                _typed_pointer(out_address + i * so, out_tag)[0] = store(
                    apply(op, convert(x, x_tag, compute_tag)), out_tag)
    else:
        def run(n, x_address, sx, y_address, sy, out_address, so):
            op, x_tag, y_tag, out_tag, compute_tag = unpack(signature)
            for i in range(n):
                x = _typed_pointer(x_address + i * sx, x_tag)[0]
                y = _typed_pointer(y_address + i * sy, y_tag)[0]
                _typed_pointer(out_address + i * so, out_tag)[0] = store(
                    apply(op, convert(x, x_tag, compute_tag), convert(y, y_tag, compute_tag)),
                    out_tag)
    return run


_GATHERED = 64  # elements of a strided input gathered at a time (on the stack)


@njit(inline="always", error_model="numpy")
def unary(signature, layout, x_address, out_address):
    """``out = op(x)`` over a planned layout: ``layout``'s rows are the shape and the strides
    (in elements) of ``x`` and ``out``, at least 2-D."""
    op, x_tag, out_tag, compute_tag = unpack(signature)
    shape, x_strides, out_strides = layout[0], layout[1], layout[2]
    x = _typed_pointer(x_address, x_tag)
    out = _typed_pointer(out_address, out_tag)
    last = shape.size - 1
    inner, sx, so = shape[last], x_strides[last], out_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    bx = bo = 0
    for _ in range(outer):
        if sx == 1 and so == 1:
            for i in range(inner):
                out[bo + i] = store(apply(op, convert(x[bx + i], x_tag, compute_tag)),
                                     out_tag)
        elif so == 1:  # a strided input, gathered block by block: the operation vectorizes
            block = stack_values(x_tag, _GATHERED)
            for start in range(0, inner, _GATHERED):
                count = min(_GATHERED, inner - start)
                for i in range(count):
                    block[i] = x[bx + (start + i) * sx]
                for i in range(count):
                    out[bo + start + i] = store(apply(op, convert(block[i], x_tag, compute_tag)),
                                                out_tag)
        else:
            for i in range(inner):
                out[bo + i * so] = store(
                    apply(op, convert(x[bx + i * sx], x_tag, compute_tag)), out_tag)
        bx, bo = advance(index, shape, last - 1, (bx, bo), x_strides, out_strides)


@njit(inline="always", error_model="numpy")
def unary_common(signature, layout, x_address, out_address):
    """:func:`unary` for an operation with common code (:attr:`.scalar.Elementwise.common`),
    block by block: the input gathered onto the stack, the common code's vectorized loop, the
    operation itself for the block's arguments outside what that takes, and the block's
    results stored."""
    op, x_tag, out_tag, compute_tag = unpack(signature)
    shape, x_strides, out_strides = layout[0], layout[1], layout[2]
    x = _typed_pointer(x_address, x_tag)
    out = _typed_pointer(out_address, out_tag)
    last = shape.size - 1
    inner, sx, so = shape[last], x_strides[last], out_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    block = stack_values(x_tag, _GATHERED)
    results = stack_values(out_tag, _GATHERED)
    bx = bo = 0
    for _ in range(outer):
        for start in range(0, inner, _GATHERED):
            count = min(_GATHERED, inner - start)
            for i in range(count):
                block[i] = x[bx + (start + i) * sx]
            outside = False
            for i in range(count):
                value = convert(block[i], x_tag, compute_tag)
                outside |= outside_common(op, value)
                results[i] = store(apply_common(op, value), out_tag)
            if outside:
                for i in range(count):
                    value = convert(block[i], x_tag, compute_tag)
                    if outside_common(op, value):
                        results[i] = store(apply(op, value), out_tag)
            for i in range(count):
                out[bo + (start + i) * so] = results[i]
        bx, bo = advance(index, shape, last - 1, (bx, bo), x_strides, out_strides)


@njit(inline="always", error_model="numpy")
def binary(signature, layout, x_address, y_address, out_address):
    """``out = op(x, y)`` over a planned layout: ``layout``'s rows are the shape and the
    strides (in elements) of ``x``, ``y`` and ``out``, at least 2-D."""
    op, x_tag, y_tag, out_tag, compute_tag = unpack(signature)
    shape, x_strides, y_strides, out_strides = layout[0], layout[1], layout[2], layout[3]
    x = _typed_pointer(x_address, x_tag)
    y = _typed_pointer(y_address, y_tag)
    out = _typed_pointer(out_address, out_tag)
    last = shape.size - 1
    inner, sx, sy, so = shape[last], x_strides[last], y_strides[last], out_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    bx = by = bo = 0
    for _ in range(outer):
        if so == 1 and sx == 1 and sy == 1:
            for i in range(inner):
                out[bo + i] = store(apply(op, convert(x[bx + i], x_tag, compute_tag),
                                            convert(y[by + i], y_tag, compute_tag)), out_tag)
        elif so == 1 and sx == 1 and sy == 0:
            value = convert(y[by], y_tag, compute_tag)
            for i in range(inner):
                out[bo + i] = store(apply(op, convert(x[bx + i], x_tag, compute_tag), value),
                                     out_tag)
        elif so == 1 and sx == 0 and sy == 1:
            value = convert(x[bx], x_tag, compute_tag)
            for i in range(inner):
                out[bo + i] = store(apply(op, value, convert(y[by + i], y_tag, compute_tag)),
                                     out_tag)
        else:
            for i in range(inner):
                out[bo + i * so] = store(apply(op, convert(x[bx + i * sx], x_tag, compute_tag),
                                                 convert(y[by + i * sy], y_tag, compute_tag)),
                                          out_tag)
        bx, by, bo = advance(index, shape, last - 1, (bx, by, bo), x_strides, y_strides,
                             out_strides)


# ---- the engine: jobs and threads ----

LAYOUT_RUN = types.void(*[types.intp] * 5)  # run(layout, ndim, a0, a1, a2)


@functools.lru_cache(maxsize=None)
def layout_run(kernel_index, signature_dtype):
    """The address of ``run(layout, ndim, a0, a1, a2)``: ``(unary, unary_common,
    binary)[kernel_index]`` for the signature of this dtype over the layout at address
    ``layout`` (its rows of ``ndim`` words), the operands at ``a0``, ``a1`` (and ``a2``)."""
    return compile_run(_layout_run_function(kernel_index, signature_dtype), LAYOUT_RUN)


def _layout_run_function(kernel_index, signature_dtype):
    signature = signature_dtype  # the kernels unpack a dtype as they do a signature
    rows = 4 if kernel_index == 2 else 3

    def run(layout_address, ndim, a0, a1, a2):
        layout = carray(_typed_pointer(layout_address, WORD), (rows, ndim))
        # Constants of the closure: Numba prunes the other branches.
        if kernel_index == 0:
            unary(signature, layout, a0, a1)
        elif kernel_index == 1:
            unary_common(signature, layout, a0, a1)
        else:
            binary(signature, layout, a0, a1, a2)
    return run


# The words of a large call's pieces (_piece), after the runner's: the pieces' table, the plan's
# ndim, the address of its layout_run, then the operands' base addresses. A row of the table:
# the address of the piece's layout, then the operands' byte offsets.
_TABLE, _NDIM, _LAYOUT_RUN, _BASES = range(4)
_OPERANDS = 3
_ROW_LAYOUT, _ROW_OFFSETS = 0, 1
_ROW_WORDS = _ROW_OFFSETS + _OPERANDS


def _piece(words_address, k):
    """``piece(words, k)`` (:func:`.threads.pieces_state`) of a large elementwise call
    (``words``: ``_TABLE`` to ``_BASES``)."""
    words = carray(_typed_pointer(words_address, WORD), _BASES + _OPERANDS)
    row = carray(_typed_pointer(words[_TABLE] + 8 * _ROW_WORDS * k, WORD), _ROW_WORDS)
    call_function(words[_LAYOUT_RUN], (
        row[_ROW_LAYOUT], words[_NDIM], words[_BASES] + row[_ROW_OFFSETS],
        words[_BASES + 1] + row[_ROW_OFFSETS + 1], words[_BASES + 2] + row[_ROW_OFFSETS + 2]))


_piece_address = functools.cache(lambda: compile_run(_piece, PIECE))


class _ElementwiseJob:
    """Everything about an elementwise call that depends only on its layouts and dtypes.

    ``call(*addresses)`` runs it on one thread, for operands (the inputs, then the output) at
    ``addresses`` that do not overlap the output. The first call compiles (or loads) the
    kernel, then makes ``call`` the quickest callable that runs it: for a small call, the walk
    itself, a builtin that takes the addresses directly."""

    __slots__ = ("plan", "kernel", "signature", "layout", "sizes", "starts", "lows", "highs",
                 "parallel", "run", "call", "state", "pieces")

    def __init__(self, name, kind, layouts, shape, compute_dtype):
        self.plan = plan = make_plan(shape, *(strides for strides, _ in layouts))
        if plan is None:
            return
        self.signature = signature_tag(name, kind, [TAGS[dtype] for _, dtype in layouts]
                                       + [TAGS[compute_dtype]])
        self.sizes = sizes = [dtype.itemsize for _, dtype in layouts]
        if plan.size < VECTORIZED_SIZE:
            self.kernel, self.layout = None, byte_layout(plan, sizes)
        else:
            self.kernel = 2 if len(layouts) == 3 else (  # layout_run's kernel_index
                1 if kind in FUNCTIONS[name].common else 0)
            self.layout = np.array([plan.shape, *plan.strides])
        self.starts = [offset * size for offset, size in zip(plan.offsets, sizes)]
        self.lows = [low * size for (low, _), size in zip(plan.extents, sizes)]
        self.highs = [(high + 1) * size for (_, high), size in zip(plan.extents, sizes)]
        self.parallel = plan.size * sizes[-1] >= PARALLEL_BYTES and THREADS > 1
        # Made here, not on first use: a job may be shared by threads calling at once.
        self.state = self._pieces_state() if self.parallel else None
        self.call = self._first_call

    def _first_call(self, *addresses):
        if self.kernel is None:
            self.run = walk_function(strided_run(self.signature.dtype), self.layout)
            self.call = self._call_placed if any(self.starts) else self.run
        else:
            self.run = functools.partial(c_caller(5, "none", optional=1), self._layout_run(),
                                         self.layout.ctypes.data, self.layout.shape[1])
            self.call = self._call_placed
        self.call(*addresses)

    def _layout_run(self):
        return layout_run(self.kernel, self.signature.dtype)

    def shipped(self):
        """Whether the shipped object holds this job's kernel (then it runs without Numba)."""
        if self.kernel is None:
            return shipped_address(_strided_run_function(self.signature.dtype), RUN) is not None
        return shipped_address(_layout_run_function(self.kernel, self.signature.dtype),
                               LAYOUT_RUN) is not None

    def _placed(self, addresses):
        return [address + start for address, start in zip(addresses, self.starts)]

    def _call_placed(self, *addresses):
        self.run(*self._placed(addresses))

    def call_pieces(self, *addresses):
        """Run the call in pieces on the engine's threads (a job that is ``parallel``)."""
        state = self.state.copy()
        state[RUNNER_WORDS + _BASES:RUNNER_WORDS + _BASES + len(addresses)] = addresses
        run_pieces(state)

    def _pieces_state(self):
        parts = self.plan.split(PIECES)
        layouts = np.empty((len(parts), *self.layout.shape), np.int64)
        table = np.zeros((len(parts), _ROW_WORDS), np.int64)
        for k, (offsets, shape) in enumerate(parts):
            layouts[k] = self.layout
            layouts[k, 0] = shape
            table[k, _ROW_LAYOUT] = layouts[k].ctypes.data
            table[k, _ROW_OFFSETS:_ROW_OFFSETS + len(offsets)] = [
                start + offset * size
                for start, offset, size in zip(self.starts, offsets, self.sizes)]
        self.pieces = (layouts, table)  # kept alive: the state has their addresses
        words = [0] * (_BASES + _OPERANDS)
        words[_TABLE], words[_NDIM] = table.ctypes.data, self.layout.shape[1]
        words[_LAYOUT_RUN] = self._layout_run()
        return pieces_state(_piece_address(), len(parts), words)


class _CastJob:
    """A call of mixed dtypes whose kernel is not shipped, run as NumPy runs it: the inputs
    that are not of the computation dtype are cast to it (:func:`.copy.dense_copy`), then the
    operation's kernel of that dtype, which is shipped, runs (``inner``). It has the
    interface of :class:`_ElementwiseJob`, with its ``plan`` and extents."""

    __slots__ = ("plan", "lows", "highs", "parallel", "casts", "inner")

    def __init__(self, job, casts, inner):
        self.plan, self.lows, self.highs = job.plan, job.lows, job.highs
        self.parallel = False  # the inner job's threads run inside call
        self.casts, self.inner = casts, inner

    def call(self, *addresses):
        addresses = list(addresses)
        buffers = []
        for k, strides, dtype, cast_shape, compute_dtype in self.casts:
            buffer, addresses[k], _ = dense_copy(addresses[k], strides, dtype, cast_shape,
                                                 compute_dtype)
            buffers.append(buffer)
        if self.inner.parallel:
            self.inner.call_pieces(*addresses)
        else:
            self.inner.call(*addresses)


@functools.lru_cache(maxsize=4096)
def _job(name, kind, layouts, shape, compute_dtype):
    """The job of a call (see :func:`elementwise_job`): its own kernel where that is shipped,
    all its inputs are of the computation dtype or the cast would not be shipped either (the
    JIT then compiles it), else a :class:`_CastJob`."""
    job = _ElementwiseJob(name, kind, layouts, shape, compute_dtype)
    inputs = layouts[:-1]
    if (job.plan is None or all(dtype is compute_dtype for _, dtype in inputs)
            or job.shipped()):
        return job
    casts, cast_layouts = [], []
    for k, (strides, dtype) in enumerate(inputs):
        if dtype is compute_dtype:
            cast_layouts.append((strides, dtype))
            continue
        # a broadcast dimension (stride 0) is cast once, and stays broadcast
        cast_shape = tuple(1 if stride == 0 else size for size, stride in zip(shape, strides))
        dense = c_layout(cast_shape)[1]
        casts.append((k, strides, dtype, cast_shape, compute_dtype))
        cast_layouts.append((tuple(0 if stride == 0 else step
                                   for stride, step in zip(strides, dense)), compute_dtype))
    inner = _ElementwiseJob(name, kind, (*cast_layouts, layouts[-1]), shape, compute_dtype)
    return _CastJob(job, tuple(casts), inner) if inner.shipped() else job


def elementwise_job(name, kind, layouts, shape, compute_dtype):
    """The job that computes ``name`` for operands of ``layouts`` ((strides, dtype) of the
    inputs, then the output) on this thread; None when the call has no elements or needs
    threads. ``job.call(*addresses)`` runs it where no input overlaps the output."""
    job = _job(name, kind, layouts, shape, compute_dtype)
    return job if job.plan is not None and not job.parallel else None


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
    job = _job(name, kind, tuple((strides, dtype) for _, strides, dtype in operands), shape,
               compute_dtype)
    if job.plan is None:
        return
    out_address = out[0]
    for k, (address, strides, dtype) in enumerate(inputs):
        if (address + job.lows[k] < out_address + job.highs[-1]
                and out_address + job.lows[-1] < address + job.highs[k]
                and not (address == out_address and strides == out[1])):
            snapshot, copy_address, dense = dense_copy(address, strides, dtype, shape, dtype)
            return apply_elementwise(name, kind, [(copy_address, dense, dtype) if i == k
                                                  else operand for i, operand
                                                  in enumerate(inputs)], out, shape,
                                     compute_dtype)
    addresses = [address for address, _, _ in operands]
    if not job.parallel:
        job.call(*addresses)
        return
    job.call_pieces(*addresses)
