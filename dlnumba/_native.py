"""C-level functions written in LLVM IR and compiled at import by LLVM's JIT (llvmlite's MCJIT).

A few calls run on every small array operation, where a Python function's own cost is most of
the time: making an ``ndarray`` and finding the address of a new host block or NumPy scalar.
Each is a C function here, made callable from Python as a builtin (``PyCFunction``). They are
compiled per process, straight from IR to machine code by one engine (nothing to cache, no C
compiler, no Numba), so the addresses of Python objects they use (a type, an exception) can be
constants.
"""

import ctypes
import functools
import itertools
import threading

import llvmlite.binding as llvm
from llvmlite import ir

from ._cpython import PyBUF_RECORDS_RO, PyBuffer, slot_offset

I8P, I32, I64 = ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(64)
_METH_NOARGS, _METH_O, _METH_FASTCALL = 0x4, 0x8, 0x80


def declare(module, name, result, *arguments):
    """The C function ``name`` (of the C API) declared in ``module``."""
    try:
        return module.get_global(name)
    except KeyError:
        return ir.Function(module, ir.FunctionType(result, arguments), name)


def constant(value):
    """The address of a Python object that outlives the process's compiled code, as a
    ``PyObject *`` constant."""
    return ir.Constant(I64, id(value)).inttoptr(I8P)


def constant_string(module, name, text):
    """A ``char *`` to ``text``, NUL-terminated, as the global ``name`` of ``module``."""
    data = bytearray(text.encode() + b"\0")
    variable = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name)
    variable.global_constant = True
    variable.initializer = ir.Constant(variable.type.pointee, data)
    return variable.bitcast(I8P)


def compile_functions(name, build):
    """Compile what ``build(module)`` writes into a new IR module; return the engine that holds
    the code (keep it) and a function that gives a symbol's address.

    Raises
    ------
    RuntimeError
        If the module calls a function that the process does not define (MCJIT would leave a
        jump to address 0).
    """
    module = ir.Module(name)
    build(module)
    parsed = llvm.parse_assembly(str(module))
    prefix = f"{name}_{next(_MODULES)}_"  # one engine holds every module: names must differ
    for value in (*parsed.functions, *parsed.global_variables):
        if not value.is_declaration:
            value.name = prefix + value.name
    with _JIT_LOCK:
        engine = jit_engine()
        missing = [f.name for f in parsed.functions
                   if f.is_declaration and not f.name.startswith("llvm.")
                   and not llvm.address_of_symbol(f.name)]
        if missing:
            raise RuntimeError(f"{name} calls {', '.join(missing)}, which this process lacks")
        engine.add_module(parsed)
        engine.finalize_object()
    return engine, lambda symbol: engine.get_function_address(prefix + symbol)


@functools.cache
def jit_engine():
    """The MCJIT engine of these functions, for the host's CPU."""
    return new_engine(cpu=llvm.get_host_cpu_name(), codemodel="jitdefault", jit=True,
                      opt=0)  # quicker to compile, and these few instructions run no slower


