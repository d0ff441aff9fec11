"""First results: ``import`` plus a newcomer's 16 first calls on float32, for dlnumba, NumPy,
PyTorch (through array-api-compat) and JAX, each in a new process.

Every process gets an empty ``NUMBA_CACHE_DIR`` and finds its library's ``.pyc`` files written
(one process per library writes them first), as a user's would. The libraries take turns, round
after round, so that a busy machine slows them alike: compare the rows of one run only.

Usage: ``python tools/first_results.py [ROUNDS [LIBRARY ...]]`` (default: 3 rounds, all four).
"""

import os
import subprocess
import sys
import tempfile

LIBRARIES = {"dlnumba": "import dlnumba as xp", "numpy": "import numpy as xp",
             "torch": "import array_api_compat.torch as xp", "jax": "import jax.numpy as xp"}

SCRIPT = r"""
import sys, time
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
print(imported - started, time.perf_counter() - imported, "numba" in sys.modules)
"""


def main(rounds=3, libraries=tuple(LIBRARIES)):
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    for library in libraries:
        subprocess.run([sys.executable, "-c", LIBRARIES[library]], env=environment, check=True)
    for _ in range(rounds):
        for library in libraries:
            with tempfile.TemporaryDirectory() as cache:
                done = subprocess.run([sys.executable, "-c", SCRIPT, LIBRARIES[library]],
                                      env={**environment, "NUMBA_CACHE_DIR": cache},
                                      capture_output=True, text=True, check=True)
            imported, calls, numba = done.stdout.split()
            print(f"{library:8} import {float(imported):.3f} s, 16 calls {float(calls):.3f} s, "
                  f"first results {float(imported) + float(calls):.3f} s"
                  f"{', Numba imported' if numba == 'True' else ''}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2:] or tuple(LIBRARIES))
