"""CUDA kernels of the creation functions: evenly spaced values (``linspace``, each value
computed by the scalar code the CPU kernel compiles) and triangles zeroed (``tril``, ``triu``)."""

from numba import cuda

from ..shared.scalar import linspace_value
from ..shared.tags import UNITS
from ._driver import device_view, launch_shape


@cuda.jit
def _linspace_kernel(out, num, start, stop, div, endpoint):
    i = cuda.grid(1)
    while i < num:
        out[i] = linspace_value(i, num, start, stop, div, endpoint)
        i += cuda.gridsize(1)


@cuda.jit
def _zero_triangle_kernel(out, rows, cols, k, lower, n):
    i = cuda.grid(1)
    while i < n:
        row, column = (i // cols) % rows, i % cols
        if (column > row + k) if lower else (column < row + k):
            out[i] = 0
        i += cuda.gridsize(1)


def linspace(out_address, num, start, stop, div, endpoint, dtype, index):
    """:func:`dlnumba.kernels.linspace` on CUDA device ``index``, for a result of ``dtype``
    (float64 or complex128)."""
    if num == 0:
        return
    with cuda.gpus[index]:
        _linspace_kernel[launch_shape(num)](device_view(out_address, num, dtype.storage),
                                            num, start, stop, div, endpoint)
        cuda.synchronize()


def zero_triangle(address, batch, rows, cols, k, lower, itemsize, index):
    """:func:`dlnumba.kernels.zero_triangle` on CUDA device ``index``, for elements of
    ``itemsize`` bytes."""
    n = batch * rows * cols
    if n == 0:
        return
    with cuda.gpus[index]:
        _zero_triangle_kernel[launch_shape(n)](
            device_view(address, n, UNITS[itemsize].dtype), rows, cols, k, lower, n)
        cuda.synchronize()
