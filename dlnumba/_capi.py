"""DLPack at the C level: Numba-compiled callbacks that build, read and release capsules.

Everything a consumer may call without the GIL, at interpreter exit, or with an exception
pending (the deleters, the capsule destructors) is a Numba ``cfunc`` that calls only C API
symbols; Python-level ctypes callbacks are wrong there (see DESIGN.md, section 4). The
export and import paths are compiled here too, so that each costs one foreign call. Each is
taken from the shipped object (:mod:`._shipped`), or compiled (or loaded from Numba's cache),
on first use, not at import.

Struct offsets follow dlpack.h 1.x: ``DLManagedTensor`` is a 48-byte ``DLTensor`` then
``manager_ctx`` (48) and ``deleter`` (56); ``DLManagedTensorVersioned`` is
``version`` (0), ``manager_ctx`` (8), ``deleter`` (16), ``flags`` (24), ``DLTensor`` (32).
"""

import ctypes
import functools
import struct

import numpy as np

from llvmlite import ir
from ._numba import cgutils, external_function, intrinsic, njit, types

from ._native import I8P, I64, c_builtin, declare
from ._shipped import c_function

LEGACY_HEADER = struct.Struct("<QiiiBBHQQQQQ")  # DLManagedTensor, 64 bytes
VERSIONED_HEADER = struct.Struct("<IIQQQQiiiBBHQQQ")  # DLManagedTensorVersioned, 80 bytes
# The same structs of dlpack.h as NumPy sees them (C alignment): the compiled code below reads
# and writes their fields at these offsets.
DL_TENSOR = np.dtype([("data", np.uint64), ("device_type", np.int32), ("device_id", np.int32),
                      ("ndim", np.int32), ("code", np.uint8), ("bits", np.uint8),
                      ("lanes", np.uint16), ("shape", np.uint64), ("strides", np.uint64),
                      ("byte_offset", np.uint64)], align=True)
DL_MANAGED_TENSOR = np.dtype([("dl_tensor", DL_TENSOR), ("manager_ctx", np.uint64),
                              ("deleter", np.uint64)], align=True)
DL_MANAGED_TENSOR_VERSIONED = np.dtype([
    ("major", np.uint32), ("minor", np.uint32), ("manager_ctx", np.uint64),
    ("deleter", np.uint64), ("flags", np.uint64), ("dl_tensor", DL_TENSOR)], align=True)
_DATA, _DEVICE_TYPE, _DEVICE_ID, _NDIM, _CODE, _BITS, _LANES, _SHAPE, _STRIDES, \
    _BYTE_OFFSET = (DL_TENSOR.fields[name][1] for name in DL_TENSOR.names)
_LEGACY_TENSOR, _LEGACY_CONTEXT, _LEGACY_DELETER = (
    DL_MANAGED_TENSOR.fields[name][1] for name in DL_MANAGED_TENSOR.names)
_MAJOR, _MINOR, _VERSIONED_CONTEXT, _VERSIONED_DELETER, _FLAGS, _VERSIONED_TENSOR = (
    DL_MANAGED_TENSOR_VERSIONED.fields[name][1] for name in DL_MANAGED_TENSOR_VERSIONED.names)


_voidptr, _intp, _int32 = types.voidptr, types.intp, types.int32


class _LazyCfunc:
    """A ``cfunc``, shipped (:mod:`._shipped`) or compiled (or loaded from Numba's cache) when
    its address is first asked for."""

    def __init__(self, signature, function):
        self._signature, self.__wrapped__ = signature, function
        functools.update_wrapper(self, function)

    @functools.cached_property
    def address(self):
        """The address of the C function (which lives as long as the process)."""
        return c_function(self.__wrapped__, self._signature)


def _on_first_use(signature):
    """Decorator: a ``cfunc`` of ``signature`` compiled on first use."""
    return functools.partial(_LazyCfunc, signature)


def _c_function(name, restype, *argtypes):
    """A C symbol (CPython C API or libc) callable from compiled code."""
    return external_function(name, restype(*argtypes))


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

