"""``fuse``: a function of array API calls compiled into one kernel, with the calls' own bits.

:func:`fuse` traces the function on its first call for each kind of arguments (dtype, number
of dimensions and device of each array; type and value of each Python scalar): the arrays
are :class:`FusedArray` values, which record each call instead of computing it, with the
dtypes, promotion and checks of the unfused call. The record becomes an
:class:`.shared.fused.Expression`, compiled by the device's backend into one kernel per
layout of the arguments (on the CPU: :mod:`.kernels.fused`), cached in memory and, as every
kernel, on disk.

A fused function may call the elementwise functions and operators, ``where``, ``astype`` and
``clip``, with arrays and Python scalars that broadcast together, and end with one reduction
(``sum``, ``prod``, ``max``, ``min``, ``mean``, ``any``, ``all``). Anything else raises
TypeError at the first call, naming the call.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

import numpy as np

from ._arguments import normalize_axes, normalize_axis
from ._array_object import ndarray
from ._backend import backend_of
from ._data_type_functions import promoted_dtype
from ._devices import CPU
from ._dtypes import (FLOATING, NUMERIC, REAL_NUMERIC, as_dtype, bool as bool_,
                      computation_dtype, float64, uint8)
from ._elementwise_functions import _check, _kind, _operation, _scalar_array, clip_bounds
from ._layout import (broadcast_shapes, broadcast_strides, c_strides, dense_strides_like,
                      size_of)
from ._memory import numpy_view
from ._mode import is_strict
from ._statistical_functions import _accumulation_dtype, _divide, _reduce
from ._traced import Traced
from .shared.fused import Expression, Step, expression_tag
from .shared.scalar import FUNCTIONS

if TYPE_CHECKING:
    from collections.abc import Callable

SUPPORTED = ("the elementwise functions and operators, where, astype and clip, of arrays and "
             "Python scalars, and one final reduction: sum, prod, max, min, mean, any or all")
_REDUCTIONS = ("sum", "prod", "max", "min", "mean", "any", "all")
_SCALARS = (bool, int, float, complex)
_CONSTANT_WORDS = 2  # int64 words of a constant's slot (kernels.fused.CONSTANT_BYTES)
_CALLS_KEPT = 1024  # layouts of arguments whose calls a fused function keeps ready


def fuse(function: Callable | None = None) -> Fused | Callable[[Callable], Fused]:
    """Compile ``function``, a chain of array API calls, into one kernel per kind of
    arguments, with the results of the calls made one by one, bit for bit.

    Usable as ``fuse(function)``, ``@fuse`` or ``@fuse()``. The fused function takes arrays
    (all on one device) and Python scalars, positionally; see the module's description for
    what it may call.

    Raises
    ------
    TypeError
        At the first call with new kinds of arguments, for a call a fused function cannot
        make (the message names it), or for an argument that is not an array or a scalar.
    """
    if function is None:
        return fuse
    return Fused(function)


class Fused:
    """A fused function (:func:`fuse`): call it as the function itself."""

    def __init__(self, function):
        if not callable(function):
            raise TypeError(f"fuse takes a function, not {function!r}")
        self.function = function
        self._traced = {}  # kinds of the arguments -> _Traced
        self._calls = {}  # kinds and layouts of the arguments -> the call
        functools.update_wrapper(self, function)

    def __repr__(self):
        return f"<dlnumba.fuse of {self.function!r}>"

    def __call__(self, *arguments):
        key = (is_strict(), *[(a._dtype, a._shape, a._strides, a._device)
                              if type(a) is ndarray else _kind_of(a) for a in arguments])
        call = self._calls.get(key)
        if call is None:
            call = self._prepared(key, arguments)
        return call(arguments)

    def _prepared(self, key, arguments):
        """The call for arguments of ``key``'s kinds and layouts: traced for their kinds
        (once), planned for their layouts."""
        kinds = (is_strict(), *(_kind_of(argument) for argument in arguments))
        traced = self._traced.get(kinds)
        if traced is None:
            traced = self._traced[kinds] = self._trace(arguments)
        if len(self._calls) >= _CALLS_KEPT:
            self._calls.clear()
        call = self._calls[key] = traced.prepare(arguments)
        return call

    def _trace(self, arguments):
        trace = _Trace()
        values = [trace.input(k, argument) if type(argument) is ndarray else argument
                  for k, argument in enumerate(arguments)]
        try:
            result = self.function(*values)
        except Exception as error:
            call = _unsupported_call(error.__traceback__)
            if call is None:
                raise
            raise FusedCallError(f"{_name(self.function)}: {call}() cannot be fused "
                                 f"({type(error).__name__}: {error}); a fused function takes "
                                 f"{SUPPORTED}") from error
        if not isinstance(result, FusedArray) or result._trace is not trace:
            raise TypeError(f"{_name(self.function)} must return one array computed from its "
                            f"arguments, not {type(result).__name__}")
        return trace.finish(result)


class FusedCallError(TypeError):
    """A call that a fused function cannot make."""


def _name(function):
    return f"fused function {getattr(function, '__qualname__', function)!r}"


def _unsupported_call(traceback):
    """The name of the dlnumba function whose failure the traceback shows, where that function
    does not hand traced arrays over to the tracer (None where the tracer raised: the unfused
    call raises the same)."""
    import dlnumba
    traceback, calls = traceback.tb_next, []  # past the frame of Fused._trace, which caught it
    while traceback is not None:
        module = traceback.tb_frame.f_globals.get("__name__", "")
        if module == __name__:
            return None
        if module.startswith("dlnumba"):
            calls.append(traceback.tb_frame.f_code.co_name)
        traceback = traceback.tb_next
    return next((c for c in calls if c in dlnumba.__all__), calls[0] if calls else None)


def _kind_of(argument):
    """What a trace depends on in an argument."""
    if type(argument) is ndarray:
        return (argument._dtype, len(argument._shape), argument._device)
    if type(argument) is float:
        return (float, argument.hex())  # -0.0 and NaN: their own bits
    if type(argument) is complex:
        return (complex, argument.real.hex(), argument.imag.hex())
    if type(argument) in (bool, int):
        return (type(argument), argument)
    raise TypeError(f"a fused function takes dlnumba arrays and Python scalars, not "
                    f"{type(argument).__name__}")


class FusedArray(Traced):
    """An array while a fused function is traced: its dtype, number of dimensions and device
    are known, its shape is not (``None`` for each dimension, as the standard allows). A
    reduction's result holds the reduction (``_reduced``) and the value it reduces."""

    __slots__ = ("_trace", "_value", "_dtype", "_device", "ndim", "_reduced")
    __array_ufunc__ = None  # a NumPy scalar's operator defers to this one's reflected one

    def __init__(self, trace, value, dtype, ndim, reduced=None):
        self._trace, self._value, self._dtype, self.ndim = trace, value, dtype, ndim
        self._device, self._reduced = trace.device, reduced

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def shape(self):
        return (None,) * self.ndim

    def __array_namespace__(self, *, api_version=None):
        return sys.modules["dlnumba"]

    def __repr__(self):
        return f"FusedArray(ndim={self.ndim}, dtype={self._dtype})"

    def __bool__(self):
        raise TypeError("a fused function cannot branch on an array's values: use where")

    __int__ = __float__ = __complex__ = __index__ = __len__ = __iter__ = __bool__

    def __getitem__(self, key):
        raise TypeError("a fused function cannot index its arrays; it takes " + SUPPORTED)

    __setitem__ = __getitem__

    def __getattr__(self, name):
        raise TypeError(f"a fused function's arrays have no {name!r}; it takes " + SUPPORTED)


