"""Searching functions: argmax, argmin, count_nonzero (on the reduction engine), nonzero,
searchsorted, where."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING


from ._arguments import check_array, normalize_axis, on_host
from ._array_object import check_scalar_kind, ndarray
from ._backend import backend_of
from ._creation_functions import full
from ._data_type_functions import promoted_dtype
from ._dtypes import PYTHON_TYPES, bool as bool_, common_dtype, int64
from ._mode import is_strict
from ._traced import Traced, traced
from ._layout import broadcast_shapes, broadcast_strides, c_strides, reshaped_strides
from ._set_functions import _NO_ORDER, _flat
from ._statistical_functions import _ALL, _axes, _check_keepdims, _reduce, _shaped, real_numeric
from .kernels.sorting import key_layout, search_sorted
from .shared.plan import make_plan

if TYPE_CHECKING:
    from typing import Literal

    from ._typing import Axes, Scalar

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_SIDES = {"left": 0, "right": 1}


def nonzero(x: ndarray, /) -> tuple[ndarray, ...]:
    """The indices of the non-zero elements of ``x`` (at least 1-D), one int64 array per
    dimension, in C order. NaN is non-zero; so is a complex number with a non-zero part."""
    if not isinstance(x, ndarray):
        raise TypeError(f"nonzero expects a dlnumba.ndarray, not {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError("nonzero needs an array of at least one dimension, not a 0-d array")
    indices = []

    def output(count):
        indices.append(ndarray._empty((x.ndim, count), int64, x._device))
        return indices[0]._address

    backend_of(x._device).nonzero(x._address, x._strides, x._dtype, x._shape, output)
    return _rows(indices[0])


def _rows(indices):
    """The rows of a C-contiguous 2-D array, as a tuple of 1-D views."""
    ndim, count = indices.shape
    return tuple(indices._view(d * count, (count,), (1,)) for d in range(ndim))


@on_host
def searchsorted(x1: ndarray, x2: ndarray | int | float, /, *,
                 side: Literal["left", "right"] = "left",
                 sorter: ndarray | None = None) -> ndarray:
    """Where each element of ``x2`` would go in the ascending 1-D ``x1`` (or ``x1[sorter]``)
    to keep it sorted: before equal elements (``side="left"``) or after them.

    ``x2`` may be a Python int or float. The order is :func:`sort`'s (NaNs last). Returns int64
    indices of ``x2``'s shape.

    Raises
    ------
    ValueError
        For an ``x1`` that is not 1-D, an unknown ``side``, or a ``sorter`` of another shape or
        with an index outside ``[0, x1.shape[0])``.
    TypeError
        For dtypes that do not promote together, or a non-integer ``sorter``.
    """
    if not isinstance(x1, ndarray):
        raise TypeError(f"searchsorted expects a dlnumba.ndarray x1, not {type(x1).__name__}")
    if type(x2) in (int, float):
        check_scalar_kind(x2, x1._dtype)
        x2 = full((), x2, dtype=x1._dtype, device=x1.device)
    elif not isinstance(x2, ndarray):
        raise TypeError(f"searchsorted takes an array or a Python int or float for x2, not "
                        f"{type(x2).__name__}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted needs a 1-D x1, not {x1.ndim}-D")
    if side not in _SIDES:
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    if x1.device != x2.device:
        raise ValueError(f"searchsorted: arrays on {x1.device} and {x2.device} cannot be "
                         "combined")
    dtype = common_dtype(x1._dtype, x2._dtype)
    order = _NO_ORDER if sorter is None else _sorter(sorter, x1.shape)
    if dtype is not x1._dtype:
        x1 = x1._copy(dtype)
    values = _flat(x2, dtype)
    out = ndarray._empty(x2.shape, int64, x2.device)
    bad = search_sorted(x1._address, x1.size, x1._strides[0], order, values._address,
                        *key_layout(dtype), _SIDES[side], out._numpy().reshape(-1))
    if bad >= 0:
        raise ValueError(f"sorter index {int(order[bad])} is out of range for an x1 of "
                         f"{x1.size} elements")
    return out


def _sorter(sorter, shape):
    if not isinstance(sorter, ndarray) or sorter._dtype.kind not in ("signed integer",
                                                                    "unsigned integer"):
        raise TypeError(f"sorter must be an integer dlnumba.ndarray, not {sorter!r}")
    if sorter.shape != shape:
        raise ValueError(f"sorter has shape {sorter.shape}; x1's shape {shape} is needed")
    return sorter._copy(int64)._numpy()


def where(condition: ndarray, x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray:
    """Elements of ``x1`` where the bool ``condition`` is true, of ``x2`` elsewhere.

    The three broadcast together; ``x1`` or ``x2`` (not both) may be a Python scalar. The
    result has the dtype :func:`result_type` gives ``x1`` and ``x2``. Outside strict mode, as
    in NumPy, a non-bool condition is true where nonzero, and both may be scalars.

    Raises
    ------
    TypeError
        For a condition that is not a bool array, dtypes that do not promote together, two
        scalars, or a scalar of a kind the other array's dtype cannot hold.
    """
    if not isinstance(condition, ndarray) or isinstance(x1, Traced) or isinstance(x2, Traced):
        if any(isinstance(x, Traced) for x in (condition, x1, x2)):
            return traced("where", condition, x1, x2)
        raise TypeError(f"where needs a bool dlnumba.ndarray condition, not {condition!r}")
    if condition._dtype is not bool_:
        if is_strict():
            raise TypeError(f"where needs a bool condition, not one of dtype {condition._dtype}")
        condition = condition._copy(bool_)  # NumPy's: nonzero is true
    for x in (x1, x2):
        if not isinstance(x, (ndarray, bool, int, float, complex)):
            raise TypeError(f"where takes arrays and Python scalars, not {type(x).__name__}")
    if not isinstance(x1, ndarray) and not isinstance(x2, ndarray):
        if is_strict():
            raise TypeError(f"where needs x1 or x2 to be an array; got {type(x1).__name__} "
                            f"and {type(x2).__name__}")
        x1 = full((), x1, dtype=promoted_dtype(PYTHON_TYPES[type(x1)], x2),
                  device=condition.device)  # NumPy's: two scalars give a default dtype
    dtype = promoted_dtype(x1, x2)
    operands = [condition] + [x if isinstance(x, ndarray) and x._dtype is dtype else
                              x._copy(dtype) if isinstance(x, ndarray) else
                              full((), x, dtype=dtype, device=condition.device)
                              for x in (x1, x2)]
    if len({x.device for x in operands}) > 1:
        raise ValueError("where: the condition, x1 and x2 must be on one device, not "
                         f"{', '.join(str(x.device) for x in operands)}")
    shape, plan = _where_plan(tuple((x._shape, x._strides) for x in operands))
    out = ndarray._empty(shape, dtype, condition.device)
    if plan is None:
        return out
    backend_of(out._device).where(plan, *(x._address for x in (*operands, out)), dtype.itemsize)
    return out


@functools.lru_cache(maxsize=1024)
def _where_plan(layouts):
    """The broadcast shape of the ``(shape, strides)`` ``layouts`` of ``where``'s operands,
    and the plan of their layouts with the result's (C-contiguous)."""
    shape = broadcast_shapes(*(layout_shape for layout_shape, _ in layouts))
    return shape, make_plan(shape, *(broadcast_strides(layout_shape, strides, shape)
                                     for layout_shape, strides in layouts), c_strides(shape))


