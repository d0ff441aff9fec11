"""Dask arrays of dlnumba chunks: NumPy's functions on each chunk answer with dlnumba
(``__array_function__``), so chunks stay dlnumba through elementwise steps, reductions, ``@``,
``argmax``, ``rechunk`` and ``map_blocks``, under the threaded scheduler and on a
``LocalCluster`` of worker processes; each result is compared with Dask on NumPy chunks, and
xarray's ``.chunk()`` keeps dlnumba too."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

import dlnumba as xp  # noqa: E402
from helpers import to_numpy  # noqa: E402

VALUES = np.random.default_rng(0).standard_normal((12, 10))
VALUES[3, 4] = np.nan

# name: the computation, on a Dask array of either kind of chunk
CASES = {
    "elementwise": lambda d: (d + 1) * d - 2.5,
    "sum over an axis": lambda d: (d + 1).sum(axis=0),
    "mean": lambda d: d.mean(),
    "std over an axis": lambda d: d.std(axis=1),
    "var with ddof": lambda d: d.var(ddof=1),
    "max and min": lambda d: d.max(axis=1) - d.min(axis=1),
    "prod": lambda d: (d / 2).prod(axis=0),
    "nansum": lambda d: da.nansum(d, axis=1),
    "nanmean": lambda d: da.nanmean(d),
    "nanmax": lambda d: da.nanmax(d, axis=0),
    "argmax": lambda d: d.argmax(axis=0),
    "argmin of all": lambda d: d.argmin(),
    "nanargmax": lambda d: da.nanargmax(d, axis=1),
    "cumsum": lambda d: d.cumsum(axis=0),
    "matmul": lambda d: d @ d.T,
    "tensordot": lambda d: da.tensordot(d, d, axes=((0,), (0,))),
    "rechunk": lambda d: d.rechunk((6, 5)) * 2,
    "map_blocks": lambda d: d.map_blocks(lambda block: block * 2 + 1),
    "where": lambda d: da.where(d > 0, d, 0.0),
    "concatenate": lambda d: da.concatenate([d, d], axis=1),
    "transpose and reshape": lambda d: d.T.reshape(-1),
    "clip and round": lambda d: da.round(da.clip(d, -1, 1), 1),
    "any and all": lambda d: da.stack([(d > 2).any(axis=0), (d > -5).all(axis=0)]),
    "median": lambda d: da.median(d, axis=0),
    "sort (topk)": lambda d: da.topk(d, 3, axis=1),
    "isnan count": lambda d: da.isnan(d).sum(),
}


def chunked(values, library):
    array = xp.asarray(values) if library == "dlnumba" else values
    return da.from_array(array, chunks=(4, 5), asarray=False)


def assert_same_result(name, scheduler):
    ours = CASES[name](chunked(VALUES, "dlnumba"))
    theirs = CASES[name](chunked(VALUES, "numpy")).compute(scheduler="sync")
    assert type(ours._meta) is xp.ndarray, type(ours._meta)
    result = ours.compute(scheduler=scheduler)
    assert type(result) is xp.ndarray, type(result)
    assert result.dtype == theirs.dtype and result.shape == theirs.shape
    np.testing.assert_allclose(to_numpy(result), theirs, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", CASES)
def test_threaded_scheduler(name):
    """Each computation's chunks, and its result, are dlnumba arrays with NumPy's values."""
    assert_same_result(name, "threads")


def test_dask_weighs_a_chunk_by_its_values():
    """Dask's ``sizeof`` (``sys.getsizeof``) counts the values, as for a NumPy array: its
    scheduler weighs moving a chunk by it."""
    from dask.sizeof import sizeof
    assert sizeof(xp.ones((100, 100))) >= 80_000 and sizeof(xp.ones(0)) < 1000


def test_every_chunk_stays_dlnumba():
    """The chunks map_blocks sees after a reduction and a rechunk are dlnumba arrays."""
    kinds = []

    def record(block):
        kinds.append(type(block))
        return block

    d = chunked(VALUES, "dlnumba")
    (d - d.mean(axis=0)).rechunk((3, 10)).map_blocks(record).compute(scheduler="threads")
    assert kinds and set(kinds) == {xp.ndarray}


@pytest.fixture(scope="module")
def cluster_client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("name", ["sum over an axis", "matmul", "argmax", "rechunk", "median"])
def test_local_cluster_of_processes(cluster_client, name):
    """On two worker processes, chunks travel pickled and come back dlnumba arrays."""
    assert_same_result(name, cluster_client.get)


def test_xarray_chunk_keeps_dlnumba():
    """xarray's ``.chunk()`` (Dask) on a dlnumba DataArray: reductions, rolling windows and
    quantiles compute to dlnumba arrays with NumPy's values."""
    xr = pytest.importorskip("xarray")
    ours = xr.DataArray(xp.asarray(VALUES), dims=("t", "y")).chunk({"t": 4})
    theirs = xr.DataArray(VALUES, dims=("t", "y"))
    for compute in (lambda a: a.mean("t"), lambda a: a.median("y"),
                    lambda a: a.rolling(t=3).mean(), lambda a: a.quantile(0.3, dim="t"),
                    lambda a: a.std("y"), lambda a: a.argmax("y")):
        result = compute(ours).compute()
        assert type(result.data) is xp.ndarray, type(result.data)
        np.testing.assert_allclose(to_numpy(result.data), compute(theirs).data, rtol=1e-12,
                                   equal_nan=True)
