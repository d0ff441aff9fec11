"""Elementwise functions against real peers.

- Values against NumPy (bfloat16: NumPy in float32, rounded by PyTorch; nextafter of float16
  and bfloat16 by PyTorch: NumPy's float16 nextafter(-0.0, 0.0) is -0.0, the standard's 0.0),
  for every function and every dtype its category allows: a deterministic sweep of edge values
  (every pair of them for binary functions), exhaustive int8/uint8 pairs for the integer
  semantics, and hypothesis over shapes (0-d, size 0, up to 4-D), broadcasting and memory layouts
  (negative steps, transposes, steps of 2, zero strides).
- Result dtypes and the TypeError for dtypes outside a function's category against
  array-api-strict, for every dtype pair and Python scalar kind (on size-0 arrays: no kernel).
- The standard's special cases (NaN, infinities, signed zeros), checked against the values the
  standard lists, not against a peer.
- Python scalars as operands.

Exact comparisons (signed zeros included) where the operation is correctly rounded or
combinatorial; a few ULP (half and bfloat16: one ULP of their own, after the float32 computation)
for transcendental functions, whose last bit differs between libm implementations.
"""

import math
import os
import warnings

import numpy as np
import pytest
from numba.core.errors import NumbaError
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba.shared.scalar import FUNCTIONS

from helpers import ALL, COMPLEX, CPU, HALF, INTS, REAL_FLOATS, STANDARD, to_numpy
from standard_reference import floor_divide_standard

strict = pytest.importorskip("array_api_strict")
torch = pytest.importorskip("torch")

inf, nan, pi = math.inf, math.nan, math.pi
CUDA_SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"  # conftest sets it

# The standard's dtype categories (https://data-apis.org/array-api/2025.12/), float16 and bfloat16
# taking part as real floating dtypes.
CATEGORIES = {
    "numeric": INTS + REAL_FLOATS + COMPLEX,
    "real numeric": INTS + REAL_FLOATS,
    "integer": INTS,
    "integer or boolean": ["bool"] + INTS,
    "boolean": ["bool"],
    "floating-point": REAL_FLOATS + COMPLEX,
    "real floating-point": REAL_FLOATS,
    "complex floating-point": COMPLEX,
    "any": ALL,
}
# name: (arity, category, result): result "same" (the promoted dtype), "bool", or "real" (the real
# dtype of a complex input), as the standard states each function.
SPEC = {
    "abs": (1, "numeric", "real"), "acos": (1, "floating-point", "same"),
    "acosh": (1, "floating-point", "same"), "add": (2, "numeric", "same"),
    "asin": (1, "floating-point", "same"), "asinh": (1, "floating-point", "same"),
    "atan": (1, "floating-point", "same"), "atan2": (2, "real floating-point", "same"),
    "atanh": (1, "floating-point", "same"), "bitwise_and": (2, "integer or boolean", "same"),
    "bitwise_left_shift": (2, "integer", "same"),
    "bitwise_invert": (1, "integer or boolean", "same"),
    "bitwise_or": (2, "integer or boolean", "same"), "bitwise_right_shift": (2, "integer", "same"),
    "bitwise_xor": (2, "integer or boolean", "same"), "ceil": (1, "real numeric", "same"),
    "conj": (1, "numeric", "same"), "copysign": (2, "real floating-point", "same"),
    "cos": (1, "floating-point", "same"), "cosh": (1, "floating-point", "same"),
    "divide": (2, "floating-point", "same"), "equal": (2, "any", "bool"),
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
    "nextafter": (2, "real floating-point", "same"), "not_equal": (2, "any", "bool"),
    "positive": (1, "numeric", "same"), "pow": (2, "numeric", "same"),
    "real": (1, "numeric", "real"), "reciprocal": (1, "floating-point", "same"),
    "remainder": (2, "real numeric", "same"), "round": (1, "numeric", "same"),
    "sign": (1, "numeric", "same"), "signbit": (1, "real floating-point", "bool"),
    "sin": (1, "floating-point", "same"), "sinh": (1, "floating-point", "same"),
    "square": (1, "numeric", "same"), "sqrt": (1, "floating-point", "same"),
    "subtract": (2, "numeric", "same"), "tan": (1, "floating-point", "same"),
    "tanh": (1, "floating-point", "same"), "trunc": (1, "real numeric", "same"),
}
UNARY = sorted(n for n in SPEC if SPEC[n][0] == 1)
BINARY = sorted(n for n in SPEC if SPEC[n][0] == 2)

NUMPY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "add": np.add, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atan2": np.arctan2, "atanh": np.arctanh,
    "bitwise_and": np.bitwise_and, "bitwise_left_shift": np.left_shift,
    "bitwise_invert": np.invert, "bitwise_or": np.bitwise_or,
    "bitwise_right_shift": np.right_shift, "bitwise_xor": np.bitwise_xor, "ceil": np.ceil,
    "conj": np.conj, "copysign": np.copysign, "cos": np.cos, "cosh": np.cosh,
    "divide": np.divide, "equal": np.equal, "exp": np.exp, "expm1": np.expm1,
    "floor": np.floor, "floor_divide": floor_divide_standard, "greater": np.greater,
    "greater_equal": np.greater_equal, "hypot": np.hypot, "imag": np.imag,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "less": np.less,
    "less_equal": np.less_equal, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "logaddexp": np.logaddexp, "logical_and": np.logical_and,
    "logical_not": np.logical_not, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "maximum": np.maximum, "minimum": np.minimum,
    "multiply": np.multiply, "negative": np.negative, "nextafter": np.nextafter,
    "not_equal": np.not_equal, "positive": np.positive, "pow": np.power, "real": np.real,
    "reciprocal": np.reciprocal, "remainder": np.remainder, "round": np.round,
    "sign": np.sign, "signbit": np.signbit, "sin": np.sin, "sinh": np.sinh,
    "square": np.square, "sqrt": np.sqrt, "subtract": np.subtract, "tan": np.tan,
    "tanh": np.tanh, "trunc": np.trunc,
}

# Functions whose results are compared bit for bit (signed zeros too, except where the standard
# leaves the zero's sign to the implementation); the others are transcendental.
EXACT = {"abs", "add", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
         "bitwise_right_shift", "bitwise_xor", "ceil", "conj", "copysign", "divide", "equal",
         "floor", "floor_divide", "greater", "greater_equal", "imag", "isfinite", "isinf",
         "isnan", "less", "less_equal", "logical_and", "logical_not", "logical_or",
         "logical_xor", "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal",
         "positive", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sqrt",
         "square", "subtract", "trunc"}
# The order of -0 and +0 is the implementation's choice (NumPy's maximum(-0.0, 0.0) is 0.0 and
# maximum(0.0, -0.0) is -0.0).
ZERO_SIGN_FREE = {"maximum", "minimum"}
# Complex results that are compared only for finite inputs: the standard leaves these special
# cases to the implementation (one-infinity model or textbook formulas), or lists them itself
# (checked in test_complex_special_cases).
COMPLEX_FINITE_ONLY = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh",
                       "divide", "exp", "expm1", "log", "log1p", "log2", "log10", "pow",
                       "reciprocal", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "multiply",
                       "square", "abs"}
# Largest error allowed for transcendental functions: ULP for real dtypes (half and bfloat16:
# in their own ULP, the float32 result being rounded once more); relative to |expected| for
# complex dtypes.
# Complex results of these are compared within COMPLEX_RTOL too: NumPy's SIMD loops use FMA or
# their own hypot, Numba the textbook formulas, so the last bit differs.
COMPLEX_INEXACT = {"abs", "sqrt", "divide", "reciprocal", "sign", "multiply", "square"}
ULPS = {"float16": 1, "bfloat16": 1, "float32": 4, "float64": 4}
COMPLEX_RTOL = {"complex64": 4e-6, "complex128": 1e-14}

SHIFTS = {"bitwise_left_shift", "bitwise_right_shift"}


def xd(name):
    return getattr(xp, name)


def sd(name):
    return getattr(strict, name)


def group(dtype):
    return ("bool" if dtype == "bool" else "int" if dtype in INTS else
            "half" if dtype in HALF else "float" if dtype in REAL_FLOATS else "complex")


def allowed(name):
    return CATEGORIES[SPEC[name][1]]


def promote(a, b):
    """The standard's promotion, float16/bfloat16 as floats narrower than float32."""
    if a == b:
        return a
    ga, gb = group(a), group(b)
    if ga == gb == "int":
        sa, sb = a.startswith("int"), b.startswith("int")
        wa, wb = np.dtype(a).itemsize, np.dtype(b).itemsize
        if sa == sb:
            return a if wa >= wb else b
        signed_w, unsigned_w = (wa, wb) if sa else (wb, wa)
        assert unsigned_w < 8
        return f"int{8 * max(signed_w, 2 * unsigned_w)}"
    floating = ("half", "float", "complex")
    assert ga in floating and gb in floating
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "complex64": 32,
            "complex128": 64}
    width = max(bits[a], bits[b])
    width = 32 if width == 16 else width
    if "complex" in (ga, gb):
        return "complex64" if width == 32 else "complex128"
    return f"float{width}"


def result_dtype(name, dtype):
    rule = SPEC[name][2]
    if rule == "bool":
        return "bool"
    if rule == "real":
        return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    return dtype


# ---------------------------------------------------------------- values in and out

def np_dtype(dtype):
    """The NumPy dtype of the logical values (bfloat16: float32 values it represents exactly)."""
    return np.dtype("float32" if dtype == "bfloat16" else dtype)


def bf16_round(values):
    """float32 values rounded to the nearest bfloat16 (PyTorch's conversion), as float32."""
    array = np.array(values, dtype=np.float32, copy=True)
    return torch.from_numpy(array).to(torch.bfloat16).float().numpy().reshape(array.shape)


def bf16_from_bits(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def logical(values, dtype):
    """``values`` as a NumPy array of ``dtype``'s logical values (bfloat16 rounded)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "bfloat16":
            values = np.asarray(values, dtype=np.float64).astype(np.float32)
            rounded = bf16_round(values)
            return np.where(np.isnan(values), np.copysign(np.float32(nan), values), rounded)
        return np.array(values).astype(np_dtype(dtype))


def storage(values, dtype):
    """A fresh C-contiguous NumPy array of the bytes dlnumba stores (bfloat16 as uint16)."""
    values = np.array(values, dtype=np_dtype(dtype), copy=True)
    if dtype == "bfloat16":
        return np.array((values.view(np.uint32) >> 16).astype(np.uint16), ndmin=values.ndim)
    return values


LAYOUTS = ["contiguous", "reversed", "transposed", "strided"]


def make_array(values, dtype, layout="contiguous", shape=None, device=None):
    """A dlnumba array holding ``values`` (logical) in the given memory layout.

    ``reversed``: every axis with a negative step; ``transposed``: axes in reverse order in
    memory; ``strided``: every other element of a larger buffer. ``shape``: ``values`` broadcast
    to it with zero strides. NumPy arrays arrive through ``xp.asarray`` (zero-copy: the strides
    stay); bfloat16 through PyTorch (which cannot hold negative strides: dlnumba's own slicing
    reverses them). On another ``device`` than the CPU, the buffer is moved there and dlnumba's
    own views make the layout.
    """
    data = storage(values, dtype)
    nd = data.ndim
    if nd == 0:
        layout = "contiguous"  # one element: every layout is the same
    flip = (slice(None, None, -1),) * nd
    step2 = (slice(None, None, 2),) * nd
    perm = tuple(reversed(range(nd)))
    if layout == "reversed":
        base = data[flip].copy()
    elif layout == "transposed":
        base = data.transpose(perm).copy()
    elif layout == "strided":
        base = np.zeros(tuple(2 * n for n in data.shape), data.dtype)
        base[step2] = data
    else:
        base = data
    if device is not None and device != CPU:
        moved = (xp.from_dlpack(torch.from_numpy(base).view(torch.bfloat16))
                 if dtype == "bfloat16" else xp.asarray(base)).to_device(device)
        view = {"reversed": lambda b: b[flip], "transposed": lambda b: xp.permute_dims(b, perm),
                "strided": lambda b: b[step2]}.get(layout, lambda b: b)(moved)
        return view if shape is None else xp.broadcast_to(view, shape)
    if dtype != "bfloat16":
        view = {"reversed": lambda b: b[flip], "transposed": lambda b: b.transpose(perm),
                "strided": lambda b: b[step2]}.get(layout, lambda b: b)(base)
        if shape is not None:
            view = np.broadcast_to(view, shape)
        return xp.asarray(view)
    tensor = torch.from_numpy(base).view(torch.bfloat16)
    if layout == "transposed":
        tensor = tensor.permute(perm)
    elif layout == "strided":
        tensor = tensor[step2]
    if shape is not None:
        tensor = tensor.expand(shape)
    result = xp.from_dlpack(tensor)
    if layout == "reversed":
        # reversing a broadcast (zero-stride) axis changes nothing; the others come back in order
        result = result[flip]
    return result


# ---------------------------------------------------------------- the reference

def _pow_int(a, b):
    """NumPy's integer power for b >= 0; bases 1 and -1 for b < 0 (others: masked out)."""
    with np.errstate(all="ignore"):
        result = np.power(a, np.where(b < 0, 0, b).astype(b.dtype))
    if b.dtype.kind == "i":
        negative = b < 0
        odd = (b % 2) != 0
        result = np.where(negative, np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1),
                                                                  0)), result)
    return result.astype(a.dtype)


