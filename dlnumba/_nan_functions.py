"""NaN-skipping reductions, an extension with NumPy's names and semantics (``np.nansum`` ...).

xarray (its default ``skipna``) and Cubed call them on the array's namespace. Each is the
standard reduction of the array with its NaNs replaced by the reduction's identity, so it runs
on the same kernels; arrays that hold no NaN (integers, bool) reduce as they are. As in NumPy,
an all-NaN slice gives NaN for ``nanmax``, ``nanmin``, ``nanmean``, ``nanvar`` and ``nanstd``,
and raises ValueError for ``nanargmax`` and ``nanargmin``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._arguments import check_array
from ._dtypes import FLOATING
from ._elementwise_functions import conj, isnan, logical_not, multiply, real, sqrt, subtract
from ._searching_functions import argmax, argmin, where
from ._statistical_functions import (_ALL, _averaged_dtype, _correction, _requested_dtype,
                                     cumulative_prod, cumulative_sum, max, min, prod, sum)
from ._utility_functions import all, any

if TYPE_CHECKING:
    from ._array_object import ndarray
    from ._typing import Axes, DTypeLike


def _filled(name, x, value):
    """``x`` with its NaNs replaced by ``value`` (``x`` itself if it can hold no NaN)."""
    check_array(name, x, _ALL, "numeric (or bool)")
    if x._dtype.kind not in FLOATING:
        return x
    return where(isnan(x), value, x)


def _counts(x, axis, keepdims, dtype):
    """The number of non-NaN elements along ``axis``, in ``dtype``."""
    return sum(logical_not(isnan(x)), axis=axis, keepdims=keepdims, dtype=dtype)


def nansum(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
           keepdims: bool = False) -> ndarray:
    """:func:`sum` treating NaN as 0."""
    return sum(_filled("nansum", x, 0.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
            keepdims: bool = False) -> ndarray:
    """:func:`prod` treating NaN as 1."""
    return prod(_filled("nanprod", x, 1.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nancumsum(x: ndarray, /, *, axis: int | None = None,
              dtype: DTypeLike | None = None) -> ndarray:
    """:func:`cumulative_sum` treating NaN as 0."""
    return cumulative_sum(_filled("nancumsum", x, 0.0), axis=axis, dtype=dtype)


def nancumprod(x: ndarray, /, *, axis: int | None = None,
               dtype: DTypeLike | None = None) -> ndarray:
    """:func:`cumulative_prod` treating NaN as 1."""
    return cumulative_prod(_filled("nancumprod", x, 1.0), axis=axis, dtype=dtype)


def _extreme(name, reduce, fill, x, axis, keepdims):
    result = reduce(_filled(name, x, fill), axis=axis, keepdims=keepdims)
    if x._dtype.kind not in FLOATING:
        return result
    return where(all(isnan(x), axis=axis, keepdims=keepdims), math.nan, result)


def nanmax(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """:func:`max` of the elements that are not NaN (NaN where all are)."""
    return _extreme("nanmax", max, -math.inf, x, axis, keepdims)


def nanmin(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """:func:`min` of the elements that are not NaN (NaN where all are)."""
    return _extreme("nanmin", min, math.inf, x, axis, keepdims)


def _position(name, reduce, fill, x, axis, keepdims):
    if x._dtype.kind in FLOATING and any(all(isnan(x), axis=axis)):
        raise ValueError(f"{name}: an all-NaN slice has no position")
    return reduce(_filled(name, x, fill), axis=axis, keepdims=keepdims)


def nanargmax(x: ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """:func:`argmax` of the elements that are not NaN; ValueError for an all-NaN slice."""
    return _position("nanargmax", argmax, -math.inf, x, axis, keepdims)


def nanargmin(x: ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """:func:`argmin` of the elements that are not NaN; ValueError for an all-NaN slice."""
    return _position("nanargmin", argmin, math.inf, x, axis, keepdims)


def _dtype(name, x, dtype):
    return _averaged_dtype(name, x) if dtype is None else _requested_dtype(name, x, dtype)


def nanmean(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
            keepdims: bool = False) -> ndarray:
    """:func:`mean` of the elements that are not NaN (NaN where all are)."""
    dtype = _dtype("nanmean", x, dtype)
    total = nansum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return total / _counts(x, axis, keepdims, dtype)


def nanvar(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
           correction: int | float = 0.0, keepdims: bool = False,
           ddof: int | float | None = None) -> ndarray:
    """:func:`var` of the elements that are not NaN, dividing by their number less
    ``correction`` (or ``ddof``); NaN where that is not positive."""
    correction = _correction("nanvar", correction, ddof)
    dtype = _dtype("nanvar", x, dtype)
    means = nanmean(x, axis=axis, dtype=dtype, keepdims=True)
    deviations = subtract(x, means)
    total = nansum(multiply(deviations, conj(deviations)), axis=axis, keepdims=keepdims)
    if dtype.kind == "complex floating":
        total = real(total)
    divisor = _counts(x, axis, keepdims, total._dtype) - correction
    return where(divisor > 0, total / divisor, math.nan)


def nanstd(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
           correction: int | float = 0.0, keepdims: bool = False,
           ddof: int | float | None = None) -> ndarray:
    """:func:`std` of the elements that are not NaN: the square root of :func:`nanvar`."""
    return sqrt(nanvar(x, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims,
                       ddof=ddof))


__all__ = ["nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin",
           "nanprod", "nanstd", "nansum", "nanvar"]
