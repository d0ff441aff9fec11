"""The CUDA backend: device memory, kernels, streams, and moves between devices.

The only package that imports ``numba.cuda`` (from ``numba-cuda``: ``pip install
dlnumba[cuda]``); dlnumba imports it when a CUDA device is first named or met, so a CPU-only
user never pays for it. Under the Numba CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) device
memory is host memory and kernels run as Python; the same code paths run there, which is how
CI tests them (and ``tests/cuda_ptx.py`` compiles every kernel for a real GPU).

What runs on a CUDA device: allocation, strided copies and casts (one kernel per pair of
dtypes, any rank and layout), every elementwise function and arithmetic operator (one kernel
per operation and dtypes), the reductions of the statistical and utility functions (one kernel
per reduction and dtypes), the gathers and scatters of array indexing, and moves between the
host and devices, which pack a non-contiguous source on its own device, make one contiguous
transfer, and unpack on the target. dlnumba's stream is the legacy default stream; exports
make a consumer's stream wait on it (:func:`hand_over`). User ``@cuda.jit`` kernels take
dlnumba CUDA arrays (:mod:`._jit_arguments`).
"""

from ._backend import (_INSTALLED, SIMULATOR, allocate, check_device, copy_bytes, device_count,
                       hand_over)

__all__ = ["SIMULATOR", "allocate", "apply_elementwise",
           "check_device", "copy_array", "copy_bytes", "device_count", "gather", "hand_over",
           "reduce_array", "register_jit_arguments", "scatter"]

# The kernels (and ``numba.cuda``) are imported on first use: only where numba-cuda is
# installed, never the deprecated target built into Numba.


def register_jit_arguments():
    """Let user ``@cuda.jit`` kernels take dlnumba arrays (once; nothing without numba-cuda):
    :mod:`._jit_arguments`."""
    if _INSTALLED:
        from ._jit_arguments import register
        register()


register_jit_arguments()


def copy_array(*args):
    """:func:`._kernels.copy_array`."""
    from ._kernels import copy_array as copy
    return copy(*args)


def apply_elementwise(*args):
    """:func:`._kernels.apply_elementwise`."""
    from ._kernels import apply_elementwise as apply
    return apply(*args)


def gather(*args):
    """:func:`._kernels.gather`."""
    from ._kernels import gather as gather_elements
    return gather_elements(*args)


def scatter(*args):
    """:func:`._kernels.scatter`."""
    from ._kernels import scatter as scatter_elements
    return scatter_elements(*args)


def reduce_array(*args):
    """:func:`._kernels.reduce_array`."""
    from ._kernels import reduce_array as reduce
    return reduce(*args)