def reference(name, arrays, dtypes):
    """NumPy's result for logical input arrays of ``dtypes``, a mask of the elements to compare
    (False where the result is not NumPy's to define), and the condition number by which the
    complex tolerance grows (pow: the error of an angle y*arg(x) grows with y)."""
    compute = dtypes[0] if len(dtypes) == 1 else promote(*dtypes)
    function = NUMPY[name]
    mask = np.ones(np.broadcast_shapes(*(a.shape for a in arrays)), bool)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if compute in HALF and name == "nextafter":
            half = getattr(torch, compute)
            a, b = (torch.from_numpy(np.array(x, np.float32)).to(half) for x in arrays)
            return torch.nextafter(a, b).float().numpy(), mask, 1.0
        if compute == "bfloat16":
            args = [np.asarray(a, np.float32) for a in arrays]
        elif compute in ("float16", "float32") and "bfloat16" in dtypes:
            args = [np.asarray(a, np.float32) for a in arrays]
        else:
            args = [np.asarray(a).astype(np_dtype(compute)) for a in arrays]
        if name == "pow" and group(compute) == "int":
            result = _pow_int(*args)
            mask &= ~((args[1] < 0) & (args[0] == 0)) if args[1].dtype.kind == "i" else mask
        else:
            result = function(*args)
        if name == "divide" and compute == "complex64":
            # NumPy scales by 1 / divisor, which overflows float32 when a divisor's component
            # is subnormal (0 / 1e-39 is nan+nanj there): no reference for those elements
            parts = np.broadcast_to(args[1], mask.shape)
            for part in (parts.real, parts.imag):
                mask &= ~((part != 0) & (np.abs(part) < np.finfo(np.float32).tiny))
        if group(compute) == "complex" and name in COMPLEX_FINITE_ONLY:
            for a in args:
                mask &= np.isfinite(a)
        if compute == "bfloat16" and result.dtype.kind == "f":
            result = bf16_round(result)
        condition = 1.0
        if name == "pow" and group(compute) == "complex":
            base, exponent = (np.asarray(a, np.complex128) for a in args)
            condition = 1 + np.abs(exponent) * (np.abs(np.log(np.abs(base))) + pi)
            condition = np.where(np.isfinite(condition), condition, 1.0)
            # NumPy's complex64 pow overflows inside (pow(3.4e38+0j, 1j) = nan+nanj, not a
            # point of the unit circle): where NumPy's result is not finite, it is no reference
            mask &= np.isfinite(result)
    return np.asarray(result), mask, condition


# ---------------------------------------------------------------- comparison

def _ordered(values):
    """Float values as integers in the order of the floats (-0 and +0 both 0)."""
    bits = values.view({2: np.int16, 4: np.int32, 8: np.int64}[values.itemsize]).astype(object)
    low = -(1 << (8 * values.itemsize - 1))
    return np.where(np.signbit(values), low - bits, bits)


def ulp_distance(a, b, dtype):
    a, b = np.asarray(a), np.asarray(b)
    distance = np.abs(_ordered(a) - _ordered(b))
    return distance // (1 << 16) if dtype == "bfloat16" else distance


def _assert_real(name, actual, expected, dtype, mask, exact):
    nan_a, nan_e = np.isnan(actual) & mask, np.isnan(expected) & mask
    bad = nan_a != nan_e
    assert not bad.any(), (f"{name}: NaN where NumPy has {expected[bad][:5]}"
                           f" or a value {actual[bad][:5]} where NumPy has NaN")
    keep = mask & ~nan_e
    a, e = actual[keep], expected[keep]
    if exact:
        wrong = a != e
        if name not in ZERO_SIGN_FREE:
            wrong |= np.signbit(a) != np.signbit(e)
        assert not wrong.any(), f"{name} {dtype}: got {a[wrong][:8]}, NumPy {e[wrong][:8]}"
    else:
        distance = ulp_distance(a, e, dtype)
        wrong = distance > ULPS[dtype]
        assert not wrong.any(), (f"{name} {dtype}: got {a[wrong][:8]}, NumPy {e[wrong][:8]} "
                                 f"({distance[wrong][:8]} ULP)")


def _assert_complex(name, actual, expected, dtype, mask, exact, condition=1.0):
    if exact:
        real = {"complex64": "float32", "complex128": "float64"}[dtype]
        _assert_real(name, actual.real.copy(), expected.real.copy(), real, mask, True)
        _assert_real(name, actual.imag.copy(), expected.imag.copy(), real, mask, True)
        return
    # Which components of an overflowing result are inf or NaN is the implementation's choice
    # (the standard's special cases are checked on their own): only finiteness must agree.
    bad = mask & (np.isfinite(actual) != np.isfinite(expected))
    assert not bad.any(), f"{name} {dtype}: got {actual[bad][:5]}, NumPy {expected[bad][:5]}"
    finite = mask & np.isfinite(expected)
    a, e = actual[finite], expected[finite]
    condition = np.broadcast_to(condition, finite.shape)[finite]
    tiny = np.finfo(a.real.dtype).tiny
    error = np.abs(a - e)
    wrong = error > COMPLEX_RTOL[dtype] * condition * np.abs(e) + tiny
    assert not wrong.any(), (f"{name} {dtype}: got {a[wrong][:5]}, NumPy {e[wrong][:5]} "
                             f"(relative error {(error / np.abs(e))[wrong][:5]})")


def assert_matches(name, actual, expected, dtype, mask=None, complex_input=False, condition=1.0):
    """``actual`` (dlnumba's values) against ``expected`` (NumPy's), ``dtype`` the result's."""
    expected = np.broadcast_to(np.asarray(expected), actual.shape)
    mask = np.ones(actual.shape, bool) if mask is None else np.broadcast_to(mask, actual.shape)
    exact = name in EXACT and not (complex_input and name in COMPLEX_INEXACT)
    if group(dtype) in ("bool", "int"):
        assert actual.dtype == expected.dtype or dtype == "bool"
        wrong = mask & (actual != expected)
        assert not wrong.any(), (f"{name} {dtype}: got {actual[wrong][:8]}, "
                                 f"NumPy {expected[wrong][:8]}")
    elif group(dtype) == "complex":
        _assert_complex(name, actual, expected.astype(actual.dtype), dtype, mask, exact, condition)
    else:
        _assert_real(name, actual, np.asarray(expected, actual.dtype), dtype, mask, exact)


def call(name, *args):
    """``xp.<name>(*args)``; a kernel that fails to compile is reported in one line (Numba's
    tracebacks are long and slow to format)."""
    try:
        return getattr(xp, name)(*args)
    except NumbaError as error:
        detail = next((line.strip() for line in str(error).splitlines()
                       if "Unknown attribute" in line or "No implementation" in line), "")
        raise AssertionError(f"{name}: the kernel fails to compile ({detail})") from None


def check(name, arrays, dtypes, layouts=None, shapes=None, device=None):
    """Compute ``name`` with dlnumba on ``arrays`` (logical NumPy values), on ``device`` (the
    CPU by default), and compare with NumPy; on another device, with the CPU engine too."""
    layouts = layouts or ["contiguous"] * len(arrays)
    shapes = shapes or [None] * len(arrays)
    cases = list(zip(arrays, dtypes, layouts, shapes))
    inputs = [make_array(a, d, lay, s, device) for a, d, lay, s in cases]
    logical_inputs = [a if s is None else np.broadcast_to(a, s) for a, s in zip(arrays, shapes)]
    result = call(name, *inputs)
    dtype = result_dtype(name, dtypes[0] if len(dtypes) == 1 else promote(*dtypes))
    assert result.dtype == xd(dtype)
    expected_shape = np.broadcast_shapes(*(a.shape for a in logical_inputs))
    assert result.shape == expected_shape
    expected, mask, condition = reference(name, logical_inputs, dtypes)
    assert_matches(name, to_numpy(result), expected, dtype, mask,
                   complex_input=any(group(d) == "complex" for d in dtypes), condition=condition)
    if device is not None and device != CPU:
        assert result.device == device
        assert_same_as_host(name, result, call(name, *(make_array(*c) for c in cases)), dtype)
    return result


def assert_same_as_host(name, result, on_host, dtype):
    """A result on a CUDA device against the CPU engine's: the same bits under the simulator,
    which runs the CPU engine's scalar code; on a GPU, whose NVVM may fuse a multiply and an add
    (README), within the tolerances of the comparison with NumPy."""
    actual, expected = to_numpy(result), to_numpy(on_host)
    if not CUDA_SIMULATOR:
        assert_matches(name, actual, expected, dtype)
        return
    np.testing.assert_array_equal(np.ascontiguousarray(actual).reshape(-1).view(np.uint8),
                                  np.ascontiguousarray(expected).reshape(-1).view(np.uint8),
                                  err_msg=f"{name} {dtype}: not the CPU engine's bits")


# ---------------------------------------------------------------- the table itself

def test_every_function_of_the_standard_is_present():
    assert set(FUNCTIONS) == set(SPEC)
    for name in SPEC:
        assert callable(getattr(xp, name)), name
        assert getattr(xp, name).__name__ == name
        assert callable(getattr(strict, name)), name
    assert callable(xp.clip)


@pytest.mark.parametrize("name", sorted(SPEC))
def test_table_rows_agree_with_the_standard(name):
    row = FUNCTIONS[name]
    arity, category, rule = row.arity, row.category, row.result
    assert (arity, rule) == (SPEC[name][0], SPEC[name][2])
    assert category.replace("all", "any") == SPEC[name][1]


# ---------------------------------------------------------------- dtypes against array-api-strict

def _outcome(function, *args):
    try:
        result = function(*args)
    except (TypeError, ValueError, OverflowError) as error:
        return type(error).__name__
    return str(result.dtype).split(".")[-1]


def _empty_xp(dtype, shape=(0,)):
    return xp.empty(shape, dtype=xd(dtype))


def _empty_strict(dtype, shape=(0,)):
    return strict.empty(shape, dtype=sd(dtype))


