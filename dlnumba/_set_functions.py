"""Set functions: unique_all, unique_counts, unique_inverse, unique_values, isin.

Unique values come out sorted (NumPy's order, see ``_sorting_functions``): a stable sort of
the flattened array groups equal values, each NaN alone; -0 and +0 are one value, shown as the
first of them in ``x``. ``isin`` searches each element in a sorted copy of ``x2``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import kernels
from ._arguments import on_host
from ._array_object import ndarray
from ._dtypes import INTEGER, bool as bool_, common_dtype, int64
from ._layout import c_strides
from .kernels.sorting import group_sorted, key_layout, search_sorted, sort_axis
from .kernels.walk import Direct

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    """The result of :func:`unique_all`."""

    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    """The result of :func:`unique_counts`."""

    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    """The result of :func:`unique_inverse`."""

    values: ndarray
    inverse_indices: ndarray


@on_host
def unique_all(x: ndarray, /) -> UniqueAllResult:
    """The unique values of ``x`` (flattened, sorted), the position in ``x.reshape(-1)`` of the
    first occurrence of each, the index into ``values`` of each element of ``x`` (``x``'s
    shape), and how often each occurs."""
    return UniqueAllResult(*_unique("unique_all", x, positions=True))


@on_host
def unique_counts(x: ndarray, /) -> UniqueCountsResult:
    """The unique values of ``x`` (flattened, sorted) and how often each occurs."""
    values, _, _, counts = _unique("unique_counts", x)
    return UniqueCountsResult(values, counts)


@on_host
def unique_inverse(x: ndarray, /) -> UniqueInverseResult:
    """The unique values of ``x`` (flattened, sorted) and the index into them of each element
    of ``x`` (an array of ``x``'s shape)."""
    values, _, inverse, _ = _unique("unique_inverse", x, positions=True)
    return UniqueInverseResult(values, inverse)


@on_host
def unique_values(x: ndarray, /) -> ndarray:
    """The unique values of ``x`` (flattened, sorted)."""
    return _unique("unique_values", x)[0]


def _unique(name, x, positions=False):
    """Values, first positions, inverse indices and counts; without ``positions`` the values
    are sorted themselves (faster) and only values and counts are made."""
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    flat = _flat(x)
    n = flat.size
    if positions:
        order = ndarray._empty((n,), int64, x.device)
        sort_axis(flat, 0, order, False, True)
        inverse = ndarray._empty(x.shape, int64, x.device)
        order, inverse_out = order._numpy(), inverse._numpy().reshape(-1)
    else:
        ordered = ndarray._empty((n,), x._dtype, x.device)
        sort_axis(flat, 0, ordered, False, False)
        flat, order, inverse, inverse_out = ordered, _NO_ORDER, None, _NO_ORDER
    first, counts = (ndarray._empty((n,), int64, x.device) for _ in range(2))
    unit, codec, components = key_layout(x._dtype)
    runs = _GROUP_SORTED(unit.itemsize, flat._address, n, order, unit, codec, components,
                         first._numpy(), counts._numpy(), inverse_out)
    first, counts = (a._view(0, (runs,), (1,))._copy() for a in (first, counts))
    values = ndarray._empty((runs,), x._dtype, x.device)
    kernels.gather(flat._address, first._numpy(), values._address, x._dtype.itemsize)
    return values, first, inverse, counts


_GROUP_SORTED = Direct(group_sorted)  # by the size of the keys' unit


def _flat(x, dtype=None):
    """``x`` as a 1-D C-ordered array of ``dtype`` (itself or a view when it can be)."""
    dtype = dtype or x._dtype
    if dtype is not x._dtype or x._strides != c_strides(x.shape):
        x = x._copy(dtype)
    return x._view(0, (x.size,), (1,))


@on_host
def isin(x1: ndarray | int, x2: ndarray | int, /, *, invert: bool = False) -> ndarray:
    """Whether each element of ``x1`` equals some element of ``x2`` (NaN equals nothing).

    Either may be a Python int when the other is an integer array; the result is a bool
    array of ``x1``'s shape (0-d for an int ``x1``).

    Raises
    ------
    TypeError
        For dtypes that do not promote together, or a scalar that is not an int with an
        integer array.
    """
    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, not {invert!r}")
    x1, x2 = (_operand(x, other) for x, other in ((x1, x2), (x2, x1)))
    if x1.device != x2.device:
        raise ValueError(f"isin: arrays on {x1.device} and {x2.device} cannot be combined")
    dtype = common_dtype(x1._dtype, x2._dtype)
    haystack = _flat(x2, dtype)
    ordered = ndarray._empty(haystack.shape, dtype, x2.device)
    sort_axis(haystack, 0, ordered, False, False)
    values = _flat(x1, dtype)
    out = ndarray._empty(x1.shape, bool_, x1.device)
    search_sorted(ordered._address, ordered.size, 1, _NO_ORDER, values._address,
                  *key_layout(dtype), 2 + invert, out._numpy().reshape(-1))
    return out


def _operand(x, other):
    """``x`` as an array: a Python int becomes a 0-d array of the integer array ``other``'s
    dtype."""
    if isinstance(x, ndarray):
        return x
    if not isinstance(other, ndarray):
        raise TypeError(f"isin expects arrays, or an array and a Python int; got "
                        f"{type(x).__name__} and {type(other).__name__}")
    if type(x) is not int or other._dtype.kind not in INTEGER:
        raise TypeError(f"isin takes a Python scalar only as an int with an integer array, "
                        f"not {x!r} with a {other._dtype} array")
    from ._creation_functions import asarray
    return asarray(x, dtype=other._dtype, device=other.device)


_NO_ORDER = np.empty(0, np.int64)
