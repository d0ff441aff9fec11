"""The CPU backend's threads: workers that run a kernel's pieces on both cores, and the sizes
above which that pays.

:func:`run_in_parallel` hands Python calls to the threads. :func:`run_pieces` runs the pieces of
a C function instead: each thread takes the next piece from a shared counter in compiled code,
so no Python and no GIL stand between one piece and the next.
"""

import _thread
import functools
import itertools
import os
import platform
import queue
import threading

import numba
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .walk import compile_call

# Both cores pay off for tiled transposes and for float16/bfloat16 conversions; a streaming
# copy or cast is bound by memory bandwidth, which one core saturates here (a second measured
# 5-8% slower), so it stays on one thread.
PARALLEL_BYTES = 1 << 21
# Below this many elements, calls run the small-array engine (.walk), which compiles in a
# fraction of the time of the vectorized kernels and is as quick where the call's overhead rules.
VECTORIZED_SIZE = 1 << 14
THREADS = numba.config.NUMBA_NUM_THREADS
_tasks = None  # what the engine's threads take work from: (work, done lock, errors)
_starting = threading.Lock()


def _forget_engine_threads():
    global _tasks, _starting
    _tasks, _starting = None, threading.Lock()  # a forked child has none of its parent's threads


os.register_at_fork(after_in_child=_forget_engine_threads)


def _serve(tasks):
    while True:
        work, done, errors = tasks.get()
        try:
            work()
        except BaseException as error:  # handed to the caller, which raises it
            errors.append(error)
        finally:
            if done is not None:
                done.release()


def _engine_tasks():
    """The engine's queue of tasks, its threads started on the first call."""
    global _tasks
    with _starting:
        if _tasks is None:
            _tasks = queue.SimpleQueue()
            for _ in range(THREADS - 1):
                threading.Thread(target=_serve, args=(_tasks,), name="dlnumba-kernels",
                                 daemon=True).start()
    return _tasks


def run_in_parallel(kernel, calls):
    """Run ``kernel(*args)`` for each argument tuple on this thread and the engine's threads,
    each thread taking the next tuple as soon as it is free (more tuples than threads balance a
    thread that the machine slows); return the results in the order of ``calls``."""
    if len(calls) == 1:  # the engine may have no threads (NUMBA_NUM_THREADS=1)
        return [kernel(*calls[0])]
    tasks = _tasks if _tasks is not None else _engine_tasks()
    results, order, count = [None] * len(calls), itertools.count(), len(calls)

    def work():
        while (i := next(order)) < count:  # next() on a count is atomic
            results[i] = kernel(*calls[i])

    waits, errors = [], []
    for _ in range(min(THREADS, count) - 1):
        done = _thread.allocate_lock()
        done.acquire()
        tasks.put((work, done, errors))
        waits.append(done)
    try:
        work()
    finally:
        for done in waits:
            done.acquire()
    if errors:
        raise errors[0]
    return results


# ---- pieces run in compiled code ----

_WORDS = ir.IntType(64).as_pointer()
PIECE = types.void(types.intp, types.intp)  # a piece's C signature: piece(state, k)
_NEXT, _DONE = 8, 16  # byte offsets, in a pieces' state, of the next piece and the count done


@intrinsic
def _fetch_add(typingctx, address, value):
    """Add ``value`` to the int64 at ``address`` atomically; its value before."""
    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", builder.inttoptr(args[0], _WORDS), args[1], "seq_cst")

    return types.int64(types.intp, types.int64), codegen


@intrinsic
def _load_acquire(typingctx, address):
    """The int64 at ``address``, read after every write another thread made before it wrote
    that value."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(builder.inttoptr(args[0], _WORDS), "acquire", 8)

    return types.int64(types.intp), codegen


@intrinsic
def _call_piece(typingctx, piece, state, k):
    """Call the C function ``void piece(state, k)`` at address ``piece``."""
    def codegen(context, builder, signature, args):
        function = ir.FunctionType(ir.VoidType(), [ir.IntType(64)] * 2)
        builder.call(builder.inttoptr(args[0], function.as_pointer()), list(args[1:]))
        return context.get_dummy_value()

    return types.void(types.intp, types.intp, types.intp), codegen


@intrinsic
def _pause(typingctx):
    """A spinning thread's hint to the core (x86 ``pause``; nothing elsewhere)."""
    def codegen(context, builder, signature, args):
        if platform.machine() in ("x86_64", "AMD64"):
            builder.call(cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()

    return types.void(), codegen


@njit(nogil=True)
def _drain(piece, state):
    count = _load_acquire(state)
    while True:
        k = _fetch_add(state + _NEXT, 1)
        if k >= count:
            return
        _call_piece(piece, state, k)
        _fetch_add(state + _DONE, 1)


def _help(piece, state):
    """Run pieces until none is left."""
    _drain(piece, state)


def _run(piece, state):
    """Run pieces until none is left, then wait for those other threads took."""
    _drain(piece, state)
    count = _load_acquire(state)
    while _load_acquire(state + _DONE) < count:
        _pause()


@functools.cache
def _runners():
    return compile_call(_run, 2, "none"), compile_call(_help, 2, "none")


def _helping(help_call, piece, state):
    help_call(piece, state.ctypes.data)


def run_pieces(piece, state):
    """Run ``piece(address of state, k)`` for each ``k`` below ``state[0]``, on this thread and
    the engine's threads, each taking the next piece as soon as it is free.

    ``piece`` is the address of a C function ``void piece(intptr_t state, intptr_t k)`` that
    does not raise; ``state`` is an int64 array: the count of pieces, two zeros (the runners'
    counters), then whatever the pieces read."""
    run, help_call = _runners()
    helpers = min(THREADS, int(state[0])) - 1
    if helpers > 0:
        tasks = _tasks if _tasks is not None else _engine_tasks()
        work = functools.partial(_helping, help_call, piece, state)  # keeps state alive
        for _ in range(helpers):
            tasks.put((work, None, None))
    run(piece, state.ctypes.data)
