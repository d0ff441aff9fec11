"""Time to the first result in a fresh process: dlnumba against NumPy and PyTorch, same run.

``track_first_result`` runs a new Python process that imports the library, makes a 2 x 2
float64 array and does one ``operation`` on it (``copy``: a C-contiguous copy of the
transpose, ``add``: ``x + x``, ``sum``: ``sum(x)``), and returns the seconds from before the
import to the result, as the process measured them. With ``cache="cold"`` Numba's cache is an
empty directory (dlnumba compiles its kernels, those of ``import dlnumba`` included); with
``"warm"`` it is the usual one, filled by a run before the one measured. NumPy and PyTorch
compile nothing, so the cache changes nothing for them; they say what a user waits for anyway.
"""

import json
import os
import subprocess
import sys
import tempfile

from ._common import namespace

_SCRIPT = """
import json, time
start = time.perf_counter()
import {module} as lib
x = lib.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
result = {operation}
print(json.dumps({{"seconds": time.perf_counter() - start, "result": {check}}}))
"""
_OPERATIONS = {
    "copy": {"dlnumba": "lib.asarray(x.T, copy=True)", "numpy": "x.T.copy()",
             "torch": "x.T.contiguous()"},
    "add": "x + x",
    "sum": "lib.sum(x)",
}
_EXPECTED = {"copy": [[1.0, 3.0], [2.0, 4.0]], "add": [[2.0, 4.0], [6.0, 8.0]], "sum": 10.0}


def _first_result(library, operation, cache_dir=None):
    """Seconds a fresh process took from ``import`` to its first ``operation`` result."""
    code = _OPERATIONS[operation]
    code = code[library] if isinstance(code, dict) else code
    check = ("float(result)" if operation == "sum"
             else "[[float(result[i, j]) for j in range(2)] for i in range(2)]")
    script = _SCRIPT.format(module={"dlnumba": "dlnumba", "numpy": "numpy", "torch": "torch"}[
        library], operation=code, check=check)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir) if cache_dir else None
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True, timeout=600)
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["result"] == _EXPECTED[operation], (library, operation, report["result"])
    return report["seconds"]


class TrackFirstResult:
    params = (["copy", "add", "sum"], ["cold", "warm"], ["dlnumba", "numpy", "torch"])
    param_names = ("operation", "cache", "library")
    timeout = 900
    unit = "seconds"

    def setup(self, operation, cache, library):
        namespace(library)

    def track_first_result(self, operation, cache, library):
        if cache == "warm":
            _first_result(library, operation)
            return _first_result(library, operation)
        with tempfile.TemporaryDirectory() as cache_dir:
            return _first_result(library, operation, cache_dir)
