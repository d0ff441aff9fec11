"""The transfer kernel: every copy and every cast between two strided layouts.

One compiled function moves elements from a source layout to a destination layout and converts
them on the way. Which conversion is chosen at compile time from two *tags*: empty arrays whose
Numba dtype names the logical dtype. A same-dtype copy uses the tags of raw 1/2/4/8/16-byte units,
so five compilations cover every same-dtype copy; a cast compiles once per (source, destination)
pair, on first use, and is cached on disk.

Conversions are NumPy's ``astype`` bit for bit (:mod:`dlnumba.shared.conversions`).

Layouts have a runtime number of dimensions: ``shape``, ``src_strides`` and ``dst_strides`` are
int64 arrays (strides in elements), at least 2-D. The last two dimensions ``(b, a)`` are walked
in ``tile`` x ``tile`` blocks so that a transpose keeps both sides in cache; a tile at least as
large as both dimensions walks them plainly. Small arrays take :func:`transfer_run`'s run under
:mod:`.walk`'s walk instead: a strided loop that compiles quickly.
"""

import functools

from .._numba import cgutils, external_function, intrinsic, overload, types

from ..shared.conversions import convert
from ..shared.tags import storage
from .walk import advance, compile_run, entry_point, odometer


@intrinsic
def _typed_pointer(typingctx, address, tag):
    """A pointer to the storage type of ``tag`` at the integer ``address``."""
    pointer_type = types.CPointer(storage(tag.dtype))

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer_type))

    return pointer_type(types.intp, tag), codegen


@intrinsic
def stack_values(typingctx, tag, count):
    """Room on the stack for ``count`` (a literal int) items of ``tag``'s storage type."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    dtype = storage(tag.dtype)

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(dtype),
                                   size=count.literal_value)

    return types.CPointer(dtype)(tag, count), codegen


_memcpy = external_function("memcpy", types.voidptr(types.voidptr, types.voidptr, types.intp))


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
        size = storage(src_tag.dtype).bitwidth // 8

        def run(src, src_start, dst, dst_start, count, src_tag, dst_tag):
            _memcpy(_address_of(dst, dst_start), _address_of(src, src_start), count * size)
        return run

    def run(src, src_start, dst, dst_start, count, src_tag, dst_tag):
        for i in range(count):
            dst[dst_start + i] = convert(src[src_start + i], src_tag, dst_tag)
    return run


@entry_point()
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
                            dst[t + a] = convert(src[s - a], src_tag, dst_tag)
                    elif da == 1:  # the general loop with its destination stride known
                        for a in range(a0, a1):
                            dst[t + a] = convert(src[s + a * sa], src_tag, dst_tag)
                    else:
                        for a in range(a0, a1):
                            dst[t + a * da] = convert(src[s + a * sa], src_tag, dst_tag)
        src_base, dst_base = advance(index, shape, ndim - 3, (src_base, dst_base), src_strides,
                                     dst_strides)


@functools.lru_cache(maxsize=None)
def transfer_run(src, dst):
    """The address of the run (:mod:`.walk`) that moves one strided run of elements tagged
    with the dtype ``src`` to elements tagged ``dst``, converting them."""
    def run(n, src_address, src_stride, dst_address, dst_stride, unused_address, unused_stride):
        for i in range(n):
            _typed_pointer(dst_address + i * dst_stride, dst)[0] = convert(
                _typed_pointer(src_address + i * src_stride, src)[0], src, dst)
    return compile_run(run)