def new_engine(**machine):
    """A new, empty MCJIT engine for a target machine of the host's triple with the options
    ``machine``. Creating it makes the process's own symbols, the C API's and libc's, known to
    the linker."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target_machine = llvm.Target.from_default_triple().create_target_machine(**machine)
    return llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine)


_JIT_LOCK = threading.Lock()
_MODULES = itertools.count()


class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("function", ctypes.c_void_p),
                ("flags", ctypes.c_int), ("doc", ctypes.c_char_p)]


def _builtin(address, name, flags, doc, keep):
    """A builtin function over the C function at ``address``; ``keep`` (what its code needs)
    lives as long as the process."""
    definition = _MethodDef(name.encode(), address, flags, doc.encode())
    _KEPT.extend([*keep, definition])  # CPython keeps a pointer to the definition
    make = ctypes.pythonapi.PyCFunction_NewEx
    make.restype, make.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.py_object,
                                                     ctypes.py_object]
    return make(ctypes.addressof(definition), None, None)


_KEPT = []


def buffer_field(b, view, name, kind=None):
    """A pointer to the field ``name`` of the ``Py_buffer`` at ``view`` (an ``i8*``), typed as
    a pointer to ``kind`` (by default a 64-bit word)."""
    return b.bitcast(b.gep(view, [I64(getattr(PyBuffer, name).offset)]),
                     (kind or I64).as_pointer())


def _buffer_address(module):
    """``buffer_address(obj)``: the address of the first element of ``obj``'s buffer."""
    function = ir.Function(module, ir.FunctionType(I8P, [I8P, I8P]), "dlnumba_buffer_address")
    b = ir.IRBuilder(function.append_basic_block("entry"))
    pointer = _buffer_pointer(module, b, function.args[1])
    with b.if_then(b.icmp_unsigned("==", pointer, ir.Constant(I8P, None))):
        b.ret(ir.Constant(I8P, None))
    b.ret(b.call(declare(module, "PyLong_FromVoidPtr", I8P, I8P), [pointer]))


_CONVERSIONS = {  # kind: (C type, the C API function that converts a Python argument)
    "object": (I8P, None),
    "bytes": (I8P, ("PyBytes_AsString", I8P)),
    "pointer": (I8P, ("PyLong_AsVoidPtr", I8P)),
    "ssize": (I64, ("PyLong_AsSsize_t", I64)),
    "int": (I32, ("PyLong_AsSsize_t", I64)),
}


def _fixed_arguments(module, symbol, name, kinds, body, optional=0):
    """Write ``PyObject *symbol(self, args, nargs)``, a ``METH_FASTCALL`` function of
    ``len(kinds)`` arguments converted by ``kinds`` (keys of ``_CONVERSIONS``) that returns
    ``body(builder, arguments)``: NULL with a TypeError naming ``name`` for another count, and
    NULL with the conversion's exception for an argument it cannot convert. The last
    ``optional`` arguments (numbers) may be left out: they are then 0."""
    function = ir.Function(module, ir.FunctionType(I8P, [I8P, I8P.as_pointer(), I64]), symbol)
    _, values, count = function.args
    null = ir.Constant(I8P, None)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    convert, run = function.append_basic_block("convert"), function.append_basic_block("run")
    wrong, fail = function.append_basic_block("wrong"), function.append_basic_block("fail")
    required = len(kinds) - optional
    b.cbranch(b.icmp_unsigned("<=", b.sub(count, I64(required)), I64(optional)), convert, wrong)
    b.position_at_end(wrong)
    counts = f"{required} to {len(kinds)}" if optional else f"{len(kinds)}"
    message = constant_string(module, f"{symbol}_message", f"{name} takes {counts} arguments")
    b.call(declare(module, "PyErr_SetString", ir.VoidType(), I8P, I8P),
           [constant(TypeError), message])
    b.branch(fail)
    b.position_at_end(convert)

    def converted(k, kind):
        value = b.load(b.gep(values, [I64(k)]))
        conversion = _CONVERSIONS[kind][1]
        if conversion is not None:
            value = b.call(declare(module, conversion[0], conversion[1], I8P), [value])
        return value

    arguments = []
    for k, kind in enumerate(kinds):
        if k < required:
            value = converted(k, kind)
        else:
            with b.if_else(b.icmp_unsigned(">", count, I64(k))) as (given, left_out):
                with given:
                    value_given, given_block = converted(k, kind), b.block
                with left_out:
                    left_out_block = b.block
            value = b.phi(value_given.type)
            value.add_incoming(value_given, given_block)
            value.add_incoming(ir.Constant(value_given.type, 0), left_out_block)
        arguments.append(b.trunc(value, I32) if kind == "int" else value)
    occurred = b.call(declare(module, "PyErr_Occurred", I8P), [])
    b.cbranch(b.icmp_unsigned("==", occurred, null), run, fail)
    b.position_at_end(run)
    b.ret(body(b, arguments))
    b.position_at_end(fail)
    b.ret(null)


