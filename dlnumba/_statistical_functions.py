"""Statistical functions of the array API standard, on the Numba reduction engine
(``kernels.reduction``), and the helpers the reductions of the utility and searching
categories share with them.

Reductions accumulate in a computation dtype (the result's, float32 for float16/bfloat16 and
the default integer dtypes for integer sums and products) and cast once at the end.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ._arguments import check_array, normalize_axes, normalize_axis
from ._array_object import ndarray
from ._backend import backend_of
from ._elementwise_functions import _binary, _unary
from ._dtypes import (DTYPES, FLOATING, NUMERIC, REAL_NUMERIC, REAL_OF_COMPLEX, as_dtype,
                      bool as bool_, computation_dtype, float64, int64, uint64, uint8)
from ._layout import MAX_NDIM, c_layout, c_strides, size_of
from ._mode import is_strict
from ._traced import Traced, traced

if TYPE_CHECKING:
    from ._typing import Axes, DTypeLike

_ALL = ("bool",) + NUMERIC
_SAME_ACCUMULATION = ("real floating", "complex floating")  # sum and prod keep these dtypes
_ALL_AXES = [tuple(range(ndim)) for ndim in range(MAX_NDIM + 1)]
# The dtypes of the lean paths: those reduced in themselves, sums and products of the floating
# ones, maxima and minima of the real numeric ones.
_LEAN_SUMS = frozenset(d for d in DTYPES if d.kind in _SAME_ACCUMULATION
                       and computation_dtype(d) is d)
_LEAN_EXTREMES = frozenset(d for d in DTYPES if d.kind in REAL_NUMERIC
                           and computation_dtype(d) is d)


def _axes(name, x, axis):
    """The reduced axes as a sorted tuple of non-negative ints (all for None)."""
    if axis is None:
        return _ALL_AXES[len(x._shape)]
    ndim = len(x._shape)
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, kept lean
        return (axis % ndim,)
    if not isinstance(axis, tuple):
        normalize_axis(axis, ndim, name)  # an int: checked as one (a list is refused)
    return tuple(sorted(normalize_axes(axis, ndim, name)))


def _check_keepdims(name, keepdims):
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, not {keepdims!r}")


def _shaped(result, x, axes, keepdims):
    """``result`` (the kept dimensions, C-contiguous) with the reduced ones as size-1 dims."""
    if not keepdims:
        return result
    shape = tuple(1 if d in axes else n for d, n in enumerate(x._shape))
    return result._view(0, shape, c_strides(shape))


def real_numeric(name, x):
    """``x`` checked to be of a real numeric dtype, for ordering it; outside strict mode a bool
    ``x`` is taken too, as NumPy takes it, and returned as a uint8 view (False before True)."""
    if isinstance(x, ndarray) and x._dtype is bool_ and not is_strict():
        return ndarray._new(x._address, x._shape, x._strides, uint8, x._device, x._owner,
                            x._readonly)
    check_array(name, x, REAL_NUMERIC, "real numeric")
    return x


def _averaged_dtype(name, x):
    """The floating dtype ``mean``, ``var`` and ``std`` compute ``x``'s in: its own; outside
    strict mode, float64 for an integer or bool ``x``, as NumPy does."""
    check_array(name, x)
    if x._dtype.kind in FLOATING:
        return x._dtype
    if is_strict():
        raise TypeError(f"{name} takes arrays of floating-point dtypes, not {x._dtype}")
    return float64


def _requested_dtype(name, x, dtype):
    """The floating ``dtype`` asked of ``mean`` (an extension: TypeError in strict mode)."""
    if is_strict():
        raise TypeError(f"{name} takes no dtype argument in the standard (strict mode)")
    check_array(name, x)
    dtype = as_dtype(dtype)
    if dtype.kind not in FLOATING or (
            x._dtype.kind == "complex floating" and dtype.kind != "complex floating"):
        raise TypeError(f"{name}: dtype must be a floating dtype that holds {x._dtype} values, "
                        f"not {dtype}")
    return dtype


def _reduce(name, op, x, axes, acc_dtype):
    """A new array of the kept dimensions: the reduction ``op`` along ``axes`` in
    ``acc_dtype``."""
    backend = backend_of(x._device)
    shape, strides, nbytes, job = _reduction(op, x._shape, x._strides, x._dtype, axes,
                                             acc_dtype, backend)
    if job is None:
        acc = ndarray._empty(shape, acc_dtype, x._device)
        backend.reduce_array(op, x._address, x._strides, x._dtype, x._shape, axes,
                             acc._address, acc_dtype)
        return acc
    address, owner = backend.allocate(nbytes)
    job.call(x._address, address)
    return ndarray._new(address, shape, strides, acc_dtype, x._device, owner, False)


@functools.lru_cache(maxsize=4096)
def _reduction(op, shape, strides, dtype, axes, acc_dtype, backend):
    """The accumulator's shape, strides and size in bytes, and the backend's job (or None)."""
    kept = tuple(n for d, n in enumerate(shape) if d not in axes)
    size, kept_strides = c_layout(kept)
    return (kept, kept_strides, size * acc_dtype.itemsize,
            backend.reduce_job(op, shape, strides, dtype, axes, acc_dtype))


def _reduced_size(x, axes):
    return size_of([x._shape[d] for d in axes])


def _divide(acc, count):
    """``acc /= count`` (a float or complex array by a Python number)."""
    _binary("divide", acc, complex(count) if acc._dtype.kind == "complex floating"
            else float(count), out=acc)


def _accumulation_dtype(name, x, dtype):
    """The result dtype of ``sum``, ``prod`` and the cumulative forms: ``dtype`` if given, else
    the standard's default (int64 for bool and signed, uint64 for unsigned integers)."""
    if dtype is not None:
        dtype = as_dtype(dtype)
        if dtype.kind not in NUMERIC:
            raise TypeError(f"{name}: dtype must be a numeric dtype, not {dtype}")
        if x._dtype.kind == "complex floating" and dtype.kind != "complex floating":
            raise TypeError(f"{name}: a {x._dtype} array cannot be accumulated in {dtype}; take "
                            "real() or imag() first")
        return dtype
    if x._dtype.kind in ("bool", "signed integer"):
        return int64
    return uint64 if x._dtype.kind == "unsigned integer" else x._dtype


