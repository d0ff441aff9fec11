"""Vectors of 64 bytes for the reduction kernels: a Numba type and the intrinsics Numba cannot
express (a load, a lane-wise step and its notes, a lane mask, a lane move, the combination of a
vector's lanes); and a kernel's wish for 512-bit vectors where LLVM compiles its loops.

A vector holds ``lanes(dtype)`` elements, one 64-byte line (an AVX-512 register: LLVM splits
it where registers are narrower). The algorithms that use these are ``@njit`` Python
(:mod:`.runs`).
"""

import functools

import numpy as np
from llvmlite import ir
from .._numba import cgutils, intrinsic, overload, types

from ..shared.reductions import OPERATIONS, combine, op_name

VECTOR_BYTES = 64
_BITS = {"float": 32, "double": 64}  # of an LLVM float type, by its name
# The lane-wise operation of each reduction that runs in vectors (an LLVM instruction or
# intrinsic), and its identity.
_OPERATIONS = {"add": ("fadd", -0.0), "multiply": ("fmul", 1.0),
               "maximum": ("llvm.maximum", -np.inf), "minimum": ("llvm.minimum", np.inf)}


@functools.cache
def _vector_class():
    """The Numba type of a vector, made once Numba is loaded (typing runs only then)."""
    from numba.extending import models, register_model

    class Vector(types.Type):
        def __init__(self, dtype, lanes):
            self.dtype, self.lanes = dtype, lanes
            super().__init__(name=f"Vector({dtype} x {lanes})")

    @register_model(Vector)
    class _VectorModel(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            element = dmm.lookup(fe_type.dtype).get_value_type()
            super().__init__(dmm, fe_type, ir.VectorType(element, fe_type.lanes))

    return Vector


def vector_type(dtype, lanes=None):
    """The Numba type of a vector of ``dtype`` (a Numba scalar type): of one line's lanes
    unless ``lanes``."""
    return _vector_class()(dtype, lanes or VECTOR_BYTES * 8 // dtype.bitwidth)


def _operation(op):
    return _OPERATIONS[OPERATIONS[op_name(op)][0]]


@intrinsic
def wide_vectors(typingctx):
    """Compile the calling function's loops in 512-bit vectors where the CPU has them, though
    its level prefers 256 bits (x86-64-v4 does, for CPUs that slow down on wider ones); the
    function is then never inlined, where its caller's preference would apply instead."""
    def codegen(context, builder, signature, args):
        attributes = builder.function.attributes
        set.add(attributes, '"prefer-vector-width"="512"')  # llvmlite lists no string attributes
        attributes.add("noinline")
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def lanes(typingctx, pointer):
    """The lanes of a vector of ``pointer``'s element type (a constant)."""
    count = vector_type(pointer.dtype).lanes
    return types.intp(pointer), lambda context, builder, signature, args: context.get_constant(
        types.intp, count)


@intrinsic
def vector_load(typingctx, pointer, index):
    """The vector at ``pointer[index]`` (aligned to an element)."""
    vector = vector_type(pointer.dtype)

    def codegen(context, builder, signature, args):
        at = builder.gep(args[0], [args[1]])
        return builder.load(builder.bitcast(at, context.get_value_type(vector).as_pointer()),
                            align=pointer.dtype.bitwidth // 8)

    return vector(pointer, types.intp), codegen


@intrinsic
def vector_identity(typingctx, op, pointer):
    """A vector of the identity of ``op`` (``add``, ``multiply``, ``maximum``, ``minimum``)."""
    vector = vector_type(pointer.dtype)
    value = _operation(op)[1]

    def codegen(context, builder, signature, args):
        return ir.Constant(context.get_value_type(vector), [value] * vector.lanes)

    return vector(op, pointer), codegen


@intrinsic
def vector_stack(typingctx, pointer, count):
    """Room on the stack for ``count`` (a literal int) vectors of ``pointer``'s element type."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    vector = vector_type(pointer.dtype)

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(vector),
                                   size=count.literal_value)

    return types.CPointer(vector)(pointer, count), codegen


def _exact(builder, operation):
    """The exact lane-wise step of ``operation`` (a maximum or minimum orders zeros and keeps
    NaNs)."""
    if not operation.startswith("llvm."):
        return getattr(builder, operation)

    def step(x, y):
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            x.type, [x.type] * 2), f"{operation}.v{x.type.count}f{_BITS[str(x.type.element)]}")
        return builder.call(function, [x, y])
    return step


def _quick(builder, op):
    """The quick lane-wise step of a maximum or minimum (maxps, minps): ``y`` where either
    lane is NaN or both are zeros."""
    comparison = ">" if _operation(op)[0] == "llvm.maximum" else "<"
    return lambda x, y: builder.select(builder.fcmp_ordered(comparison, x, y), x, y)


def _halves(builder, value, step):
    """The lanes of ``value`` combined by ``step``: the halves, then their halves."""
    width = value.type.count
    while width > 1:
        width //= 2
        halves = [ir.Constant(ir.VectorType(ir.IntType(32), width), list(range(j, j + width)))
                  for j in (0, width)]
        value = step(*(builder.shuffle_vector(value, value, half) for half in halves))
    return builder.extract_element(value, ir.Constant(ir.IntType(32), 0))


@intrinsic
def vector_combine(typingctx, op, a, b):
    """``op`` lane by lane, exactly."""
    operation = _operation(op)[0]
    return a(op, a, b), lambda context, builder, signature, args: _exact(
        builder, operation)(*args[1:])


@intrinsic
def vector_total(typingctx, op, vector):
    """The lanes combined exactly by ``op``, halves first."""
    operation = _operation(op)[0]
    return vector.dtype(op, vector), lambda context, builder, signature, args: _halves(
        builder, args[1], _exact(builder, operation))


@intrinsic
def vector_quick_total(typingctx, op, vector):
    """The lanes combined by the quick step (:func:`vector_step`), halves first."""
    return vector.dtype(op, vector), lambda context, builder, signature, args: _halves(
        builder, args[1], _quick(builder, op))


# A quick maximum's or minimum's notes on its vectors: the lanes that met a NaN (booleans), and
# the sign bits gathered (integers of the lanes' width: a minimum's, any set; a maximum's, all
# set), which say the sign of a zero result. Where there are no notes (None), the steps are
# exact.

def _notes_type(vector):
    signs = types.int64 if vector.dtype.bitwidth == 64 else types.int32
    return types.Tuple((vector_type(types.boolean, vector.lanes),
                        vector_type(signs, vector.lanes)))


def _gather(builder, op):
    return builder.or_ if _operation(op)[0] == "llvm.minimum" else builder.and_


@intrinsic
def notes_identity(typingctx, op, pointer):
    """The notes before any vector: no NaN, and the gathering's identity."""
    notes = _notes_type(vector_type(pointer.dtype))
    signs = 0 if _operation(op)[0] == "llvm.minimum" else -1

    def codegen(context, builder, signature, args):
        nans, words = (context.get_value_type(kind) for kind in notes)
        return context.make_tuple(builder, notes, [ir.Constant(nans, [0] * nans.count),
                                                   ir.Constant(words, [signs] * words.count)])

    return notes(op, pointer), codegen


@intrinsic
def vector_step(typingctx, op, vector, notes, value):
    """``(vector, notes)`` with ``value`` combined in, lane by lane: exactly where ``notes`` is
    None, else quickly (maxps, minps: ``value``'s lane where either is NaN or both are zeros),
    noting ``value``'s NaNs and sign bits."""
    result = types.Tuple((vector, notes))
    operation = _operation(op)[0]

    def codegen(context, builder, signature, args):
        _, held, noted, new = args
        if isinstance(notes, types.NoneType):
            return context.make_tuple(builder, result, [_exact(builder, operation)(held, new),
                                                        noted])
        nans, signs = cgutils.unpack_tuple(builder, noted)
        noted = context.make_tuple(builder, notes, [
            builder.or_(nans, builder.fcmp_unordered("uno", new, new)),
            _gather(builder, op)(signs, builder.bitcast(new, signs.type))])
        return context.make_tuple(builder, result, [_quick(builder, op)(held, new), noted])

    return result(op, vector, notes, value), codegen


@intrinsic
def vectors_paired(typingctx, op, a, b):
    """Two ``(vector, notes)`` combined as :func:`vector_step` combines."""
    operation = _operation(op)[0]

    def codegen(context, builder, signature, args):
        (x, x_notes), (y, y_notes) = (cgutils.unpack_tuple(builder, pair) for pair in args[1:])
        if isinstance(a[1], types.NoneType):
            return context.make_tuple(builder, a, [_exact(builder, operation)(x, y), x_notes])
        notes = context.make_tuple(builder, a[1], [merge(*pair) for merge, pair in zip(
            (builder.or_, _gather(builder, op)), zip(cgutils.unpack_tuple(builder, x_notes),
                                                      cgutils.unpack_tuple(builder, y_notes)))])
        return context.make_tuple(builder, a, [_quick(builder, op)(x, y), notes])

    return a(op, a, b), codegen


@intrinsic
def notes_verdict(typingctx, op, notes):
    """Whether the notes met a NaN, and whether a zero result is -0.0."""
    def codegen(context, builder, signature, args):
        nans, signs = cgutils.unpack_tuple(builder, args[1])
        gathered = _halves(builder, signs, _gather(builder, op))
        return context.make_tuple(builder, signature.return_type, [
            _halves(builder, nans, builder.or_),
            builder.icmp_signed("<", gathered, ir.Constant(gathered.type, 0))])

    return types.UniTuple(types.boolean, 2)(op, notes), codegen


@intrinsic
def lanes_below(typingctx, limit, below, above):
    """``below``'s lanes under ``limit`` (an int), then ``above``'s: of two vectors, of each
    pair of a tuple's (notes), or None for None."""
    def codegen(context, builder, signature, args):
        if isinstance(below, types.NoneType):
            return args[1]
        if isinstance(below, types.BaseTuple):
            return context.make_tuple(builder, below, [_select_below(builder, args[0], *pair)
                                                       for pair in zip(*(cgutils.unpack_tuple(
                                                           builder, v) for v in args[1:]))])
        return _select_below(builder, *args)

    return below(types.intp, below, above), codegen


def _select_below(builder, limit, below, above):
    count = below.type.count
    positions = ir.VectorType(ir.IntType(32), count)
    held = builder.insert_element(ir.Constant(positions, None), builder.trunc(
        limit, positions.element), ir.Constant(ir.IntType(32), 0))
    splat = builder.shuffle_vector(held, held, ir.Constant(positions, [0] * count))
    mask = builder.icmp_unsigned("<", ir.Constant(positions, list(range(count))), splat)
    return builder.select(mask, below, above)


@intrinsic
def lanes_from(typingctx, a, b, shift):
    """The lanes ``shift`` to ``shift + lanes - 1`` of ``a`` then ``b`` (``shift`` an int below
    the lanes): the pair is moved down by each power of two that ``shift`` holds."""
    def codegen(context, builder, signature, args):
        count = args[0].type.count
        pair = builder.shuffle_vector(args[0], args[1], ir.Constant(
            ir.VectorType(ir.IntType(32), 2 * count), list(range(2 * count))))
        width = 1
        while width < count:
            moved = builder.shuffle_vector(pair, pair, ir.Constant(
                ir.VectorType(ir.IntType(32), 2 * count),
                [min(j + width, 2 * count - 1) for j in range(2 * count)]))
            taken = builder.icmp_unsigned("!=", builder.and_(
                args[2], ir.Constant(args[2].type, width)), ir.Constant(args[2].type, 0))
            pair = builder.select(taken, moved, pair)
            width *= 2
        return builder.shuffle_vector(pair, pair, ir.Constant(
            ir.VectorType(ir.IntType(32), count), list(range(count))))

    return a(a, b, types.intp), codegen


@intrinsic
def line_offset(typingctx, pointer, index):
    """The position of ``pointer[index]`` in its 64-byte line, in elements (0 where the address
    is not a multiple of the element's size)."""
    size = pointer.dtype.bitwidth // 8

    def codegen(context, builder, signature, args):
        at = builder.ptrtoint(builder.gep(args[0], [args[1]]), ir.IntType(64))
        within = builder.udiv(builder.urem(at, ir.Constant(at.type, VECTOR_BYTES)),
                              ir.Constant(at.type, size))
        aligned = builder.icmp_unsigned("==", builder.urem(at, ir.Constant(at.type, size)),
                                        ir.Constant(at.type, 0))
        return builder.select(aligned, within, ir.Constant(at.type, 0))

    return types.intp(pointer, types.intp), codegen


@overload(combine, inline="always")
def _combine_vectors_overload(op, a, b):
    if isinstance(a, _vector_class()):
        return lambda op, a, b: vector_combine(op, a, b)
    return None