def _constructor(module, cls, fields):
    """``new(*values)``: an instance of ``cls`` with the slots ``fields`` set to ``values``."""
    def body(b, values):
        instance = b.call(declare(module, "PyType_GenericAlloc", I8P, I8P, I64),
                          [constant(cls), I64(0)])
        incref = declare(module, "Py_IncRef", ir.VoidType(), I8P)
        with b.if_then(b.icmp_unsigned("!=", instance, ir.Constant(I8P, None))):
            for field, value in zip(fields, values):
                b.call(incref, [value])
                b.store(value, b.bitcast(b.gep(instance, [I64(slot_offset(cls, field))]),
                                         I8P.as_pointer()))
        return instance

    _fixed_arguments(module, "dlnumba_new_instance", f"{cls.__name__}._new",
                     ["object"] * len(fields), body)


def constructor(cls, fields):
    """A builtin ``new(*values)`` that makes a ``cls`` with its slots ``fields`` set to
    ``values`` (all of them, in order): what ``cls.__new__`` and one assignment per field do,
    in C."""
    library, address = compile_functions("dlnumba_constructor",
                                         lambda module: _constructor(module, cls, fields))
    return _builtin(address("dlnumba_new_instance"), "new",
                    _METH_FASTCALL, f"A {cls.__name__} with its fields set.", [library])


def c_builtin(address, name, kinds, doc, finish=None, extra=0):
    """A builtin that calls the C function at ``address`` (which returns a new reference, or
    NULL with an exception set) with its arguments converted by ``kinds``: ``"object"`` (the
    object itself), ``"bytes"`` (its ``char *``), ``"pointer"`` (an int as ``void *``),
    ``"ssize"`` and ``"int"`` (an int as ``Py_ssize_t`` or ``int``). A ctypes call does the
    same in about a microsecond more.

    ``finish(module, builder, result, arguments)``, if given, writes the IR that turns the C
    function's result into the builtin's; the last ``extra`` arguments go to it alone.
    """
    def build(module):
        passed = len(kinds) - extra
        target = ir.FunctionType(I8P, [_CONVERSIONS[kind][0] for kind in kinds[:passed]])

        def body(b, arguments):
            result = b.call(b.inttoptr(I64(address), target.as_pointer()), arguments[:passed])
            return result if finish is None else finish(module, b, result, arguments)

        _fixed_arguments(module, "dlnumba_c_builtin", name, kinds, body)

    library, pointer = compile_functions(f"dlnumba_{name}", build)
    return _builtin(pointer("dlnumba_c_builtin"), name, _METH_FASTCALL, doc, [library])


# The signatures c_caller serves: (count of int arguments, result, how many of the last may be
# left out, whether the GIL is released: True, False or both). All are compiled in one module,
# as the package imports (compile_callers): one LLVM compilation per process.
CALLER_SIGNATURES = (
    (5, "none", 1, (True, False)),  # the small-array walk; a large elementwise call's run
    (6, "ssize", 0, (True,)),  # take
    (6, "none", 0, (True, False)),  # small matmul
    (7, "none", 0, (True,)),  # a boolean mask's assignment (expand)
    (4, "ssize", 0, (True,)),  # a threaded call's hand-over (kernels.threads)
    (3, "none", 0, (True,)),  # running pieces and waiting for them (kernels.threads)
    (4, "none", 0, (True, False)),  # a fused expression's run (kernels.fused)
)


def _caller(module, count, result, optional, release):
    """Write a ``METH_FASTCALL`` function ``call(address, *arguments)`` for
    :func:`c_caller`; its symbol's name."""
    symbol = f"dlnumba_call_{count}_{result}_{optional}_{'released' if release else 'held'}"
    returned = ir.VoidType() if result == "none" else I64
    target = ir.FunctionType(returned, [I64] * count)

    def body(b, arguments):
        if release:
            state = b.call(declare(module, "PyEval_SaveThread", I8P), [])
        value = b.call(b.inttoptr(arguments[0], target.as_pointer()), arguments[1:])
        if release:
            b.call(declare(module, "PyEval_RestoreThread", ir.VoidType(), I8P), [state])
        if result == "ssize":
            return b.call(declare(module, "PyLong_FromSsize_t", I8P, I64), [value])
        b.call(declare(module, "Py_IncRef", ir.VoidType(), I8P), [constant(None)])
        return constant(None)

    _fixed_arguments(module, symbol, "call", ["ssize"] * (count + 1), body, optional)
    return symbol


