"""Array indexing: boolean masks, integer arrays, ``take`` and ``take_along_axis``.

Reads gather the selected elements into a new C-contiguous array; writes scatter a value,
broadcast and cast to the array's dtype, into them. A 1-D array indexed by 1-D integers, and a
1-D or C-contiguous array indexed by a mask of its shape, take one backend call each (``take``,
``put``, ``compress``, ``expand``). Other indices get their offsets from ``kernels.indexing``
on the host (index arrays on a device are copied there); the gathers and scatters run where the
array is, on the CPU or a CUDA device.
"""

from __future__ import annotations

import operator

import numpy as np

from ._arguments import normalize_axis
from ._array_object import ndarray
from ._backend import backend_of
from ._devices import CPU
from ._dtypes import INTEGER, bool as bool_, int64, uint64
from ._layout import (broadcast_shapes, broadcast_strides, c_contiguous, c_strides, size_of,
                      view_of)
from ._mode import is_strict
from .kernels.indexing import add_index_offsets, layout_offsets, mask_offsets
from .kernels.walk import Direct


def is_array_index(key):
    """Whether ``key`` asks for array indexing (a bool array, or integer arrays of any ndim
    other than 0-d integers, which index like ints)."""
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, ndarray) and (k._dtype.kind == "bool" or k.ndim > 0) for k in parts)


_SEQUENCES = (np.ndarray, list, tuple)


def numpy_index(key, device):
    """``key`` with its NumPy arrays, lists and tuples within a tuple made dlnumba arrays on
    ``device``, outside strict mode (NumPy indexes with them); ``key`` itself where it has
    none."""
    parts = key if isinstance(key, tuple) else (key,)
    if is_strict() or not any(isinstance(k, _SEQUENCES) for k in parts):
        return key
    from ._creation_functions import asarray
    converted = tuple(asarray(k, device=device) if isinstance(k, _SEQUENCES) else k
                      for k in parts)
    return converted if isinstance(key, tuple) else converted[0]


def array_index_offsets(x, key):
    """The result shape and the element offsets into ``x`` selected by an array index.

    Outside strict mode one integer array may stand among slices and ``...``, as in NumPy: it
    selects along its own axis, whose place its dimensions take.

    Raises
    ------
    IndexError
        For a mask not alone in the index or of the wrong shape, integer arrays mixed with
        slices, ``...`` or None (but for the case above), fewer indices than dimensions, or an
        index out of bounds.
    """
    if type(key) is ndarray and x.ndim == 1 and key._dtype.kind in INTEGER:
        return key._shape, _take_offsets(x, key, 0, key._shape)
    parts = key if isinstance(key, tuple) else (key,)
    masks = [k for k in parts if isinstance(k, ndarray) and k._dtype.kind == "bool"]
    if masks:
        if len(parts) != 1:
            raise IndexError("a boolean array index must be the only index")
        return _mask_offsets(x, masks[0])
    arrays = [i for i, k in enumerate(parts) if isinstance(k, ndarray)]
    others = [k for i, k in enumerate(parts) if i not in arrays]
    if (len(arrays) == 1 and (others or x.ndim > 1) and not is_strict()
            and all(isinstance(k, slice) or k is Ellipsis for k in others)):
        return _array_among_slices_offsets(x, parts, arrays[0])
    for k in parts:
        integer_array = isinstance(k, ndarray) and k._dtype.kind in ("signed integer",
                                                                    "unsigned integer")
        if not integer_array and (isinstance(k, (bool, ndarray))
                                  or not hasattr(type(k), "__index__")):
            raise IndexError(f"integer array indexing takes only integers and integer arrays, "
                             f"one per dimension; got {k!r}")
    if len(parts) != x.ndim:
        raise IndexError(f"integer array indexing needs one index per dimension: {x.ndim}, "
                         f"not {len(parts)}")
    arrays = [k if isinstance(k, ndarray) else operator.index(k) for k in parts]
    shape = broadcast_shapes(*(a.shape for a in arrays if isinstance(a, ndarray)))
    offsets = np.zeros(size_of(shape), np.int64)
    for axis, index in enumerate(arrays):
        _add_offsets(offsets, index, shape, x.shape[axis], x._strides[axis], axis)
    return shape, offsets


