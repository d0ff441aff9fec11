"""Searching functions: argmax, argmin, count_nonzero (on the reduction engine), nonzero,
searchsorted, where."""

import numpy as np

from ._arguments import check_array, normalize_axis
from ._array_object import _cuda, check_scalar_kind, ndarray
from ._creation_functions import full
from ._data_type_functions import promoted_dtype
from ._devices import CPU
from ._dtypes import _PYTHON_TYPES, bool as bool_, common_dtype, int64
from ._mode import is_strict
from ._elementwise_functions import _binary
from ._manipulation_functions import reshape
from ._layout import broadcast_shapes, broadcast_strides, c_strides, reshaped_strides
from ._set_functions import _NO_ORDER, _flat
from ._statistical_functions import (_ALL, _axes, _check_keepdims, _cumulative, _reduce,
                                     _shaped, real_numeric)
from .kernels import _UNITS
from .kernels.plan import make_plan
from .kernels.reduction import arg_reduce_array
from .kernels.searching import nonzero as nonzero_kernel, where as where_kernel
from .kernels.sorting import key_layout, search_sorted

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_SIDES = {"left": 0, "right": 1}


def nonzero(x, /):
    """The indices of the non-zero elements of ``x`` (at least 1-D), one int64 array per
    dimension, in C order. NaN is non-zero; so is a complex number with a non-zero part."""
    if not isinstance(x, ndarray):
        raise TypeError(f"nonzero expects a dlnumba.ndarray, not {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError("nonzero needs an array of at least one dimension, not a 0-d array")
    if x._device is not CPU:
        return _nonzero_on_device(x)
    unit, codec, components = key_layout(x._dtype)
    layout = (np.array(x.shape, np.int64), np.array(x._strides, np.int64), x._address, unit,
              codec[3], components)
    count = nonzero_kernel(*layout, np.empty((0, 0), np.int64)) if x.size else 0
    indices = ndarray._empty((x.ndim, count), int64, x.device)
    if count:
        nonzero_kernel(*layout, indices._numpy())
    return _rows(indices)


def _nonzero_on_device(x):
    """:func:`nonzero` on a CUDA device: the flags ``x != 0`` in C order (a copy unless they
    are C-contiguous), their running count (its last element is the count, the one value read
    by the host), then the indices."""
    flags = x if x._dtype is bool_ else _binary("not_equal", x, 0)
    flags = reshape(flags, (flags.size,), copy=flags._strides != c_strides(flags.shape))
    positions = _cumulative("nonzero", "sum", 0, flags, None, int64, False)
    count = int(positions[-1:].to_device(CPU)._numpy()[0]) if x.size else 0
    indices = ndarray._empty((x.ndim, count), int64, x._device)
    _cuda(x._device).nonzero_indices(flags._address, positions._address, x.shape,
                                     indices._address, count, x._device.index)
    return _rows(indices)


def _rows(indices):
    """The rows of a C-contiguous 2-D array, as a tuple of 1-D views."""
    ndim, count = indices.shape
    return tuple(indices._view(d * count, (count,), (1,)) for d in range(ndim))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
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


def where(condition, x1, x2, /):
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
    if not isinstance(condition, ndarray):
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
        x1 = full((), x1, dtype=promoted_dtype(_PYTHON_TYPES[type(x1)], x2),
                  device=condition.device)  # NumPy's: two scalars give a default dtype
    dtype = promoted_dtype(x1, x2)
    operands = [condition] + [x if isinstance(x, ndarray) and x._dtype is dtype else
                              x._copy(dtype) if isinstance(x, ndarray) else
                              full((), x, dtype=dtype, device=condition.device)
                              for x in (x1, x2)]
    if len({x.device for x in operands}) > 1:
        raise ValueError("where: the condition, x1 and x2 must be on one device, not "
                         f"{', '.join(str(x.device) for x in operands)}")
    shape = broadcast_shapes(*(x.shape for x in operands))
    out = ndarray._empty(shape, dtype, condition.device)
    plan = make_plan(shape, *(broadcast_strides(x.shape, x._strides, shape) for x in operands),
                     c_strides(shape))
    if plan is None:
        return out
    if out._device is not CPU:
        _cuda(out._device).where(plan, *(x._address for x in (*operands, out)), dtype.itemsize,
                                 out._device.index)
        return out
    arguments = [plan.shape]
    for x, offset, strides in zip((*operands, out), plan.offsets, plan.strides):
        arguments += (x._address + offset * x._dtype.itemsize, strides)
    where_kernel(*arguments, _UNITS[dtype.itemsize])
    return out


def _arg(name, op, x, axis, keepdims):
    x = real_numeric(name, x)
    _check_keepdims(name, keepdims)
    if x.size == 0:
        raise ValueError(f"{name} of an empty array (shape {x.shape}) has no position")
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, name)
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
    arguments = (op, x._address, strides, x._dtype, shape, axis, result._address)
    if x._device is CPU:
        arg_reduce_array(*arguments)
    else:
        _cuda(x._device).arg_reduce_array(*arguments, x._device.index)


def argmax(x, /, *, axis=None, keepdims=False):
    """Position of the first largest element along ``axis`` (None: in the flattened array, C
    order); a NaN counts as the largest. Raises ValueError for an empty array."""
    return _arg("argmax", "max", x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """Position of the first smallest element along ``axis`` (None: in the flattened array, C
    order); a NaN counts as the smallest. Raises ValueError for an empty array."""
    return _arg("argmin", "min", x, axis, keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements along ``axis`` (int64)."""
    check_array("count_nonzero", x, _ALL, "any")
    _check_keepdims("count_nonzero", keepdims)
    axes = _axes("count_nonzero", x, axis)
    return _shaped(_reduce("count_nonzero", "count", x, axes, int64), x, axes, keepdims)
