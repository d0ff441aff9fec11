"""Array indexing: dlnumba against NumPy and PyTorch on the same arrays and indices, in the same
run.

On 4M float32 values: ``mask_get`` (``x[mask]``, a random boolean mask of half the values),
``mask_set`` (``x[mask] = 0``), ``int_get`` (``x[i]``, 1M random int64 indices), ``int_set``
(``x[i] = 0``), ``take`` (``take(x, i, axis=0)``; PyTorch's ``index_select``) and ``int_get_2d``
(``x[i, j]`` on the values as 2048 x 2048). Results (and arrays after a set) are checked
against NumPy's once per process.
"""

import numpy as np

from ._common import assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]
_N = 4 << 20


def _case(case):
    """The NumPy values and index of ``case``."""
    rng = np.random.default_rng(0)
    values = rng.random(_N, dtype=np.float32)
    if case.startswith("mask"):
        return values, rng.random(_N) < 0.5
    if case == "int_get_2d":
        return values.reshape(2048, 2048), tuple(rng.integers(0, 2048, (2, _N // 4)))
    return values, rng.integers(0, _N, _N // 4)


def _operation(case, library):
    """``case`` as a function of the values and the index, in ``library``."""
    if case.endswith("set"):
        return lambda x, i: x.__setitem__(i, 0)
    if case == "take":
        module = namespace(library)
        if library == "torch":
            return lambda x, i: module.index_select(x, 0, i)
        return lambda x, i: module.take(x, i, axis=0)
    return lambda x, i: x[i]


class TimeIndexing:
    params = (["mask_get", "mask_set", "int_get", "int_set", "take", "int_get_2d"], LIBRARIES)
    param_names = ("case", "library")

    def setup(self, case, library):
        namespace(library)
        self.run = _operation(case, library)
        values, index = cached(case, lambda: _case(case))
        self.x = convert(library, values)
        self.index = (tuple(convert(library, i) for i in index) if isinstance(index, tuple)
                      else convert(library, index))

        def check():
            expected = values.copy()
            result = _operation(case, "numpy")(expected, index)  # a set changes ``expected``
            got = self.run(self.x, self.index)
            if case.endswith("set"):
                got, result = self.x, expected
            assert_matches(got, result)

        check_once((case, library), check)

    def time_index(self, case, library):
        self.run(self.x, self.index)
