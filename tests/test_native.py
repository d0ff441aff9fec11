"""The C-level builtins compiled at import (dlnumba._native)."""

import ctypes
import gc
import sys

import numpy as np
import pytest
from llvmlite import ir

import dlnumba as xp
from dlnumba import _cpython, _native


def test_new_sets_every_field_and_holds_its_references():
    row = xp.zeros(1)._dtype
    owner = bytearray(8)
    shape, strides = (2, 3), (3, 1)
    before = [sys.getrefcount(v) for v in (owner, shape, strides)]
    x = xp.ndarray._new(12345, shape, strides, row, xp.Device("cpu"), owner, True)
    assert type(x) is xp.ndarray
    assert (x._address, x._shape, x._strides, x._dtype, x._owner, x._readonly) == (
        12345, shape, strides, row, owner, True)
    assert [sys.getrefcount(v) for v in (owner, shape, strides)] == [n + 1 for n in before]
    del x
    gc.collect()
    assert [sys.getrefcount(v) for v in (owner, shape, strides)] == before


def test_new_refuses_another_number_of_arguments():
    with pytest.raises(TypeError, match="takes 7 arguments"):
        xp.ndarray._new(0, (), ())


def test_slot_offsets_and_buffer_addresses_match_ctypes():
    x = xp.zeros(3)
    offset = _cpython.slot_offset(xp.ndarray, "_shape")
    assert ctypes.c_void_p.from_address(id(x) + offset).value == id(x._shape)
    with pytest.raises(TypeError, match="not a slot"):
        _cpython.slot_offset(xp.ndarray, "shape")
    memory = bytearray(100)
    assert _native.buffer_address(memory) == ctypes.addressof(ctypes.c_char.from_buffer(memory))
    values = np.arange(10.0)[::-3]
    assert _native.buffer_address(values) == values.__array_interface__["data"][0]
    with pytest.raises(TypeError):
        _native.buffer_address(3)


def _swapped(fields, first, second):
    """A ctypes structure of ``fields`` with the fields ``first`` and ``second`` swapped."""
    names = [name for name, _ in fields]
    i, j = names.index(first), names.index(second)
    fields = list(fields)
    fields[i], fields[j] = fields[j], fields[i]
    return type("Layout", (ctypes.Structure,), {"_fields_": fields})


def test_the_interpreter_s_layout_is_checked_and_one_that_differs_refused():
    """The C layouts the builtins write pass their check here; a Py_buffer or a slot offset
    that is not where the code would write it is refused, with the interpreter named, and
    without a crash: a field that locates a pointer is checked before the pointer is read."""
    assert _cpython.layout_problem() is None
    assert _cpython.interpreter().startswith(f"cpython {sys.version.split()[0]} (64-bit")
    fields = _cpython.PyBuffer._fields_
    shifted = type("Layout", (ctypes.Structure,),
                   {"_fields_": [("head", ctypes.c_void_p), *fields[:-1]]})
    for layout in (_swapped(fields, "len", "itemsize"), _swapped(fields, "buf", "obj"),
                   _swapped(fields, "shape", "strides"), shifted):
        assert "Py_buffer's" in _cpython.layout_problem(buffer_layout=layout)
    off_by_a_word = lambda cls, name: _cpython.slot_offset(cls, name) + 8
    assert "slots are not where" in _cpython.layout_problem(find_offset=off_by_a_word)
    with pytest.raises(ImportError, match=r"dlnumba cannot run on cpython .*: Py_buffer's"):
        _cpython.check(buffer_layout=shifted)


def test_c_builtins_check_their_arguments_before_the_call():
    from dlnumba import _capi

    x = xp.zeros(2)
    references = sys.getrefcount(x)
    with pytest.raises(TypeError, match="takes 6 arguments"):
        _capi.make_capsule(x)
    with pytest.raises(TypeError):
        _capi.make_capsule(x, None, 64, 1, 0, _capi.DESTROY_LEGACY)  # None is not bytes
    with pytest.raises(TypeError):
        _capi.make_capsule(x, b"", "64", 1, 0, _capi.DESTROY_LEGACY)  # a str is not an int
    assert sys.getrefcount(x) == references


