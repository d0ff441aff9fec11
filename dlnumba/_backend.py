"""The backend interface: what a device's kernels do, and the one place that picks them.

Everything that touches array memory reaches its device's kernels through :class:`Backend`'s
entry points, with the same arguments on every device: addresses (ints), shapes and strides in
elements (tuples of int), dtypes as rows of the dtype table (:class:`._dtypes.DType`). The CPU
backend is the module :mod:`dlnumba.kernels`; a CUDA device's is ``dlnumba.cuda.Backend(index)``,
loaded when a CUDA device is first used. Front-end modules call :func:`backend_of` and never
test the device themselves. The families that have host kernels only (sorting, sets, ``linalg``,
``fft``) run on the host for arrays on other devices (:func:`._arguments.on_host`).
"""

import ctypes
import importlib.util
import os
import sys
from typing import Protocol

from . import kernels
from ._devices import CPU, Device


class Backend(Protocol):
    """The entry points every backend implements (documentation and the checklist a new
    backend follows; ``tests/test_backend.py`` checks that both backends have each)."""

    def allocate(self, nbytes, zero=False):
        """``nbytes`` of new memory (zeroed if ``zero``): its address and the object that
        owns it (the memory is freed when the owner dies)."""

    def check_pointer(self, address):
        """Raise BufferError unless the memory at ``address`` (an imported tensor's data) is
        on this device."""

    def hand_over(self, stream):
        """Make a DLPack consumer's ``stream`` (the standard's integers) wait for the work
        queued on this device."""

    def copy_array(self, src_address, src_strides, src_dtype, dst_address, dst_strides,
                   dst_dtype, shape):
        """Write the elements of one layout, cast to ``dst_dtype`` as NumPy's ``astype``
        casts, into another (the source may broadcast with zero strides, and may overlap the
        destination)."""

    def elementwise_job(self, name, kind, layouts, shape, compute_dtype):
        """A job whose ``call(*addresses)`` computes the elementwise function for operands of
        ``layouts`` ((strides, dtype) of the inputs, then the output) into fresh memory on
        this thread; None where the backend has no such direct path or the call needs more."""

    def apply_elementwise(self, name, kind, inputs, out, shape, compute_dtype):
        """``out = name(*inputs)`` elementwise: inputs and out are (address, strides, dtype),
        broadcast to ``shape``; operands converted to ``compute_dtype`` first."""

    def fused_job(self, tag, layouts, shape):
        """A job whose ``call(addresses, constants)`` computes the fused expression of the
        tag dtype ``tag`` (:mod:`.shared.fused`) for the inputs and output of ``layouts``
        ((strides, dtype) each), broadcast to ``shape``, at ``addresses``, with its constants'
        slots (16 bytes each) in the int64 array ``constants.words``, at ``constants.address``;
        None for no elements."""

    def fused_reduction(self, tag, layouts, shape, name, axes, x_strides, x_dtype, acc_dtype):
        """A job whose ``call(addresses, acc_address, constants)`` reduces the values of the
        fused expression ``tag`` for inputs of ``layouts`` as :meth:`reduce_array` reduces
        the array of them of ``x_strides`` and ``x_dtype``, bit for bit; None where the
        backend has no such path (the caller writes the values out, then reduces them)."""

    def reduce_array(self, name, x_address, x_strides, x_dtype, shape, axes, acc_address,
                     acc_dtype):
        """Reduce (``sum``, ``prod``, ``max``, ``min``, ``any``, ``all``, ``count``,
        ``sumsq``) a layout along ``axes`` into the C-contiguous accumulator of the kept
        dimensions."""

    def reduce_job(self, name, shape, x_strides, x_dtype, axes, acc_dtype):
        """A job whose ``call(x_address, acc_address)`` does what :meth:`reduce_array` does for
        these arguments; None where the backend has no such direct path."""

    def arg_reduce_array(self, name, x_address, x_strides, x_dtype, shape, axis, out_address):
        """The position of the first maximum (``max``) or minimum (``min``) along ``axis``,
        into the C-contiguous int64 array of the other dimensions."""

    def scan_array(self, name, x_address, x_strides, x_dtype, shape, axis, out_address,
                   out_strides, out_dtype):
        """The running sum (``sum``) or product (``prod``) along ``axis``, computed in
        ``out_dtype``."""

    def gather(self, src_address, offsets, dst_address, itemsize):
        """``dst[i] = src[offsets[i]]`` for items of ``itemsize`` bytes (``offsets``: a host
        int64 array, 1-D and C-contiguous, in items)."""

    def scatter(self, src_address, offsets, dst_address, itemsize):
        """``dst[offsets[i]] = src[i]`` for items of ``itemsize`` bytes (``offsets`` as for
        :meth:`gather`)."""

    def take(self, src_address, size, stride, index_address, count, dst_address, itemsize):
        """``dst[k] = src[wrap(index[k]) * stride]`` for the ``count`` C-contiguous int64
        indices at ``index_address`` (on this device), into a contiguous ``dst`` of items of
        ``itemsize`` bytes; ``wrap`` adds ``size`` to a negative index. Returns the position of
        the first index outside ``[-size, size)``, or -1."""

    def put(self, src_address, src_stride, index_address, count, dst_address, size, stride,
            itemsize):
        """The inverse of :meth:`take`: ``dst[wrap(index[k]) * stride] = src[k * src_stride]``
        (``src_stride`` 0: one value for all), later writes winning; nothing is written unless
        every index is in ``[-size, size)``. Returns the position of the first that is not, or
        -1."""

    def compress(self, src_address, size, stride, mask_address, mask_stride, dst_address,
                 itemsize):
        """Write the items ``src[i * stride]`` (of ``itemsize`` bytes) whose bool
        ``mask[i * mask_stride]`` is true, for ``i < size``, in order, to a contiguous ``dst``
        with room for ``size`` items or for their count + 1; returns their count."""

    def expand(self, src_address, src_stride, size, mask_address, mask_stride, dst_address,
               stride, itemsize):
        """The inverse of :meth:`compress`: ``dst[i * stride] = src[k * src_stride]`` for the
        ``k``-th true ``mask[i * mask_stride]``, ``i < size`` (``src_stride`` 0: one value for
        all; else ``src`` has room for one value more than the mask selects)."""

    def where(self, plan, condition_address, x1_address, x2_address, out_address, itemsize):
        """``out = condition ? x1 : x2`` over a plan (:func:`.shared.plan.make_plan`) of the
        four layouts; the condition is bool, the others have items of ``itemsize`` bytes."""

    def nonzero(self, address, strides, dtype, shape, output):
        """The indices of the non-zero elements of a layout, in C order: ``output(count)``
        gives the address of a new C-contiguous int64 array of shape ``(len(shape), count)``,
        which is filled."""

    def linspace(self, out_address, num, start, stop, divisor, endpoint, dtype):
        """The ``num`` values of ``linspace`` (NumPy's arithmetic) in ``dtype``, float64 or
        complex128, at ``out_address``."""

    def zero_triangle(self, address, batch, rows, cols, k, lower, itemsize):
        """Zero the elements above diagonal ``k`` (``lower``) or below it in each of
        ``batch`` C-contiguous ``rows`` x ``cols`` matrices."""