@njit(inline="always")
def _release_export(managed, context_offset):
    gil = _PyGILState_Ensure()
    error = _fetch_error()
    _Py_DecRef(_pointer(_load_word(_address(managed) + context_offset)))
    _PyMem_RawFree(managed)
    _PyErr_Restore(error[0], error[1], error[2])
    _PyGILState_Release(gil)


@_on_first_use(types.void(_voidptr))
def delete_legacy_export(managed):
    """``DLManagedTensor.deleter`` of our exports: drop the array reference, free the struct."""
    _release_export(managed, _LEGACY_CONTEXT)


@_on_first_use(types.void(_voidptr))
def delete_versioned_export(managed):
    """``DLManagedTensorVersioned.deleter`` of our exports."""
    _release_export(managed, _VERSIONED_CONTEXT)


# ---- capsule destructors: each runs the tensor's deleter if the capsule still owns it ----

@njit(inline="always")
def _run_deleter(managed, deleter_offset):
    deleter = _load_word(_address(managed) + deleter_offset)
    if deleter != 0:
        error = _fetch_error()
        _call_deleter(deleter, managed)
        _PyErr_Restore(error[0], error[1], error[2])


@_on_first_use(types.void(_voidptr))
def destroy_legacy_capsule(capsule):
    """Destructor of the ``dltensor`` capsules we export: free them if never consumed."""
    if _PyCapsule_IsValid(capsule, _cstr("dltensor")):
        _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dltensor")), _LEGACY_DELETER)


@_on_first_use(types.void(_voidptr))
def destroy_versioned_capsule(capsule):
    """Destructor of the ``dltensor_versioned`` capsules we export."""
    if _PyCapsule_IsValid(capsule, _cstr("dltensor_versioned")):
        _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dltensor_versioned")),
                     _VERSIONED_DELETER)


@_on_first_use(types.void(_voidptr))
def release_legacy_import(capsule):
    """Destructor of the owner of an imported ``DLManagedTensor``: run the producer's deleter."""
    _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dlnumba.imported_dltensor")),
                 _LEGACY_DELETER)


@_on_first_use(types.void(_voidptr))
def release_versioned_import(capsule):
    """Destructor of the owner of an imported ``DLManagedTensorVersioned``."""
    _run_deleter(_PyCapsule_GetPointer(capsule, _cstr("dlnumba.imported_dltensor_versioned")),
                 _VERSIONED_DELETER)


# ---- export: one allocation holding the struct, the shape and the strides ----

@_on_first_use(_voidptr(_voidptr, _voidptr, _intp, _intp, _int32, _voidptr))
def _make_capsule(owner, template, nbytes, ndim, versioned, destructor):
    managed = _PyMem_RawMalloc(nbytes)
    if _address(managed) == 0:
        return _PyErr_NoMemory()
    _memcpy(managed, template, nbytes)
    base = _address(managed)
    shape = base + nbytes - 16 * ndim
    tensor = base + (_VERSIONED_TENSOR if versioned else _LEGACY_TENSOR)
    _store_word(tensor + _SHAPE, shape)
    _store_word(tensor + _STRIDES, shape + 8 * ndim)
    _Py_IncRef(owner)
    if versioned:
        capsule = _PyCapsule_New(managed, _cstr("dltensor_versioned"), destructor)
    else:
        capsule = _PyCapsule_New(managed, _cstr("dltensor"), destructor)
    if _address(capsule) == 0:
        _Py_DecRef(owner)
        _PyMem_RawFree(managed)
    return capsule


# ---- import: validate the tensor and take ownership, in one call ----

# import_tensor's status codes.
OK, NOT_DLPACK, CONSUMED, BAD_VERSION, BAD_NDIM, NULL_SHAPE, NEGATIVE_SIZE, BAD_DTYPE, \
    BAD_DEVICE, TOO_LARGE, NULL_DATA, BAD_ADDRESS = range(12)
# import_tensor's report: these words, then shape, then strides.
REPORT = struct.Struct("<4qQ7qQQq")  # flags, byte_offset and data are unsigned
REPORT_FIELDS = ("status", "address", "ndim", "dtype_index", "flags", "major", "minor",
                 "device_type", "device_id", "code", "bits", "lanes", "byte_offset", "data",
                 "axis")
