"""Medians, quantiles and percentiles with NumPy's semantics and methods.

The values are sorted by dlnumba's sort; which sorted positions a quantile reads, and with what
weight, depends only on the number of values and on ``q``, so it is computed on the host as
NumPy computes it (Hyndman and Fan's methods, NumPy's table); the gathers, the interpolation
and the NaN rule run as dlnumba calls on the array's device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._arguments import check_array, normalize_axes
from ._array_object import ndarray
from ._creation_functions import asarray
from ._dtypes import REAL_NUMERIC
from ._elementwise_functions import isnan
from ._indexing_functions import take
from ._layout import size_of
from ._manipulation_functions import permute_dims, reshape
from ._searching_functions import where
from ._sorting_functions import sort
from ._statistical_functions import mean

if TYPE_CHECKING:
    from ._typing import Axes

__all__ = ["median", "percentile", "quantile"]


def _virtual_index(alpha, beta):
    """Hyndman and Fan's continuous methods: the fractional position of ``q`` among ``n``."""
    return lambda n, q: n * q + (alpha + q * (1 - alpha - beta)) - 1


def _boundary(index, take_previous):
    """The discrete methods' position: ``index``'s floor where ``take_previous`` holds for its
    fraction, else the next position; never below 0."""
    previous = np.floor(index)
    chosen = np.where(take_previous(index - previous, index), previous, previous + 1)
    return np.maximum(chosen.astype(np.intp), 0)


def _gamma_where(default, conditioned, condition):
    return lambda gamma, index: np.where(condition(gamma, index), conditioned, default)


# method: (the position of q among n sorted values, the rule for its interpolation weight:
# None where the position is an integer)
_METHODS = {
    "inverted_cdf": (lambda n, q: _boundary(n * q - 1, lambda g, i: g == 0), None),
    "averaged_inverted_cdf": (lambda n, q: n * q - 1,
                              _gamma_where(1.0, 0.5, lambda g, i: g == 0)),
    "closest_observation": (
        lambda n, q: _boundary(n * q - 1 - 0.5, lambda g, i: (g == 0) & (np.floor(i) % 2 == 1)),
        None),
    "interpolated_inverted_cdf": (_virtual_index(0, 1), lambda gamma, index: gamma),
    "hazen": (_virtual_index(0.5, 0.5), lambda gamma, index: gamma),
    "weibull": (_virtual_index(0, 0), lambda gamma, index: gamma),
    "linear": (lambda n, q: (n - 1) * q, lambda gamma, index: gamma),
    "median_unbiased": (_virtual_index(1 / 3.0, 1 / 3.0), lambda gamma, index: gamma),
    "normal_unbiased": (_virtual_index(3 / 8.0, 3 / 8.0), lambda gamma, index: gamma),
    "lower": (lambda n, q: np.floor((n - 1) * q).astype(np.intp), None),
    "higher": (lambda n, q: np.ceil((n - 1) * q).astype(np.intp), None),
    "midpoint": (lambda n, q: 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q)),
                 _gamma_where(0.5, 0.0, lambda g, i: i % 1 == 0)),
    "nearest": (lambda n, q: np.around((n - 1) * q).astype(np.intp), None),
}


def _along_first_axis(x, axis, name):
    """``x`` with the reduced axes merged into its first axis (flattened where ``axis`` is
    None), and the shape of the result with ``keepdims``."""
    if axis is None:
        return reshape(x, (x.size,)), (1,) * x.ndim
    axes = normalize_axes(axis, x.ndim, name)
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    moved = permute_dims(x, (*axes, *kept))
    rest = tuple(x.shape[d] for d in kept)
    merged = reshape(moved, (size_of([x.shape[d] for d in axes]), *rest))
    return merged, tuple(1 if d in axes else n for d, n in enumerate(x.shape))


_REAL = ("bool", *REAL_NUMERIC)  # the kinds whose values sort (dlnumba orders no complex)


def quantile(x: ndarray, q: float | ndarray, /, *, axis: Axes | None = None,
             method: str = "linear", keepdims: bool = False) -> ndarray:
    """The ``q``-th quantiles of ``x`` along ``axis``, as NumPy's ``quantile``.

    Parameters
    ----------
    x : ndarray
        Real or bool values.
    q : float, sequence or array
        Quantiles in ``[0, 1]``: a scalar, or a 1-D or 2-D array of them (the result's first
        dimensions). A Python scalar keeps ``x``'s floating dtype, as in NumPy (NEP 50).
    axis : int or tuple of int, optional
        The axes reduced; all of them by default.
    method : str, optional
        One of NumPy's 13 methods: ``inverted_cdf``, ``averaged_inverted_cdf``,
        ``closest_observation``, ``interpolated_inverted_cdf``, ``hazen``, ``weibull``,
        ``linear`` (the default), ``median_unbiased``, ``normal_unbiased``, ``lower``,
        ``higher``, ``midpoint``, ``nearest``.
    keepdims : bool, optional
        Keep the reduced axes with size 1.

    Returns
    -------
    ndarray
        ``q``'s shape, then ``x``'s kept axes; a slice with a NaN gives that NaN.

    Raises
    ------
    TypeError
        For a complex ``x``.
    ValueError
        For ``q`` outside ``[0, 1]``, an unknown method, or an empty reduction.
    """
    check_array("quantile", x, _REAL, "real or bool")
    return _quantile(x, q, axis, method, keepdims, "quantile", 1)


