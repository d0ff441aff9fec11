"""The CPU backend's threads: workers that run a kernel's pieces on both cores, and the sizes
above which that pays.

:func:`run_in_parallel` hands Python calls to the engine's threads. :func:`run_pieces` runs the
pieces of a C function instead: each thread takes its next piece with an atomic counter in
compiled code, so no Python and no GIL stand between one piece and the next. A thread that has
run pieces then waits a moment for more in compiled code (spinning, as OpenMP's threads do), so
that the next call's pieces start on it at once; Python work for the threads ends that wait.
"""

import _thread
import functools
import itertools
import os
import platform
import queue
import threading
import time

import numpy as np
from llvmlite import ir

from .._memory import ALIGNMENT, allocate_host, numpy_view
from .._native import buffer_address
from .._numba import cgutils, intrinsic, njit, types

from .walk import call_function, compile_call


def _thread_count():
    """Numba's thread count, read as Numba reads it: ``NUMBA_NUM_THREADS``, else the CPUs
    this process may run on."""
    try:
        return max(1, int(os.environ["NUMBA_NUM_THREADS"]))
    except (KeyError, ValueError):
        pass
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


# Both cores pay off for tiled transposes and for float16/bfloat16 conversions; a streaming
# copy or cast is bound by memory bandwidth, which one core saturates here (a second one made
# it slower), so it stays on one thread.
PARALLEL_BYTES = 1 << 21
# Below this many elements, calls run the small-array engine (.walk), which compiles in a
# fraction of the time of the vectorized kernels and is as quick where the call's overhead rules.
VECTORIZED_SIZE = 1 << 14
THREADS = _thread_count()
# A large call's pieces for run_pieces: more than threads, taken by whichever thread is free, so
# that a thread the shared machine slows takes fewer of them.
PIECES = 4 * THREADS
# How long a thread that ran pieces waits for more in compiled code before it sleeps.
SPIN_NANOSECONDS = 500_000
_engine = None  # (task queue, helper slots, slots' address, pending count), made on first use
_starting = threading.Lock()


def _forget_engine_threads():
    global _engine, _starting
    _engine, _starting = None, threading.Lock()  # a forked child has none of its parent's threads


os.register_at_fork(after_in_child=_forget_engine_threads)


def _serve(tasks, slots, k, pending):
    slot = slots.ctypes.data + 8 * k  # the arrays stay alive while the thread waits on them
    while True:
        work, done, errors = tasks.get()
        pending[0] -= 1  # under the GIL, as every change of it
        if done is None:  # a pieces' state: run pieces, then wait for more in compiled code
            _runners().help(work.ctypes.data, slot, pending.ctypes.data)
            continue
        try:
            work()
        except BaseException as error:  # handed to the caller, which raises it
            errors.append(error)
        finally:
            done.release()


def _started_engine():
    """The engine: its queue of tasks, one slot word per thread (how :func:`run_pieces` reaches
    a waiting thread) and the count of tasks queued but not yet taken; its threads are started
    on the first call."""
    global _engine
    with _starting:
        if _engine is None:
            tasks, pending = queue.SimpleQueue(), np.zeros(1, np.int64)
            slots = np.zeros(max(THREADS - 1, 1), np.int64)
            for k in range(THREADS - 1):
                threading.Thread(target=_serve, args=(tasks, slots, k, pending),
                                 name="dlnumba-kernels", daemon=True).start()
            _engine = tasks, slots, slots.ctypes.data, pending
    return _engine