@pytest.mark.strict
@pytest.mark.parametrize("name", UNARY)
def test_unary_result_dtype_and_category_match_strict(name):
    for dtype in STANDARD:
        expected = _outcome(getattr(strict, name), _empty_strict(dtype))
        actual = _outcome(getattr(xp, name), _empty_xp(dtype))
        assert actual == expected, (name, dtype)
        assert (expected == "TypeError") == (dtype not in allowed(name)), (name, dtype)
    for half in HALF:  # as the real floating dtypes of the standard: the same category
        outcome = _outcome(getattr(xp, name), _empty_xp(half))
        expected = _outcome(getattr(xp, name), _empty_xp("float32"))
        assert outcome == expected.replace("float32", half), (name, half)


@pytest.mark.strict
@pytest.mark.parametrize("name", BINARY)
def test_binary_result_dtype_and_category_match_strict(name):
    # size-0 operands: the promotion and the checks run, no kernel is compiled
    for a in STANDARD:
        for b in STANDARD:
            for sa, sb in (((0,), (0,)), ((2, 0), (1, 0)), ((), (0,))):
                expected = _outcome(getattr(strict, name), _empty_strict(a, sa),
                                    _empty_strict(b, sb))
                actual = _outcome(getattr(xp, name), _empty_xp(a, sa), _empty_xp(b, sb))
                assert actual == expected, (name, a, b, sa, sb)


@pytest.mark.strict
@pytest.mark.parametrize("name", BINARY)
def test_binary_float16_bfloat16_promotion(name):
    for half in HALF:
        for other in ALL:
            actual = _outcome(getattr(xp, name), _empty_xp(half), _empty_xp(other))
            reverse = _outcome(getattr(xp, name), _empty_xp(other), _empty_xp(half))
            assert actual == reverse
            if other in INTS or other == "bool":
                assert actual == "TypeError", (name, half, other)
                continue
            if "float32" not in allowed(name) or (other in COMPLEX and other not in allowed(name)):
                assert actual == "TypeError", (name, half, other)
                continue
            promoted = str(torch.promote_types(getattr(torch, half), getattr(torch, other)))
            promoted = promoted.split(".")[-1]
            assert actual == result_dtype(name, promoted), (name, half, other)


SCALARS = [True, False, 1, 0, -1, 2.5, -0.0, 1j, complex(1.5, -2)]


@pytest.mark.strict
@pytest.mark.parametrize("name", BINARY)
def test_python_scalar_result_dtype_matches_strict(name):
    for dtype in STANDARD:
        for scalar in SCALARS:
            if dtype.startswith("uint") and scalar == -1 and type(scalar) is int:
                continue  # out of range: OverflowError in both, tested below
            if name in SHIFTS and type(scalar) is int and scalar < 0:
                continue  # a negative shift is outside the standard (strict: ValueError)
            array_x, array_s = _empty_xp(dtype), _empty_strict(dtype)
            for order in (0, 1):
                args_x = (array_x, scalar) if order == 0 else (scalar, array_x)
                args_s = (array_s, scalar) if order == 0 else (scalar, array_s)
                expected = _outcome(getattr(strict, name), *args_s)
                if type(scalar) is complex and "complex64" not in allowed(name):
                    # array-api-strict lets NumPy take greater(float32, 1j) and maximum(...);
                    # the standard has no complex operand for these functions.
                    expected = "TypeError"
                actual = _outcome(getattr(xp, name), *args_x)
                assert actual == expected, (name, dtype, scalar, order)


# ---------------------------------------------------------------- a sweep of edge values

def _float_edges(dtype):
    if dtype == "bfloat16":
        info = torch.finfo(torch.bfloat16)
        big, tiny, small = float(info.max), float(info.smallest_normal), float(info.tiny) / 128
    else:
        info = np.finfo(np_dtype(dtype))
        big, tiny = float(info.max), float(info.smallest_normal)
        small = float(info.smallest_subnormal)
    values = [nan, -nan, inf, -inf, 0.0, -0.0, small, -small, tiny, -tiny, 0.1, 0.5, -0.5, 1.0,
              -1.0, 1.5, -1.5, 2.0, 2.5, -2.5, 3.0, -3.0, 7.25, 100.0, -1e4, 0.999, big, -big]
    return logical(values, dtype)


def _int_edges(dtype):
    info = np.iinfo(dtype)
    bits = 8 * np.dtype(dtype).itemsize
    values = {info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 3, 7, bits - 1, bits,
              bits + 1, 100 % (info.max + 1)}
    if info.min < 0:
        values |= {-1, -2, -3, -7, -(bits - 1), -bits, -100}
    return np.array(sorted(values), dtype=dtype)


def edge_values(dtype):
    if dtype == "bool":
        return np.array([False, True])
    if dtype in INTS:
        return _int_edges(dtype)
    if dtype in COMPLEX:
        parts = np.array([0.0, -0.0, 1.0, -1.5, 0.5, 2.0, inf, -inf, nan])
        real = np.repeat(parts, parts.size)
        imag = np.tile(parts, parts.size)
        return np.array([complex(r, i) for r, i in zip(real, imag)], dtype=dtype)
    return _float_edges(dtype)


def _cuda_sweep():
    """The (name, dtype) pairs the sweep runs on CUDA too: every function with a bool or integer
    dtype and a floating one, as its category allows, the dtype rotating from function to
    function through the ones it takes. (The CUDA simulator compiles each pair's kernels, for
    a second or so: all the pairs would take minutes.)"""
    pairs = []
    for i, name in enumerate(sorted(SPEC)):
        for kind in (["bool"] + INTS, REAL_FLOATS + COMPLEX):
            options = [d for d in kind if d in allowed(name)]
            if options:
                pairs.append((name, options[i % len(options)]))
    return pairs


SWEEP = ([pytest.param(name, dtype, "cpu", id=f"{name}-{dtype}-cpu")
          for name in sorted(SPEC) for dtype in allowed(name)]
         + [pytest.param(name, dtype, "cuda", id=f"{name}-{dtype}-cuda")
            for name, dtype in _cuda_sweep()])


def test_the_sweep_runs_every_function_on_cuda():
    assert {name for name, _ in _cuda_sweep()} == set(SPEC) == set(FUNCTIONS)


# A Python scalar of each kind, joining an array of that kind on the array's device
SCALARS_OF = {"bool": True, "int": 3, "half": 2.5, "float": 2.5, "complex": complex(1.5, -0.5)}


@pytest.mark.parametrize("name,dtype,device", SWEEP, indirect=["device"])
def test_edge_values_match_numpy(name, dtype, device):
    values = edge_values(dtype)
    if SPEC[name][0] == 1:
        check(name, [values], [dtype], device=device)
        check(name, [values[::-1].copy()], [dtype], ["reversed"], device=device)
    else:
        # every pair: x1 down the rows, x2 along the columns (broadcast, zero strides)
        check(name, [values[:, None], values[None, :]], [dtype, dtype], device=device)
        # and transposed/strided memory for the same pairs
        grid1, grid2 = np.broadcast_arrays(values[:, None], values[None, :])
        check(name, [grid1.copy(), grid2.copy()], [dtype, dtype], ["transposed", "strided"],
              device=device)
        if device != CPU:
            scalar = SCALARS_OF[group(dtype)]
            for args in ((make_array(values, dtype, device=device), scalar),
                         (scalar, make_array(values, dtype, "reversed", device=device))):
                result = call(name, *args)
                on_host = call(name, *(a.to_device(CPU) if isinstance(a, xp.ndarray) else a
                                       for a in args))
                assert result.device == device and result.dtype == on_host.dtype
                assert_same_as_host(name, result, on_host, result_dtype(name, dtype))


def test_integer_semantics_exhaustive_int8_uint8():
    """Every int8 x int8 and uint8 x uint8 pair, against NumPy: wraparound, division and
    remainder by 0 (0) and of the minimum by -1, shifts by negative counts or >= the width,
    pow with negative exponents (1 -> 1, -1 -> +-1, others -> 0; base 0 unspecified).

    The pairs go to the small-array engine in blocks of 32 rows, and once all together to the
    large-array kernels (which share the scalar code) for the operations with corner cases."""
    for dtype in ("int8", "uint8"):
        info = np.iinfo(dtype)
        everything = np.arange(info.min, info.max + 1).astype(dtype)
        a, b = np.meshgrid(everything, everything, indexing="ij")
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "pow",
                     "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
                     "bitwise_left_shift", "bitwise_right_shift", "equal", "not_equal", "less",
                     "less_equal", "greater", "greater_equal"):
            for rows in range(0, len(everything), 32):
                check(name, [a[rows:rows + 32], b[rows:rows + 32]], [dtype, dtype])
        for name in ("floor_divide", "remainder", "pow", "bitwise_left_shift"):
            check(name, [a, b], [dtype, dtype])
        for name in ("abs", "negative", "positive", "square", "sign", "bitwise_invert", "floor",
                     "ceil", "trunc", "round", "isnan", "isinf", "isfinite", "real", "conj"):
            check(name, [everything], [dtype])


@pytest.mark.parametrize("dtype", INTS)
def test_integer_corner_cases_against_numpy_rules(dtype):
    info = np.iinfo(dtype)
    bits = 8 * np.dtype(dtype).itemsize
    x = make_array(np.array([info.min, info.max, 5, 0], dtype), dtype)
    zero = make_array(np.zeros(4, dtype), dtype)
    assert to_numpy(xp.floor_divide(x, zero)).tolist() == [0, 0, 0, 0]
    assert to_numpy(xp.remainder(x, zero)).tolist() == [0, 0, 0, 0]
    assert to_numpy(xp.add(x, make_array(np.ones(4, dtype), dtype))).tolist()[1] == info.min
    if info.min < 0:
        minus_one = make_array(np.full(4, -1, dtype), dtype)
        assert to_numpy(xp.floor_divide(x, minus_one)).tolist() == [info.min, -info.max, -5, 0]
        assert to_numpy(xp.remainder(x, minus_one)).tolist() == [0, 0, 0, 0]
        counts = np.array([-1, bits, bits + 5, -bits], dtype)
        shifted = to_numpy(xp.bitwise_right_shift(
            make_array(np.array([-8, -8, 8, 8], dtype), dtype), make_array(counts, dtype)))
        assert shifted.tolist() == [-1, -1, 0, 0]
        exponent = make_array(np.array([-1, -2, -3, -1], dtype), dtype)
        bases = make_array(np.array([1, -1, -1, 7], dtype), dtype)
        assert to_numpy(xp.pow(bases, exponent)).tolist() == [1, 1, -1, 0]
        assert to_numpy(xp.pow(make_array(np.array([2, -3, info.max], dtype), dtype),
                           make_array(np.array([-1, -5, -2], dtype), dtype))).tolist() == [0, 0, 0]
    counts = np.array([bits, bits + 1, info.max, 0], dtype)
    ones = make_array(np.ones(4, dtype), dtype)
    assert to_numpy(xp.bitwise_left_shift(ones, make_array(counts, dtype))).tolist() == [0, 0, 0, 1]
    assert to_numpy(xp.bitwise_right_shift(make_array(np.full(4, info.max, dtype), dtype),
                                       make_array(counts, dtype))).tolist()[:3] == [0, 0, 0]


# ---------------------------------------------------------------- hypothesis: shapes, layouts

