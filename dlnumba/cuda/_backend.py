"""What differs between a real GPU and the Numba CUDA simulator: device memory, device views of
it for kernels, and byte copies. Everything else in this package is the same in both."""

import ctypes
import importlib.util

import numba
import numpy as np

from .._dlpack import LEGACY_DEFAULT_STREAM
from .._memory import allocate_host, numpy_view

_INSTALLED = importlib.util.find_spec("numba_cuda") is not None
SIMULATOR = bool(numba.config.ENABLE_CUDASIM)
if _INSTALLED:
    from numba import cuda

if _INSTALLED and SIMULATOR:
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
elif _INSTALLED:
    from numba.cuda.cudadrv.driver import driver


def device_count():
    """The number of CUDA devices dlnumba can use (0 without numba-cuda or a driver)."""
    if not _INSTALLED:
        return 0
    if SIMULATOR:
        return 1
    return len(cuda.gpus) if cuda.is_available() else 0


def check_device(index):
    """Raise ValueError unless CUDA device ``index`` can hold arrays, saying why not."""
    if not _INSTALLED:
        reason = "numba-cuda is not installed (pip install 'dlnumba[cuda]')"
    elif not SIMULATOR and not cuda.is_available():
        reason = f"CUDA is not usable here ({cuda.cuda_error()})"
    elif index >= device_count():
        reason = f"this machine has {device_count()} CUDA device(s)"
    else:
        return
    raise ValueError(f"device cuda:{index} is not available: {reason}")


def allocate(nbytes, index, zero=False):
    """``nbytes`` of memory on CUDA device ``index``: its address and the object that owns it
    (the memory is freed when the owner dies)."""
    if SIMULATOR:
        return allocate_host(nbytes, zero)
    with cuda.gpus[index]:
        memory = cuda.current_context().memalloc(max(nbytes, 1))
        address = memory.device_pointer_value
        if zero:
            driver.cuMemsetD8(address, 0, nbytes)
    return address, memory


def copy_bytes(dst, src, nbytes, index):
    """Copy ``nbytes`` between any two addresses of host or device memory (unified addressing),
    in the context of CUDA device ``index``; returns when the copy is done."""
    if SIMULATOR:
        ctypes.memmove(dst, src, nbytes)
    elif nbytes:
        with cuda.gpus[index]:
            driver.cuMemcpy(dst, src, nbytes)


def hand_over(index, stream):
    """Make the consumer's ``stream`` (one of the standard's integers) on CUDA device ``index``
    wait for the work dlnumba has queued there, without blocking the host: an event recorded
    on dlnumba's stream, the legacy default stream, that ``stream`` waits on (2, the
    per-thread default stream, is a handle the driver takes as it is). Nothing to do
    for -1 (the consumer synchronizes itself), for None or 1 (the same stream), or under the
    simulator (no streams)."""
    if SIMULATOR or stream in (None, -1, LEGACY_DEFAULT_STREAM):
        return
    with cuda.gpus[index]:
        event = cuda.event(timing=False)
        event.record(stream=cuda.legacy_default_stream())
        event.wait(stream=cuda.external_stream(stream))


def device_view(address, count, storage):
    """A 1-D device array of ``count`` elements of the NumPy dtype ``storage`` at ``address``,
    as kernels take it (made in the context of the device that holds it)."""
    if SIMULATOR:
        return FakeCUDAArray(numpy_view(address, (count,), (1,), storage, False, None))
    return cuda.from_cuda_array_interface(
        {"version": 3, "data": (address, False), "shape": (count,), "strides": None,
         "typestr": storage.str, "stream": None}, owner=None, sync=False)


def plan_view(values):
    """The int64 array ``values`` where kernels read it, on the current device; keep the
    result alive during the kernel."""
    values = np.ascontiguousarray(values, np.int64)
    return FakeCUDAArray(values) if SIMULATOR else cuda.to_device(values)


def launch_shape(n):
    """Blocks and threads per block for a grid-stride kernel over ``n`` items (the simulator
    runs every thread as a Python thread: one small block)."""
    if SIMULATOR:
        return 1, 32
    return max(1, min(-(-n // 256), 1 << 16)), 256
