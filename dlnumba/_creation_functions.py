"""Creation functions: asarray, from_dlpack, empty, zeros, ones, full, arange, eye, linspace,
meshgrid, tril, triu and the *_like forms."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from . import _dlpack
from ._backend import backend_of
from ._arguments import check_int
from ._array_object import _from_numpy, check_scalar_kind, ndarray
from ._capi import CapsuleType
from ._devices import CPU, as_device
from ._dtypes import (PYTHON_TYPES, FLOATING, REAL_NUMERIC, as_dtype, bfloat16, complex128,
                      float64, from_numpy_dtype, int64)
from ._layout import MAX_NDIM, c_strides, size_of
from ._mode import is_strict
from ._native import buffer_address, copy_memory

if TYPE_CHECKING:
    from typing import Literal

    from ._typing import (DeviceLike, DTypeLike, NestedSequence, PyCapsule, Scalar,
                          SupportsBufferProtocol, SupportsDLPack)

_HELD_DEVICES = (CPU,)


def from_dlpack(x: SupportsDLPack | PyCapsule, /, *, device: DeviceLike | None = None,
                copy: bool | None = None) -> ndarray:
    """Import an array from any DLPack producer, zero-copy when possible.

    Parameters
    ----------
    x : object
        An object with ``__dlpack__`` (and ``__dlpack_device__``), or a DLPack PyCapsule, legacy
        (``dltensor``) or versioned (``dltensor_versioned``), as ``to_dlpack`` functions make.
        A capsule is renamed ``used_...`` once consumed.
    device : Device, str or tuple, optional
        Where the result lives; another device than the data's means a copy.
    copy : bool, optional
        True: always copy. False: never copy (BufferError if one is needed). None: copy only
        if needed.

    Returns
    -------
    ndarray
        Shares memory with ``x`` unless a copy was made. Memory from a legacy capsule is
        writable; from a versioned one it is read-only when the producer set READ_ONLY.

    Raises
    ------
    TypeError
        If ``x`` is neither a DLPack producer nor a capsule.
    BufferError
        If the capsule was consumed already, its tensor is invalid or unsupported, or
        ``copy=False`` and a copy is needed.
    """
    if device is None:
        target = dl_device = None
    else:
        target = as_device(device)
        # A producer is asked to move data only to a device this build can hold.
        dl_device = target.dlpack if target in _HELD_DEVICES else None
    capsule = x if type(x) is CapsuleType else _dlpack.request_capsule(x, dl_device, copy)
    array, copied = _dlpack.import_capsule(capsule, ndarray)
    if target is not None and target != array.device:
        if copy is False:
            raise BufferError(f"the data is on {array.device}, not {target}: a copy is needed "
                              "but copy=False")
        return array.to_device(target)
    if copy and not copied:
        return array._copy()
    return array


def to_dlpack(x: ndarray, /) -> PyCapsule:
    """Export ``x`` as a legacy ``dltensor`` capsule, as ``torch.utils.dlpack.to_dlpack`` does.

    Raises
    ------
    TypeError
        If ``x`` is not a dlnumba array.
    BufferError
        If ``x`` is read-only (a legacy capsule cannot say so).
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"to_dlpack expects a dlnumba.ndarray, not {type(x).__name__}")
    return x.__dlpack__()


