"""The ndarray: a view of raw memory (address, shape, strides, dtype, device, owner, read-only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import _dlpack
from ._buffer import ArrayBase, describe
from ._backend import backend_of, move, register_array_type
from ._devices import CPU, as_device
from ._dtypes import (FLOATING, INTEGER, NUMERIC, dtype_by_name, bfloat16, float32,
                      from_numpy_dtype)
from ._mode import is_strict
from ._layout import broadcast_strides, c_layout, c_strides, size_of, sliced, view_of
from ._memory import numpy_view
from ._native import buffer_address, constructor
from .shared.scalar import FUNCTIONS

if TYPE_CHECKING:
    import types
    from collections.abc import Iterator
    from typing import Any

    from ._devices import Device, DLDeviceType
    from ._typing import DeviceLike, DType, Index, Operand, PyCapsule, Scalar, SupportsDLPack

_SCALAR_KINDS = {
    bool: ("bool",),
    int: NUMERIC,
    float: FLOATING,
    complex: ("complex floating",),
}
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


_MAX_BYTES = 2**62  # the most memory an array may span (as dlnumba's DLPack importer allows)
_FIELDS = ("_address", "_shape", "_strides", "_dtype", "_device", "_owner", "_readonly")


class ndarray(ArrayBase):
    """An array API array over raw memory.

    Arrays are made by the creation functions (``asarray``, ``empty``, ...) and by
    ``from_dlpack``, never by calling this class. Strides are in elements.
    """

    __slots__ = (*_FIELDS, "__weakref__")
    __array_priority__ = 100.0  # above NumPy's, as CuPy's: Dask keeps a mixed result dlnumba

    def __init__(self, *args, **kwargs):
        raise TypeError("dlnumba.ndarray cannot be constructed directly; use dlnumba.asarray, "
                        "dlnumba.empty or dlnumba.from_dlpack")

    @staticmethod
    def _empty(shape, dtype, device=CPU, zero=False, strides=None):
        """A new dense array on ``device`` (C-contiguous unless ``strides``, a dense layout of
        ``shape``, says otherwise); its memory is uninitialised unless ``zero``. ValueError
        when its sizes other than 0 span more than 2**62 bytes: no DLPack consumer could take
        its strides."""
        size, dense_strides = c_layout(shape)
        nbytes = size * dtype.itemsize
        if nbytes > _MAX_BYTES or not nbytes and size_of(tuple(n for n in shape if n)) * \
                dtype.itemsize > _MAX_BYTES:
            raise ValueError(f"an array of shape {shape} and dtype {dtype} would span more "
                             "than 2**62 bytes")
        address, owner = backend_of(device).allocate(nbytes, zero)
        return ndarray._new(address, shape, strides or dense_strides, dtype, device, owner,
                            False)

    def __getattr__(self, name):
        # The descriptor (ArrayBase's one field) is filled on first use: a buffer, an @njit call.
        if name == "_descriptor":
            return describe(self)
        raise AttributeError(f"'dlnumba.ndarray' object has no attribute {name!r}")

    @property
    def _numba_type_(self):
        """The Numba type of the array, which Numba's and numba-cuda's ``typeof`` read."""
        from .numba_ext import numba_type_of
        return numba_type_of(self)

    # ---- attributes ----

    @property
    def dtype(self) -> DType:
        """The data type of the elements: a NumPy dtype (``ml_dtypes.bfloat16`` for
        bfloat16), one of the namespace's."""
        return self._dtype.numpy

    @property
    def device(self) -> Device:
        """The device that holds the memory."""
        return self._device

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each dimension."""
        return self._shape

    @property
    def size(self) -> int:
        """The number of elements."""
        return size_of(self._shape)

    @property
    def T(self) -> ndarray:
        """The transpose of a 2-D array (a view)."""
        if len(self._shape) != 2:
            raise ValueError(f"x.T requires a 2-D array, not {len(self._shape)}-D; "
                             "use x.mT or permute_dims for other ranks")
        return self._view(0, self._shape[::-1], self._strides[::-1])

    @property
    def mT(self) -> ndarray:
        """The transpose of the last two dimensions (a view)."""
        if len(self._shape) < 2:
            raise ValueError(f"x.mT requires at least 2 dimensions, not {len(self._shape)}")
        swap = lambda t: t[:-2] + (t[-1], t[-2])
        return self._view(0, swap(self._shape), swap(self._strides))

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """Return the ``dlnumba`` namespace."""
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"api_version {api_version!r} is not supported; "
                             f"expected one of {', '.join(_API_VERSIONS)} or None")
        import dlnumba
        return dlnumba

    # ---- devices and DLPack ----

    def to_device(self, device: DeviceLike, /, *, stream: int | Any | None = None) -> ndarray:
        """Return this array on ``device``: itself when it is there already, else a copy."""
        if device is self._device:
            return self
        device = as_device(device)
        if device == self._device:
            return self
        result = ndarray._empty(self._shape, self._dtype, device)
        result._assign(self)
        return result

    def __dlpack__(self, *, stream: int | Any | None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> PyCapsule:
        """Export as a DLPack capsule (versioned when ``max_version`` is 1.x or later)."""
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[DLDeviceType, int]:
        """The ``(DLDeviceType, device_id)`` of the memory."""
        return self._device.dlpack

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface, so NumPy (and Numba's ufuncs) can read the memory in place.

        Not available for bfloat16 (NumPy has no such dtype) or memory off the CPU.
        """
        if self._dtype is bfloat16 or not self._device.host_memory:
            raise AttributeError(f"no array interface for a {self._dtype} array on "
                                 f"{self._device}")
        storage = self._dtype.storage
        return {"version": 3, "data": (self._address, self._readonly), "shape": self._shape,
                "strides": tuple(s * storage.itemsize for s in self._strides),
                "typestr": storage.str}

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The CUDA Array Interface (version 3) of an array on a CUDA device, so CuPy, PyTorch
        and Numba's ``@cuda.jit`` kernels can use the memory in place.

        ``stream`` is 1, the legacy default stream, where dlnumba queues its device work: a
        consumer synchronizes with it before it uses the memory. Not available for bfloat16
        (the interface has no type string for it) or memory off CUDA devices.
        """
        if self._dtype is bfloat16 or self._device.type != "cuda":
            raise AttributeError(f"no CUDA array interface for a {self._dtype} array on "
                                 f"{self._device}")
        storage = self._dtype.storage
        dense = self._strides == c_strides(self._shape)
        return {"version": 3, "data": (self._address, self._readonly), "shape": self._shape,
                "strides": None if dense else tuple(s * storage.itemsize for s in self._strides),
                "typestr": storage.str, "stream": 1}

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """What NumPy asks for when ``__array_interface__`` is absent: a bfloat16 array as an
        ``ml_dtypes.bfloat16`` view (a copy if ``copy``); refused off the CPU, so that
        ``np.asarray`` does not make an object array."""
        if not self._device.host_memory:
            raise ValueError(f"an array on {self._device} cannot become a NumPy array; move it "
                             "first with to_device('cpu')")
        view = self._numpy().view(self._dtype.numpy)
        if dtype is not None and np.dtype(dtype) != view.dtype:
            return view.astype(dtype)
        return view.copy() if copy else view

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """Run a NumPy (or Numba ``@vectorize``/``@guvectorize``) ufunc on the memory in place.

        dlnumba arguments and ``out=`` arrays are handed to the ufunc as zero-copy NumPy views;
        new results (NumPy scalars too) come back as dlnumba arrays over NumPy's memory, ``out=``
        arrays as given.
        """
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_ufunc_operand(o) for o in out)
        inputs = tuple(_ufunc_operand(x) for x in inputs)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _numpy_functions.as_dlnumba(result)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        """NumPy's functions on dlnumba arrays (NEP 18): dlnumba arrays with NumPy's values,
        from dlnumba's kernels where a namesake gives them, else from NumPy's function on
        zero-copy views of host memory (NotImplemented on other devices)."""
        return _numpy_functions.array_function(func, types, args, kwargs)

    # ---- operators ----

    if TYPE_CHECKING:  # the operators set below from the elementwise functions' rows
        def __abs__(self) -> ndarray: ...
        def __neg__(self) -> ndarray: ...
        def __pos__(self) -> ndarray: ...
        def __invert__(self) -> ndarray: ...
        def __add__(self, other: Operand, /) -> ndarray: ...
        def __radd__(self, other: Scalar, /) -> ndarray: ...
        def __iadd__(self, other: Operand, /) -> ndarray: ...
        def __sub__(self, other: Operand, /) -> ndarray: ...
        def __rsub__(self, other: Scalar, /) -> ndarray: ...
        def __isub__(self, other: Operand, /) -> ndarray: ...
        def __mul__(self, other: Operand, /) -> ndarray: ...
        def __rmul__(self, other: Scalar, /) -> ndarray: ...
        def __imul__(self, other: Operand, /) -> ndarray: ...
        def __truediv__(self, other: Operand, /) -> ndarray: ...
        def __rtruediv__(self, other: Scalar, /) -> ndarray: ...
        def __itruediv__(self, other: Operand, /) -> ndarray: ...
        def __floordiv__(self, other: Operand, /) -> ndarray: ...
        def __rfloordiv__(self, other: Scalar, /) -> ndarray: ...
        def __ifloordiv__(self, other: Operand, /) -> ndarray: ...
        def __mod__(self, other: Operand, /) -> ndarray: ...
        def __rmod__(self, other: Scalar, /) -> ndarray: ...
        def __imod__(self, other: Operand, /) -> ndarray: ...
        def __pow__(self, other: Operand, /) -> ndarray: ...
        def __rpow__(self, other: Scalar, /) -> ndarray: ...
        def __ipow__(self, other: Operand, /) -> ndarray: ...
        def __and__(self, other: Operand, /) -> ndarray: ...
        def __rand__(self, other: Scalar, /) -> ndarray: ...
        def __iand__(self, other: Operand, /) -> ndarray: ...
        def __or__(self, other: Operand, /) -> ndarray: ...
        def __ror__(self, other: Scalar, /) -> ndarray: ...
        def __ior__(self, other: Operand, /) -> ndarray: ...
        def __xor__(self, other: Operand, /) -> ndarray: ...
        def __rxor__(self, other: Scalar, /) -> ndarray: ...
        def __ixor__(self, other: Operand, /) -> ndarray: ...
        def __lshift__(self, other: Operand, /) -> ndarray: ...
        def __rlshift__(self, other: Scalar, /) -> ndarray: ...
        def __ilshift__(self, other: Operand, /) -> ndarray: ...
        def __rshift__(self, other: Operand, /) -> ndarray: ...
        def __rrshift__(self, other: Scalar, /) -> ndarray: ...
        def __irshift__(self, other: Operand, /) -> ndarray: ...
        def __matmul__(self, other: ndarray, /) -> ndarray: ...
        def __rmatmul__(self, other: ndarray, /) -> ndarray: ...
        def __imatmul__(self, other: ndarray, /) -> ndarray: ...
        def __eq__(self, other: Operand, /) -> ndarray: ...  # type: ignore[override]
        def __ne__(self, other: Operand, /) -> ndarray: ...  # type: ignore[override]
        def __lt__(self, other: Operand, /) -> ndarray: ...
        def __le__(self, other: Operand, /) -> ndarray: ...
        def __gt__(self, other: Operand, /) -> ndarray: ...
        def __ge__(self, other: Operand, /) -> ndarray: ...

        # NumPy's methods, set by _numpy_functions: numpy.<name>(self, ...)
        def __len__(self) -> int: ...
        def sum(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def prod(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def mean(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def std(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def var(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def max(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def min(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def any(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def all(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def argmax(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def argmin(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def cumsum(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def cumprod(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def squeeze(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def clip(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def round(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def take(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def repeat(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def nonzero(self) -> tuple[ndarray, ...]: ...
        def argsort(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def copy(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def dot(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def swapaxes(self, *args: Any, **kwargs: Any) -> ndarray: ...
        def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> ndarray: ...
        def transpose(self, *axes: Any) -> ndarray: ...
        def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe",
                   subok: bool = True, copy: bool = True) -> ndarray: ...
        def flatten(self, order: str = "C") -> ndarray: ...
        def ravel(self, order: str = "C") -> ndarray: ...
        def tolist(self) -> Any: ...
        def item(self, *index: int) -> Any: ...
        def sort(self, axis: int = -1, kind: str | None = None, order: Any = None, *,
                 stable: bool | None = None) -> None: ...
        def fill(self, value: Any) -> None: ...
        def conj(self) -> ndarray: ...
        def conjugate(self) -> ndarray: ...

    # ---- views and copies ----

    def _view(self, offset, shape, strides):
        """A view of this array's memory, ``offset`` elements in; an empty view stays at this
        array's address with C-contiguous strides, so that no offset of its can overflow."""
        if 0 in shape:
            offset, strides = 0, c_strides(shape)
        return ndarray._new(self._address + offset * self._dtype.itemsize, shape, strides,
                            self._dtype, self._device, self._owner, self._readonly)

    def _numpy(self):
        """A NumPy view of the memory; bfloat16 shows as its uint16 bits."""
        if not self._device.host_memory:
            raise ValueError(f"the values of an array on {self._device} cannot be read on the "
                             "host; move it first with to_device('cpu')")
        if self._dtype is bfloat16:
            return numpy_view(self._address, self._shape, self._strides, self._dtype.storage,
                              self._readonly, self)
        return np.asarray(self)  # through the buffer: no Python in between

    def _values(self):
        """A NumPy array of the values, for printing and conversion (bfloat16 as float32)."""
        return (self._copy(float32) if self._dtype is bfloat16 else self)._numpy()

    def _copy(self, dtype=None):
        """A new C-contiguous array with this array's values, cast to ``dtype`` if given."""
        backend = backend_of(self._device)
        if dtype is None or dtype is self._dtype:  # as large as this one: no size to check
            size, strides = c_layout(self._shape)
            address, owner = backend.allocate(size * self._dtype.itemsize)
            backend.copy_array(self._address, self._strides, self._dtype, address, strides,
                               self._dtype, self._shape)
            return ndarray._new(address, self._shape, strides, self._dtype, self._device, owner,
                                False)
        result = ndarray._empty(self._shape, dtype, self._device)
        backend.copy_array(self._address, self._strides, self._dtype, result._address,
                           result._strides, dtype, self._shape)
        return result

    def _assign(self, source):
        """Write ``source`` (an ndarray broadcastable to this shape) into this array."""
        strides = source._strides if source._shape == self._shape else broadcast_strides(
            source._shape, source._strides, self._shape)
        if self._device is source._device or self._device == source._device:
            backend_of(self._device).copy_array(source._address, strides, source._dtype,
                                                self._address, self._strides, self._dtype,
                                                self._shape)
        else:
            self._move(source._view(0, self._shape, strides))

    def _move(self, source):
        """Write ``source`` (of this shape, on another device) into this array: packed (and
        cast) on its own device when it is not C-contiguous in this dtype, one contiguous
        transfer, and unpacked here when this array is not C-contiguous."""
        if source._dtype is not self._dtype or source._strides != c_strides(source._shape):
            source = source._copy(self._dtype)
        target = self if self._strides == c_strides(self._shape) else ndarray._empty(
            self._shape, self._dtype, self._device)
        move(self._device, target._address, source._device, source._address,
             self.size * self._dtype.itemsize)
        if target is not self:
            self._assign(target)

    def _fill(self, value):
        """Write the Python scalar ``value`` to every element."""
        self._assign(scalar_source(value, self._dtype))

    def __getitem__(self, key: Index) -> ndarray:
        shape = self._shape
        if type(key) is int and shape and -shape[0] <= key < shape[0]:  # the common cases,
            return self._view(key % shape[0] * self._strides[0], shape[1:], self._strides[1:])
        if type(key) is slice and shape:  # kept lean
            offset, n, stride = sliced(key, shape[0], self._strides[0])
            return self._view(offset, (n,) + shape[1:], (stride,) + self._strides[1:])
        if type(key) is ndarray:
            selected = _indexing.select_flat(self, key)
            if selected is not None:
                return selected
        if _indexing.is_array_index(key):
            return _indexing.gather_index(self, _indexing.numpy_index(key, self._device))
        try:
            offset, shape, strides = view_of(key, self._shape, self._strides)
        except IndexError:
            converted = _indexing.numpy_index(key, self._device)
            if converted is key:
                raise
            return self[converted]
        return self._view(offset, shape, strides)

    def __setitem__(self, key: Index, value: ndarray | Scalar | SupportsDLPack) -> None:
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        if type(value) in _SCALAR_KINDS:
            check_scalar_kind(value, self._dtype, stored=True)
            value = scalar_source(value, self._dtype)
        elif not isinstance(value, ndarray):
            from ._creation_functions import asarray
            value = asarray(value, dtype=None if hasattr(value, "__dlpack__") else self._dtype)
        if type(key) is ndarray and _indexing.assign_flat(self, key, value):
            return
        key = _indexing.numpy_index(key, self._device)
        if _indexing.is_array_index(key):
            shape, offsets = _indexing.array_index_offsets(self, key)
            _indexing.scatter_offsets(self, shape, offsets, value)
        else:
            self[key]._assign(value)

    def __iter__(self) -> Iterator[ndarray]:
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    # ---- Python scalars from 0-d arrays ----

    def _scalar(self, operation):
        """The value of a 0-d array, on any device, as a Python scalar."""
        if self._shape:
            raise TypeError(f"{operation}() is only allowed on 0-d arrays, not shape {self._shape}")
        return self.to_device(CPU)._values().item()

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __float__(self) -> float:
        if self._dtype.kind == "complex floating":
            raise TypeError(f"float() of a {self._dtype} array; use real() or abs() first")
        return float(self._scalar("float"))

    def __int__(self) -> int:
        if self._dtype.kind == "complex floating":
            raise TypeError(f"int() of a {self._dtype} array; use real() first")
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._dtype.kind not in INTEGER:
            raise TypeError(f"only integer arrays can be used as an index, not {self._dtype}")
        return int(self._scalar("index"))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the values, as a NumPy array on the host, never the address: an array
        unpickled in another process (a Dask or Cubed worker) owns a copy, on the same device.
        With pickle protocol 5's out-of-band buffers the values travel without a copy, as a
        NumPy array's do."""
        return (_unpickle, (self.to_device(CPU)._numpy(), self._dtype.name, str(self._device)))

    def __sizeof__(self) -> int:
        """The object's bytes and its values' (as ``sys.getsizeof`` reports a NumPy array that
        owns them): Dask's scheduler weighs moving a chunk by it."""
        return object.__sizeof__(self) + size_of(self._shape) * self._dtype.itemsize

    def __copy__(self) -> ndarray:
        """A new array with a copy of the values, as NumPy's ``copy.copy`` gives."""
        return self._copy()

    def __deepcopy__(self, memo: dict) -> ndarray:
        """A new array with a copy of the values."""
        return self._copy()

    def __repr__(self) -> str:
        if not self._device.host_memory:  # the values are not readable from here
            return f"ndarray(shape={self._shape}, dtype={self._dtype}, device='{self._device}')"
        prefix = "ndarray("
        values = self._values()
        text = prefix + np.array2string(values, separator=", ", prefix=prefix)
        if values.size == 0 and values.ndim != 1:
            text += f", shape={self._shape}"
        return text + f", dtype={self._dtype})"


