"""DLPack: the producer (``ndarray.__dlpack__``) and the consumer (``import_capsule``).

Version negotiation, the READ_ONLY and IS_COPIED flags, and the validation of every imported
tensor live here; the C-level work (allocation, deleters, capsule renaming) is in ``_capi``.
"""

import ctypes
import struct
import sys
import threading

from . import _capi
from ._backend import backend_of, cuda_package
from ._devices import CPU, LEGACY_DEFAULT_STREAM, DLDeviceType, device_name, from_dlpack_device
from ._dtypes import DTYPES
from ._layout import MAX_NDIM

DLPACK_VERSION = (1, 3)
READ_ONLY = 1 << 0
IS_COPIED = 1 << 1

_scratch = threading.local()


_LEGACY_LAYOUTS = [struct.Struct(_capi.LEGACY_HEADER.format + f"{2 * ndim}q")
                   for ndim in range(MAX_NDIM + 1)]
_VERSIONED_LAYOUTS = [struct.Struct(_capi.VERSIONED_HEADER.format + f"{2 * ndim}q")
                      for ndim in range(MAX_NDIM + 1)]
_LAYOUTS = [struct.Struct(f"<{2 * ndim}q") for ndim in range(MAX_NDIM + 1)]


def export(array, stream, max_version, dl_device, copy):
    """Implement ``ndarray.__dlpack__``; see the array API standard for the arguments.

    Raises
    ------
    BufferError
        When the array cannot be exported as asked: to another device without a copy, or a
        read-only array through a legacy capsule (it has no READ_ONLY flag).
    ValueError, TypeError
        For a stream other than None on the CPU, a stream that is not one of the standard's
        CUDA values, or a malformed ``max_version``.

    dlnumba queues its work on a CUDA device on the legacy default stream; the consumer's
    ``stream`` (None or 1: that same stream, 2: the per-thread default stream, -1: no
    synchronization, else a ``cudaStream_t``) is made to wait for it with an event, never by
    blocking the host.
    """
    if array._device.host_memory:
        if stream is not None:
            raise ValueError(f"stream must be None for an array on the CPU, not {stream!r}")
    elif stream is not None and (type(stream) is not int or stream == 0 or stream < -1):
        raise ValueError(f"stream for an array on {array._device} must be None, -1, 1, 2 or a "
                         f"CUDA stream handle, not {stream!r} (0 is ambiguous and disallowed)")
    version = None if max_version is None else _negotiate(max_version)
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
    backend_of(array._device).hand_over(stream)
    shape, strides = array._shape, array._strides
    ndim = len(shape)
    code, bits, lanes = array._dtype.dlpack
    device_type, device_id = array._device.dlpack
    if version is None:
        if array._readonly:
            raise BufferError("a read-only array cannot be exported through a legacy DLPack "
                              "capsule, which has no READ_ONLY flag; ask for max_version=(1, 0) "
                              "or later, or pass copy=True")
        layout = _LEGACY_LAYOUTS[ndim]
        template = layout.pack(array._address, device_type, device_id, ndim, code, bits, lanes,
                               0, 0, 0, id(array), _capi.DELETE_LEGACY, *shape, *strides)
        return _capi.make_capsule(array, template, layout.size, ndim, 0, _capi.DESTROY_LEGACY)
    flags = IS_COPIED if copied else 0
    if array._readonly or (0 in strides and 0 not in shape
                           and any(s == 0 and n > 1 for n, s in zip(shape, strides))):
        flags |= READ_ONLY
    layout = _VERSIONED_LAYOUTS[ndim]
    template = layout.pack(version[0], version[1], id(array), _capi.DELETE_VERSIONED, flags,
                           array._address, device_type, device_id, ndim, code, bits, lanes,
                           0, 0, 0, *shape, *strides)
    return _capi.make_capsule(array, template, layout.size, ndim, 1, _capi.DESTROY_VERSIONED)


def _negotiate(max_version):
    """The version to write for a consumer's ``max_version``; None means a legacy capsule."""
    try:
        major, minor = max_version
        if not (isinstance(major, int) and isinstance(minor, int)):
            raise TypeError
    except (TypeError, ValueError):
        raise TypeError(f"max_version must be None or a (major, minor) tuple of ints, "
                        f"not {max_version!r}") from None
    if major < 1:
        return None
    return (1, minor) if major == 1 and minor < DLPACK_VERSION[1] else DLPACK_VERSION


