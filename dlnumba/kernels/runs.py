"""One run of a reduction (``n`` elements at a stride) reduced to one value, compiled only.

Float sums and products run pairwise, as NumPy's do: a strided or complex run in blocks of
``_BLOCK`` with 8 scalar accumulators each, a contiguous float run in four vectors of 64 bytes
(:mod:`.vectors`) over blocks of ``_VECTOR_BLOCK``. The blocks' results pair as a binary
counter's bits do (:func:`push`, :func:`fold`). The other reductions run in one pass: a float
maximum or minimum in vectors too, as any order gives the same value.

In the vectors, element ``i`` of a run goes to lane ``i % lanes`` of accumulator
``i // lanes % 4``. A run that starts inside a 64-byte line is read in whole lines (a load
across two lines costs about as much as two): the first and last lines' elements outside the
run count as the identity, and the accumulators are turned back to the plain loads' lanes at
the end, so that each lane combines the same elements in the same order.
"""

from .._numba import njit, overload, types

from ..shared.reductions import OPERATIONS, combine, identity, load, op_name
from ..shared.tags import storage
from .transfer import stack_values
from .vectors import (lanes, lanes_below, lanes_from, line_offset, notes_identity,
                      notes_verdict, vector_identity, vector_load, vector_quick_total,
                      vector_stack, vector_step, vector_total, vectors_paired)

_BLOCK = 128
# A contiguous float run's pairwise blocks: each vector lane sums 2048 / 64 float32 elements
# (NumPy's 8 accumulators sum 16 each), and a run of 4096 has 2 blocks to pair, not 32.
_VECTOR_BLOCK = 2048
_STACK = 64  # a pairwise reduction's partial results: one per bit of a block's count


def _block(op, x, start, n, stride, x_tag, acc_tag):
    """Reduce ``n`` elements with 8 independent accumulators (``n`` of at most ``_BLOCK``),
    combined as ``((r0 r1) (r2 r3)) ((r4 r5) (r6 r7))``. The loops over the 8 have a constant
    count: LLVM unrolls them and keeps the accumulators in registers."""
    if n < 8:
        r = identity(op, acc_tag)
        for i in range(n):
            r = combine(op, r, load(op, x[start + i * stride], x_tag, acc_tag))
        return r
    slots = stack_values(acc_tag, 8)
    for j in range(8):
        slots[j] = load(op, x[start + j * stride], x_tag, acc_tag)
    full = n - n % 8
    for i in range(8, full, 8):
        k = start + i * stride
        for j in range(8):
            slots[j] = combine(op, slots[j], load(op, x[k + j * stride], x_tag, acc_tag))
    for width in (1, 2, 4):
        for j in range(0, 8, 2 * width):
            slots[j] = combine(op, slots[j], slots[j + width])
    r = slots[0]
    for i in range(full, n):
        r = combine(op, r, load(op, x[start + i * stride], x_tag, acc_tag))
    return r


# The block is inlined where its stride is the constant 1 (contiguous loads vectorize) and
# called elsewhere: Numba types a function's IR again at each place it inlines it.
_inlined_block = njit(nogil=True, error_model="numpy", inline="always")(_block)
_called_block = njit(nogil=True, error_model="numpy")(_block)


def reduced_run(op, x, start, n, stride, x_tag, acc_tag):
    """Reduce a run of ``n`` elements at ``stride`` from ``x[start]`` (compiled only)."""


@overload(reduced_run, jit_options={"error_model": "numpy"})
def _reduced_run_overload(op, x, start, n, stride, x_tag, acc_tag):
    if sums_pairwise(op_name(op), isinstance(storage(acc_tag.dtype),
                                             (types.Float, types.Complex))):
        return lambda op, x, start, n, stride, x_tag, acc_tag: _pairwise_run(
            op, x, start, n, stride, x_tag, acc_tag)
    if _vectorizes(op, x_tag, acc_tag):  # a float maximum or minimum: any order is exact
        return _extreme_run
    return _in_order_run


def _vectorizes(op, x_tag, acc_tag):
    """Whether the vectors serve the reduction: floats reduced in their own type."""
    dtype = storage(acc_tag.dtype)
    return (isinstance(dtype, types.Float) and storage(x_tag.dtype) == dtype
            and OPERATIONS[op_name(op)][1] == "value")


def sums_pairwise(name, floating):
    """Whether the reduction ``name`` runs pairwise (float and complex sums and products)."""
    return floating and OPERATIONS[name][0] in ("add", "multiply")