def _operator(name, dunder, arity):
    if arity == 1:
        def method(self):
            return apply(name, self)
        return {f"__{dunder}__": method}

    def forward(self, other):
        return apply(name, self, other)

    def reflected(self, other):  # NumPy scalars included, as ndarray.__array_ufunc__ takes them
        return apply(name, other, self, numpy_scalars=True)
    return {f"__{dunder}__": forward, f"__r{dunder}__": reflected}


for _name_, _row in FUNCTIONS.items():
    if _row.operator:
        for _method, _function in _operator(_name_, _row.operator, _row.arity).items():
            setattr(FusedArray, _method, _function)


class _Trace:
    """What a fused function computed: its inputs, constants and steps (values are numbered
    ``("input", k)``, ``("constant", j)``, ``("step", s)`` until :meth:`finish`)."""

    def __init__(self):
        self.inputs, self.constants, self.steps = [], [], []
        self.dtypes, self.device = {}, None

    def input(self, position, array):
        if self.device is None:
            self.device = array._device
        elif array._device != self.device:
            raise ValueError(f"a fused function's arrays must be on one device, not "
                             f"{self.device} and {array.device}")
        value = ("input", len(self.inputs))
        self.inputs.append((position, array._dtype))
        self.dtypes[value] = array._dtype
        return FusedArray(self, value, array._dtype, len(array._shape))

    def constant(self, array):
        """A value from the 0-d host array ``array`` (its dtype and bits)."""
        value = ("constant", len(self.constants))
        words = np.zeros(_CONSTANT_WORDS, np.int64)
        words.view(np.uint8)[:array._dtype.itemsize] = numpy_view(
            array._address, (array._dtype.itemsize,), (1,), np.dtype(np.uint8), True, array)
        self.constants.append((array._dtype, words))
        self.dtypes[value] = array._dtype
        return value

    def step(self, how, arguments, compute_dtype, dtype, ndim, name="", kind=""):
        value = ("step", len(self.steps))
        self.steps.append(Step(how, tuple(arguments), compute_dtype, dtype, name, kind))
        self.dtypes[value] = dtype
        return FusedArray(self, value, dtype, ndim)

    def finish(self, result):
        """The traced function that returns ``result``: the steps it depends on (those whose
        values nothing returned are dropped, as the unfused calls' are), with its inputs and
        constants, and its reduction if it is one."""
        value = result._value
        if value[0] != "step":  # an input or a constant itself: its copy
            dtype = self.dtypes[value]
            value = self.step("cast", [value], dtype, dtype, result.ndim)._value
        needed = {value}
        for s in range(value[1], -1, -1):
            if ("step", s) in needed:
                needed.update(self.steps[s].arguments)
        inputs = [k for k in range(len(self.inputs)) if ("input", k) in needed]
        if not inputs:
            raise TypeError("a fused function must return an array computed from its array "
                            "arguments")
        constants = [j for j in range(len(self.constants)) if ("constant", j) in needed]
        steps = [s for s in range(value[1] + 1) if ("step", s) in needed]
        number = {}
        for kind, kept in (("input", inputs), ("constant", constants), ("step", steps)):
            number.update({(kind, k): len(number) + i for i, k in enumerate(kept)})
        expression = Expression(
            tuple(self.inputs[k][1] for k in inputs),
            tuple(self.constants[j][0] for j in constants),
            tuple(self.steps[s]._replace(arguments=tuple(map(number.get, self.steps[s].arguments)))
                  for s in steps))
        words = _Constants(np.concatenate([self.constants[j][1] for j in constants] or
                                          [np.zeros(_CONSTANT_WORDS, np.int64)]))
        return _Traced(expression, [self.inputs[k][0] for k in inputs], words,
                       result._reduced or None)


