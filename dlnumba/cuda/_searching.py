"""CUDA kernels of the searching functions: ``where`` (a ternary elementwise kernel over a
planned layout, raw units for the values) and the indices of ``nonzero`` (from flags, the
elements cast to bool, and their running count, made by the copy and scan kernels)."""

import numpy as np
from numba import cuda

from .._dtypes import bool as bool_, int64
from .._layout import c_strides, size_of
from ..shared.tags import TAGS, UNITS
from ._driver import allocate, device_view, download, launch_shape, plan_view
from ._kernels import _launch, _offsets, copy_array, scan_array


@cuda.jit
def _where_kernel(c, c_start, x, x_start, y, y_start, out, out_start, layout, ndim, n):
    i = cuda.grid(1)
    while i < n:
        a, b, d, o = _offsets(i, layout, ndim, 4)
        out[out_start + o] = x[x_start + b] if c[c_start + a] else y[y_start + d]
        i += cuda.gridsize(1)


@cuda.jit
def _nonzero_kernel(flags, positions, shape, ndim, out, count, n):
    i = cuda.grid(1)
    while i < n:
        if flags[i]:
            p = positions[i] - 1
            rest = i
            d = ndim - 1
            while d >= 0:
                q = rest // shape[d]
                out[d * count + p] = rest - q * shape[d]
                rest = q
                d -= 1
        i += cuda.gridsize(1)


def where(plan, condition_address, x_address, y_address, out_address, itemsize, index):
    """``out = x if condition else y`` over a plan of the four operands (a bool condition, then
    values of ``itemsize`` bytes) on CUDA device ``index``, as
    :func:`dlnumba.kernels.searching.where` on the CPU."""
    unit = UNITS[itemsize]
    _launch(_where_kernel, plan, [(condition_address, TAGS[bool_]), (x_address, unit),
                                  (y_address, unit), (out_address, unit)], index)


def nonzero(address, strides, dtype, shape, output, index):
    """The indices of the non-zero elements of a layout on CUDA device ``index``, in C order,
    into the ``(len(shape), count)`` int64 array at ``output(count)``: the elements cast to
    bool (C order), their running count, whose last element (the count) is the one value the
    host reads, then one thread per flag writes its indices."""
    n = size_of(shape)
    if n == 0:
        output(0)
        return
    flags, flags_owner = allocate(n, index=index)
    copy_array(address, strides, dtype, flags, c_strides(shape), bool_, shape, index)
    positions, positions_owner = allocate(8 * n, index=index)
    scan_array("sum", flags, (1,), bool_, (n,), 0, positions, (1,), int64, index)
    count = np.zeros(1, np.int64)
    download(count.ctypes.data, positions + 8 * (n - 1), 8, index)
    count = int(count[0])
    out_address = output(count)
    if count == 0:
        return
    storage = np.dtype(np.int64)
    with cuda.gpus[index]:
        _nonzero_kernel[launch_shape(n)](
            device_view(flags, n, np.dtype(np.bool_)), device_view(positions, n, storage),
            plan_view(shape), len(shape), device_view(out_address, len(shape) * count, storage),
            count, n)
        cuda.synchronize()