def rows_apart(rows):
    """A copy of the 2-d array ``rows`` in which each row starts a cache line of its own.

    Threads that each update their row many times (a radix sort's offsets) need it: a line
    that two rows share would move between their cores at each update.
    """
    line = ALIGNMENT // rows.itemsize  # a cache line's items
    count, width = rows.shape
    padded = -(-width // line) * line
    address, owner = allocate_host(count * padded * rows.itemsize)
    apart = numpy_view(address, (count, padded), (padded, 1), rows.dtype, False, owner)
    apart[:, :width] = rows
    return apart[:, :width]


def run_in_parallel(kernel, calls):
    """Run ``kernel(*args)`` for each argument tuple on this thread and the engine's threads,
    each thread taking the next tuple as soon as it is free (more tuples than threads balance a
    thread that the machine slows); return the results in the order of ``calls``."""
    if len(calls) == 1:  # the engine may have no threads (NUMBA_NUM_THREADS=1)
        return [kernel(*calls[0])]
    tasks, _, _, pending = _engine if _engine is not None else _started_engine()
    results, order, count = [None] * len(calls), itertools.count(), len(calls)

    def work():
        while (i := next(order)) < count:  # next() on a count is atomic
            results[i] = kernel(*calls[i])

    waits, errors = [], []
    helpers = min(THREADS, count) - 1
    pending[0] += helpers  # ends the threads' wait for pieces
    for _ in range(helpers):
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

PIECE = types.void(types.intp, types.intp)  # a piece's C signature: piece(words, k)
WORD = np.dtype(np.int64)  # the type of a piece's words, as _typed_pointer reads them
# A pieces' state: these words, then the pieces' own. A thread's slot holds _IDLE (not waiting
# in compiled code), _WAITING, _BUSY (running pieces it was handed there) or a state's address.
# From _TAKEN on, a word per part counts the pieces taken from the part's front (its low half)
# and from its back (its high half).
_COUNT, _ARRIVED, _DONE, _PIECE, _POSTED, _LEFT, _PARTS, _TAKEN = range(8)
_MAX_PARTS = 8
RUNNER_WORDS = _TAKEN + _MAX_PARTS
_FROM_BACK = 1 << 32
_IDLE, _WAITING, _BUSY = 0, 1, 2
_WORDS = ir.IntType(64).as_pointer()


@intrinsic
def _fetch_add(typingctx, address, value):
    """Add ``value`` to the int64 at ``address`` atomically; its value before."""
    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", builder.inttoptr(args[0], _WORDS), args[1], "seq_cst")

    return types.int64(types.intp, types.int64), codegen


@intrinsic
def _exchange_if(typingctx, address, expected, value):
    """Set the int64 at ``address`` to ``value`` if it holds ``expected``, atomically; whether
    it did."""
    def codegen(context, builder, signature, args):
        pair = builder.cmpxchg(builder.inttoptr(args[0], _WORDS), args[1], args[2], "seq_cst",
                               "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(types.intp, types.int64, types.int64), codegen


@intrinsic
def _load(typingctx, address):
    """The int64 at ``address``, with every write made before another thread stored it."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(builder.inttoptr(args[0], _WORDS), "acquire", 8)

    return types.int64(types.intp), codegen


@intrinsic
def _store(typingctx, address, value):
    """Store ``value`` at ``address``, after every write made before it."""
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[1], builder.inttoptr(args[0], _WORDS), "release", 8)
        return context.get_dummy_value()

    return types.void(types.intp, types.int64), codegen


@intrinsic
def _pause(typingctx):
    """A spinning thread's hint to the core (x86 ``pause``; nothing elsewhere)."""
    def codegen(context, builder, signature, args):
        if platform.machine() in ("x86_64", "AMD64"):
            builder.call(cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def _nanoseconds(typingctx):
    """The monotonic clock (``clock_gettime``), in nanoseconds."""
    def codegen(context, builder, signature, args):
        timespec = cgutils.alloca_once(builder, ir.ArrayType(ir.IntType(64), 2))
        clock = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), _WORDS]),
            "clock_gettime")
        builder.call(clock, [ir.Constant(ir.IntType(32), time.CLOCK_MONOTONIC),
                             builder.bitcast(timespec, _WORDS)])
        seconds, nanoseconds = (builder.load(builder.gep(timespec, [ir.Constant(
            ir.IntType(32), 0), ir.Constant(ir.IntType(32), k)])) for k in (0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(ir.IntType(64), 10**9)), nanoseconds)

    return types.int64(), codegen


@njit(nogil=True)
def _drain(state):
    """Run the state's pieces until none is left. The pieces split into ``parts`` runs of
    consecutive ones; the n-th thread to arrive takes its part's pieces from the front, then
    the other parts' from the back. Threads that keep pace each stream through one part, and
    one that finishes first takes the pieces furthest from where the others read."""
    count, piece, parts = _load(state), _load(state + 8 * _PIECE), _load(state + 8 * _PARTS)
    size = count // parts
    home = _fetch_add(state + 8 * _ARRIVED, 1) % parts
    for j in range(parts):
        part, back = (home + j) % parts, j > 0
        while True:
            taken = _fetch_add(state + 8 * (_TAKEN + part), _FROM_BACK if back else 1)
            front, behind = taken % _FROM_BACK, taken // _FROM_BACK
            if front + behind >= size:
                break
            k = part * size + (size - 1 - behind if back else front)
            call_function(piece, (state + 8 * RUNNER_WORDS, k))
            _fetch_add(state + 8 * _DONE, 1)


