"""The small-array engine: one compiled walk over any layout, calling a compiled run function.

A first call should not wait for a large kernel to compile. Here the n-dimensional walk is one
function, compiled once (and cached on disk) for every operation and dtype. What each operation
and dtype compile is only a *run*: a C function over the innermost dimension of a layout,
``void run(n, a0, s0, a1, s1, a2, s2)``, with the addresses and byte strides of up to three
operands. The walk calls it through its address, once per innermost run. Runs are small, so
they compile in a fraction of the time of a vectorized kernel, which only large arrays use.
"""

import functools

import numpy as np
from llvmlite import ir

from .._native import c_caller
from .._numba import Deferred, carray, cgutils, defer, intrinsic, loaded, njit, overload, types
from .._shipped import c_function, note_call, shipped_call, shipped_entry

RUN = types.void(*[types.intp] * 7)
_ROWS = 4  # of a walk's layout: the shape, then the byte strides of three operands


@intrinsic
def odometer(typingctx, ndim):
    """A zeroed index of ``ndim`` int64 on the stack (``np.zeros`` would compile Numba's
    allocator into the kernel)."""
    def codegen(context, builder, signature, args):
        index = builder.alloca(ir.IntType(64), size=args[0])
        cgutils.memset(builder, index, builder.mul(args[0], args[0].type(8)), 0)
        return index

    return types.CPointer(types.int64)(types.intp), codegen


@intrinsic
def call_function(typingctx, address, arguments):
    """Call the C function ``void f(intptr_t, ...)`` at ``address`` with the ints of the tuple
    ``arguments`` (compiled only). The caller's code stays apart from the function's: neither
    is inlined into, nor compiled again with, the other."""
    count = len(arguments)

    def codegen(context, builder, signature, args):
        function_type = ir.FunctionType(ir.VoidType(), [ir.IntType(64)] * count)
        builder.call(builder.inttoptr(args[0], function_type.as_pointer()),
                     cgutils.unpack_tuple(builder, args[1], count))
        return context.get_dummy_value()

    return types.void(types.intp, arguments), codegen