def asarray(obj: ndarray | SupportsDLPack | Scalar | NestedSequence[Scalar]
            | SupportsBufferProtocol, /, *, dtype: DTypeLike | None = None,
            device: DeviceLike | None = None, copy: bool | None = None) -> ndarray:
    """Convert ``obj`` to an array.

    Parameters
    ----------
    obj : ndarray, DLPack producer, Python scalar, nested sequence or buffer
        NumPy arrays, PyTorch and JAX tensors arrive through DLPack.
    dtype : numpy.dtype or another spelling, optional
        Default: the input's dtype; for Python data, bool, int64, float64 or complex128.
    device : Device, str or tuple, optional
    copy : bool, optional
        True: always copy. False: never copy (ValueError if one is needed). None: copy only
        if needed.

    Raises
    ------
    ValueError
        If ``copy=False`` and a copy is needed.
    TypeError
        For a dtype or object dlnumba does not know.
    """
    if type(obj) is ndarray and dtype is None and device is None:  # the common case, kept lean
        return obj._copy() if copy else obj
    dtype = None if dtype is None else as_dtype(dtype)
    target = None if device is None else as_device(device)
    if isinstance(obj, ndarray):
        array, fresh = obj, False
    elif isinstance(obj, np.ndarray) and obj.dtype.kind not in "biufc":
        if obj.dtype != bfloat16.numpy:
            raise TypeError(f"asarray cannot convert a NumPy array of dtype {obj.dtype}; "
                            "dlnumba holds bool and numbers only")
        array, fresh = _from_numpy(obj), False  # ml_dtypes' bfloat16: NumPy's DLPack refuses it
    elif hasattr(obj, "__dlpack__"):
        array = from_dlpack(obj, copy=False if copy is False else None)
        fresh = False
    elif _is_python_data(obj):
        if copy is False:
            raise ValueError("asarray(copy=False) cannot wrap Python data without a copy")
        array, fresh = _from_python(obj, dtype), True
    else:
        try:
            buffer = memoryview(obj)
        except TypeError:
            raise TypeError(f"asarray cannot convert {type(obj).__name__}; expected an array, "
                            "a DLPack producer, a Python scalar, a nested sequence or a buffer"
                            ) from None
        array, fresh = from_dlpack(np.asarray(buffer)), False
    if dtype is not None and dtype is not array._dtype:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot convert {array._dtype} to {dtype} "
                             "without a copy")
        array, fresh = array._copy(dtype), True
    if target is not None and target != array.device:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot move data from {array.device} to "
                             f"{target} without a copy")
        array, fresh = array.to_device(target), True
    if copy and not fresh:
        array = array._copy()
    return array


def _is_python_data(obj):
    return type(obj) in PYTHON_TYPES or isinstance(obj, (list, tuple))


def _from_python(obj, dtype):
    values = np.asarray(obj)
    if values.dtype.kind not in "biufc":
        raise TypeError(f"cannot make an array from {obj!r}: the values are not all bool, int, "
                        "float or complex, or an integer exceeds 64 bits, or the sequence is "
                        "ragged")
    if dtype is not None:  # converted from the Python values, so that out-of-range ints raise
        values = np.asarray(obj, dtype=np.float32 if dtype is bfloat16 else dtype.storage)
    found = from_numpy_dtype(values.dtype)
    if dtype is not None and dtype is not found:  # bfloat16, from float32
        return ndarray._new(buffer_address(values), values.shape, c_strides(values.shape),
                            found, CPU, values, True)._copy(dtype)
    array = ndarray._empty(values.shape, found)  # host memory, aligned as every allocation
    copy_memory(array._address, buffer_address(values), values.nbytes)
    return array


def _as_shape(shape):
    if type(shape) is int and shape >= 0:
        return (shape,)
    if type(shape) is tuple and len(shape) <= MAX_NDIM and all(
            type(n) is int and n >= 0 for n in shape):
        return shape
    if isinstance(shape, int) or hasattr(type(shape), "__index__"):
        shape = (shape,)
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(n < 0 for n in shape) or len(shape) > MAX_NDIM:
        raise ValueError(f"shape {shape} must have non-negative sizes and at most {MAX_NDIM} "
                         "dimensions")
    return shape


def _creation_args(dtype, device, default=float64):
    return (default if dtype is None else as_dtype(dtype),
            CPU if device is None else as_device(device))


def empty(shape: int | tuple[int, ...], *, dtype: DTypeLike | None = None,
          device: DeviceLike | None = None) -> ndarray:
    """A new array of ``shape`` whose values are not initialised (default dtype float64)."""
    dtype, device = _creation_args(dtype, device)
    return ndarray._empty(_as_shape(shape), dtype, device)


def zeros(shape: int | tuple[int, ...], *, dtype: DTypeLike | None = None,
          device: DeviceLike | None = None) -> ndarray:
    """A new array of ``shape`` filled with zeros (default dtype float64)."""
    dtype, device = _creation_args(dtype, device)
    return ndarray._empty(_as_shape(shape), dtype, device, zero=True)


