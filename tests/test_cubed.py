"""Cubed computes every chunk with dlnumba (``CUBED_BACKEND_ARRAY_API_MODULE=dlnumba``).

Arrays of many chunks, under Cubed's single-threaded executor, its processes executor and a
Dask distributed ``LocalCluster`` (worker processes on the loopback interface), each result
compared with the same computation in NumPy. Chunks travel between processes pickled
(``ndarray.__reduce__``) and through Zarr (``np.asarray`` of each chunk).
"""

import os

import numpy as np
import pytest

os.environ["CUBED_BACKEND_ARRAY_API_MODULE"] = "dlnumba"  # read when cubed is imported
cubed = pytest.importorskip("cubed")
cx = pytest.importorskip("cubed.array_api")
pytest.importorskip("zarr")

import dlnumba as xp  # noqa: E402

A = np.arange(48.0).reshape(6, 8)
B = np.arange(40.0).reshape(8, 5) / 7
WITH_NAN = np.where(A % 7 == 3, np.nan, A)


def chunked(spec, values, chunks=(2, 3)):
    return cx.asarray(values, chunks=chunks, spec=spec)


# name: (the Cubed computation on a Spec, the NumPy result)
CASES = {
    "ones": (lambda s: cx.ones((6, 8), chunks=(2, 3), spec=s), np.ones((6, 8))),
    "arange": (lambda s: cx.arange(20, chunks=6, spec=s), np.arange(20)),
    "full of a dtype string": (lambda s: cx.full((5, 5), 3, dtype="int32", chunks=2, spec=s),
                               np.full((5, 5), 3, np.int32)),
    "eye": (lambda s: cx.eye(5, chunks=2, spec=s), np.eye(5)),
    "linspace": (lambda s: cx.linspace(0, 1, 11, chunks=4, spec=s), np.linspace(0, 1, 11)),
    "arithmetic with scalars": (lambda s: (lambda a: a + a * 2.0 - 1)(chunked(s, A)),
                                A + A * 2.0 - 1),
    "sqrt, exp": (lambda s: cx.exp(cx.sqrt(chunked(s, A)) / 10.0), np.exp(np.sqrt(A) / 10)),
    "astype": (lambda s: cx.astype(chunked(s, A), cx.float32), A.astype(np.float32)),
    "where": (lambda s: (lambda a: cx.where(a > 10.0, a, 0.0))(chunked(s, A)),
              np.where(A > 10, A, 0.0)),
    "clip": (lambda s: cx.clip(chunked(s, A), 3.0, 10.0), np.clip(A, 3.0, 10.0)),
    "sum": (lambda s: cx.sum(chunked(s, A)), A.sum()),
    "sum of integers over an axis": (lambda s: cx.sum(chunked(s, A.astype(np.int32)), axis=0),
                                     A.astype(np.int32).sum(axis=0)),
    "mean over an axis": (lambda s: cx.mean(chunked(s, A), axis=1), A.mean(axis=1)),
    "mean of integers": (lambda s: cx.mean(cx.arange(20, chunks=6, spec=s)), np.arange(20).mean()),
    "var": (lambda s: cx.var(chunked(s, A), axis=0), A.var(axis=0)),
    "std": (lambda s: cx.std(chunked(s, A)), A.std()),
    "max, min": (lambda s: cx.max(chunked(s, A), axis=1) - cx.min(chunked(s, A), axis=1),
                 A.max(axis=1) - A.min(axis=1)),
    "argmax over an axis": (lambda s: cx.argmax(chunked(s, A), axis=1), A.argmax(axis=1)),
    "argmin of all": (lambda s: cx.argmin(chunked(s, A)), A.argmin()),
    "nansum": (lambda s: cubed.nansum(chunked(s, WITH_NAN)), np.nansum(WITH_NAN)),
    "nanmean": (lambda s: cubed.nanmean(chunked(s, WITH_NAN)), np.nanmean(WITH_NAN)),
    "cumulative_sum": (lambda s: cx.cumulative_sum(chunked(s, A), axis=1), np.cumsum(A, axis=1)),
    "matmul": (lambda s: cx.matmul(chunked(s, A), chunked(s, B, (3, 2))), A @ B),
    "tensordot": (lambda s: cx.tensordot(chunked(s, A), chunked(s, B, (3, 2)), axes=1), A @ B),
    "vecdot": (lambda s: cx.vecdot(chunked(s, A), chunked(s, A)), (A * A).sum(axis=-1)),
    "slices": (lambda s: chunked(s, A)[1:5, ::2], A[1:5, ::2]),
    "integer index": (lambda s: chunked(s, A)[3], A[3]),
    "take": (lambda s: cx.take(chunked(s, A), cx.asarray(np.array([0, 5, 2]), chunks=2, spec=s),
                               axis=0), A[[0, 5, 2]]),
    "rechunk": (lambda s: chunked(s, A, (1, 8)).rechunk((6, 1)), A),
    "map_blocks": (lambda s: cubed.map_blocks(lambda b: xp.sqrt(b) + 1.0, chunked(s, A),
                                              dtype=cx.float64), np.sqrt(A) + 1),
    "reshape": (lambda s: cx.reshape(chunked(s, A, (1, 8)), (48,)), A.reshape(48)),
    "concat, stack": (lambda s: cx.stack([cx.concat([chunked(s, A), chunked(s, A)]),
                                          chunked(s, np.vstack([A, A]))], axis=1),
                      np.stack([np.vstack([A, A])] * 2, axis=1)),
    "flip, permute_dims": (lambda s: cx.permute_dims(cx.flip(chunked(s, A), axis=1), (1, 0)),
                           A[:, ::-1].T),
}


