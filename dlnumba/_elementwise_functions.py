"""Elementwise functions of the array API standard, run by the backend of the arrays' device.

Each function is one row of :data:`.shared.scalar.FUNCTIONS`: its arity, the dtype category it
accepts, how its result dtype follows from the promoted input dtype, and its scalar code.
Binary functions take Python scalars for either operand, as the standard allows.

Outside strict mode (:mod:`._mode`), what the standard leaves open follows NumPy 2: dtypes of
mixed kinds promote as ``np.result_type`` does, a Python scalar of another kind takes its
default dtype, and a dtype outside a function's category runs in the dtype of the loop the
NumPy ufunc would choose (``sqrt`` of int8 in float16, ``divide`` of integers in float64).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ._array_object import _SCALAR_KINDS, check_scalar_kind, ndarray, scalar_source
from ._backend import backend_of
from ._data_type_functions import iinfo, promoted_dtype
from ._dtypes import (PYTHON_TYPES, CATEGORIES, REAL_OF_COMPLEX, bfloat16, bool as bool_,
                      computation_dtype, float16, from_numpy_dtype, numpy_twin, promote, uint8)
from ._layout import (broadcast_shapes, broadcast_strides, c_strides, dense_strides_like,
                      size_of)
from ._mode import is_strict
from ._traced import Traced, traced
from .shared.scalar import FUNCTIONS

if TYPE_CHECKING:
    from ._typing import Scalar

_KIND = {"bool": "bool", "signed integer": "int", "unsigned integer": "int",
         "real floating": "float", "complex floating": "complex"}


def _check(name, dtype):
    category = FUNCTIONS[name].category
    if dtype.kind not in CATEGORIES[category]:
        raise TypeError(f"{name} takes arrays of {category} dtypes, not {dtype}")


def _numpy_loop(name, dtypes):
    """The computation and result dtypes of the loop that NumPy's ufunc for ``name`` would
    choose for operands of ``dtypes``, or None where NumPy has none or dlnumba has no
    implementation of it.

    A loop over bool for a numeric function (``add``, ``maximum``, ``abs``) runs in uint8: its
    results, stored as bool, are the truth values NumPy's bool loop gives. A logical function
    of numbers runs on their truth values (nonzero is true).
    """
    ufunc = getattr(np, FUNCTIONS[name].ufunc or "", None)
    twins = tuple(numpy_twin(d) for d in dtypes)
    try:
        loop = ufunc.resolve_dtypes(twins + (None,))
    except (AttributeError, TypeError):
        return None
    computation, result = from_numpy_dtype(loop[0]), from_numpy_dtype(loop[-1])
    category = CATEGORIES[FUNCTIONS[name].category]
    if computation is float16 and bfloat16 in dtypes:
        computation = result = bfloat16
    if category == ("bool",):
        computation = bool_  # logical functions of numbers: of their truth values
    elif computation is bool_ and "bool" not in category:
        computation = uint8
    try:
        _check(name, computation)
    except TypeError:
        return None  # NumPy's own extensions, such as integer reciprocal and complex ordering
    return computation, result


@functools.lru_cache(maxsize=1024)
def _operation(name, dtypes):
    """The dtype ``name`` computes in for operands of ``dtypes`` (as the kernels take it: float16
    is widened later), its result dtype, and the TypeError message of strict mode when the
    standard does not cover these dtypes (else None).

    Raises
    ------
    TypeError
        Where neither the standard nor NumPy's ufunc takes ``dtypes``.
    """
    try:
        dtype = dtypes[0] if len(dtypes) == 1 else promote(*dtypes)
        _check(name, dtype)
        return dtype, _result_dtype(name, dtype), None
    except TypeError as error:
        strict_error = str(error)
    loop = _numpy_loop(name, dtypes)
    if loop is None:
        raise TypeError(f"{name} takes arrays of {FUNCTIONS[name].category} dtypes, not "
                        f"{' and '.join(map(str, dtypes))}")
    return (*loop, strict_error)


def _result_dtype(name, dtype):
    rule = FUNCTIONS[name].result
    if rule == "bool":
        return bool_
    if rule == "real":
        return REAL_OF_COMPLEX.get(dtype, dtype)
    return dtype


def _kind(name, dtype):
    """The implementation kind of ``name`` for ``dtype``: the dtype's own where the function
    has one (nextafter in float16 and bfloat16), else that of its category."""
    return dtype.name if dtype.name in FUNCTIONS[name].kinds else _KIND[dtype.kind]


@functools.lru_cache(maxsize=4096)
def _unary_signature(name, dtype, shape, strides, backend):
    """What a call needs besides the address: the kind, whether the result is ``x`` itself,
    the result's dtype, layout and size in bytes, the computation dtype, the kernel job when
    one thread runs it, and the error strict mode raises (None where the standard allows
    ``dtype``)."""
    operation, result_dtype, strict_error = _operation(name, (dtype,))
    kind = _kind(name, operation)
    out_strides = dense_strides_like(shape, strides)
    compute_dtype = computation_dtype(operation)
    job = backend.elementwise_job(name, kind, ((strides, dtype), (out_strides, result_dtype)),
                                  shape, compute_dtype)
    return (kind, kind in FUNCTIONS[name].copies, result_dtype, out_strides,
            size_of(shape) * result_dtype.itemsize, compute_dtype, job, strict_error)


def _unary(name, x, /):
    if not isinstance(x, ndarray):
        if isinstance(x, Traced):
            return traced(name, x)
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    backend = backend_of(x._device)
    kind, identity, result_dtype, out_strides, nbytes, compute_dtype, job, strict_error = \
        _unary_signature(name, x._dtype, x._shape, x._strides, backend)
    if strict_error is not None and is_strict():
        raise TypeError(strict_error)
    if identity:
        return x._copy(result_dtype)
    if job is not None:
        # The common case, kept lean: fresh memory overlaps no input.
        address, owner = backend.allocate(nbytes)
        job.call(x._address, address)
        return ndarray._new(address, x._shape, out_strides, result_dtype, x._device, owner,
                            False)
    out = ndarray._empty(x._shape, result_dtype, x._device, strides=out_strides)
    backend.apply_elementwise(name, kind, ((x._address, x._strides, x._dtype),),
                              (out._address, out._strides, out._dtype), x._shape, compute_dtype)
    return out


def _as_operands(name, x1, x2):
    """Two arrays from two operands, a Python scalar taking the other operand's dtype; outside
    strict mode a NumPy scalar is a 0-d array of its own dtype, as in NumPy."""
    if isinstance(x1, ndarray) and type(x2) in _SCALARS:
        return x1, _scalar_array(x2, x1)
    if isinstance(x2, ndarray) and type(x1) in _SCALARS:
        return _scalar_array(x1, x2), x2
    if (isinstance(x1, (ndarray, np.generic)) and isinstance(x2, (ndarray, np.generic))
            and not is_strict()):
        from ._creation_functions import asarray
        return asarray(x1), asarray(x2)
    if isinstance(x1, Traced) or isinstance(x2, Traced):
        return None  # the caller hands the call over to the tracer
    raise TypeError(f"{name} expects arrays, or an array and a Python scalar; got "
                    f"{type(x1).__name__} and {type(x2).__name__}")


def _scalar_array(value, x):
    """A 0-d array of ``value`` for an operation with the array ``x``, on its device (the
    standard's mixed array/scalar rules: a complex scalar makes a real floating dtype
    complex; outside strict mode, NumPy's for the cases the standard leaves open)."""
    dtype = x._dtype
    if dtype.kind not in _SCALAR_KINDS[type(value)]:
        if type(value) is complex and dtype.kind == "real floating":
            dtype = promoted_dtype(dtype, value)
        elif not is_strict():
            # NumPy 2's rules for a Python scalar of another kind: it takes the default dtype
            # of its kind, except a bool, which takes the array's.
            dtype = dtype if type(value) is bool else PYTHON_TYPES[type(value)]
        else:
            check_scalar_kind(value, dtype)  # raises the standard's TypeError
    source = scalar_source(value, dtype)
    if source._dtype is dtype and source._device is x._device:
        return source
    from ._creation_functions import full
    return full((), value, dtype=dtype, device=x._device)


_SCALARS = (bool, int, float, complex)


@functools.lru_cache(maxsize=4096)
def _binary_signature(name, dtype1, dtype2, shape1, shape2, strides1, strides2, backend):
    """What a call needs besides the addresses: the result's shape, dtype, layout and size in
    bytes, the broadcast strides, the computation's kind and dtype, the kernel job when one
    thread runs it, and the error strict mode raises (None where the standard allows the
    dtypes)."""
    dtype, result_dtype, strict_error = _operation(name, (dtype1, dtype2))
    shape = broadcast_shapes(shape1, shape2)
    strides1 = broadcast_strides(shape1, strides1, shape)
    strides2 = broadcast_strides(shape2, strides2, shape)
    template = strides1 if shape1 == shape else strides2 if shape2 == shape else c_strides(shape)
    out_strides = dense_strides_like(shape, template)
    kind, compute_dtype = _kind(name, dtype), computation_dtype(dtype)
    job = backend.elementwise_job(name, kind, ((strides1, dtype1), (strides2, dtype2),
                                               (out_strides, result_dtype)), shape,
                                  compute_dtype)
    return (shape, result_dtype, out_strides, size_of(shape) * result_dtype.itemsize, strides1,
            strides2, kind, compute_dtype, job, strict_error)


def _binary(name, x1, x2, /, out=None):
    scalar = False  # x2 is a Python scalar's array: it shares no memory with out
    if type(x2) is not ndarray or type(x1) is not ndarray:
        if type(x1) is ndarray and type(x2) in _SCALARS:  # the common case, kept lean
            x2, scalar = _scalar_array(x2, x1), True
        else:
            operands = _as_operands(name, x1, x2)
            if operands is None:
                return traced(name, x1, x2)
            x1, x2 = operands
    if x1._device is not x2._device and x1._device != x2._device:
        raise ValueError(f"{name}: arrays on {x1.device} and {x2.device} cannot be combined")
    backend = backend_of(x1._device)
    (shape, result_dtype, out_strides, nbytes, strides1, strides2, kind, compute_dtype, job,
     strict_error) = _binary_signature(name, x1._dtype, x2._dtype, x1._shape, x2._shape,
                                       x1._strides, x2._strides, backend)
    if strict_error is not None and is_strict():
        raise TypeError(strict_error)
    if out is None:
        if job is not None:
            # The common case, kept lean: fresh memory overlaps no input.
            address, owner = backend.allocate(nbytes)
            job.call(x1._address, x2._address, address)
            return ndarray._new(address, shape, out_strides, result_dtype, x1._device, owner,
                                False)
        out = ndarray._empty(shape, result_dtype, x1._device, strides=out_strides)
    elif out._dtype is not result_dtype or out._shape != shape:
        raise TypeError(f"in-place {name} would change the array's dtype {out._dtype} or shape "
                        f"{out.shape} to {result_dtype} {shape}")
    elif job is not None and scalar and out is x1 and out._strides == out_strides:
        # x op= scalar on a dense x: each element is read before it is written, in place
        job.call(x1._address, x2._address, out._address)
        return out
    backend.apply_elementwise(name, kind, ((x1._address, strides1, x1._dtype),
                                           (x2._address, strides2, x2._dtype)),
                              (out._address, out._strides, out._dtype), shape, compute_dtype)
    return out


def _make(name):
    arity = FUNCTIONS[name].arity
    if arity == 1:
        def function(x, /):
            return _unary(name, x)
    else:
        def function(x1, x2, /):
            return _binary(name, x1, x2)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"Elementwise ``{name}`` (array API standard); takes "
                        f"{FUNCTIONS[name].category} dtypes"
                        + (", and Python scalars for either operand." if arity == 2 else "."))
    return function


