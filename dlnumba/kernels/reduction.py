"""Reduction kernels: reductions over any set of axes, index reductions and scans.

A reduction walks its input in memory order (a plan of the input and an accumulator that has
zero strides along the reduced axes; :func:`.shared.plan.make_plan` orders and merges the
dimensions).
When the innermost dimension is reduced, each run of it is reduced to one value and combined
into its accumulator; when it is kept, whole rows are combined into the accumulator row. Float
sums and products run pairwise over blocks: a contiguous float run is combined in four
64-byte vector accumulators (:func:`_vector_combine`), which pairs the results of its blocks
of 2048 as vectors; a strided or complex block of 128 in 8 scalar accumulators, as NumPy's
are. The operation travels as a tag (an
empty array whose record dtype's one field names it), so each (operation, input dtype,
accumulator dtype) is one compiled, cached specialization for every layout. Below 2**14
elements, reductions and arg-reductions run the same arithmetic as small runs
(:func:`reduce_run`, :func:`arg_reduce_run`) under :mod:`.walk`'s walk, which compile quickly.
"""

import functools

import numpy as np
from llvmlite import ir
from .._numba import carray, cgutils, intrinsic, njit, overload, types

from .. import _dtypes
from .._native import copy_memory
from .._layout import c_strides, size_of
from .._shipped import shipped_address, ships_call
from ..shared.conversions import convert, store
from ..shared.plan import make_plan
from ..shared.reductions import (COMBINE_PARTIALS, OP_TAGS, OPERATIONS, beyond, combine,
                                 identity, identity_value, load, op_name)
from ..shared.tags import TAGS, storage
from .copy import copy_array, dense_copy
from .threads import (PARALLEL_BYTES, PIECE, PIECES, RUNNER_WORDS, THREADS, VECTORIZED_SIZE,
                      WORD, pieces_state, run_in_parallel, run_pieces)
from .transfer import _typed_pointer, stack_values
from .walk import (RUN, Direct, advance, byte_layout, compile_run, elements, entry_point,
                   odometer, walk_function)

_BLOCK = 128
# A contiguous float run's pairwise blocks: each vector lane sums 2048 / 64 float32 elements
# (NumPy's 8 accumulators sum 16 each), and a run of 4096 has 2 blocks to pair, not 32.
_VECTOR_BLOCK = 2048
_INT64_TAG = np.empty(0, np.int64)
_VECTOR_BYTES = 64  # one AVX-512 register; LLVM splits the vectors where registers are narrower
_VECTORS = 4  # independent vector accumulators: enough to hide an addition's latency
# The scalar operations the vector loop combines with (LLVM instruction or intrinsic names) and
# their identities.
_VECTOR_OPERATIONS = {"add": ("fadd", -0.0), "multiply": ("fmul", 1.0),
                      "maximum": ("llvm.maximum", -np.inf), "minimum": ("llvm.minimum", np.inf)}


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


def _unroll(builder, index, times):
    """Ask LLVM to unroll the loop whose index (a phi of ``cgutils.for_range_slice``) is
    ``index`` ``times`` times (1: not at all)."""
    module = builder.module
    hint = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.count"),
                                ir.Constant(ir.IntType(32), times)])
    loop = module.add_metadata([hint, hint])
    loop.operands = (loop, hint)  # a loop's metadata names itself first
    index.incomings[-1][1].terminator.set_metadata("llvm.loop", loop)