def ones(shape: int | tuple[int, ...], *, dtype: DTypeLike | None = None,
         device: DeviceLike | None = None) -> ndarray:
    """A new array of ``shape`` filled with ones (default dtype float64)."""
    dtype, device = _creation_args(dtype, device)
    array = ndarray._empty(_as_shape(shape), dtype, device)
    array._fill(1)
    return array


def full(shape: int | tuple[int, ...], fill_value: Scalar, *, dtype: DTypeLike | None = None,
         device: DeviceLike | None = None) -> ndarray:
    """A new array of ``shape`` filled with ``fill_value`` (default dtype from its type).

    Outside strict mode ``fill_value`` may be a NumPy scalar, whose dtype is then the default.

    Raises
    ------
    TypeError
        If ``fill_value`` is not a Python scalar, or is of a kind ``dtype`` cannot hold.
    """
    default = None
    if isinstance(fill_value, np.generic) and not is_strict():
        default, fill_value = from_numpy_dtype(fill_value.dtype), fill_value.item()
    if type(fill_value) not in PYTHON_TYPES:
        raise TypeError(f"fill_value must be a bool, int, float or complex, not {fill_value!r}")
    dtype, device = _creation_args(dtype, device, default or PYTHON_TYPES[type(fill_value)])
    check_scalar_kind(fill_value, dtype, stored=True)
    array = ndarray._empty(_as_shape(shape), dtype, device)
    array._fill(fill_value)
    return array


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> ndarray:
    """Evenly spaced values in ``[start, stop)``, as the array API defines ``arange``."""
    if stop is None:
        start, stop = 0, start
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if type(value) not in (int, float):
            raise TypeError(f"arange {name} must be an int or a float, not {value!r}")
    if step == 0:
        raise ValueError("arange step must not be zero")
    default = int64 if all(type(v) is int for v in (start, stop, step)) else float64
    dtype, device = _creation_args(dtype, device, default)
    if dtype.kind not in REAL_NUMERIC:
        raise TypeError(f"arange makes real numbers; dtype {dtype} is not a real numeric dtype")
    values = np.arange(start, stop, step, dtype=np.float32 if dtype is bfloat16 else dtype.storage)
    return _from_python(values, dtype).to_device(device)


def empty_like(x: ndarray, /, *, dtype: DTypeLike | None = None,
               device: DeviceLike | None = None) -> ndarray:
    """A new uninitialised array with the shape of ``x`` (and its dtype and device by default)."""
    dtype, device = _like_args(x, dtype, device)
    return ndarray._empty(x.shape, dtype, device)


def zeros_like(x: ndarray, /, *, dtype: DTypeLike | None = None,
               device: DeviceLike | None = None) -> ndarray:
    """Zeros with the shape of ``x`` (and its dtype and device by default)."""
    dtype, device = _like_args(x, dtype, device)
    return ndarray._empty(x.shape, dtype, device, zero=True)


def ones_like(x: ndarray, /, *, dtype: DTypeLike | None = None,
              device: DeviceLike | None = None) -> ndarray:
    """Ones with the shape of ``x`` (and its dtype and device by default)."""
    dtype, device = _like_args(x, dtype, device)
    return ones(x.shape, dtype=dtype, device=device)


def full_like(x: ndarray, /, fill_value: Scalar, *, dtype: DTypeLike | None = None,
              device: DeviceLike | None = None) -> ndarray:
    """``fill_value`` with the shape of ``x`` (and its dtype and device by default)."""
    dtype, device = _like_args(x, dtype, device)
    return full(x.shape, fill_value, dtype=dtype, device=device)