def _array_among_slices_offsets(x, parts, position):
    """Offsets of ``x[parts]`` where ``parts[position]`` is an integer array and the others
    slices or ``...``: the slices' view, with the array's (flattened) indices along its axis."""
    index = parts[position]
    if index._dtype.kind not in INTEGER:
        raise IndexError(f"an array index must be of an integer or bool dtype, not {index._dtype}")
    offset, shape, strides = view_of(parts[:position] + (slice(None),) + parts[position + 1:],
                                     x._shape, x._strides)
    # an ellipsis before the array stands for the dimensions no other part takes
    axis = x.ndim - len(parts) + position if Ellipsis in parts[:position] else position
    flat = index._copy()._view(0, (index.size,), (1,))
    selected = shape[:axis] + (index.size,) + shape[axis + 1:]
    offsets = np.empty(size_of(selected), np.int64)
    layout_offsets(np.array(selected, np.int64),
                   np.array(strides[:axis] + (0,) + strides[axis + 1:], np.int64), offsets)
    offsets += offset
    placed = ndarray._new(flat._address, selected,
                          tuple(flat._strides[0] if d == axis else 0 for d in range(len(shape))),
                          flat._dtype, flat.device, flat, True)
    _add_offsets(offsets, placed, selected, shape[axis], strides[axis], axis)
    return shape[:axis] + index.shape + shape[axis + 1:], offsets


def _add_offsets(offsets, index, shape, size, stride, axis):
    """Add ``index * stride`` (wrapped, bounds-checked) to the offsets of each element.

    Indices beyond int64 (a Python int, or a uint64 of 2**63 and more) are out of bounds
    before they are made int64, where they would wrap to negative indices.
    """
    if isinstance(index, ndarray):
        index = index.to_device(CPU)
        if index._shape != shape:
            index = index._view(0, shape, broadcast_strides(index._shape, index._strides, shape))
        largest = int(index._numpy().max()) if index._dtype is uint64 and index.size else 0
        if largest >= 2**63:
            raise IndexError(f"index {largest} is out of bounds for axis {axis} with size {size}")
        values = (index if index._dtype is int64 else index._copy(int64))._numpy()
    else:
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
        values = np.full(offsets.size, index, np.int64)
    values = values.ravel()  # C-contiguous, as _ADD_INDEX_OFFSETS was compiled for
    bad = _ADD_INDEX_OFFSETS(None, offsets, values, size, stride)
    if bad >= 0:
        raise IndexError(f"index {int(values[bad])} is out of bounds for axis {axis} with size "
                         f"{size}")


# Called without dispatch: always 1-D, C-contiguous int64 offsets and indices, two ints.
_ADD_INDEX_OFFSETS = Direct(add_index_offsets)


def _mask_offsets(x, mask):
    k = mask.ndim
    # each size matches the array's, or is 0 (an empty mask: it selects nothing)
    if k > x.ndim or any(m not in (n, 0) for m, n in zip(mask.shape, x.shape)):
        raise IndexError(f"boolean index of shape {mask.shape} does not match the array's "
                         f"leading dimensions {x.shape[:k]}")
    mask = mask.to_device(CPU)
    flags = (mask if mask._strides == c_strides(mask._shape) else mask._copy())._numpy()
    lead = np.empty(flags.size, np.int64)
    count = mask_offsets(flags.view(np.uint8).reshape(-1), np.array(mask.shape, np.int64),
                         np.array(x._strides[:k], np.int64), lead)
    trailing_shape = x.shape[k:]
    if not trailing_shape:
        return (count,), lead[:count]
    trailing = np.empty(size_of(trailing_shape), np.int64)
    layout_offsets(np.array(trailing_shape, np.int64), np.array(x._strides[k:], np.int64),
                   trailing)
    offsets = (lead[:count, None] + trailing[None, :]).reshape(-1)
    return (count,) + trailing_shape, offsets


def gather_index(x, key):
    """``x[key]`` for an array index ``key`` (see :func:`array_index_offsets`)."""
    shape, offsets = array_index_offsets(x, key)
    return gather_offsets(x, shape, offsets)


def select_flat(x, key):
    """``x[key]`` for an array ``key`` in one kernel call (:func:`take_flat`,
    :func:`compress_flat`); None where the key or the layouts need the offsets path."""
    if key._dtype.kind in INTEGER and len(key._shape) == 1 == len(x._shape):
        return take_flat(x, key)
    if key._dtype is bool_ and key._shape == x._shape:
        return compress_flat(x, key)
    return None


def assign_flat(x, key, value):
    """``x[key] = value`` for an array ``key`` in one kernel call (:func:`put_flat`,
    :func:`expand_flat`); False, with nothing written, where the key or the layouts need the
    offsets path."""
    if key._dtype.kind in INTEGER and len(key._shape) == 1 == len(x._shape):
        return put_flat(x, key, value)
    if key._dtype is bool_ and key._shape == x._shape:
        return expand_flat(x, key, value)
    return False


