"""Manipulation functions.

Views where NumPy gives views (``broadcast_to``, ``broadcast_arrays``, ``expand_dims``, ``flip``,
``moveaxis``, ``permute_dims``, ``squeeze``, ``unstack``, ``reshape`` when the strides allow);
the others write a new C-contiguous array through the copy engine, each input one
``copy_array`` call over a layout that may repeat it with zero strides (``tile``, ``repeat``).
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING

import numpy as np

from ._arguments import check_array, check_int, normalize_axes, normalize_axis
from ._array_object import _from_numpy, ndarray
from ._dtypes import INTEGER
from ._data_type_functions import promoted_dtype
from ._devices import CPU
from ._indexing_functions import take
from ._layout import MAX_NDIM, broadcast_shapes as _broadcast_shapes, broadcast_strides, \
    c_strides, reshaped_strides, size_of

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from ._typing import Axes, Scalar


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
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


def reshape(x: ndarray, /, shape: tuple[int, ...], *, copy: bool | None = None) -> ndarray:
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
    if copy is not True:
        try:
            new_shape, strides = _remembered_view_layout(x._shape, x._strides, *shape)
        except TypeError:  # not a sequence of hashable sizes (an int, a list): uncached
            new_shape, strides = _view_layout(x._shape, x._strides, shape)
        if strides is not None:
            return x._view(0, new_shape, strides)
        if copy is False:
            raise ValueError(f"cannot reshape an array of shape {x.shape} and strides "
                             f"{x._strides} to {new_shape} without a copy (copy=False)")
    else:
        new_shape = _resolve_shape(shape, x.size, x.shape)
    result = x._copy()
    return result._view(0, new_shape, c_strides(new_shape))


def _view_layout(old_shape, old_strides, shape):
    """The checked new shape and, when a view can have it, its strides (else None)."""
    new_shape = _resolve_shape(shape, size_of(old_shape), old_shape)
    if old_strides == c_strides(old_shape):
        return new_shape, c_strides(new_shape)
    return new_shape, reshaped_strides(old_shape, old_strides, new_shape)


# The sizes come one by one, so that the cache tells 4 from 4.0 and from True (typed).
_remembered_view_layout = functools.lru_cache(maxsize=4096, typed=True)(
    lambda old_shape, old_strides, *shape: _view_layout(old_shape, old_strides, shape))


def _resolve_shape(shape, size, old_shape):
    if (type(shape) is tuple and len(shape) <= MAX_NDIM and size_of(shape) == size
            and all(type(n) is int and n >= 0 for n in shape)):
        return shape
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


def broadcast_to(x: ndarray, /, shape: tuple[int, ...]) -> ndarray:
    """A read-only view of ``x`` broadcast to ``shape`` (zero strides where it repeats).

    Raises
    ------
    ValueError
        If ``x`` cannot be broadcast to ``shape``, or ``shape`` holds more than 2**62 bytes
        (the most a DLPack consumer, dlnumba included, accepts).
    """
    check_array("broadcast_to", x)
    shape = _shape_tuple("broadcast_to", shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"broadcast_to shape {shape} has a negative size")
    if size_of(shape) * x._dtype.itemsize > 2**62:
        raise ValueError(f"broadcast_to shape {shape} of {x._dtype} holds more than 2**62 bytes")
    view = x._view(0, shape, broadcast_strides(x.shape, x._strides, shape))
    view._readonly = True
    return view


def broadcast_arrays(*arrays: ndarray) -> tuple[ndarray, ...]:
    """The arrays broadcast against one another: a tuple of read-only views, except that an
    array already of the common shape is returned as it is."""
    for x in arrays:
        check_array("broadcast_arrays", x)
    shape = _broadcast_shapes(*(x.shape for x in arrays))
    return tuple(x if x.shape == shape else broadcast_to(x, shape) for x in arrays)


def concat(arrays: tuple[ndarray, ...] | list[ndarray], /, *,
           axis: int | None = 0) -> ndarray:
    """Join arrays along an existing ``axis`` (flattened first when ``axis`` is None); the
    result has the dtype ``result_type`` gives.

    Raises
    ------
    ValueError
        For no arrays, different numbers of dimensions, sizes that differ off ``axis``, 0-d
        arrays with an axis, or arrays on different devices.
    """
    arrays, dtype, device = _joined("concat", arrays)
    if axis is None:
        out = ndarray._empty((sum(x.size for x in arrays),), dtype, device)
        start = 0
        for x in arrays:
            out._view(start, x.shape, c_strides(x.shape))._assign(x)
            start += x.size
        return out
    first = arrays[0]
    axis = normalize_axis(axis, first.ndim, "concat")
    for x in arrays:
        if x.ndim != first.ndim or any(n != m for d, (n, m) in enumerate(zip(x.shape, first.shape))
                                       if d != axis):
            raise ValueError(f"concat arrays must have the same shape except along axis {axis}; "
                             f"got {first.shape} and {x.shape}")
    shape = list(first.shape)
    shape[axis] = sum(x.shape[axis] for x in arrays)
    out = ndarray._empty(tuple(shape), dtype, device)
    start = 0
    for x in arrays:
        out._view(start * out._strides[axis], x.shape, out._strides)._assign(x)
        start += x.shape[axis]
    return out


def stack(arrays: tuple[ndarray, ...] | list[ndarray], /, *, axis: int = 0) -> ndarray:
    """Join arrays of one shape along a new ``axis``; the result has the dtype ``result_type``
    gives.

    Raises
    ------
    ValueError
        For no arrays, arrays of different shapes, or arrays on different devices.
    """
    arrays, dtype, device = _joined("stack", arrays)
    shape = arrays[0].shape
    if any(x.shape != shape for x in arrays):
        raise ValueError("stack arrays must all have the same shape; got "
                         + ", ".join(str(x.shape) for x in arrays))
    axis = normalize_axis(axis, len(shape) + 1, "stack")
    out = ndarray._empty(shape[:axis] + (len(arrays),) + shape[axis:], dtype, device)
    strides = out._strides[:axis] + out._strides[axis + 1:]
    for i, x in enumerate(arrays):
        out._view(i * out._strides[axis], shape, strides)._assign(x)
    return out


def expand_dims(x: ndarray, /, axis: Axes) -> ndarray:
    """A view of ``x`` with a size-1 dimension at ``axis`` (an int, or a tuple of positions in
    the result).

    Raises
    ------
    IndexError
        For a position outside ``[-M, M)``, ``M = x.ndim + len(axis)`` (an AxisError, also a
        ValueError).
    ValueError
        For positions that repeat.
    """
    check_array("expand_dims", x)
    ndim = x.ndim + (len(axis) if isinstance(axis, tuple) else 1)
    axes = normalize_axes(axis, ndim, "expand_dims")
    shape, strides = list(x.shape), list(x._strides)
    for a in sorted(axes):
        shape.insert(a, 1)
        strides.insert(a, 0)
    if len(shape) > MAX_NDIM:
        raise ValueError(f"expand_dims would make {len(shape)} dimensions; at most {MAX_NDIM} "
                         "are allowed")
    return x._view(0, tuple(shape), tuple(strides))


def flip(x: ndarray, /, *, axis: Axes | None = None) -> ndarray:
    """A view of ``x`` with the order of elements reversed along ``axis`` (all axes if None)."""
    check_array("flip", x)
    axes = range(x.ndim) if axis is None else normalize_axes(axis, x.ndim, "flip")
    strides, offset = list(x._strides), 0
    for a in axes:
        if x.shape[a]:
            offset += (x.shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return x._view(offset, x.shape, tuple(strides))


def moveaxis(x: ndarray, source: Axes, destination: Axes, /) -> ndarray:
    """A view of ``x`` with the axes ``source`` moved to positions ``destination``, the other
    axes keeping their order.

    Raises
    ------
    ValueError
        If ``source`` and ``destination`` differ in length.
    """
    check_array("moveaxis", x)
    source = normalize_axes(source, x.ndim, "moveaxis source")
    destination = normalize_axes(destination, x.ndim, "moveaxis destination")
    if len(source) != len(destination):
        raise ValueError(f"moveaxis source {source} and destination {destination} must have "
                         "the same number of axes")
    order = [a for a in range(x.ndim) if a not in source]
    for d, s in sorted(zip(destination, source)):
        order.insert(d, s)
    return _permuted(x, order)


def permute_dims(x: ndarray, /, axes: tuple[int, ...]) -> ndarray:
    """A view of ``x`` with its axes in the order ``axes`` (a permutation; negative counts from
    the end).

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of ``x``'s axes.
    """
    check_array("permute_dims", x)
    if not isinstance(axes, tuple):
        raise TypeError(f"permute_dims axes must be a tuple of ints, not {axes!r}")
    if len(axes) != x.ndim:
        raise ValueError(f"permute_dims axes {axes} must list each of the {x.ndim} axes once")
    return _permuted(x, normalize_axes(axes, x.ndim, "permute_dims"))


def transpose(x: ndarray, /, axes: tuple[int, ...] | list[int] | None = None) -> ndarray:
    """NumPy's name for :func:`permute_dims`: the axes reversed by default (xarray calls it
    through the namespace)."""
    check_array("transpose", x)
    return permute_dims(x, tuple(range(x.ndim))[::-1] if axes is None else tuple(axes))


def squeeze(x: ndarray, /, axis: Axes) -> ndarray:
    """A view of ``x`` without the size-1 dimensions ``axis`` (an int or a tuple).

    Raises
    ------
    ValueError
        If one of the axes has a size other than 1.
    """
    check_array("squeeze", x)
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    keep = [d for d in range(x.ndim) if d not in axes]
    return x._view(0, tuple(x.shape[d] for d in keep), tuple(x._strides[d] for d in keep))


def unstack(x: ndarray, /, *, axis: int = 0) -> tuple[ndarray, ...]:
    """The slices of ``x`` along ``axis``, as a tuple of views."""
    check_array("unstack", x)
    axis = normalize_axis(axis, x.ndim, "unstack")
    shape = x.shape[:axis] + x.shape[axis + 1:]
    strides = x._strides[:axis] + x._strides[axis + 1:]
    return tuple(x._view(i * x._strides[axis], shape, strides) for i in range(x.shape[axis]))


def roll(x: ndarray, /, shift: int | tuple[int, ...], *,
         axis: Axes | None = None) -> ndarray:
    """A copy of ``x`` with elements shifted by ``shift`` along ``axis`` (over the flattened
    array if None), those shifted past the end coming back at the start.

    ``shift`` is an int, or a tuple with one shift per axis of a tuple ``axis``; shifts of an
    axis named twice add up.

    Raises
    ------
    ValueError
        If ``shift`` is a tuple of another length than ``axis``.
    """
    check_array("roll", x)
    shifts = shift if isinstance(shift, tuple) else (shift,)
    shifts = [check_int("roll shift", n) for n in shifts]
    out = ndarray._empty(x.shape, x._dtype, x.device)
    if axis is None:
        if isinstance(shift, tuple) and len(shifts) != 1:
            raise ValueError(f"roll takes one shift when axis is None, not {shift}")
        flat = reshape(x, (x.size,))
        _roll_into(out._view(0, (x.size,), (1,)), flat, {0: shifts[0]})
        return out
    axes = normalize_axes(axis, x.ndim, "roll", unique=False)
    if isinstance(shift, tuple) and (not isinstance(axis, tuple) or len(shifts) != len(axes)):
        raise ValueError(f"roll shift {shift} needs a tuple axis of the same length, not {axis}")
    by_axis = {}
    for a, n in zip(axes, shifts * len(axes) if len(shifts) == 1 else shifts):
        by_axis[a] = by_axis.get(a, 0) + n
    _roll_into(out, x, by_axis)
    return out


def _roll_into(out, x, shifts):
    """Write ``x`` rolled by ``shifts`` (axis: shift) into ``out``: two copies per rolled axis,
    so 2**len(shifts) copies in all."""
    pieces = [(0, 0, x.shape)]  # (source offset, destination offset, shape)
    for a, shift in shifts.items():
        n = x.shape[a]
        if n == 0 or shift % n == 0:
            continue
        shift %= n
        split = []
        for src, dst, shape in pieces:
            head = shape[:a] + (n - shift,) + shape[a + 1:]  # moves forward by shift
            tail = shape[:a] + (shift,) + shape[a + 1:]  # wraps around to the start
            split.append((src, dst + shift * out._strides[a], head))
            split.append((src + (n - shift) * x._strides[a], dst, tail))
        pieces = split
    for src, dst, shape in pieces:
        out._view(dst, shape, out._strides)._assign(x._view(src, shape, x._strides))


def repeat(x: ndarray, repeats: int | ndarray, /, *, axis: int | None = None) -> ndarray:
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened ``x``
    if None).

    ``repeats`` is an int, or an integer array of shape ``()``, ``(1,)`` or ``(n,)`` (one count
    per element along the axis).

    Raises
    ------
    ValueError
        For a negative count or an array of counts of another length.
    TypeError
        For counts that are neither an int nor an integer array.
    """
    check_array("repeat", x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    axis = normalize_axis(axis, x.ndim, "repeat")
    n = x.shape[axis]
    if isinstance(repeats, ndarray):
        if repeats._dtype.kind not in INTEGER:
            raise TypeError(f"repeat counts must be an integer array, not {repeats._dtype}")
        if repeats.device != x.device:
            raise ValueError(f"repeat: arrays on {x.device} and {repeats.device} cannot be "
                             "combined")
        if repeats.ndim > 1 or repeats.size not in (1, n):
            raise ValueError(f"repeat counts of shape {repeats.shape} do not match the {n} "
                             "elements along the axis")
        counts = repeats.to_device(CPU)._numpy().reshape(-1)  # the result's shape needs them
        if (counts.dtype.kind == "i" and (counts < 0).any()):
            raise ValueError("repeat counts must be >= 0")
        if counts.size != 1:
            # Varying counts: gather the elements at their repeated indices.
            indices = np.repeat(np.arange(n), counts.astype(np.int64))
            return take(x, _from_numpy(indices).to_device(x.device), axis=axis)
        repeats = int(counts[0])
    count = check_int("repeat repeats", repeats)
    if count < 0:
        raise ValueError(f"repeat count must be >= 0, not {count}")
    shape = x.shape[:axis] + (n * count,) + x.shape[axis + 1:]
    out = ndarray._empty(shape, x._dtype, x.device)
    split = x.shape[:axis] + (n, count) + x.shape[axis + 1:]
    out._view(0, split, c_strides(split))._assign(
        x._view(0, split, x._strides[:axis + 1] + (0,) + x._strides[axis + 1:]))
    return out


def tile(x: ndarray, repetitions: tuple[int, ...], /) -> ndarray:
    """``x`` repeated ``repetitions[i]`` times along each axis ``i`` (shapes and repetitions
    aligned on the right, the shorter padded with ones).

    Raises
    ------
    TypeError
        If ``repetitions`` is not a tuple of ints.
    ValueError
        For a negative repetition.
    """
    check_array("tile", x)
    repetitions = _shape_tuple("tile repetitions", repetitions)
    if any(r < 0 for r in repetitions):
        raise ValueError(f"tile repetitions must be >= 0, not {repetitions}")
    ndim = max(x.ndim, len(repetitions))
    if ndim > MAX_NDIM:
        raise ValueError(f"tile would make {ndim} dimensions; at most {MAX_NDIM} are allowed")
    reps = (1,) * (ndim - len(repetitions)) + repetitions
    sizes = (1,) * (ndim - x.ndim) + x.shape
    strides = (0,) * (ndim - x.ndim) + x._strides
    out = ndarray._empty(tuple(r * n for r, n in zip(reps, sizes)), x._dtype, x.device)
    # Each axis of the result as (repetition, position): the source repeats with stride 0.
    split = tuple(v for pair in zip(reps, sizes) for v in pair)
    out_strides = tuple(v for s, n in zip(out._strides, sizes) for v in (s * n, s))
    x_strides = tuple(v for s in strides for v in (0, s))
    out._view(0, split, out_strides)._assign(x._view(0, split, x_strides))
    return out


def pad(x: ndarray, pad_width: int | Sequence[int] | Sequence[Sequence[int]], /,
        mode: Literal["constant"] = "constant", *, constant_values: Scalar = 0) -> ndarray:
    """``x`` with ``constant_values`` added before and after along each axis: NumPy's ``pad``
    in its constant mode, an extension (xarray's ``shift``, ``pad`` and ``rolling`` use it).

    ``pad_width`` takes NumPy's forms: an int for every side, one ``(before, after)`` pair for
    every axis, or a pair per axis. ``constant_values`` is a scalar; the result has ``x``'s
    dtype (a value of another kind is converted as in item assignment).

    Raises
    ------
    ValueError
        For a ``mode`` other than ``"constant"``, or a negative or misshapen ``pad_width``.
    """
    check_array("pad", x)
    if mode != "constant":
        raise ValueError(f"pad supports mode='constant' only, not {mode!r}")
    try:
        widths = np.broadcast_to(np.asarray(pad_width, dtype=object), (x.ndim, 2)).tolist()
    except ValueError:
        widths = None
    if widths is None or any(check_int("pad width", w) < 0 for pair in widths for w in pair):
        raise ValueError(f"pad_width {pad_width!r} is not non-negative (before, after) widths "
                         f"for {x.ndim} axes")
    out = ndarray._empty(tuple(n + before + after for n, (before, after) in zip(x.shape, widths)),
                         x._dtype, x.device)
    out[...] = constant_values
    out[tuple(slice(before, before + n) for n, (before, _) in zip(x.shape, widths))] = x
    return out


def _shape_tuple(name, shape):
    if not isinstance(shape, tuple):
        raise TypeError(f"{name} must be a tuple of ints, not {shape!r}")
    return tuple(check_int(name, n) for n in shape)


def _joined(name, arrays):
    """Check the arrays to join; return them as a list, with the result dtype and device."""
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{name} takes a tuple or list of arrays, not {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{name} needs at least one array")
    for x in arrays:
        check_array(name, x)
    devices = {x.device for x in arrays}
    if len(devices) > 1:
        raise ValueError(f"{name} arrays must be on one device, not {sorted(map(str, devices))}")
    return list(arrays), promoted_dtype(*arrays), arrays[0].device


def _permuted(x, order):
    return x._view(0, tuple(x.shape[a] for a in order), tuple(x._strides[a] for a in order))
