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
from numba import cfunc, njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

RUN = types.void(*[types.intp] * 7)
_OPERANDS = 3  # rows of strides in a walk's layout
_RUNS = []  # every run compiled in this process


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
def _call_run(typingctx, run, n, a0, s0, a1, s1, a2, s2):
    """Call the run function at address ``run``."""
    def codegen(context, builder, signature, args):
        function_type = ir.FunctionType(ir.VoidType(), [ir.IntType(64)] * 7)
        builder.call(builder.inttoptr(args[0], function_type.as_pointer()), list(args[1:]))
        return context.get_dummy_value()

    return types.void(*[types.intp] * 8), codegen


@njit(cache=True, nogil=True)
def walk(run, layout, a0, a1, a2):
    """Call ``run`` on every innermost run of a layout: ``layout``'s rows are the shape and the
    byte strides of three operands at addresses ``a0``, ``a1``, ``a2`` (zeros for one that is
    not there), at least 2-D."""
    shape, s0, s1, s2 = layout[0], layout[1], layout[2], layout[3]
    last = shape.size - 1
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    for _ in range(outer):
        _call_run(run, shape[last], a0, s0[last], a1, s1[last], a2, s2[last])
        a0, a1, a2 = advance(index, shape, last - 1, (a0, a1, a2), s0, s1, s2)


def entry_point(dispatcher, *arguments):
    """The compiled function that ``dispatcher(*arguments)`` runs, compiled (or loaded from
    the cache) now. Called with arguments of the same Numba types, it skips Numba's dispatch,
    which types every argument on every call."""
    signature = tuple(dispatcher.typeof_pyval(a) for a in arguments)
    if signature not in dispatcher.overloads:
        dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


class Direct(dict):
    """``dispatcher`` called without Numba's dispatch: ``direct(key, *arguments)`` runs the
    compiled function found (by :func:`entry_point`) on the first call with ``key``, and kept
    in this dict under it. The key must fix the Numba type of every argument: a compiled
    function unboxes what it is given as the types it was compiled for. The hottest callers
    skip this call's frame: ``(direct.get(key) or direct.entry(key, arguments))(*arguments)``."""

    def __init__(self, dispatcher):
        super().__init__()
        self.dispatcher = dispatcher

    def entry(self, key, arguments):
        """The compiled function for ``key``, found for ``arguments`` on first use."""
        run = self[key] = entry_point(self.dispatcher, *arguments)
        return run

    def __call__(self, key, *arguments):
        return (self.get(key) or self.entry(key, arguments))(*arguments)


@functools.cache
def walk_entry():
    """:func:`walk`'s :func:`entry_point`: its argument types never change (a run's address,
    an int64 layout, three addresses)."""
    return entry_point(walk, 0, np.zeros((2, 2), np.int64), 0, 0, 0)


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


def compile_run(function):
    """The address of ``function`` compiled as a run (loaded from Numba's cache if it is there).

    ``function`` may be a closure over dtypes, numbers and bools: Numba's cache keys on them (a
    dispatcher there would make a new key in every process). The compiled run stays alive as
    long as the process: walks call it by its address."""
    compiled = cfunc(RUN, cache=True, error_model="numpy")(function)
    _RUNS.append(compiled)
    return compiled.address


def byte_layout(plan, itemsizes):
    """A walk's layout for a plan (:mod:`.plan`) of operands with ``itemsizes``."""
    layout = np.zeros((_OPERANDS + 1, plan.shape.size), np.int64)
    layout[0] = plan.shape
    for k, (strides, size) in enumerate(zip(plan.strides, itemsizes)):
        layout[k + 1] = strides * size
    return layout
