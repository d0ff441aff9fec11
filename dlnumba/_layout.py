"""Pure shape and stride arithmetic (strides in elements): extents, views, broadcasting."""

import functools
import math
import operator

MAX_NDIM = 64


@functools.lru_cache(maxsize=1024)
def c_strides(shape):
    """Strides of a C-contiguous array of ``shape`` (a tuple)."""
    strides = [0] * len(shape)
    step = 1
    for axis in range(len(shape) - 1, -1, -1):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


@functools.lru_cache(maxsize=4096)
def c_layout(shape):
    """``(size_of(shape), c_strides(shape))``, remembered for the shapes most used."""
    return size_of(shape), c_strides(shape)


def c_contiguous(shape, strides):
    """Whether a layout (strides in elements) is C-contiguous; strides of axes of size 1, and
    any strides of a layout with no elements, do not count, as in CPython and NumPy."""
    if strides == c_strides(shape) or 0 in shape:
        return True
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != step:
                return False
            step *= n
    return True


def size_of(shape):
    """Number of elements of ``shape``."""
    return math.prod(shape)


def extent(shape, strides):
    """The lowest and highest element offsets that a view reaches; None when it is empty."""
    low = high = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return None
        if s > 0:
            high += (n - 1) * s
        else:
            low += (n - 1) * s
    return low, high


def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to, by the array API rules.

    Raises
    ------
    ValueError
        If two shapes have sizes other than 1 that differ in one dimension.
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, ndim - len(shape)):
            if n != 1 and result[i] != 1 and n != result[i]:
                raise ValueError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast "
                                 f"together: dimension {i - ndim} has sizes {result[i]} and {n}")
            if n != 1:
                result[i] = n
    return tuple(result)


def broadcast_strides(shape, strides, target):
    """Strides that read an array of ``shape`` as one of ``target`` (zero where repeated)."""
    if broadcast_shapes(shape, target) != tuple(target):
        raise ValueError(f"cannot broadcast shape {tuple(shape)} to {tuple(target)}")
    lead = len(target) - len(shape)
    return (0,) * lead + tuple(0 if n == 1 and t != 1 else s
                               for n, s, t in zip(shape, strides, target[lead:]))


def view_of(key, shape, strides):
    """Apply a basic index (ints, slices, ``...``, ``None``) to a layout.

    Returns
    -------
    offset : int
        Elements from the old first element to the new one.
    shape, strides : tuple of int
        The layout of the view.

    Raises
    ------
    IndexError
        For an integer out of bounds, more indices than dimensions, two ellipses, or an index of
        a kind that basic indexing does not take.
    """
    key = key if isinstance(key, tuple) else (key,)
    ellipses = sum(k is Ellipsis for k in key)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(k is not None and k is not Ellipsis for k in key)
    if consumed > len(shape):
        raise IndexError(f"too many indices: {consumed} given for an array of {len(shape)} "
                         "dimensions")
    if not ellipses:
        key = key + (Ellipsis,)
    offset, axis = 0, 0
    new_shape, new_strides = [], []
    for k in key:
        if k is None:
            new_shape.append(1)
            new_strides.append(0)
        elif k is Ellipsis:
            rest = len(shape) - consumed
            new_shape.extend(shape[axis:axis + rest])
            new_strides.extend(strides[axis:axis + rest])
            axis += rest
        elif isinstance(k, slice):
            start, n, stride = sliced(k, shape[axis], strides[axis])
            offset += start
            new_shape.append(n)
            new_strides.append(stride)
            axis += 1
        else:
            i = _as_integer_index(k)
            n = shape[axis]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            offset += (i % n) * strides[axis]
            axis += 1
    if len(new_shape) > MAX_NDIM:
        raise IndexError(f"the index makes {len(new_shape)} dimensions; at most {MAX_NDIM} are "
                         "allowed")
    return offset, tuple(new_shape), tuple(new_strides)


def sliced(key, size, stride):
    """The first element's offset, the size and the stride of an axis of ``size`` and
    ``stride`` cut by the slice ``key``."""
    start, stop, step = key.indices(size)
    n = len(range(start, stop, step))
    # a step over one element or none moves nothing: it must not grow the stride
    return start * stride if n else 0, n, stride * step if n > 1 else stride


def _as_integer_index(k):
    try:
        if isinstance(k, bool):
            raise TypeError
        return operator.index(k)
    except TypeError:
        raise IndexError(f"only integers, slices, '...', None and tuples of them are valid indices "
                         f"here, not {type(k).__name__} {k!r}") from None


def reshaped_strides(shape, strides, new_shape):
    """Strides that let a layout be read as ``new_shape`` without moving data, or None.

    Groups of old dimensions map onto groups of new dimensions of the same total size; each old
    group must be contiguous in itself, and the new group takes its strides from it.
    """
    if size_of(shape) == 0:
        return c_strides(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    result = [0] * len(new_shape)
    new_index = old_index = 0
    while old_index < len(old):
        new_end, old_end = new_index + 1, old_index + 1
        while new_shape[new_index] == 1 and new_end < len(new_shape):
            new_index, new_end = new_end, new_end + 1
        new_size, old_size = new_shape[new_index], old[old_index][0]
        while new_size != old_size:
            if new_size < old_size:
                new_size *= new_shape[new_end]
                new_end += 1
            else:
                old_size *= old[old_end][0]
                old_end += 1
        for k in range(old_index, old_end - 1):
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        step = old[old_end - 1][1]
        for k in range(new_end - 1, new_index - 1, -1):
            result[k] = step
            step *= new_shape[k]
        new_index, old_index = new_end, old_end
    return tuple(result)


def dense_strides_like(shape, strides):
    """Strides of a dense array of ``shape`` whose axes are ordered in memory as ``strides``
    order them (largest first, ties in axis order): NumPy's "K" order for a new result."""
    order = sorted(range(len(shape)), key=lambda axis: -abs(strides[axis]))
    result = [0] * len(shape)
    step = 1
    for axis in reversed(order):
        result[axis] = step
        step *= max(shape[axis], 1)
    return tuple(result)