def compile_callers():
    """Compile the builtins of :func:`c_caller` (once)."""
    _callers()


@functools.cache
def _callers():
    keys = [(count, result, optional, release)
            for count, result, optional, releases in CALLER_SIGNATURES for release in releases]
    symbols = {}
    library, address = compile_functions("dlnumba_callers", lambda module: symbols.update(
        {key: _caller(module, *key) for key in keys}))
    return {(count, result, optional, release): _builtin(
        address(symbols[count, result, optional, release]), "call", _METH_FASTCALL,
        f"call(address, *arguments): a C function of {count} ints returning {result}, called "
        f"with the GIL {'released' if release else 'held'}.", [library])
        for count, result, optional, release in keys}


def c_caller(count, result, optional=0, release=True):
    """A builtin ``call(address, *arguments)`` that calls the C function at ``address``, which
    takes ``count`` ints (``intptr_t``; the last ``optional`` ones 0 where left out) and returns
    nothing (``result="none"``: the call returns None) or an ``intptr_t`` (``"ssize"``: an int).
    The function must not touch Python objects. The GIL is released during the call, unless
    not ``release``: for work smaller than releasing and taking back the GIL.
    One builtin serves every function of a signature (pass ``functools.partial(call,
    address)``); the signatures are those of ``CALLER_SIGNATURES``."""
    try:
        return _callers()[count, result, optional, release]
    except KeyError:
        raise ValueError(f"no caller for {count} ints returning {result} ({optional} optional, "
                         f"release={release}); add it to CALLER_SIGNATURES") from None


def _copy_memory(module):
    """``copy_memory(destination, source, nbytes)``: ``memmove`` between two addresses."""
    def body(b, arguments):
        b.call(declare(module, "memmove", I8P, I8P, I8P, I64), arguments)
        b.call(declare(module, "Py_IncRef", ir.VoidType(), I8P), [constant(None)])
        return constant(None)

    _fixed_arguments(module, "dlnumba_copy_memory", "copy_memory",
                     ["pointer", "pointer", "ssize"], body)


def _leading_zeros(b, value):
    """The count of zero bits above the highest set bit of an ``i64`` (64 for 0)."""
    count = b.module.declare_intrinsic("llvm.ctlz", [I64],
                                       ir.FunctionType(I64, [I64, ir.IntType(1)]))
    return b.call(count, [value, ir.Constant(ir.IntType(1), 0)])


def _size_class_index(b, size, low_bit):
    """The index of a size class ``size`` of ``2**low_bit`` bytes or more among the size
    classes, eight per power of two (see :func:`host_allocator`)."""
    top = b.sub(I64(63), _leading_zeros(b, size))
    eighth = b.and_(b.lshr(size, b.sub(top, I64(3))), I64(7))
    return b.add(b.mul(b.sub(top, I64(low_bit)), I64(8)), eighth)