def _in_order_run(op, x, start, n, stride, x_tag, acc_tag):
    r = identity(op, acc_tag)
    if stride == 1:
        for i in range(n):
            r = combine(op, r, load(op, x[start + i], x_tag, acc_tag))
    else:
        for i in range(n):
            r = combine(op, r, load(op, x[start + i * stride], x_tag, acc_tag))
    return r


in_order_strided_run = njit(nogil=True, error_model="numpy")(_in_order_run)


def _extreme_run(op, x, start, n, stride, x_tag, acc_tag):
    if stride != 1:
        return in_order_strided_run(op, x, start, n, stride, x_tag, acc_tag)
    full = n - n % _BLOCK
    rest = in_order_strided_run(op, x, start + full, n - full, 1, x_tag, acc_tag)
    return combine(op, _vector_extreme(op, x, start, full), rest) if full else rest


@njit(nogil=True, error_model="numpy")
def _pairwise_run(op, x, start, n, stride, x_tag, acc_tag):
    if n <= _BLOCK:
        if stride == 1:  # the block inlined with a constant stride: contiguous loads vectorize
            return _inlined_block(op, x, start, n, 1, x_tag, acc_tag)
        return _called_block(op, x, start, n, stride, x_tag, acc_tag)
    if stride == 1:
        return _contiguous_pairwise_run(op, x, start, n, x_tag, acc_tag)
    # The loop of pairwise_strided_run, written here again: a call would compile that function
    # for the dtypes once more.
    stack = stack_values(acc_tag, _STACK)
    depth = 0
    for count in range((n + _BLOCK - 1) // _BLOCK):
        first = count * _BLOCK
        r = _called_block(op, x, start + first * stride, min(_BLOCK, n - first), stride,
                          x_tag, acc_tag)
        depth = push(op, stack, depth, count, r)
    return fold(op, stack, depth)


def _contiguous_pairwise_run(op, x, start, n, x_tag, acc_tag):
    """Combine ``n`` contiguous elements pairwise (compiled only): in vectors where
    :func:`_vectorizes`, else in blocks of ``_BLOCK``."""


@overload(_contiguous_pairwise_run, jit_options={"error_model": "numpy", "forceinline": True})
def _contiguous_pairwise_run_overload(op, x, start, n, x_tag, acc_tag):
    if _vectorizes(op, x_tag, acc_tag):
        return _vector_pairwise_run
    return _block_pairwise_run


def _vector_pairwise_run(op, x, start, n, x_tag, acc_tag):
    full = n - n % _BLOCK
    r = _vector_sum(op, x, start, full)
    if n > full:
        r = combine(op, r, _called_block(op, x, start + full, n - full, 1, x_tag, acc_tag))
    return r


def _block_pairwise_run(op, x, start, n, x_tag, acc_tag):
    stack = stack_values(acc_tag, _STACK)
    depth = count = 0
    full = n - n % _BLOCK
    for first in range(0, full, _BLOCK):
        r = _inlined_block(op, x, start + first, _BLOCK, 1, x_tag, acc_tag)
        depth = push(op, stack, depth, count, r)
        count += 1
    if n > full:
        r = _called_block(op, x, start + full, n - full, 1, x_tag, acc_tag)
        depth = push(op, stack, depth, count, r)
    return fold(op, stack, depth)


@njit(nogil=True, error_model="numpy")
def pairwise_strided_run(op, x, start, n, stride, x_tag, acc_tag):
    """:func:`_pairwise_run` with one strided block loop: the same sums, a quarter of the code."""
    stack = stack_values(acc_tag, _STACK)
    depth = 0
    for count in range((n + _BLOCK - 1) // _BLOCK):
        first = count * _BLOCK
        r = _called_block(op, x, start + first * stride, min(_BLOCK, n - first), stride,
                          x_tag, acc_tag)
        depth = push(op, stack, depth, count, r)
    return fold(op, stack, depth)


@njit(inline="always")
def push(op, stack, depth, count, r):
    """Push the ``count``-th block's result ``r`` (a value or a vector), first combining it with
    the results of the blocks it pairs with; return the new depth."""
    while count & 1:
        depth -= 1
        r = combine(op, stack[depth], r)
        count >>= 1
    stack[depth] = r
    return depth + 1


@njit(inline="always")
def fold(op, stack, depth):
    """Combine the results left on the stack, deepest last."""
    r = stack[depth - 1]
    for level in range(depth - 2, -1, -1):
        r = combine(op, stack[level], r)
    return r


# ---- contiguous float runs in vectors ----

@njit(nogil=True, error_model="numpy")
def _vector_sum(op, x, start, count):
    """The sum or product of ``count`` contiguous floats from ``x[start]`` (a positive multiple
    of 4 vectors): each block of ``_VECTOR_BLOCK`` to one vector, the blocks' vectors pairwise,
    then the halves of the last one."""
    per_round = 4 * lanes(x)
    rounds, per_block = count // per_round, _VECTOR_BLOCK // per_round
    shift = line_offset(x, start)
    stack = vector_stack(x, _STACK)
    depth = 0
    for block in range((rounds + per_block - 1) // per_block):
        first = block * per_block
        stop = min(first + per_block, rounds)
        if shift == 0:
            vector = _rounds(op, x, start, first, stop, None)[0]
        else:
            vector = _rounds_across_lines(op, x, start, shift, first, stop, None)[0]
        depth = push(op, stack, depth, block, vector)
    return vector_total(op, fold(op, stack, depth))


@njit(nogil=True, error_model="numpy")
def _vector_extreme(op, x, start, count):
    """The maximum or minimum of ``count`` contiguous floats from ``x[start]`` (a positive
    multiple of 4 vectors), by the processor's own comparison (one instruction, where the exact
    one takes six), noting NaNs and sign bits on the side: where a NaN was met, the exact pass
    runs instead. A zero result means no value beyond zero: it is -0.0 exactly where a minimum
    saw a sign bit set, or where a maximum saw every one set."""
    rounds = count // (4 * lanes(x))
    shift = line_offset(x, start)
    notes = notes_identity(op, x)
    if shift == 0:
        vector, notes = _rounds(op, x, start, 0, rounds, notes)
    else:
        vector, notes = _rounds_across_lines(op, x, start, shift, 0, rounds, notes)
    found_nan, negative = notes_verdict(op, notes)
    if found_nan:  # rare: the exact pass, over the plain loads
        return vector_total(op, _rounds(op, x, start, 0, rounds, None)[0])
    result = vector_quick_total(op, vector)
    if result == 0:
        return -abs(result) if negative else abs(result)
    return result


@njit(inline="always")
def _rounds(op, x, at, first, stop, notes):
    """The rounds ``first`` to ``stop`` of 4 vectors each from ``x[at]``, vector ``v`` into
    accumulator ``v % 4`` from the identity; the accumulators combined pairwise, and the
    notes of each (``notes`` None: the exact steps, no notes)."""
    width = lanes(x)
    a = b = c = d = vector_identity(op, x)
    na = nb = nc = nd = notes
    for i in range(first, stop):
        p = at + 4 * i * width
        a, na = vector_step(op, a, na, vector_load(x, p))
        b, nb = vector_step(op, b, nb, vector_load(x, p + width))
        c, nc = vector_step(op, c, nc, vector_load(x, p + 2 * width))
        d, nd = vector_step(op, d, nd, vector_load(x, p + 3 * width))
    return vectors_paired(op, vectors_paired(op, (a, na), (b, nb)),
                          vectors_paired(op, (c, nc), (d, nd)))


@njit(inline="always")
def _rounds_across_lines(op, x, at, shift, first, stop, notes):
    """:func:`_rounds` of a run whose first element is element ``shift`` of its line, read in
    whole lines: the accumulators take the lines' lanes turned by ``shift``, the last line goes
    to accumulator 0 last (its lanes past the run, and its notes', take back what they held
    before it), and the accumulators are turned back at the end."""
    width = lanes(x)
    identity = vector_identity(op, x)
    lines = at - shift
    a, na = vector_step(op, identity, notes, lanes_below(
        shift, identity, vector_load(x, lines + 4 * first * width)))
    b = c = d = identity
    nb = nc = nd = notes
    kept, kept_notes = a, na
    for i in range(first, stop):
        p = lines + (4 * i + 1) * width
        b, nb = vector_step(op, b, nb, vector_load(x, p))
        c, nc = vector_step(op, c, nc, vector_load(x, p + width))
        d, nd = vector_step(op, d, nd, vector_load(x, p + 2 * width))
        kept, kept_notes = a, na
        a, na = vector_step(op, a, na, vector_load(x, p + 3 * width))
    a, na = lanes_below(shift, a, kept), lanes_below(shift, na, kept_notes)
    a, b, c, d = (lanes_from(a, b, shift), lanes_from(b, c, shift), lanes_from(c, d, shift),
                  lanes_from(d, a, shift))
    return vectors_paired(op, vectors_paired(op, (a, na), (b, nb)),
                          vectors_paired(op, (c, nc), (d, nd)))
