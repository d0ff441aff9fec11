"""The CPU backend's threads: workers that run a kernel's pieces on both cores, and the sizes
above which that pays."""

import _thread
import itertools
import os
import queue
import threading

import numba

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
