"""Views of an array's memory with other strides: ``numpy.lib.stride_tricks``'s."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from .._arguments import check_array, normalize_axes
from .._array_object import ndarray
from .._layout import c_strides

if TYPE_CHECKING:
    from .._typing import Axes

__all__ = ["sliding_window_view"]


def sliding_window_view(x: ndarray, window_shape: int | tuple[int, ...],
                        axis: Axes | None = None, *, subok: bool = False,
                        writeable: bool = False) -> ndarray:
    """Every window of ``window_shape`` in ``x`` along ``axis``, as a view (never a copy).

    As NumPy's: the windows' positions come first (each axis of ``axis`` shortened by its
    window's size less one), the windows' own dimensions last, in ``axis``'s order.

    Parameters
    ----------
    x : ndarray
        The array.
    window_shape : int or tuple of int
        The size of the window along each axis of ``axis``.
    axis : int or tuple of int, optional
        The axes the windows slide along (an axis may repeat); every axis, in order, by
        default.
    subok : bool, optional
        Accepted for NumPy's signature; dlnumba has no subclasses.
    writeable : bool, optional
        Whether the view may be written (windows overlap, so a write shows in several).

    Raises
    ------
    TypeError
        If ``x`` is not a dlnumba array.
    ValueError
        For a negative window, a window larger than its axis, or ``window_shape`` and
        ``axis`` of different lengths.
    """
    check_array("sliding_window_view", x)
    window = ((operator.index(window_shape),) if not isinstance(window_shape, (tuple, list))
              else tuple(operator.index(n) for n in window_shape))
    if any(n < 0 for n in window):
        raise ValueError(f"window_shape {window_shape} cannot contain negative values")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(f"window_shape {window_shape} must have one size per dimension "
                             f"of the {x.ndim}-D array when axis is None")
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(axis, x.ndim, "sliding_window_view", unique=False)
        if len(window) != len(axes):
            raise ValueError(f"window_shape {window_shape} and axis {axis} must have the same "
                             "length")
    shape = list(x._shape)
    for d, n in zip(axes, window):
        if shape[d] < n:
            raise ValueError(f"window shape {window_shape} cannot be larger than the array's "
                             f"shape {x.shape} along axis {d}")
        shape[d] -= n - 1
    shape = (*shape, *window)
    strides = (*x._strides, *(x._strides[d] for d in axes))
    if 0 in shape:
        strides = c_strides(shape)
    return ndarray._new(x._address, shape, strides, x._dtype, x._device, x._owner,
                        x._readonly or not writeable)