for _name in FUNCTIONS:
    globals()[_name] = _make(_name)


def clip(x: ndarray, /, min: ndarray | int | float | None = None,
         max: ndarray | int | float | None = None) -> ndarray:
    """Clamp each element of ``x`` to ``[min, max]``; the result has ``x``'s dtype.

    ``min`` and ``max`` are arrays or Python scalars of ``x``'s kind (None: no bound); a NaN
    bound gives NaN; an integer scalar beyond ``x``'s range is no bound on that side.
    """
    if not isinstance(x, ndarray):
        if isinstance(x, Traced):
            return traced("clip", x, min, max)
        raise TypeError(f"clip expects a dlnumba.ndarray, not {type(x).__name__}")
    _check("maximum", x._dtype)
    result = x
    for bound, name in clip_bounds(x, min, max, ndarray):
        result = _binary(name, result, bound)
        if result._dtype is not x._dtype:
            result = result._copy(x._dtype)
    return x._copy() if result is x else result


def clip_bounds(x, min, max, array_type):
    """``clip``'s bounds checked against ``x``: (bound, the function that applies it) for each
    given, an integer scalar beyond ``x``'s range brought to it; bounds that are arrays must
    be of ``array_type``."""
    for bound, name in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if type(bound) in (int, float):
            check_scalar_kind(bound, x._dtype)
            if type(bound) is int and x._dtype.kind != "real floating":
                limits = iinfo(x._dtype)
                bound = _builtin_min(_builtin_max(bound, limits.min), limits.max)
        elif not isinstance(bound, array_type):
            raise TypeError(f"clip bounds must be arrays or Python scalars, not {bound!r}")
        elif (bound._dtype.kind == "real floating") != (x._dtype.kind == "real floating"):
            raise TypeError(f"a clip bound of dtype {bound._dtype} does not match x's {x._dtype}")
        yield bound, name


