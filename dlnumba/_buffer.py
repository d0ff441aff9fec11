"""The C-level buffer of ``ndarray`` (PEP 3118), so that Numba's dispatcher and NumPy read a
host array without running Python.

``ArrayBase``, the base class of ``ndarray``, is built at import through the C API
(``PyType_FromSpec``). It has one field, the array's *descriptor* (a ``bytes`` filled on first
use by :func:`describe`), and one slot, ``bf_getbuffer``, written in LLVM IR and compiled at
import by :mod:`dlnumba._native` (a Numba ``cfunc`` would first load Numba's typing, 0.35 s).
Installing dlnumba therefore needs no C compiler.

Numba's C dispatcher fingerprints buffer objects (format, ndim, contiguity, writability, type
object) and caches the Numba type per fingerprint, so a dlnumba argument is typed in C; the
unboxer in :mod:`dlnumba.numba_ext` copies the descriptor's last part into Numba's array struct.

Only arrays in host memory of a dtype with a buffer format have a buffer: an array on a CUDA
device and a bfloat16 array refuse with BufferError (NumPy then reads ``__array__``). A
read-only array refuses a writable buffer, and a request that cannot take strides gets a
buffer only from a contiguous array. The buffer holds a reference to the array, and so to the
memory's owner, until it is released.
"""

import ctypes
import math
import struct

import numpy as np
from llvmlite import ir

from ._dtypes import bfloat16
from ._layout import c_contiguous
from ._cpython import OBJECT_HEAD, POINTER, PyMemberDef
from ._native import (I8P, I32, I64, buffer_field, compile_functions, constant, constant_string,
                      declare)

DESCRIPTOR_OFFSET = OBJECT_HEAD  # ArrayBase's one field
NUMBA_PART = 32  # byte offset, in the descriptor, of the part Numba's array struct copies
C_CONTIGUOUS, F_CONTIGUOUS = 1, 2
# By ndim: the descriptor's words: ndim, read-only, contiguity bits, format (8 chars); then
# Numba's part: nitems, itemsize, data address, shape, strides in bytes.
_LAYOUTS = []

_PyBUF_WRITABLE, _PyBUF_FORMAT, _PyBUF_ND, _PyBUF_STRIDES = 0x1, 0x4, 0x8, 0x18
_CONTIGUITY_REQUESTS = ((0x38, C_CONTIGUOUS), (0x58, F_CONTIGUOUS),
                        (0x98, C_CONTIGUOUS | F_CONTIGUOUS))
_FORMATS = {}


def contiguity(shape, strides):
    """The contiguity bits of a layout: ``C_CONTIGUOUS`` and/or ``F_CONTIGUOUS`` (strides in
    elements; sizes 0 and 1 are contiguous in any order, as in CPython and NumPy)."""
    c = c_contiguous(shape, strides)
    if len(shape) < 2:
        return c * (C_CONTIGUOUS | F_CONTIGUOUS)
    return C_CONTIGUOUS * c | F_CONTIGUOUS * c_contiguous(shape[::-1], strides[::-1])


def describe(array):
    """Fill ``array``'s descriptor: what its buffer and Numba's array struct hold.

    Raises
    ------
    BufferError
        If the array is not in host memory, or is bfloat16 (no buffer format).
    """
    dtype = array._dtype
    if not array._device.host_memory or dtype is bfloat16:
        raise BufferError(f"a {dtype} array on {array._device} has no buffer: only host "
                          "arrays of a dtype with a PEP 3118 format have one")
    shape, strides, itemsize = array._shape, array._strides, dtype.itemsize
    ndim = len(shape)
    while len(_LAYOUTS) <= ndim:
        _LAYOUTS.append(struct.Struct(f"<3q8s{3 + 2 * len(_LAYOUTS)}q"))
    form = _FORMATS.get(dtype)
    if form is None:
        form = _FORMATS[dtype] = memoryview(np.empty(0, dtype.storage)).format.encode()
    array._descriptor = descriptor = _LAYOUTS[ndim].pack(
        ndim, array._readonly, contiguity(shape, strides), form, math.prod(shape), itemsize,
        array._address, *shape, *[s * itemsize for s in strides])
    return descriptor