def test_copy_memory_moves_bytes_and_checks_its_arguments():
    source, target = ctypes.create_string_buffer(b"abcdef"), ctypes.create_string_buffer(6)
    assert _native.copy_memory(ctypes.addressof(target), ctypes.addressof(source), 6) is None
    assert target.value == b"abcdef"
    with pytest.raises(TypeError, match="takes 3 arguments"):
        _native.copy_memory(1, 2)
    with pytest.raises(TypeError):
        _native.copy_memory(ctypes.addressof(target), "source", 6)


def test_c_callers_convert_their_arguments_and_fill_left_out_ones_with_zero():
    from numba import cfunc, types

    @cfunc(types.intp(types.CPointer(types.int64), types.intp, types.intp, types.intp))
    def store(target, a, b, c):
        target[0], target[1], target[2] = a, b, c
        return a - b

    call = _native.c_caller(4, "ssize")
    assert _native.c_caller(4, "ssize") is call
    target = np.full(3, -1, np.int64)
    assert call(store.address, target.ctypes.data, 7, 9, 1) == -2
    assert target.tolist() == [7, 9, 1]
    for arguments in [(store.address, target.ctypes.data, 1, 2), (store.address, 0, 1, 2, 3, 4)]:
        with pytest.raises(TypeError, match="call takes 5 arguments"):
            call(*arguments)
    with pytest.raises(TypeError):
        call(store.address, target.ctypes.data, 1, "2", 3)  # checked before the call
    assert target.tolist() == [7, 9, 1]
    with pytest.raises(ValueError, match="CALLER_SIGNATURES"):
        _native.c_caller(2, "ssize")


def test_a_caller_releases_the_gil_unless_asked_to_hold_it():
    from numba import cfunc, types

    holds_gil = types.ExternalFunction("PyGILState_Check", types.int32())

    @cfunc(types.void(types.CPointer(types.int64), *[types.intp] * 5))
    def record(target, a, b, c, d, e):
        target[0] = holds_gil()

    flag = np.full(1, -1, np.int64)
    for release, held in [(True, 0), (False, 1)]:
        _native.c_caller(6, "none", release=release)(record.address, flag.ctypes.data, 0, 0, 0,
                                                     0, 0)
        assert flag[0] == held
    with pytest.raises(ValueError, match="release=False"):
        _native.c_caller(6, "ssize", release=False)


def test_the_walk_caller_fills_a_left_out_address_with_zero():
    from numba import cfunc, types

    @cfunc(types.void(types.CPointer(types.int64), *[types.intp] * 4))
    def store(target, a, b, c, d):
        target[0], target[1], target[2], target[3] = a, b, c, d

    call = _native.c_caller(5, "none", optional=1)
    target = np.full(4, -1, np.int64)
    assert call(store.address, target.ctypes.data, 1, 2, 3, 4) is None
    assert target.tolist() == [1, 2, 3, 4]
    call(store.address, target.ctypes.data, 5, 6, 7)
    assert target.tolist() == [5, 6, 7, 0]
    with pytest.raises(TypeError, match="call takes 5 to 6 arguments"):
        call(store.address, target.ctypes.data, 5, 6)


def _returns(value):
    def build(module):
        function = ir.Function(module, ir.FunctionType(_native.I64, []), "answer")
        ir.IRBuilder(function.append_basic_block()).ret(_native.I64(value))
    return build


def test_modules_compiled_apart_keep_their_own_symbols():
    answers = [ctypes.CFUNCTYPE(ctypes.c_int64)(_native.compile_functions(
        "dlnumba_test", _returns(value))[1]("answer"))() for value in (3, 4)]
    assert answers == [3, 4]


def test_a_module_calling_an_unknown_function_is_refused():
    def build(module):
        function = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "caller")
        b = ir.IRBuilder(function.append_basic_block())
        b.call(_native.declare(module, "dlnumba_no_such_function", ir.VoidType()), [])
        b.ret_void()

    with pytest.raises(RuntimeError, match="dlnumba_no_such_function, which this process"):
        _native.compile_functions("dlnumba_test", build)
