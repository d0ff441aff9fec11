"""Host memory: alignment, and the pool that reuses freed large blocks."""

import ctypes
import gc
import threading

import numpy as np
import pytest
from helpers import run_python

import dlnumba as xp
from dlnumba import _memory

LARGE = 4 << 20  # elements of float64: 32 MiB, a pooled block


@pytest.mark.parametrize("nbytes", [0, 1, 63, 65, 4096, (1 << 20) - 64, 1 << 20, 3 << 20])
def test_allocations_are_aligned_to_64_bytes(nbytes):
    address, owner = _memory.allocate_host(nbytes)
    assert address % 64 == 0


@pytest.mark.parametrize("nbytes", [8, 800, 100_000])
def test_small_allocations_are_zero_when_asked_even_over_reused_memory(nbytes):
    for _ in range(20):
        address, owner = _memory.allocate_host(nbytes)
        ctypes.memset(address, 0xFF, nbytes)
        del owner
        address, owner = _memory.allocate_host(nbytes, True)
        assert ctypes.string_at(address, nbytes) == bytes(nbytes)
        assert not np.any(np.from_dlpack(xp.zeros(nbytes // 8)))


def test_allocate_host_names_a_bad_size():
    with pytest.raises(TypeError):
        _memory.allocate_host("64")
    with pytest.raises(TypeError):
        _memory.allocate_host()


def test_a_freed_large_block_serves_the_next_allocation_of_its_size():
    x = xp.empty(LARGE)
    address = x.__array_interface__["data"][0]
    del x
    gc.collect()
    assert xp.empty(LARGE).__array_interface__["data"][0] == address


def test_zeros_from_a_reused_block_are_zero():
    x = xp.full(LARGE, 7.0)
    del x
    gc.collect()
    assert not np.any(np.from_dlpack(xp.zeros(LARGE)))


def test_a_block_shared_with_numpy_is_not_reused_while_numpy_holds_it():
    x = xp.full(LARGE, 3.0)
    view = np.from_dlpack(x)
    del x
    gc.collect()
    y = xp.full(LARGE, 5.0)
    assert y.__array_interface__["data"][0] != view.__array_interface__["data"][0]
    assert np.all(view == 3.0)


def test_the_pool_keeps_at_most_its_limit():
    arrays = [xp.empty(LARGE) for _ in range(2 * _memory.POOL_LIMIT // (8 * LARGE) + 2)]
    del arrays
    gc.collect()
    assert 0 < _memory.pooled_bytes() <= _memory.POOL_LIMIT


def test_the_pool_keeps_at_most_its_depth_of_a_size_class():
    # In a new process, whose pool is far from its limit.
    code = """if True:
        from dlnumba import _memory
        size = 3 << 18
        owners = [_memory.allocate_host(size - 64)[1] for _ in range(_memory.POOL_DEPTH + 5)]
        before = _memory.pooled_bytes()
        del owners
        print((_memory.pooled_bytes() - before) // size, _memory.POOL_DEPTH)
    """
    kept, depth = run_python(code).split()
    assert kept == depth


def test_sizes_of_one_size_class_share_its_blocks():
    address, owner = _memory.allocate_host(300_000)
    del owner
    assert _memory.allocate_host(320_000)[0] == address


def test_allocate_host_refuses_a_size_out_of_range():
    for nbytes in (-1, 2 ** 62):
        with pytest.raises(ValueError, match=str(nbytes)):
            _memory.allocate_host(nbytes)


def test_threads_allocating_and_freeing_large_arrays_get_their_own_memory():
    errors = []

    def work(value):
        for _ in range(20):
            x = xp.full(LARGE // 4, float(value))
            if not np.all(np.from_dlpack(x) == value):
                errors.append(value)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