def _examples():
    return max(4, settings().max_examples // 15)


def elements(name, dtype, role=0, bounded=False):
    """A strategy of logical values of ``dtype`` for operand ``role`` of ``name``."""
    if dtype == "bool":
        return st.booleans()
    if dtype in INTS:
        info = np.iinfo(dtype)
        edges = st.sampled_from(sorted({info.min, info.max, 0, 1, info.max - 1} |
                                       ({-1, info.min + 1} if info.min < 0 else set())))
        full = st.integers(int(info.min), int(info.max))
        if role == 1 and name in SHIFTS:
            width = 8 * np.dtype(dtype).itemsize
            return st.one_of(st.integers(max(int(info.min), -3), width + 3), full)
        if role == 1 and name == "pow":
            return st.one_of(st.integers(max(int(info.min), -3), 70), edges)
        return st.one_of(full, edges)
    if dtype == "bfloat16":
        bits = st.integers(0, 0xFFFF) if not bounded else st.integers(0, 0x41A0) | \
            st.integers(0x8000, 0xC1A0)  # |x| <= 20
        return bits.map(lambda b: float(bf16_from_bits(np.array([b]))[0]))
    if dtype in COMPLEX:
        width = 64 if dtype == "complex64" else 128
        if bounded:
            limit = 8.0 if name == "pow" else 20.0
            return st.complex_numbers(max_magnitude=limit, allow_nan=False,
                                      allow_infinity=False, width=width)
        return hnp.from_dtype(np.dtype(dtype))
    if bounded:
        return hnp.from_dtype(np.dtype(dtype), min_value=-20, max_value=20, allow_nan=False)
    return hnp.from_dtype(np.dtype(dtype))


@st.composite
def operands(draw, name, dtype, shape, role=0):
    """(logical values, layout, broadcast shape or None) for an operand of ``shape``."""
    bounded = dtype in COMPLEX and name in COMPLEX_FINITE_ONLY
    squeeze = [n > 1 and draw(st.booleans()) for n in shape] if draw(st.booleans()) else \
        [False] * len(shape)
    stored = tuple(1 if s else n for s, n in zip(squeeze, shape))
    values = draw(hnp.arrays(np_dtype(dtype), stored,
                             elements=elements(name, dtype, role, bounded)))
    if dtype == "bfloat16":
        values = bf16_round(values)
    layout = draw(st.sampled_from(LAYOUTS))
    return values, layout, (tuple(shape) if any(squeeze) else None)


def _hypothesis_cases(arity):
    cases = []
    for name in (UNARY if arity == 1 else BINARY):
        groups = {}
        for dtype in allowed(name):
            groups.setdefault(group(dtype), []).append(dtype)
        for kind, dtypes in groups.items():
            cases.append(pytest.param(name, tuple(dtypes), id=f"{name}-{kind}"))
    return cases


@pytest.mark.parametrize("name,dtypes", _hypothesis_cases(1))
def test_unary_hypothesis(name, dtypes):
    @settings(max_examples=_examples())
    @given(data=st.data())
    def run(data):
        dtype = data.draw(st.sampled_from(dtypes), label="dtype")
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
                          label="shape")
        values, layout, broadcast = data.draw(operands(name, dtype, shape), label="x")
        check(name, [values], [dtype], [layout], [broadcast])

    run()


@pytest.mark.parametrize("name,dtypes", _hypothesis_cases(2))
def test_binary_hypothesis(name, dtypes):
    @settings(max_examples=_examples())
    @given(data=st.data())
    def run(data):
        dtype = data.draw(st.sampled_from(dtypes), label="dtype")
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0,
                                                              max_dims=4, max_side=4),
                           label="shapes").input_shapes
        inputs = [data.draw(operands(name, dtype, s, role), label=f"x{role + 1}")
                  for role, s in enumerate(shapes)]
        check(name, [v for v, _, _ in inputs], [dtype, dtype], [lay for _, lay, _ in inputs],
              [b for _, _, b in inputs])

    run()


# Mixed dtypes: a representative subset of pairs (each pair compiles its own kernel).
MIXED = [
    ("add", "int8", "uint8"), ("add", "uint16", "int32"), ("subtract", "int64", "uint32"),
    ("multiply", "uint8", "uint16"), ("add", "int16", "int8"), ("add", "float16", "float32"),
    ("multiply", "bfloat16", "float16"), ("subtract", "bfloat16", "float64"),
    ("divide", "float32", "float64"), ("add", "float32", "complex128"),
    ("multiply", "complex64", "float64"), ("divide", "float16", "complex64"),
    ("pow", "float32", "complex64"), ("pow", "int8", "uint8"), ("pow", "float32", "float64"),
    ("equal", "complex64", "float32"), ("not_equal", "bool", "bool"),
    ("less", "int16", "uint8"), ("greater_equal", "float16", "float64"),
    ("maximum", "uint8", "int8"), ("minimum", "bfloat16", "float32"),
    ("floor_divide", "int8", "int16"), ("remainder", "uint8", "int32"),
    ("bitwise_xor", "uint16", "int8"), ("bitwise_and", "uint32", "uint64"),
    ("bitwise_left_shift", "int8", "uint8"), ("bitwise_right_shift", "int64", "int8"),
    ("atan2", "float32", "float64"), ("copysign", "float16", "float32"),
    ("hypot", "bfloat16", "float32"), ("logaddexp", "float16", "bfloat16"),
    ("nextafter", "float32", "float64"),
]


@pytest.mark.parametrize("name,a,b", [pytest.param(*m, id="-".join(m)) for m in MIXED])
def test_mixed_dtypes_match_numpy(name, a, b):
    check(name, [edge_values(a)[:, None], edge_values(b)[None, :]], [a, b])
    check(name, [edge_values(b)[:, None], edge_values(a)[None, :]], [b, a])

    @settings(max_examples=max(3, _examples() // 2))
    @given(data=st.data())
    def run(data):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                              max_side=4)).input_shapes
        order = data.draw(st.sampled_from([(a, b), (b, a)]))
        inputs = [data.draw(operands(name, d, s, role))
                  for role, (d, s) in enumerate(zip(order, shapes))]
        check(name, [v for v, _, _ in inputs], list(order), [lay for _, lay, _ in inputs],
              [s for _, _, s in inputs])

    run()


def test_large_arrays_take_the_threaded_path():
    """Results above 2 MiB are split across threads; strided and broadcast operands too."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((700, 1000)).astype(np.float32)
    b = rng.standard_normal((1000,)).astype(np.float32)
    check("add", [a, b], ["float32", "float32"], ["transposed", "contiguous"])
    check("multiply", [a, b], ["float32", "float32"], ["reversed", "strided"])
    check("subtract", [a, b[None, :]], ["float32", "float32"], ["strided", "reversed"],
          [None, (700, 1000)])
    check("sin", [a], ["float32"], ["reversed"])
    check("less", [a, b], ["float32", "float32"], ["strided", "reversed"])
    h = logical(a, "bfloat16")
    check("add", [h, logical(b, "bfloat16")], ["bfloat16", "bfloat16"],
          ["transposed", "contiguous"])
    i = rng.integers(-2**31, 2**31, (600, 1100), dtype=np.int64)
    check("floor_divide", [i, np.array([7, -3, 0, -1] * 275, np.int64)], ["int64", "int64"],
          ["reversed", "contiguous"])


@pytest.mark.parametrize("dtype", ["bool", "int16", "float16", "bfloat16", "float32", "float64",
                                   "complex128"])
def test_large_strided_inputs_are_gathered_in_blocks(dtype):
    """A large unary call on a strided input gathers it block by block (into a contiguous
    output): every block boundary, and a run shorter than a block, read as NumPy does."""
    rng = np.random.default_rng(1)
    for shape in ((40_000,), (301, 67)):  # one long run; many runs of 67 (one short block)
        a = rng.standard_normal(shape) * 3
        values = logical(a + 1j * a[::-1] if dtype == "complex128" else a, dtype)
        for name in ("exp", "negative", "abs") if dtype != "bool" else ("logical_not",):
            if name != "exp" or group(dtype) in ("float", "complex"):
                check(name, [values], [dtype], ["strided"])
                check(name, [values], [dtype], ["reversed"])



# ---------------------------------------------------------------- special cases of the standard

class Unsigned:
    """An expected value whose sign the standard leaves unspecified."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"+-{abs(self.value)}"


class SignedNaN:
    """A NaN whose sign bit the standard specifies (copysign)."""

    def __init__(self, negative):
        self.negative = negative

    def __repr__(self):
        return "-NaN" if self.negative else "+NaN"


NEG_NAN = -nan  # an input NaN with its sign bit set