_builtin_min, _builtin_max = min, max
__all__ = sorted(FUNCTIONS) + ["clip"]


if TYPE_CHECKING:  # the functions the loop above makes, spelled out for type checkers
    __all__ = [
        "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
        "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
        "ceil", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
        "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
        "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logical_and",
        "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
        "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
        "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
        "clip",
    ]

    def abs(x: ndarray, /) -> ndarray: ...
    def acos(x: ndarray, /) -> ndarray: ...
    def acosh(x: ndarray, /) -> ndarray: ...
    def add(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def asin(x: ndarray, /) -> ndarray: ...
    def asinh(x: ndarray, /) -> ndarray: ...
    def atan(x: ndarray, /) -> ndarray: ...
    def atan2(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def atanh(x: ndarray, /) -> ndarray: ...
    def bitwise_and(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def bitwise_invert(x: ndarray, /) -> ndarray: ...
    def bitwise_left_shift(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def bitwise_or(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def bitwise_right_shift(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def bitwise_xor(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def ceil(x: ndarray, /) -> ndarray: ...
    def conj(x: ndarray, /) -> ndarray: ...
    def copysign(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def cos(x: ndarray, /) -> ndarray: ...
    def cosh(x: ndarray, /) -> ndarray: ...
    def divide(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def equal(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def exp(x: ndarray, /) -> ndarray: ...
    def expm1(x: ndarray, /) -> ndarray: ...
    def floor(x: ndarray, /) -> ndarray: ...
    def floor_divide(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def greater(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def greater_equal(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def hypot(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def imag(x: ndarray, /) -> ndarray: ...
    def isfinite(x: ndarray, /) -> ndarray: ...
    def isinf(x: ndarray, /) -> ndarray: ...
    def isnan(x: ndarray, /) -> ndarray: ...
    def less(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def less_equal(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def log(x: ndarray, /) -> ndarray: ...
    def log10(x: ndarray, /) -> ndarray: ...
    def log1p(x: ndarray, /) -> ndarray: ...
    def log2(x: ndarray, /) -> ndarray: ...
    def logaddexp(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def logical_and(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def logical_not(x: ndarray, /) -> ndarray: ...
    def logical_or(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def logical_xor(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def maximum(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def minimum(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def multiply(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def negative(x: ndarray, /) -> ndarray: ...
    def nextafter(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def not_equal(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def positive(x: ndarray, /) -> ndarray: ...
    def pow(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def real(x: ndarray, /) -> ndarray: ...
    def reciprocal(x: ndarray, /) -> ndarray: ...
    def remainder(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def round(x: ndarray, /) -> ndarray: ...
    def sign(x: ndarray, /) -> ndarray: ...
    def signbit(x: ndarray, /) -> ndarray: ...
    def sin(x: ndarray, /) -> ndarray: ...
    def sinh(x: ndarray, /) -> ndarray: ...
    def sqrt(x: ndarray, /) -> ndarray: ...
    def square(x: ndarray, /) -> ndarray: ...
    def subtract(x1: ndarray | Scalar, x2: ndarray | Scalar, /) -> ndarray: ...
    def tan(x: ndarray, /) -> ndarray: ...
    def tanh(x: ndarray, /) -> ndarray: ...
    def trunc(x: ndarray, /) -> ndarray: ...
