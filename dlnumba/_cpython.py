"""The layout of CPython's objects that dlnumba's C-level code (:mod:`._native`,
:mod:`._buffer`) reads and writes by hand.

What the running interpreter tells is derived from it: the size of an object's head, where a
member descriptor keeps its member. The rest, the C structs of the stable ABI (``Py_buffer``,
``PyMemberDef``), is written here once, as ctypes structures, and checked at import against
objects of known layout. An interpreter that differs (not CPython, not 64-bit, free-threaded,
or a layout that the checks do not find) is refused with an ImportError that names it: code
that read it wrongly would crash.
"""

import ctypes
import sys

POINTER = ctypes.sizeof(ctypes.c_void_p)
OBJECT_HEAD = object.__basicsize__  # PyObject_HEAD: an object's own fields follow it
# PEP 703's ABI flag: no import of sysconfig and its build variables at every import
FREE_THREADED = "t" in getattr(sys, "abiflags", "")


class PyBuffer(ctypes.Structure):
    """CPython's ``Py_buffer``."""
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_void_p),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


class PyMemberDef(ctypes.Structure):
    """CPython's ``PyMemberDef``: a field of a type's instances."""
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("offset", ctypes.c_ssize_t), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


PyBUF_RECORDS_RO = 0x1C  # strides and format, read-only


def slot_offset(cls, name):
    """The byte offset, in instances of ``cls``, of its ``__slots__`` field ``name``: the
    ``offset`` of the ``PyMemberDef`` that its member descriptor points to last."""
    descriptor = cls.__dict__[name]
    if type(descriptor).__name__ != "member_descriptor":
        raise TypeError(f"{cls.__name__}.{name} is not a slot")
    member = ctypes.c_void_p.from_address(
        id(descriptor) + type(descriptor).__basicsize__ - POINTER).value
    return PyMemberDef.from_address(member).offset


def interpreter():
    """This interpreter, in words: implementation, version, build and platform."""
    threading = "free-threaded" if FREE_THREADED else "with GIL"
    return (f"{sys.implementation.name} {sys.version.split()[0]} ({8 * POINTER}-bit, "
            f"{threading}) on {sys.platform}")


def layout_problem(buffer_layout=PyBuffer, find_offset=slot_offset):
    """What keeps dlnumba's C-level code from this interpreter, or None: checked with
    ``buffer_layout`` (a ctypes structure of ``Py_buffer``) against a bytes object's buffer,
    and with ``find_offset`` (:func:`slot_offset`) against a class of two slots. The
    ``Py_buffer``'s pointers are followed only once the fields before them have matched."""
    if sys.implementation.name != "cpython":
        return "it is not CPython: dlnumba writes CPython's C structures"
    if POINTER != 8:
        return "it is not 64-bit: dlnumba's C-level code holds pointers in 64-bit words"
    if FREE_THREADED:
        return "it is free-threaded: dlnumba's C-level code relies on the GIL"
    if sys.platform == "win32":
        return "it is not a POSIX platform: dlnumba's kernels call clock_gettime"

    class Probe:
        __slots__ = ("first", "second")

    probe = Probe()
    probe.first, probe.second = b"first", b"second"
    found = [find_offset(Probe, "first"), find_offset(Probe, "second")]
    if found != [OBJECT_HEAD, OBJECT_HEAD + POINTER] or Probe.__basicsize__ != (
            OBJECT_HEAD + 2 * POINTER):
        return f"a class's slots are not where its member descriptors say ({found})"
    if ctypes.cast(id(probe) + found[1], ctypes.POINTER(ctypes.py_object))[0] is not (
            probe.second):
        return "an instance's slot does not hold its value"
    return _buffer_problem(buffer_layout)


def _buffer_problem(layout):
    data = b"dlnumba"
    view = (ctypes.c_char * (4 * ctypes.sizeof(PyBuffer)))()  # room for a larger struct
    get = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_int)(
        ("PyObject_GetBuffer", ctypes.pythonapi))
    release = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("PyBuffer_Release", ctypes.pythonapi))
    if get(data, ctypes.addressof(view), PyBUF_RECORDS_RO) != 0:
        return "a bytes object gave no buffer"
    try:
        read = layout.from_buffer(view)
        fields = (read.buf, read.obj, read.len, read.itemsize, read.readonly, read.ndim)
        expected = (ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value, id(data),
                    len(data), 1, 1, 1)
        if fields != expected:
            return f"Py_buffer's fields are not where dlnumba writes them ({fields})"
        shape, strides = (ctypes.c_ssize_t.from_address(read.shape).value,
                          ctypes.c_ssize_t.from_address(read.strides).value)
        if (ctypes.string_at(read.format), shape, strides) != (b"B", len(data), 1):
            return "Py_buffer's format, shape and strides are not where dlnumba writes them"
        return None
    finally:
        release(ctypes.addressof(view))


def check(buffer_layout=PyBuffer, find_offset=slot_offset):
    """Raise ImportError, naming this interpreter, if :func:`layout_problem` finds one."""
    problem = layout_problem(buffer_layout, find_offset)
    if problem is not None:
        raise ImportError(f"dlnumba cannot run on {interpreter()}: {problem}. It runs on "
                          f"64-bit CPython 3.10 or later, with the GIL, on a POSIX platform")


check()
