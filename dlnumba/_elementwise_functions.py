"""Elementwise functions of the array API standard, compiled by Numba (``kernels.elementwise``).

Each function is one row of ``_FUNCTIONS``: its arity, the dtype kinds it accepts (the
standard's categories), and how its result dtype follows from the promoted input dtype.
Binary functions take Python scalars for either operand, as the standard allows.

Outside strict mode (:mod:`._mode`), what the standard leaves open follows NumPy 2: dtypes of
mixed kinds promote as ``np.result_type`` does, a Python scalar of another kind takes its
default dtype, and a dtype outside a function's category runs in the dtype of the loop the
NumPy ufunc would choose (``sqrt`` of int8 in float16, ``divide`` of integers in float64).
"""

import functools

import numpy as np

from ._array_object import _SCALAR_KINDS, _cuda, check_scalar_kind, ndarray, scalar_source
from ._data_type_functions import iinfo, promoted_dtype
from ._dtypes import (_PYTHON_TYPES, bfloat16, bool as bool_, complex64, complex128,
                      computation_dtype, float16, float32, float64, from_numpy_dtype, numpy_twin,
                      promote, uint8)
from ._devices import CPU
from ._layout import (broadcast_shapes, broadcast_strides, c_strides, dense_strides_like,
                      size_of)
from ._memory import allocate_host
from ._mode import is_strict
from .kernels import apply_elementwise, elementwise_job
from .kernels.scalar import IMPLEMENTATIONS

_CATEGORIES = {
    "numeric": ("signed integer", "unsigned integer", "real floating", "complex floating"),
    "real numeric": ("signed integer", "unsigned integer", "real floating"),
    "integer": ("signed integer", "unsigned integer"),
    "integer or boolean": ("signed integer", "unsigned integer", "bool"),
    "boolean": ("bool",),
    "floating-point": ("real floating", "complex floating"),
    "real floating-point": ("real floating",),
    "complex floating-point": ("complex floating",),
    "all": ("bool", "signed integer", "unsigned integer", "real floating", "complex floating"),
}
_KIND = {"bool": "bool", "signed integer": "int", "unsigned integer": "int",
         "real floating": "float", "complex floating": "complex"}
_REAL = {complex64: float32, complex128: float64}

# name: (arity, category, result) with result "same" (the promoted dtype), "bool", or "real"
# (the real dtype of a complex input).
_FUNCTIONS = {
    "abs": (1, "numeric", "real"), "acos": (1, "floating-point", "same"),
    "acosh": (1, "floating-point", "same"), "add": (2, "numeric", "same"),
    "asin": (1, "floating-point", "same"), "asinh": (1, "floating-point", "same"),
    "atan": (1, "floating-point", "same"), "atan2": (2, "real floating-point", "same"),
    "atanh": (1, "floating-point", "same"), "bitwise_and": (2, "integer or boolean", "same"),
    "bitwise_left_shift": (2, "integer", "same"), "bitwise_invert": (1, "integer or boolean", "same"),
    "bitwise_or": (2, "integer or boolean", "same"), "bitwise_right_shift": (2, "integer", "same"),
    "bitwise_xor": (2, "integer or boolean", "same"), "ceil": (1, "real numeric", "same"),
    "conj": (1, "numeric", "same"), "copysign": (2, "real floating-point", "same"),
    "cos": (1, "floating-point", "same"), "cosh": (1, "floating-point", "same"),
    "divide": (2, "floating-point", "same"), "equal": (2, "all", "bool"),
    "exp": (1, "floating-point", "same"), "expm1": (1, "floating-point", "same"),
    "floor": (1, "real numeric", "same"), "floor_divide": (2, "real numeric", "same"),
    "greater": (2, "real numeric", "bool"), "greater_equal": (2, "real numeric", "bool"),
    "hypot": (2, "real floating-point", "same"), "imag": (1, "complex floating-point", "real"),
    "isfinite": (1, "numeric", "bool"), "isinf": (1, "numeric", "bool"),
    "isnan": (1, "numeric", "bool"), "less": (2, "real numeric", "bool"),
    "less_equal": (2, "real numeric", "bool"), "log": (1, "floating-point", "same"),
    "log1p": (1, "floating-point", "same"), "log2": (1, "floating-point", "same"),
    "log10": (1, "floating-point", "same"), "logaddexp": (2, "real floating-point", "same"),
    "logical_and": (2, "boolean", "same"), "logical_not": (1, "boolean", "same"),
    "logical_or": (2, "boolean", "same"), "logical_xor": (2, "boolean", "same"),
    "maximum": (2, "real numeric", "same"), "minimum": (2, "real numeric", "same"),
    "multiply": (2, "numeric", "same"), "negative": (1, "numeric", "same"),
    "nextafter": (2, "real floating-point", "same"), "not_equal": (2, "all", "bool"),
    "positive": (1, "numeric", "same"), "pow": (2, "numeric", "same"),
    "real": (1, "numeric", "real"), "reciprocal": (1, "floating-point", "same"),
    "remainder": (2, "real numeric", "same"), "round": (1, "numeric", "same"),
    "sign": (1, "numeric", "same"), "signbit": (1, "real floating-point", "bool"),
    "sin": (1, "floating-point", "same"), "sinh": (1, "floating-point", "same"),
    "square": (1, "numeric", "same"), "sqrt": (1, "floating-point", "same"),
    "subtract": (2, "numeric", "same"), "tan": (1, "floating-point", "same"),
    "tanh": (1, "floating-point", "same"), "trunc": (1, "real numeric", "same"),
}
# Functions that leave some kinds unchanged: the result is a copy of the input.
_IDENTITY = {"ceil": ("int",), "floor": ("int",), "trunc": ("int",), "round": ("int",),
             "conj": ("int", "float"), "real": ("int", "float")}
