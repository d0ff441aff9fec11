"""Manipulation functions."""

import operator

from ._array_object import ndarray
from ._layout import MAX_NDIM, broadcast_shapes as _broadcast_shapes, c_strides, \
    reshaped_strides, size_of


def broadcast_shapes(*shapes):
    """The shape that arrays of ``shapes`` broadcast to (array API broadcasting rules).

    Raises
    ------
    ValueError
        If two shapes have sizes other than 1 that differ in one dimension.
    TypeError
        If a shape is not a tuple of ints.
    """
    for shape in shapes:
        if not isinstance(shape, tuple) or not all(
                isinstance(n, int) and not isinstance(n, bool) for n in shape):
            raise TypeError(f"broadcast_shapes takes tuples of ints, not {shape!r}")
    return _broadcast_shapes(*shapes)


def reshape(x, /, shape, *, copy=None):
    """Give ``x`` a new shape: a view whenever the strides allow, else a C-ordered copy.

    Parameters
    ----------
    x : ndarray
    shape : tuple of int
        The new shape; one size may be -1, inferred from the others.
    copy : bool, optional
        True: always copy. False: never copy (ValueError if a view is impossible).
        None: copy only when needed.

    Raises
    ------
    ValueError
        If the sizes do not match, more than one is -1, or ``copy=False`` needs a copy.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"reshape expects a dlnumba.ndarray, not {type(x).__name__}")
    new_shape = _resolve_shape(shape, x.size, x.shape)
    if copy is not True:
        strides = reshaped_strides(x.shape, x._strides, new_shape)
        if strides is not None:
            return x._view(0, new_shape, strides)
        if copy is False:
            raise ValueError(f"cannot reshape an array of shape {x.shape} and strides "
                             f"{x._strides} to {new_shape} without a copy (copy=False)")
    result = x._copy()
    return result._view(0, new_shape, c_strides(new_shape))


def _resolve_shape(shape, size, old_shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"invalid shape {shape}: sizes must be >= 0, with at most one -1")
    known = size_of(n for n in shape if n != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape {old_shape} (size {size}) to {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    if size_of(shape) != size:
        raise ValueError(f"cannot reshape {old_shape} (size {size}) to {shape}")
    if len(shape) > MAX_NDIM:
        raise ValueError(f"shape {shape} has {len(shape)} dimensions; at most {MAX_NDIM} are "
                         "allowed")
    return shape
