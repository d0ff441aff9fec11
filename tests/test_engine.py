"""The copy/cast engine (``dlnumba.kernels``): plans, both cores, overlap, the kernel cache."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import dlnumba as xp
from dlnumba import _numba_cache, _shipped, _version, kernels
from dlnumba.shared.plan import make_plan
from dlnumba.kernels.transfer import transfer

from helpers import to_numpy


# ---- plans ----

def test_plan_merges_contiguous_dims_and_drops_size_one():
    plan = make_plan((4, 1, 5, 6), (30, 7, 6, 1), (30, 30, 6, 1), tile_transposes=True)
    assert plan.shape.tolist() == [1, 120] and not plan.tiled


def test_plan_turns_negative_destination_strides_around():
    plan = make_plan((5,), (1,), (-1,))
    src_strides, dst_strides = plan.strides
    assert dst_strides.tolist()[-1] == 1 and src_strides.tolist()[-1] == -1
    assert plan.offsets == (4, -4)


def test_plan_tiles_a_transpose_with_the_source_contiguous_dim_second_innermost():
    plan = make_plan((300, 200), (1, 300), (200, 1), tile_transposes=True)  # A.T into C order
    assert plan.tiled and plan.tile == 16
    assert [s.tolist() for s in plan.strides] == [[1, 300], [200, 1]]


def test_plan_split_cuts_a_single_merged_run():
    plan = make_plan((1000,), (1,), (1,))
    pieces = plan.split(2)
    assert [shape.tolist() for _, shape in pieces] == [[1, 500], [1, 500]]
    assert [offsets for offsets, _ in pieces] == [(0, 0), (500, 500)]


def test_plan_merges_across_three_operands():
    plan = make_plan((4, 6), (6, 1), (0, 1), (6, 1))  # y broadcast along rows: no merge
    assert plan.shape.tolist() == [4, 6]
    plan = make_plan((4, 6), (6, 1), (6, 1), (6, 1))
    assert plan.shape.tolist() == [1, 24]


def test_plan_of_empty_shape_is_none():
    assert make_plan((3, 0, 2), (0, 0, 0), (0, 0, 0)) is None


# ---- results of the paths a plan takes, against NumPy ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8", "complex128"])
def test_large_transpose_on_both_cores_matches_numpy(dtype):
    """A tiled transpose above the parallel threshold (split over threads) is exact."""
    a = np.arange(1100 * 1300).astype(dtype).reshape(1100, 1300)
    x = xp.asarray(a)
    assert np.array_equal(to_numpy(xp.reshape(x.T, (-1,))), a.T.reshape(-1))


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_large_half_cast_on_both_cores_matches_reference(target):
    """A float16/bfloat16 cast above the parallel threshold (split over threads) is exact."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal(3_000_000).astype(np.float32) * 1000
    y = xp.astype(xp.asarray(a), getattr(xp, target))
    if target == "float16":
        assert np.array_equal(to_numpy(y).view(np.uint16), a.astype(np.float16).view(np.uint16))
    else:
        expected = torch.from_numpy(a).to(torch.bfloat16).view(torch.int16).numpy()
        assert np.array_equal(np.asarray(y).view(np.int16), expected)


@pytest.mark.parametrize("case", ["stride2", "reversed", "permute3d", "broadcast"])
def test_streaming_layouts_match_numpy(case):
    a = np.arange(64 * 50 * 40, dtype=np.float64)
    source = {"stride2": a[::2], "reversed": a[::-1],
              "permute3d": a.reshape(64, 50, 40).transpose(2, 0, 1),
              "broadcast": np.broadcast_to(a[:40], (500, 40))}[case]
    assert np.array_equal(to_numpy(xp.asarray(xp.asarray(source), copy=True)), source)


def test_overlapping_cast_reads_the_source_before_writing():
    """A float32 view and a float64 view of one buffer: the result is NumPy's."""
    buffer = np.arange(64, dtype=np.float64)
    expected = buffer.copy()
    source32 = buffer.view(np.float32)[8:40]
    expected[:32] = source32.copy()
    x = xp.asarray(buffer)
    x[:32] = xp.asarray(source32)
    assert np.array_equal(to_numpy(x), expected)


def test_cast_into_transposed_destination():
    a = np.arange(40 * 30, dtype=np.int32).reshape(40, 30)
    out = np.zeros((30, 40), np.float64)
    y = xp.asarray(out)
    y[...] = xp.asarray(a).T
    assert np.array_equal(out, a.T.astype(np.float64))


# ---- compile discipline ----

