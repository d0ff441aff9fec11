"""Elementwise kernels: one scalar operation applied over broadcast, strided layouts.

A call's types travel in one *signature*: an empty array whose record dtype holds the operation's
tag (a record whose one field names the implementation, ``"add:float"``) and the tags of the
operands', the output's and the computation's dtypes. Each (operation, dtypes) pair is its own
compiled specialization, cached on disk. The shape and every operand's strides travel as the
rows of one int64 array: a small call unboxes two arrays and the addresses, nothing more.
Operands are loaded from storage and converted to the computation dtype, combined by the scalar
function from :mod:`.scalar`, and stored converted to the output's dtype.

Small arrays run :func:`strided_run`'s runs under :func:`.walk.walk`: one strided loop per
(operation, dtypes), quick to compile. Large arrays run :func:`unary` and :func:`binary`, whose
innermost dimension has a contiguous fast path (and one for a broadcast scalar operand) that
LLVM vectorizes.
"""

import functools

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from .scalar import IMPLEMENTATIONS
from .transfer import (_bfloat16_from_float32, _convert, _half_from_float32, _half_from_float64,
                       _storage, _typed_pointer, advance)
from .walk import advance3, compile_run, odometer

_COMPILED = {}


def op_tag(name, kind):
    """The tag that selects ``IMPLEMENTATIONS[name][kind]``."""
    return np.empty(0, np.dtype([(f"{name}:{kind}", np.uint8)]))


def signature_tag(name, kind, tags):
    """The signature of ``name`` of ``kind`` on operands and a result with dtype tags ``tags``
    (the last is the computation's)."""
    fields = [("op", op_tag(name, kind).dtype)]
    fields += [(f"operand{k}", tag.dtype) for k, tag in enumerate(tags)]
    return np.empty(0, np.dtype(fields))


@intrinsic
def _unpack(typingctx, signature):
    """The tags a signature (an array or a dtype) holds, as empty arrays of its fields' dtypes
    (compiled only)."""
    unpacked = types.Tuple([types.Array(field, 1, "C") for _, field in signature.dtype.members])

    def codegen(context, builder, sig, args):
        # Only the tags' types are ever used; their values are null arrays.
        return context.get_constant_null(unpacked)

    return unpacked(signature), codegen


def _implementation(tag):
    name, kind = next(iter(tag.dtype.fields)).split(":")
    function = _COMPILED.get((name, kind))
    if function is None:
        function = _COMPILED[(name, kind)] = njit(IMPLEMENTATIONS[name][kind],
                                                  error_model="numpy")
    return function


def _apply(op, *operands):
    """Apply the operation ``op`` names (compiled only)."""


@overload(_apply, jit_options={"error_model": "numpy"})
def _apply_overload(op, *operands):
    function = _implementation(op)
    if len(operands) == 1:
        return lambda op, *operands: function(operands[0])
    return lambda op, *operands: function(operands[0], operands[1])


def _store(value, tag):
    """A computed value in the storage form of ``tag``'s dtype (compiled only)."""


@overload(_store)
def _store_overload(value, tag):
    dtype = tag.dtype
    if dtype == types.boolean:
        return lambda value, tag: np.uint8(value != 0)
    if isinstance(dtype, types.Record):
        is_half = next(iter(dtype.fields)) == "float16"
        if is_half and value == types.float64:
            return lambda value, tag: _half_from_float64(value)
        if is_half:
            return lambda value, tag: _half_from_float32(np.float32(value))
        return lambda value, tag: _bfloat16_from_float32(np.float32(value))
    target = _storage(dtype)
    return lambda value, tag: target(value)


@functools.lru_cache(maxsize=None)
def strided_run(signature):
    """The address of the run (:mod:`.walk`) of the operation and dtypes of a signature's
    dtype: ``out = op(x)`` or ``out = op(x, y)`` over one strided run, operands in the order
    of the signature's tags."""
    if len(signature.names) == 4:
        def run(n, x_address, sx, out_address, so, unused_address, unused_stride):
            op, x_tag, out_tag, compute_tag = _unpack(signature)
            for i in range(n):
                x = _typed_pointer(x_address + i * sx, x_tag)[0]
                _typed_pointer(out_address + i * so, out_tag)[0] = _store(
                    _apply(op, _convert(x, x_tag, compute_tag)), out_tag)
    else:
        def run(n, x_address, sx, y_address, sy, out_address, so):
            op, x_tag, y_tag, out_tag, compute_tag = _unpack(signature)
            for i in range(n):
                x = _typed_pointer(x_address + i * sx, x_tag)[0]
                y = _typed_pointer(y_address + i * sy, y_tag)[0]
                _typed_pointer(out_address + i * so, out_tag)[0] = _store(
                    _apply(op, _convert(x, x_tag, compute_tag), _convert(y, y_tag, compute_tag)),
                    out_tag)
    return compile_run(run)


@njit(cache=True, nogil=True, error_model="numpy")
def unary(signature, layout, x_address, out_address):
    """``out = op(x)`` over a planned layout: ``layout``'s rows are the shape and the strides
    (in elements) of ``x`` and ``out``, at least 2-D."""
    op, x_tag, out_tag, compute_tag = _unpack(signature)
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
                out[bo + i] = _store(_apply(op, _convert(x[bx + i], x_tag, compute_tag)),
                                     out_tag)
        else:
            for i in range(inner):
                out[bo + i * so] = _store(
                    _apply(op, _convert(x[bx + i * sx], x_tag, compute_tag)), out_tag)
        bx, bo = advance(index, shape, last - 1, x_strides, out_strides, bx, bo)


@njit(cache=True, nogil=True, error_model="numpy")
def binary(signature, layout, x_address, y_address, out_address):
    """``out = op(x, y)`` over a planned layout: ``layout``'s rows are the shape and the
    strides (in elements) of ``x``, ``y`` and ``out``, at least 2-D."""
    op, x_tag, y_tag, out_tag, compute_tag = _unpack(signature)
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
                out[bo + i] = _store(_apply(op, _convert(x[bx + i], x_tag, compute_tag),
                                            _convert(y[by + i], y_tag, compute_tag)), out_tag)
        elif so == 1 and sx == 1 and sy == 0:
            value = _convert(y[by], y_tag, compute_tag)
            for i in range(inner):
                out[bo + i] = _store(_apply(op, _convert(x[bx + i], x_tag, compute_tag), value),
                                     out_tag)
        elif so == 1 and sx == 0 and sy == 1:
            value = _convert(x[bx], x_tag, compute_tag)
            for i in range(inner):
                out[bo + i] = _store(_apply(op, value, _convert(y[by + i], y_tag, compute_tag)),
                                     out_tag)
        else:
            for i in range(inner):
                out[bo + i * so] = _store(_apply(op, _convert(x[bx + i * sx], x_tag, compute_tag),
                                                 _convert(y[by + i * sy], y_tag, compute_tag)),
                                          out_tag)
        bx, by, bo = advance3(index, shape, last - 1, x_strides, y_strides, out_strides, bx, by,
                              bo)
