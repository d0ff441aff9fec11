"""DLPack at the C level: Numba-compiled callbacks that build, read and release capsules.

Everything a consumer may call without the GIL, at interpreter exit, or with an exception
pending (the deleters, the capsule destructors) is a Numba ``cfunc`` that calls only C API
symbols; Python-level ctypes callbacks are wrong there (see DESIGN.md, section 4). The
export and import paths are compiled here too, so that each costs one foreign call.

Struct offsets follow dlpack.h 1.x: ``DLManagedTensor`` is a 48-byte ``DLTensor`` then
``manager_ctx`` (48) and ``deleter`` (56); ``DLManagedTensorVersioned`` is
``version`` (0), ``manager_ctx`` (8), ``deleter`` (16), ``flags`` (24), ``DLTensor`` (32).
"""

import ctypes
import struct

from llvmlite import ir
from numba import cfunc, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

LEGACY_NAME = b"dltensor"
VERSIONED_NAME = b"dltensor_versioned"

LEGACY_HEADER = struct.Struct("<QiiiBBHQQQQQ")  # DLManagedTensor, 64 bytes
VERSIONED_HEADER = struct.Struct("<IIQQQQiiiBBHQQQ")  # DLManagedTensorVersioned, 80 bytes
MAX_HEADER = VERSIONED_HEADER.size

# read_capsule's results besides 0 (legacy) and 1 (versioned).
NOT_A_DLPACK_CAPSULE = -1
CAPSULE_ALREADY_CONSUMED = -2


_voidptr, _intp, _int32 = types.voidptr, types.intp, types.int32


def _c_function(name, restype, *argtypes):
    """A C symbol (CPython C API or libc) callable from compiled code."""
    return types.ExternalFunction(name, restype(*argtypes))


_Py_IncRef = _c_function("Py_IncRef", types.void, _voidptr)
_Py_DecRef = _c_function("Py_DecRef", types.void, _voidptr)
_PyMem_RawMalloc = _c_function("PyMem_RawMalloc", _voidptr, _intp)
_PyMem_RawFree = _c_function("PyMem_RawFree", types.void, _voidptr)
_PyErr_NoMemory = _c_function("PyErr_NoMemory", _voidptr)
_PyErr_Restore = _c_function("PyErr_Restore", types.void, _voidptr, _voidptr, _voidptr)
_PyGILState_Ensure = _c_function("PyGILState_Ensure", _int32)
_PyGILState_Release = _c_function("PyGILState_Release", types.void, _int32)
_PyCapsule_New = _c_function("PyCapsule_New", _voidptr, _voidptr, _voidptr, _voidptr)
_PyCapsule_IsValid = _c_function("PyCapsule_IsValid", _int32, _voidptr, _voidptr)
_PyCapsule_GetPointer = _c_function("PyCapsule_GetPointer", _voidptr, _voidptr, _voidptr)
_PyCapsule_SetName = _c_function("PyCapsule_SetName", _int32, _voidptr, _voidptr)
_memcpy = _c_function("memcpy", _voidptr, _voidptr, _voidptr, _intp)


@intrinsic
def _cstr(typingctx, text):
    """A ``char*`` to a NUL-terminated constant that lives as long as the compiled code."""
    if not isinstance(text, types.StringLiteral):
        return None
    value = text.literal_value

    def codegen(context, builder, signature, args):
        return context.insert_const_string(builder.module, value)

    return _voidptr(text), codegen


@intrinsic
def _address(typingctx, pointer):
    """The integer value of a pointer."""
    def codegen(context, builder, signature, args):
        return builder.ptrtoint(args[0], context.get_value_type(_intp))

    return _intp(_voidptr), codegen


@intrinsic
def _pointer(typingctx, address):
    """The pointer at an integer address."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(_voidptr))

    return _voidptr(_intp), codegen


@intrinsic
def _load_word(typingctx, address):
    """The 64-bit word stored at ``address``."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(64).as_pointer()))

    return _intp(_intp), codegen


@intrinsic
def _store_word(typingctx, address, value):
    """Store a 64-bit word at ``address``."""
    def codegen(context, builder, signature, args):
        builder.store(args[1], builder.inttoptr(args[0], ir.IntType(64).as_pointer()))
        return context.get_dummy_value()

    return types.void(_intp, _intp), codegen


