"""Dask on dlnumba chunks over a LocalCluster: a Dask array whose chunks are dlnumba arrays,
computed on two worker processes, keeps dlnumba chunks through a normalisation, a reduction,
an argmax and a matrix product; each result is compared with NumPy."""

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

import dlnumba as xp


def main():
    values = np.random.default_rng(0).standard_normal((1200, 900))
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        x = da.from_array(xp.asarray(values), chunks=(300, 300), asarray=False)  # 12 chunks
        normalised = (x - x.mean(axis=0)) / x.std(axis=0)
        results = da.compute(normalised.sum(axis=1), normalised.argmax(axis=0),
                             normalised.T @ normalised / (x.shape[0] - 1))
    expected_values = (values - values.mean(axis=0)) / values.std(axis=0)
    expected = (expected_values.sum(axis=1), expected_values.argmax(axis=0),
                expected_values.T @ expected_values / (values.shape[0] - 1))
    for result, wanted in zip(results, expected):
        assert isinstance(result, xp.ndarray), type(result)
        np.testing.assert_allclose(np.asarray(result), wanted, rtol=1e-9, atol=1e-12)
    print("normalisation, sums, argmax and correlation of 1200 x 900 in 12 dlnumba chunks on 2 "
          "Dask workers: match NumPy")


if __name__ == "__main__":  # worker processes import this module too
    main()