@intrinsic
def _vector_combine(typingctx, op, pointer, start, count):
    """Combine ``count`` contiguous floats from ``pointer[start]`` (``count`` a positive multiple
    of ``_VECTORS`` vectors) in ``_VECTORS`` vector accumulators: element ``i`` goes to lane
    ``i % lanes`` of accumulator ``i // lanes % _VECTORS``. The accumulators are then combined
    pairwise, and so are the halves of the last one, down to one value.

    A sum or product does so for each block of ``_VECTOR_BLOCK`` elements, down to one vector,
    and combines the blocks' vectors pairwise before the halves: a call per block, ending in
    the halves' sum, cost a sum of 4096x4096 float32 from memory on one thread 10% more (1250
    against 1130 us), and one over rows of 4096 6% more.

    A maximum or minimum takes the processor's own comparison (one instruction, where
    ``llvm.maximum`` takes six), noting NaNs on the side; where it saw one, the exact pass runs
    instead. The quick comparison does not order zeros, so it also keeps the sign bits: a zero
    minimum means no value below zero, and it is -0.0 exactly when some sign bit is set; a
    zero maximum means none above, and it is 0.0 exactly when some sign bit is clear.

    A run that starts inside a 64-byte line is read in whole lines (a load across two lines
    costs about as much as two; a line that holds some of the run lies in the run's pages):
    the first and last lines' elements outside the run count as the identity, and a line's
    lanes go to the accumulators the plain loads would have given them, rotated by the run's
    offset into its first line; a sum's or product's accumulators are rotated back at the end.
    Each lane then combines the same elements in the same order: the results are the plain
    loads' exactly."""
    operation, start_value = _VECTOR_OPERATIONS[OPERATIONS[op_name(op)][0]]
    dtype = pointer.dtype

    def codegen(context, builder, signature, args):
        _, address, first, count = args
        element = context.get_value_type(dtype)
        size = context.get_abi_sizeof(element)
        lanes = _VECTOR_BYTES // size
        vector = ir.VectorType(element, lanes)

        def exact(a, b):
            if operation.startswith("llvm."):
                name = f"{operation}.v{a.type.count}f{size * 8}"
                function = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(a.type, [a.type] * 2), name)
                return builder.call(function, [a, b])
            return getattr(builder, operation)(a, b)

        def quick(a, b):  # maxps/minps: b where either is NaN or both are zeros
            return builder.select(builder.fcmp_ordered(
                ">" if operation == "llvm.maximum" else "<", a, b), a, b)

        def index(value):
            return ir.Constant(count.type, value)

        base = builder.bitcast(builder.gep(address, [first]), vector.as_pointer())
        rounds = builder.udiv(count, index(lanes * _VECTORS))
        # The run's offset into its first line, in elements (0 off an element boundary: that
        # run keeps the plain loads).
        at = builder.ptrtoint(base, count.type)
        shift = builder.select(
            builder.icmp_unsigned("==", builder.and_(at, index(size - 1)), index(0)),
            builder.and_(builder.udiv(at, index(size)), index(lanes - 1)), index(0))
        lines = builder.inttoptr(builder.sub(at, builder.mul(shift, index(size))),
                                 vector.as_pointer())
        positions = ir.VectorType(ir.IntType(32), lanes)
        lane = ir.Constant(positions, list(range(lanes)))

        def lanes_below(limit):
            """A mask of the lanes below ``limit`` (an int)."""
            held = builder.insert_element(ir.Constant(positions, None), builder.trunc(
                limit, positions.element), ir.Constant(ir.IntType(32), 0))
            return builder.icmp_unsigned("<", lane, builder.shuffle_vector(
                held, held, ir.Constant(positions, [0] * lanes)))

        word = ir.IntType(size * 8)
        bits = ir.VectorType(word, lanes)
        minimum = operation == "llvm.minimum"
        gather_signs = builder.or_ if minimum else builder.and_  # any set / all set

        def pairwise_blocks(rounds_from):
            """The vectors ``rounds_from`` gives for each block of ``_VECTOR_BLOCK`` elements
            (the last may be shorter), combined pairwise as :func:`_push` and :func:`_fold`
            combine the scalar blocks' results (written again here for vectors, in the loop),
            without summing a vector's lanes per block."""
            per_block = index(_VECTOR_BLOCK // (lanes * _VECTORS))
            stack = cgutils.alloca_once(builder, vector, size=64)
            depth = cgutils.alloca_once_value(builder, index(0))
            pushed = cgutils.alloca_once(builder, vector)
            pairs = cgutils.alloca_once(builder, count.type)
            blocks = builder.udiv(builder.add(rounds, builder.sub(per_block, index(1))),
                                  per_block)
            with cgutils.for_range_slice(builder, index(0), blocks, index(1)) as (block, _):
                first = builder.mul(block, per_block)
                stop = builder.add(first, per_block)
                builder.store(rounds_from(first, builder.select(
                    builder.icmp_unsigned("<", stop, rounds), stop, rounds)), pushed)
                # The k-th block's result pairs with one on the stack for each trailing one
                # bit of k.
                builder.store(block, pairs)
                test, pair, pushing = (builder.append_basic_block(name)
                                       for name in ("pair.test", "pair", "push"))
                builder.branch(test)
                builder.position_at_end(test)
                builder.cbranch(builder.icmp_unsigned("!=", builder.and_(
                    builder.load(pairs), index(1)), index(0)), pair, pushing)
                builder.position_at_end(pair)
                below = builder.sub(builder.load(depth), index(1))
                builder.store(below, depth)
                builder.store(exact(builder.load(builder.gep(stack, [below])),
                                    builder.load(pushed)), pushed)
                builder.store(builder.lshr(builder.load(pairs), index(1)), pairs)
                builder.branch(test)
                builder.position_at_end(pushing)
                top = builder.load(depth)
                builder.store(builder.load(pushed), builder.gep(stack, [top]))
                builder.store(builder.add(top, index(1)), depth)
            # These loops run a few times a block or a run: unrolled (LLVM did, 8 times), they
            # add only code to compile, at each function the run is inlined into.
            _unroll(builder, block, 1)
            # The results left on the stack, deepest last.
            top = builder.sub(builder.load(depth), index(1))
            builder.store(builder.load(builder.gep(stack, [top])), pushed)
            with cgutils.for_range_slice(builder, index(0), top, index(1)) as (level, _):
                below = builder.sub(builder.sub(top, level), index(1))
                builder.store(exact(builder.load(builder.gep(stack, [below])),
                                    builder.load(pushed)), pushed)
            _unroll(builder, level, 1)
            return builder.load(pushed)

        def combined(step, notes=None, realign=True, blocks=False):
            """The loop with ``step`` combining each vector into its accumulator (and
            ``notes``: for each accumulator, slots for an i1 vector that stays true while its
            values are ordered and for their gathered bits), then the accumulators' combination
            by ``step``: a quick step's result is exact but for the NaNs and zeros the notes
            are for. ``realign``: a run that starts inside a line is read in whole lines.
            ``blocks``: each block's accumulators are combined, then the blocks' pairwise."""
            def note(k, value):
                # Notes in one slot chain every vector to the last: a maximum of 4096x4096
                # float32 from memory on one thread took 1444 us with them, 1326 with a slot
                # per accumulator (1160 without notes).
                if notes is not None:
                    ordered, signs = (held[k % _VECTORS] for held in notes)
                    builder.store(builder.and_(builder.load(ordered), builder.fcmp_ordered(
                        "ord", value, value)), ordered)
                    builder.store(gather_signs(builder.load(signs),
                                               builder.bitcast(value, bits)), signs)

            # Started at the identity, the loop runs every round: LLVM unrolls it by 4, and a
            # first round taken out of it left three rounds of a power-of-two run to a remainder
            # loop, which cost a maximum over rows of 4096 float32 a fifth more at memory speed.
            identity = ir.Constant(vector, [start_value] * lanes)
            slots = [cgutils.alloca_once(builder, vector) for _ in range(_VECTORS)]

            def add(k, value):
                builder.store(step(builder.load(slots[k % _VECTORS]), value),
                              slots[k % _VECTORS])
                note(k, value)

            def load(source, position, align):
                return builder.load(builder.gep(source, [position]), align=align)

            def loop(source, offset, align, first, stop, kept=None):
                """Rounds ``first`` to ``stop`` of the vectors from ``source``'s vector
                ``offset`` on, vector ``v`` to accumulator ``v % _VECTORS``; ``kept`` (slots),
                where given, gets the last vector's accumulator and notes before each round's
                last vector."""
                with cgutils.for_range_slice(builder, first, stop, index(1)) as (i, _):
                    row = builder.add(builder.mul(i, index(_VECTORS)), index(offset))
                    for k in range(_VECTORS):
                        if kept is not None and k == _VECTORS - 1:
                            last = (offset + k) % _VECTORS
                            for keep, slot in zip(kept, (slots[last], *(
                                    held[last] for held in notes or ()))):
                                builder.store(builder.load(slot), keep)
                        add(offset + k, load(source, builder.add(row, index(k)), align))

            def across_lines(first, stop):
                """The rounds' vectors from whole lines: the first and the last line count
                their elements outside the rounds as the identity; then a sum's or product's
                accumulators turn back to the plain loads' lanes (accumulator k's lane j is
                lane j + shift of the accumulators laid end to end, the first again after the
                last), in a step for each power of two the shift holds."""
                # The lanes before the shift: the first line's before the rounds, the last
                # line's in them.
                before = lanes_below(shift)
                add(0, builder.select(before, identity, load(
                    lines, builder.mul(first, index(_VECTORS)), 64)))
                # The last line goes to accumulator 0 last: its lanes past the run take back
                # what they held before it (a mask in the loop, or a last round taken out of
                # it, cost a maximum over rows of 4096 float32 from memory 13-24% more).
                watched = (slots[0], *(held[0] for held in notes or ()))
                kept = [cgutils.alloca_once(builder, slot.type.pointee) for slot in watched]
                loop(lines, 1, 64, first, stop, kept)
                for slot, keep in zip(watched, kept):
                    builder.store(builder.select(before, builder.load(slot),
                                                 builder.load(keep)), slot)
                if operation.startswith("llvm."):
                    return  # a maximum or minimum is the same in any order
                values = [builder.load(slot) for slot in slots]
                width = 1
                while width < lanes:
                    moved = [builder.shuffle_vector(
                        values[k], values[(k + 1) % _VECTORS],
                        ir.Constant(positions, list(range(width, width + lanes))))
                        for k in range(_VECTORS)]
                    taken = builder.icmp_unsigned("!=", builder.and_(shift, index(width)),
                                                  index(0))
                    values = [builder.select(taken, m, v) for m, v in zip(moved, values)]
                    width *= 2
                for value, slot in zip(values, slots):
                    builder.store(value, slot)

            def rounds_from(first, stop):
                """The accumulators, from the identity, over rounds ``first`` to ``stop``,
                combined pairwise into one vector."""
                for slot in slots:
                    builder.store(identity, slot)
                if realign:
                    with builder.if_else(builder.icmp_unsigned("==", shift, index(0))) as (
                            on_lines, across):
                        with on_lines:
                            loop(base, 0, size, first, stop)
                        with across:
                            across_lines(first, stop)
                else:
                    loop(base, 0, size, first, stop)
                values = [builder.load(slot) for slot in slots]
                while len(values) > 1:
                    values = [step(values[j], values[j + 1])
                              for j in range(0, len(values), 2)]
                return values[0]

            value = (pairwise_blocks(rounds_from) if blocks
                     else rounds_from(index(0), rounds))
            width = lanes
            while width > 1:
                width //= 2
                halves = [ir.Constant(ir.VectorType(ir.IntType(32), width),
                                      list(range(j, j + width))) for j in (0, width)]
                value = step(*(builder.shuffle_vector(value, value, half) for half in halves))
            return builder.extract_element(value, ir.Constant(ir.IntType(32), 0))

        if not operation.startswith("llvm."):
            return combined(exact, blocks=True)
        flags = ir.VectorType(ir.IntType(1), lanes)
        ordered, signs = ([cgutils.alloca_once_value(builder, initial) for _ in range(_VECTORS)]
                          for initial in (ir.Constant(flags, [1] * lanes),
                                        ir.Constant(bits, [0 if minimum else -1] * lanes)))
        quick_result = combined(quick, (ordered, signs))

        def gather(held, merge):
            return functools.reduce(merge, (builder.load(slot) for slot in held))

        any_nan = builder.not_(builder.call(cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(1), [flags]),
            f"llvm.vector.reduce.and.v{lanes}i1"), [gather(ordered, builder.and_)]))
        gathered = builder.call(cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(word, [bits]),
            f"llvm.vector.reduce.{'or' if minimum else 'and'}.v{lanes}i{size * 8}"),
            [gather(signs, gather_signs)])
        negative = builder.icmp_signed("<", gathered, ir.Constant(word, 0))
        zero = builder.select(negative, ir.Constant(element, -0.0), ir.Constant(element, 0.0))
        is_zero = builder.fcmp_ordered("==", quick_result, ir.Constant(element, 0))
        result = cgutils.alloca_once_value(builder, builder.select(is_zero, zero, quick_result))
        with builder.if_then(any_nan, likely=False):
            builder.store(combined(exact, realign=False), result)  # rare: the plain loads
        return builder.load(result)

    return dtype(op, pointer, types.intp, types.intp), codegen