REAL_SPECIAL_CASES = [
    ("abs", (-0.0,), 0.0), ("abs", (-inf,), inf), ("abs", (nan,), nan),
    ("acos", (1.0,), 0.0), ("acos", (1.5,), nan), ("acos", (-1.5,), nan), ("acos", (nan,), nan),
    ("acosh", (1.0,), 0.0), ("acosh", (0.5,), nan), ("acosh", (inf,), inf),
    ("add", (inf, -inf), nan), ("add", (-0.0, -0.0), -0.0), ("add", (-0.0, 0.0), 0.0),
    ("add", (5.0, -5.0), 0.0), ("add", (inf, 1.0), inf), ("add", (-0.0, 3.0), 3.0),
    ("asin", (-0.0,), -0.0), ("asin", (2.0,), nan), ("asin", (0.0,), 0.0),
    ("asinh", (-0.0,), -0.0), ("asinh", (-inf,), -inf),
    ("atan", (-0.0,), -0.0), ("atan", (inf,), pi / 2), ("atan", (-inf,), -pi / 2),
    ("atan2", (0.0, 0.0), 0.0), ("atan2", (0.0, -0.0), pi), ("atan2", (-0.0, 0.0), -0.0),
    ("atan2", (-0.0, -0.0), -pi), ("atan2", (0.0, -1.0), pi), ("atan2", (-0.0, -1.0), -pi),
    ("atan2", (0.0, 1.0), 0.0), ("atan2", (-0.0, 1.0), -0.0),
    ("atan2", (1.0, 0.0), pi / 2), ("atan2", (-1.0, -0.0), -pi / 2),
    ("atan2", (inf, inf), pi / 4), ("atan2", (inf, -inf), 3 * pi / 4),
    ("atan2", (-inf, inf), -pi / 4), ("atan2", (-inf, -inf), -3 * pi / 4),
    ("atan2", (1.0, inf), 0.0), ("atan2", (-1.0, inf), -0.0), ("atan2", (1.0, -inf), pi),
    ("atan2", (-1.0, -inf), -pi), ("atan2", (inf, 1.0), pi / 2), ("atan2", (-inf, 1.0), -pi / 2),
    ("atan2", (nan, 1.0), nan), ("atan2", (1.0, nan), nan),
    ("atanh", (1.0,), inf), ("atanh", (-1.0,), -inf), ("atanh", (2.0,), nan),
    ("atanh", (-0.0,), -0.0),
    ("ceil", (-0.5,), -0.0), ("ceil", (-0.0,), -0.0), ("ceil", (inf,), inf), ("ceil", (1.1,), 2.0),
    ("copysign", (1.0, -0.0), -1.0), ("copysign", (-2.0, 0.0), 2.0),
    ("copysign", (inf, -1.0), -inf), ("copysign", (0.0, -inf), -0.0),
    ("copysign", (nan, -1.0), SignedNaN(True)), ("copysign", (NEG_NAN, 1.0), SignedNaN(False)),
    ("copysign", (NEG_NAN, -0.0), SignedNaN(True)), ("copysign", (nan, 0.0), SignedNaN(False)),
    ("cos", (inf,), nan), ("cos", (-0.0,), 1.0), ("cos", (nan,), nan),
    ("cosh", (-inf,), inf), ("cosh", (-0.0,), 1.0),
    ("divide", (0.0, 0.0), nan), ("divide", (inf, inf), nan), ("divide", (1.0, -0.0), -inf),
    ("divide", (-1.0, 0.0), -inf), ("divide", (-1.0, -0.0), inf), ("divide", (-0.0, 2.0), -0.0),
    ("divide", (0.0, -2.0), -0.0), ("divide", (inf, -2.0), -inf), ("divide", (2.0, -inf), -0.0),
    ("divide", (nan, 1.0), nan),
    ("equal", (nan, nan), False), ("equal", (-0.0, 0.0), True), ("equal", (inf, inf), True),
    ("equal", (inf, -inf), False),
    ("exp", (-inf,), 0.0), ("exp", (-0.0,), 1.0), ("exp", (inf,), inf), ("exp", (nan,), nan),
    ("expm1", (-inf,), -1.0), ("expm1", (-0.0,), -0.0), ("expm1", (inf,), inf),
    ("floor", (-0.0,), -0.0), ("floor", (-0.5,), -1.0), ("floor", (-inf,), -inf),
    ("floor", (0.5,), 0.0),
    ("floor_divide", (inf, 1.0), inf), ("floor_divide", (-inf, 1.0), -inf),
    ("floor_divide", (inf, -1.0), -inf), ("floor_divide", (-inf, -2.5), inf),
    ("floor_divide", (1.0, inf), 0.0), ("floor_divide", (-1.0, inf), -0.0),
    ("floor_divide", (1.0, -inf), -0.0), ("floor_divide", (-1.0, -inf), 0.0),
    ("floor_divide", (-0.0, 1.0), -0.0), ("floor_divide", (0.0, -1.0), -0.0),
    ("floor_divide", (0.0, 0.0), nan), ("floor_divide", (1.0, 0.0), inf),
    ("floor_divide", (-1.0, 0.0), -inf), ("floor_divide", (7.0, -2.0), -4.0),
    ("floor_divide", (inf, inf), nan), ("floor_divide", (nan, 1.0), nan),
    ("greater", (nan, 1.0), False), ("greater", (inf, 1e30), True),
    ("greater_equal", (-0.0, 0.0), True),
    ("hypot", (inf, nan), inf), ("hypot", (nan, -inf), inf), ("hypot", (nan, 1.0), nan),
    ("hypot", (-0.0, -0.0), 0.0), ("hypot", (-3.0, 4.0), 5.0),
    ("isfinite", (inf,), False), ("isfinite", (-0.0,), True), ("isfinite", (nan,), False),
    ("isinf", (-inf,), True), ("isinf", (nan,), False), ("isnan", (nan,), True),
    ("isnan", (inf,), False),
    ("less", (nan, nan), False), ("less_equal", (-0.0, 0.0), True), ("less", (-inf, -1e30), True),
    ("log", (0.0,), -inf), ("log", (-0.0,), -inf), ("log", (-1.0,), nan), ("log", (1.0,), 0.0),
    ("log", (inf,), inf), ("log", (-inf,), nan),
    ("log1p", (-1.0,), -inf), ("log1p", (-2.0,), nan), ("log1p", (-0.0,), -0.0),
    ("log1p", (inf,), inf),
    ("log2", (0.0,), -inf), ("log2", (1.0,), 0.0), ("log2", (-1.0,), nan), ("log2", (inf,), inf),
    ("log10", (-0.0,), -inf), ("log10", (1.0,), 0.0), ("log10", (-inf,), nan),
    ("logaddexp", (nan, 1.0), nan), ("logaddexp", (1.0, nan), nan), ("logaddexp", (inf, 1.0), inf),
    ("logaddexp", (1.0, inf), inf), ("logaddexp", (inf, -inf), inf), ("logaddexp", (inf, inf), inf),
    ("logaddexp", (-inf, -inf), -inf),
    ("maximum", (nan, 1.0), nan), ("maximum", (1.0, nan), nan), ("maximum", (-inf, 1.0), 1.0),
    ("minimum", (nan, 1.0), nan), ("minimum", (-inf, nan), nan), ("minimum", (inf, -1.0), -1.0),
    ("multiply", (inf, 0.0), nan), ("multiply", (-0.0, 5.0), -0.0), ("multiply", (-inf, -inf), inf),
    ("multiply", (inf, -2.0), -inf), ("multiply", (-0.0, -0.0), 0.0), ("multiply", (nan, 0.0), nan),
    ("negative", (0.0,), -0.0), ("negative", (-inf,), inf), ("negative", (nan,), nan),
    ("nextafter", (-0.0, 0.0), 0.0), ("nextafter", (0.0, -0.0), -0.0),
    ("nextafter", (nan, 1.0), nan),
    ("nextafter", (1.0, nan), nan), ("nextafter", (2.0, 2.0), 2.0),
    ("not_equal", (nan, nan), True), ("not_equal", (-0.0, 0.0), False),
    ("positive", (-0.0,), -0.0),
    ("pow", (nan, 0.0), 1.0), ("pow", (nan, -0.0), 1.0), ("pow", (1.0, nan), 1.0),
    ("pow", (2.0, nan), nan), ("pow", (nan, 1.0), nan), ("pow", (2.0, inf), inf),
    ("pow", (2.0, -inf), 0.0), ("pow", (-1.0, inf), 1.0), ("pow", (-1.0, -inf), 1.0),
    ("pow", (0.5, inf), 0.0), ("pow", (0.5, -inf), inf), ("pow", (inf, 2.0), inf),
    ("pow", (inf, -1.0), 0.0), ("pow", (-inf, 3.0), -inf), ("pow", (-inf, 2.0), inf),
    ("pow", (-inf, -3.0), -0.0), ("pow", (-inf, -2.0), 0.0), ("pow", (0.0, 2.0), 0.0),
    ("pow", (0.0, -1.0), inf), ("pow", (-0.0, 3.0), -0.0), ("pow", (-0.0, 2.0), 0.0),
    ("pow", (-0.0, -3.0), -inf), ("pow", (-0.0, -2.0), inf), ("pow", (-2.0, 0.5), nan),
    ("pow", (1.0, inf), 1.0), ("pow", (-2.0, 3.0), -8.0),
    ("reciprocal", (0.0,), inf), ("reciprocal", (-0.0,), -inf), ("reciprocal", (-inf,), -0.0),
    ("reciprocal", (nan,), nan),
    ("remainder", (inf, 1.0), nan), ("remainder", (-inf, -1.0), nan),
    ("remainder", (1.0, 0.0), nan),
    ("remainder", (-1.0, -0.0), nan), ("remainder", (0.0, 0.0), nan),
    ("remainder", (-0.0, 1.0), 0.0), ("remainder", (0.0, -1.0), -0.0),
    ("remainder", (-0.0, -1.0), -0.0), ("remainder", (1.0, inf), 1.0),
    ("remainder", (-1.0, inf), inf), ("remainder", (1.0, -inf), -inf),
    ("remainder", (-1.0, -inf), -1.0), ("remainder", (-5.0, 3.0), 1.0),
    ("remainder", (5.0, -3.0), -1.0), ("remainder", (nan, 1.0), nan),
    ("remainder", (inf, inf), nan),
    ("round", (0.5,), Unsigned(0.0)), ("round", (1.5,), 2.0), ("round", (2.5,), 2.0),
    ("round", (-2.5,), -2.0), ("round", (-0.0,), -0.0), ("round", (0.0,), 0.0),
    ("round", (-3.5,), -4.0), ("round", (inf,), inf), ("round", (nan,), nan),
    ("sign", (nan,), nan), ("sign", (-0.0,), Unsigned(0.0)), ("sign", (0.0,), Unsigned(0.0)),
    ("sign", (-inf,), -1.0), ("sign", (inf,), 1.0), ("sign", (3.0,), 1.0), ("sign", (-2.0,), -1.0),
    ("signbit", (-0.0,), True), ("signbit", (0.0,), False), ("signbit", (-inf,), True),
    ("signbit", (NEG_NAN,), True), ("signbit", (nan,), False), ("signbit", (-2.0,), True),
    ("sin", (-0.0,), -0.0), ("sin", (inf,), nan), ("sin", (-inf,), nan),
    ("sinh", (-0.0,), -0.0), ("sinh", (-inf,), -inf),
    ("sqrt", (-0.0,), -0.0), ("sqrt", (-1.0,), nan), ("sqrt", (inf,), inf), ("sqrt", (0.0,), 0.0),
    ("sqrt", (-inf,), nan), ("sqrt", (4.0,), 2.0),
    ("square", (-inf,), inf), ("square", (-0.0,), 0.0), ("square", (nan,), nan),
    ("subtract", (inf, inf), nan), ("subtract", (-0.0, 0.0), -0.0), ("subtract", (0.0, 0.0), 0.0),
    ("subtract", (-inf, inf), -inf), ("subtract", (-0.0, -0.0), 0.0),
    ("tan", (-0.0,), -0.0), ("tan", (inf,), nan),
    ("tanh", (inf,), 1.0), ("tanh", (-inf,), -1.0), ("tanh", (-0.0,), -0.0),
    ("trunc", (-0.5,), -0.0), ("trunc", (-inf,), -inf), ("trunc", (1.7,), 1.0),
    ("trunc", (-1.7,), -1.0),
]


def _special_id(case):
    name, args, _ = case
    return f"{name}{args}"


def _matches_special(actual, expected, dtype):
    """Whether one result value is what the standard lists."""
    if isinstance(expected, bool):
        return bool(actual) is expected
    actual = float(actual)
    if isinstance(expected, SignedNaN):
        return math.isnan(actual) and (math.copysign(1, actual) < 0) == expected.negative
    free_sign = isinstance(expected, Unsigned)
    expected = abs(expected.value) if free_sign else expected
    if math.isnan(expected):
        return math.isnan(actual)
    if math.isinf(expected) or expected == 0:
        if free_sign:
            return abs(actual) == abs(expected)
        return actual == expected and math.copysign(1, actual) == math.copysign(1, expected)
    rounded = float(np.array(expected, dtype=np_dtype(dtype)))
    return ulp_distance(np.array([actual], np_dtype(dtype)), np.array([rounded], np_dtype(dtype)),
                        dtype)[0] <= 1


REAL_SPECIAL_PARAMS = [
    pytest.param(name, args, expected, dtype, id=f"{_special_id((name, args, expected))}-{dtype}")
    for name, args, expected in REAL_SPECIAL_CASES for dtype in ("float32", "float64")]


@pytest.mark.parametrize("name,args,expected,dtype", REAL_SPECIAL_PARAMS)
def test_real_special_cases(name, args, expected, dtype):
    inputs = [xp.asarray(np.array([a], dtype=dtype)) for a in args]
    actual = to_numpy(call(name, *inputs))[0]
    assert _matches_special(actual, expected, dtype), f"{name}{args} = {actual!r}, not {expected!r}"


HALF_SPECIAL_PARAMS = [
    pytest.param(name, args, expected, dtype, id=f"{_special_id((name, args, expected))}-{dtype}")
    for name, args, expected in REAL_SPECIAL_CASES for dtype in HALF]


@pytest.mark.parametrize("name,args,expected,dtype", HALF_SPECIAL_PARAMS)
def test_real_special_cases_half(name, args, expected, dtype):
    """The same cases hold for float16 and bfloat16 (computed in float32, rounded back)."""
    if name == "greater" and args[1] == 1e30 or name == "less" and args[1] == -1e30:
        args = (args[0], math.copysign(1e4, args[1]))
    inputs = [make_array(logical([a], dtype), dtype) for a in args]
    actual = to_numpy(call(name, *inputs))[0]
    if isinstance(expected, float) and math.isfinite(expected) and expected not in (0.0,):
        expected = float(logical([expected], dtype)[0])
    assert _matches_special(actual, expected, "float32" if dtype == "bfloat16" else dtype), \
        f"{name}{args} = {actual!r}, not {expected!r}"



@pytest.mark.parametrize("name", ["log", "sin", "cos"])
def test_vectorized_float32_functions_over_the_whole_range(name):
    """dlnumba's own float32 polynomials (not libm's), run by the vectorized loops on a large
    array, contiguous and strided: every 4099th bit pattern (all signs and exponents, zeros,
    subnormals, infinities, NaN) against the float64 function rounded to float32."""
    bits = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32)
    values = np.concatenate([bits.view(np.float32), np.array(
        [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 3.4028235e38, 1e-45, -1e-45], np.float32)])
    with np.errstate(all="ignore"):
        expected = NUMPY[name](values.astype(np.float64)).astype(np.float32)
    assert_matches(name, to_numpy(call(name, xp.asarray(values))), expected, "float32")
    assert_matches(name, to_numpy(call(name, xp.asarray(np.repeat(values, 2))[::2])), expected,
                   "float32")


