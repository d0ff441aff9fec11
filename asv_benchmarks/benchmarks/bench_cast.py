"""Casts: ``xp.astype`` against NumPy's ``astype`` and PyTorch's ``Tensor.to`` on the same
contiguous inputs, in the same run.

``TimeCast`` casts 16M elements (64 MiB of float32); ``TimeSmallCast`` times 100 casts of 16
elements. Results are compared bit for bit with NumPy's once per process.
"""

import numpy as np

import dlnumba as xp

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

CASTS = ["float32->float64", "float64->float32", "int32->float32", "float64->float16",
         "float64->int32"]
LIBRARIES = ["dlnumba", "numpy", "torch"]


def _source(dtype, n):
    """``n`` values of ``dtype``: wholes and halves from -35000 to 35000, which every target
    here holds (float16 rounding them, int32 truncating)."""
    return (np.arange(n, dtype=np.float64) % 140001 / 2 - 35000).astype(dtype)


def _caster(library, target):
    """The function that casts an array of ``library`` to the dtype named ``target``."""
    if library == "dlnumba":
        dtype = getattr(xp, target)
        return lambda x: xp.astype(x, dtype)
    if library == "numpy":
        return lambda a: a.astype(target)
    dtype = getattr(namespace("torch"), target)
    return lambda t: t.to(dtype)


def _prepare(cast, n, library):
    source, target = cast.split("->")
    run = _caster(library, target)
    a = cached(("source", source, n), lambda: _source(source, n))
    x = convert(library, a)
    expected = cached(("expected", cast, n), lambda: a.astype(target))
    bits = f"u{expected.itemsize}"
    check_once((cast, n, library),
               lambda: assert_matches(np.asarray(run(x)).view(bits), expected.view(bits)))
    return run, x


class TimeCast:
    params = (CASTS, LIBRARIES)
    param_names = ("cast", "library")

    def setup(self, cast, library):
        self.run, self.x = _prepare(cast, 16 << 20, library)

    def time_cast(self, cast, library):
        self.run(self.x)


class TimeSmallCast:
    params = (CASTS, LIBRARIES)
    param_names = ("cast", "library")

    def setup(self, cast, library):
        self.run, self.x = _prepare(cast, 16, library)

    def time_100_casts(self, cast, library):
        run, x = self.run, self.x
        for _ in range(CALLS):
            run(x)