def _vectorizes(op, x_tag, acc_tag):
    """Whether :func:`_vector_combine` serves the reduction: floats reduced in their own type."""
    dtype = storage(acc_tag.dtype)
    return (isinstance(dtype, types.Float) and storage(x_tag.dtype) == dtype
            and OPERATIONS[op_name(op)][1] == "value")


# The large-array kernels inline the block where its stride is the constant 1 (contiguous loads
# vectorize) and call it elsewhere: Numba copies and types a function's IR again at each place
# it inlines it, which costs more to compile than the call (two strided places inlined took
# 0.3 s of a first large float sum; calling costs a strided sum in the cache 7%).
_inlined_block = njit(nogil=True, error_model="numpy", inline="always")(_block)
_called_block = njit(nogil=True, error_model="numpy")(_block)


def _run(op, x, start, n, stride, x_tag, acc_tag):
    """Reduce a run of ``n`` elements at ``stride`` (compiled only): float sums and products
    in blocks of ``_BLOCK`` combined pairwise, the rest in one pass."""


@overload(_run, jit_options={"error_model": "numpy"})
def _run_overload(op, x, start, n, stride, x_tag, acc_tag):
    if _is_pairwise(op, acc_tag):
        return lambda op, x, start, n, stride, x_tag, acc_tag: _pairwise_run(
            op, x, start, n, stride, x_tag, acc_tag)
    if _vectorizes(op, x_tag, acc_tag):  # a float maximum or minimum: any order is exact
        return _extreme_run
    return _in_order_run


