"""Cold start: what a process that has never compiled anything waits for, against NumPy.

Each measurement runs a new Python process. ``cold`` gives it an empty ``NUMBA_CACHE_DIR``
(dlnumba compiles every kernel it uses); ``warm`` runs the same script twice on one cache
directory and measures the second run. NumPy compiles nothing, so for it the two are the same.

- ``TrackFirstCalls``: the script :data:`SCRIPT` imports the library, then makes 20 different
  namespace functions' first calls, each on float64, float32 and int64 arrays (float-only
  functions on the two float dtypes): the seconds of ``import <library>``, those of all the
  calls together, and of the slowest one.
- ``TrackConformance`` (dlnumba only): data-apis array-api-tests with its own per-example
  deadline (800 ms) and examples, cold: the tests that fail (a warm run fails none, so these
  are deadline failures) and the wall time over a warm run's.

- ``TrackFirstResults``: the script :data:`FIRST_RESULTS` imports the library and makes a
  newcomer's 16 first calls on float32 (issue 39's first results), cold: the seconds of both
  together.

``cd asv_benchmarks && python -m benchmarks.bench_cold_start`` prints the cold and warm numbers
of ``TrackFirstCalls`` for dlnumba; ``python -m benchmarks.bench_cold_start first [ROUNDS
[LIBRARY ...]]`` prints ``TrackFirstResults``' for each library (default: 3 rounds of all four),
the libraries taking turns so that a busy machine slows them alike.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

from ._common import namespace

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))

IMPORTS = {"dlnumba": "import dlnumba as xp", "numpy": "import numpy as xp",
           "torch": "import array_api_compat.torch as xp", "jax": "import jax.numpy as xp"}

SCRIPT = r"""
import json, sys, time
started = time.perf_counter()
exec(sys.argv[1])
imported = time.perf_counter()
seconds = {}

def first(name, dtype, call):
    start = time.perf_counter()
    result = call()
    seconds[f"{name} {dtype}"] = time.perf_counter() - start
    return result

for dtype_name in ("float64", "float32", "int64"):
    d = getattr(xp, dtype_name)
    is_float = dtype_name != "int64"
    a = first("asarray", dtype_name, lambda: xp.asarray([[3, 1, 2], [6, 5, 4]], dtype=d))
    first("add", dtype_name, lambda: a + a)
    first("multiply", dtype_name, lambda: a * 2)
    first("subtract", dtype_name, lambda: xp.subtract(a, a))
    first("less", dtype_name, lambda: xp.less(a, a))
    first("abs", dtype_name, lambda: xp.abs(a))
    if is_float:
        first("exp", dtype_name, lambda: xp.exp(a))
        first("sqrt", dtype_name, lambda: xp.sqrt(a))
        first("mean", dtype_name, lambda: xp.mean(a))
    first("sum", dtype_name, lambda: xp.sum(a, axis=0))
    first("max", dtype_name, lambda: xp.max(a, axis=1))
    first("argmax", dtype_name, lambda: xp.argmax(a))
    first("cumulative_sum", dtype_name, lambda: xp.cumulative_sum(a, axis=1))
    first("sort", dtype_name, lambda: xp.sort(a))
    first("argsort", dtype_name, lambda: xp.argsort(a))
    first("where", dtype_name, lambda: xp.where(a > 2, a, a))
    first("matmul", dtype_name, lambda: a @ xp.matrix_transpose(a))
    first("concat", dtype_name, lambda: xp.concat([a, a]))
    first("astype", dtype_name, lambda: xp.astype(a, xp.int32 if is_float else xp.float32))
    first("unique_values", dtype_name, lambda: xp.unique_values(a))
print(json.dumps({"import": imported - started, "calls": seconds,
                  "numba imported": "numba" in sys.modules}))
"""

FIRST_RESULTS = r"""
import json, sys, time
started = time.perf_counter()
exec(sys.argv[1])
imported = time.perf_counter()
x = xp.asarray([[3.0, -1.0, 2.0], [6.0, 5.0, -4.0]], dtype=xp.float32)
y = x + 1
xp.exp(x)
xp.sum(x, axis=0)
xp.mean(x)
x @ xp.matrix_transpose(x)
x[x > 0]
xp.sort(x)
xp.argmax(x)
xp.astype(x, xp.int32)
xp.where(x > 2, x, y)
xp.concat([x, y])
xp.cumulative_sum(x, axis=1)
xp.unique_values(x)
xp.max(x, axis=1)
float(xp.sum(xp.sqrt(xp.abs(x))))
print(json.dumps({"import": imported - started,
                  "calls": {"16 first calls": time.perf_counter() - imported},
                  "numba imported": "numba" in sys.modules}))