def scalar_source(value, dtype):
    """A read-only 0-d host array holding the Python scalar ``value`` for storing into
    ``dtype`` (bfloat16 values go through float32, rounded by the engine); the same array
    for the same bool, int or float (but a zero or NaN, whose key would lose its bits)."""
    key = (type(value), value, dtype)
    source = _SOURCES.get(key)
    if source is not None:
        return source
    encoded = np.array(value, dtype=np.float32 if dtype is bfloat16 else dtype.storage)
    source = ndarray._new(buffer_address(encoded), (), (),
                          float32 if dtype is bfloat16 else dtype, CPU, encoded, True)
    if type(value) is not complex and (type(value) is not float or value and value == value):
        if len(_SOURCES) >= 1024:
            _SOURCES.clear()
        _SOURCES[key] = source
    return source


_SOURCES = {}  # (type, value, dtype) -> scalar_source's array, for the scalars most used


# ndarray._new(address, shape, strides, dtype, device, owner, readonly) wraps memory: the
# ``address`` of element (0, ..., 0), kept alive by ``owner``. Positional arguments only.
ndarray._new = staticmethod(constructor(ndarray, _FIELDS))

_SCALARS = (bool, int, float, complex)
_OPERANDS = (ndarray, np.generic, *_SCALARS)


