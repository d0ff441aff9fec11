"""Cold start: importing compiles nothing, and what one process compiled the next one loads from
Numba's cache (the small-array engine's runs are closures; their cache keys must be stable
across processes), as ``python -m dlnumba warm`` relies on. Each check runs new processes on an
empty ``NUMBA_CACHE_DIR``, the cache's with the shipped kernels turned off; timings are asv's
(``bench_cold_start.py``), not the tests'."""

import json
import os
import subprocess
import sys

_COUNT_COMPILES = """
import json, sys
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, e):
        compiled.append(str(e.data.get("dispatcher")))
    def on_end(self, e):
        pass
event.register("numba:compile", Listener())
exec(sys.argv[1])
print(json.dumps(compiled))
"""

_SMALL_CALLS = """
import numpy as np
import dlnumba as xp
a = xp.asarray([[3.0, 1.0, 2.0], [6.0, 5.0, 4.0]])
b = xp.astype(a, xp.int32)
a + a, b * 2, xp.exp(a), xp.sum(a), xp.sum(b, axis=0), xp.argmax(a), xp.max(a, axis=1)
xp.sort(a), xp.argsort(b), xp.asarray(a.T, copy=True), xp.from_dlpack(np.arange(3.0))
"""


def _compiles(code, cache_dir, **env):
    """The dispatchers Numba compiled while a new process ran ``code``."""
    result = subprocess.run([sys.executable, "-c", _COUNT_COMPILES, code], capture_output=True,
                            text=True, timeout=900,
                            env={**os.environ, "NUMBA_CACHE_DIR": cache_dir, **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_import_compiles_nothing(tmp_path):
    assert _compiles("import dlnumba", str(tmp_path)) == []


def test_a_second_process_loads_every_kernel_from_the_cache(tmp_path):
    assert _compiles(_SMALL_CALLS, str(tmp_path), DLNUMBA_JIT_ONLY="1")
    assert _compiles(_SMALL_CALLS, str(tmp_path), DLNUMBA_JIT_ONLY="1") == []


def test_warm_fills_the_cache_for_the_next_process(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "DLNUMBA_JIT_ONLY": "1"}
    warm = subprocess.run([sys.executable, "-m", "dlnumba", "warm", "bool"], env=env,
                          capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.startswith("bool: ")
    assert _compiles("from dlnumba import _warm; _warm.run(['bool'])", str(tmp_path),
                     DLNUMBA_JIT_ONLY="1") == []


def test_warm_names_a_bad_dtype():
    result = subprocess.run([sys.executable, "-m", "dlnumba", "warm", "float128"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert "'float128' is not a dlnumba dtype" in result.stderr