def trace_call(name, *arguments, **keywords):
    """The traced call of the namespace function ``name`` (:func:`._traced.traced`)."""
    if name in FUNCTIONS:
        return apply(name, *arguments)
    if name in _REDUCTIONS:
        return reduce(name, *arguments, **keywords)
    return {"where": where, "astype": astype, "clip": clip}[name](*arguments, **keywords)


def _traced(values):
    """The trace of the first FusedArray among ``values``."""
    return next(v._trace for v in values if isinstance(v, FusedArray))


def _operand(trace, value, like, name, numpy_scalars=False):
    """``value`` (a FusedArray, a Python or NumPy scalar) as the value of an elementwise call
    with the array ``like``, as :func:`._elementwise_functions._as_operands` takes it (a NumPy
    scalar outside strict mode, or where ``numpy_scalars``)."""
    if isinstance(value, FusedArray):
        if value._trace is not trace:
            raise TypeError(f"{name}: an array of another fused function's trace")
        if value._reduced:
            raise TypeError(f"{name} after the reduction: a fused function ends with it")
        return value
    if type(value) in _SCALARS:
        array = _scalar_array(value, _HostLike(like._dtype))
    elif isinstance(value, np.generic) and (numpy_scalars or not is_strict()):
        from ._creation_functions import asarray
        array = asarray(value)
    else:
        raise TypeError(f"{name} of an array and {type(value).__name__}: a fused function "
                        "takes its arrays as arguments, and Python scalars")
    return FusedArray(trace, trace.constant(array), array._dtype, 0)


