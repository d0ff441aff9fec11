"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ._array_object import _SCALAR_KINDS, check_scalar_kind, ndarray
from ._dtypes import (PYTHON_TYPES, FLOATING, INTEGER, KINDS, DType, as_dtype, bfloat16,
                      common_dtype, complex64, complex128, float32, float64, numpy_twin, promote)
from ._mode import is_strict
from ._traced import Traced, traced

if TYPE_CHECKING:
    from ._typing import DeviceLike, DTypeLike, Scalar


def astype(x: ndarray, dtype: DTypeLike, /, *, copy: bool = True,
           device: DeviceLike | None = None) -> ndarray:
    """Copy ``x`` to ``dtype`` (NumPy's conversion, bit for bit; bfloat16 as PyTorch rounds).

    Parameters
    ----------
    x : ndarray
    dtype : numpy.dtype or another spelling (see :func:`._dtypes.as_dtype`)
    copy : bool
        False returns ``x`` itself when it already has ``dtype`` (and is on ``device``).
    device : Device, str or tuple, optional

    Raises
    ------
    TypeError
        For a complex ``x`` and a real ``dtype``: the standard leaves the imaginary part's fate
        to the caller (use ``real`` or ``imag`` first).
    """
    if not isinstance(x, ndarray):
        if isinstance(x, Traced):
            return traced("astype", x, dtype, copy=copy, device=device)
        raise TypeError(f"astype expects a dlnumba.ndarray, not {type(x).__name__}")
    dtype = as_dtype(dtype)
    if x._dtype.kind == "complex floating" and dtype.kind != "complex floating":
        raise TypeError(f"casting {x._dtype} to {dtype} would drop the imaginary part; "
                        "take real(x) or imag(x) first")
    if device is not None:
        x = x.to_device(device)
    if not copy and dtype is x._dtype:
        return x
    return x._copy(dtype)


def can_cast(from_: DTypeLike | ndarray, to: DTypeLike, /) -> bool:
    """Whether ``from_`` (a dtype or an array) promotes to ``to`` by the promotion table.

    Between kinds the table does not mix, strict mode says False; otherwise NumPy's safe
    casting decides (bool to any number, int32 to float64 but not to float32).
    """
    if isinstance(from_, ndarray):
        from_ = from_._dtype
    from_, to = as_dtype(from_), as_dtype(to)
    try:
        return promote(from_, to) is to
    except TypeError:
        if is_strict():
            return False
    return bool(np.can_cast(numpy_twin(from_), numpy_twin(to), casting="safe"))


class finfo_object(NamedTuple):
    """Machine limits of a floating dtype, as ``finfo`` returns them."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


class iinfo_object(NamedTuple):
    """Machine limits of an integer dtype, as ``iinfo`` returns them."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: DTypeLike | ndarray, /) -> finfo_object:
    """Limits of a real or complex floating dtype (of its real component for complex)."""
    dtype = type._dtype if isinstance(type, ndarray) else as_dtype(type)
    if dtype.kind not in FLOATING:
        raise TypeError(f"finfo takes a floating dtype, not {dtype}")
    real = {"complex64": float32, "complex128": float64}.get(dtype.name, dtype)
    if real is bfloat16:
        largest = (2 - 2.0**-7) * 2.0**127
        return finfo_object(16, 2.0**-7, largest, -largest, 2.0**-126, dtype.numpy)
    info = np.finfo(real.storage)
    return finfo_object(info.bits, float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), real.numpy)


def iinfo(type: DTypeLike | ndarray, /) -> iinfo_object:
    """Limits of an integer dtype."""
    dtype = type._dtype if isinstance(type, ndarray) else as_dtype(type)
    if dtype.kind not in INTEGER:
        raise TypeError(f"iinfo takes an integer dtype, not {dtype}")
    info = np.iinfo(dtype.storage)
    return iinfo_object(info.bits, int(info.max), int(info.min), dtype.numpy)


def isdtype(dtype: DTypeLike, kind: DTypeLike | tuple[DTypeLike, ...]) -> bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name, or a tuple of either.

    Kind names: ``bool``, ``signed integer``, ``unsigned integer``, ``integral``,
    ``real floating``, ``complex floating``, ``numeric``.
    """
    dtype = as_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, (DType, np.dtype)):
        return dtype is as_dtype(kind)
    if isinstance(kind, str):
        if kind not in KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {', '.join(KINDS)}")
        return dtype.kind in KINDS[kind]
    raise TypeError(f"kind must be a dtype, a kind name or a tuple of them, not {kind!r}")


def result_type(*arrays_and_dtypes: ndarray | DTypeLike | Scalar) -> np.dtype:
    """The dtype that promotion gives for arrays, dtypes and Python scalars (see
    :func:`promoted_dtype`)."""
    return promoted_dtype(*arrays_and_dtypes).numpy


def _scalar_dtype(value):
    """A NumPy scalar's dtype (NumPy scalars are typed: NEP 50), anything else unchanged."""
    return value.dtype if isinstance(value, np.generic) and not is_strict() else value


def promoted_dtype(*arrays_and_dtypes):
    """The dtype row that promotion gives for arrays, dtypes and Python scalars.

    Python scalars do not change the result, except that a complex scalar makes a real floating
    result complex of the same precision. Outside strict mode, what the standard leaves open
    follows NumPy 2: dtypes of mixed kinds promote as ``np.result_type`` does, a scalar of a
    kind the result cannot hold promotes as a dtype of its kind (a bool scalar takes the
    result's), and a NumPy scalar as its dtype; in strict mode these raise TypeError.

    Raises
    ------
    TypeError
        For dtypes that do not promote, or a scalar of the wrong kind.
    ValueError
        With no array or dtype among the arguments.
    """
    dtypes = [a._dtype if isinstance(a, ndarray) else _scalar_dtype(a) for a in arrays_and_dtypes
              if type(a) not in _SCALAR_KINDS]
    if not dtypes:
        raise ValueError("result_type needs at least one array or dtype")
    result = as_dtype(dtypes[0])
    for dtype in dtypes[1:]:
        result = common_dtype(result, as_dtype(dtype))
    for scalar in arrays_and_dtypes:
        if type(scalar) is complex and result.kind == "real floating":
            result = complex128 if result is float64 else complex64
        elif type(scalar) in _SCALAR_KINDS and result.kind not in _SCALAR_KINDS[type(scalar)]:
            if is_strict():
                check_scalar_kind(scalar, result)
            elif type(scalar) is not bool:
                result = common_dtype(result, PYTHON_TYPES[type(scalar)])
    return result