# The byte offsets of the report's words, in the order of REPORT_FIELDS.
_R_STATUS, _R_ADDRESS, _R_NDIM, _R_DTYPE_INDEX, _R_FLAGS, _R_MAJOR, _R_MINOR, _R_DEVICE_TYPE, \
    _R_DEVICE_ID, _R_CODE, _R_BITS, _R_LANES, _R_BYTE_OFFSET, _R_DATA, _R_AXIS = range(
        0, 8 * len(REPORT_FIELDS), 8)
_REPORT_BYTES = REPORT.size
_LIMIT = 2**62  # sizes, strides and offsets in bytes stay below this: no int64 overflow


@intrinsic
def _at(typingctx, address, kind):
    """A pointer to ``kind`` (a Numba number class such as ``np.int32``) at ``address``."""
    pointer_type = types.CPointer(kind.instance_type)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer_type))

    return pointer_type(_intp, kind), codegen


@njit
def _report(report, status, axis):
    """Write a status and the axis it concerns (or -1) to the report."""
    _store_word(report + _R_STATUS, status)
    _store_word(report + _R_AXIS, axis)


@njit
def _validate(tensor, report, ndim_limit, cuda_devices, dtype_table):
    """Check a DLTensor and fill the report (but its status); return the status and the axis
    it concerns (or -1). The statuses are returned, not passed to a helper: Numba would compile
    the helper once for each constant."""
    data = _load_word(tensor + _DATA)
    device_type = _at(tensor + _DEVICE_TYPE, np.int32)[0]
    device_id = _at(tensor + _DEVICE_ID, np.int32)[0]
    ndim = _at(tensor + _NDIM, np.int32)[0]
    code, bits = _at(tensor + _CODE, np.uint8)[0], _at(tensor + _BITS, np.uint8)[0]
    lanes = _at(tensor + _LANES, np.uint16)[0]
    shape, strides = _load_word(tensor + _SHAPE), _load_word(tensor + _STRIDES)
    byte_offset = _load_word(tensor + _BYTE_OFFSET)
    _store_word(report + _R_NDIM, ndim)
    _store_word(report + _R_DEVICE_TYPE, device_type)
    _store_word(report + _R_DEVICE_ID, device_id)
    _store_word(report + _R_CODE, code)
    _store_word(report + _R_BITS, bits)
    _store_word(report + _R_LANES, lanes)
    _store_word(report + _R_BYTE_OFFSET, byte_offset)
    _store_word(report + _R_DATA, data)
    if ndim < 0 or ndim > ndim_limit:
        return BAD_NDIM, -1
    if ndim > 0 and shape == 0:
        return NULL_SHAPE, -1
    dtype_index = -1
    if code < 7 and bits % 8 == 0 and bits <= 128 and lanes == 1:
        dtype_index = _at(dtype_table + code * 17 + bits // 8, np.int8)[0]
    if dtype_index < 0:
        return BAD_DTYPE, -1
    _store_word(report + _R_DTYPE_INDEX, dtype_index)
    # kDLCPU:0; kDLCUDA devices dlnumba can use; pinned (kDLCUDAHost) and managed
    # (kDLCUDAManaged) memory, which the host reads in place whatever the device id.
    if not ((device_type == 1 and device_id == 0)
            or (device_type == 2 and 0 <= device_id < cuda_devices)
            or ((device_type == 3 or device_type == 13) and device_id >= 0)):
        return BAD_DEVICE, -1
    itemsize = bits // 8
    shape_out = report + _REPORT_BYTES
    strides_out = shape_out + 8 * ndim
    empty = False
    step = 1  # for NULL strides: C-contiguous
    for axis in range(ndim - 1, -1, -1):
        n = _load_word(shape + 8 * axis)
        _store_word(shape_out + 8 * axis, n)
        if n < 0:
            return NEGATIVE_SIZE, axis
        _store_word(strides_out + 8 * axis, _load_word(strides + 8 * axis) if strides else step)
        if n > 1:
            step = step * n if step <= _LIMIT // n else _LIMIT
        empty = empty or n == 0
    # The sizes other than 0 multiply to at most _LIMIT bytes, so C-contiguous strides fit. A
    # stride that moves nothing may be any word: an empty tensor takes the C-contiguous strides
    # (a view's offsets could not overflow), an axis of size 1 takes its C-contiguous stride
    # when its own lies outside +-_LIMIT bytes.
    largest = _LIMIT // itemsize
    step = 1
    low = high = 0
    for axis in range(ndim - 1, -1, -1):
        n = _load_word(shape_out + 8 * axis)
        s = _load_word(strides_out + 8 * axis)
        if n > 1 and not empty:
            if s < -largest or s > largest or abs(s) * itemsize > _LIMIT // (n - 1):
                return TOO_LARGE, axis
            reach = s * itemsize * (n - 1)  # within +-_LIMIT: checked above
            if reach > 0:
                if high > _LIMIT - reach:  # not high + reach, which could pass 2**63
                    return TOO_LARGE, axis
                high += reach
            else:
                if low < -_LIMIT - reach:
                    return TOO_LARGE, axis
                low += reach
        elif empty or s < -largest or s > largest:
            _store_word(strides_out + 8 * axis, step)
        if n > 1:
            if step > largest // n:
                return TOO_LARGE, axis
            step *= n
    if not empty and data == 0:
        return NULL_DATA, -1
    if data < 0 or byte_offset < 0 or byte_offset > _LIMIT:
        return BAD_ADDRESS, -1
    base = data + byte_offset
    # An element may lie anywhere from address 1 (0 is NULL: no memory is there) to 2**63 - 1.
    if base < data or base + low < (0 if empty else 1) or \
            high + itemsize > 0x7FFFFFFFFFFFFFFF - base:
        return BAD_ADDRESS, -1
    _store_word(report + _R_ADDRESS, base)
    return OK, -1


@njit(inline="always")
def _adopt(capsule, managed, name, used_name, owner_name, release):
    """Rename the capsule ``used_name``; return a new capsule ``owner_name`` owning the tensor."""
    _PyCapsule_SetName(capsule, used_name)
    owner = _PyCapsule_New(_pointer(managed), owner_name, release)
    if _address(owner) == 0:
        _PyCapsule_SetName(capsule, name)
    return owner


@_on_first_use(_voidptr(_voidptr, _voidptr, _voidptr, _intp, _intp, _voidptr, _voidptr,
                         _voidptr))
def _import_tensor(capsule, none, report, ndim_limit, cuda_devices, dtype_table, release_legacy,
                   release_versioned):
    out = _address(report)
    if _PyCapsule_IsValid(capsule, _cstr("dltensor_versioned")):
        managed = _address(_PyCapsule_GetPointer(capsule, _cstr("dltensor_versioned")))
        major = _at(managed + _MAJOR, np.uint32)[0]
        minor = _at(managed + _MINOR, np.uint32)[0]
        _store_word(out + _R_MAJOR, major)
        _store_word(out + _R_MINOR, minor)
        if major != 1:  # another ABI: no other field may be read
            _report(out, np.int64(BAD_VERSION), np.int64(-1))
            _Py_IncRef(none)
            return none
        _store_word(out + _R_FLAGS, _load_word(managed + _FLAGS))
        status, axis = _validate(managed + _VERSIONED_TENSOR, out, ndim_limit, cuda_devices,
                                 _address(dtype_table))
        _report(out, status, axis)
        if status == OK:
            return _adopt(capsule, managed, _cstr("dltensor_versioned"),
                          _cstr("used_dltensor_versioned"),
                          _cstr("dlnumba.imported_dltensor_versioned"), release_versioned)
    elif _PyCapsule_IsValid(capsule, _cstr("dltensor")):
        managed = _address(_PyCapsule_GetPointer(capsule, _cstr("dltensor")))
        for field in (_R_FLAGS, _R_MAJOR, _R_MINOR):
            _store_word(out + field, 0)
        status, axis = _validate(managed + _LEGACY_TENSOR, out, ndim_limit, cuda_devices,
                                 _address(dtype_table))
        _report(out, status, axis)
        if status == OK:
            return _adopt(capsule, managed, _cstr("dltensor"), _cstr("used_dltensor"),
                          _cstr("dlnumba.imported_dltensor"), release_legacy)
    elif (_PyCapsule_IsValid(capsule, _cstr("used_dltensor_versioned"))
          or _PyCapsule_IsValid(capsule, _cstr("used_dltensor"))):
        _report(out, np.int64(CONSUMED), np.int64(-1))
    else:
        _report(out, np.int64(NOT_DLPACK), np.int64(-1))
    _Py_IncRef(none)
    return none


def _int_tuple(module):
    """IR: ``PyObject *dlnumba_int_tuple(int64_t *words, int64_t count)``, a new tuple of the
    ``count`` words as ints, or NULL with MemoryError set."""
    function = ir.Function(module, ir.FunctionType(I8P, [I64.as_pointer(), I64]),
                           "dlnumba_int_tuple")
    words, count = function.args
    null = ir.Constant(I8P, None)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    loop = function.append_basic_block("loop")
    result = b.call(declare(module, "PyTuple_New", I8P, I64), [count])
    with b.if_then(b.icmp_unsigned("==", result, null)):
        b.ret(null)
    start = b.block
    b.branch(loop)
    b.position_at_end(loop)
    index = b.phi(I64)
    index.add_incoming(I64(0), start)
    with b.if_then(b.icmp_signed(">=", index, count)):
        b.ret(result)
    number = b.call(declare(module, "PyLong_FromSsize_t", I8P, I64),
                    [b.load(b.gep(words, [index]))])
    # PyTuple_SetItem steals the item; a NULL item is stored as NULL, which the tuple skips
    b.call(declare(module, "PyTuple_SetItem", ir.IntType(32), I8P, I64, I8P),
           [result, index, number])
    with b.if_then(b.icmp_unsigned("==", number, null)):
        b.call(declare(module, "Py_DecRef", ir.VoidType(), I8P), [result])
        b.ret(null)
    index.add_incoming(b.add(index, I64(1)), b.block)
    b.branch(loop)
    return function


def _host_array(module, b, owner, arguments):
    """IR: ``import_array``'s result from ``import_tensor``'s ``owner``: for host memory,
    ``new(address, shape, strides, dtypes[index], cpu, owner, readonly)`` from the report,
    which consumes the owner; else the owner (or None, or NULL) itself."""
    _, none, report, *_, new, dtypes, cpu = arguments
    null = ir.Constant(I8P, None)
    decref = declare(module, "Py_DecRef", ir.VoidType(), I8P)  # Py_XDECREF: NULL is skipped
    words = b.bitcast(report, I64.as_pointer())

    def word(field):
        return b.load(b.gep(words, [I64(REPORT_FIELDS.index(field))]))

    device_type = word("device_type")
    # The host reads CPU memory, pinned (kDLCUDAHost) and managed (kDLCUDAManaged) CUDA memory
    # in place: arrays over it are on the CPU device.
    host = b.or_(b.icmp_signed("==", device_type, I64(1)),
                 b.or_(b.icmp_signed("==", device_type, I64(3)),
                       b.icmp_signed("==", device_type, I64(13))))
    adopted = b.and_(b.icmp_unsigned("!=", owner, null), b.icmp_unsigned("!=", owner, none))
    with b.if_then(b.not_(b.and_(adopted, host))):
        b.ret(owner)
    ndim = word("ndim")
    layout = b.gep(words, [I64(REPORT.size // 8)])
    int_tuple = _int_tuple(module)
    fields = [b.call(declare(module, "PyLong_FromSsize_t", I8P, I64), [word("address")]),
              b.call(int_tuple, [layout, ndim]),
              b.call(int_tuple, [b.gep(layout, [ndim]), ndim]),
              b.call(declare(module, "PyBool_FromLong", I8P, I64),
                     [b.and_(word("flags"), I64(1))])]  # DLPACK_FLAG_BITMASK_READ_ONLY
    dtype = b.call(declare(module, "PyTuple_GetItem", I8P, I8P, I64),
                   [dtypes, word("dtype_index")])
    array = b.alloca(I8P)
    b.store(null, array)
    made = functools.reduce(b.and_, [b.icmp_unsigned("!=", field, null) for field in fields])
    with b.if_then(made):
        values = b.alloca(I8P, 7)
        for k, value in enumerate((*fields[:3], dtype, cpu, owner, fields[3])):
            b.store(value, b.gep(values, [I64(k)]))
        b.store(b.call(declare(module, "PyObject_Vectorcall", I8P, I8P, I8P.as_pointer(), I64,
                               I8P), [new, values, I64(7), null]), array)
    for value in (*fields, owner):
        b.call(decref, [value])
    return b.load(array)


_py, _ptr = ctypes.py_object, ctypes.c_void_p

_BUILDERS = {  # the compiled function, then how each argument is passed (see c_builtin)
    "make_capsule": (_make_capsule, "object", "bytes", "ssize", "ssize", "int", "pointer"),
}
_IMPORT_DOC = "Import a DLPack capsule as an array (see dlnumba._capi)."
_IMPORT_KINDS = ("object", "object", "pointer", "ssize", "ssize", "bytes", "pointer", "pointer",
                 "object", "object", "object")
_ADDRESSES = {
    "DELETE_LEGACY": delete_legacy_export, "DELETE_VERSIONED": delete_versioned_export,
    "DESTROY_LEGACY": destroy_legacy_capsule, "DESTROY_VERSIONED": destroy_versioned_capsule,
    "RELEASE_LEGACY": release_legacy_import, "RELEASE_VERSIONED": release_versioned_import,
}
ENTRY_POINTS = (*_BUILDERS, "import_array", *_ADDRESSES)  # the names __getattr__ makes


def __getattr__(name):
    """The compiled entry points, made on first use: ``make_capsule``, ``import_array``, and
    the callback addresses ``DELETE_*``, ``DESTROY_*`` and ``RELEASE_*``.

    ``make_capsule(owner, template, nbytes, ndim, versioned, destructor)`` copies ``template``
    (a packed struct, shape and strides) into a new allocation, points its shape and strides
    fields at the copies, takes a reference to ``owner`` (the struct's manager_ctx) and wraps
    the allocation in a ``dltensor`` or ``dltensor_versioned`` capsule.

    ``import_array(capsule, None, report, ndim_limit, cuda_devices, dtype_table,
    release_legacy, release_versioned, new, dtypes, cpu)`` validates the tensor in a DLPack
    capsule and fills ``report`` (REPORT, then shape and strides; strides made C-contiguous
    when NULL or the tensor is empty; a stride beyond 2**62 bytes on an axis of size 1, where it
    moves nothing, replaced by the C-contiguous one). If valid, it renames the capsule
    ``used_...`` and adopts the tensor in a new capsule, the owner, whose destructor
    (``release_legacy`` or ``release_versioned``) runs the producer's deleter. Host memory
    comes back as ``new(address, shape, strides, dtypes[index], cpu, owner, readonly)``, other
    memory as the owner, to be described from the report. An invalid tensor gives None and
    leaves the capsule untouched; the report's status says why. The tensor may
    be on kDLCPU:0, on kDLCUDA devices below ``cuda_devices``, or in kDLCUDAHost or
    kDLCUDAManaged memory (any device id). ``dtype_table[code * 17 + bits // 8]`` is the index
    of the dtype of that DLPack code and width, or -1.
    """
    if name in _BUILDERS:
        compiled, *kinds = _BUILDERS[name]
        value = c_builtin(compiled.address, name, kinds, compiled.__doc__ or name)
    elif name == "import_array":
        value = c_builtin(_import_tensor.address, name, _IMPORT_KINDS, _IMPORT_DOC, _host_array,
                          3)
    elif name in _ADDRESSES:
        value = _ADDRESSES[name].address
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, _py)(("PyCapsule_GetName", ctypes.pythonapi))
CapsuleType = type(ctypes.PYFUNCTYPE(_py, _ptr, _ptr, _ptr)(("PyCapsule_New", ctypes.pythonapi))(
    1, None, None))