class _HostLike:
    """What :func:`._elementwise_functions._scalar_array` reads of an array: a dtype, on the
    host (a constant's bits are read there)."""

    __slots__ = ("_dtype", "_device")

    def __init__(self, dtype):
        self._dtype, self._device = dtype, CPU


def apply(name, *operands, numpy_scalars=False):
    """The traced elementwise call ``name(*operands)`` (at least one a FusedArray)."""
    trace = _traced(operands)
    like = next(v for v in operands if isinstance(v, FusedArray))
    values = [_operand(trace, v, like, name, numpy_scalars) for v in operands]
    dtype, result_dtype, strict_error = _operation(name, tuple(v._dtype for v in values))
    if strict_error is not None and is_strict():
        raise TypeError(strict_error)
    kind = _kind(name, dtype)
    ndim = max(v.ndim for v in values)
    if len(values) == 1 and kind in FUNCTIONS[name].copies:
        return copy(values[0], result_dtype)
    return trace.step("apply", [v._value for v in values], computation_dtype(dtype),
                      result_dtype, ndim, name, kind)


def cast(x, dtype):
    """``x`` converted to ``dtype`` as ``astype`` converts (itself for its own dtype)."""
    return x if x._dtype is dtype else copy(x, dtype)


def copy(x, dtype):
    """A C-contiguous copy of ``x`` converted to ``dtype``, as ``ndarray._copy`` makes."""
    return x._trace.step("cast", [x._value], dtype, dtype, x.ndim)


def astype(x, dtype, copy=True, device=None):
    """The traced ``astype``."""
    dtype = as_dtype(dtype)
    if x._dtype.kind == "complex floating" and dtype.kind != "complex floating":
        raise TypeError(f"casting {x._dtype} to {dtype} would drop the imaginary part; "
                        "take real(x) or imag(x) first")
    if device is not None and device != x._device:
        raise TypeError("astype to another device: a fused function runs on one device")
    x = _operand(x._trace, x, x, "astype")
    return x if not copy and dtype is x._dtype else globals()["copy"](x, dtype)


def where(condition, x1, x2):
    """The traced ``where``."""
    trace = _traced((condition, x1, x2))
    if not isinstance(condition, FusedArray):
        raise TypeError(f"where needs a bool array condition, not {condition!r}")
    condition = _operand(trace, condition, condition, "where")
    if condition._dtype is not bool_:
        if is_strict():
            raise TypeError(f"where needs a bool condition, not one of dtype {condition._dtype}")
        condition = cast(condition, bool_)
    for x in (x1, x2):
        if not isinstance(x, (FusedArray, *_SCALARS)):
            raise TypeError(f"where takes arrays and Python scalars, not {type(x).__name__}")
    if not isinstance(x1, FusedArray) and not isinstance(x2, FusedArray):
        raise TypeError("where of two Python scalars in a fused function: give one as an array")
    dtype = promoted_dtype(*(x._dtype if isinstance(x, FusedArray) else x for x in (x1, x2)))
    values = []
    for x in (x1, x2):
        if isinstance(x, FusedArray):
            values.append(cast(_operand(trace, x, x, "where"), dtype))
        else:
            from ._creation_functions import full
            constant = trace.constant(full((), x, dtype=dtype))
            values.append(FusedArray(trace, constant, dtype, 0))
    ndim = max(condition.ndim, *(v.ndim for v in values))
    return trace.step("where", [condition._value, *(v._value for v in values)], dtype, dtype,
                      ndim)


