"""The CUDA backend: device memory, the copy/cast kernel, and moves between devices.

The only package that imports ``numba.cuda`` (from ``numba-cuda``: ``pip install
dlnumba[cuda]``); dlnumba imports it when a CUDA device is first named or met, so a CPU-only
user never pays for it. Under the Numba CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) device
memory is host memory and kernels run as Python; the same code paths run there, which is how
CI tests them.

What runs on a CUDA device so far: allocation, strided copies and casts on one device (one
kernel per pair of dtypes, any rank and layout), every elementwise function and arithmetic
operator (one kernel per operation and dtypes), the reductions of the statistical and utility
functions (one kernel per reduction and dtypes), and moves between the host and devices, which
pack a non-contiguous source on its own device, make one contiguous transfer, and unpack on the
target. Every other function refuses a CUDA array (ValueError) before touching its memory.
"""

from ._backend import SIMULATOR, allocate, check_device, copy_bytes, device_count

__all__ = ["SIMULATOR", "allocate", "apply_elementwise", "check_device", "copy_array",
           "copy_bytes", "device_count", "reduce_array"]

# The kernels (and ``numba.cuda``) are imported on first use: only where numba-cuda is
# installed, never the deprecated target built into Numba.


def copy_array(*args):
    """:func:`._kernels.copy_array`."""
    from ._kernels import copy_array as copy
    return copy(*args)


def apply_elementwise(*args):
    """:func:`._kernels.apply_elementwise`."""
    from ._kernels import apply_elementwise as apply
    return apply(*args)


def reduce_array(*args):
    """:func:`._kernels.reduce_array`."""
    from ._kernels import reduce_array as reduce
    return reduce(*args)