def request_capsule(x, dl_device, copy):
    """Ask a producer for a capsule: DLPack 1.x with ``dl_device`` and ``copy``, else legacy.
    A producer on a CUDA device is given dlnumba's stream (the legacy default stream), which
    it makes wait for its work. A producer that cannot hand its data to ``dl_device`` is asked
    for it where it is (the caller then moves it, or refuses a copy=False).

    Raises
    ------
    TypeError
        If ``x`` has no ``__dlpack__`` method.
    """
    method = getattr(x, "__dlpack__", None)
    if method is None:
        raise TypeError(f"from_dlpack needs an object with a __dlpack__ method or a DLPack "
                        f"capsule, not {type(x).__name__}")
    device = getattr(x, "__dlpack_device__", None)
    on_cuda = device is not None and device()[0] == _CUDA
    try:
        return _ask(method, on_cuda, dl_device, copy)
    except (BufferError, ValueError, NotImplementedError):
        if dl_device is None:
            raise
        # PyTorch raises ValueError, not BufferError, for a move with copy=False.
        return _ask(method, on_cuda, None, None)


def _ask(method, on_cuda, dl_device, copy):
    try:
        if on_cuda:
            return method(max_version=DLPACK_VERSION, dl_device=dl_device, copy=copy,
                          stream=LEGACY_DEFAULT_STREAM)
        return method(max_version=DLPACK_VERSION, dl_device=dl_device, copy=copy)
    except TypeError:
        if dl_device is not None or copy is not None:
            raise
        # a producer that predates the 2023.12 keywords
        return method(stream=LEGACY_DEFAULT_STREAM) if on_cuda else method()


def import_capsule(capsule, array_type):
    """Take ownership of the tensor in a DLPack capsule and wrap it in an ``array_type``.

    Parameters
    ----------
    capsule : PyCapsule
    array_type : type
        The array class; its builtin ``_new(address, shape, strides, dtype, device, owner,
        readonly)`` makes the array.

    Returns
    -------
    array : array_type
        Read-only when the producer set READ_ONLY.
    copied : bool
        Whether the producer set IS_COPIED.

    Raises
    ------
    BufferError
        If the capsule was consumed before, is not a DLPack capsule, or describes a tensor that
        dlnumba cannot hold (the message names the field), or CUDA memory that the driver
        places on another device than the capsule names. The capsule is left untouched, or
        its tensor released, so its producer still frees it.
    TypeError
        If ``capsule`` is not a PyCapsule.
    """
    try:
        report, address, words = _scratch.report
    except AttributeError:
        report = ctypes.create_string_buffer(_capi.REPORT.size + 16 * MAX_NDIM)
        words = memoryview(report).cast("B").cast("q")
        report, address, words = _scratch.report = report, ctypes.addressof(report), words
    cuda = sys.modules.get("dlnumba.cuda")  # cuda_package(load=False), in one lookup
    result = _capi.import_array(capsule, None, address, MAX_NDIM,
                                0 if cuda is None else cuda.device_count(), _DTYPE_TABLE,
                                _capi.RELEASE_LEGACY, _capi.RELEASE_VERSIONED, array_type._new,
                                DTYPES, CPU)
    if result is None and cuda is None and _on_cuda(report):
        # The first CUDA tensor: load the backend, then count the devices it may name.
        result = _capi.import_array(capsule, None, address, MAX_NDIM, _cuda_devices(True),
                                    _DTYPE_TABLE, _capi.RELEASE_LEGACY, _capi.RELEASE_VERSIONED,
                                    array_type._new, DTYPES, CPU)
    if result is None:
        raise _import_error(capsule, report)
    copied = words[_FLAGS_WORD] & IS_COPIED != 0
    if type(result) is array_type:
        return result, copied
    ndim = words[_NDIM_WORD]
    _, address, _, dtype_index, flags, _, _, device_type, device_id, *layout = \
        _IMPORTED[ndim].unpack_from(report)
    shape, strides = tuple(layout[:ndim]), tuple(layout[ndim:])
    device = from_dlpack_device(device_type, device_id)
    if 0 not in shape:
        backend_of(device).check_pointer(address)
    return array_type._new(address, shape, strides, DTYPES[dtype_index], device, result,
                           flags & READ_ONLY != 0), copied


