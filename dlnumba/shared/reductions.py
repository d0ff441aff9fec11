"""Reduction operations: how a reduction loads an element, combines two partial results, and
starts (its identity), and how an index reduction compares; compiled scalar code both backends
inline into their loops.

A reduction travels as a tag (:func:`reduction_tag`, an empty array whose record dtype's one
field names it), so each (reduction, input dtype, accumulator dtype) is one specialization.
"""

import numpy as np
from .._numba import as_dtype, overload, types

from .conversions import convert
from .scalar import implementation
from .tags import op_tag, storage
from .vectorized_math import maximum, minimum

# reduction: (scalar operation combining two partial results, how an element is loaded)
OPERATIONS = {
    "sum": ("add", "value"), "prod": ("multiply", "value"), "max": ("maximum", "value"),
    "min": ("minimum", "value"), "any": ("bitwise_or", "truth"), "all": ("bitwise_and", "truth"),
    "count": ("add", "truth"), "sumsq": ("add", "square"),
}


def reduction_tag(name):
    """The tag that selects the reduction ``name`` (a key of ``OPERATIONS``)."""
    return np.empty(0, np.dtype([(name, np.uint8)]))


def op_name(tag):
    return next(iter(tag.dtype.fields))


def _kind(dtype):
    if isinstance(dtype, types.Complex):
        return "complex"
    return "float" if isinstance(dtype, types.Float) else "int"


def combine(op, a, b):
    """The reduction ``op`` of two partial results (compiled only)."""


@overload(combine, jit_options={"error_model": "numpy"})
def _combine_overload(op, a, b):
    if not isinstance(a, (types.Number, types.Boolean)):
        return None  # a vector's (kernels.vectors)
    # Written out, not called, where the scalar operation is one instruction: LLVM vectorizes
    # these loops.
    name, operation = op_name(op), OPERATIONS[op_name(op)][0]
    if name in ("max", "min") and isinstance(a, types.Float):
        extreme = maximum if name == "max" else minimum
        return lambda op, a, b: extreme(a, b)
    if operation == "add" and not isinstance(a, types.Boolean):
        return lambda op, a, b: a + b
    if operation == "multiply" and not isinstance(a, types.Boolean):
        return lambda op, a, b: a * b
    function = implementation(op_tag(operation, _kind(a)))
    return lambda op, a, b: function(a, b)


def identity(op, acc_tag):
    """The identity of ``op`` in the accumulator's type (compiled only)."""


@overload(identity)
def _identity_overload(op, acc_tag):
    name, dtype = op_name(op), storage(acc_tag.dtype)
    if name in ("max", "min"):
        if isinstance(dtype, types.Float):
            value = -np.inf if name == "max" else np.inf
        else:
            limits = np.iinfo(as_dtype(dtype))
            value = limits.min if name == "max" else limits.max
    else:
        value = 1 if name in ("prod", "all") else 0
    return lambda op, acc_tag: dtype(value)


def load(op, value, x_tag, acc_tag):
    """A stored input element as the accumulator's type (compiled only)."""


@overload(load)
def _load_overload(op, value, x_tag, acc_tag):
    load, dtype = OPERATIONS[op_name(op)][1], storage(acc_tag.dtype)
    if load == "truth":
        if isinstance(x_tag.dtype, types.Record):  # float16/bfloat16 bits: -0.0 is zero
            return lambda op, value, x_tag, acc_tag: dtype((value & 0x7FFF) != 0)
        return lambda op, value, x_tag, acc_tag: dtype(value != 0)
    if load == "square" and isinstance(x_tag.dtype, types.Complex):
        return lambda op, value, x_tag, acc_tag: dtype(value.real * value.real
                                                       + value.imag * value.imag)
    if load == "square":
        def square(op, value, x_tag, acc_tag):
            converted = convert(value, x_tag, acc_tag)
            return converted * converted
        return square
    return lambda op, value, x_tag, acc_tag: convert(value, x_tag, acc_tag)


def beyond(op, value, best):
    """Whether ``value`` is NaN or replaces ``best`` in the index reduction ``op`` (compiled
    only)."""


@overload(beyond)
def _beyond_overload(op, value, best):
    # One comparison, false for NaN: the loops that test a block vectorize.
    if op_name(op) == "max":
        return lambda op, value, best: not value <= best
    return lambda op, value, best: not value >= best


COMBINE_PARTIALS = {"count": "sum", "sumsq": "sum"}
OP_TAGS = {name: reduction_tag(name) for name in OPERATIONS}


def identity_value(name, dtype):
    if name in ("max", "min"):
        if dtype.kind == "real floating":
            return -np.inf if name == "max" else np.inf
        limits = np.iinfo(dtype.storage)
        return limits.min if name == "max" else limits.max
    return 1 if name in ("prod", "all") else 0