class DeviceBackend(Backend, Protocol):
    """The entry points of a backend whose memory is not the host's: the moves between its
    memory and the host's, or another device's (unified addressing)."""

    def upload(self, dst, src, nbytes):
        """Copy ``nbytes`` from host memory at ``src`` to this device at ``dst``."""

    def download(self, dst, src, nbytes):
        """Copy ``nbytes`` from this device at ``src`` to host memory at ``dst``."""

    def copy_bytes(self, dst, src, nbytes):
        """Copy ``nbytes`` between two addresses of any devices, ordered after the work queued
        on this device."""


ENTRY_POINTS = tuple(name for name in vars(Backend) if not name.startswith("_"))
DEVICE_ENTRY_POINTS = ENTRY_POINTS + tuple(
    name for name in vars(DeviceBackend) if not name.startswith("_"))
_CUDA_BACKENDS = {}


def backend_of(device):
    """The backend of ``device``; ValueError, saying why, when the device cannot be used."""
    if device is CPU or device.type == "cpu":
        return kernels
    backend = _CUDA_BACKENDS.get(device.index)
    if backend is None:
        check_available(device)
        backend = _CUDA_BACKENDS[device.index] = cuda_package().Backend(device.index)
    return backend


def move(target_device, target_address, source_device, source_address, nbytes):
    """Copy ``nbytes`` of contiguous memory between two different devices."""
    if source_device is CPU:
        backend_of(target_device).upload(target_address, source_address, nbytes)
    elif target_device is CPU:
        backend_of(source_device).download(target_address, source_address, nbytes)
    else:
        backend_of(target_device).copy_bytes(target_address, source_address, nbytes)


_ARRAY_TYPES = []  # what register_array_type has been given


def register_array_type(array_type):
    """Have user ``@cuda.jit`` kernels take ``array_type`` (``ndarray``, which registers itself)
    as an argument, once :func:`cuda_package` loads the CUDA backend."""
    _ARRAY_TYPES.append(array_type)


def cuda_package(load=True):
    """``dlnumba.cuda``, imported and the registered array types made ``@cuda.jit`` argument
    types (once) if ``load``; else the package if something imported it, or None."""
    if not load:
        return sys.modules.get("dlnumba.cuda")
    from . import cuda
    for array_type in _ARRAY_TYPES:
        cuda.register_jit_arguments(array_type)
    return cuda


def check_available(device):
    """Raise ValueError, saying why, unless arrays can live on ``device``."""
    if device.type == "cuda":
        cuda_package().check_device(device.index)


def available_devices():
    """The devices arrays can live on: the CPU, then each usable CUDA device (a tuple, as the
    2025.12 standard's ``devices()`` returns)."""
    count = cuda_package().device_count() if _cuda_may_be_usable() else 0
    return (CPU,) + tuple(Device("cuda", index) for index in range(count))


def _cuda_may_be_usable():
    """False where a process can tell without importing Numba that it has no CUDA device:
    numba-cuda is not installed, or the simulator is off and no CUDA driver library loads."""
    if "dlnumba.cuda" in sys.modules:
        return True
    if importlib.util.find_spec("numba_cuda") is None:
        return False
    # the simulator may also be chosen in the folder's .numba_config.yaml, which Numba reads
    return (os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
            or os.path.exists(".numba_config.yaml") or cuda_driver_loads())


def cuda_driver_loads():
    """Whether a CUDA driver library that numba-cuda looks for loads (True off Linux, where
    only numba-cuda knows its names)."""
    if sys.platform != "linux":
        return True
    driver = os.environ.get("NUMBA_CUDA_DRIVER")
    for name in [driver] if driver else ["libcuda.so.1", "libcuda.so"]:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False