def _binary_operator(name, dunder):
    """The forward, reflected and in-place methods of a binary operator."""

    def forward(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _elementwise._binary(name, self, other)

    def reflected(self, other):
        if isinstance(other, (bytes, bytearray)):  # else they would concatenate our buffer
            raise TypeError(f"unsupported operand types for {name}: "
                            f"'{type(other).__name__}' and 'dlnumba.ndarray'")
        if not isinstance(other, _SCALARS):
            return NotImplemented
        return _elementwise._binary(name, other, self)

    def in_place(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        if self._readonly:
            raise ValueError("in-place operation on a read-only array")
        return _elementwise._binary(name, self, other, out=self)

    for method, prefix in ((forward, ""), (reflected, "r"), (in_place, "i")):
        method.__name__ = f"__{prefix}{dunder}__"
        method.__doc__ = f"``{name}`` as the ``{prefix}{dunder}`` operator."
        setattr(ndarray, method.__name__, method)


def _matmul(self, other):
    result = _linear_algebra.plain_matmul(self, other)  # the common case, kept lean
    if result is not None:
        return result
    if not isinstance(other, ndarray):
        return NotImplemented
    return _linear_algebra.matmul(self, other)


def _rmatmul(self, other):
    if not isinstance(other, ndarray):
        return NotImplemented
    return _linear_algebra.matmul(other, self)


def _imatmul(self, other):
    if not isinstance(other, ndarray):
        return NotImplemented
    if self._readonly:
        raise ValueError("in-place operation on a read-only array")
    result = _linear_algebra.matmul(self, other)
    if result._dtype is not self._dtype or result._shape != self._shape:
        raise TypeError(f"in-place matmul would change the array's dtype {self._dtype} or shape "
                        f"{self.shape} to {result._dtype} {result.shape}")
    self._assign(result)
    return self


for _method, _dunder in ((_matmul, "matmul"), (_rmatmul, "rmatmul"), (_imatmul, "imatmul")):
    _method.__name__ = f"__{_dunder}__"
    _method.__doc__ = f"``matmul`` as the ``{_dunder}`` operator."
    setattr(ndarray, _method.__name__, _method)


def _comparison(name, dunder):
    def compare(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _elementwise._binary(name, self, other)

    compare.__name__ = f"__{dunder}__"
    setattr(ndarray, compare.__name__, compare)


def _unary_operator(name, dunder):
    def operate(self):
        return _elementwise._unary(name, self)

    operate.__name__ = f"__{dunder}__"
    operate.__doc__ = f"``{name}`` as the ``{dunder}`` operator."
    setattr(ndarray, operate.__name__, operate)


for _name, _row in FUNCTIONS.items():
    if _row.operator is None:
        continue
    if _row.arity == 1:
        _unary_operator(_name, _row.operator)
    elif _row.result == "bool":
        _comparison(_name, _row.operator)
    else:
        _binary_operator(_name, _row.operator)
ndarray.__hash__ = None
register_array_type(ndarray)


def _ufunc_operand(x):
    if not isinstance(x, ndarray):
        return x
    if x._dtype is bfloat16:
        raise TypeError("NumPy ufuncs cannot take bfloat16 arrays (NumPy has no bfloat16); "
                        "astype(x, float32) first")
    return x._numpy()


def _unpickle(values, dtype_name, device):
    """An array over the NumPy array ``values`` (bfloat16: its bits as uint16), on ``device``;
    read-only where ``values`` is (an out-of-band buffer of immutable bytes)."""
    array = ndarray._new(values.__array_interface__["data"][0], values.shape,
                         tuple(s // values.itemsize for s in values.strides),
                         dtype_by_name(dtype_name), CPU, values, not values.flags.writeable)
    return array.to_device(device)


def _from_numpy(result):
    """A NumPy array as a dlnumba array over the same memory (NumPy scalars stay as they are)."""
    if not isinstance(result, np.ndarray):
        return result
    return ndarray._new(result.__array_interface__["data"][0], result.shape,
                        tuple(s // result.itemsize for s in result.strides),
                        from_numpy_dtype(result.dtype), CPU, result,
                        not result.flags.writeable)


def check_scalar_kind(value, dtype, *, stored=False):
    """Check that a Python scalar may take part in an operation with a ``dtype`` array (the
    array API's scalar rules) or, if ``stored``, be stored in one.

    Outside strict mode a stored scalar is converted as NumPy converts it (2.5 is stored as 2
    in an integer array, 5 as True in a bool one), except a complex one in a real array.

    Raises
    ------
    TypeError
        For bool with a numeric dtype, int with bool, float with an integer dtype or bool,
        complex with a real dtype.
    """
    if dtype.kind in _SCALAR_KINDS[type(value)]:
        return
    if stored and type(value) is not complex and not is_strict():
        return
    raise TypeError(f"a Python {type(value).__name__} ({value!r}) cannot be stored in a "
                        f"{dtype} array")


from . import _elementwise_functions as _elementwise  # noqa: E402 (they need ndarray)
from . import _indexing_functions as _indexing  # noqa: E402
from . import _linear_algebra_functions as _linear_algebra  # noqa: E402
from . import _numpy_functions  # noqa: E402
