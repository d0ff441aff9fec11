"""Sorting functions: sort, argsort (``kernels.sorting``: a stable radix sort, and with AVX-512
a quicksort of the keys of values, or of 64-bit keys packed with their positions).

The order is NumPy's: NaNs after +inf (before everything when descending), -0 equal to +0,
complex numbers by real part then imaginary part, NaN components after numbers. Every sort is
stable: equal elements keep their order, in descending sorts too. bool and complex arrays sort
as NumPy sorts them (the standard asks only for real numbers).
"""

from __future__ import annotations

from ._arguments import normalize_axis, on_host
from ._array_object import ndarray
from ._dtypes import int64
from .kernels.sorting import sort_axis

__all__ = ["argsort", "sort"]


@on_host
def sort(x: ndarray, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> ndarray:
    """A sorted copy of ``x`` along ``axis``.

    Parameters
    ----------
    x : ndarray
    axis : int
        The axis to sort along (negative counts from the end).
    descending : bool
        Largest first (NaNs first); equal elements still keep their order.
    stable : bool
        Ignored: every sort gives the stable result (a radix sort, an insertion sort of rows
        nearly in order, or for values whose keys differ in few bits a counting sort, none of
        which costs more for it; the quicksort of short rows of values, and of values whose
        keys differ in many bits, on CPUs with AVX-512, gives it too, since equal keys are
        equal values, and for positions of 64-bit keys, since the positions are packed into
        the keys it sorts).
    """
    return _sort("sort", x, axis, descending, stable, None)


@on_host
def argsort(x: ndarray, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> ndarray:
    """The int64 positions along ``axis`` that sort ``x`` (see :func:`sort`)."""
    return _sort("argsort", x, axis, descending, stable, int64)


def _sort(name, x, axis, descending, stable, dtype):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    if type(descending) is not bool or type(stable) is not bool:
        flag, value = ("descending", descending) if type(descending) is not bool else \
            ("stable", stable)
        raise TypeError(f"{name}: {flag} must be a bool, not {value!r}")
    axis = normalize_axis(axis, x.ndim, name)
    out = ndarray._empty(x._shape, dtype or x._dtype, x._device)
    sort_axis(x, axis, out, descending, dtype is not None)
    return out
