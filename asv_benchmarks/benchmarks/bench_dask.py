"""Dask on dlnumba chunks against Dask on NumPy chunks: the same computation on a
``LocalCluster`` of two worker processes, same run.

Each measurement is a new process running :data:`SCRIPT`: it starts the cluster, makes the
chunks on the workers (NumPy's random numbers, taken zero-copy as dlnumba arrays for dlnumba),
computes once (checking the result's type and values; the first compute pays for compiling
and for the workers' start), and reports the seconds of the second ``compute``.
"""

import importlib.util

from ._common import print_engine_ratios, script_seconds

SCRIPT = r"""
import json, sys, time
import numpy as np
import dask.array as da
from dask.distributed import Client, LocalCluster
import dlnumba as xp

workload, library = sys.argv[1], sys.argv[2]
n, chunk = 4000, 1000


def build():
    x = da.random.default_rng(0).random((n, n), chunks=(chunk, chunk))
    if library == "dlnumba":
        x = x.map_blocks(xp.asarray, meta=xp.empty((0, 0)))
    if workload == "elementwise and mean":
        return (da.exp(x * 0.5) + da.sqrt(x)).mean(axis=0)
    if workload == "sum of squares":
        return (x * x).sum()
    if workload == "argmax":
        return x.argmax(axis=0)
    return (x @ x.T)[:10].sum(axis=0)


if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        result = build().compute()
        kind = xp.ndarray if library == "dlnumba" else np.ndarray
        assert isinstance(result, kind) or np.ndim(result) == 0, type(result)
        start = time.perf_counter()
        build().compute()
        print(json.dumps({"seconds": time.perf_counter() - start}))
"""

LIBRARIES = ["dlnumba", "numpy"]


class TrackDaskCluster:
    params = (["elementwise and mean", "sum of squares", "argmax", "matmul"], LIBRARIES)
    param_names = ("workload", "library")
    timeout = 900
    unit = "seconds"

    def setup(self, workload, library):
        if importlib.util.find_spec("distributed") is None:
            raise NotImplementedError("dask.distributed is not installed")

    def track_compute(self, workload, library):
        return script_seconds(SCRIPT, workload, library)


if __name__ == "__main__":
    print_engine_ratios(TrackDaskCluster, LIBRARIES)