def test_vectorized_float64_log_over_the_whole_range():
    """dlnumba's own float64 logarithm (not libm's), contiguous and strided: random bit patterns
    of every sign and exponent, subnormals, zeros, infinities and NaN against NumPy's."""
    bits = np.random.default_rng(0).integers(0, 1 << 64, 1 << 18, dtype=np.uint64,
                                             endpoint=False)
    values = np.concatenate([bits.view(np.float64), np.array(
        [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1.7976931348623157e308, 5e-324,
         2.2250738585072014e-308, 0.7071067811865476, 1.4142135623730951], np.float64)])
    with np.errstate(all="ignore"):
        expected = np.log(values)
    assert_matches("log", to_numpy(xp.log(xp.asarray(values))), expected, "float64")
    assert_matches("log", to_numpy(xp.log(xp.asarray(np.repeat(values, 2))[::2])), expected,
                   "float64")


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_vectorized_float64_sine_and_cosine_near_multiples_of_half_pi(name):
    """dlnumba's own float64 sine and cosine (below 2**20; libm's beyond), contiguous and
    strided, where the reduced argument is smallest: the doubles next to k * pi/2 for k up to
    600000, then random values of every magnitude, zeros, infinities and NaN, against libm."""
    k = np.concatenate([np.arange(1.0, 3000.0), np.random.default_rng(0).integers(
        3000, 600000, 3000).astype(np.float64)])
    near = k * (math.pi / 2)
    values = np.concatenate([near, np.nextafter(near, 0), np.nextafter(near, inf), -near,
                             np.random.default_rng(1).random(3000) * 10.0 ** np.arange(
                                 -20, 10, 0.01)[:3000],
                             [0.0, -0.0, inf, -inf, nan, 1048576.0, 1048577.0, 1e300, 5e-324]])
    expected = np.array([getattr(math, name)(v) if math.isfinite(v) else nan for v in values])
    assert_matches(name, to_numpy(call(name, xp.asarray(values))), expected, "float64")
    assert_matches(name, to_numpy(call(name, xp.asarray(np.repeat(values, 2))[::2])), expected,
                   "float64")
    if name == "sin":
        assert math.copysign(1.0, to_numpy(xp.sin(xp.asarray(np.full(1 << 15, -0.0))))[0]) < 0


def test_nextafter_steps_to_the_neighbour_float32_float64():
    for dtype in ("float32", "float64"):
        info = np.finfo(dtype)
        x = xp.asarray(np.array([0.0, 1.0, -1.0, info.max, 1.0], dtype))
        y = xp.asarray(np.array([1.0, 2.0, 0.0, inf, 0.0], dtype))
        got = to_numpy(xp.nextafter(x, y))
        one = np.array(1.0, dtype)
        assert got[0] == info.smallest_subnormal
        assert got[1] == one + info.eps
        assert got[2] == -one + info.epsneg
        assert got[3] == inf
        assert got[4] == one - info.epsneg


@pytest.mark.parametrize("dtype", HALF)
def test_nextafter_half_steps_to_its_own_neighbour(dtype):
    one = make_array(logical([1.0, 0.0], dtype), dtype)
    two = make_array(logical([2.0, 1.0], dtype), dtype)
    got = to_numpy(xp.nextafter(one, two))
    eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    tiny = 2.0 ** -24 if dtype == "float16" else float(bf16_from_bits(np.array([1]))[0])
    assert got.tolist() == [1.0 + eps, tiny]


C = complex
COMPLEX_SPECIAL_CASES = [
    ("sqrt", C(-1, 0), C(0, 1)), ("sqrt", C(-1, -0.0), C(0, -1)), ("sqrt", C(0, 0), C(0, 0)),
    ("sqrt", C(-0.0, 0), C(0, 0)), ("sqrt", C(1, inf), C(inf, inf)),
    ("sqrt", C(nan, inf), C(inf, inf)), ("sqrt", C(-inf, 1), C(0, inf)),
    ("sqrt", C(inf, 1), C(inf, 0)), ("sqrt", C(inf, nan), C(inf, nan)),
    ("sqrt", C(-inf, nan), (nan, Unsigned(inf))), ("sqrt", C(nan, 1), C(nan, nan)),
    ("sqrt", C(4, 0), C(2, 0)),
    ("log", C(-1, 0), C(0, pi)), ("log", C(-1, -0.0), C(0, -pi)), ("log", C(-0.0, 0), C(-inf, pi)),
    ("log", C(0, 0), C(-inf, 0)), ("log", C(-inf, 1), C(inf, pi)), ("log", C(inf, 1), C(inf, 0)),
    ("log", C(1, inf), C(inf, pi / 2)), ("log", C(-inf, inf), C(inf, 3 * pi / 4)),
    ("log", C(inf, inf), C(inf, pi / 4)), ("log", C(nan, inf), C(inf, nan)),
    ("log", C(inf, nan), C(inf, nan)), ("log", C(1, nan), C(nan, nan)),
    ("log", C(1, 0), C(0, 0)),
    ("exp", C(0, 0), C(1, 0)), ("exp", C(-0.0, 0), C(1, 0)), ("exp", C(1, inf), C(nan, nan)),
    ("exp", C(1, nan), C(nan, nan)), ("exp", C(inf, 0), C(inf, 0)),
    ("exp", C(-inf, 1), C(0.0 * math.cos(1), 0.0 * math.sin(1))),
    ("exp", C(-inf, -1), C(0.0, -0.0)), ("exp", C(inf, 1), C(inf, inf)),
    ("exp", C(inf, 3), C(-inf, inf)),
    ("exp", C(-inf, inf), (Unsigned(0.0), Unsigned(0.0))),
    ("exp", C(inf, inf), (Unsigned(inf), nan)),
    ("exp", C(-inf, nan), (Unsigned(0.0), Unsigned(0.0))),
    ("exp", C(inf, nan), (Unsigned(inf), nan)), ("exp", C(nan, 0), C(nan, 0)),
    ("exp", C(nan, 1), C(nan, nan)), ("exp", C(nan, nan), C(nan, nan)),
    ("expm1", C(0, 0), C(0, 0)), ("expm1", C(-0.0, 0), C(0, 0)),
    ("expm1", C(-0.0, -0.0), C(0, -0.0)), ("expm1", C(inf, 0), C(inf, 0)),
    ("expm1", C(-inf, inf), (-1.0, Unsigned(0.0))), ("expm1", C(nan, 0), C(nan, 0)),
    ("log1p", C(-1, 0), C(-inf, 0)), ("log1p", C(0, 0), C(0, 0)), ("log1p", C(inf, 1), C(inf, 0)),
    ("log10", C(0, 0), C(-inf, 0)), ("log2", C(-0.0, 0), C(-inf, pi / math.log(2))),
    ("acos", C(0, 0), C(pi / 2, -0.0)), ("acos", C(1, inf), C(pi / 2, -inf)),
    ("acosh", C(0, 0), C(0, pi / 2)), ("acosh", C(inf, 1), C(inf, 0)),
    ("asinh", C(0, 0), C(0, 0)), ("asinh", C(inf, 1), C(inf, 0)),
    ("atanh", C(1, 0), C(inf, 0)), ("atanh", C(0, 0), C(0, 0)), ("atanh", C(inf, 1), C(0, pi / 2)),
    ("atanh", C(0, nan), C(0, nan)), ("atanh", C(-0.0, nan), C(-0.0, nan)),
    ("atanh", C(2, nan), C(nan, nan)), ("atanh", C(inf, nan), C(0, nan)),
    ("atanh", C(nan, 1), C(nan, nan)), ("atanh", C(nan, inf), (Unsigned(0.0), pi / 2)),
    ("atanh", C(nan, -inf), (Unsigned(0.0), -pi / 2)), ("atanh", C(nan, nan), C(nan, nan)),
    ("atanh", C(1, inf), C(0, pi / 2)), ("atanh", C(inf, inf), C(0, pi / 2)),
    ("cosh", C(0, 0), C(1, 0)), ("cosh", C(0, inf), (nan, Unsigned(0.0))),
    ("cosh", C(0, nan), (nan, Unsigned(0.0))), ("cosh", C(2, inf), C(nan, nan)),
    ("cosh", C(2, nan), C(nan, nan)), ("cosh", C(inf, 0), C(inf, 0)),
    ("cosh", C(-inf, 0), C(inf, -0.0)), ("cosh", C(inf, 1), C(inf, inf)),
    ("cosh", C(inf, 3), C(-inf, inf)), ("cosh", C(-inf, 1), C(inf, -inf)),
    ("cosh", C(inf, inf), (Unsigned(inf), nan)), ("cosh", C(inf, nan), (inf, nan)),
    ("cosh", C(nan, 0), (nan, Unsigned(0.0))), ("cosh", C(nan, 1), C(nan, nan)),
    ("cosh", C(nan, nan), C(nan, nan)), ("cosh", C(800, 0), C(inf, 0)),
    ("cosh", C(-1, 0), C(math.cosh(1), -0.0)),
    ("sinh", C(0, 0), C(0, 0)), ("sinh", C(inf, 0), C(inf, 0)),
    ("sinh", C(0, inf), C(0, nan)), ("sinh", C(-0.0, -inf), C(-0.0, nan)),
    ("sinh", C(0, nan), C(0, nan)), ("sinh", C(-0.0, nan), C(-0.0, nan)),
    ("tanh", C(0, 0), C(0, 0)), ("tanh", C(inf, 1), C(1, 0.0)),
    ("tanh", C(inf, 2), C(1, 0.0)), ("tanh", C(-inf, -2), C(-1, -0.0)),
    ("tanh", C(nan, 0), C(nan, 0)),
    ("abs", C(inf, nan), inf), ("abs", C(nan, -inf), inf), ("abs", C(-0.0, -3), 3.0),
    ("abs", C(nan, 1), nan), ("abs", C(1, nan), nan), ("abs", C(-4, -0.0), 4.0),
    ("abs", C(3, -4), 5.0),
    ("isnan", C(nan, inf), True), ("isnan", C(1, nan), True), ("isnan", C(inf, 1), False),
    ("isinf", C(nan, inf), True), ("isinf", C(-inf, nan), True), ("isinf", C(nan, 1), False),
    ("isfinite", C(1, nan), False), ("isfinite", C(inf, 0), False), ("isfinite", C(1, -2), True),
    ("sign", C(-0.0, 0.0), C(0, 0)), ("sign", C(nan, 1), C(nan, nan)),
    ("sign", C(3, -4), C(0.6, -0.8)), ("sign", C(0, -2), C(0, -1)),
    ("round", C(2.5, -0.5), (2.0, Unsigned(0.0))), ("round", C(-1.5, 3.5), C(-2, 4)),
    ("conj", C(1, 0), C(1, -0.0)), ("conj", C(nan, -inf), C(nan, inf)),
    ("real", C(-0.0, nan), -0.0), ("imag", C(nan, -0.0), -0.0),
    ("equal", (C(1, nan), C(1, nan)), False), ("not_equal", (C(1, nan), C(1, nan)), True),
    ("equal", (C(-0.0, 0), C(0, -0.0)), True), ("equal", (C(inf, 1), C(inf, 1)), True),
    ("add", (C(-0.0, 0), C(-0.0, -0.0)), C(-0.0, 0)),
    ("multiply", (C(nan, nan), C(nan, nan)), C(nan, nan)),
    ("divide", (C(nan, nan), C(nan, nan)), C(nan, nan)),
    ("pow", (C(2, 3), C(0, 0)), C(1, 0)), ("pow", (C(0, 0), C(0, 0)), C(1, 0)),
]