def _pool_release(module, pool, low_bit, limit, depth):
    """``release(capsule)``, the destructor of a large block's owner: the block (the capsule's
    context, its buffer object, at the capsule's pointer) goes back to the pool when its size
    class holds fewer than ``depth`` blocks and the pool stays within ``limit`` bytes, else its
    reference is dropped."""
    buffers, addresses, counts, pooled = pool
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [I8P]), "dlnumba_pool_release")
    b = ir.IRBuilder(function.append_basic_block("entry"))
    capsule = function.args[0]
    buffer = b.call(declare(module, "PyCapsule_GetContext", I8P, I8P), [capsule])
    address = b.call(declare(module, "PyCapsule_GetPointer", I8P, I8P, I8P),
                     [capsule, ir.Constant(I8P, None)])
    size = b.call(declare(module, "PyObject_Size", I64, I8P), [buffer])
    index = _size_class_index(b, size, low_bit)
    count_slot = b.gep(counts, [I64(0), index])
    count, held = b.load(count_slot), b.load(pooled)
    kept = b.and_(b.icmp_signed("<", count, I64(depth)),
                  b.icmp_signed("<=", b.add(held, size), I64(limit)))
    with b.if_else(kept) as (keep, drop):
        with keep:
            place = b.add(b.mul(index, I64(depth)), count)
            b.store(buffer, b.gep(buffers, [I64(0), place]))
            b.store(b.ptrtoint(address, I64), b.gep(addresses, [I64(0), place]))
            b.store(b.add(count, I64(1)), count_slot)
            b.store(b.add(held, size), pooled)
        with drop:
            b.call(declare(module, "Py_DecRef", ir.VoidType(), I8P), [buffer])
    b.ret_void()
    return function


def _pooled_block(module, b, pool, release, new_block, size, low_bit, depth, fail):
    """Write the IR that takes a block of ``size`` bytes (a size class) from the pool, or a new
    one from ``new_block(size)``, and makes its owner; returns the owner (a capsule, see
    :func:`_pool_release`) and the block's address (an ``i64``), or branches to ``fail``."""
    buffers, addresses, counts, pooled = pool
    decref = declare(module, "Py_DecRef", ir.VoidType(), I8P)
    buffer_slot, address_slot = b.alloca(I8P), b.alloca(I64)
    index = _size_class_index(b, size, low_bit)
    count_slot = b.gep(counts, [I64(0), index])
    count = b.load(count_slot)
    with b.if_else(b.icmp_signed(">", count, I64(0))) as (pooled_block, new):
        with pooled_block:
            count = b.sub(count, I64(1))
            place = b.add(b.mul(index, I64(depth)), count)
            b.store(b.load(b.gep(buffers, [I64(0), place])), buffer_slot)
            b.store(b.load(b.gep(addresses, [I64(0), place])), address_slot)
            b.store(count, count_slot)
            b.store(b.sub(b.load(pooled), size), pooled)
        with new:
            argument = b.alloca(I8P)
            b.store(b.call(declare(module, "PyLong_FromSsize_t", I8P, I64), [size]), argument)
            call = declare(module, "PyObject_Vectorcall", I8P, I8P, I8P.as_pointer(), I64, I8P)
            buffer = b.call(call, [constant(new_block), argument, I64(1),
                                   ir.Constant(I8P, None)])
            b.call(decref, [b.load(argument)])  # NULL (an error) when the int was not made
            b.store(buffer, buffer_slot)
            b.store(I64(0), address_slot)
            with b.if_then(b.icmp_unsigned("!=", buffer, ir.Constant(I8P, None))):
                b.store(b.ptrtoint(_buffer_pointer(module, b, buffer), I64), address_slot)
                with b.if_then(b.icmp_unsigned("==", b.load(address_slot), I64(0))):
                    b.call(decref, [buffer])
    made = b.function.append_basic_block("block_made")
    b.cbranch(b.icmp_unsigned("==", b.load(address_slot), I64(0)), fail, made)
    b.position_at_end(made)
    buffer, address = b.load(buffer_slot), b.load(address_slot)
    owner = b.call(declare(module, "PyCapsule_New", I8P, I8P, I8P, release.type),
                   [b.inttoptr(address, I8P), ir.Constant(I8P, None), release])
    owned, unowned = (b.function.append_basic_block(name) for name in ("owned", "unowned"))
    b.cbranch(b.icmp_unsigned("==", owner, ir.Constant(I8P, None)), unowned, owned)
    b.position_at_end(unowned)
    b.call(decref, [buffer])
    b.branch(fail)
    b.position_at_end(owned)
    b.call(declare(module, "PyCapsule_SetContext", I32, I8P, I8P), [owner, buffer])
    return owner, address


