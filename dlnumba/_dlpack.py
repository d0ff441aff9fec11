"""DLPack: the producer (``__dlpack__``, ``to_dlpack``) and the consumer (``import_capsule``).

Version negotiation, the READ_ONLY and IS_COPIED flags, and the validation of every imported
tensor live here; the C-level work (allocation, deleters, capsule renaming) is in ``_capi``.
"""

import ctypes
import functools
import struct
import threading

from . import _capi
from ._devices import CPU, DLDeviceType, device_name, from_dlpack_device
from ._dtypes import from_dlpack_code
from ._layout import MAX_NDIM, c_strides, extent, size_of

DLPACK_VERSION = (1, 3)
READ_ONLY = 1 << 0
IS_COPIED = 1 << 1

_INT64_MAX = 2**63 - 1
_scratch = threading.local()


@functools.lru_cache(maxsize=None)
def _export_struct(versioned, ndim):
    header = _capi.VERSIONED_HEADER if versioned else _capi.LEGACY_HEADER
    return struct.Struct(header.format + f"{2 * ndim}q")


@functools.lru_cache(maxsize=None)
def _int64s(count):
    return struct.Struct(f"<{count}q")


def export(array, stream, max_version, dl_device, copy):
    """Implement ``ndarray.__dlpack__``; see the array API standard for the arguments.

    Raises
    ------
    BufferError
        When the array cannot be exported as asked: to another device without a copy, or a
        read-only array through a legacy capsule (it has no READ_ONLY flag).
    ValueError, TypeError
        For a stream other than None on the CPU, or a malformed ``max_version``.
    """
    if stream is not None:
        raise ValueError(f"stream must be None for an array on the CPU, not {stream!r}")
    if max_version is None:
        version = None
    elif (isinstance(max_version, tuple) and len(max_version) == 2
          and all(isinstance(v, int) for v in max_version)):
        version = None if max_version[0] < 1 else min(tuple(max_version), DLPACK_VERSION)
        if version is not None and version[0] > 1:
            version = DLPACK_VERSION
    else:
        raise TypeError(f"max_version must be None or a (major, minor) tuple of ints, "
                        f"not {max_version!r}")
    copied = False
    if dl_device is not None and tuple(dl_device) != array._device.dlpack:
        if copy is False:
            raise BufferError(f"cannot export an array on {array._device} to "
                              f"{device_name(*dl_device)} without a copy (copy=False)")
        try:
            array = array.to_device(from_dlpack_device(*dl_device))
        except ValueError as error:
            raise BufferError(f"cannot export to {device_name(*dl_device)}: {error}") from None
        copied = True
    if copy and not copied:
        array = array._copy()
        copied = True
    if version is None:
        if array._readonly:
            raise BufferError("a read-only array cannot be exported through a legacy DLPack "
                              "capsule, which has no READ_ONLY flag; ask for max_version=(1, 0) "
                              "or later, or pass copy=True")
        return _make(array, None, 0)
    flags = IS_COPIED if copied else 0
    if array._readonly or any(s == 0 and n > 1 for n, s in zip(array._shape, array._strides)):
        flags |= READ_ONLY
    return _make(array, version, flags)


def _make(array, version, flags):
    ndim = len(array._shape)
    code, bits, lanes = array._dtype.dlpack
    device_type, device_id = array._device.dlpack
    layout = _export_struct(version is not None, ndim)
    if version is None:
        template = layout.pack(array._address, device_type, device_id, ndim, code, bits, lanes,
                               0, 0, 0, id(array), _DELETE_LEGACY, *array._shape, *array._strides)
        return _capi.make_capsule(array, template, layout.size, ndim, 0, _DESTROY_LEGACY)
    template = layout.pack(version[0], version[1], id(array), _DELETE_VERSIONED, flags,
                           array._address, device_type, device_id, ndim, code, bits, lanes,
                           0, 0, 0, *array._shape, *array._strides)
    return _capi.make_capsule(array, template, layout.size, ndim, 1, _DESTROY_VERSIONED)


_DELETE_LEGACY = _capi.delete_legacy_export.address
_DELETE_VERSIONED = _capi.delete_versioned_export.address
_DESTROY_LEGACY = _capi.destroy_legacy_capsule.address
_DESTROY_VERSIONED = _capi.destroy_versioned_capsule.address
_RELEASE_LEGACY = _capi.release_legacy_import.address
_RELEASE_VERSIONED = _capi.release_versioned_import.address


def request_capsule(x, dl_device, copy):
    """Ask a producer for a capsule: DLPack 1.x with ``dl_device`` and ``copy``, else legacy.

    Raises
    ------
    TypeError
        If ``x`` has no ``__dlpack__`` method.
    """
    method = getattr(x, "__dlpack__", None)
    if method is None:
        raise TypeError(f"from_dlpack needs an object with a __dlpack__ method or a DLPack "
                        f"capsule, not {type(x).__name__}")
    try:
        return method(max_version=DLPACK_VERSION, dl_device=dl_device, copy=copy)
    except TypeError:
        if dl_device is not None or copy is not None:
            raise
        return method()  # a producer that predates the 2023.12 keywords