# The NumPy ufuncs of the functions whose names differ; ``real`` and ``imag`` have none.
_UFUNC_NAMES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
                "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
                "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
                "bitwise_invert": "invert", "conj": "conjugate", "pow": "power",
                "round": "rint", "real": None, "imag": None}


def _check(name, dtype):
    category = _FUNCTIONS[name][1]
    if dtype.kind not in _CATEGORIES[category]:
        raise TypeError(f"{name} takes arrays of {category} dtypes, not {dtype}")


def _numpy_loop(name, dtypes):
    """The computation and result dtypes of the loop that NumPy's ufunc for ``name`` would
    choose for operands of ``dtypes``, or None where NumPy has none or dlnumba has no
    implementation of it.

    A loop over bool for a numeric function (``add``, ``maximum``, ``abs``) runs in uint8: its
    results, stored as bool, are the truth values NumPy's bool loop gives. A logical function
    of numbers runs on their truth values (nonzero is true).
    """
    ufunc = getattr(np, _UFUNC_NAMES.get(name, name) or "", None)
    twins = tuple(numpy_twin(d) for d in dtypes)
    try:
        loop = ufunc.resolve_dtypes(twins + (None,))
    except (AttributeError, TypeError):
        return None
    computation, result = from_numpy_dtype(loop[0]), from_numpy_dtype(loop[-1])
    category = _CATEGORIES[_FUNCTIONS[name][1]]
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
        raise TypeError(f"{name} takes arrays of {_FUNCTIONS[name][1]} dtypes, not "
                        f"{' and '.join(map(str, dtypes))}")
    return (*loop, strict_error)


def _result_dtype(name, dtype):
    rule = _FUNCTIONS[name][2]
    if rule == "bool":
        return bool_
    if rule == "real":
        return _REAL.get(dtype, dtype)
    return dtype


def _kind(name, dtype):
    """The implementation kind of ``name`` for ``dtype``: the dtype's own where the function
    has one (nextafter in float16 and bfloat16), else that of its category."""
    return dtype.name if dtype.name in IMPLEMENTATIONS[name] else _KIND[dtype.kind]


@functools.lru_cache(maxsize=4096)
def _unary_signature(name, dtype, shape, strides):
    """What a call needs besides the address: the kind, whether the result is ``x`` itself,
    the result's dtype, layout and size in bytes, the computation dtype, the kernel job when
    one thread runs it, and the error strict mode raises (None where the standard allows
    ``dtype``)."""
    operation, result_dtype, strict_error = _operation(name, (dtype,))
    kind = _kind(name, operation)
    out_strides = dense_strides_like(shape, strides)
    compute_dtype = computation_dtype(operation)
    job = elementwise_job(name, kind, ((strides, dtype), (out_strides, result_dtype)), shape,
                          compute_dtype)
    return (kind, kind in _IDENTITY.get(name, ()), result_dtype, out_strides,
            size_of(shape) * result_dtype.itemsize, compute_dtype,
            job if job.plan is not None and not job.parallel else None, strict_error)


def _unary(name, x, /):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    kind, identity, result_dtype, out_strides, nbytes, compute_dtype, job, strict_error = \
        _unary_signature(name, x._dtype, x._shape, x._strides)
    if strict_error is not None and is_strict():
        raise TypeError(strict_error)
    if identity:
        return x._copy(result_dtype)
    if job is not None and x._device is CPU:
        # The common case, kept lean: fresh host memory overlaps no input.
        address, owner = allocate_host(nbytes)
        job.call(x._address, address)
        return ndarray._new(address, x._shape, out_strides, result_dtype, CPU, owner, False)
    out = ndarray._empty(x._shape, result_dtype, x._device, strides=out_strides)
    _apply(name, kind, ((x._address, x._strides, x._dtype),),
           (out._address, out._strides, out._dtype), x._shape, compute_dtype, x._device)
    return out


def _apply(name, kind, inputs, out, shape, compute_dtype, device):
    """:func:`.kernels.apply_elementwise` on the CPU, its CUDA twin on a CUDA device."""
    if device is CPU:
        apply_elementwise(name, kind, inputs, out, shape, compute_dtype)
    else:
        _cuda(device).apply_elementwise(name, kind, inputs, out, shape, compute_dtype,
                                        device.index)


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
    raise TypeError(f"{name} expects arrays, or an array and a Python scalar; got "
                    f"{type(x1).__name__} and {type(x2).__name__}")


