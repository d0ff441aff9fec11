"""Threads: concurrent DLPack exchanges, kernels and frees, and deleters run from any thread.

Leaks are checked by counting, not by RSS (robust on a busy machine): every forged capsule's
deleter must have run exactly once, and every exported dlnumba array must be dead, after the
threads end.
"""

import ctypes
import gc
import queue
import threading
import time
import traceback
import weakref

import numpy as np
import pytest
import torch

import dlnumba as xp

from dlpack_forge import Forged, PyCapsule_GetPointer

THREADS = 8
SECONDS = 3.0  # each thread works this long; the whole test takes about as long

_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
_USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


def collect():
    gc.collect()
    gc.collect()


def exchange_once(seed, exported, forged):
    """One round of every kind of work on values derived from ``seed``; raises on a mismatch."""
    a = np.arange(seed % 7, seed % 7 + 64, dtype=np.float64).reshape(8, 8)
    x = xp.from_dlpack(a)                              # numpy -> dlnumba
    y = x.T + 1.0                                      # a kernel on a strided view
    expected = a.T + 1.0
    np.testing.assert_array_equal(np.from_dlpack(y), expected)         # dlnumba -> numpy
    t = torch.from_dlpack(y[::2])                      # dlnumba -> torch
    z = xp.from_dlpack(torch.utils.dlpack.to_dlpack(t * 2))  # torch legacy capsule -> dlnumba
    np.testing.assert_array_equal(np.asarray(z), expected[::2] * 2)
    c = xp.asarray(z, copy=True)                       # a copy kernel
    assert float(xp.sum(c)) == float((expected[::2] * 2).sum())
    back = xp.from_dlpack(c.__dlpack__(max_version=(1, 3)))  # dlnumba -> dlnumba
    np.testing.assert_array_equal(np.asarray(back), np.asarray(c))
    c.__dlpack__()                                     # a capsule dropped unconsumed
    exported.append(weakref.ref(y))
    exported.append(weakref.ref(c))
    f = Forged(np.full(5, seed, dtype=np.int64), versioned=seed % 2 == 0)
    forged.append(f)
    w = xp.from_dlpack(f.capsule)
    assert int(xp.sum(w)) == 5 * seed


def test_threads_exchange_concurrently():
    """8 threads export, import, compute, copy and free for a few seconds: right values every
    time, no crash, nothing left alive afterwards (every deleter ran once)."""
    errors, counts = [], [0] * THREADS
    exported, forged = [[] for _ in range(THREADS)], [[] for _ in range(THREADS)]
    start = threading.Barrier(THREADS)

    def work(index):
        try:
            start.wait()
            end = time.monotonic() + SECONDS
            seed = index
            while time.monotonic() < end:
                exchange_once(seed, exported[index], forged[index])
                counts[index] += 1
                seed += THREADS
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, "".join(traceback.format_exception(errors[0]))
    assert all(counts), counts
    collect()
    assert all(ref() is None for refs in exported for ref in refs)
    for f in (f for fs in forged for f in fs):
        assert f.calls == [f.managed_address]
        f.forget()
    print(f"\n{sum(counts)} rounds in {THREADS} threads over {SECONDS} s")


def test_import_freed_on_another_thread():
    """An import made on one thread and dropped on another runs the producer's deleter once."""
    handoff = queue.Queue()
    forged = [Forged(np.arange(4), versioned=i % 2 == 0) for i in range(50)]

    def consumer():
        for _ in forged:
            x = handoff.get()
            assert int(xp.sum(x)) == 6
            del x

    thread = threading.Thread(target=consumer)
    thread.start()
    for f in forged:
        handoff.put(xp.from_dlpack(f.capsule))
    thread.join()
    collect()
    assert all(f.calls == [f.managed_address] for f in forged)


def test_export_freed_on_another_thread():
    """A NumPy or torch consumer of a dlnumba export, dropped on another thread, releases it."""
    handoff, refs = queue.Queue(), []
    for i in range(50):
        x = xp.arange(10) + i
        refs.append(weakref.ref(x))
        handoff.put(np.from_dlpack(x) if i % 2 else torch.from_dlpack(x))
        del x
    thread = threading.Thread(target=lambda: [handoff.get() for _ in refs])
    thread.start()
    thread.join()
    collect()
    assert all(ref() is None for ref in refs)


@pytest.mark.parametrize("max_version, name, deleter_offset",
                         [(None, b"dltensor", 56), ((1, 0), b"dltensor_versioned", 16)],
                         ids=["legacy", "versioned"])
def test_export_deleter_from_a_foreign_thread(max_version, name, deleter_offset):
    """A consumer may call our deleter from a thread Python never saw, without the GIL (a C++
    library's worker): it takes the GIL itself, drops the array and frees the struct."""
    libc = ctypes.CDLL(None)
    x = xp.arange(10)
    ref = weakref.ref(x)
    capsule = x.__dlpack__(max_version=max_version)
    del x
    managed = PyCapsule_GetPointer(capsule, name)
    deleter = ctypes.c_void_p.from_address(managed + deleter_offset).value
    assert _SetName(capsule, _USED[name]) == 0  # consumed: the capsule no longer owns it
    thread = ctypes.c_ulong()
    # pthread_create's start routine returns void*; a void deleter leaves it unset (ignored).
    assert libc.pthread_create(ctypes.byref(thread), None, ctypes.c_void_p(deleter),
                               ctypes.c_void_p(managed)) == 0
    assert libc.pthread_join(thread, None) == 0  # ctypes released the GIL meanwhile
    collect()
    assert ref() is None
    del capsule  # renamed used_...: its destructor runs nothing more


def test_kernels_release_the_gil():
    """While a long kernel runs on one thread, another Python thread keeps running: its longest
    pause is far shorter than the kernel (measured here: ~10 ms pauses for a 0.5 s sort)."""
    big = xp.asarray(np.random.default_rng(0).random((1500, 1500)))
    xp.sort(big, axis=0)  # compiled and warm
    began = time.perf_counter()
    xp.sort(big, axis=0)
    alone = time.perf_counter() - began
    repeats = max(1, int(0.3 / alone))  # at least 0.3 s of kernel work
    done = threading.Event()

    def work():
        for _ in range(repeats):
            xp.sort(big, axis=0)
        done.set()

    gaps, thread = [], threading.Thread(target=work)
    last = time.perf_counter()
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    thread.join()
    kernel_time = alone * repeats
    assert max(gaps) < kernel_time / 3, (max(gaps), kernel_time)


def test_a_small_job_first_called_by_two_threads_at_once():
    """Two threads may both make a small elementwise job's first call (which compiles or loads
    its run, then replaces the job's ``call``): both get the right result."""
    from dlnumba.kernels import elementwise_job

    dtype = xp.asarray(np.zeros(1))._dtype
    for n in range(3, 9):  # a new job each time
        x = np.arange(float(n))
        job = elementwise_job("sqrt", "float", (((1,), dtype), ((1,), dtype)), (n,), dtype)
        outs, start = [np.empty(n), np.empty(n)], threading.Barrier(2)

        def first_call(out):
            start.wait()
            job.call(x.ctypes.data, out.ctypes.data)

        threads = [threading.Thread(target=first_call, args=(out,)) for out in outs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for out in outs:
            np.testing.assert_array_equal(out, np.sqrt(x))