def _matches_complex(actual, expected, dtype):
    real_dtype = "float32" if dtype == "complex64" else "float64"
    if isinstance(expected, bool):
        return bool(actual) is expected
    if isinstance(expected, (float, int)):
        return _matches_special(actual, float(expected), real_dtype)
    parts = (expected.real, expected.imag) if isinstance(expected, complex) else expected
    return (_matches_special(actual.real, parts[0], real_dtype)
            and _matches_special(actual.imag, parts[1], real_dtype))


def _complex_id(case):
    name, arg, _ = case
    return f"{name}{arg}"


COMPLEX_SPECIAL_PARAMS = [
    pytest.param(name, arg, expected, dtype, id=f"{_complex_id((name, arg, expected))}-{dtype}")
    for name, arg, expected in COMPLEX_SPECIAL_CASES for dtype in COMPLEX]


@pytest.mark.parametrize("name,arg,expected,dtype", COMPLEX_SPECIAL_PARAMS)
def test_complex_special_cases(name, arg, expected, dtype):
    args = arg if isinstance(arg, tuple) else (arg,)
    inputs = [xp.asarray(np.array([a], dtype=dtype)) for a in args]
    actual = to_numpy(getattr(xp, name)(*inputs))[0]
    assert _matches_complex(actual, expected, dtype), f"{name}{args} = {actual!r}, not {expected!r}"


def test_complex_functions_are_conjugate_symmetric():
    """f(conj(z)) == conj(f(z)), as the standard asks of every complex function it lists."""
    values = np.array([C(a, b) for a in (-2.5, -1.0, -0.5, 0.0, 0.3, 1.0, 3.0)
                       for b in (0.25, 0.5, 1.0, 2.0)], np.complex128)
    z = xp.asarray(values)
    zc = xp.conj(z)
    for name in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                 "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh"):
        direct = to_numpy(getattr(xp, name)(zc))
        mirrored = np.conj(to_numpy(getattr(xp, name)(z)))
        np.testing.assert_array_equal(direct, mirrored, err_msg=name)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_expm1_complex_is_accurate_near_zero(dtype):
    z = np.array([1e-10 + 0j, 1e-6 - 2e-6j, 1e-20 + 1e-20j], dtype)
    got = to_numpy(xp.expm1(xp.asarray(z)))
    want = np.expm1(z.astype(np.complex128))
    np.testing.assert_allclose(got, want.astype(dtype), rtol=COMPLEX_RTOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["log", "log2", "log10"])
def test_complex_logarithms_of_subnormal_parts(name, dtype):
    # The thorough profile found log(1e-45+1e-45j) in complex64 off by 0.35: |z| was formed
    # in the subnormal range, where it kept one significant bit.
    tiny = np.finfo(np.float32 if dtype == "complex64" else np.float64).smallest_subnormal
    z = np.array([tiny + tiny * 1j, 3 * tiny + tiny * 1j, 1000 * tiny - 7 * tiny * 1j], dtype)
    got = to_numpy(getattr(xp, name)(xp.asarray(z)))
    want = getattr(np, name)(z.astype(np.complex128))
    np.testing.assert_allclose(got, want.astype(dtype), rtol=COMPLEX_RTOL[dtype], err_msg=name)


def test_complex64_division_by_subnormals_is_the_quotient():
    """0 / 1.08e-39 is 0 (NumPy's complex64 division scales by the overflowing 1 / 1.08e-39 and
    gives nan+nanj; the binary hypothesis test drew it); quotients that fit stay finite."""
    x = np.array([0, 1e-30 - 2e-30j, 0], np.complex64)
    y = np.array([1.08e-39, 1.08e-39j, 1e-45 + 1e-45j], np.complex64)
    got = to_numpy(xp.divide(xp.asarray(x), xp.asarray(y)))
    want = (x.astype(np.complex128) / y.astype(np.complex128)).astype(np.complex64)
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=COMPLEX_RTOL["complex64"])


@pytest.mark.parametrize("dtype", REAL_FLOATS)
def test_maximum_minimum_propagate_nan_from_either_operand(dtype):
    one = make_array(logical([1.0, -inf], dtype), dtype)
    nans = make_array(logical([nan, nan], dtype), dtype)
    for name in ("maximum", "minimum"):
        assert np.isnan(to_numpy(getattr(xp, name)(nans, one))).all(), name
        assert np.isnan(to_numpy(getattr(xp, name)(one, nans))).all(), name


@pytest.mark.parametrize("name", ["sqrt", "acos", "acosh", "asin", "asinh"])
def test_complex128_sqrt_family_of_subnormal_components(name):
    z = np.array([complex(0, 5e-324), complex(1, 5e-324), complex(5e-324, 1)], np.complex128)
    got = to_numpy(call(name, xp.asarray(z)))
    np.testing.assert_allclose(got, NUMPY[name](z), rtol=COMPLEX_RTOL["complex128"])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_sqrt_near_overflow(dtype):
    big = np.finfo(dtype).max / 2
    z = np.array([complex(0, big), complex(big, big), complex(-big, big / 4), complex(big, 0)],
                 dtype)
    got = to_numpy(call("sqrt", xp.asarray(z)))
    np.testing.assert_allclose(got, np.sqrt(z), rtol=COMPLEX_RTOL[dtype])