@intrinsic
def _fetch_error(typingctx):
    """``PyErr_Fetch``: take the pending exception (if any) out of the thread state."""
    triple = types.UniTuple(_voidptr, 3)

    def codegen(context, builder, signature, args):
        slots = [cgutils.alloca_once(builder, context.get_value_type(_voidptr)) for _ in range(3)]
        fnty = ir.FunctionType(ir.VoidType(), [s.type for s in slots])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "PyErr_Fetch"), slots)
        return context.make_tuple(builder, triple, [builder.load(s) for s in slots])

    return triple(), codegen


@intrinsic
def _call_deleter(typingctx, function_address, managed):
    """Call ``void (*deleter)(void*)`` at ``function_address`` with ``managed``."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [context.get_value_type(_voidptr)])
        builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [args[1]])
        return context.get_dummy_value()

    return types.void(_intp, _voidptr), codegen


# ---- the deleters of the tensors we export (any thread, GIL or not) ----

@njit
def _release_export(managed, context_offset):
    gil = _PyGILState_Ensure()
    error = _fetch_error()
    _Py_DecRef(_pointer(_load_word(_address(managed) + context_offset)))
    _PyMem_RawFree(managed)
    _PyErr_Restore(error[0], error[1], error[2])
    _PyGILState_Release(gil)


@cfunc(types.void(_voidptr), cache=True)
def delete_legacy_export(managed):
    """``DLManagedTensor.deleter`` of our exports: drop the array reference, free the struct."""
    _release_export(managed, 48)


@cfunc(types.void(_voidptr), cache=True)
def delete_versioned_export(managed):
    """``DLManagedTensorVersioned.deleter`` of our exports."""
    _release_export(managed, 8)


# ---- capsule destructors: each runs the tensor's deleter if the capsule still owns it ----

@njit
def _run_deleter(managed, deleter_offset):
    deleter = _load_word(_address(managed) + deleter_offset)
    if deleter != 0:
        error = _fetch_error()
        _call_deleter(deleter, managed)
        _PyErr_Restore(error[0], error[1], error[2])


@cfunc(types.void(_voidptr), cache=True)
def destroy_legacy_capsule(capsule):
    """Destructor of the ``dltensor`` capsules we export: free them if never consumed."""
    if _PyCapsule_IsValid(capsule, _cstr("dltensor")):
        _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dltensor")), 56)


@cfunc(types.void(_voidptr), cache=True)
def destroy_versioned_capsule(capsule):
    """Destructor of the ``dltensor_versioned`` capsules we export."""
    if _PyCapsule_IsValid(capsule, _cstr("dltensor_versioned")):
        _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dltensor_versioned")), 16)


@cfunc(types.void(_voidptr), cache=True)
def release_legacy_import(capsule):
    """Destructor of the owner of an imported ``DLManagedTensor``: run the producer's deleter."""
    _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dlnumba.imported_dltensor")), 56)


@cfunc(types.void(_voidptr), cache=True)
def release_versioned_import(capsule):
    """Destructor of the owner of an imported ``DLManagedTensorVersioned``."""
    _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dlnumba.imported_dltensor_versioned")), 16)


# ---- export: one allocation holding the struct, the shape and the strides ----

@cfunc(_voidptr(_voidptr, _voidptr, _intp, _intp, _int32, _voidptr), cache=True)
def _make_capsule(owner, template, nbytes, ndim, versioned, destructor):
    managed = _PyMem_RawMalloc(nbytes)
    if _address(managed) == 0:
        return _PyErr_NoMemory()
    _memcpy(managed, template, nbytes)
    base = _address(managed)
    shape = base + nbytes - 16 * ndim
    shape_field = base + 56 if versioned else base + 24
    _store_word(shape_field, shape)
    _store_word(shape_field + 8, shape + 8 * ndim)
    _Py_IncRef(owner)
    if versioned:
        capsule = _PyCapsule_New(managed, _cstr("dltensor_versioned"), destructor)
    else:
        capsule = _PyCapsule_New(managed, _cstr("dltensor"), destructor)
    if _address(capsule) == 0:
        _Py_DecRef(owner)
        _PyMem_RawFree(managed)
    return capsule


# ---- import: read the struct out, then (once Python validated it) take ownership ----