def import_capsule(capsule):
    """Take ownership of the tensor in a DLPack capsule and describe it.

    Returns
    -------
    fields : tuple
        ``(address, shape, strides, dtype, device, owner, readonly)``, as ``ndarray._new`` takes.
    copied : bool
        Whether the producer set IS_COPIED.

    Raises
    ------
    BufferError
        If the capsule was consumed before, is not a DLPack capsule, or describes a tensor that
        dlnumba cannot hold (the message names the field). The capsule is left untouched, so its
        producer still frees the tensor.
    TypeError
        If ``capsule`` is not a PyCapsule.
    """
    if type(capsule) is not _capi.CapsuleType:
        raise TypeError(f"expected a DLPack PyCapsule, not {type(capsule).__name__}")
    buffer = getattr(_scratch, "buffer", None)
    if buffer is None:
        buffer = _scratch.buffer = ctypes.create_string_buffer(_capi.MAX_HEADER + 16 * MAX_NDIM)
        _scratch.address = ctypes.addressof(buffer)
    kind = _capi.read_capsule(capsule, _scratch.address, MAX_NDIM)
    if kind < 0:
        name = (_capi.capsule_name(capsule) or b"").decode(errors="replace")
        if kind == _capi.CAPSULE_ALREADY_CONSUMED:
            raise BufferError(f"this DLPack capsule was already consumed (its name is {name!r}); "
                              "a capsule can be imported only once")
        raise BufferError(f"a capsule named {name!r} is not a DLPack capsule; expected "
                          "'dltensor' or 'dltensor_versioned'")
    if kind:
        (major, minor, _, _, flags, data, device_type, device_id, ndim, code, bits, lanes,
         shape_ptr, strides_ptr, byte_offset) = _capi.VERSIONED_HEADER.unpack_from(buffer)
        if major != 1:
            raise BufferError(f"DLPack version {major}.{minor} is not supported; dlnumba reads "
                              "major version 1 (and legacy capsules)")
    else:
        (data, device_type, device_id, ndim, code, bits, lanes, shape_ptr, strides_ptr,
         byte_offset, _, _) = _capi.LEGACY_HEADER.unpack_from(buffer)
        flags = 0
    if not 0 <= ndim <= MAX_NDIM:
        raise BufferError(f"ndim is {ndim}; expected 0 to {MAX_NDIM}")
    if ndim and not shape_ptr:
        raise BufferError(f"shape is NULL for a tensor of ndim {ndim}")
    shape = _int64s(ndim).unpack_from(buffer, _capi.MAX_HEADER)
    if any(n < 0 for n in shape):
        raise BufferError(f"shape {shape} has a negative size")
    if strides_ptr:
        strides = _int64s(ndim).unpack_from(buffer, _capi.MAX_HEADER + 8 * ndim)
    else:
        strides = c_strides(shape)
    dtype = from_dlpack_code(code, bits)
    if dtype is None or lanes != 1:
        raise BufferError(f"dtype (code={code}, bits={bits}, lanes={lanes}) is not supported; "
                          "expected lanes=1 and a bool, int, uint, float, bfloat16 or complex "
                          "code with a standard width")
    if device_type != DLDeviceType.kDLCPU or device_id != 0:
        raise BufferError(f"device {device_name(device_type, device_id)} is not supported by "
                          "this build of dlnumba; expected kDLCPU:0")
    _check_addressable(data, byte_offset, shape, strides, dtype.itemsize)
    owner = _capi.adopt_capsule(capsule, kind, _RELEASE_VERSIONED if kind else _RELEASE_LEGACY)
    return (data + byte_offset, shape, strides, dtype, CPU, owner,
            bool(flags & READ_ONLY)), bool(flags & IS_COPIED)


def _check_addressable(data, byte_offset, shape, strides, itemsize):
    """Check that every element address fits the 64-bit address space."""
    if size_of(shape) * itemsize > _INT64_MAX:
        raise BufferError(f"shape {shape} holds more than 2**63 bytes")
    span = extent(shape, strides)
    if span is None:
        return
    if not data:
        raise BufferError(f"data is NULL for a tensor of shape {shape}")
    low = data + byte_offset + span[0] * itemsize
    high = data + byte_offset + span[1] * itemsize + itemsize
    if low < 0 or high > 2**64 or max(abs(span[0]), span[1]) * itemsize > _INT64_MAX:
        raise BufferError(f"byte_offset {byte_offset} with shape {shape} and strides {strides} "
                          f"reaches outside the address space (data={data:#x})")