def _buffer_pointer(module, b, obj):
    """The ``char *`` of the first element of ``obj``'s buffer (PEP 3118); NULL, with an
    exception set, where it has none."""
    get = declare(module, "PyObject_GetBuffer", I32, I8P, I8P, I32)
    view = b.bitcast(b.alloca(ir.ArrayType(ir.IntType(8), ctypes.sizeof(PyBuffer))), I8P)
    pointer = b.alloca(I8P)
    b.store(ir.Constant(I8P, None), pointer)
    with b.if_then(b.icmp_signed(">=", b.call(get, [obj, view, I32(PyBUF_RECORDS_RO)]), I32(0))):
        b.store(b.load(buffer_field(b, view, "buf", I8P)), pointer)
        b.call(declare(module, "PyBuffer_Release", ir.VoidType(), I8P), [view])
    return b.load(pointer)


def _host_allocator(module, new_block, refuse, small, alignment, limit, depth):
    low_bit = small.bit_length() - 1
    classes = 8 * (62 - low_bit + 1)

    def table(name, kind, count):
        variable = ir.GlobalVariable(module, ir.ArrayType(kind, count), name)
        variable.initializer = ir.Constant(variable.type.pointee, None)
        return variable

    pooled = ir.GlobalVariable(module, I64, "dlnumba_pooled_bytes")
    pooled.initializer = I64(0)
    pool = (table("dlnumba_pool_buffers", I8P, classes * depth),
            table("dlnumba_pool_addresses", I64, classes * depth),
            table("dlnumba_pool_counts", I64, classes), pooled)
    release = _pool_release(module, pool, low_bit, limit, depth)

    function = ir.Function(module, ir.FunctionType(I8P, [I8P, I8P.as_pointer(), I64]),
                           "dlnumba_allocate_host")
    _, values, count = function.args
    null = ir.Constant(I8P, None)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    size_block, fail = function.append_basic_block("size"), function.append_basic_block("fail")
    small_block = function.append_basic_block("small")
    large_block = function.append_basic_block("large")
    refused = function.append_basic_block("refused")
    made = function.append_basic_block("made")
    b.cbranch(b.or_(b.icmp_unsigned("==", count, I64(1)), b.icmp_unsigned("==", count, I64(2))),
              size_block, refused)  # a wrong count: the Python function says so
    b.position_at_end(size_block)
    owner_slot, base_slot = b.alloca(I8P), b.alloca(I64)
    nbytes = b.call(declare(module, "PyLong_AsSsize_t", I64, I8P), [b.load(values)])
    occurred = b.call(declare(module, "PyErr_Occurred", I8P), [])
    size = b.add(nbytes, I64(alignment - 1))
    checked = function.append_basic_block("checked")
    b.cbranch(b.icmp_unsigned("!=", occurred, null), fail, checked)
    b.position_at_end(checked)
    sized = function.append_basic_block("sized")
    b.cbranch(b.and_(b.icmp_signed(">=", nbytes, I64(0)), b.icmp_signed("<", size, I64(1 << 62))),
              sized, refused)
    b.position_at_end(sized)
    b.cbranch(b.icmp_signed("<", size, I64(small)), small_block, large_block)

    b.position_at_end(small_block)
    buffer = b.call(declare(module, "PyByteArray_FromStringAndSize", I8P, I8P, I64), [null, size])
    small_made = function.append_basic_block("small_made")
    b.cbranch(b.icmp_unsigned("==", buffer, null), fail, small_made)
    b.position_at_end(small_made)
    data = b.call(declare(module, "PyByteArray_AsString", I8P, I8P), [buffer])
    b.store(buffer, owner_slot)
    b.store(b.ptrtoint(data, I64), base_slot)
    b.branch(made)

    b.position_at_end(large_block)
    step = b.shl(I64(1), b.sub(I64(60), _leading_zeros(b, size)))
    size_class = b.and_(b.add(size, b.sub(step, I64(1))), b.neg(step))
    owner, base = _pooled_block(module, b, pool, release, new_block, size_class, low_bit, depth,
                                fail)
    b.store(owner, owner_slot)
    b.store(base, base_slot)
    b.branch(made)

    b.position_at_end(made)
    aligned = b.and_(b.add(b.load(base_slot), I64(alignment - 1)), I64(-alignment))
    zero = b.icmp_unsigned("==", count, I64(2))
    with b.if_then(zero):
        zero = b.icmp_unsigned("==", b.call(declare(module, "PyObject_IsTrue", I32, I8P),
                                            [b.load(b.gep(values, [I64(1)]))]), I32(1))
        with b.if_then(zero):
            b.call(declare(module, "memset", I8P, I8P, I32, I64),
                   [b.inttoptr(aligned, I8P), I32(0), nbytes])
    address = b.call(declare(module, "PyLong_FromSsize_t", I8P, I64), [aligned])
    owner = b.load(owner_slot)
    result = b.call(declare(module, "PyTuple_Pack", I8P, I64, I8P, I8P),
                    [I64(2), address, owner])  # NULL (an error) when address is NULL
    decref = declare(module, "Py_DecRef", ir.VoidType(), I8P)
    with b.if_then(b.icmp_unsigned("!=", address, null)):
        b.call(decref, [address])
    b.call(decref, [owner])
    b.ret(result)

    b.position_at_end(refused)
    call = declare(module, "PyObject_Vectorcall", I8P, I8P, I8P.as_pointer(), I64, I8P)
    b.ret(b.call(call, [constant(refuse), values, count, null]))
    b.position_at_end(fail)
    b.ret(null)

    getter = ir.Function(module, ir.FunctionType(I8P, [I8P, I8P]), "dlnumba_pooled_bytes_get")
    b = ir.IRBuilder(getter.append_basic_block("entry"))
    b.ret(b.call(declare(module, "PyLong_FromSsize_t", I8P, I64), [b.load(pooled)]))


