"""Conversions between stored values: NumPy's ``astype``, bit for bit, as compiled scalar code.

float16 and bfloat16 are stored as uint16 and converted with integer arithmetic (Numba's CPU
target has no half-precision arithmetic): float16 rounds to nearest even from float32 or
directly from float64 as NumPy does; bfloat16 goes through float32 and rounds to nearest even,
NaN becoming the quiet NaN of its sign (0x7FC0 or 0xFFC0), as ml_dtypes does. Bool is stored as
one byte, 0 or 1. A float becomes an integer as NumPy's ``astype`` converts it on x86-64, also
where C leaves it undefined, so that every backend and layout gives the same bits.
"""

import numpy as np
from .._numba import intrinsic, njit, overload, types

from .tags import storage


@intrinsic
def reinterpret(typingctx, value, kind):
    """The bits of ``value`` read as the same-width number type ``kind`` (e.g. ``np.uint32``)."""
    target = kind.instance_type

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(target))

    return target(value, kind), codegen


@njit
def half_from_float32(value):
    bits = np.int64(reinterpret(value, np.int32))
    sign = (bits >> 16) & 0x8000
    magnitude = bits & 0x7FFFFFFF
    if magnitude >= 0x7F800000:  # inf, or NaN with its payload kept non-zero
        payload = (magnitude & 0x7FFFFF) >> 13
        if magnitude > 0x7F800000 and payload == 0:
            payload = 1
        return np.uint16(sign | 0x7C00 | payload)
    if magnitude >= 0x38800000:  # a normal half: rebias, round to nearest even, saturate to inf
        rounded = (magnitude - 0x38000000 + 0xFFF + ((magnitude >> 13) & 1)) >> 13
        return np.uint16(sign | min(rounded, 0x7C00))
    # Subnormal: in [0.5, 1) a float32 step is 2**-24, the half subnormal step; the FPU rounds.
    shifted = reinterpret(abs(value) + np.float32(0.5), np.int32)
    return np.uint16(sign | (shifted - 0x3F000000))


@njit
def half_from_float64(value):
    bits = reinterpret(value, np.int64)
    sign = (bits >> 48) & 0x8000
    magnitude = bits & 0x7FFFFFFFFFFFFFFF
    if magnitude >= 0x7FF0000000000000:
        payload = (magnitude & 0xFFFFFFFFFFFFF) >> 42
        if magnitude > 0x7FF0000000000000 and payload == 0:
            payload = 1
        return np.uint16(sign | 0x7C00 | payload)
    if magnitude >= 0x3F10000000000000:
        rounded = (magnitude - 0x3F00000000000000 + 0x1FFFFFFFFFF + ((magnitude >> 42) & 1)) >> 42
        return np.uint16(sign | min(rounded, 0x7C00))
    # Subnormal: in [2**28, 2**29) a float64 step is 2**-24.
    shifted = reinterpret(abs(value) + 268435456.0, np.int64)
    return np.uint16(sign | (shifted - 0x41B0000000000000))


@njit
def _float32_from_half(half):
    bits = np.int64(half)
    sign = (bits & 0x8000) << 16
    rest = (bits & 0x7FFF) << 13
    if rest >= 0x0F800000:  # inf or NaN: all-ones exponent, same significand
        rest += 0x70000000
    else:  # normal or subnormal: scale by 2**112, exactly
        scaled = reinterpret(np.int32(rest), np.float32) * np.float32(2.0**112)
        rest = np.int64(reinterpret(scaled, np.int32))
    return reinterpret(np.uint32(sign | rest), np.float32)


@njit
def _float64_from_half(half):
    bits = np.int64(half)
    sign = (bits & 0x8000) << 48
    rest = (bits & 0x7FFF) << 42
    if rest >= 0x01F0000000000000:  # inf or NaN: all-ones exponent, same significand bits
        rest += 0x7E00000000000000
    else:  # normal or subnormal: scale by 2**1008, exactly
        rest = reinterpret(reinterpret(rest, np.float64) * 2.0**1008, np.int64)
    return reinterpret(sign | rest, np.float64)


@njit
def bfloat16_from_float32(value):
    bits = np.int64(reinterpret(value, np.uint32))
    if value != value:  # a quiet NaN of the same sign
        return np.uint16(((bits >> 16) & 0x8000) | 0x7FC0)
    return np.uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


