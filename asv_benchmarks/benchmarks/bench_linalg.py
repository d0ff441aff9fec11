"""Matrix multiplication: ``x @ y`` in dlnumba against NumPy and PyTorch on the same operands,
in the same run.

Shapes: 16 x 16 (timed over 100 calls: the per-call overhead), 1024 x 1024, and a batch of
256 products of 32 x 32; float32 and float64 (every library calls a BLAS). Results are checked
against NumPy's float64 product once per process (not before every sample: NumPy's BLAS
threads spin for a while after a call, sharing the cores with the library being timed).
"""

import numpy as np

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]
SHAPES = {"1024x1024": (1024, 1024), "256x32x32": (256, 32, 32)}


def _operands(shape, dtype):
    rng = np.random.default_rng(0)
    return rng.random(shape).astype(dtype), rng.random(shape).astype(dtype)


def _prepare(shape, dtype, library):
    namespace(library)
    a, b = cached((shape, dtype), lambda: _operands(shape, dtype))
    x, y = convert(library, a), convert(library, b)
    check_once((shape, dtype, library), lambda: assert_matches(
        x @ y, (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype),
        rtol=1e-4 if dtype == "float32" else 1e-12))
    return x, y


class TimeMatmul:
    params = (list(SHAPES), ["float32", "float64"], LIBRARIES)
    param_names = ("shape", "dtype", "library")

    def setup(self, shape, dtype, library):
        self.x, self.y = _prepare(SHAPES[shape], dtype, library)

    def time_matmul(self, shape, dtype, library):
        self.x @ self.y


class TimeSmallMatmul:
    params = (["float32", "float64"], LIBRARIES)
    param_names = ("dtype", "library")

    def setup(self, dtype, library):
        self.x, self.y = _prepare((16, 16), dtype, library)

    def time_100_matmuls(self, dtype, library):
        x, y = self.x, self.y
        for _ in range(CALLS):
            x @ y
