"""What differs between a real GPU and the Numba CUDA simulator: device memory, device views of
it for kernels, and byte copies. Everything else in this package is the same in both."""

import ctypes
import importlib.util
import threading

import numba
import numpy as np

from .. import _numba
from .._devices import LEGACY_DEFAULT_STREAM
from .._memory import allocate_host, numpy_view

_numba.load()  # the kernels here call shared ones: Numba's own objects, not placeholders

_INSTALLED = importlib.util.find_spec("numba_cuda") is not None
SIMULATOR = bool(numba.config.ENABLE_CUDASIM)
if _INSTALLED:
    from numba import cuda

if _INSTALLED and SIMULATOR:
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
elif _INSTALLED:
    from numba.cuda.cudadrv.driver import CudaAPIError, binding, driver


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


def check_pointer(address, index):
    """Raise BufferError unless the driver places the memory at ``address`` on CUDA device
    ``index`` (nothing to ask under the simulator)."""
    if SIMULATOR:
        return
    with cuda.gpus[index]:
        try:
            ordinal = driver.cuPointerGetAttribute(
                binding.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address)
        except CudaAPIError:
            ordinal = None
    if ordinal is None or int(ordinal) != index:
        where = "in no CUDA memory" if ordinal is None else f"on cuda:{int(ordinal)}"
        raise BufferError(f"the tensor names device cuda:{index}, but its data {address:#x} is "
                          f"{where}, the driver says")


def allocate(nbytes, zero=False, *, index):
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
    """Copy ``nbytes`` between any two addresses of host or device memory (unified
    addressing), in the context of CUDA device ``index``, on dlnumba's stream: later work
    there sees the copy, and a copy to or from pageable host memory is done when it returns.
    Moves between the host and a device go through :func:`upload` and :func:`download`."""
    if SIMULATOR:
        ctypes.memmove(dst, src, nbytes)
    elif nbytes:
        with cuda.gpus[index]:
            driver.cuMemcpy(dst, src, nbytes)


def upload(dst, src, nbytes, index):
    """Copy ``nbytes`` from host memory at ``src`` to CUDA device ``index`` at ``dst``; returns
    when ``src`` may change. Pageable memory larger than a chunk is staged through pinned
    buffers (:func:`_staged`); pinned memory and smaller copies go in one transfer."""
    _host_transfer(dst, src, nbytes, index, src)


def download(dst, src, nbytes, index):
    """Copy ``nbytes`` from CUDA device ``index`` at ``src`` to host memory at ``dst``; returns
    when the copy is done. Staged as :func:`upload` is."""
    _host_transfer(dst, src, nbytes, index, dst)


_CHUNK = 8 << 20  # bytes per pinned staging buffer; each device gets two
_staging = {}  # device index -> (two pinned buffers, their two events, the lock that owns them)
_staging_lock = threading.Lock()


def _host_transfer(dst, src, nbytes, index, host):
    with cuda.gpus[index]:
        if nbytes > _CHUNK and _pageable(host):
            _staged(dst, src, nbytes, index, upload=host == src)
        else:
            copy_bytes(dst, src, nbytes, index)


def _pageable(address):
    """Whether the host memory at ``address`` is pageable: neither pinned nor managed (what the
    driver cannot reach by DMA; all host memory under the simulator)."""
    if SIMULATOR:
        return True
    try:
        driver.cuPointerGetAttribute(
            binding.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address)
    except CudaAPIError:  # CUDA_ERROR_INVALID_VALUE: memory the driver does not know
        return True
    return False


def _staged(dst, src, nbytes, index, upload):
    """Copy ``nbytes`` between pageable host memory and device ``index`` through the device's
    two pinned buffers, in chunks: while one chunk moves by DMA, the host copies the next
    into (or the previous out of) the other buffer; an event per buffer says when it is free."""
    with _staging_lock:
        if index not in _staging:
            _staging[index] = ([cuda.pinned_array(_CHUNK, np.uint8) for _ in range(2)],
                               [cuda.event() for _ in range(2)], threading.Lock())
    buffers, events, lock = _staging[index]
    stream = cuda.legacy_default_stream()
    chunks = [(offset, min(_CHUNK, nbytes - offset)) for offset in range(0, nbytes, _CHUNK)]

    def unload(k):  # the host copies chunk k out of its buffer
        offset, n = chunks[k]
        events[k % 2].synchronize()
        ctypes.memmove(dst + offset, buffers[k % 2].ctypes.data, n)

    with lock:
        for k, (offset, n) in enumerate(chunks):
            buffer = buffers[k % 2].ctypes.data
            if upload:
                events[k % 2].synchronize()  # its previous chunk has left the buffer
                ctypes.memmove(buffer, src + offset, n)
                _copy_async(dst + offset, buffer, n, stream)
            else:
                if k >= 2:
                    unload(k - 2)
                _copy_async(buffer, src + offset, n, stream)
            events[k % 2].record(stream)
        for k in range(max(0, len(chunks) - 2), len(chunks)):
            if upload:
                events[k % 2].synchronize()
            else:
                unload(k)


def _copy_async(dst, src, nbytes, stream):
    """Queue a copy of ``nbytes`` on ``stream`` (done at once under the simulator)."""
    if SIMULATOR:
        ctypes.memmove(dst, src, nbytes)
    else:
        driver.cuMemcpyAsync(dst, src, nbytes, stream.handle)


def hand_over(stream, index):
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
    runs every thread as a Python thread: one small block). At least 128 blocks: numba-cuda
    warns of low occupancy below that, and the blocks a small ``n`` leaves idle exit at once."""
    if SIMULATOR:
        return 1, 32
    return max(128, min(-(-n // 256), 1 << 16)), 256
