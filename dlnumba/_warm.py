"""``python -m dlnumba warm [DTYPE ...]``: fill Numba's cache with the kernels of common calls.

Run once while building a container image (or to fill a CI cache), it makes every later process
start warm: the first calls of the functions below load their kernels from the cache in
milliseconds instead of compiling them. Each function runs on a small array (the small-array
engine) and on a large one (the vectorized kernels) of each dtype (default: float64, float32,
int64 and bool); a function that does not take a dtype is passed over. The cache is
``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` next to dlnumba's sources.
"""

import time

import numpy as np

import dlnumba as xp

DTYPES = ("float64", "float32", "int64", "bool")
_SIZES = (6, 1 << 15)  # below and above the small-array engine's limit (2**14 elements)


def _calls(a):
    """(name, call) of the common functions on the 2-D array ``a``."""
    mask = a == a
    rows = xp.asarray([0, 1, 1])
    yield from [
        ("asarray", lambda: xp.asarray(np.asarray(a), copy=True)),
        ("from_dlpack", lambda: xp.from_dlpack(np.asarray(a))),
        ("astype float64", lambda: xp.astype(a, xp.float64)),
        ("astype int64", lambda: xp.astype(a, xp.int64)),
        ("copy of a transpose", lambda: xp.asarray(xp.matrix_transpose(a), copy=True)),
        ("concat", lambda: xp.concat([a, a])),
    ]
    for name in ("add", "subtract", "multiply", "divide", "equal", "less", "greater",
                 "maximum", "minimum", "logical_and", "logical_or"):
        yield name, lambda name=name: getattr(xp, name)(a, a)
    for name in ("abs", "negative", "exp", "log", "sqrt", "sin", "cos", "tanh", "isnan",
                 "logical_not"):
        yield name, lambda name=name: getattr(xp, name)(a)
    for name in ("sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "any",
                 "all"):
        yield name, lambda name=name: getattr(xp, name)(a)
        yield f"{name} axis 0", lambda name=name: getattr(xp, name)(a, axis=0)
    yield from [
        ("cumulative_sum", lambda: xp.cumulative_sum(a, axis=1)),
        ("where", lambda: xp.where(mask, a, a)),
        ("sort", lambda: xp.sort(a)),
        ("argsort", lambda: xp.argsort(a)),
        ("unique_values", lambda: xp.unique_values(a)),
        ("matmul", lambda: a @ xp.matrix_transpose(a)),
        ("take", lambda: xp.take(a, rows, axis=0)),
        ("boolean mask", lambda: a[mask]),
        ("nonzero", lambda: xp.nonzero(a)),
    ]


def run(dtypes=DTYPES, report=print):
    """Call the common functions on small and large arrays of ``dtypes`` (names)."""
    for name in dtypes:
        dtype = getattr(xp, name, None)
        if not isinstance(dtype, np.dtype):
            raise ValueError(f"{name!r} is not a dlnumba dtype")
        start, count = time.perf_counter(), 0
        for size in _SIZES:
            a = xp.reshape(xp.astype(xp.arange(size) % 7, dtype), (2, size // 2))
            for _, call in _calls(a):
                try:
                    call()
                except TypeError:
                    continue  # a function that does not take this dtype
                count += 1
        report(f"{name}: {count} calls in {time.perf_counter() - start:.1f} s")