def _arg(name, op, x, axis, keepdims):
    x = real_numeric(name, x)
    _check_keepdims(name, keepdims)
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, name)
    if x.size == 0 and (axis is None or x._shape[axis] == 0):
        raise ValueError(f"{name} of an empty array (shape {x.shape}) has no position"
                         + ("" if axis is None else f" along axis {axis}"))
    if axis is not None:
        result = ndarray._empty(x._shape[:axis] + x._shape[axis + 1:], int64, x._device)
        _arg_reduce(op, x, x._strides, x._shape, axis, result)
        return _shaped(result, x, (axis,), keepdims)
    strides = reshaped_strides(x._shape, x._strides, (x.size,))
    flat = x
    if strides is None:  # positions count in C order: walk a C-contiguous copy
        flat, strides = x._copy(), (1,)
    result = ndarray._empty((), int64, x._device)
    _arg_reduce(op, flat, strides, (x.size,), 0, result)
    return _shaped(result, x, tuple(range(x.ndim)), keepdims)


def _arg_reduce(op, x, strides, shape, axis, result):
    """The index reduction ``op`` of ``x``'s memory walked as ``shape`` and ``strides``, on its
    device, into ``result``."""
    backend_of(x._device).arg_reduce_array(op, x._address, strides, x._dtype, shape, axis,
                                           result._address)


def argmax(x: ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """Position of the first largest element along ``axis`` (None: in the flattened array, C
    order); a NaN counts as the largest. Raises ValueError for an empty array."""
    return _arg("argmax", "max", x, axis, keepdims)


def argmin(x: ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """Position of the first smallest element along ``axis`` (None: in the flattened array, C
    order); a NaN counts as the smallest. Raises ValueError for an empty array."""
    return _arg("argmin", "min", x, axis, keepdims)


def count_nonzero(x: ndarray, /, *, axis: Axes | None = None,
                  keepdims: bool = False) -> ndarray:
    """Number of non-zero elements along ``axis`` (int64)."""
    check_array("count_nonzero", x, _ALL, "any")
    _check_keepdims("count_nonzero", keepdims)
    axes = _axes("count_nonzero", x, axis)
    return _shaped(_reduce("count_nonzero", "count", x, axes, int64), x, axes, keepdims)