def _scalar_array(value, x):
    """A 0-d array of ``value`` for an operation with the array ``x``, on its device (the
    standard's mixed array/scalar rules: a complex scalar makes a real floating dtype
    complex; outside strict mode, NumPy's for the cases the standard leaves open)."""
    dtype = x._dtype
    if type(value) is complex and dtype.kind == "real floating":
        dtype = promoted_dtype(dtype, value)
    elif dtype.kind not in _SCALAR_KINDS[type(value)] and not is_strict():
        # NumPy 2's rules for a Python scalar of another kind: it takes the default dtype of
        # its kind, except a bool, which takes the array's.
        dtype = dtype if type(value) is bool else _PYTHON_TYPES[type(value)]
    else:
        check_scalar_kind(value, dtype)
    if dtype is bfloat16 or x._device is not CPU:
        from ._creation_functions import full
        return full((), value, dtype=dtype, device=x._device)
    return scalar_source(value, dtype)


_SCALARS = (bool, int, float, complex)


@functools.lru_cache(maxsize=4096)
def _binary_signature(name, dtype1, dtype2, shape1, shape2, strides1, strides2):
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
    job = elementwise_job(name, kind, ((strides1, dtype1), (strides2, dtype2),
                                       (out_strides, result_dtype)), shape, compute_dtype)
    return (shape, result_dtype, out_strides, size_of(shape) * result_dtype.itemsize, strides1,
            strides2, kind, compute_dtype,
            job if job.plan is not None and not job.parallel else None, strict_error)


def _binary(name, x1, x2, /, out=None):
    if type(x1) is not ndarray or type(x2) is not ndarray:
        x1, x2 = _as_operands(name, x1, x2)
    if x1._device is not x2._device and x1._device != x2._device:
        raise ValueError(f"{name}: arrays on {x1.device} and {x2.device} cannot be combined")
    (shape, result_dtype, out_strides, nbytes, strides1, strides2, kind, compute_dtype, job,
     strict_error) = _binary_signature(name, x1._dtype, x2._dtype, x1._shape, x2._shape,
                                       x1._strides, x2._strides)
    if strict_error is not None and is_strict():
        raise TypeError(strict_error)
    if out is None:
        if job is not None and x1._device is CPU:
            # The common case, kept lean: fresh host memory overlaps no input.
            address, owner = allocate_host(nbytes)
            job.call(x1._address, x2._address, address)
            return ndarray._new(address, shape, out_strides, result_dtype, CPU, owner, False)
        out = ndarray._empty(shape, result_dtype, x1._device, strides=out_strides)
    elif out._dtype is not result_dtype or out._shape != shape:
        raise TypeError(f"in-place {name} would change the array's dtype {out._dtype} or shape "
                        f"{out.shape} to {result_dtype} {shape}")
    _apply(name, kind, ((x1._address, strides1, x1._dtype), (x2._address, strides2, x2._dtype)),
           (out._address, out._strides, out._dtype), shape, compute_dtype, x1._device)
    return out


def _make(name):
    arity = _FUNCTIONS[name][0]
    if arity == 1:
        def function(x, /):
            return _unary(name, x)
    else:
        def function(x1, x2, /):
            return _binary(name, x1, x2)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"Elementwise ``{name}`` (array API standard); takes {_FUNCTIONS[name][1]} "
                        "dtypes" + (", and Python scalars for either operand." if arity == 2 else "."))
    return function


for _name in _FUNCTIONS:
    globals()[_name] = _make(_name)


def clip(x, /, min=None, max=None):
    """Clamp each element of ``x`` to ``[min, max]``; the result has ``x``'s dtype.

    ``min`` and ``max`` are arrays or Python scalars of ``x``'s kind (None: no bound); a NaN
    bound gives NaN; an integer scalar beyond ``x``'s range is no bound on that side.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"clip expects a dlnumba.ndarray, not {type(x).__name__}")
    _check("maximum", x._dtype)
    result = x
    for bound, name in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if type(bound) in (int, float):
            check_scalar_kind(bound, x._dtype)
            if type(bound) is int and x._dtype.kind != "real floating":
                limits = iinfo(x._dtype)
                bound = _builtin_min(_builtin_max(bound, limits.min), limits.max)
        elif not isinstance(bound, ndarray):
            raise TypeError(f"clip bounds must be arrays or Python scalars, not {bound!r}")
        elif (bound._dtype.kind == "real floating") != (x._dtype.kind == "real floating"):
            raise TypeError(f"a clip bound of dtype {bound._dtype} does not match x's {x._dtype}")
        result = _binary(name, result, bound)
        if result._dtype is not x._dtype:
            result = result._copy(x._dtype)
    return x._copy() if result is x else result


_builtin_min, _builtin_max = min, max
__all__ = sorted(_FUNCTIONS) + ["clip"]
