"""The dtype table: one row per dtype, linking its name, kind, DLPack code, the NumPy storage its
kernels use and the NumPy dtype users see."""

import ml_dtypes
import numpy as np

from ._mode import is_strict

__all__ = [
    "DType", "DTYPES", "as_dtype", "from_numpy_dtype",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]

_builtin_bool = bool

# DLPack DLDataTypeCode values.
DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 4, 5, 6


class DType:
    """What dlnumba knows of a data type. Users see its ``numpy`` dtype (``x.dtype``,
    ``dlnumba.float32``); dlnumba's own code passes these rows around.

    Attributes
    ----------
    name : str
        The array API name, e.g. ``"float32"``.
    kind : str
        The array API kind: ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"real floating"`` or ``"complex floating"``.
    itemsize : int
        Bytes per element.
    dlpack : tuple of int
        The DLPack ``(code, bits, lanes)``.
    storage : numpy.dtype
        The NumPy dtype whose bytes and arithmetic the kernels use (bfloat16: uint16 bits).
    numpy : numpy.dtype
        The dtype as users see it: NumPy's, ``ml_dtypes.bfloat16`` for bfloat16.
    """

    __slots__ = ("name", "kind", "itemsize", "dlpack", "storage", "numpy")

    def __init__(self, name, kind, code, bits, storage, numpy=None):
        self.name = name
        self.kind = kind
        self.itemsize = bits // 8
        self.dlpack = (code, bits, 1)
        self.storage = np.dtype(storage)
        self.numpy = self.storage if numpy is None else np.dtype(numpy)

    def __repr__(self):
        return f"dlnumba._dtypes.{self.name}"

    def __str__(self):
        return self.name


bool = DType("bool", "bool", DL_BOOL, 8, np.bool_)
int8 = DType("int8", "signed integer", DL_INT, 8, np.int8)
int16 = DType("int16", "signed integer", DL_INT, 16, np.int16)
int32 = DType("int32", "signed integer", DL_INT, 32, np.int32)
int64 = DType("int64", "signed integer", DL_INT, 64, np.int64)
uint8 = DType("uint8", "unsigned integer", DL_UINT, 8, np.uint8)
uint16 = DType("uint16", "unsigned integer", DL_UINT, 16, np.uint16)
uint32 = DType("uint32", "unsigned integer", DL_UINT, 32, np.uint32)
uint64 = DType("uint64", "unsigned integer", DL_UINT, 64, np.uint64)
float16 = DType("float16", "real floating", DL_FLOAT, 16, np.float16)
bfloat16 = DType("bfloat16", "real floating", DL_BFLOAT, 16, np.uint16, ml_dtypes.bfloat16)
float32 = DType("float32", "real floating", DL_FLOAT, 32, np.float32)
float64 = DType("float64", "real floating", DL_FLOAT, 64, np.float64)
complex64 = DType("complex64", "complex floating", DL_COMPLEX, 64, np.complex64)
complex128 = DType("complex128", "complex floating", DL_COMPLEX, 128, np.complex128)

DTYPES = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
)
_BY_NAME = {d.name: d for d in DTYPES}
#: The real dtype of each complex one (its components').
REAL_OF_COMPLEX = {complex64: float32, complex128: float64}
_BY_NUMPY = {d.numpy: d for d in DTYPES}


def dtype_by_name(name):
    """The row of the dtype table named ``name``."""
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """Return the dtype with the same meaning as a NumPy dtype (of either byte order).

    Raises
    ------
    TypeError
        If dlnumba has no such dtype (object, string, datetime, ...).
    """
    np_dtype = np.dtype(np_dtype)
    try:
        return _BY_NUMPY[np_dtype.newbyteorder("=")]
    except KeyError:
        raise TypeError(f"NumPy dtype {np_dtype} has no dlnumba equivalent; "
                        f"supported: {', '.join(d.name for d in DTYPES)}") from None


# The dtype each Python scalar type stands for: as a ``dtype=``, as a scalar's default dtype.
PYTHON_TYPES = {_builtin_bool: bool, int: int64, float: float64, complex: complex128}


