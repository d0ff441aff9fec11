"""The CUDA backend: device memory, kernels, streams, and moves between devices.

``Backend(index)`` is device ``index``'s implementation of the backend interface
(:mod:`dlnumba._backend`), which is how the rest of dlnumba reaches this package. The only
package that imports ``numba.cuda`` (from ``numba-cuda``: ``pip install dlnumba[cuda]``);
dlnumba imports it when a CUDA device is first named or met, so a CPU-only
user never pays for it. Under the Numba CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) device
memory is host memory and kernels run as Python; the same code paths run there, which is how
CI tests them (and ``tests/cuda_ptx.py`` compiles every kernel for a real GPU).

What runs on a CUDA device: allocation, strided copies and casts (one kernel per pair of
dtypes, any rank and layout), every elementwise function and arithmetic operator (one kernel
per operation and dtypes), ``where``, the reductions of the statistical, utility and searching
functions, index reductions and running sums and products (one kernel per reduction and
dtypes), ``nonzero``, ``linspace``, ``tril``/``triu``, the gathers and scatters of array
indexing, and moves between the host and devices, which pack a non-contiguous source on its
own device, make one contiguous transfer (staged through pinned buffers from and to large
pageable host memory), and unpack on the target. Sorting, searching sorted
arrays, sets, ``linalg`` and ``fft`` make a host round trip (``_arguments.on_host``).
dlnumba's stream is the legacy default stream; exports make a consumer's stream wait on it
(:func:`hand_over`). User ``@cuda.jit`` kernels take dlnumba CUDA arrays
(:mod:`._jit_arguments`).
"""

import functools
import importlib

from ._driver import (_INSTALLED, SIMULATOR, allocate, check_device, check_pointer, copy_bytes,
                      device_count, download, hand_over, upload)

__all__ = ["SIMULATOR", "Backend", "check_device", "device_count", "register_jit_arguments"]

# The kernels (and ``numba.cuda``) are imported on first use: only where numba-cuda is
# installed, never the deprecated target built into Numba.
_KERNEL_MODULES = {
    "apply_elementwise": "._kernels", "arg_reduce_array": "._kernels",
    "compress": "._kernels", "copy_array": "._kernels", "expand": "._kernels",
    "fused_job": "._fused", "fused_reduction": "._fused",
    "gather": "._kernels", "put": "._kernels",
    "reduce_array": "._kernels", "scan_array": "._kernels", "scatter": "._kernels",
    "take": "._kernels",
    "nonzero": "._searching", "where": "._searching",
    "linspace": "._creation", "zero_triangle": "._creation",
}
_DRIVER = {"allocate": allocate, "check_pointer": check_pointer, "copy_bytes": copy_bytes,
           "download": download, "hand_over": hand_over, "upload": upload}


class Backend:
    """The backend interface (:class:`dlnumba._backend.DeviceBackend`) of CUDA device
    ``index``: each entry point is this package's function of the same name with the device
    bound (the last argument, ``index``)."""

    def __init__(self, index):
        self.index = index

    def __getattr__(self, name):
        if name in ("elementwise_job", "reduce_job"):
            function = _no_job
        elif name in _DRIVER:
            function = functools.partial(_DRIVER[name], index=self.index)
        elif name in _KERNEL_MODULES:
            module = importlib.import_module(_KERNEL_MODULES[name], __name__)
            function = functools.partial(getattr(module, name), index=self.index)
        else:
            raise AttributeError(f"the CUDA backend has no entry point {name!r}")
        setattr(self, name, function)
        return function


def _no_job(*arguments):
    """No direct path: every elementwise call or reduction is a kernel launch
    (:func:`apply_elementwise`, :func:`reduce_array`)."""


def register_jit_arguments(array_type):
    """Let user ``@cuda.jit`` kernels take arrays of ``array_type`` (dlnumba.ndarray; once;
    nothing without numba-cuda): :mod:`._jit_arguments`."""
    if _INSTALLED:
        from ._jit_arguments import register
        register(array_type)