"""


def run_script(library, cache, script=SCRIPT):
    """The report of ``script`` (:data:`SCRIPT` or :data:`FIRST_RESULTS`) in a new process with
    a ``cold`` or ``warm`` cache (and Python's bytecode cache written, as a user's would be)."""
    with tempfile.TemporaryDirectory() as cache_dir, tempfile.TemporaryDirectory() as spare:
        command = [sys.executable, "-c", script, IMPORTS[library]]
        environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", IMPORTS[library]], check=True, timeout=600,
                       env=dict(environment, NUMBA_CACHE_DIR=spare))  # writes the bytecode
        for _ in range(2 if cache == "warm" else 1):
            out = subprocess.run(command, capture_output=True, text=True, env=environment,
                                 check=True, timeout=1200)
    return json.loads(out.stdout.splitlines()[-1])


def _available(library):
    if library == "torch":
        namespace("torch")
        try:
            import array_api_compat.torch  # noqa: F401
        except ImportError:
            raise NotImplementedError("array_api_compat is not installed") from None
    else:
        namespace(library)


class TrackFirstCalls:
    params = (["cold", "warm"], ["dlnumba", "numpy", "torch"])
    param_names = ("cache", "library")
    timeout = 1200
    unit = "seconds"

    def setup(self, cache, library):
        _available(library)
        self.report = run_script(library, cache)

    def track_import(self, cache, library):
        return self.report["import"]

    def track_all(self, cache, library):
        return sum(self.report["calls"].values())

    def track_slowest(self, cache, library):
        return max(self.report["calls"].values())


class TrackFirstResults:
    params = ["dlnumba", "numpy", "torch", "jax"]
    param_names = ("library",)
    timeout = 600
    unit = "seconds"

    def setup(self, library):
        _available(library)
        self.report = run_script(library, "cold", FIRST_RESULTS)

    def track_first_results(self, library):
        return self.report["import"] + sum(self.report["calls"].values())


def _conformance(cache_dir):
    """Failed tests and wall seconds of array-api-tests with its default deadline."""
    runner = os.path.join(os.environ.get("ARRAY_API_TESTS",
                                         os.path.join(_ROOT, "..", "shared", "array-api-tests")),
                          "run")
    if not os.access(runner, os.X_OK):
        raise NotImplementedError(f"no array-api-tests runner at {runner}")
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHON=sys.executable)
    start = time.perf_counter()
    out = subprocess.run([runner, "-n", "auto", "-q", "-rf", "-p", "no:cacheprovider"],
                         cwd=_ROOT, capture_output=True, text=True, env=environment, timeout=3600)
    wall = time.perf_counter() - start
    return len(re.findall(r"^FAILED ", out.stdout, re.MULTILINE)), wall


class TrackConformance:
    timeout = 7200
    unit = "count or ratio"

    def setup_cache(self):
        with tempfile.TemporaryDirectory() as cache_dir:
            failures, cold = _conformance(cache_dir)
            _, warm = _conformance(cache_dir)
        return {"failures": failures, "cold_over_warm": cold / warm}

    def track_failures_cold(self, results):
        return results["failures"]

    def track_wall_cold_over_warm(self, results):
        return results["cold_over_warm"]


def _print_first_results(rounds, libraries):
    for _ in range(rounds):
        for library in libraries:
            report = run_script(library, "cold", FIRST_RESULTS)
            calls = sum(report["calls"].values())
            print(f"{library:8} import {report['import']:.3f} s, 16 calls {calls:.3f} s, "
                  f"first results {report['import'] + calls:.3f} s"
                  f"{', Numba imported' if report['numba imported'] else ''}", flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["first"]:
    _print_first_results(int(sys.argv[2]) if len(sys.argv) > 2 else 3,
                         sys.argv[3:] or list(IMPORTS))
elif __name__ == "__main__":
    for cache in ("cold", "warm"):
        report = run_script("dlnumba", cache)
        calls = report["calls"]
        slowest = max(calls, key=calls.get)
        print(f"{cache}: import dlnumba {report['import']:.2f} s; {len(calls)} first calls "
              f"take {sum(calls.values()):.2f} s, the slowest {slowest} {calls[slowest]:.2f} s; "
              f"Numba {'imported' if report['numba imported'] else 'not imported'}")