def _is_pairwise(op, acc_tag):
    return _sums_pairwise(op_name(op), isinstance(storage(acc_tag.dtype),
                                                (types.Float, types.Complex)))


def _sums_pairwise(name, floating):
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


_in_order_strided_run = njit(nogil=True, error_model="numpy")(_in_order_run)


def _extreme_run(op, x, start, n, stride, x_tag, acc_tag):
    if stride != 1:
        return _in_order_strided_run(op, x, start, n, stride, x_tag, acc_tag)
    full = n - n % _BLOCK
    rest = _in_order_strided_run(op, x, start + full, n - full, 1, x_tag, acc_tag)
    return combine(op, _vector_combine(op, x, start, full), rest) if full else rest


@njit(nogil=True, error_model="numpy")
def _pairwise_run(op, x, start, n, stride, x_tag, acc_tag):
    if n <= _BLOCK:
        if stride == 1:  # the block inlined with a constant stride: contiguous loads vectorize
            return _inlined_block(op, x, start, n, 1, x_tag, acc_tag)
        return _called_block(op, x, start, n, stride, x_tag, acc_tag)
    if stride == 1:
        return _contiguous_pairwise_run(op, x, start, n, x_tag, acc_tag)
    # The loop of _pairwise_strided_run, written here again: a call would compile that
    # function for the dtypes once more, which cost the first large float32 sum 0.05-0.08 s.
    stack = stack_values(acc_tag, 64)  # a pairwise reduction's partial results
    depth = 0
    for count in range((n + _BLOCK - 1) // _BLOCK):
        first = count * _BLOCK
        r = _called_block(op, x, start + first * stride, min(_BLOCK, n - first), stride,
                          x_tag, acc_tag)
        depth = _push(op, stack, depth, count, r)
    return _fold(op, stack, depth)


def _contiguous_pairwise_run(op, x, start, n, x_tag, acc_tag):
    """Combine ``n`` contiguous elements pairwise (compiled only): in vector accumulators
    where :func:`_vectorizes` (blocks of ``_VECTOR_BLOCK`` paired within), else in blocks of
    ``_BLOCK``."""


@overload(_contiguous_pairwise_run, jit_options={"error_model": "numpy", "forceinline": True})
def _contiguous_pairwise_run_overload(op, x, start, n, x_tag, acc_tag):
    # Inlined: called, it cost a sum over rows of 4096 float32 from memory on one thread
    # 1360-1420 against 1280-1370 us.
    if _vectorizes(op, x_tag, acc_tag):
        return _vector_pairwise_run
    return _block_pairwise_run


def _vector_pairwise_run(op, x, start, n, x_tag, acc_tag):
    full = n - n % _BLOCK
    r = _vector_combine(op, x, start, full)
    if n > full:
        r = combine(op, r, _called_block(op, x, start + full, n - full, 1, x_tag, acc_tag))
    return r


def _block_pairwise_run(op, x, start, n, x_tag, acc_tag):
    stack = stack_values(acc_tag, 64)  # a pairwise reduction's partial results
    depth = count = 0
    full = n - n % _BLOCK
    for first in range(0, full, _BLOCK):
        r = _inlined_block(op, x, start + first, _BLOCK, 1, x_tag, acc_tag)
        depth = _push(op, stack, depth, count, r)
        count += 1
    if n > full:
        r = _called_block(op, x, start + full, n - full, 1, x_tag, acc_tag)
        depth = _push(op, stack, depth, count, r)
    return _fold(op, stack, depth)


@njit(nogil=True, error_model="numpy")
def _pairwise_strided_run(op, x, start, n, stride, x_tag, acc_tag):
    """:func:`_pairwise_run` with one strided block loop: the same sums, a quarter of the code."""
    stack = stack_values(acc_tag, 64)  # a pairwise reduction's partial results
    depth = 0
    for count in range((n + _BLOCK - 1) // _BLOCK):
        first = count * _BLOCK
        r = _called_block(op, x, start + first * stride, min(_BLOCK, n - first), stride,
                          x_tag, acc_tag)
        depth = _push(op, stack, depth, count, r)
    return _fold(op, stack, depth)


@njit(inline="always")
def _push(op, stack, depth, count, r):
    """Push the ``count``-th block's result ``r``, first combining it with the results of the
    blocks it pairs with; return the new depth."""
    while count & 1:
        depth -= 1
        r = combine(op, stack[depth], r)
        count >>= 1
    stack[depth] = r
    return depth + 1


@njit(inline="always")
def _fold(op, stack, depth):
    """Combine the results left on the stack, deepest last."""
    r = stack[depth - 1]
    for level in range(depth - 2, -1, -1):
        r = combine(op, stack[level], r)
    return r


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
                value = _run(op, x, bx, inner, 1, x_tag, acc_tag)
            else:
                value = _run(op, x, bx, inner, sx, x_tag, acc_tag)
            acc[ba] = combine(op, acc[ba], value)
        elif sx == 1 and sa == 1:
            for i in range(inner):
                acc[ba + i] = combine(op, acc[ba + i], load(op, x[bx + i], x_tag, acc_tag))
        else:
            for i in range(inner):
                acc[ba + i * sa] = combine(op, acc[ba + i * sa],
                                            load(op, x[bx + i * sx], x_tag, acc_tag))
        bx, ba = advance(index, dims, last - 1, (bx, ba), xs, accs)


_PIECE_WORDS = 6  # a reduction's words in its pieces' state (reduce_piece)
_ACC_BASE, _X_BASE = RUNNER_WORDS + 4, RUNNER_WORDS + 5


@functools.cache
def reduce_piece(op, x_tag, acc_tag):
    """The address of ``piece(words, k)`` (:func:`.threads.pieces_state`), which runs the
    ``k``-th piece of a reduction for the operation and tags with these dtypes. ``words`` are
    the address of the pieces' table, the plan's ndim, the addresses of its accumulator and
    input strides, then the accumulator's and the input's base addresses; the table's row ``k``
    is the piece's accumulator and input offsets (bytes) and the address of its shape."""
    return compile_run(_reduce_piece_function(op, x_tag, acc_tag), PIECE)


def _reduce_piece_function(op, x_tag, acc_tag):
    def piece(words_address, k):
        words = carray(_typed_pointer(words_address, WORD), _PIECE_WORDS)
        row = carray(_typed_pointer(words[0] + 24 * k, WORD), 3)
        ndim = words[1]
        _reduce(op, carray(_typed_pointer(row[2], WORD), ndim), words[5] + row[1],
                carray(_typed_pointer(words[3], WORD), ndim), x_tag, words[4] + row[0],
                carray(_typed_pointer(words[2], WORD), ndim), acc_tag)
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
    pairwise = _sums_pairwise(op.names[0], acc_tag.kind in "fc" and acc_tag.names is None)

    def run(n, acc_address, sa, x_address, sx, unused_address, unused_stride):
        x = _typed_pointer(x_address, x_tag)
        acc = _typed_pointer(acc_address, acc_tag)
        if sa == 0:
            if pairwise:
                value = _pairwise_strided_run(op, x, 0, n, sx // x_size, x_tag, acc_tag)
            else:
                value = _in_order_strided_run(op, x, 0, n, sx // x_size, x_tag, acc_tag)
            acc[0] = combine(op, acc[0], value)
        else:
            sx //= x_size
            sa //= acc_size
            for i in range(n):
                acc[i * sa] = combine(op, acc[i * sa], load(op, x[i * sx], x_tag, acc_tag))
    return run


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


@entry_point(error_model="numpy")
def scan(op, shape, x_address, x_strides, x_tag, out_address, out_strides, out_tag, axis,
         compute_tag):
    """``out`` = the running ``op`` of ``x`` along the planned dimension ``axis`` (-1: none, every
    element is the first of its run) over a planned layout (at least 2-D)."""
    x = _typed_pointer(x_address, x_tag)
    out = _typed_pointer(out_address, out_tag)
    last = shape.size - 1
    inner, sx, so = shape[last], x_strides[last], out_strides[last]
    back = out_strides[axis] if axis >= 0 else 0
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    bx = bo = 0
    for _ in range(outer):
        if axis == last:
            out[bo] = store(convert(x[bx], x_tag, compute_tag), out_tag)
            for i in range(1, inner):
                previous = convert(out[bo + (i - 1) * so], out_tag, compute_tag)
                value = convert(x[bx + i * sx], x_tag, compute_tag)
                out[bo + i * so] = store(combine(op, previous, value), out_tag)
        elif axis < 0 or index[axis] == 0:
            for i in range(inner):
                out[bo + i * so] = store(convert(x[bx + i * sx], x_tag, compute_tag), out_tag)
        else:
            for i in range(inner):
                previous = convert(out[bo + i * so - back], out_tag, compute_tag)
                value = convert(x[bx + i * sx], x_tag, compute_tag)
                out[bo + i * so] = store(combine(op, previous, value), out_tag)
        bx, bo = advance(index, shape, last - 1, (bx, bo), x_strides, out_strides)


# ---- the engine: plans, jobs and threads ----


def _split(plan, parts):
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
            pieces, self.reduced_split = _split(plan, PIECES)
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
        self.state = pieces_state(piece, len(pieces), [
            table.ctypes.data, self.plan.shape.size, strides[0].ctypes.data,
            strides[1].ctypes.data, 0, 0])
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
        state[_X_BASE] = x_address
        if not self.reduced_split:
            state[_ACC_BASE] = acc_address
            run_pieces(state)
            return
        # Each piece reduces into its own row of partial results, then the rows are combined.
        partials = np.empty((len(self.pieces[0]), self.kept), self.acc_dtype.storage)
        partials[...] = self.identity
        state[_ACC_BASE] = partials.ctypes.data
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
    """The job of a reduction (see :func:`reduce_job`): a :class:`_CastReduceJob` where its
    own kernel is not shipped and the cast one is, else its own (compiled if not shipped). A
    floating sum is cast only from a C-contiguous input, whose order of summation the cast
    keeps."""
    size = size_of(shape)
    if (name in ("sum", "prod") and x_dtype is not acc_dtype and size
            and (acc_dtype.kind in _EXACT_KINDS or x_strides == c_strides(shape))
            and not _ships_reduction(name, x_dtype, acc_dtype, size)
            and _ships_reduction(name, acc_dtype, acc_dtype, size)):
        return _CastReduceJob((x_strides, x_dtype, shape, acc_dtype), _ReduceJob(
            name, shape, c_strides(shape), acc_dtype, axes, acc_dtype, parallel))
    return _ReduceJob(name, shape, x_strides, x_dtype, axes, acc_dtype, parallel)


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
    # (about 50 us here) cost more than it saved.
    if (THREADS == 1 or plan.size < THREADS
            or plan.size * n * x_dtype.itemsize < PARALLEL_BYTES):
        arg_reduce(op, plan.shape, x_address, x_strides, x_tag, out_address, out_strides, n,
                   stride, compute_tag)
        return
    run_in_parallel(arg_reduce, [
        (op, part, x_address + x * x_dtype.itemsize, x_strides, x_tag, out_address + o * 8,
         out_strides, n, stride, compute_tag) for (o, x), part in plan.split(THREADS)])


def scan_array(name, x_address, x_strides, x_dtype, shape, axis, out_address, out_strides,
               out_dtype):
    """The running sum (``name="sum"``) or product (``"prod"``) along ``axis`` of a layout,
    computed in ``out_dtype`` (float16/bfloat16 through float32, rounded at each step as
    NumPy does) and written to the layout at ``out_address``.

    Where the scan from ``x_dtype`` is not shipped and the one from the computation dtype is,
    ``x`` is cast to that dtype first (as NumPy casts), so that no kernel is compiled."""
    compute_dtype = _dtypes.computation_dtype(out_dtype)
    arguments = _scan_arguments(name, x_address, x_strides, x_dtype, shape, axis, out_address,
                                out_strides, out_dtype, compute_dtype)
    if arguments is None:
        return
    key = (name, x_dtype, out_dtype)
    cast_first = _CAST_FIRST.get(key)
    if cast_first is None:
        cast_first = _CAST_FIRST[key] = (
            x_dtype is not compute_dtype and not ships_call(scan.py_func, arguments)
            and ships_call(scan.py_func, _scan_arguments(
                name, 0, c_strides(shape), compute_dtype, shape, axis, out_address,
                out_strides, out_dtype, compute_dtype)))
    if cast_first:
        cast, cast_address, dense = dense_copy(x_address, x_strides, x_dtype, shape,
                                               compute_dtype)
        arguments = _scan_arguments(name, cast_address, dense, compute_dtype, shape, axis,
                                    out_address, out_strides, out_dtype, compute_dtype)
        key = (name, compute_dtype, out_dtype)
    _SCANS(key, *arguments)


_SCANS = Direct(scan)  # by operation, input dtype and output dtype, which fix every type
_CAST_FIRST = {}  # (operation, input dtype, output dtype): whether scan_array casts the input


def _scan_arguments(name, x_address, x_strides, x_dtype, shape, axis, out_address, out_strides,
                    out_dtype, compute_dtype):
    """The arguments of :func:`scan` for :func:`scan_array`'s; None for no elements."""
    marker = tuple(int(d == axis) for d in range(len(shape)))
    plan = make_plan(shape, marker, x_strides, out_strides)
    if plan is None:
        return None
    _, x_planned, out_planned = plan.strides
    position = np.flatnonzero(plan.strides[0])
    return (OP_TAGS[name], plan.shape, x_address + plan.offsets[1] * x_dtype.itemsize,
            x_planned, TAGS[x_dtype], out_address + plan.offsets[2] * out_dtype.itemsize,
            out_planned, TAGS[out_dtype], int(position[0]) if position.size else -1,
            TAGS[compute_dtype])