def host_allocator(new_block, refuse, small, alignment, limit, depth, doc):
    """A builtin ``allocate(nbytes, zero=False)`` that returns ``(address, owner)``, and one
    ``pooled_bytes()``: the bytes the pool holds.

    Sizes below ``small`` (a power of two; alignment included) get a bytearray, zero-filled
    only if ``zero``, and its address rounded up to ``alignment``. Larger sizes are rounded up
    to a multiple of an eighth of their power of two (12.5% more at most), their size class, and
    get a block of it: one freed before if the pool holds one (``depth`` per class, at
    most ``limit`` bytes in all), else ``new_block(size)``, an object with a buffer. Its owner
    is a capsule that gives the block back to the pool when it dies. The pool needs the GIL,
    which the builtin and a capsule's destructor hold. Arguments it cannot take, a wrong count
    or a size below 0 or that reaches ``2**62`` with the alignment, go to
    ``refuse(*arguments)``, which raises."""
    library, address = compile_functions(
        "dlnumba_allocate_host",
        lambda module: _host_allocator(module, new_block, refuse, small, alignment, limit,
                                       depth))
    return (_builtin(address("dlnumba_allocate_host"), "allocate_host", _METH_FASTCALL, doc,
                     [library, new_block, refuse]),
            _builtin(address("dlnumba_pooled_bytes_get"), "pooled_bytes", _METH_NOARGS,
                     "The bytes of freed large blocks that the host pool holds.", []))


def _make_core_builtins():
    def build(module):
        _buffer_address(module)
        _copy_memory(module)

    library, address = compile_functions("dlnumba_core_builtins", build)
    return (_builtin(address("dlnumba_buffer_address"), "buffer_address", _METH_O,
                     "The address of the first element of an object's buffer (PEP 3118).",
                     [library]),
            _builtin(address("dlnumba_copy_memory"), "copy_memory", _METH_FASTCALL,
                     "copy_memory(destination, source, nbytes): memmove between addresses "
                     "(without ctypes.memmove's conversions).", []))


buffer_address, copy_memory = _make_core_builtins()