@njit
def _float32_from_bfloat16(bits):
    return reinterpret(np.uint32(np.int64(bits) << 16), np.float32)


def convert(value, src, dst):
    """Convert a stored ``src``-tagged value to the stored form of ``dst`` (compiled only)."""


def _logical(dtype):
    if isinstance(dtype, types.Record):
        return next(iter(dtype.fields))
    if dtype == types.boolean:
        return "bool"
    return {types.Integer: "int", types.Float: "float", types.Complex: "complex"}[type(dtype)]


@overload(convert, jit_options={"nogil": True})
def _convert_overload(value, src, dst):
    src_kind, dst_kind = _logical(src.dtype), _logical(dst.dtype)
    if src.dtype == dst.dtype:
        return lambda value, src, dst: value
    # Decoding: bfloat16 widens exactly to float32, float16 to float32 or (bit for bit, NaN
    # payloads included) to float64 when that is the destination's precision, bool to a truth.
    wide = dst.dtype in (types.float64, types.complex128)
    decode = {"float16": _float64_from_half if wide else _float32_from_half,
              "bfloat16": _float32_from_bfloat16, "bool": _is_nonzero}.get(src_kind, _identity)
    decoded = {"float16": types.float64 if wide else types.float32, "bfloat16": types.float32,
               "bool": types.boolean}.get(src_kind, src.dtype)
    is_complex = isinstance(decoded, types.Complex)
    if dst_kind == "bool":
        if is_complex:
            return lambda value, src, dst: np.uint8(value.real != 0 or value.imag != 0)
        return lambda value, src, dst: np.uint8(decode(value) != 0)
    real = _real_part if is_complex else _identity
    if dst_kind == "float16":
        width = decoded.underlying_float if is_complex else decoded
        if width == types.float32:
            return lambda value, src, dst: half_from_float32(real(decode(value)))
        return lambda value, src, dst: half_from_float64(np.float64(real(decode(value))))
    if dst_kind == "bfloat16":
        return lambda value, src, dst: bfloat16_from_float32(np.float32(real(decode(value))))
    target = dst.dtype
    if dst_kind == "complex":
        return lambda value, src, dst: target(decode(value))
    if isinstance(target, types.Integer) and isinstance(decoded, (types.Float, types.Complex)):
        to_integer = _integer_from_float(target, getattr(decoded, "underlying_float", decoded))
        return lambda value, src, dst: to_integer(real(decode(value)))
    return lambda value, src, dst: target(real(decode(value)))


def _integer_from_float(target, source):
    """The conversion of a ``source`` float to the integer type ``target`` that NumPy's
    ``astype`` of a contiguous float32 or float64 array makes on x86-64: truncation toward zero
    by ``cvttsd2si``, which gives the least integer of its width for NaN and values out of
    range, through int32 up to 32 bits and int64 beyond, the upper half of uint32 and uint64
    shifted down first; the result wraps to the type's width."""
    through = np.int32 if target.bitwidth <= 32 else np.int64
    half = np.dtype(str(source)).type(-float(np.iinfo(through).min))

    @njit
    def truncated(value):
        return through(value if abs(value) < half else -half)  # NaN too: -half is least

    if target.signed or target.bitwidth < 32:
        return njit(lambda value: target(truncated(value)))
    top = target(half)
    return njit(lambda value: target(truncated(value - half)) ^ top if value >= half
                else target(truncated(value)))


@njit
def _identity(value):
    return value


@njit
def _is_nonzero(value):
    return value != 0


@njit
def _real_part(value):
    return value.real


def store(value, tag):
    """A computed value in the storage form of ``tag``'s dtype (compiled only)."""


@overload(store)
def _store_overload(value, tag):
    dtype = tag.dtype
    if dtype == types.boolean:
        return lambda value, tag: np.uint8(value != 0)
    if isinstance(dtype, types.Record):
        is_half = next(iter(dtype.fields)) == "float16"
        if is_half and value == types.float64:
            return lambda value, tag: half_from_float64(value)
        if is_half:
            return lambda value, tag: half_from_float32(np.float32(value))
        return lambda value, tag: bfloat16_from_float32(np.float32(value))
    target = storage(dtype)
    return lambda value, tag: target(value)