@intrinsic
def _words(typingctx, address):
    """The int64 words at the integer ``address``, as a pointer."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())

    return types.CPointer(types.int64)(types.intp), codegen


@intrinsic
def elements(typingctx, array):
    """A pointer to the elements of a contiguous ``array``, for :func:`advance`'s shape and
    strides in a loop over many short rows: an array there is counted in and out at each step
    (two calls of Numba's runtime for each)."""
    def codegen(context, builder, signature, args):
        return context.make_array(array)(context, builder, args[0]).data

    return types.CPointer(array.dtype)(array), codegen


WALK = types.void(*[types.intp] * 5)


def _walk(run, layout, a0, a1, a2):
    """Call ``run`` on every innermost run of a layout: ``layout`` holds the number of
    dimensions (at least 2), then the shape and the byte strides of three operands at addresses
    ``a0``, ``a1``, ``a2`` (zeros for one that is not there)."""
    layout = _words(layout)
    ndim = layout[0]
    rows = carray(layout, 1 + _ROWS * ndim)
    shape, s0 = rows[1:1 + ndim], rows[1 + ndim:1 + 2 * ndim]
    s1, s2 = rows[1 + 2 * ndim:1 + 3 * ndim], rows[1 + 3 * ndim:]
    last = ndim - 1
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(ndim)
    for _ in range(outer):
        call_function(run, (shape[last], a0, s0[last], a1, s1[last], a2, s2[last]))
        a0, a1, a2 = advance(index, shape, last - 1, (a0, a1, a2), s0, s1, s2)


# Work on fewer elements (or multiply-adds) than this keeps the GIL, as NumPy's does: releasing
# and taking it back costs more than the work frees for other threads.
HELD_GIL_WORK = 512


@functools.cache
def _walk_address():
    """The address of :func:`_walk`, compiled (or loaded from Numba's cache) as a C function."""
    return compile_run(_walk, WALK)


def walk_function(run, layout):
    """``call(a0, a1, a2=0)``: the walk over ``layout`` (from :func:`byte_layout`, which the
    caller keeps alive) that calls the run at address ``run`` on operands at ``a0``, ``a1``,
    ``a2``, with the GIL released (held below ``HELD_GIL_WORK`` elements). A builtin: no Python
    frame and no Numba dispatch between a small call and its run."""
    release = int(np.prod(layout[1:1 + layout[0]])) >= HELD_GIL_WORK
    return functools.partial(c_caller(5, "none", optional=1, release=release), _walk_address(),
                             run, layout.ctypes.data)


ENTRY_POINTS = []  # every njit function that Python calls: what the build ships


def entry_point(prepare=None, **options):
    """``numba.njit(cache=True, nogil=True, **options)`` for a kernel that Python calls. For
    argument types it has no compiled function for, it first takes the one the shipped object
    holds (:func:`.._shipped.shipped_entry`), and compiles only what is not shipped.
    ``prepare()``, if given, runs before that: it provides what the compiled code calls."""
    def decorate(function):
        def make():
            dispatcher = njit(cache=True, nogil=True, **options)(function)  # Numba is loaded
            # Numba's dispatcher looks this method up on the instance when no compiled function
            # fits the arguments
            dispatcher._compile_for_args = functools.partial(_shipped_or_compiled, dispatcher)
            dispatcher.prepare = prepare or _nothing_to_prepare
            return dispatcher

        entry = defer(make, function, _EntryPoint, prepare=prepare or _nothing_to_prepare)
        ENTRY_POINTS.append(entry)
        return entry

    return decorate


class _EntryPoint(Deferred):
    """An njit function that Python calls, before Numba is loaded: a call whose argument types
    the shipped object holds runs the shipped function, and any other call loads Numba."""

    def __call__(self, *arguments, **keywords):
        if not keywords and not loaded():
            shipped = shipped_call(self.py_func, arguments, self.prepare)
            if shipped is not None:
                return shipped(*arguments)
        return self.real(*arguments, **keywords)


def _nothing_to_prepare():
    pass


def _shipped_or_compiled(dispatcher, *arguments, **keywords):
    dispatcher.prepare()
    signature = tuple(dispatcher.typeof_pyval(a) for a in arguments)
    note_call(dispatcher.py_func, signature, arguments)
    return shipped_entry(dispatcher, signature) or type(dispatcher)._compile_for_args(
        dispatcher, *arguments, **keywords)


def compiled_for(dispatcher, *arguments):
    """The compiled function that ``dispatcher(*arguments)`` runs: shipped, or compiled (or
    loaded from the cache) now. Called with arguments of the same Numba types, it skips
    Numba's dispatch, which types every argument on every call."""
    if not loaded():
        shipped = shipped_call(dispatcher.py_func, arguments, dispatcher.prepare)
        if shipped is not None:
            return shipped
    signature = tuple(dispatcher.typeof_pyval(a) for a in arguments)
    note_call(dispatcher.py_func, signature, arguments)
    if signature not in dispatcher.overloads:
        dispatcher.prepare()
        shipped = shipped_entry(dispatcher, signature)
        if shipped is not None:
            return shipped
        dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


class Direct(dict):
    """``dispatcher`` called without Numba's dispatch: ``direct(key, *arguments)`` runs the
    compiled function found (by :func:`compiled_for`) on the first call with ``key``, and kept
    in this dict under it. The key must fix the Numba type of every argument: a compiled
    function unboxes what it is given as the types it was compiled for. The hottest callers
    skip this call's frame: ``(direct.get(key) or direct.entry(key, arguments))(*arguments)``."""

    def __init__(self, dispatcher):
        super().__init__()
        self.dispatcher = dispatcher

    def entry(self, key, arguments):
        """The compiled function for ``key``, found for ``arguments`` on first use."""
        run = self[key] = compiled_for(self.dispatcher, *arguments)
        return run

    def __call__(self, key, *arguments):
        return (self.get(key) or self.entry(key, arguments))(*arguments)


def advance(index, shape, top, offsets, s0, s1=None, s2=None, s3=None):
    """Step the odometer ``index`` over dimensions ``top``, ``top - 1``, ..., 0 of ``shape``
    (the last changing fastest) and move the offsets of up to four operands with it:
    ``offsets`` is a tuple of their offsets, ``s0``, ``s1``, ... their strides; returns the
    new offsets (compiled only; inlined, with one register per offset)."""


@overload(advance, inline="always")
def _advance_overload(index, shape, top, offsets, s0, s1=None, s2=None, s3=None):
    return _advance_for(len(offsets))


@functools.cache
def _advance_for(operands):
    """:func:`advance` written out for ``operands`` offsets."""
    offsets = [f"a{k}" for k in range(operands)]
    strides = [f"s{k}" for k in range(operands)]
    lines = ["def advance(index, shape, top, offsets, s0, s1=None, s2=None, s3=None):",
             f"    {', '.join(offsets)}, = offsets",
             "    d = top",
             "    while d >= 0:",
             "        index[d] += 1",
             *[f"        {a} += {s}[d]" for a, s in zip(offsets, strides)],
             "        if index[d] < shape[d]:",
             "            break",
             *[f"        {a} -= {s}[d] * shape[d]" for a, s in zip(offsets, strides)],
             "        index[d] = 0",
             "        d -= 1",
             f"    return {', '.join(offsets)},"]
    namespace = {}
    exec("\n".join(lines), namespace)
    return namespace["advance"]


def compile_run(function, signature=RUN):
    """The address of ``function`` compiled as a C function of ``signature`` (by default a run),
    loaded from Numba's cache if it is there.

    ``function`` may be a closure over dtypes, numbers and bools: Numba's cache keys on them (a
    dispatcher there would make a new key in every process). The compiled function stays alive
    as long as the process: callers keep only its address. It must not raise. A kernel that
    dlnumba ships compiled (:mod:`.._shipped`) is not compiled again."""
    return c_function(function, signature, error_model="numpy")


def compile_call(function, count, result):
    """``function`` of ``count`` ints, compiled (or loaded from Numba's cache) as a C function
    returning nothing (``result="none"``) or an int (``"ssize"``); and ``call(*ints)``, which
    calls it with the GIL released, as a builtin: no Numba dispatch. ``function`` is as for
    :func:`compile_run`."""
    returned = types.void if result == "none" else types.intp
    address = compile_run(function, returned(*[types.intp] * count))
    return functools.partial(c_caller(count, result), address)


def byte_layout(plan, itemsizes, run_stride=0):
    """A walk's layout for a plan (:mod:`.plan`) of operands with ``itemsizes`` (two or three);
    with two, every run gets ``run_stride`` as its third stride."""
    ndim = plan.shape.size
    layout = np.zeros(1 + _ROWS * ndim, np.int64)
    rows = layout[1:].reshape(_ROWS, ndim)
    layout[0] = ndim
    rows[0] = plan.shape
    for k, (strides, size) in enumerate(zip(plan.strides, itemsizes)):
        rows[k + 1] = strides * size
    rows[3, -1] += run_stride
    return layout
