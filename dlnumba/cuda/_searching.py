"""CUDA kernels of the searching functions: ``where`` (a ternary elementwise kernel over a
planned layout, raw units for the values) and the indices of ``nonzero`` (from flags and
their running count, which the caller makes with the elementwise and scan kernels)."""

import numpy as np
from numba import cuda

from .._dtypes import bool as bool_
from .._layout import size_of
from ..kernels import _TAGS, _UNITS
from ._backend import device_view, launch_shape, plan_view
from ._kernels import _launch, _offsets


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
    unit = _UNITS[itemsize]
    _launch(_where_kernel, plan, [(condition_address, _TAGS[bool_]), (x_address, unit),
                                  (y_address, unit), (out_address, unit)], index)


def nonzero_indices(flags_address, positions_address, shape, out_address, count, index):
    """Write the indices of the true elements of the C-contiguous bool array of ``shape`` at
    ``flags_address``, whose running count (int64) is at ``positions_address``, to the
    ``(len(shape), count)`` int64 array at ``out_address``, in C order, on CUDA device
    ``index``."""
    n = size_of(shape)
    if count == 0:
        return
    int64 = np.dtype(np.int64)
    with cuda.gpus[index]:
        _nonzero_kernel[launch_shape(n)](
            device_view(flags_address, n, np.dtype(np.bool_)),
            device_view(positions_address, n, int64), plan_view(shape), len(shape),
            device_view(out_address, len(shape) * count, int64), count, n)
        cuda.synchronize()
