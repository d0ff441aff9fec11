"""Strided copies: dlnumba against NumPy and PyTorch on the same float32 views, in the same run.

Each case makes a C-contiguous copy of a view in one of five layouts: ``contiguous``,
``transpose`` (2-D), ``stride2``, ``reversed`` and ``permute3d`` (a 3-D permutation), with
``xp.asarray(v, copy=True)``, NumPy's ``v.copy()`` and PyTorch's ``v.clone(memory_format=
torch.contiguous_format)`` (``torch.flip`` for ``reversed``: PyTorch has no negative strides).
``TimeCopy`` copies 1 MiB and 256 MiB results; ``TimeSmallCopy`` times 100 copies of 16 elements
(the per-call overhead). Every result is checked against NumPy's once per process.
"""

import numpy as np

import dlnumba as xp

from ._common import CALLS, MiB, assert_matches, cached, check_once, convert, namespace

LAYOUTS = ["contiguous", "transpose", "stride2", "reversed", "permute3d"]
LIBRARIES = ["dlnumba", "numpy", "torch"]


def _factors(n, parts):
    """``parts`` powers of two whose product is the power of two ``n``, as equal as can be."""
    exponent = n.bit_length() - 1
    return tuple(1 << (exponent * (i + 1) // parts - exponent * i // parts) for i in range(parts))


def _base(n):
    """The contiguous float32 array the views of ``n`` elements are taken from."""
    return cached(("base", n), lambda: np.arange(2 * n, dtype=np.float32))


def _view(layout, library, n):
    """The ``layout`` view of ``n`` float32 elements in ``library``, and NumPy's copy of it."""
    base = _base(n)
    view = {"contiguous": lambda a: a[:n], "transpose": lambda a: a[:n].reshape(_factors(n, 2)).T,
            "stride2": lambda a: a[::2], "reversed": lambda a: a[n - 1::-1],
            "permute3d": lambda a: a[:n].reshape(_factors(n, 3)).transpose(2, 0, 1)}[layout]
    expected = cached(("expected", layout, n), lambda: view(base).copy())
    if library == "torch" and layout == "reversed":
        return convert(library, base[:n]), expected
    return convert(library, view(base)), expected


def _copy(library, layout):
    """The copy ``library`` makes of a view (``layout`` picks PyTorch's ``flip``)."""
    if library == "dlnumba":
        return lambda v: xp.asarray(v, copy=True)
    if library == "numpy":
        return np.ndarray.copy
    torch = namespace("torch")
    if layout == "reversed":
        return lambda v: torch.flip(v, (0,))
    return lambda v: v.clone(memory_format=torch.contiguous_format)


def _prepare(layout, n, library):
    namespace(library)
    v, expected = _view(layout, library, n)
    copy = _copy(library, layout)

    def check():
        result = copy(v)
        assert_matches(result, expected)
        result = np.asarray(result)
        assert result.flags.c_contiguous and not np.may_share_memory(result, _base(n))

    check_once((layout, n, library), check)
    return copy, v


class TimeCopy:
    params = (LAYOUTS, ["1 MiB", "256 MiB"], LIBRARIES)
    param_names = ("layout", "size", "library")

    def setup(self, layout, size, library):
        self.copy, self.view = _prepare(layout, int(size.split()[0]) * MiB // 4, library)

    def time_copy(self, layout, size, library):
        self.copy(self.view)


class TimeSmallCopy:
    params = (LAYOUTS, LIBRARIES)
    param_names = ("layout", "library")

    def setup(self, layout, library):
        self.copy, self.view = _prepare(layout, 16, library)

    def time_100_copies(self, layout, library):
        copy, view = self.copy, self.view
        for _ in range(CALLS):
            copy(view)
