"""Reductions: dlnumba against NumPy and PyTorch on the same inputs, in the same run.

``TimeReduce``: ``sum``, ``mean``, ``max`` and ``min`` of a 4096 x 4096 float32 array (which
holds one 0.0) over all axes, axis 0 and axis 1. ``TimeArgmax``: ``argmax`` of 16M float32.
``TimeSmallSum``: 100 sums of 16 float32 (the per-call overhead). Float results are checked
against NumPy's float64 ones (rtol 1e-5, the float32 rounding of a pairwise sum) once per
process.
"""

import numpy as np

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]
AXES = {"all": None, "axis0": 0, "axis1": 1}


def _reducer(library, function, axis):
    """``function`` of ``library`` over ``axis`` (PyTorch's ``amax`` and ``amin`` for ``max``
    and ``min``)."""
    module = namespace(library)
    if library == "torch":
        reduce = {"sum": module.sum, "mean": module.mean, "max": module.amax,
                  "min": module.amin}[function]
        return (lambda t: reduce(t)) if axis is None else (lambda t: reduce(t, dim=axis))
    reduce = getattr(module, function)
    return lambda x: reduce(x, axis=axis)


def _random(shape):
    return cached(("random", shape),
                  lambda: np.random.default_rng(0).random(shape, dtype=np.float32))


class TimeReduce:
    params = (["sum", "mean", "max", "min"], list(AXES), LIBRARIES)
    param_names = ("function", "axes", "library")
    # Bound by memory bandwidth, which the machine's tenants share: four rounds (asv's default
    # is two) interleave each library's samples with the others' over a longer time.
    rounds = 4

    def setup(self, function, axes, library):
        self.run = _reducer(library, function, AXES[axes])
        a = _random((4096, 4096))
        self.x = convert(library, a)
        exact = _reducer("numpy", function, AXES[axes])
        check_once((function, axes, library), lambda: assert_matches(
            self.run(self.x), exact(a.astype(np.float64)).astype(np.float32), rtol=1e-5))

    def time_reduce(self, function, axes, library):
        self.run(self.x)


class TimeArgmax:
    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        module = namespace(library)
        a = _random((16 << 20,))
        self.x = convert(library, a)
        self.argmax = module.argmax
        check_once(library, lambda: assert_matches(self.argmax(self.x), np.argmax(a)))

    def time_argmax(self, library):
        self.argmax(self.x)


class TimeSmallSum:
    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        self.sum = namespace(library).sum
        a = np.arange(16, dtype=np.float32)
        self.x = convert(library, a)
        check_once(library, lambda: assert_matches(self.sum(self.x), np.sum(a)))

    def time_100_sums(self, library):
        total, x = self.sum, self.x
        for _ in range(CALLS):
            total(x)