def _offer(state, slots, threads, wanted):
    """Hand ``state`` to up to ``wanted`` of the threads waiting in compiled code; how many."""
    offered = posted = 0
    for k in range(min(threads, 63)):  # the threads handed it, as bits of one word
        if offered < wanted and _exchange_if(slots + 8 * k, _WAITING, state):
            offered += 1
            posted |= 1 << k
    _store(state + 8 * _POSTED, posted)
    return offered


def _finish(state, slots, threads):
    """Run pieces until none is left, wait for those other threads took, and take back the
    state from the slots no thread took it from (after which no thread reads it)."""
    _drain(state)
    count = _load(state)
    while _load(state + 8 * _DONE) < count:
        _pause()
    posted, taken = _load(state + 8 * _POSTED), 0
    for k in range(min(threads, 63)):
        if posted >> k & 1 and not _exchange_if(slots + 8 * k, state, _WAITING):
            taken += 1
    while _load(state + 8 * _LEFT) < taken:
        _pause()


def _help(state, slot, pending):
    """A thread's part: run the pieces of ``state`` (if any), then wait at ``slot`` for more,
    running what is handed to it there, until SPIN_NANOSECONDS pass without any or Python work
    is queued (``pending``)."""
    if state:
        _drain(state)
    _store(slot, _WAITING)
    deadline, spins = _nanoseconds() + SPIN_NANOSECONDS, 0
    while True:
        handed = _load(slot)
        if handed > _BUSY:
            if _exchange_if(slot, handed, _BUSY):
                _drain(handed)
                _fetch_add(handed + 8 * _LEFT, 1)  # the last access to that state
                _store(slot, _WAITING)
                deadline = _nanoseconds() + SPIN_NANOSECONDS
            continue
        spins += 1
        if spins % 64 == 0 and (_load(pending) > 0 or _nanoseconds() > deadline):
            if _exchange_if(slot, _WAITING, _IDLE):
                return
            continue  # a state was handed over meanwhile
        _pause()


class _Runners:
    """The compiled runners, as builtins that release the GIL."""

    def __init__(self):
        self.offer = compile_call(_offer, 4, "ssize")
        self.finish = compile_call(_finish, 3, "none")
        self.help = compile_call(_help, 3, "none")


_runners = functools.cache(_Runners)


def pieces_state(piece, count, words):
    """The state :func:`run_pieces` takes to run ``count`` pieces of the C function ``piece``
    (``void piece(intptr_t words, intptr_t k)``, which must not raise): an int64 array, the
    runner's words and then ``words``, the pieces' own, whose address each piece gets.

    Where the threads (at most ``_MAX_PARTS``) divide ``count``, each one streams through its
    own part of the pieces and then helps with the others' from their ends (:func:`_drain`):
    two threads stream from memory faster from two places far apart, as PyTorch's static
    halves do, when the machine's memory is not busy, and the pieces still balance a thread
    the machine slows."""
    parts = THREADS if THREADS <= _MAX_PARTS and count % THREADS == 0 else 1
    return np.array([count, 0, 0, piece, 0, 0, parts, *[0] * _MAX_PARTS, *words], np.int64)


def run_pieces(state):
    """Run every piece of ``state`` (:func:`pieces_state`, used once) on this thread and the
    engine's threads, each taking the next piece as soon as it is free."""
    runners = _runners()
    address, helpers = buffer_address(state), min(THREADS, int(state[_COUNT])) - 1
    if helpers <= 0:
        runners.finish(address, 0, 0)
        return
    tasks, slots, slots_address, pending = _engine if _engine is not None else _started_engine()
    missing = helpers - runners.offer(address, slots_address, slots.size, helpers)
    if missing:
        pending[0] += missing
        for _ in range(missing):
            tasks.put((state, None, None))  # the queue keeps the state alive for a late thread
    runners.finish(address, slots_address, slots.size)