def _like_args(x, dtype, device):
    if not isinstance(x, ndarray):
        raise TypeError(f"expected a dlnumba.ndarray, not {type(x).__name__}")
    return (x._dtype if dtype is None else as_dtype(dtype),
            x.device if device is None else as_device(device))


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
        dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> ndarray:
    """A 2-D array with ones on diagonal ``k`` (above the main one for ``k > 0``) and zeros
    elsewhere; ``n_cols`` defaults to ``n_rows``, ``dtype`` to float64."""
    n_rows = _count("eye n_rows", n_rows)
    n_cols = n_rows if n_cols is None else _count("eye n_cols", n_cols)
    k = check_int("eye k", k)
    dtype, device = _creation_args(dtype, device)
    array = ndarray._empty((n_rows, n_cols), dtype, device, zero=True)
    first = k if k >= 0 else -k * n_cols
    length = max(0, min(n_rows + min(k, 0), n_cols - max(k, 0)))
    array._view(first, (length,), (n_cols + 1,))._fill(1)
    return array


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: DTypeLike | None = None, device: DeviceLike | None = None,
             endpoint: bool = True) -> ndarray:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``),
    computed in float64 (complex128 for complex bounds) as NumPy's ``linspace``, then cast.

    Raises
    ------
    TypeError
        For bounds that are not Python numbers, a dtype that is not floating-point, or complex
        bounds with a real dtype.
    ValueError
        For a negative ``num``.
    """
    for name, value in (("start", start), ("stop", stop)):
        if type(value) not in (int, float, complex):
            raise TypeError(f"linspace {name} must be an int, float or complex, not {value!r}")
    num = _count("linspace num", num)
    is_complex = complex in (type(start), type(stop))
    dtype, device = _creation_args(dtype, device, complex128 if is_complex else float64)
    if dtype.kind not in FLOATING:
        raise TypeError(f"linspace makes floating-point values; dtype {dtype} is not a "
                        "floating-point dtype")
    if is_complex and dtype.kind != "complex floating":
        raise TypeError(f"linspace with complex bounds needs a complex dtype, not {dtype}")
    compute = complex128 if is_complex else float64  # as NumPy: the bounds' type, then a cast
    values = ndarray._empty((num,), compute, device)
    convert = compute.storage.type
    arguments = (values._address, num, convert(start), convert(stop),
                 num - 1 if endpoint else num, bool(endpoint))
    backend_of(device).linspace(*arguments, compute)
    return values if dtype is compute else values._copy(dtype)


def meshgrid(*arrays: ndarray, indexing: Literal["xy", "ij"] = "xy") -> tuple[ndarray, ...]:
    """Coordinate arrays from 1-D coordinate vectors, as new C-contiguous arrays.

    With ``indexing="xy"`` the first two dimensions are swapped (``(len(y), len(x), ...)``);
    with ``"ij"`` the shape is ``(len(arrays[0]), len(arrays[1]), ...)``.

    Raises
    ------
    TypeError
        For a non-array argument.
    ValueError
        For arrays that are not 1-D, of different dtypes or devices, or another ``indexing``.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid indexing must be 'xy' or 'ij', not {indexing!r}")
    for a in arrays:
        if not isinstance(a, ndarray):
            raise TypeError(f"meshgrid takes dlnumba arrays, not {type(a).__name__}")
        if a.ndim != 1:
            raise ValueError(f"meshgrid takes 1-D arrays, not one of shape {a.shape}")
    if len({a._dtype for a in arrays}) > 1 or len({a.device for a in arrays}) > 1:
        raise ValueError("meshgrid arrays must all have the same dtype and device; got "
                         + ", ".join(f"{a._dtype} on {a.device}" for a in arrays))
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(arrays)
    for a, axis in zip(arrays, axes):
        shape[axis] = a.shape[0]
    shape = tuple(shape)
    grids = []
    for a, axis in zip(arrays, axes):
        strides = tuple(a._strides[0] if d == axis else 0 for d in range(len(shape)))
        grids.append(a._view(0, shape, strides)._copy())
    return tuple(grids)


def tril(x: ndarray, /, *, k: int = 0) -> ndarray:
    """The lower triangle (on and below diagonal ``k``) of each matrix in ``x`` (..., M, N);
    the elements above it are zero."""
    return _triangle("tril", x, k, True)


def triu(x: ndarray, /, *, k: int = 0) -> ndarray:
    """The upper triangle (on and above diagonal ``k``) of each matrix in ``x`` (..., M, N);
    the elements below it are zero."""
    return _triangle("triu", x, k, False)


def _triangle(name, x, k, lower):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{name} needs an array of at least 2 dimensions (..., M, N), not "
                         f"shape {x.shape}")
    k = check_int(f"{name} k", k)
    result = x._copy()
    rows, cols = x.shape[-2:]
    arguments = (result._address, size_of(x.shape[:-2]), rows, cols, k, lower)
    backend_of(result._device).zero_triangle(*arguments, x._dtype.itemsize)
    return result


def _count(name, value):
    value = check_int(name, value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {value}")
    return value