def _sum_or_prod(name, op, x, axis, dtype, keepdims):
    if type(x) is ndarray and dtype is None and keepdims is False and x._dtype in _LEAN_SUMS:
        return _reduce(name, op, x, _ALL_AXES[len(x._shape)] if axis is None
                       else _axes(name, x, axis), x._dtype)  # kept lean
    if isinstance(x, Traced):
        return traced(name, x, axis=axis, dtype=dtype, keepdims=keepdims)
    check_array(name, x, _ALL, "numeric (or bool)")
    _check_keepdims(name, keepdims)
    axes = _axes(name, x, axis)
    dtype = _accumulation_dtype(name, x, dtype)
    result = _reduce(name, op, x, axes, computation_dtype(dtype))
    return _shaped(result if result._dtype is dtype else result._copy(dtype), x, axes, keepdims)


def sum(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
        keepdims: bool = False) -> ndarray:
    """Sum of the elements along ``axis`` (None: all; an int or a tuple of ints).

    ``dtype`` defaults to int64 for bool and signed integers, uint64 for unsigned integers, and
    ``x``'s dtype otherwise; the sum of no elements is 0. Floating-point sums are pairwise.
    """
    return _sum_or_prod("sum", "sum", x, axis, dtype, keepdims)


def prod(x: ndarray, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
         keepdims: bool = False) -> ndarray:
    """Product of the elements along ``axis``; ``dtype`` defaults as for :func:`sum`; the
    product of no elements is 1."""
    return _sum_or_prod("prod", "prod", x, axis, dtype, keepdims)


def _extreme(name, op, x, axis, keepdims):
    if (type(x) is ndarray and keepdims is False and x._dtype in _LEAN_EXTREMES
            and 0 not in x._shape):
        return _reduce(name, op, x, _ALL_AXES[len(x._shape)] if axis is None
                       else _axes(name, x, axis), x._dtype)  # kept lean
    if isinstance(x, Traced):
        return traced(name, x, axis=axis, keepdims=keepdims)
    ordered = real_numeric(name, x)
    _check_keepdims(name, keepdims)
    axes = _axes(name, x, axis)
    if _reduced_size(x, axes) == 0:
        raise ValueError(f"{name} of an empty set of elements (shape {x.shape}, axis {axis}) "
                         "has no value")
    result = _reduce(name, op, ordered, axes, computation_dtype(ordered._dtype))
    if result._dtype is not x._dtype:
        result = result._copy(x._dtype)
    return _shaped(result, x, axes, keepdims)