def as_dtype(dtype):
    """The dtype row of a dtype: one of the namespace's (``dlnumba.float32``, which is
    ``np.dtype("float32")``) or, outside strict mode, another spelling of one.

    The other spellings: NumPy scalar types, the strings NumPy takes (``"float32"``, ``"f4"``,
    ``"int"``, ...), ``"bfloat16"``, and Python's ``bool``, ``int``, ``float`` and ``complex``
    (the default dtypes).

    Raises
    ------
    TypeError
        For anything else, naming it; in strict mode, for anything but the namespace's dtypes.
    """
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, np.dtype) and dtype in _BY_NUMPY:
        return _BY_NUMPY[dtype]
    if is_strict():
        raise TypeError(f"dtype must be one of the namespace's dtypes, such as "
                        f"dlnumba.float32, not {dtype!r} (strict mode)")
    if isinstance(dtype, type) and dtype in PYTHON_TYPES:
        return PYTHON_TYPES[dtype]
    if type(dtype) is str and dtype in _BY_NAME:
        return _BY_NAME[dtype]
    try:
        np_dtype = None if dtype is None else np.dtype(dtype)
    except (TypeError, ValueError):
        np_dtype = None
    if np_dtype is not None and not np_dtype.isnative:
        raise TypeError(f"dtype {dtype!r} has a non-native byte order; dlnumba stores native "
                        "byte order only")
    if np_dtype is None:
        raise TypeError(f"{dtype!r} is not a dtype dlnumba knows; use one of "
                        f"{', '.join(d.name for d in DTYPES)} (as the namespace's dtypes or as "
                        "strings)")
    return from_numpy_dtype(np_dtype)


def computation_dtype(dtype):
    """The dtype arithmetic on ``dtype`` runs in: float32 for the storage-only float16 and
    bfloat16 (Numba's CPU target has no half arithmetic), else ``dtype`` itself."""
    return float32 if dtype is float16 or dtype is bfloat16 else dtype


# The kinds each of the standard's dtype categories covers.
INTEGER = ("signed integer", "unsigned integer")
FLOATING = ("real floating", "complex floating")
REAL_NUMERIC = INTEGER + ("real floating",)
NUMERIC = REAL_NUMERIC + ("complex floating",)
#: The categories the standard's functions name (elementwise functions take one each).
CATEGORIES = {
    "numeric": NUMERIC,
    "real numeric": REAL_NUMERIC,
    "integer": INTEGER,
    "integer or boolean": INTEGER + ("bool",),
    "boolean": ("bool",),
    "floating-point": FLOATING,
    "real floating-point": ("real floating",),
    "complex floating-point": ("complex floating",),
    "all": ("bool",) + NUMERIC,
}
#: The kind names of ``isdtype`` and ``__array_namespace_info__().dtypes``, and what each covers.
KINDS = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": INTEGER,
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": NUMERIC,
}
_COMPONENT_BITS = {float16: 16, bfloat16: 16, float32: 32, float64: 64, complex64: 32,
                   complex128: 64}


def promote(a, b):
    """The result dtype of an operation on ``a`` and ``b``, by the array API promotion table.

    float16 and bfloat16 take part as floats narrower than float32 (together they give float32).

    Raises
    ------
    TypeError
        For kinds the standard does not mix (bool with numbers, integers with floats) and for
        uint64 with a signed integer.
    """
    if a is b:
        return a
    if a.kind in INTEGER and b.kind in INTEGER:
        if a.kind == b.kind:
            return a if a.itemsize >= b.itemsize else b
        signed, unsigned = (a, b) if a.kind == "signed integer" else (b, a)
        if unsigned.itemsize == 8:
            raise TypeError(f"{a} and {b} have no common dtype: no signed integer holds uint64")
        return _BY_NAME[f"int{max(signed.itemsize, 2 * unsigned.itemsize) * 8}"]
    if a.kind in FLOATING and b.kind in FLOATING:
        bits = max(_COMPONENT_BITS[a], _COMPONENT_BITS[b])
        if bits == 16:  # float16 with bfloat16
            bits = 32
        if "complex floating" in (a.kind, b.kind):
            return complex128 if bits == 64 else complex64
        return _BY_NAME[f"float{bits}"]
    raise TypeError(f"{a} and {b} have no common dtype: the array API does not promote between "
                    f"{a.kind} and {b.kind}; convert one explicitly with astype")


def numpy_twin(dtype):
    """The NumPy dtype that stands for ``dtype`` in NumPy's promotion: float16 for bfloat16
    (both are floats narrower than float32), else its own."""
    return np.dtype(np.float16) if dtype is bfloat16 else dtype.storage


def promote_like_numpy(a, b):
    """The result dtype of ``a`` and ``b`` where the standard leaves it open (mixed kinds,
    uint64 with a signed integer): NumPy 2's, bfloat16 taking part as float16 does."""
    result = from_numpy_dtype(np.result_type(numpy_twin(a), numpy_twin(b)))
    return bfloat16 if result is float16 and bfloat16 in (a, b) else result


def common_dtype(a, b):
    """:func:`promote`, extended by :func:`promote_like_numpy` outside strict mode."""
    try:
        return promote(a, b)
    except TypeError:
        if is_strict():
            raise
    return promote_like_numpy(a, b)
