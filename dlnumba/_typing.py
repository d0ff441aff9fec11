"""The type aliases of dlnumba's annotations.

The annotated modules import these under ``if TYPE_CHECKING:`` and start with ``from __future__
import annotations``: type checkers read them, and nothing is evaluated at import or per call.
"""

from __future__ import annotations

import sys
from types import EllipsisType
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, TypeVar

import numpy as np

from ._devices import Device

if TYPE_CHECKING:
    from ._array_object import ndarray

__all__ = ["Axes", "Capabilities", "DataTypes", "DefaultDataTypes", "Device", "DeviceLike",
           "DType", "DTypeLike", "FFTNorm", "Index", "NestedSequence", "Operand", "PyCapsule",
           "Scalar", "SupportsBufferProtocol", "SupportsDLPack"]

_T_co = TypeVar("_T_co", covariant=True)

# A dtype as the namespace gives it: ``dlnumba.float32`` is ``np.dtype("float32")``, and
# ``dlnumba.bfloat16`` is ``np.dtype(ml_dtypes.bfloat16)``, also a ``numpy.dtype``.
DType = np.dtype[Any]
# What a ``dtype=`` argument takes: one of the namespace's dtypes or, outside strict mode, another
# spelling of one (NumPy scalar types, names such as ``"float32"``, Python's bool, int, float and
# complex).
DTypeLike = DType | type | str
# What a ``device=`` argument takes: a Device, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``, or a DLPack
# ``(device_type, device_id)`` pair.
DeviceLike = Device | str | tuple[int, int]
# A Python scalar, as the standard's functions and operators take them with arrays.
Scalar = bool | int | float | complex
# One axis or several (``axis=None``, all of them, is spelled ``Axes | None``).
Axes = int | tuple[int, ...]
# A DLPack capsule (``PyCapsule`` has no Python type to name).
PyCapsule = Any
# The ``norm=`` of the fft functions.
FFTNorm = Literal["backward", "ortho", "forward"]
# What ``__array_namespace_info__().dtypes()`` returns: dtypes by name.
DataTypes = dict[str, DType]

if sys.version_info >= (3, 12):
    from collections.abc import Buffer as SupportsBufferProtocol
else:
    SupportsBufferProtocol = Any

if TYPE_CHECKING:
    # One item of an index: an int, a slice, ``...``, None (a new axis) or an array (integers
    # or a bool mask; outside strict mode also NumPy arrays and lists).
    _IndexItem = int | slice | EllipsisType | None | ndarray | np.ndarray | list[Any]
    # What ``x[key]`` takes.
    Index = _IndexItem | tuple[_IndexItem, ...]
    # The other operand of an arithmetic, bitwise or comparison operator.
    Operand = ndarray | Scalar | np.generic


class SupportsDLPack(Protocol):
    """An object ``from_dlpack`` takes: one with ``__dlpack__`` (and ``__dlpack_device__``)."""

    def __dlpack__(self, /, *, stream: Any = ...) -> PyCapsule: ...

    def __dlpack_device__(self, /) -> tuple[int, int]: ...


class NestedSequence(Protocol[_T_co]):
    """Nested Python lists (or other sequences) of scalars, as ``asarray`` takes them."""

    def __getitem__(self, key: int, /) -> _T_co | NestedSequence[_T_co]: ...

    def __len__(self, /) -> int: ...


# What ``__array_namespace_info__()`` returns.
Capabilities = TypedDict("Capabilities", {
    "boolean indexing": bool, "data-dependent shapes": bool, "max dimensions": int})
DefaultDataTypes = TypedDict("DefaultDataTypes", {
    "real floating": DType, "complex floating": DType, "integral": DType, "indexing": DType})