def test_copy_kernels_compile_once_per_unit_width():
    """Every same-dtype copy, whatever the dtype or ndim, runs one of five specializations."""
    for dtype in (xp.bool, xp.int8, xp.uint16, xp.float16, xp.bfloat16, xp.int32, xp.float32,
                  xp.int64, xp.float64, xp.complex64, xp.complex128):
        for shape in ((7,), (3, 4), (2, 3, 2, 2, 1, 3)):
            x = xp.zeros(shape, dtype=dtype)
            x[...] = xp.ones(shape[-1:], dtype=dtype)
            xp.asarray(x.mT if x.ndim > 1 else x, copy=True)
    units = {sig[-1] for sig in transfer.signatures if sig[-1] == sig[-2]}
    assert {str(u.dtype) for u in units} <= {"uint8", "uint16", "uint32", "uint64", "complex128"}


def test_cache_stamp_holds_version_and_kernel_sources(monkeypatch):
    locator = transfer._cache._impl.locator
    assert isinstance(locator, _numba_cache.SaltedLocator)
    assert locator.get_source_stamp()[1] == _numba_cache.SaltedLocator.salt
    monkeypatch.setattr(_version, "__version__", "999.0")
    assert _shipped.source_salt.__wrapped__() != _numba_cache.SaltedLocator.salt


def test_fresh_process_loads_copy_kernels_from_cache():
    """After one process compiled them, another one copies without compiling."""
    script = (
        "import json, dlnumba as xp\n"
        "from dlnumba.kernels.transfer import transfer\n"
        "x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])\n"
        "xp.asarray(x.T, copy=True)\n"
        "print(json.dumps(dict(transfer.stats.cache_misses)))\n")
    env = dict(os.environ)
    for _ in range(2):
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                timeout=300, env=env)
        assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == {}


def test_the_cpu_backend_exports_the_interface():
    from dlnumba._backend import ENTRY_POINTS

    assert sorted(kernels.__all__) == sorted(ENTRY_POINTS)


def test_forked_child_runs_parallel_kernels():
    # The parent has started its engine threads; a child forked afterwards has none of them.
    script = """
import os
import numpy as np
import dlnumba as xp
a = np.arange(1 << 20, dtype=np.float64)
x = xp.asarray(a)
assert float(xp.sum(x)) == a.sum()
pid = os.fork()
if pid == 0:
    os._exit(0 if float(xp.sum(x)) == a.sum() else 3)
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
"""
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, env=env)


def test_concurrent_cache_writers_never_swap_kernels(tmp_path):
    """Two processes adding entries to one index at once (xdist or Dask workers): each saves
    with the index it read before the other wrote. A key may lose its index entry (a later
    compilation), but never loads the other key's machine code, as Numba's numbered files let
    it do."""
    from numba.core.caching import IndexDataCacheFile

    stamp = ("source", _numba_cache.SaltedLocator.salt)
    first, second = (IndexDataCacheFile(str(tmp_path), "kernel", stamp) for _ in range(2))
    stale = first._load_index()  # both writers read the index before either writes
    second._load_index = first._load_index = lambda: dict(stale)
    first.save("key one", "code one")
    second.save("key two", "code two")
    assert len(list(tmp_path.glob("kernel.*.nbc"))) == 2  # Numba's numbering: one ".1.nbc"
    del first._load_index, second._load_index
    reader = IndexDataCacheFile(str(tmp_path), "kernel", stamp)
    assert reader.load("key two") == "code two"
    assert reader.load("key one") in (None, "code one")
    first.save("key one", "code one")
    assert reader.load("key one") == "code one" and reader.load("key two") == "code two"


def test_threads_run_every_piece_once_in_order_and_raise_a_worker_error():
    """Pieces go to whichever thread is free; results keep the order of the calls, and an
    error raised on any thread reaches the caller after every thread has stopped."""
    run_in_parallel = kernels.run_in_parallel
    seen = []
    assert run_in_parallel(lambda i: seen.append(i) or i * i, [(i,) for i in range(50)]) == \
        [i * i for i in range(50)]
    assert sorted(seen) == list(range(50))

    def kernel(i):
        if i == 37:
            raise IndexError(f"piece {i}")
        return i

    for _ in range(5):
        with pytest.raises(IndexError, match="piece 37"):
            run_in_parallel(kernel, [(i,) for i in range(50)])


@pytest.mark.parametrize("shape", [(2, 222), (3, 8), (2, 1), (4, 257)])
@pytest.mark.parametrize("dtype", [np.uint64, np.uint16])
def test_rows_apart_start_cache_lines_of_their_own(shape, dtype):
    """Rows that threads update (a radix sort's offsets) share no cache line and keep their
    values; each is still a contiguous row that a kernel takes."""
    rows = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    apart = kernels.threads.rows_apart(rows)
    assert np.array_equal(apart, rows) and apart.dtype == rows.dtype
    for row in apart:
        assert row.flags.c_contiguous and row.ctypes.data % 64 == 0


