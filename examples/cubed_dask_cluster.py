"""Cubed on dlnumba over a Dask cluster: an array of many chunks, each computed by dlnumba's
kernels in a worker process, compared with NumPy."""

import os
import tempfile

os.environ["CUBED_BACKEND_ARRAY_API_MODULE"] = "dlnumba"  # before cubed is imported

import cubed  # noqa: E402
import cubed.array_api as cx  # noqa: E402
import numpy as np  # noqa: E402
from cubed.runtime.executors import dask as cubed_dask  # noqa: E402
from dask.distributed import LocalCluster  # noqa: E402

import dlnumba as xp  # noqa: E402

# Cubed 0.27 checks the workers' memory with an asynchronous client's scheduler_info(), which
# distributed 2026 documents as holding no per-worker information: skip that check.
cubed_dask.check_runtime_memory = lambda spec, client: None


def main():
    values = np.random.default_rng(0).random((1200, 900))
    with tempfile.TemporaryDirectory() as work_dir, \
            LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                         dashboard_address=None) as cluster:
        spec = cubed.Spec(work_dir=work_dir, allowed_mem="500MB")
        x = cubed.from_array(values, chunks=(300, 300), spec=spec)  # 12 chunks
        centred = x - cx.mean(x, axis=0)
        covariance = cx.matmul(cx.matrix_transpose(centred), centred) / (x.shape[0] - 1)
        executor = cubed_dask.DaskExecutor(compute_kwargs={"address": cluster.scheduler_address})
        (result,) = cubed.compute(covariance, executor=executor)
    assert isinstance(result, xp.ndarray)
    np.testing.assert_allclose(np.asarray(result), np.cov(values, rowvar=False), rtol=1e-10,
                               atol=1e-14)  # entries near 0 lose digits to cancellation
    print("covariance of 1200 x 900 in 12 chunks on 2 Dask workers: matches NumPy")


if __name__ == "__main__":  # worker processes import this module too
    main()