def percentile(x: ndarray, q: float | ndarray, /, *, axis: Axes | None = None,
               method: str = "linear", keepdims: bool = False) -> ndarray:
    """The ``q``-th percentiles (``q`` in ``[0, 100]``) of ``x``, as NumPy's ``percentile``;
    otherwise as :func:`quantile`."""
    check_array("percentile", x, _REAL, "real or bool")
    return _quantile(x, q, axis, method, keepdims, "percentile", 100)


def _quantile(x, q, axis, method, keepdims, name, scale):
    weak = type(q) in (int, float)
    values = np.asarray(q.to_device("cpu") if isinstance(q, ndarray) else q)
    if scale != 1:
        values = np.true_divide(values, scale)
    if values.ndim > 2:
        raise ValueError(f"{name}: q must be a scalar or 1-D, not {values.ndim}-D")
    if not (values.size == 0 or (values.min() >= 0 and values.max() <= 1)):
        raise ValueError(f"{name}: q must be in the range [0, {scale}], not {q!r}")
    if method not in _METHODS:
        raise ValueError(f"{name}: {method!r} is not a method; use one of {', '.join(_METHODS)}")
    arr, kept_shape = _along_first_axis(x, axis, name)
    n = arr.shape[0]
    if n == 0:
        raise ValueError(f"{name} of an empty set of elements (shape {x.shape}, axis {axis}) "
                         "has no value")
    ordered = sort(arr, axis=0)
    position, fix_gamma = _METHODS[method]
    index = np.asarray(position(n, values))
    rest = arr.shape[1:]
    if fix_gamma is None or method == "linear" and index.dtype.kind in "iu":
        result = _gathered(ordered, index)
    else:
        previous_index = np.array(np.floor(index))
        next_index = np.array(previous_index + 1)
        for bound, outside in ((-1, index >= n - 1), (0, index < 0), (-1, np.isnan(index))):
            previous_index[outside] = next_index[outside] = bound
        gamma = np.asarray(fix_gamma(index - previous_index, index), dtype=index.dtype)
        previous = _gathered(ordered, previous_index.astype(np.intp))
        following = _gathered(ordered, next_index.astype(np.intp))
        result = _lerp(previous, following, gamma, weak, x.device, len(rest))
    if x._dtype.kind == "real floating":
        last = ordered[-1]
        if result.ndim == 0:  # NumPy returns the slice's NaN itself, in x's dtype
            result = last if bool(isnan(last)) else result
        else:
            result = where(isnan(last), last, result)
    if keepdims:
        return reshape(result, values.shape + kept_shape)
    return result


def _gathered(ordered, index):
    """``ordered``'s rows at the sorted positions ``index`` (of ``q``'s shape), in ``q``'s
    shape then the rest."""
    flat = take(ordered, asarray(index.reshape(-1), device=ordered.device), axis=0)
    return reshape(flat, index.shape + ordered.shape[1:])


def _lerp(previous, following, gamma, weak, device, rest_ndim):
    """NumPy's interpolation: ``previous + (following - previous) * gamma``, computed from
    ``following``'s end where ``gamma >= 0.5``; a Python-scalar ``q`` makes ``gamma`` a Python
    float (weak), else a float64 array broadcast over the rest."""
    difference = following - previous
    if weak:
        gamma = float(gamma)
        if gamma >= 0.5:
            return following - difference * (1 - gamma)
        return previous + difference * gamma
    weights = asarray(gamma.reshape(gamma.shape + (1,) * rest_ndim), device=device)
    return where(weights >= 0.5, following - difference * (1 - weights),
                 previous + difference * weights)


def median(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """The median of ``x`` along ``axis``, as NumPy's ``median``: the mean of the middle one or
    two sorted values (so an integer array's is float64), a slice with a NaN gives that NaN, an
    empty one NaN.

    Raises
    ------
    TypeError
        For a complex ``x`` (dlnumba does not order complex numbers).
    """
    check_array("median", x, _REAL, "real or bool")
    arr, kept_shape = _along_first_axis(x, axis, "median")
    n = arr.shape[0]
    ordered = sort(arr, axis=0) if n else arr
    middle = ordered[(n - 1) // 2:n // 2 + 1]
    result = mean(middle, axis=0)
    if n and x._dtype.kind == "real floating":
        last = ordered[-1]
        result = where(isnan(last), last, result)
    if keepdims:
        return reshape(result, kept_shape)
    return result