def test_a_thread_streams_through_its_part_then_takes_the_others_from_their_ends():
    """One thread draining 8 pieces in 2 parts runs its part (the first to arrive takes part
    0) front to back, then part 1 back to front, away from where part 1's own thread reads."""
    from numba import carray, cfunc, types

    from dlnumba.kernels import threads

    @cfunc(types.void(types.CPointer(types.int64), types.intp))
    def piece(words, k):
        order = carray(words, 9)
        order[0] += 1
        order[k + 1] = order[0]

    state = threads.pieces_state(piece.address, 8, [0] * 9)
    state[threads._PARTS] = 2
    threads._runners().finish(state.ctypes.data, 0, 0)
    ran = state[threads.RUNNER_WORDS + 1:]
    assert np.argsort(ran).tolist() == [0, 1, 2, 3, 7, 6, 5, 4]


def test_compiled_pieces_run_once_each_for_callers_on_several_threads():
    """run_pieces: every piece of every caller's state runs exactly once, with four Python
    threads running pieces of their own at the same time, and Python work (run_in_parallel)
    in between, which the engine's threads, waiting for pieces in compiled code, must see."""
    import threading

    from numba import carray, cfunc, types

    from dlnumba.kernels.threads import RUNNER_WORDS, pieces_state, run_pieces

    @cfunc(types.void(types.CPointer(types.int64), types.intp))
    def piece(words, k):
        carray(words, k + 1)[k] += 1  # its own word: no other piece writes it

    failures = []

    def caller(count):
        for _ in range(40):
            state = pieces_state(piece.address, count, [0] * count)
            run_pieces(state)
            if not (state[RUNNER_WORDS:] == 1).all():
                failures.append((count, state.tolist()))
            if kernels.run_in_parallel(lambda i: i, [(i,) for i in range(count)]) != \
                    list(range(count)):
                failures.append(count)

    callers = [threading.Thread(target=caller, args=(count,)) for count in (1, 2, 37, 100)]
    for thread in callers:
        thread.start()
    for thread in callers:
        thread.join()
    assert not failures


def test_large_elementwise_calls_run_in_pieces_on_every_layout():
    """Calls above the parallel threshold, cut into pieces that the engine's threads run:
    contiguous, transposed, reversed, broadcast and stride-2 operands, a unary function, one
    with common code and libm's arguments beyond it, and an operand with 7 dimensions
    shorter than the pieces."""
    rng = np.random.default_rng(3)
    a = rng.random((1024, 700)) * 4e6 - 2e6
    b = rng.random((700, 1024)).astype(np.float32)
    row = rng.random(700)
    cases = [
        (lambda m: m.add, lambda x, y: (x, y.T)),
        (lambda m: m.multiply, lambda x, y: (x[::-1, ::-2], y.T[:, ::2])),
        (lambda m: m.subtract, lambda x, y: (x, row if x is a else xp.asarray(row))),
        (lambda m: m.sin, lambda x, y: (x[:, ::-1],)),
        (lambda m: m.exp, lambda x, y: (y.T[::2],)),
        (lambda m: m.sqrt, lambda x, y: (y,)),
    ]
    x, y = xp.asarray(a), xp.asarray(b)
    for function, operands in cases:
        expected = function(np)(*operands(a, b))
        got = to_numpy(function(xp)(*operands(x, y)))
        np.testing.assert_allclose(got, expected, rtol=1e-6 if expected.dtype == np.float32
                                   else 4e-15)
    c = rng.random((7,) * 7)
    np.testing.assert_allclose(to_numpy(xp.cos(xp.asarray(c))), np.cos(c), rtol=4e-15)


def test_threads_making_the_same_large_elementwise_call_first_at_once():
    """Four Python threads make the first call of a new large layout together: they share its
    job, and each gets the whole result."""
    import threading

    a = np.random.default_rng(4).random((613, 1031))
    x, barrier, results = xp.asarray(a), threading.Barrier(4), []

    def call():
        barrier.wait()
        results.append(to_numpy(x[:, ::-1] * 2.0 + x[:, ::-1]))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    for result in results:
        np.testing.assert_array_equal(result, a[:, ::-1] * 2.0 + a[:, ::-1])


@pytest.mark.parametrize("axis", [None, 0, (1, 3, 5), 6])
def test_reduction_over_many_short_axes_on_both_cores(axis):
    """A large reduction whose dimensions are all shorter than the pieces it would be cut into."""
    a = np.random.default_rng(1).random((7,) * 7, dtype=np.float32)
    assert np.allclose(to_numpy(xp.sum(xp.asarray(a), axis=axis)),
                       a.sum(axis=axis, dtype=np.float64), rtol=1e-5)
    assert np.array_equal(to_numpy(xp.max(xp.asarray(a), axis=axis)), a.max(axis=axis))