@pytest.mark.parametrize("name", ["log", "log2", "log10"])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_log_beyond_the_largest_modulus(name, dtype):
    big = np.finfo(dtype).max * 0.9
    z = np.array([complex(big, big), complex(-big, big / 2), complex(big, -big)], dtype)
    got = to_numpy(call(name, xp.asarray(z)))
    assert np.isfinite(got).all(), got
    np.testing.assert_allclose(got, NUMPY[name](z), rtol=COMPLEX_RTOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_tanh_of_a_large_real_part(dtype):
    z = np.array([800 + 1j, -400 + 2j, 50 + 1j, 100 - 3j], dtype)
    got = to_numpy(call("tanh", xp.asarray(z)))
    np.testing.assert_allclose(got, np.tanh(z.astype(np.complex128)).astype(dtype), atol=1e-6)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_exp_where_exp_of_the_real_part_overflows(dtype):
    """exp(x) overflows, exp(x) * cos(y) and exp(x) * sin(y) need not (NumPy's results)."""
    x = {"complex64": 88.8, "complex128": 709.9}[dtype]
    z = np.array([complex(x, 0.5), complex(x, 1.5), complex(x, -2.5), complex(1000.0, 0.0)],
                 dtype)
    got = to_numpy(call("exp", xp.asarray(z)))
    with np.errstate(over="ignore", invalid="ignore"):
        expected = np.exp(z)
    np.testing.assert_allclose(got.real, expected.real, rtol=COMPLEX_RTOL[dtype])
    np.testing.assert_allclose(got.imag, expected.imag, rtol=COMPLEX_RTOL[dtype])
    assert got[3] == complex(np.inf, 0)


def test_complex_pow_that_underflows_gives_zero():
    base = np.array([complex(2.829268873524212e-302, 1.299272069673409e+55),
                     complex(2.851237817885623e-13, -5.204334948010265e-77)])
    exponent = np.array([complex(-6.694723966871612e+261, -3.5838293763934194e+214),
                         complex(-3.367496879395616e+136, -6.794710830180117e+300)])
    got = to_numpy(call("pow", xp.asarray(base), xp.asarray(exponent)))
    assert (got == 0).all(), got  # |x**y| = exp(-huge): zero, whatever its angle


@pytest.mark.parametrize("dtype", REAL_FLOATS)
def test_float_floor_divide_of_nan_inf_and_large_quotients(dtype):
    x = make_array(logical([nan, inf, -inf, 7.0], dtype), dtype)
    y = make_array(logical([1.0, 1.0, 2.0, 2.0], dtype), dtype)
    got = to_numpy(call("floor_divide", x, y))
    assert np.isnan(got[0]) and got[1:].tolist() == [inf, -inf, 3.0]  # NumPy: nan, nan, nan, 3
    if dtype in ("float32", "float64"):
        big = to_numpy(call("floor_divide", make_array(logical([1e30], dtype), dtype),
                        make_array(logical([3.0], dtype), dtype)))
        assert big[0] == np.floor_divide(np.array(1e30, dtype), np.array(3.0, dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_division_by_zero_gives_inf_or_nan(dtype):
    x = np.array([1 + 0j, 0j, 1 + 1j], dtype)
    y = np.array([0j, 0j, 0j], dtype)
    got = to_numpy(xp.divide(xp.asarray(x), xp.asarray(y)))
    assert not np.isfinite(got).any()


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_reciprocal(dtype):
    z = np.array([0j, 1 + 1j, complex(inf, 0), 0.5 - 2j], dtype)
    got = to_numpy(call("reciprocal", xp.asarray(z)))
    assert not np.isfinite(got[0])
    np.testing.assert_allclose(got[1:], (1 / z[1:].astype(np.complex128)).astype(dtype),
                               rtol=COMPLEX_RTOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_sign_keeps_signed_zeros(dtype):
    z = np.array([complex(-1.5, -0.0), complex(-0.0, 2.0), complex(2.0, -0.0)], dtype)
    got = to_numpy(xp.sign(xp.asarray(z)))
    want = np.sign(z)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
    np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_log1p_on_the_branch_cut(dtype):
    z = np.array([complex(-1.5, -0.0), complex(-1.5, 0.0)], dtype)
    got = to_numpy(xp.log1p(xp.asarray(z)))
    assert got[0].imag == pytest.approx(-pi, rel=1e-6)
    assert got[1].imag == pytest.approx(pi, rel=1e-6)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_acosh_on_the_branch_cut(dtype):
    z = np.array([complex(-1.5, -0.0), complex(-1.5, 0.0)], dtype)
    got = to_numpy(xp.acosh(xp.asarray(z)))
    assert (got.real >= 0).all()
    np.testing.assert_allclose(got, np.arccosh(z), rtol=COMPLEX_RTOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_pow_of_zero(dtype):
    base = xp.asarray(np.array([0j, 0j, 0j], dtype))
    exponent = xp.asarray(np.array([1 + 1j, 2.5 - 1.5j, 2 + 0j], dtype))
    assert to_numpy(xp.pow(base, exponent)).tolist() == [0j, 0j, 0j]


@pytest.mark.parametrize("name", ["log2", "log10"])
def test_complex_log2_log10_of_zero_and_infinity(name):
    z = np.array([0j, complex(inf, 0), complex(-0.0, 0)], np.complex128)
    got = to_numpy(getattr(xp, name)(xp.asarray(z)))
    assert not np.isnan(got.imag).any(), got


# ---------------------------------------------------------------- clip

CLIP_DTYPES = INTS + REAL_FLOATS


def _clip_reference(x, lo, hi):
    with np.errstate(all="ignore"):
        result = x
        if lo is not None:
            result = np.maximum(result, lo)
        if hi is not None:
            result = np.minimum(result, hi)
        return np.asarray(result, dtype=x.dtype)


@pytest.mark.parametrize("dtype", CLIP_DTYPES)
def test_clip_matches_numpy(dtype):
    if dtype in REAL_FLOATS:  # a NaN bound gives NaN (once a bug: maximum kept x1)
        x = make_array(logical([0.0, 1.0], dtype), dtype)
        assert np.isnan(to_numpy(xp.clip(x, make_array(logical([nan, nan], dtype), dtype)))).all()

    @settings(max_examples=max(4, _examples() // 2))
    @given(data=st.data())
    def run(data):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3,
                                                              max_side=4))
        x_values, layout, broadcast = data.draw(operands("clip", dtype, shapes.input_shapes[0]))
        x_values = np.broadcast_to(x_values, broadcast) if broadcast else x_values
        bounds = []
        for k, kind in enumerate(data.draw(st.tuples(*[st.sampled_from(["none", "scalar",
                                                                          "array"])] * 2))):
            if kind == "none":
                bounds.append((None, None))
            elif kind == "scalar":
                value = data.draw(elements("clip", dtype))
                if dtype in REAL_FLOATS and not data.draw(st.booleans()):
                    value = data.draw(st.integers(-100, 100))  # int scalars with float arrays
                value = value if dtype in INTS else float(value)
                if dtype == "bfloat16":
                    value = float(logical([value], dtype)[0])
                bounds.append((value, logical(value, dtype)))
            else:
                values = data.draw(hnp.arrays(np_dtype(dtype), shapes.input_shapes[k + 1],
                                              elements=elements("clip", dtype)))
                values = logical(values, dtype)
                bounds.append((make_array(values, dtype, data.draw(st.sampled_from(LAYOUTS))),
                               values))
        (lo, lo_values), (hi, hi_values) = bounds
        if lo_values is not None and hi_values is not None:
            # the standard leaves min > max unspecified: order the bounds
            if np.any(np.asarray(lo_values > hi_values)):
                return
        x = make_array(x_values, dtype, layout)
        result = xp.clip(x, lo, hi)
        assert result.dtype == xd(dtype)
        expected = _clip_reference(x_values, lo_values, hi_values)
        assert result.shape == expected.shape
        assert_matches("maximum", to_numpy(result), expected, dtype)

    run()


@pytest.mark.parametrize("dtype", ["int16", "bfloat16", "float64"])
def test_clip_matches_numpy_on_each_device(dtype, device):
    """clip of strided operands on each device: array bounds (broadcast) and Python scalars."""
    values = edge_values(dtype)[:, None]
    lo, hi = logical([-3, -1, 0], dtype), logical([2, 7, 100], dtype)
    x = make_array(values, dtype, "reversed", device=device)
    arrays = make_array(lo, dtype, device=device), make_array(hi, dtype, "strided", device=device)
    for bounds, expected in (
            (arrays, _clip_reference(np.broadcast_to(values, (values.size, 3)), lo, hi)),
            ((-1, 2), _clip_reference(values, logical(-1, dtype), logical(2, dtype))),
            ((None, 0), _clip_reference(values, None, logical(0, dtype)))):
        result = xp.clip(x, *bounds)
        assert result.device == device and result.dtype == xd(dtype)
        assert result.shape == expected.shape
        assert_matches("maximum", to_numpy(result), expected, dtype)


def test_clip_special_cases_and_rules():
    x = xp.asarray(np.array([nan, -inf, -1.0, 0.5, 2.0, inf]))
    got = to_numpy(xp.clip(x, -1.0, 1.0))
    np.testing.assert_array_equal(got, [nan, -1.0, -1.0, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(to_numpy(xp.clip(x)), to_numpy(x))  # no bounds: the values
    assert xp.clip(x) is not x
    # integer scalars beyond the dtype's range bound nothing on that side
    i = xp.asarray(np.array([-128, -1, 0, 127], np.int8))
    assert to_numpy(xp.clip(i, -1000, 1000)).tolist() == [-128, -1, 0, 127]
    assert to_numpy(xp.clip(i, min=-5, max=1000)).tolist() == [-5, -1, 0, 127]
    u = xp.asarray(np.array([0, 7, 255], np.uint8))
    assert to_numpy(xp.clip(u, -3, 300)).tolist() == [0, 7, 255]
    assert to_numpy(xp.clip(u, 5, 6)).tolist() == [5, 6, 6]
    assert xp.clip(i, 1, 2).dtype == xp.int8
    f = xp.asarray(np.array([1.5, 2.5], np.float32))
    assert xp.clip(f, 2, 3).dtype == xp.float32  # int scalars with floats
    assert to_numpy(xp.clip(f, 2, 3)).tolist() == [2.0, 2.5]


def test_clip_with_a_nan_bound_gives_nan():
    x = xp.asarray(np.array([nan, -inf, -1.0, 0.5, 2.0, inf]))
    assert np.isnan(to_numpy(xp.clip(x, nan, 1.0))).all()
    assert np.isnan(to_numpy(xp.clip(x, None, nan))).all()
    assert np.isnan(to_numpy(xp.clip(x, xp.asarray(np.full(6, nan)), 1.0))).all()


def test_clip_errors_match_strict():
    cases = [("int8", 1.5, None), ("int8", True, None), ("bool", None, None), ("bool", True, None),
             ("float32", 1j, None), ("int16", None, 2.5), ("complex64", 1.0, None),
             ("float64", 1, 2.5), ("uint8", 1, 2)]
    for dtype, lo, hi in cases:
        expected = _outcome(lambda: strict.clip(_empty_strict(dtype), lo, hi))
        actual = _outcome(lambda: xp.clip(_empty_xp(dtype), lo, hi))
        assert actual == expected, (dtype, lo, hi)
    with pytest.raises(TypeError):
        xp.clip(np.zeros(3), 0, 1)
    with pytest.raises(TypeError):
        xp.clip(_empty_xp("float32"), "0")
    with pytest.raises(TypeError):
        xp.clip(_empty_xp("float32"), _empty_xp("int8"))


# ---------------------------------------------------------------- Python scalars

@pytest.mark.strict
def test_python_scalars_as_operands():
    x = xp.asarray(np.array([1, 2, 3], np.int16))
    assert to_numpy(xp.add(x, 1)).tolist() == [2, 3, 4]
    assert xp.add(x, 1).dtype == xp.int16
    assert to_numpy(xp.add(1, x)).tolist() == [2, 3, 4]
    assert to_numpy(xp.subtract(10, x)).tolist() == [9, 8, 7]
    assert to_numpy(xp.subtract(x, 10)).tolist() == [-9, -8, -7]
    assert to_numpy(xp.pow(2, x)).tolist() == [2, 4, 8]
    assert to_numpy(xp.floor_divide(7, x)).tolist() == [7, 3, 2]
    assert to_numpy(xp.maximum(x, 2)).tolist() == [2, 2, 3]
    assert to_numpy(xp.less(x, 2)).tolist() == [True, False, False]
    assert to_numpy(xp.bitwise_left_shift(1, x)).tolist() == [2, 4, 8]

    f = xp.asarray(np.array([0.5, 1.5, -2.0], np.float32))
    assert xp.multiply(f, 2.5).dtype == xp.float32
    np.testing.assert_array_equal(to_numpy(xp.multiply(f, 2.5)),
                                  np.array([0.5, 1.5, -2.0], np.float32) * np.float32(2.5))
    np.testing.assert_array_equal(to_numpy(xp.divide(1.0, f)),
                                  np.float32(1.0) / np.array([0.5, 1.5, -2.0], np.float32))
    np.testing.assert_array_max_ulp(
        to_numpy(xp.atan2(1.0, f)), np.arctan2(np.float32(1), np.array([0.5, 1.5, -2], np.float32)),
        maxulp=ULPS["float32"])
    assert to_numpy(xp.add(f, 1)).tolist() == [1.5, 2.5, -1.0]  # int scalar with a float array
    z = xp.add(f, 1j)
    assert z.dtype == xp.complex64
    np.testing.assert_array_equal(to_numpy(z),
                                  np.array([0.5 + 1j, 1.5 + 1j, -2 + 1j], np.complex64))
    assert xp.multiply(2j, f).dtype == xp.complex64
    assert xp.add(xp.asarray(np.ones(2)), 1j).dtype == xp.complex128
    h = make_array(logical([1.0, 2.0], "float16"), "float16")
    assert xp.add(h, 0.5).dtype == xp.float16
    assert to_numpy(xp.add(h, 0.5)).tolist() == [1.5, 2.5]
    assert xp.add(h, 1j).dtype == xp.complex64
    b = make_array(logical([1.0, 2.0], "bfloat16"), "bfloat16")
    assert xp.multiply(3.0, b).dtype == xp.bfloat16
    assert to_numpy(xp.multiply(3.0, b)).tolist() == [3.0, 6.0]

    t = xp.asarray(np.array([True, False]))
    assert to_numpy(xp.logical_and(t, True)).tolist() == [True, False]
    assert to_numpy(xp.bitwise_xor(True, t)).tolist() == [False, True]
    assert to_numpy(xp.equal(t, False)).tolist() == [False, True]

    with pytest.raises(TypeError):
        xp.add(x, 1.5)  # float scalar with an integer array
    with pytest.raises(TypeError):
        xp.add(1.5, x)
    with pytest.raises(TypeError):
        xp.add(x, True)  # bool scalar with an integer array
    with pytest.raises(TypeError):
        xp.add(t, 1)  # int scalar with a bool array
    with pytest.raises(TypeError):
        xp.atan2(f, 1j)  # a complex scalar where only real floating dtypes are allowed
    with pytest.raises(TypeError):
        xp.add(1, 2)  # two scalars
    with pytest.raises(TypeError):
        xp.add(1.0, 2.0)
    with pytest.raises(TypeError):
        xp.add(x, "1")
    with pytest.raises(TypeError):
        xp.add(x, None)
    with pytest.raises(TypeError):
        xp.add(np.ones(3), 1)  # a NumPy array is not a dlnumba array
    with pytest.raises(TypeError):
        xp.sin(1.0)


@pytest.mark.parametrize("dtype,value", [("int8", 128), ("int8", -129), ("uint8", -1),
                                         ("uint8", 256), ("int16", 2**15), ("uint32", 2**32),
                                         ("int64", 2**63), ("uint64", -1), ("uint64", 2**64),
                                         ("int32", 2**70)])
def test_python_int_scalar_out_of_range_overflows(dtype, value):
    x = _empty_xp(dtype, (2,))
    with pytest.raises(OverflowError):
        strict.add(_empty_strict(dtype, (2,)), value)
    with pytest.raises(OverflowError):
        xp.add(x, value)
    with pytest.raises(OverflowError):
        xp.multiply(value, x)


def test_python_scalars_in_range_at_the_limits():
    for dtype in INTS:
        info = np.iinfo(dtype)
        x = xp.asarray(np.array([0, 1], dtype))
        assert to_numpy(xp.add(x, int(info.max))).tolist()[0] == info.max
        assert to_numpy(xp.maximum(x, int(info.min))).tolist() == [0, 1]
        assert to_numpy(xp.equal(x, int(info.max))).tolist() == [info.max == 0, info.max == 1]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_scalar_float_values_are_rounded_to_the_array_dtype():
    """A Python float meets a float32 array as a float32 (the standard's rule), not as float64."""
    f = xp.asarray(np.array([0.1], np.float32))
    assert to_numpy(xp.equal(f, 0.1)).tolist() == [True]
    assert to_numpy(xp.subtract(f, 0.1)).tolist() == [0.0]
    h = xp.asarray(np.array([65504.0], np.float16))
    assert to_numpy(xp.add(h, 1e6)).tolist() == [inf]


def test_scalar_operands_keep_their_sign_and_dtype():
    """The 0-d arrays made for Python scalars are kept for reuse: a reused one must be the
    same value in the same dtype (+0 and -0, 1 and True and 1.0 are different operands)."""
    x = xp.asarray([1.0, -2.0])
    for _ in range(2):
        assert np.signbit(to_numpy(x * 0.0)).tolist() == [False, True]
        assert np.signbit(to_numpy(x * -0.0)).tolist() == [True, False]
        assert np.signbit(to_numpy(x * complex(-0.0, 0.0)).real).tolist() == [True, False]
    i = xp.asarray([3], dtype=xp.int8)
    for _ in range(2):
        assert (i + 1).dtype == xp.int8 and (i + True).dtype == xp.int8
        assert (i + 1.0).dtype == xp.float64 and (i + 1.0)[0] == 4.0
    assert xp.isnan(x + float("nan"))[0] and (x + float("inf"))[0] == float("inf")
