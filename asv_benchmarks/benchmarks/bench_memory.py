"""Peak memory of large operations: dlnumba against NumPy on the same 256 MiB float32 input, in
the same run, so a hidden full-size temporary shows.

asv's ``peakmem_`` is the process's peak resident size, setup included: the input (256 MiB), the
result (``copy``: a C-contiguous copy of a 8192 x 8192 transpose, 256 MiB; ``cast``: float32 to
float64, 512 MiB; ``sum``: over axis 0, 32 KiB) and what the libraries and asv themselves hold.
Results are checked against NumPy's once per process, 512 rows at a time, so that the check,
which runs in setup for either library alike, adds no full-size temporary of its own. dlnumba's
kernels are compiled into Numba's disk cache by a forked child first, so that the process
measured only loads them: the compiler's memory (over 100 MiB) is not a temporary.
"""

import os

import numpy as np

import dlnumba as xp

from ._common import assert_matches, check_once, convert

_N = 8192
# operation: (dlnumba, NumPy, rows i:j of the exact result)
_OPERATIONS = {
    "copy": (lambda x: xp.asarray(x.T, copy=True), lambda a: np.ascontiguousarray(a.T),
             lambda a, i, j: a.T[i:j]),
    "cast": (lambda x: xp.astype(x, xp.float64), lambda a: a.astype(np.float64),
             lambda a, i, j: a[i:j].astype(np.float64)),
    "sum": (lambda x: xp.sum(x, axis=0), lambda a: np.sum(a, axis=0),
            lambda a, i, j: np.sum(a[:, i:j], axis=0, dtype=np.float64).astype(np.float32)),
}


def _compile_in_child(run, x):
    """Call ``run(x)`` in a forked child: its kernels land in Numba's disk cache."""
    pid = os.fork()
    if pid == 0:
        try:
            run(x)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _input():
    """8192 x 8192 float32 whole numbers (24 i + j) mod 1021, made without a temporary: no two
    rows alike, and the column sums are exact in float32 whatever the order of the additions."""
    a = np.empty((_N, _N), dtype=np.float32)
    np.add(24 * np.arange(_N)[:, None], np.arange(_N), out=a)
    return np.remainder(a, 1021, out=a)


def _check(result, a, rows):
    result = np.asarray(result)
    assert result.flags.c_contiguous
    for i in range(0, len(result), 512):
        assert_matches(result[i:i + 512], rows(a, i, i + 512))


class PeakMemLarge:
    params = (list(_OPERATIONS), ["dlnumba", "numpy"])
    param_names = ("operation", "library")

    def setup(self, operation, library):
        a = _input()
        self.x = convert(library, a)
        self.run = _OPERATIONS[operation][library == "numpy"]
        if library == "dlnumba":
            check_once(("compiled", operation), lambda: _compile_in_child(self.run, self.x))
        check_once((operation, library), lambda: _check(self.run(self.x), a,
                                                        _OPERATIONS[operation][2]))

    def peakmem_operation(self, operation, library):
        self.run(self.x)