def clip(x, min=None, max=None):
    """The traced ``clip``, as :func:`._elementwise_functions.clip` computes it."""
    x = _operand(x._trace, x, x, "clip")
    _check("maximum", x._dtype)
    result = x
    for bound, name in clip_bounds(x, min, max, FusedArray):
        result = cast(apply(name, result, bound), x._dtype)
    return copy(x, x._dtype) if result is x else result


def reduce(name, x, axis=None, keepdims=False, dtype=None):
    """The traced reduction ``name`` (one of ``_REDUCTIONS``): it ends the fused function."""
    x = _operand(x._trace, x, x, name)
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, not {keepdims!r}")
    axes = tuple(range(x.ndim)) if axis is None else (
        (normalize_axis(axis, x.ndim, name),) if not isinstance(axis, tuple)
        else tuple(sorted(normalize_axes(axis, x.ndim, name))))
    reduced_dtype = x._dtype
    if name in ("sum", "prod"):
        _check_kind(name, x, ("bool",) + NUMERIC, "numeric (or bool)")
        result_dtype = _accumulation_dtype(name, x, dtype)
        op, acc_dtype = name, computation_dtype(result_dtype)
    elif name in ("max", "min"):
        if x._dtype is bool_ and not is_strict():
            reduced_dtype = uint8  # as real_numeric views it
        else:
            _check_kind(name, x, REAL_NUMERIC, "real numeric")
        op, result_dtype = name, x._dtype
        acc_dtype = computation_dtype(reduced_dtype)
    elif name == "mean":
        result_dtype = _averaged(x._dtype, dtype)
        op, acc_dtype = "sum", computation_dtype(result_dtype)
    else:
        _check_kind(name, x, ("bool",) + NUMERIC, "any")
        op, result_dtype, acc_dtype = name, bool_, bool_
    kept = x.ndim - len(axes)
    reduction = _Reduction(name, op, axes, keepdims, reduced_dtype, acc_dtype, result_dtype)
    return FusedArray(x._trace, x._value, result_dtype, x.ndim if keepdims else kept, reduction)


def _check_kind(name, x, kinds, what):
    if x._dtype.kind not in kinds:
        raise TypeError(f"{name} takes arrays of {what} dtypes, not {x._dtype}")


def _averaged(dtype, requested):
    """The dtype ``mean`` computes and returns (as ``_statistical_functions``)."""
    if requested is None:
        if dtype.kind in FLOATING:
            return dtype
        if is_strict():
            raise TypeError(f"mean takes arrays of floating-point dtypes, not {dtype}")
        return float64
    if is_strict():
        raise TypeError("mean takes no dtype argument in the standard (strict mode)")
    requested = as_dtype(requested)
    if requested.kind not in FLOATING or (
            dtype.kind == "complex floating" and requested.kind != "complex floating"):
        raise TypeError(f"mean: dtype must be a floating dtype that holds {dtype} values, "
                        f"not {requested}")
    return requested


class _Reduction:
    """A fused function's final reduction, as the unfused function makes it: the operation
    the engine runs, the reduced axes, the dtype of the elements it reduces (a bool array's
    maximum reduces its bytes), of the accumulator and of the result."""

    def __init__(self, name, op, axes, keepdims, reduced_dtype, acc_dtype, result_dtype):
        self.name, self.op, self.axes, self.keepdims = name, op, axes, keepdims
        self.reduced_dtype, self.acc_dtype = reduced_dtype, acc_dtype
        self.result_dtype = result_dtype


class _Constants:
    """A traced function's constants: their slots' int64 ``words``, at ``address``."""

    __slots__ = ("words", "address")

    def __init__(self, words):
        self.words, self.address = words, words.ctypes.data


