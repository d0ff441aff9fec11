"""Elementwise functions against NumPy on the same inputs, in the same run.

4M-element float32/float64 operands, contiguous, transposed or stride-2; and a 16-element
``x + y`` for the per-call overhead. Quote ratios (NumPy's time / dlnumba's).
"""

import numpy as np

import dlnumba as xp

_N = 4 << 20


def _operands(layout, dtype):
    rng = np.random.default_rng(0)
    a = (rng.random(2 * _N) + 0.5).astype(dtype)
    b = (rng.random(2 * _N) + 0.5).astype(dtype)
    if layout == "contiguous":
        return a[:_N], b[:_N]
    if layout == "transposed":
        return a[:_N].reshape(2048, -1).T, b[:_N].reshape(2048, -1).T
    return a[::2], b[::2]


_OURS = {"add": lambda x, y: x + y, "multiply": lambda x, y: x * y,
         "exp": lambda x, y: xp.exp(x), "sqrt": lambda x, y: xp.sqrt(x)}
_THEIRS = {"add": np.add, "multiply": np.multiply, "exp": lambda a, b: np.exp(a),
           "sqrt": lambda a, b: np.sqrt(a)}


class TimeElementwise:
    params = (["add", "multiply", "exp", "sqrt"], ["float32", "float64"],
              ["contiguous", "transposed", "stride2"], ["dlnumba", "numpy"])
    param_names = ("function", "dtype", "layout", "library")

    def setup(self, function, dtype, layout, library):
        a, b = _operands(layout, dtype)
        x, y = xp.asarray(a), xp.asarray(b)
        expected = _THEIRS[function](a, b)
        np.testing.assert_allclose(np.from_dlpack(_OURS[function](x, y)), expected,
                                   rtol=4e-7 if dtype == "float32" else 1e-15)
        self.run = (lambda: _OURS[function](x, y)) if library == "dlnumba" else (
            lambda: _THEIRS[function](a, b))

    def time_function(self, function, dtype, layout, library):
        self.run()


class TimeSmallAdd:
    params = ["dlnumba", "numpy", "array_api_strict"]
    param_names = ["library"]

    def setup(self, library):
        a = np.arange(16.0)
        if library == "dlnumba":
            x = xp.asarray(a)
        elif library == "numpy":
            x = a
        else:
            try:
                import array_api_strict
            except ImportError:
                raise NotImplementedError("array_api_strict is not installed")
            x = array_api_strict.asarray(a)
        self.x = x
        np.testing.assert_array_equal(np.asarray(np.from_dlpack(x + x)), a + a)

    def time_add(self, library):
        self.x + self.x
