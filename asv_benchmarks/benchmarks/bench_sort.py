"""Sorting: ``sort`` and ``argsort`` of 64K and 4M values drawn as NumPy's own sort benchmarks
draw them (``bench_function_base.SortGenerator``) and as users' data comes, dlnumba against
NumPy and PyTorch on the same inputs, in the same run.

``TimeSort`` asks every library for its fastest sort (``stable=False``; NumPy's default kind),
``TimeStableSort`` for a stable one. The data:

- NumPy's distributions: ``random`` (a shuffled ``arange``), ``ordered``, ``reversed``,
  ``uniform`` (one value), ``sorted_block_10/100/1000`` (sorted blocks of that many values,
  interleaved), ``swapped_pair`` (an ``arange`` with 1% of random pairs swapped),
  ``random_unsorted_area`` (an ``arange`` with random areas of 100 shuffled, 10% of it);
- ``full_range``: integers over the dtype's whole range, floats uniform in [0, 1);
- ``normal``: standard normal floats, integers ``2**20`` times one;
- ``nan_inf``: normal floats with 5% NaN, 5% +inf and 5% -inf (floats only);
- ``few_distinct``: a thousand distinct values, each repeated.

Sorted values are compared with NumPy's; an argsort must order the input, and a stable one must
equal NumPy's stable argsort. Checked once per process.
"""

import numpy as np

from ._common import assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]
DTYPES = ["int32", "int64", "float32", "float64"]
DATA = ["random", "ordered", "reversed", "uniform", "sorted_block_10", "sorted_block_100",
        "sorted_block_1000", "swapped_pair", "random_unsorted_area", "full_range", "normal",
        "nan_inf", "few_distinct"]
SIZES = [1 << 16, 1 << 22]


def _values(data, size, dtype):
    """``size`` values of ``dtype`` drawn as ``data`` says (see the module docstring)."""
    rng = np.random.default_rng(1792364059)
    dtype = np.dtype(dtype)
    steps = np.arange(size, dtype=dtype)
    if data == "random":
        rng.shuffle(steps)
        return steps
    if data == "ordered":
        return steps
    if data == "reversed":
        return steps[::-1].copy()
    if data == "uniform":
        return np.ones(size, dtype)
    if data.startswith("sorted_block_"):  # SortGenerator.sorted_block: steps[i::blocks], i = 0..
        blocks = size // int(data.rsplit("_", 1)[1])
        return steps[np.argsort(np.arange(size) % blocks, kind="stable")]
    if data == "swapped_pair":
        for x, y in rng.integers(0, size, (size // 100, 2)):
            steps[x], steps[y] = steps[y], steps[x]
        return steps
    if data == "random_unsorted_area":
        for start in rng.integers(0, size - 100, size // 1000):
            rng.shuffle(steps[start:start + 100])
        return steps
    if data == "full_range":
        if dtype.kind == "i":
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
        return rng.random(size, dtype=dtype)
    if data == "normal":
        normal = rng.standard_normal(size)
        return (normal if dtype.kind == "f" else np.round(normal * 2 ** 20)).astype(dtype)
    if data == "nan_inf":
        if dtype.kind != "f":
            raise NotImplementedError("integers have no NaN or infinities")
        values = rng.standard_normal(size).astype(dtype)
        special = rng.random(size)
        values[special < 0.15] = np.inf
        values[special < 0.10] = -np.inf
        values[special < 0.05] = np.nan
        return values
    return rng.integers(-500, 500, size).astype(dtype)  # few_distinct


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
    """The fastest sort each library has (dlnumba's ``stable=False``)."""

    params = (["sort", "argsort"], DTYPES, DATA, SIZES, LIBRARIES)
    param_names = ("function", "dtype", "data", "size", "library")
    stable = False
    rounds = 1  # three `make bench` runs give the medians; one round each keeps a run short
    repeat = (2, 5, 5.0)

    def setup(self, function, dtype, data, size, library):
        self.run = _sorter(library, function, self.stable)
        a = cached((dtype, data, size), lambda: _values(data, size, dtype))
        self.x = convert(library, a)
        check_once((function, dtype, data, size, library, self.stable),
                   lambda: _check(function, self.stable, self.run(self.x), a))

    def time_sort(self, function, dtype, data, size, library):
        self.run(self.x)


class TimeStableSort(TimeSort):
    """The stable sorts (dlnumba's every sort, NumPy's ``kind="stable"``, PyTorch's
    ``stable=True``)."""

    stable = True
