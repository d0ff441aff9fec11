"""Sorting: ``sort`` and ``argsort`` of 4M random values, dlnumba against NumPy and PyTorch on
the same inputs, in the same run.

dlnumba's sort is always stable; ``kind="default"`` gives the peers their fastest (unstable)
sort, ``kind="stable"`` asks them for a stable one. float64 and float32 values are random in
[0, 1) (float32 ones repeat now and then), int32 ones repeat (a thousand distinct values).
Sorted values are compared with NumPy's; an argsort must order the input, and a stable one must
equal NumPy's stable argsort. Checked once per process.
"""

import numpy as np

from ._common import assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]


def _values(dtype):
    rng = np.random.default_rng(0)
    if dtype in ("float64", "float32"):
        return rng.random(4 << 20, dtype=dtype)
    return rng.integers(-500, 500, 4 << 20, dtype=np.int32)


def _sorter(library, function, stable):
    """``function`` (sort or argsort) of ``library``; the values for PyTorch's ``torch.sort``."""
    module = namespace(library)
    if library == "dlnumba":
        return lambda x: getattr(module, function)(x, stable=stable)
    if library == "numpy":
        kind = "stable" if stable else None
        return lambda a: getattr(module, function)(a, kind=kind)
    if function == "sort":
        return lambda t: module.sort(t, stable=stable).values
    return lambda t: module.argsort(t, stable=stable)


def _check(function, stable, result, a):
    if function == "sort":
        assert_matches(result, np.sort(a))
    elif stable:
        assert_matches(result, np.argsort(a, kind="stable"))
    else:
        assert_matches(a[np.asarray(result)], np.sort(a))


class TimeSort:
    params = (["sort", "argsort"], ["float64", "float32", "int32"], ["default", "stable"],
              LIBRARIES)
    param_names = ("function", "dtype", "kind", "library")

    def setup(self, function, dtype, kind, library):
        self.run = _sorter(library, function, kind == "stable")
        a = cached(dtype, lambda: _values(dtype))
        self.x = convert(library, a)
        check_once((function, dtype, kind, library),
                   lambda: _check(function, kind == "stable", self.run(self.x), a))

    def time_sort(self, function, dtype, kind, library):
        self.run(self.x)
