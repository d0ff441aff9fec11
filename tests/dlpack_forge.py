"""Forge DLPack capsules by hand (ctypes) over real NumPy memory, for the DLPack tests.

The structs follow dlpack.h 1.x (the offsets are the ones ``dlnumba/_capi.py`` documents).
A forged capsule has no capsule destructor; its tensor's ``deleter`` is a ctypes callback that
only counts its calls, so a test can check that a consumer ran it exactly once (or never).

Every C API function is reached through a *private* ctypes prototype: ``ctypes.pythonapi.X``
is shared by the whole process, so its ``argtypes`` are never touched here.
"""

import ctypes


# ---- private C API prototypes ----

PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                  ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))
PyCapsule_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
    ("PyCapsule_GetName", ctypes.pythonapi))
PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

# ---- dlpack.h ----

DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 4, 5, 6
READ_ONLY, IS_COPIED = 1, 2
kDLCPU, kDLCUDA, kDLROCM = 1, 2, 10


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


assert ctypes.sizeof(DLTensor) == 48
assert ctypes.sizeof(DLManagedTensor) == 64
assert ctypes.sizeof(DLManagedTensorVersioned) == 80
assert DLManagedTensorVersioned.dl_tensor.offset == 32

_CODES = {"b": DL_BOOL, "i": DL_INT, "u": DL_UINT, "f": DL_FLOAT, "c": DL_COMPLEX}
_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}


def capsule_name(capsule):
    """The current name of a PyCapsule, as text (None for a NULL name)."""
    name = PyCapsule_GetName(capsule)
    return None if name is None else name.decode()


def versioned_header(capsule):
    """``(major, minor, flags)`` of an unconsumed ``dltensor_versioned`` capsule."""
    managed = DLManagedTensorVersioned.from_address(
        PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
    return managed.version.major, managed.version.minor, managed.flags


def capsule_named(name):
    """A PyCapsule that is not a DLPack capsule: a non-NULL pointer under another ``name``."""
    _KEEP.append(name)  # PyCapsule_New keeps the char*
    return PyCapsule_New(id(_KEEP), name, None)


_KEEP = []


class Forged:
    """A hand-built DLPack capsule over ``array``'s memory.

    Parameters
    ----------
    array : numpy.ndarray
        Supplies the memory, the default shape, strides and dtype; kept alive by this object.
    versioned : bool
        ``dltensor_versioned`` (DLManagedTensorVersioned) or legacy ``dltensor``.
    shape, strides : tuple of int or None, optional
        Override the layout (strides in elements); ``strides=None`` after ``null_strides=True``
        writes a NULL strides pointer, ``null_shape=True`` a NULL shape pointer.
    null_deleter : bool, optional
        Write a NULL ``deleter`` (the producer needs no call back).
    Any other keyword sets that field: ``data`` (an address), ``byte_offset``, ``ndim``,
    ``code``, ``bits``, ``lanes``, ``device_type``, ``device_id``, ``version`` (a pair) and
    ``flags`` (versioned only).

    Attributes
    ----------
    capsule : PyCapsule
        The capsule to hand to a consumer. Forged objects are kept alive for the whole
        process, so a consumer can never call a freed deleter or read a freed struct.
    calls : list of int
        The ``managed`` pointer of every call of the deleter.
    managed_address : int
        The address of the DLManagedTensor[Versioned] struct.
    """

    def __init__(self, array, *, versioned=True, shape=None, strides=None, null_shape=False,
                 null_strides=False, null_deleter=False, **fields):
        self.array = array
        itemsize = array.itemsize
        shape = tuple(array.shape) if shape is None else tuple(shape)
        if strides is None and not null_strides:
            strides = tuple(s // itemsize for s in array.strides)
        self._shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self._strides = None if null_strides else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self.calls = []
        self.deleter = DELETER(self.calls.append)  # kept alive as long as this object
        self.versioned = versioned
        self.managed = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
        self.managed_address = ctypes.addressof(self.managed)
        self.managed.deleter = DELETER() if null_deleter else self.deleter
        self.managed.manager_ctx = None
        tensor = self.managed.dl_tensor
        tensor.data = fields.pop("data", array.__array_interface__["data"][0])
        tensor.device.device_type = fields.pop("device_type", kDLCPU)
        tensor.device.device_id = fields.pop("device_id", 0)
        tensor.ndim = fields.pop("ndim", len(shape))
        tensor.dtype.code = fields.pop("code", _CODES[array.dtype.kind])
        tensor.dtype.bits = fields.pop("bits", 8 * itemsize)
        tensor.dtype.lanes = fields.pop("lanes", 1)
        tensor.shape = None if null_shape else ctypes.addressof(self._shape)
        tensor.strides = None if null_strides else ctypes.addressof(self._strides)
        tensor.byte_offset = fields.pop("byte_offset", 0)
        if versioned:
            self.managed.version.major, self.managed.version.minor = fields.pop("version", (1, 3))
            self.managed.flags = fields.pop("flags", 0)
        if fields:
            raise TypeError(f"unknown fields {sorted(fields)}")
        self.capsule = PyCapsule_New(self.managed_address, _NAMES[versioned], None)
        _KEEP.append(self)  # the struct and deleter outlive any consumer, even at exit

    def forget(self):
        """Drop the process-long reference, once no consumer can reach the struct any more
        (its deleter ran, or it was never imported), so that a fuzzer forging thousands of
        capsules does not keep them all."""
        _KEEP.remove(self)

    @property
    def tensor(self):
        """The DLTensor inside the managed struct (writable: to repair a field in a test)."""
        return self.managed.dl_tensor

    @property
    def name(self):
        """The capsule's current name."""
        return capsule_name(self.capsule)