def check(result, expected):
    """``result`` (what Cubed computed, a dlnumba array) equals NumPy's, dtype included."""
    assert isinstance(result, xp.ndarray)
    got = np.asarray(result)
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.fixture
def spec(tmp_path):
    return cubed.Spec(work_dir=str(tmp_path), allowed_mem="200MB")


@pytest.mark.parametrize("name", sorted(CASES))
def test_single_threaded(spec, name):
    from cubed.runtime.executors.local import SingleThreadedExecutor

    make, expected = CASES[name]
    (result,) = cubed.compute(make(spec), executor=SingleThreadedExecutor())
    check(result, expected)


def test_zarr_round_trip(spec, tmp_path):
    path = str(tmp_path / "doubled.zarr")
    cubed.to_zarr(chunked(spec, A) * 2.0, path)
    check((cubed.from_zarr(path, spec=spec) + 1.0).compute(), A * 2 + 1)


# Worker processes pay an import and a cache load each; a few cases cover what they exchange.
IN_WORKER_PROCESSES = ["arithmetic with scalars", "mean over an axis", "matmul", "rechunk",
                       "argmax over an axis"]


def test_processes_executor(spec):
    from cubed.runtime.executors.local import ProcessesExecutor

    executor = ProcessesExecutor(max_workers=2)
    results = cubed.compute(*(CASES[name][0](spec) for name in IN_WORKER_PROCESSES),
                            executor=executor)
    for name, result in zip(IN_WORKER_PROCESSES, results):
        check(result, CASES[name][1])


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster


def test_dask_distributed_cluster(spec, dask_cluster, monkeypatch):
    from cubed.runtime.executors import dask as cubed_dask

    # Cubed 0.27 reads the workers' memory from the async client's scheduler_info(), which
    # distributed 2026 returns empty: its check then always says "no workers running".
    monkeypatch.setattr(cubed_dask, "check_runtime_memory", lambda spec, client: None)
    executor = cubed_dask.DaskExecutor(compute_kwargs={"address": dask_cluster.scheduler_address})
    names = sorted(CASES)
    results = cubed.compute(*(CASES[name][0](spec) for name in names), executor=executor)
    for name, result in zip(names, results):
        check(result, CASES[name][1])
