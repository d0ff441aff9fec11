"""Matrix multiplication against NumPy on the same inputs, in the same run (ratio = NumPy's
time / dlnumba's)."""

import numpy as np

import dlnumba as xp

# Checked once per process: asv runs setup before every sample, and the peer's BLAS threads
# spin for a while after a call, sharing the cores with the library being timed.
_CHECKED = set()


class TimeMatmul:
    params = (["float32", "float64"], ["dlnumba", "numpy"])
    param_names = ("dtype", "library")

    def setup(self, dtype, library):
        rng = np.random.default_rng(0)
        a = rng.random((1024, 1024)).astype(dtype)
        b = rng.random((1024, 1024)).astype(dtype)
        x, y = xp.asarray(a), xp.asarray(b)
        if dtype not in _CHECKED:
            np.testing.assert_allclose(np.from_dlpack(x @ y), a @ b,
                                       rtol=1e-4 if dtype == "float32" else 1e-12)
            _CHECKED.add(dtype)
        self.run = (lambda: x @ y) if library == "dlnumba" else (lambda: a @ b)

    def time_matmul(self, dtype, library):
        self.run()