def _cuda_devices(load):
    """How many CUDA devices an imported tensor may name: none until the CUDA backend is
    loaded (``load``: load it now)."""
    cuda = cuda_package(load)
    return 0 if cuda is None else cuda.device_count()


def _on_cuda(report):
    """Whether an import was refused for naming a kDLCUDA device."""
    status, *_, device_type, _ = _REPORT_HEAD.unpack_from(report)
    return status == _capi.BAD_DEVICE and device_type == _CUDA


def _dtype_table():
    table = bytearray(b"\xff" * (7 * 17))
    for index, dtype in enumerate(DTYPES):
        code, bits, _ = dtype.dlpack
        table[code * 17 + bits // 8] = index
    return bytes(table)


_DTYPE_TABLE = _dtype_table()
_CUDA = int(DLDeviceType.kDLCUDA)  # an int: an enum member's lookup costs a call
_REPORT_HEAD = struct.Struct("<4qQ4q")  # REPORT's first words, to the device id
_NDIM_WORD, _FLAGS_WORD = map(_capi.REPORT_FIELDS.index, ("ndim", "flags"))
# The head, then the shape and strides that follow REPORT, for each ndim: one unpack.
_IMPORTED = [struct.Struct(f"{_REPORT_HEAD.format}{_capi.REPORT.size - _REPORT_HEAD.size}x"
                           f"{2 * ndim}q") for ndim in range(MAX_NDIM + 1)]


def _import_error(capsule, report):
    """The BufferError that explains an import_array status."""
    r = dict(zip(_capi.REPORT_FIELDS, _capi.REPORT.unpack_from(report)))
    status, ndim, axis = r["status"], r["ndim"], r["axis"]
    if type(capsule) is not _capi.CapsuleType:
        return TypeError(f"expected a DLPack PyCapsule, not {type(capsule).__name__}")
    if status == _capi.CONSUMED:
        name = _capi.capsule_name(capsule).decode(errors="replace")
        return BufferError(f"this DLPack capsule was already consumed (its name is {name!r}); "
                           "a capsule can be imported only once")
    if status == _capi.NOT_DLPACK:
        name = (_capi.capsule_name(capsule) or b"").decode(errors="replace")
        return BufferError(f"a capsule named {name!r} is not a DLPack capsule; expected "
                           "'dltensor' or 'dltensor_versioned'")
    if status == _capi.BAD_VERSION:
        return BufferError(f"DLPack version {r['major']}.{r['minor']} is not supported; dlnumba "
                           "reads major version 1 (and legacy capsules)")
    if status == _capi.BAD_NDIM:
        return BufferError(f"ndim is {ndim}; expected 0 to {MAX_NDIM}")
    if status == _capi.NULL_SHAPE:
        return BufferError(f"shape is NULL for a tensor of ndim {ndim}")
    if status == _capi.BAD_DTYPE:
        return BufferError(f"dtype (code={r['code']}, bits={r['bits']}, lanes={r['lanes']}) is "
                           "not supported; expected lanes=1 and one of "
                           + ", ".join(f"{d.name} (code={d.dlpack[0]}, bits={d.dlpack[1]})"
                                       for d in DTYPES))
    if status == _capi.BAD_DEVICE:
        return BufferError(f"device {device_name(r['device_type'], r['device_id'])} is not "
                           "available: dlnumba arrays live on kDLCPU:0, on the kDLCUDA devices "
                           f"here ({_cuda_devices(False)}), and in kDLCUDAHost or kDLCUDAManaged "
                           "memory")
    layout = _LAYOUTS[ndim].unpack_from(report, _capi.REPORT.size)
    shape, strides = layout[:ndim], layout[ndim:]
    if status == _capi.NEGATIVE_SIZE:
        return BufferError(f"shape[{axis}] is {shape[axis]}; sizes must be >= 0")
    if status == _capi.TOO_LARGE:
        return BufferError(f"shape {shape} with strides {strides} spans more than 2**62 bytes")
    if status == _capi.NULL_DATA:
        return BufferError(f"data is NULL for a tensor of shape {shape}")
    return BufferError(f"data {r['data']:#x} with byte_offset {r['byte_offset']}, shape {shape} "
                       f"and strides {strides} reaches outside the address space")