@cfunc(types.int64(_voidptr, _voidptr, _intp), cache=True)
def _read_capsule(capsule, out, max_ndim):
    if _PyCapsule_IsValid(capsule, _cstr("dltensor_versioned")):
        managed = _address(_PyCapsule_GetPointer(capsule, _cstr("dltensor_versioned")))
        if _load_word(managed) & 0xFFFFFFFF != 1:  # another major version: read nothing more
            _store_word(_address(out), _load_word(managed))
            return 1
        _memcpy(out, _pointer(managed), 80)
        tensor, kind = managed + 32, 1
    elif _PyCapsule_IsValid(capsule, _cstr("dltensor")):
        managed = _address(_PyCapsule_GetPointer(capsule, _cstr("dltensor")))
        _memcpy(out, _pointer(managed), 64)
        tensor, kind = managed, 0
    elif (_PyCapsule_IsValid(capsule, _cstr("used_dltensor_versioned"))
          or _PyCapsule_IsValid(capsule, _cstr("used_dltensor"))):
        return CAPSULE_ALREADY_CONSUMED
    else:
        return NOT_A_DLPACK_CAPSULE
    ndim = _load_word(tensor + 16) & 0xFFFFFFFF
    if ndim <= max_ndim:  # ndim is unsigned here: a negative one fails this test
        shape, strides = _load_word(tensor + 24), _load_word(tensor + 32)
        if shape != 0:
            _memcpy(_pointer(_address(out) + 80), _pointer(shape), 8 * ndim)
        if strides != 0:
            _memcpy(_pointer(_address(out) + 80 + 8 * ndim), _pointer(strides), 8 * ndim)
    return kind


@cfunc(_voidptr(_voidptr, _int32, _voidptr), cache=True)
def _adopt_capsule(capsule, versioned, release):
    if versioned:
        managed = _PyCapsule_GetPointer(capsule, _cstr("dltensor_versioned"))
        _PyCapsule_SetName(capsule, _cstr("used_dltensor_versioned"))
        owner = _PyCapsule_New(managed, _cstr("dlnumba.imported_dltensor_versioned"), release)
        if _address(owner) == 0:
            _PyCapsule_SetName(capsule, _cstr("dltensor_versioned"))
    else:
        managed = _PyCapsule_GetPointer(capsule, _cstr("dltensor"))
        _PyCapsule_SetName(capsule, _cstr("used_dltensor"))
        owner = _PyCapsule_New(managed, _cstr("dlnumba.imported_dltensor"), release)
        if _address(owner) == 0:
            _PyCapsule_SetName(capsule, _cstr("dltensor"))
    return owner


_py, _ptr, _ssize, _int = ctypes.py_object, ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int

make_capsule = ctypes.PYFUNCTYPE(_py, _py, ctypes.c_char_p, _ssize, _ssize, _int, _ptr)(
    _make_capsule.address)
make_capsule.__doc__ = """make_capsule(owner, template, nbytes, ndim, versioned, destructor)

Copy ``template`` (a packed struct, shape and strides) into a new allocation, point its shape
and strides fields at the copies, take a reference to ``owner`` (the struct's manager_ctx)
and wrap the allocation in a ``dltensor`` or ``dltensor_versioned`` capsule."""

read_capsule = ctypes.PYFUNCTYPE(ctypes.c_int64, _py, _ptr, _ssize)(_read_capsule.address)
read_capsule.__doc__ = """read_capsule(capsule, out, max_ndim) -> kind

Copy a DLPack capsule's struct into ``out`` (80 bytes, then shape and strides when ndim is at
most ``max_ndim`` and the pointers are set). Return 1 (versioned), 0 (legacy),
CAPSULE_ALREADY_CONSUMED or NOT_A_DLPACK_CAPSULE. Of a versioned capsule whose major version
is not 1, only the version is copied."""

adopt_capsule = ctypes.PYFUNCTYPE(_py, _py, _int, _ptr)(_adopt_capsule.address)
adopt_capsule.__doc__ = """adopt_capsule(capsule, versioned, release) -> owner

Take ownership of a capsule's tensor: rename the capsule ``used_...`` and return a new capsule
whose destructor ``release`` runs the producer's deleter."""

capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, _py)(("PyCapsule_GetName", ctypes.pythonapi))
CapsuleType = type(ctypes.PYFUNCTYPE(_py, _ptr, _ptr, _ptr)(("PyCapsule_New", ctypes.pythonapi))(
    1, None, None))