def _getbuffer(module):
    """``int getbuffer(PyObject *self, Py_buffer *view, int flags)`` over the descriptor."""
    i64p = I64.as_pointer()

    call = declare(module, "PyObject_CallOneArg", I8P, I8P, I8P)
    as_string = declare(module, "PyBytes_AsString", I8P, I8P)
    set_error = declare(module, "PyErr_SetString", ir.VoidType(), I8P, I8P)
    incref = declare(module, "Py_IncRef", ir.VoidType(), I8P)
    decref = declare(module, "Py_DecRef", ir.VoidType(), I8P)
    buffer_error = constant(BufferError)
    describe_function = constant(describe)
    readonly_message = constant_string(
        module, "dlnumba_readonly", "a read-only dlnumba array cannot give a writable buffer")
    layout_message = constant_string(
        module, "dlnumba_layout", "this dlnumba array is not contiguous in the order the buffer "
        "request needs; copy it first")

    function = ir.Function(module, ir.FunctionType(I32, [I8P, I8P, I32]), "dlnumba_getbuffer")
    this, view, flags = function.args
    entry = function.append_basic_block("entry")
    describe_block = function.append_basic_block("describe")
    described = function.append_basic_block("described")
    fill = function.append_basic_block("fill")
    fail = function.append_basic_block("fail")
    refuse = function.append_basic_block("refuse")
    b = ir.IRBuilder(entry)
    field = b.bitcast(b.gep(this, [I64(DESCRIPTOR_OFFSET)]), I8P.as_pointer())
    stored = b.load(field)
    b.cbranch(b.icmp_unsigned("==", stored, ir.Constant(I8P, None)), describe_block, described)

    b.position_at_end(describe_block)  # the first request: describe() fills the field
    made = b.call(call, [describe_function, this])
    made_ok = b.icmp_unsigned("!=", made, ir.Constant(I8P, None))
    with b.if_then(made_ok):
        b.call(decref, [made])  # the field keeps its own reference
    described_late = b.block
    b.cbranch(made_ok, described, fail)

    b.position_at_end(described)
    descriptor = b.phi(I8P)
    descriptor.add_incoming(stored, entry)
    descriptor.add_incoming(made, described_late)
    words = b.bitcast(b.call(as_string, [descriptor]), i64p)
    word = lambda k: b.load(b.gep(words, [I64(k)]))
    address = lambda k: b.ptrtoint(b.gep(words, [k if isinstance(k, ir.Value) else I64(k)]), I64)
    ndim, readonly, layout = word(0), word(1), word(2)
    flags64 = b.zext(flags, I64)
    asked = lambda bits: b.icmp_unsigned("==", b.and_(flags64, I64(bits)), I64(bits))
    required = ir.Constant(I64, 0)
    for bits, needed in reversed(_CONTIGUITY_REQUESTS):
        required = b.select(asked(bits), I64(needed), required)
    required = b.select(asked(_PyBUF_STRIDES), required, I64(C_CONTIGUOUS))
    layout_ok = b.or_(b.icmp_unsigned("==", required, I64(0)),
                      b.icmp_unsigned("!=", b.and_(layout, required), I64(0)))
    writable_ok = b.or_(b.icmp_unsigned("==", readonly, I64(0)),
                        b.icmp_unsigned("==", b.and_(flags64, I64(_PyBUF_WRITABLE)), I64(0)))
    message = b.select(writable_ok, layout_message, readonly_message)
    b.cbranch(b.and_(layout_ok, writable_ok), fill, refuse)

    b.position_at_end(fill)
    null = ir.Constant(I64, 0)
    b.call(incref, [this])
    fields = {"buf": word(6), "obj": b.ptrtoint(this, I64), "len": b.mul(word(4), word(5)),
              "itemsize": word(5), "format": b.select(asked(_PyBUF_FORMAT), address(3), null),
              "shape": b.select(asked(_PyBUF_ND), address(7), null),
              "strides": b.select(asked(_PyBUF_STRIDES), address(b.add(ndim, I64(7))), null),
              "suboffsets": null, "internal": null}
    for name, value in fields.items():
        b.store(value, buffer_field(b, view, name))
    b.store(b.trunc(readonly, I32), buffer_field(b, view, "readonly", I32))
    shown_ndim = b.select(asked(_PyBUF_ND), ndim, null)  # 0 without a shape, as in NumPy
    b.store(b.trunc(shown_ndim, I32), buffer_field(b, view, "ndim", I32))
    b.ret(I32(0))

    b.position_at_end(refuse)
    b.call(set_error, [buffer_error, message])
    b.branch(fail)

    b.position_at_end(fail)
    b.store(null, buffer_field(b, view, "obj"))  # NULL, as the protocol asks
    b.ret(I32(-1))


class _Slot(ctypes.Structure):
    _fields_ = [("slot", ctypes.c_int), ("pfunc", ctypes.c_void_p)]


class _Spec(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("basicsize", ctypes.c_int),
                ("itemsize", ctypes.c_int), ("flags", ctypes.c_uint),
                ("slots", ctypes.POINTER(_Slot))]


def _make_base():
    library, address = compile_functions("dlnumba_buffer", _getbuffer)
    getbuffer = address("dlnumba_getbuffer")
    Py_bf_getbuffer, Py_tp_members, Py_tp_doc, T_OBJECT_EX = 1, 72, 56, 16
    members = (PyMemberDef * 2)(PyMemberDef(b"_descriptor", T_OBJECT_EX, DESCRIPTOR_OFFSET, 0,
                                            None))
    doc = b"The C level of dlnumba.ndarray: its buffer (PEP 3118) and its descriptor."
    slots = (_Slot * 4)(_Slot(Py_bf_getbuffer, getbuffer),
                        _Slot(Py_tp_members, ctypes.addressof(members)),
                        _Slot(Py_tp_doc, ctypes.cast(doc, ctypes.c_void_p)), _Slot(0, None))
    Py_TPFLAGS_DEFAULT, Py_TPFLAGS_BASETYPE = 1 << 18, 1 << 10
    spec = _Spec(b"dlnumba.ArrayBase", DESCRIPTOR_OFFSET + POINTER, 0,
                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots)
    from_spec = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p)(
        ("PyType_FromSpec", ctypes.pythonapi))
    base = from_spec(ctypes.addressof(spec))
    base._library, base._members = library, members  # kept as long as the type
    return base


ArrayBase = _make_base()

