"""The transfer kernel: every copy and every cast between two strided layouts.

One compiled function moves elements from a source layout to a destination layout and converts
them on the way. Which conversion is chosen at compile time from two *tags*: empty arrays whose
Numba dtype names the logical dtype. A same-dtype copy uses the tags of raw 1/2/4/8/16-byte units,
so five compilations cover every same-dtype copy; a cast compiles once per (source, destination)
pair, on first use, and is cached on disk.

Conversions are NumPy's ``astype`` bit for bit. float16 and bfloat16 are stored as uint16 and
converted with integer arithmetic (Numba's CPU target has no half-precision arithmetic): float16
rounds to nearest even from float32 or directly from float64 as NumPy does; bfloat16 goes through
float32 and rounds to nearest even, NaN becoming the quiet NaN of its sign (0x7FC0 or 0xFFC0), as
ml_dtypes does.

Layouts have a runtime number of dimensions: ``shape``, ``src_strides`` and ``dst_strides`` are
int64 arrays (strides in elements), at least 2-D. The last two dimensions ``(b, a)`` are walked
in ``tile`` x ``tile`` blocks so that a transpose keeps both sides in cache; a tile at least as
large as both dimensions walks them plainly. Small arrays take :func:`transfer_run`'s run under
:func:`.walk.walk` instead: a strided loop that compiles quickly.
"""

import functools

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from .walk import compile_run, odometer

# Tags for the dtypes Numba's CPU target cannot hold: a record whose one field names the dtype.
FLOAT16_TAG = np.dtype([("float16", np.uint16)])
BFLOAT16_TAG = np.dtype([("bfloat16", np.uint16)])


def _storage(dtype):
    """The Numba type in memory for a tag's dtype."""
    if isinstance(dtype, types.Record):
        return types.uint16
    if dtype == types.boolean:
        return types.uint8
    return dtype


@intrinsic
def _typed_pointer(typingctx, address, tag):
    """A pointer to the storage type of ``tag`` at the integer ``address``."""
    pointer_type = types.CPointer(_storage(tag.dtype))

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer_type))

    return pointer_type(types.intp, tag), codegen


@njit(inline="always")
def advance(index, shape, top, a_strides, b_strides, a, b):
    """Step the odometer ``index`` over dimensions ``top``, ``top - 1``, ..., 0 of ``shape``
    (the last changing fastest) and move two element offsets ``a`` and ``b`` with it; returns
    the new offsets."""
    d = top
    while d >= 0:
        index[d] += 1
        a += a_strides[d]
        b += b_strides[d]
        if index[d] < shape[d]:
            break
        a -= a_strides[d] * shape[d]
        b -= b_strides[d] * shape[d]
        index[d] = 0
        d -= 1
    return a, b


@intrinsic
def _reinterpret(typingctx, value, kind):
    """The bits of ``value`` read as the same-width number type ``kind`` (e.g. ``np.uint32``)."""
    target = kind.instance_type

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(target))

    return target(value, kind), codegen


@njit
def _half_from_float32(value):
    bits = np.int64(_reinterpret(value, np.int32))
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
    shifted = _reinterpret(abs(value) + np.float32(0.5), np.int32)
    return np.uint16(sign | (shifted - 0x3F000000))


@njit
def _half_from_float64(value):
    bits = _reinterpret(value, np.int64)
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
    shifted = _reinterpret(abs(value) + 268435456.0, np.int64)
    return np.uint16(sign | (shifted - 0x41B0000000000000))


@njit
def _float32_from_half(half):
    bits = np.int64(half)
    sign = (bits & 0x8000) << 16
    rest = (bits & 0x7FFF) << 13
    if rest >= 0x0F800000:  # inf or NaN: all-ones exponent, same significand
        rest += 0x70000000
    else:  # normal or subnormal: scale by 2**112, exactly
        scaled = _reinterpret(np.int32(rest), np.float32) * np.float32(2.0**112)
        rest = np.int64(_reinterpret(scaled, np.int32))
    return _reinterpret(np.uint32(sign | rest), np.float32)


@njit
def _float64_from_half(half):
    bits = np.int64(half)
    sign = (bits & 0x8000) << 48
    rest = (bits & 0x7FFF) << 42
    if rest >= 0x01F0000000000000:  # inf or NaN: all-ones exponent, same significand bits
        rest += 0x7E00000000000000
    else:  # normal or subnormal: scale by 2**1008, exactly
        rest = _reinterpret(_reinterpret(rest, np.float64) * 2.0**1008, np.int64)
    return _reinterpret(sign | rest, np.float64)


@njit
def _bfloat16_from_float32(value):
    bits = np.int64(_reinterpret(value, np.uint32))
    if value != value:  # a quiet NaN of the same sign
        return np.uint16(((bits >> 16) & 0x8000) | 0x7FC0)
    return np.uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