def _flat_indices(x, indices):
    """1-D integer ``indices`` as C-contiguous int64 on ``x``'s device; None for uint64 ones,
    whose values beyond int64 must be checked before a cast."""
    if indices._dtype is uint64:
        return None
    if indices._dtype is not int64 or indices._strides != (1,) or (
            indices._device is not x._device and indices._device != x._device):
        indices = indices.to_device(x._device)._copy(int64)
    return indices


def _out_of_bounds(x, indices, bad):
    return IndexError(f"index {int(indices[bad])} is out of bounds for axis 0 with size "
                      f"{x._shape[0]}")


def take_flat(x, indices):
    """``x[indices]`` for a 1-D ``x`` and 1-D integer ``indices``, in one kernel call."""
    flat = _flat_indices(x, indices)
    if flat is None:
        return _take_along(x, indices, 0, indices._shape)
    backend, count, itemsize = backend_of(x._device), flat._shape[0], x._dtype.itemsize
    address, owner = backend.allocate(count * itemsize)
    bad = backend.take(x._address, x._shape[0], x._strides[0], flat._address, count, address,
                       itemsize)
    if bad >= 0:
        raise _out_of_bounds(x, flat, bad)
    return ndarray._new(address, flat._shape, (1,), x._dtype, x._device, owner, False)


def put_flat(x, indices, value):
    """``x[indices] = value`` (an ndarray, broadcast to the indices and cast to ``x``'s
    dtype) for a 1-D ``x`` and 1-D integer ``indices``, in one kernel call; False, with
    nothing written, for uint64 indices."""
    flat = _flat_indices(x, indices)
    if flat is None:
        return False
    source, source_stride = _source(x, value, flat._shape[0])
    bad = backend_of(x._device).put(source._address, source_stride, flat._address,
                                    flat._shape[0], x._address, x._shape[0], x._strides[0],
                                    x._dtype.itemsize)
    if bad >= 0:
        raise _out_of_bounds(x, flat, bad)
    return True


def _source(x, value, count):
    """``value`` (an ndarray) as ``count`` values of ``x``'s dtype on its device, and their
    stride: one value and stride 0 when it has one element; else ``count`` of them (with room
    for one more: :meth:`Backend.expand` reads it), stride 1."""
    if len(value._shape) <= 1 and size_of(value._shape) == 1:
        if value._dtype is x._dtype and value._device is x._device:
            return value, 0  # read in place
        source = ndarray._empty((), x._dtype, x._device)
        source._assign(value._view(0, (), ()))
        return source, 0
    room = ndarray._empty((count + 1,), x._dtype, x._device)
    source = room._view(0, (count,), (1,))
    source._assign(value)
    return source, 1


def _flat_mask(x, mask):
    """``(mask, size, stride, mask_stride)``: a bool ``mask`` of ``x``'s shape (moved to
    ``x``'s device) and both as one run of elements, when both are 1-D or C-contiguous; else
    None."""
    if mask._device is not x._device and mask._device != x._device:
        mask = mask.to_device(x._device)
    if len(x._shape) == 1:
        return mask, x._shape[0], x._strides[0], mask._strides[0]
    if c_contiguous(x._shape, x._strides) and c_contiguous(mask._shape, mask._strides):
        return mask, size_of(x._shape), 1, 1
    return None


def compress_flat(x, mask):
    """``x[mask]`` for a bool ``mask`` of ``x``'s shape, both 1-D or both C-contiguous, in one
    kernel call; None for other layouts."""
    flat = _flat_mask(x, mask)
    if flat is None:
        return None
    mask, size, stride, mask_stride = flat
    room = size
    if size * x._dtype.itemsize > _COUNT_FIRST:
        from ._searching_functions import count_nonzero
        room = int(count_nonzero(mask)) + 1
    out = ndarray._empty((room,), x._dtype, x._device)
    count = backend_of(x._device).compress(x._address, size, stride, mask._address, mask_stride,
                                           out._address, x._dtype.itemsize)
    return out._view(0, (count,), (1,))


_COUNT_FIRST = 1 << 16  # bytes: a larger array's selection is counted before it is allocated


def expand_flat(x, mask, value):
    """``x[mask] = value`` (an ndarray, broadcast to the selection and cast to ``x``'s dtype)
    for a bool ``mask`` as :func:`compress_flat` takes it, in one kernel call; False, with
    nothing written, for other layouts."""
    flat = _flat_mask(x, mask)
    if flat is None:
        return False
    mask, size, stride, mask_stride = flat
    if len(value._shape) <= 1 and size_of(value._shape) == 1:  # one value: no count needed
        source, source_stride = _source(x, value, 1)
    else:
        from ._searching_functions import count_nonzero
        source, source_stride = _source(x, value, int(count_nonzero(mask)))
    backend_of(x._device).expand(source._address, source_stride, size, mask._address,
                                 mask_stride, x._address, stride, x._dtype.itemsize)
    return True


