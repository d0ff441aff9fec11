"""Cubed on dlnumba against Cubed on NumPy: the same computation over many chunks, same run.

Cubed picks its chunk backend when it is imported (``CUBED_BACKEND_ARRAY_API_MODULE``), so
each measurement is a new process running :data:`SCRIPT`, which builds the computation, checks
it once against NumPy, and reports the seconds of its second ``compute`` (the first one pays
for compiling and for Cubed's own start). Single-threaded executor; the chunks go through Zarr
in a temporary directory, as on a cluster.
"""

import importlib.util
import os

from ._common import print_engine_ratios, script_seconds

SCRIPT = r"""
import json, sys, tempfile, time
import numpy as np
import cubed, cubed.array_api as cx
from cubed.runtime.executors.local import SingleThreadedExecutor

workload = sys.argv[1]
n, chunk = 2000, 500
a = np.random.default_rng(0).random((n, n))
with tempfile.TemporaryDirectory() as work_dir:
    spec = cubed.Spec(work_dir=work_dir, allowed_mem="2GB")
    def build():
        x = cubed.from_array(a, chunks=(chunk, chunk), spec=spec)
        if workload == "elementwise and mean":
            return cx.mean(cx.exp(x * 0.5) + cx.sqrt(x), axis=0)
        if workload == "sum of squares":
            return cx.sum(x * x)
        return cx.matmul(x, x)
    expected = {"elementwise and mean": lambda: (np.exp(a * 0.5) + np.sqrt(a)).mean(axis=0),
                "sum of squares": lambda: (a * a).sum(), "matmul": lambda: a @ a}[workload]()
    executor = SingleThreadedExecutor()
    (result,) = cubed.compute(build(), executor=executor)
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-9)
    start = time.perf_counter()
    cubed.compute(build(), executor=executor)
    print(json.dumps({"seconds": time.perf_counter() - start}))
"""

_BACKENDS = {"dlnumba": "dlnumba", "numpy": "array_api_compat.numpy"}


class TrackCubed:
    params = (["elementwise and mean", "sum of squares", "matmul"], ["dlnumba", "numpy"])
    param_names = ("workload", "library")
    timeout = 900
    unit = "seconds"

    def setup(self, workload, library):
        for module in ("cubed", "zarr", "array_api_compat"):
            if importlib.util.find_spec(module) is None:
                raise NotImplementedError(f"{module} is not installed")

    def track_compute(self, workload, library):
        environment = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE=_BACKENDS[library])
        return script_seconds(SCRIPT, workload, environment=environment)


if __name__ == "__main__":
    print_engine_ratios(TrackCubed, _BACKENDS)
