"""The CPU backend's threads: a pool that runs a kernel's pieces on both cores, and the sizes
above which that pays."""

import concurrent.futures
import os

import numba

# Both cores pay off for tiled transposes and for float16/bfloat16 conversions; a streaming
# copy or cast is bound by memory bandwidth, which one core saturates here (a second measured
# 5-8% slower), so it stays on one thread.
PARALLEL_BYTES = 1 << 21
# Below this many elements, calls run the small-array engine (.walk), which compiles in a
# fraction of the time of the vectorized kernels and is as quick where the call's overhead rules.
VECTORIZED_SIZE = 1 << 14
THREADS = numba.config.NUMBA_NUM_THREADS
_pool = None


def _forget_engine_threads():
    global _pool
    _pool = None  # a forked child has none of its parent's threads


os.register_at_fork(after_in_child=_forget_engine_threads)


def run_in_parallel(kernel, calls):
    """Run ``kernel(*args)`` for each argument tuple, the first on this thread and the others
    on the engine's threads; return their results when all are done."""
    global _pool
    if len(calls) == 1:  # the engine may have no threads (NUMBA_NUM_THREADS=1)
        return [kernel(*calls[0])]
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(THREADS - 1, "dlnumba-kernels")
    running = [_pool.submit(kernel, *args) for args in calls[1:]]
    try:
        first = kernel(*calls[0])
    finally:
        results = [call.result() for call in running]
    return [first, *results]