def max(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """Largest element along ``axis``; NaN if any is NaN. Raises ValueError for no elements."""
    return _extreme("max", "max", x, axis, keepdims)


def min(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """Smallest element along ``axis``; NaN if any is NaN. Raises ValueError for no elements."""
    return _extreme("min", "min", x, axis, keepdims)


def _mean(name, x, axis, dtype):
    """The mean along the axes (in ``dtype``'s computation dtype) and the axes."""
    axes = _axes(name, x, axis)
    result = _reduce(name, "sum", x, axes, computation_dtype(dtype))
    _divide(result, _reduced_size(x, axes))
    return result, axes


def mean(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False,
         dtype: DTypeLike | None = None) -> ndarray:
    """Arithmetic mean along ``axis`` of a floating-point array; NaN for no elements.

    Outside strict mode an integer or bool array's mean is float64, and ``dtype`` (an
    extension, as NumPy's) names the floating dtype to compute and return it in.
    """
    if isinstance(x, Traced):
        return traced("mean", x, axis=axis, keepdims=keepdims, dtype=dtype)
    dtype = _averaged_dtype("mean", x) if dtype is None else _requested_dtype("mean", x, dtype)
    _check_keepdims("mean", keepdims)
    result, axes = _mean("mean", x, axis, dtype)
    if result._dtype is not dtype:
        result = result._copy(dtype)
    return _shaped(result, x, axes, keepdims)


def _variance(name, x, axis, correction, keepdims):
    """The variance along the axes, in the real computation dtype, its result dtype and the
    axes (two passes: the mean, then the sum of squared deviations from it)."""
    dtype = _averaged_dtype(name, x)
    _check_keepdims(name, keepdims)
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{name}: correction must be an int or a float, not {correction!r}")
    means, axes = _mean(name, x, axis, dtype)
    computed = means._dtype
    strides = iter(means._strides)
    placed = tuple(0 if d in axes else next(strides) for d in range(x.ndim))
    deviations = _binary("subtract", x, means._view(0, x._shape, placed))
    real = REAL_OF_COMPLEX.get(computed, computed)
    result = _reduce(name, "sumsq", deviations, axes, real)
    divisor = _reduced_size(x, axes) - correction
    if divisor > 0:
        _divide(result, divisor)
    else:
        result._fill(float("nan"))
    return result, REAL_OF_COMPLEX.get(dtype, dtype), axes


def var(x: ndarray, /, *, axis: Axes | None = None, correction: int | float = 0.0,
        keepdims: bool = False, ddof: int | float | None = None) -> ndarray:
    """Variance along ``axis``, dividing by ``N - correction``; NaN where that is not positive.

    A complex array's variance is real (the mean squared magnitude of the deviations). Outside
    strict mode an integer or bool array's variance is float64, and NumPy's ``ddof`` is taken
    for ``correction``, as in NumPy.
    """
    correction = _correction("var", correction, ddof)
    result, dtype, axes = _variance("var", x, axis, correction, keepdims)
    return _shaped(_as_dtype(result, dtype), x, axes, keepdims)


def std(x: ndarray, /, *, axis: Axes | None = None, correction: int | float = 0.0,
        keepdims: bool = False, ddof: int | float | None = None) -> ndarray:
    """Standard deviation along ``axis``: the square root of :func:`var`."""
    correction = _correction("std", correction, ddof)
    result, dtype, axes = _variance("std", x, axis, correction, keepdims)
    return _shaped(_as_dtype(_unary("sqrt", result), dtype), x, axes, keepdims)


def _correction(name, correction, ddof):
    """``correction``, or NumPy's name for it, ``ddof`` (an extension: not in strict mode)."""
    if ddof is None:
        return correction
    if is_strict():
        raise TypeError(f"{name} takes correction, not ddof, in the standard (strict mode)")
    if correction != 0:
        raise TypeError(f"{name} takes correction or ddof, not both")
    return ddof


def _as_dtype(result, dtype):
    return result if result._dtype is dtype else result._copy(dtype)


def _cumulative(name, op, identity, x, axis, dtype, include_initial):
    check_array(name, x, _ALL, "numeric (or bool)")
    if x.ndim == 0:
        raise ValueError(f"{name} needs an array of at least one dimension, not a 0-d array")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name} needs an axis for a {x.ndim}-D array")
        axis = 0
    axis = normalize_axis(axis, x.ndim, name)
    if not isinstance(include_initial, bool):
        raise TypeError(f"{name}: include_initial must be a bool, not {include_initial!r}")
    dtype = _accumulation_dtype(name, x, dtype)
    shape = x._shape[:axis] + (x._shape[axis] + include_initial,) + x._shape[axis + 1:]
    out = ndarray._empty(shape, dtype, x._device)
    target = out
    if include_initial:
        key = (slice(None),) * axis
        out[key + (slice(0, 1),)]._fill(identity)
        target = out[key + (slice(1, None),)]
    backend_of(x._device).scan_array(op, x._address, x._strides, x._dtype, x._shape, axis,
                                     target._address, target._strides, dtype)
    return out


def cumulative_sum(x: ndarray, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                   include_initial: bool = False) -> ndarray:
    """Running sums along ``axis`` (optional for a 1-D array); ``dtype`` defaults as for
    :func:`sum`; ``include_initial`` puts a 0 first."""
    return _cumulative("cumulative_sum", "sum", 0, x, axis, dtype, include_initial)


def cumulative_prod(x: ndarray, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                    include_initial: bool = False) -> ndarray:
    """Running products along ``axis`` (optional for a 1-D array); ``dtype`` defaults as for
    :func:`prod`; ``include_initial`` puts a 1 first."""
    return _cumulative("cumulative_prod", "prod", 1, x, axis, dtype, include_initial)


__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]