@njit
def _float32_from_bfloat16(bits):
    return _reinterpret(np.uint32(np.int64(bits) << 16), np.float32)


def _convert(value, src, dst):
    """Convert a stored ``src``-tagged value to the stored form of ``dst`` (compiled only)."""


def _logical(dtype):
    if isinstance(dtype, types.Record):
        return next(iter(dtype.fields))
    if dtype == types.boolean:
        return "bool"
    return {types.Integer: "int", types.Float: "float", types.Complex: "complex"}[type(dtype)]


@overload(_convert, jit_options={"nogil": True})
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
            return lambda value, src, dst: _half_from_float32(real(decode(value)))
        return lambda value, src, dst: _half_from_float64(np.float64(real(decode(value))))
    if dst_kind == "bfloat16":
        return lambda value, src, dst: _bfloat16_from_float32(np.float32(real(decode(value))))
    target = dst.dtype
    if dst_kind == "complex":
        return lambda value, src, dst: target(decode(value))
    return lambda value, src, dst: target(real(decode(value)))


@njit
def _identity(value):
    return value


@njit
def _is_nonzero(value):
    return value != 0


@njit
def _real_part(value):
    return value.real


_memcpy = types.ExternalFunction("memcpy", types.voidptr(types.voidptr, types.voidptr, types.intp))


@intrinsic
def _address_of(typingctx, pointer, offset):
    """The ``void*`` of ``pointer[offset]``."""
    def codegen(context, builder, signature, args):
        element = builder.gep(args[0], [args[1]])
        return builder.bitcast(element, context.get_value_type(types.voidptr))

    return types.voidptr(pointer, types.intp), codegen


def _contiguous_run(src, src_start, dst, dst_start, count, src_tag, dst_tag):
    """Convert ``count`` consecutive elements (compiled only)."""


@overload(_contiguous_run, jit_options={"nogil": True})
def _contiguous_run_overload(src, src_start, dst, dst_start, count, src_tag, dst_tag):
    if src_tag.dtype == dst_tag.dtype:  # a plain copy: libc's memcpy (non-temporal when large)
        size = _storage(src_tag.dtype).bitwidth // 8

        def run(src, src_start, dst, dst_start, count, src_tag, dst_tag):
            _memcpy(_address_of(dst, dst_start), _address_of(src, src_start), count * size)
        return run

    def run(src, src_start, dst, dst_start, count, src_tag, dst_tag):
        for i in range(count):
            dst[dst_start + i] = _convert(src[src_start + i], src_tag, dst_tag)
    return run


@njit(cache=True, nogil=True)
def transfer(src_address, dst_address, shape, src_strides, dst_strides, tile, src_tag, dst_tag):
    """Move (and convert) every element of a layout from ``src_address`` to ``dst_address``."""
    src = _typed_pointer(src_address, src_tag)
    dst = _typed_pointer(dst_address, dst_tag)
    ndim = shape.size
    na, nb = shape[ndim - 1], shape[ndim - 2]
    sa, sb = src_strides[ndim - 1], src_strides[ndim - 2]
    da, db = dst_strides[ndim - 1], dst_strides[ndim - 2]
    outer = 1
    for d in range(ndim - 2):
        outer *= shape[d]
    index = odometer(ndim)
    src_base = dst_base = 0
    for _ in range(outer):
        for b0 in range(0, nb, tile):
            b1 = min(b0 + tile, nb)
            for a0 in range(0, na, tile):
                a1 = min(a0 + tile, na)
                for b in range(b0, b1):
                    s = src_base + b * sb
                    t = dst_base + b * db
                    if sa == 1 and da == 1:
                        _contiguous_run(src, s + a0, dst, t + a0, a1 - a0, src_tag, dst_tag)
                    elif da == 1 and sa == -1:
                        for a in range(a0, a1):
                            dst[t + a] = _convert(src[s - a], src_tag, dst_tag)
                    else:
                        for a in range(a0, a1):
                            dst[t + a * da] = _convert(src[s + a * sa], src_tag, dst_tag)
        src_base, dst_base = advance(index, shape, ndim - 3, src_strides, dst_strides, src_base,
                                     dst_base)


@functools.lru_cache(maxsize=None)
def transfer_run(src, dst):
    """The address of the run (:mod:`.walk`) that moves one strided run of elements tagged
    with the dtype ``src`` to elements tagged ``dst``, converting them."""
    def run(n, src_address, src_stride, dst_address, dst_stride, unused_address, unused_stride):
        for i in range(n):
            _typed_pointer(dst_address + i * dst_stride, dst)[0] = _convert(
                _typed_pointer(src_address + i * src_stride, src)[0], src, dst)
    return compile_run(run)
