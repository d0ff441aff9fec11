"""Utility functions: all, any (on the reduction engine), diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._arguments import check_array, check_int, normalize_axis
from ._array_object import ndarray
from ._dtypes import NUMERIC, bool as bool_
from ._elementwise_functions import subtract
from ._manipulation_functions import concat
from ._statistical_functions import _ALL, _axes, _check_keepdims, _reduce, _shaped
from ._traced import Traced, traced

if TYPE_CHECKING:
    from ._typing import Axes

__all__ = ["all", "any", "diff"]


def diff(x: ndarray, /, *, axis: int = -1, n: int = 1, prepend: ndarray | None = None,
         append: ndarray | None = None) -> ndarray:
    """The ``n``-th forward difference of ``x`` along ``axis``: ``out[i] = x[i + 1] - x[i]``,
    ``n`` times over.

    ``prepend`` and ``append`` (arrays of ``x``'s shape except along ``axis``) are joined to
    ``x`` first; their dtypes promote with ``x``'s. The axis shrinks by ``n`` (to no less than
    0). Unsigned integers wrap around, as ``subtract`` does.

    Raises
    ------
    TypeError
        For a non-numeric ``x``, a non-integer ``n``, or a ``prepend``/``append`` that is not
        an array or does not promote with ``x``.
    ValueError
        For a 0-d ``x``, a negative ``n``, or ``prepend``/``append`` of a mismatched shape.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"diff expects a dlnumba.ndarray, not {type(x).__name__}")
    if x._dtype.kind not in NUMERIC:
        raise TypeError(f"diff takes arrays of numeric dtypes, not {x._dtype}")
    if x.ndim == 0:
        raise ValueError("diff needs an array of at least one dimension, not a 0-d array")
    axis = normalize_axis(axis, x.ndim, "diff")
    n = check_int("diff n", n)
    if n < 0:
        raise ValueError(f"diff n must be non-negative, not {n}")
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is not None and not isinstance(extra, ndarray):
            raise TypeError(f"diff {name} must be a dlnumba.ndarray or None, not "
                            f"{type(extra).__name__}")
    parts = [part for part in (prepend, x, append) if part is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    steps = min(n, x.shape[axis])
    if n and not steps:
        return x._copy()
    before = (slice(None),) * axis
    for _ in range(steps):
        x = subtract(x[before + (slice(1, None),)], x[before + (slice(None, -1),)])
    return x


def _truth(name, op, x, axis, keepdims):
    if isinstance(x, Traced):
        return traced(name, x, axis=axis, keepdims=keepdims)
    check_array(name, x, _ALL, "any")
    _check_keepdims(name, keepdims)
    axes = _axes(name, x, axis)
    return _shaped(_reduce(name, op, x, axes, bool_), x, axes, keepdims)


def all(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """Whether every element along ``axis`` is non-zero (True for no elements)."""
    return _truth("all", "all", x, axis, keepdims)


def any(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False) -> ndarray:
    """Whether some element along ``axis`` is non-zero (False for no elements)."""
    return _truth("any", "any", x, axis, keepdims)