def gather_offsets(x, shape, offsets):
    """A new array of ``shape`` holding the elements of ``x`` at ``offsets``."""
    out = ndarray._empty(shape, x._dtype, x.device)
    backend_of(x._device).gather(x._address, offsets, out._address, x._dtype.itemsize)
    return out


def scatter_offsets(x, shape, offsets, value):
    """Write ``value`` (broadcast to ``shape``, cast to ``x``'s dtype) to ``x`` at ``offsets``."""
    source = ndarray._empty(shape, x._dtype, x.device)
    source._assign(value)
    backend_of(x._device).scatter(source._address, offsets, x._address, x._dtype.itemsize)


def take(x: ndarray, indices: ndarray, /, *, axis: int | None = None) -> ndarray:
    """Elements of ``x`` at integer ``indices`` (1-D) along ``axis``.

    ``axis`` may be omitted for a 1-D ``x``. Negative indices count from the end. Outside
    strict mode ``indices`` may be a Python int, as in NumPy: the axis is then dropped.

    Raises
    ------
    IndexError
        For an index outside ``[-n, n)``.
    """
    if (type(x) is ndarray and type(indices) is ndarray and len(x._shape) == 1
            and len(indices._shape) == 1 and indices._dtype.kind in INTEGER
            and (axis is None or type(axis) is int and -1 <= axis <= 0)):
        return take_flat(x, indices)  # the common case, kept lean
    if type(indices) is int and isinstance(x, ndarray) and not is_strict():
        # NumPy's take of one index drops the axis
        from ._manipulation_functions import squeeze
        axis = 0 if axis is None and x.ndim == 1 else axis
        from ._creation_functions import asarray
        taken = take(x, asarray([indices], device=x.device), axis=axis)
        return squeeze(taken, axis=normalize_axis(axis, x.ndim, "take"))
    _check(x, indices, "take")
    if indices.ndim != 1:
        raise ValueError(f"take needs 1-D indices, not {indices.ndim}-D")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take needs an axis for a {x.ndim}-D array")
        axis = 0
    axis = normalize_axis(axis, x.ndim, "take")
    if x.ndim == 1:
        return take_flat(x, indices)
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if not size_of(shape):  # no element to gather, but the indices must still be in bounds
        _add_offsets(np.zeros(indices.size, np.int64), indices, indices.shape, x.shape[axis],
                     0, axis)
    placed = ndarray._new(indices._address, shape,
                          tuple(indices._strides[0] if d == axis else 0 for d in range(x.ndim)),
                          indices._dtype, indices.device, indices, True)
    return _take_along(x, placed, axis, shape)


def take_along_axis(x: ndarray, indices: ndarray, /, *, axis: int = -1) -> ndarray:
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis``.

    ``indices`` has ``x``'s number of dimensions and broadcasts with it except along ``axis``.
    """
    _check(x, indices, "take_along_axis")
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis needs indices with {x.ndim} dimensions, not "
                         f"{indices.ndim}")
    axis = normalize_axis(axis, x.ndim, "take_along_axis")
    others = broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                              indices.shape[:axis] + (1,) + indices.shape[axis + 1:])
    shape = others[:axis] + indices.shape[axis:axis + 1] + others[axis + 1:]
    return _take_along(x, indices, axis, shape)


def _take_along(x, indices, axis, shape):
    return gather_offsets(x, shape, _take_offsets(x, indices, axis, shape))


def _take_offsets(x, indices, axis, shape):
    """The offsets into ``x`` of ``x``'s elements at ``indices`` (of ``shape``) along
    ``axis``."""
    if x.ndim == 1:  # the other axes add nothing
        offsets = np.zeros(size_of(shape), np.int64)
    else:
        base_strides = broadcast_strides(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                         x._strides[:axis] + (0,) + x._strides[axis + 1:], shape)
        offsets = np.empty(size_of(shape), np.int64)
        layout_offsets(np.array(shape, np.int64), np.array(base_strides, np.int64), offsets)
    _add_offsets(offsets, indices, shape, x.shape[axis], x._strides[axis], axis)
    return offsets


def _check(x, indices, name):
    if not isinstance(x, ndarray) or not isinstance(indices, ndarray):
        raise TypeError(f"{name} expects dlnumba arrays")
    if indices._dtype.kind not in INTEGER:
        raise TypeError(f"{name} needs integer indices, not {indices._dtype}")
