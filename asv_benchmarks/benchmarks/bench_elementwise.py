"""Elementwise functions: dlnumba against NumPy and PyTorch on the same operands, in the same
run.

Binary ``add`` and ``multiply`` and unary ``exp``, ``sqrt``, ``log`` and ``sin`` on operands
laid out ``contiguous``, ``transposed`` (2-D) or ``stride2``: ``TimeElementwise`` on 4M elements of
float32 and float64, ``TimeSmallElementwise`` 100 calls on 16 float32 elements (the per-call
overhead). Results are checked against NumPy's (to a few ULP) once per process.
"""

import numpy as np

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

FUNCTIONS = ["add", "multiply", "exp", "sqrt", "log", "sin"]
LAYOUTS = ["contiguous", "transposed", "stride2"]
LIBRARIES = ["dlnumba", "numpy", "torch"]


def _operands(layout, dtype, n):
    """Two NumPy views of ``n`` elements in ``layout``, with values in [0.5, 1.5)."""
    rng = np.random.default_rng(0)
    a, b = (rng.random(2 * n) + 0.5).astype(dtype), (rng.random(2 * n) + 0.5).astype(dtype)
    if layout == "contiguous":
        return a[:n], b[:n]
    if layout == "transposed":
        rows = 1 << (n.bit_length() // 2)
        return a[:n].reshape(rows, -1).T, b[:n].reshape(rows, -1).T
    return a[::2], b[::2]


def _function(library, name):
    """``name`` in ``library`` as a function of two operands (unary ones ignore the second)."""
    if name in ("add", "multiply"):
        return getattr(namespace(library), name)
    unary = getattr(namespace(library), name)
    return lambda x, y: unary(x)


def _prepare(function, dtype, layout, n, library):
    run = _function(library, function)
    a, b = cached((layout, dtype, n), lambda: _operands(layout, dtype, n))
    x, y = convert(library, a), convert(library, b)
    expected = cached((function, layout, dtype, n), lambda: _function("numpy", function)(a, b))
    check_once((function, dtype, layout, n, library), lambda: assert_matches(
        run(x, y), expected, rtol=1e-6 if dtype == "float32" else 1e-14))
    return run, x, y


class TimeElementwise:
    params = (FUNCTIONS, ["float32", "float64"], LAYOUTS, LIBRARIES)
    param_names = ("function", "dtype", "layout", "library")

    def setup(self, function, dtype, layout, library):
        self.run, self.x, self.y = _prepare(function, dtype, layout, 4 << 20, library)

    def time_function(self, function, dtype, layout, library):
        self.run(self.x, self.y)


class TimeSmallElementwise:
    params = (FUNCTIONS, LAYOUTS, LIBRARIES)
    param_names = ("function", "layout", "library")

    def setup(self, function, layout, library):
        self.run, self.x, self.y = _prepare(function, "float32", layout, 16, library)

    def time_100_calls(self, function, layout, library):
        run, x, y = self.run, self.x, self.y
        for _ in range(CALLS):
            run(x, y)