class _Traced:
    """A traced fused function: its expression, the positions of its array arguments, its
    constants' slots, and its final reduction (or None)."""

    def __init__(self, expression, positions, constants, reduction):
        self.expression, self.positions = expression, positions
        self.tag = expression_tag(expression).dtype
        self.constants, self.reduction = constants, reduction
        self.dtype = expression.steps[-1].dtype

    def prepare(self, arguments):
        """``call(arguments)`` for arguments of these layouts."""
        arrays = [arguments[k] for k in self.positions]
        device = arrays[0]._device
        for array in arrays:
            if array._device is not device and array._device != device:
                raise ValueError(f"a fused function's arrays must be on one device, not "
                                 f"{device} and {array.device}")
        plan = self._plan(arrays)
        if self.reduction is not None:
            return functools.partial(self._reduce, plan, device)
        shape, strides, nbytes, job = plan
        allocate, positions, constants = backend_of(device).allocate, self.positions, \
            self.constants
        new, dtype, run = ndarray._new, self.dtype, job.call if job is not None else None

        def call(arguments):
            address, owner = allocate(nbytes)
            if run is not None:
                run([arguments[k]._address for k in positions] + [address], constants)
            return new(address, shape, strides, dtype, device, owner, False)
        return call

    def _plan(self, arrays):
        """What a call with arrays of these layouts needs: the result's shape, strides and
        size, and the backend's job."""
        layouts = _unfused_layouts(self.expression, [(a._shape, a._strides) for a in arrays])
        shape, strides = layouts[-1]
        inputs = tuple((broadcast_strides(a._shape, a._strides, shape), a._dtype)
                       for a in arrays)
        backend = backend_of(arrays[0]._device)
        r = self.reduction
        fused = None if r is None else backend.fused_reduction(
            self.tag, inputs, shape, r.op, r.axes, strides, r.reduced_dtype, r.acc_dtype)
        job = None if fused is not None else backend.fused_job(
            self.tag, (*inputs, (strides, self.dtype)), shape)
        if r is None:
            return shape, strides, size_of(shape) * self.dtype.itemsize, job
        kept = tuple(n for d, n in enumerate(shape) if d not in r.axes)
        return shape, strides, job, fused, kept

    def _reduce(self, plan, device, arguments):
        arrays = [arguments[k] for k in self.positions]
        shape, strides, job, fused, kept = plan
        r = self.reduction
        if r.name in ("max", "min") and size_of([shape[d] for d in r.axes]) == 0:
            raise ValueError(f"{r.name} of an empty set of elements (shape {shape}, axes "
                             f"{r.axes}) has no value")
        addresses = [a._address for a in arrays]
        if fused is not None:
            acc = ndarray._empty(kept, r.acc_dtype, device)
            fused.call(addresses, acc._address, self.constants)
        else:  # the values written out, then reduced as the unfused call reduces them
            values = ndarray._empty(shape, r.reduced_dtype, device, strides=strides)
            if job is not None:
                job.call(addresses + [values._address], self.constants)
            acc = _reduce(r.name, r.op, values, r.axes, r.acc_dtype)
        if r.name == "mean":
            _divide(acc, size_of([shape[d] for d in r.axes]))
        if acc._dtype is not r.result_dtype:
            acc = acc._copy(r.result_dtype)
        if not r.keepdims:
            return acc
        kept_shape = tuple(1 if d in r.axes else n for d, n in enumerate(shape))
        return acc._view(0, kept_shape, c_strides(kept_shape))


def _unfused_layouts(expression, layouts):
    """The (shape, strides) of every value of ``expression`` as the unfused calls lay them
    out, for inputs of ``layouts``: an elementwise result is dense in the order of its first
    operand of the whole shape (C order where none is), a cast and ``where`` C-contiguous."""
    result = list(layouts) + [((), ())] * len(expression.constants)
    for step in expression.steps:
        operands = [result[a] for a in step.arguments]
        shape = broadcast_shapes(*(s for s, _ in operands))
        if step.how == "apply":
            template = next((broadcast_strides(s, t, shape) for s, t in operands
                             if s == shape), c_strides(shape))
            result.append((shape, dense_strides_like(shape, template)))
        else:
            result.append((shape, c_strides(shape)))
    return result


__all__ = ["fuse"]
