"""The ndarray operators against NumPy, PyTorch and array-api-strict.

- Every arithmetic, bitwise and comparison operator, forward, reflected (Python scalars) and
  in place, gives the values of NumPy's operators (bfloat16: PyTorch's) and the result of the
  elementwise function it stands for; unary ``-``, ``+``, ``~``, ``abs()``.
- Result dtypes and errors for every pair of the standard's dtypes and every Python scalar kind,
  forward, reflected and in place, against array-api-strict (on size-0 arrays: no kernels).
- In place: the memory is written (a PyTorch tensor over it sees the change), the object stays
  the same, the dtype and shape may not change, read-only arrays refuse, overlapping operands
  give NumPy's result.
- Operands of other types give NotImplemented (so Python raises TypeError); arrays are
  unhashable.
- float16 arithmetic equals NumPy's float16 arithmetic bit for bit; bfloat16 equals PyTorch's.
"""

import math
import operator
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp

from helpers import INTS, STANDARD, data_address, to_numpy
from standard_reference import floor_divide_standard

strict = pytest.importorskip("array_api_strict")
torch = pytest.importorskip("torch")

inf, nan = math.inf, math.nan

# symbol: (operator, in-place operator, elementwise function, dunder)
BINARY = {
    "+": (operator.add, operator.iadd, "add", "add"),
    "-": (operator.sub, operator.isub, "subtract", "sub"),
    "*": (operator.mul, operator.imul, "multiply", "mul"),
    "/": (operator.truediv, operator.itruediv, "divide", "truediv"),
    "//": (operator.floordiv, operator.ifloordiv, "floor_divide", "floordiv"),
    "%": (operator.mod, operator.imod, "remainder", "mod"),
    "**": (operator.pow, operator.ipow, "pow", "pow"),
    "&": (operator.and_, operator.iand, "bitwise_and", "and"),
    "|": (operator.or_, operator.ior, "bitwise_or", "or"),
    "^": (operator.xor, operator.ixor, "bitwise_xor", "xor"),
    "<<": (operator.lshift, operator.ilshift, "bitwise_left_shift", "lshift"),
    ">>": (operator.rshift, operator.irshift, "bitwise_right_shift", "rshift"),
}
COMPARISONS = {
    "==": (operator.eq, "equal"), "!=": (operator.ne, "not_equal"), "<": (operator.lt, "less"),
    "<=": (operator.le, "less_equal"), ">": (operator.gt, "greater"),
    ">=": (operator.ge, "greater_equal"),
}
# The dtypes each operator is checked with, on values (a representative set per kind).
VALUE_DTYPES = {
    "+": ["int8", "uint8", "int64", "float16", "bfloat16", "float32", "float64", "complex64"],
    "-": ["int8", "uint16", "int32", "float16", "bfloat16", "float32", "complex128"],
    "*": ["int8", "uint8", "int64", "float16", "bfloat16", "float64", "complex64"],
    "/": ["float16", "bfloat16", "float32", "float64", "complex128"],
    "//": ["int8", "uint16", "int64", "float32", "float64"],
    "%": ["int8", "uint8", "int32", "float32", "float64"],
    "**": ["int8", "uint8", "int64", "float32", "float64"],
    "&": ["bool", "int8", "uint32", "int64"],
    "|": ["bool", "int16", "uint8"],
    "^": ["bool", "int32", "uint64"],
    "<<": ["int8", "uint16", "int64"],
    ">>": ["int8", "uint8", "int64"],
    "==": ["bool", "int8", "uint64", "float16", "bfloat16", "float32", "complex64"],
    "!=": ["bool", "int16", "float64", "complex128"],
    "<": ["int8", "uint32", "float16", "bfloat16", "float32"],
    "<=": ["int64", "uint8", "float64"],
    ">": ["int16", "float32", "bfloat16"],
    ">=": ["uint16", "float64", "float16"],
}
# (operator, dtype) -> the bug that breaks its value tests (none left: // on floats, once broken,
# is fixed)
KNOWN_BUGS = {}
# Operators compared with NumPy within a few ULP (libm pow differs in the last bit).
INEXACT = {"**"}


def xd(name):
    return getattr(xp, name)


def sd(name):
    return getattr(strict, name)


def bf16(values):
    """A bfloat16 PyTorch tensor of ``values`` (rounded to nearest even)."""
    return torch.from_numpy(np.array(values, dtype=np.float32)).to(torch.bfloat16)


def to_xp(values, dtype):
    """A dlnumba array of NumPy ``values`` in ``dtype`` (bfloat16 through PyTorch)."""
    if dtype == "bfloat16":
        return xp.from_dlpack(bf16(values))
    return xp.asarray(np.array(values, dtype=dtype))


def edge_values(dtype):
    if dtype == "bool":
        return np.array([False, True])
    if dtype in INTS:
        info = np.iinfo(dtype)
        bits = 8 * np.dtype(dtype).itemsize
        values = {info.min, info.min + 1, 0, 1, 2, 3, 7, bits - 1, bits, info.max - 1, info.max}
        if info.min < 0:
            values |= {-1, -2, -7, -bits}
        return np.array(sorted(values), dtype=dtype)
    parts = [nan, inf, -inf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -3.0, 7.25, 1e-3, 1e4,
             3e38]
    if dtype.startswith("complex"):
        few = [0.0, -0.0, 1.0, -1.5, 2.5, inf, nan]
        return np.array([complex(a, b) for a in few for b in few], dtype=dtype)
    with np.errstate(over="ignore"):
        values = np.array(parts, dtype=np.float64)
        if dtype == "bfloat16":
            return bf16(values).float().numpy()
        return values.astype(dtype)


def numpy_result(op, a, b, dtype):
    """NumPy's operator on NumPy operands (bfloat16: PyTorch's on bfloat16 tensors), ``//``
    with the standard's infinities."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "bfloat16":
            ta = bf16(a) if isinstance(a, np.ndarray) else a
            tb = bf16(b) if isinstance(b, np.ndarray) else b
            result = op(ta, tb)
            return result.float().numpy() if result.dtype == torch.bfloat16 else result.numpy()
        if op in (operator.floordiv, operator.ifloordiv):
            return np.asarray(floor_divide_standard(a, b))
        return np.asarray(op(a, b))


def assert_same(actual, expected, exact=True, ulps=4, zero_sign=True, label=""):
    """Bit-level agreement of values (NaN positions, signed zeros); ULP for inexact ones."""
    expected = np.broadcast_to(np.asarray(expected), actual.shape)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=label)
        return
    if actual.dtype.kind == "c":
        for part in ("real", "imag"):
            assert_same(np.ascontiguousarray(getattr(actual, part)),
                        np.ascontiguousarray(getattr(expected, part)), exact, ulps, zero_sign,
                        f"{label} ({part})")
        return
    expected = expected.astype(actual.dtype)
    nan_a, nan_e = np.isnan(actual), np.isnan(expected)
    np.testing.assert_array_equal(nan_a, nan_e, err_msg=f"{label}: NaN positions")
    a, e = actual[~nan_e], expected[~nan_e]
    if exact:
        np.testing.assert_array_equal(a, e, err_msg=label)
        if zero_sign:
            np.testing.assert_array_equal(np.signbit(a), np.signbit(e),
                                          err_msg=f"{label}: signs of zeros")
    else:
        finite = np.isfinite(e)
        np.testing.assert_array_equal(a[~finite], e[~finite], err_msg=label)
        np.testing.assert_array_max_ulp(a[finite], e[finite], maxulp=ulps)


def _value_cases():
    cases = []
    for symbol, dtypes in VALUE_DTYPES.items():
        for dtype in dtypes:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[(symbol, dtype)])] \
                if (symbol, dtype) in KNOWN_BUGS else []
            cases.append(pytest.param(symbol, dtype, id=f"{symbol}-{dtype}", marks=marks))
    return cases


def _function_and_operator(symbol):
    if symbol in BINARY:
        op, _, name, _ = BINARY[symbol]
    else:
        op, name = COMPARISONS[symbol]
    return op, name


def _operands(symbol, dtype):
    values = edge_values(dtype)
    a, b = values[:, None], values[None, :]
    if symbol == "**" and dtype in INTS:
        b = np.arange(0, 70, dtype=dtype)[None, :]  # NumPy refuses negative integer powers
    return a, b


@pytest.mark.parametrize("symbol,dtype", _value_cases())
def test_binary_operators_match_numpy(symbol, dtype):
    op, name = _function_and_operator(symbol)
    a, b = _operands(symbol, dtype)
    x, y = to_xp(a, dtype), to_xp(b, dtype)
    result = op(x, y)
    assert isinstance(result, xp.ndarray)
    assert result.dtype == (xp.bool if symbol in COMPARISONS else xd(dtype))
    assert result.shape == (a.shape[0], b.shape[1])
    # the operator is the elementwise function, bit for bit
    assert_same(to_numpy(result), to_numpy(getattr(xp, name)(x, y)), label=f"{symbol} vs {name}")
    expected = numpy_result(op, a, b, dtype)
    finite = True
    if dtype.startswith("complex") and symbol in ("/", "**", "*"):
        # complex products and quotients with infinities or NaN are the implementation's choice
        finite = np.isfinite(a) & np.isfinite(b)
        actual, expected = to_numpy(result)[finite], np.broadcast_to(expected, finite.shape)[finite]
        if symbol == "/":
            np.testing.assert_allclose(actual, expected, rtol=1e-15)
            return
    else:
        actual = to_numpy(result)
    assert_same(actual, expected, exact=symbol not in INEXACT,
                label=f"{symbol} {dtype}")


SCALARS = {"int": 3, "negint": -2, "float": 2.5, "bool": True, "complex": 1.5 - 2j}


def _reflected_cases():
    cases = []
    for symbol, dtypes in VALUE_DTYPES.items():
        for dtype in dtypes:
            for kind, scalar in SCALARS.items():
                if dtype == "bool" and kind != "bool" or dtype != "bool" and kind == "bool":
                    continue
                if dtype in INTS and kind in ("float", "complex"):
                    continue
                if dtype.startswith("uint") and kind == "negint":
                    continue
                if kind == "complex" and not dtype.startswith("complex"):
                    continue
                if symbol in ("<<", ">>") and kind == "negint":
                    continue
                marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[(symbol, dtype)])] \
                    if (symbol, dtype) in KNOWN_BUGS else []
                cases.append(pytest.param(symbol, dtype, scalar,
                                          id=f"{symbol}-{dtype}-{kind}", marks=marks))
    return cases


@pytest.mark.parametrize("symbol,dtype,scalar", _reflected_cases())
def test_operators_with_python_scalars_forward_and_reflected(symbol, dtype, scalar):
    op, name = _function_and_operator(symbol)
    values = edge_values(dtype)
    if symbol == "**" and dtype in INTS:
        values = values[values >= 0] if dtype.startswith("int") else values
        values = values[values < 64]
    x = to_xp(values, dtype)
    for forward in (True, False):
        if symbol == "**" and dtype in INTS and forward and scalar < 0:
            continue  # NumPy refuses negative integer powers (dlnumba's rule: test_elementwise)
        result = op(x, scalar) if forward else op(scalar, x)
        assert result.dtype == (xp.bool if symbol in COMPARISONS else xd(dtype))
        function_result = (getattr(xp, name)(x, scalar) if forward
                           else getattr(xp, name)(scalar, x))
        assert_same(to_numpy(result), to_numpy(function_result), label=f"{symbol} vs {name}")
        if dtype == "bfloat16":
            s = bf16(scalar)  # a bfloat16 0-d tensor: the scalar in the array's dtype
            expected = numpy_result(op, values, s, dtype) if forward else \
                numpy_result(op, s, values, dtype)
        else:
            # NumPy 2 also takes a Python scalar in the array's dtype (NEP 50)
            expected = numpy_result(op, values, scalar, dtype) if forward else \
                numpy_result(op, scalar, values, dtype)
        actual = to_numpy(result)
        if dtype.startswith("complex") and symbol in ("/", "**", "*"):
            finite = np.isfinite(values)
            np.testing.assert_allclose(actual[finite], expected[finite], rtol=1e-6)
            continue
        assert_same(actual, expected, exact=symbol not in INEXACT,
                    label=f"{symbol} {dtype} {scalar!r} {'forward' if forward else 'reflected'}")


def test_reflected_forms_examples():
    x = xp.asarray(np.array([1, 2, 3], np.int32))
    assert to_numpy(2 - x).tolist() == [1, 0, -1]
    assert to_numpy(2 ** x).tolist() == [2, 4, 8]
    assert to_numpy(7 // x).tolist() == [7, 3, 2]
    assert to_numpy(7 % x).tolist() == [0, 1, 1]
    assert to_numpy(1 << x).tolist() == [2, 4, 8]
    assert to_numpy(64 >> x).tolist() == [32, 16, 8]
    assert to_numpy(6 & x).tolist() == [0, 2, 2]
    assert to_numpy(4 | x).tolist() == [5, 6, 7]
    assert to_numpy(1 ^ x).tolist() == [0, 3, 2]
    assert to_numpy(10 * x).tolist() == [10, 20, 30]
    assert to_numpy(1 + x).tolist() == [2, 3, 4]
    f = xp.asarray(np.array([0.5, 2.0], np.float64))
    assert to_numpy(1 / f).tolist() == [2.0, 0.5]
    assert to_numpy(2.0 ** f).tolist() == [2.0 ** 0.5, 4.0]
    assert to_numpy(2 < x).tolist() == [False, False, True]  # int.__lt__ defers to x.__gt__
    assert to_numpy(2 == x).tolist() == [False, True, False]
    assert to_numpy(3 >= x).tolist() == [True, True, True]
    z = xp.asarray(np.array([1 + 1j], np.complex64))
    assert to_numpy(1j * z).tolist() == [-1 + 1j]
    assert (1j * z).dtype == xp.complex64


# ---------------------------------------------------------------- unary operators

UNARY = {"-": (operator.neg, "negative"), "+": (operator.pos, "positive"),
         "~": (operator.invert, "bitwise_invert"), "abs": (abs, "abs")}


@pytest.mark.strict
@pytest.mark.parametrize("symbol", sorted(UNARY))
@pytest.mark.parametrize("dtype", STANDARD + ["float16", "bfloat16"])
def test_unary_operators(symbol, dtype):
    op, name = UNARY[symbol]
    x_empty = xp.empty((0,), dtype=xd(dtype))
    if dtype in STANDARD:
        strict_error = None
        try:
            op(strict.empty((0,), dtype=sd(dtype)))
        except TypeError:
            strict_error = TypeError
        if strict_error:
            with pytest.raises(TypeError):
                op(x_empty)
            return
    elif symbol == "~":
        with pytest.raises(TypeError):
            op(x_empty)
        return
    values = edge_values(dtype)
    x = to_xp(values, dtype)
    result = op(x)
    assert result is not x
    assert_same(to_numpy(result), to_numpy(getattr(xp, name)(x)), label=f"{symbol} vs {name}")
    expected = numpy_result(lambda a, _: op(a), values, None, dtype) if dtype != "bfloat16" \
        else op(bf16(values)).float().numpy()
    if dtype == "bool" and symbol == "~":
        expected = ~values
    # |z| of a complex z: NumPy's SIMD loop and libm's hypot differ in the last bit
    exact = not (symbol == "abs" and dtype.startswith("complex"))
    assert_same(to_numpy(result), expected, exact=exact, label=f"{symbol}{dtype}")
    expected_dtype = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype) \
        if symbol == "abs" else dtype
    assert result.dtype == xd(expected_dtype)


def test_unary_operator_examples():
    i8 = xp.asarray(np.array([-128, -1, 0, 127], np.int8))
    assert to_numpy(-i8).tolist() == [-128, 1, 0, -127]  # wraps, as NumPy
    assert to_numpy(abs(i8)).tolist() == [-128, 1, 0, 127]
    assert to_numpy(~i8).tolist() == [127, 0, -1, -128]
    u8 = xp.asarray(np.array([0, 1, 255], np.uint8))
    assert to_numpy(-u8).tolist() == [0, 255, 1]
    assert to_numpy(~u8).tolist() == [255, 254, 0]
    b = xp.asarray(np.array([True, False]))
    assert to_numpy(~b).tolist() == [False, True]
    z = xp.asarray(np.array([3 - 4j], np.complex128))
    assert abs(z).dtype == xp.float64 and to_numpy(abs(z)).tolist() == [5.0]
    f = xp.asarray(np.array([0.0, -0.0]))
    assert np.signbit(to_numpy(-f)).tolist() == [True, False]
    assert np.signbit(to_numpy(+f)).tolist() == [False, True]


# ---------------------------------------------------------------- dtypes and errors vs strict

def _outcome(function):
    try:
        result = function()
    except (TypeError, ValueError, OverflowError) as error:
        return type(error).__name__
    if result is NotImplemented:
        return "NotImplemented"
    return str(result.dtype).split(".")[-1]


def _inplace_outcome(op, make):
    """The outcome of ``x op= y`` (the dtype x keeps, or the error)."""
    def run():
        x, y = make()
        before = x
        x = op(x, y)
        assert x is before
        return x
    return _outcome(run)


@pytest.mark.strict
@pytest.mark.parametrize("symbol", sorted(BINARY) + sorted(COMPARISONS))
def test_operator_dtypes_match_strict_for_every_pair(symbol):
    op, name = _function_and_operator(symbol)
    iop = BINARY[symbol][1] if symbol in BINARY else None
    for a in STANDARD:
        for b in STANDARD:
            expected = _outcome(lambda: op(strict.empty((0,), dtype=sd(a)),
                                           strict.empty((0,), dtype=sd(b))))
            actual = _outcome(lambda: op(xp.empty((0,), dtype=xd(a)),
                                         xp.empty((0,), dtype=xd(b))))
            assert actual == expected, (symbol, a, b)
            if iop is None:
                continue
            expected = _inplace_outcome(iop, lambda: (strict.empty((0,), dtype=sd(a)),
                                                      strict.empty((0,), dtype=sd(b))))
            actual = _inplace_outcome(iop, lambda: (xp.empty((0,), dtype=xd(a)),
                                                    xp.empty((0,), dtype=xd(b))))
            assert actual == expected, (f"{symbol}=", a, b)


@pytest.mark.strict
@pytest.mark.parametrize("symbol", sorted(BINARY) + sorted(COMPARISONS))
def test_operator_dtypes_with_python_scalars_match_strict(symbol):
    op, name = _function_and_operator(symbol)
    iop = BINARY[symbol][1] if symbol in BINARY else None
    for dtype in STANDARD:
        for scalar in (True, 0, 3, 2.5, -0.0, 1j):
            if symbol in ("<", "<=", ">", ">=") and type(scalar) is complex:
                continue  # array-api-strict lets NumPy order complex numbers; tested below
            for form in ("forward", "reflected", "inplace"):
                if form == "inplace" and iop is None:
                    continue

                def run(module):
                    x = module.empty((0,), dtype=getattr(module, dtype))
                    if form == "forward":
                        return op(x, scalar)
                    if form == "reflected":
                        return op(scalar, x)
                    result = iop(x, scalar)
                    assert result is x
                    return result

                expected = _outcome(lambda: run(strict))
                actual = _outcome(lambda: run(xp))
                assert actual == expected, (symbol, dtype, scalar, form)
    if symbol in ("<", "<=", ">", ">="):  # complex numbers have no order
        for dtype in ("float32", "complex64"):
            with pytest.raises(TypeError):
                op(xp.empty((0,), dtype=xd(dtype)), 1j)
            with pytest.raises(TypeError):
                op(1j, xp.empty((0,), dtype=xd(dtype)))


# ---------------------------------------------------------------- in place

INPLACE_DTYPES = {"+": "float32", "-": "int16", "*": "complex64", "/": "float64",
                  "//": "int32", "%": "int8", "**": "uint8", "&": "int64", "|": "uint16",
                  "^": "bool", "<<": "int32", ">>": "int64"}


@pytest.mark.parametrize("symbol", sorted(BINARY))
def test_inplace_operators_write_the_memory(symbol):
    op, iop, name, dunder = BINARY[symbol]
    dtype = INPLACE_DTYPES[symbol]
    if dtype == "bool":
        base = np.array([[True, False, True], [False, False, True]])
        other = np.array([True, True, False])
    else:
        base = np.array([[5, 6, 7], [8, 9, 10]], dtype=dtype)
        other = np.array([1, 2, 3], dtype=dtype)
    tensor = torch.from_numpy(base.copy())
    x = xp.from_dlpack(tensor)
    address = tensor.data_ptr()
    y = xp.asarray(other)
    expected = numpy_result(op, base, other, dtype)
    same = x
    x = iop(x, y)  # x op= y
    assert x is same
    assert data_address(x) == address
    assert x.dtype == xd(dtype) and x.shape == (2, 3)
    assert_same(to_numpy(x), expected, label=f"{symbol}=")
    assert_same(tensor.numpy(), expected, label=f"{symbol}= seen by torch")
    assert tensor.data_ptr() == address
    # with a Python scalar
    scalar = True if dtype == "bool" else 2
    tensor2 = torch.from_numpy(base.copy())
    x2 = xp.from_dlpack(tensor2)
    x2 = iop(x2, scalar)
    assert_same(tensor2.numpy(), numpy_result(op, base, scalar, dtype),
                label=f"{symbol}= scalar seen by torch")


@pytest.mark.parametrize("layout", ["transposed", "every other column", "reversed rows"])
def test_inplace_scalar_operators_on_views_write_the_viewed_memory(layout):
    """``x op= scalar`` runs in place on a dense view (transposed) and on a strided one."""
    base = np.arange(24.0).reshape(4, 6)
    view = {"transposed": lambda a: a.T, "every other column": lambda a: a[:, ::2],
            "reversed rows": lambda a: a[::-1]}[layout]
    tensor = torch.from_numpy(base.copy())
    x = view(xp.from_dlpack(tensor))
    same = x
    x /= 4.0
    x -= 1
    assert x is same
    expected = base.copy()
    view(expected)[...] = view(base) / 4.0 - 1
    np.testing.assert_array_equal(tensor.numpy(), expected)


def test_inplace_examples_shared_with_torch():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = xp.from_dlpack(t)
    x += 1
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    x *= xp.asarray(np.array([1.0, 10.0, 100.0], np.float32))  # broadcast right-hand side
    assert t.tolist() == [[1, 20, 300], [4, 50, 600]]
    x[0] -= 1  # a view, in place, then written back to itself
    assert t.tolist() == [[0, 19, 299], [4, 50, 600]]
    v = x[:, ::2]
    v /= 2.0
    assert t.tolist() == [[0, 19, 149.5], [2, 50, 300]]
    xt = x.T
    xt -= xp.asarray(np.array([1.0, 1.0], np.float32))
    assert t.tolist() == [[-1, 18, 148.5], [1, 49, 299]]
    # bfloat16: rounded as PyTorch rounds
    b = torch.tensor([1.0, 3.0, 100.0], dtype=torch.bfloat16)
    expected = b + torch.tensor(0.3, dtype=torch.bfloat16)
    xb = xp.from_dlpack(b)
    xb += 0.3
    assert torch.equal(b, expected)
    # 0-d
    s = torch.tensor(5, dtype=torch.int64)
    xs = xp.from_dlpack(s)
    xs **= 2
    assert s.item() == 25


@pytest.mark.strict
def test_inplace_refuses_to_change_dtype():
    cases = [
        ("int8", lambda: xp.asarray(np.ones(3, np.int16))),   # promotes to int16
        ("int32", lambda: xp.asarray(np.ones(3, np.float32))),  # integer with float
        ("int32", lambda: 1.5),                                   # float scalar with integers
        ("float32", lambda: xp.asarray(np.ones(3, np.float64))),
        ("float32", lambda: 1j),                                  # would become complex64
        ("float16", lambda: xp.from_dlpack(torch.ones(3, dtype=torch.bfloat16))),
        ("uint8", lambda: xp.asarray(np.ones(3, np.int8))),
        ("bool", lambda: 1),
    ]
    for dtype, other in cases:
        base = np.arange(3).astype(dtype)
        x = xp.asarray(base.copy())
        for symbol in ("+", "-", "*"):
            if dtype == "bool":
                continue
            with pytest.raises(TypeError):
                BINARY[symbol][1](x, other())
            assert to_numpy(x).tolist() == base.tolist(), "a failed in-place operation wrote"
        with pytest.raises(TypeError):
            x ^= 1.5
    i = xp.asarray(np.arange(3, dtype=np.int64))
    with pytest.raises(TypeError):
        i /= 2  # true division of integers
    with pytest.raises(TypeError):
        i <<= 1.0  # a float shift count
    b = xp.asarray(np.array([True]))
    with pytest.raises(TypeError):
        b += True  # add takes numbers only
    with pytest.raises(TypeError):
        b &= 1
    # widening from the right-hand side is fine when the result keeps x's dtype
    w = xp.asarray(np.array([1, 2], np.int16))
    w += xp.asarray(np.array([3, 4], np.int8))
    assert w.dtype == xp.int16 and to_numpy(w).tolist() == [4, 6]
    d = xp.asarray(np.array([1.0, 2.0], np.float64))
    d *= xp.asarray(np.array([0.5, 0.25], np.float32))
    assert d.dtype == xp.float64 and to_numpy(d).tolist() == [0.5, 0.5]
    c = xp.asarray(np.array([1 + 1j], np.complex64))
    c -= xp.asarray(np.array([1.0], np.float32))
    assert c.dtype == xp.complex64 and to_numpy(c).tolist() == [1j]
    f = xp.asarray(np.array([1.0], np.float32))
    f += xp.from_dlpack(torch.tensor([0.5], dtype=torch.float16))
    assert f.dtype == xp.float32 and to_numpy(f).tolist() == [1.5]


def test_inplace_refuses_to_change_shape():
    x = xp.asarray(np.arange(3, dtype=np.int32))
    with pytest.raises((TypeError, ValueError)):
        x += xp.asarray(np.ones((2, 3), np.int32))
    with pytest.raises((TypeError, ValueError)):
        x += xp.asarray(np.ones((4,), np.int32))
    zero_d = xp.asarray(np.array(1.0))
    with pytest.raises((TypeError, ValueError)):
        zero_d *= xp.asarray(np.ones(2))
    assert to_numpy(x).tolist() == [0, 1, 2]
    # the other way round broadcasts the right-hand side: fine
    m = xp.asarray(np.zeros((2, 3), np.int32))
    m += xp.asarray(np.array([1, 2, 3], np.int32))
    m += xp.asarray(np.array([[10], [20]], np.int32))
    m -= xp.asarray(np.array(1, np.int32))
    assert to_numpy(m).tolist() == [[10, 11, 12], [20, 21, 22]]
    # array-api-strict refuses too
    with pytest.raises((TypeError, ValueError)):
        s = strict.asarray([0, 1, 2], dtype=strict.int32)
        s += strict.ones((2, 3), dtype=strict.int32)


@pytest.mark.parametrize("symbol", sorted(BINARY))
def test_inplace_on_read_only_arrays_raises(symbol):
    op, iop, name, dunder = BINARY[symbol]
    dtype = INPLACE_DTYPES[symbol]
    base = np.ones(4, dtype=dtype)
    base.flags.writeable = False
    x = xp.from_dlpack(base)
    with pytest.raises(ValueError):
        iop(x, x)
    with pytest.raises(ValueError):
        iop(x, True if dtype == "bool" else 1)
    assert np.array_equal(base, np.ones(4, dtype=dtype))
    # a broadcast NumPy view (zero strides) is read-only too
    view = xp.asarray(np.broadcast_to(np.ones(1, dtype=dtype), (3, 4)))
    with pytest.raises(ValueError):
        iop(view, True if dtype == "bool" else 1)
    # the forward operator on read-only operands works
    assert op(x, x).shape == (4,)


def test_inplace_with_overlapping_operands_gives_numpy_result():
    def both(setup, action):
        a = setup()
        x = xp.asarray(a.copy())
        assert x._readonly is False
        expected = a.copy()
        action(expected)
        action(x)
        np.testing.assert_array_equal(to_numpy(x), expected)

    def shift_add(v):
        v[1:] += v[:-1]

    def shift_add_back(v):
        v[:-1] += v[1:]

    def reverse_add(v):
        v[::-1] += v

    def interleave_mul(v):
        v[::2] *= v[1::2]

    def self_sub(v):
        v -= v

    both(lambda: np.arange(10, dtype=np.int64), shift_add)
    both(lambda: np.arange(10, dtype=np.int64), shift_add_back)
    both(lambda: np.arange(10, dtype=np.float64), reverse_add)
    both(lambda: np.arange(10, dtype=np.int32), interleave_mul)
    both(lambda: np.arange(10, dtype=np.float32), self_sub)

    def transpose_add(m):
        m += m.T

    def row_shift(m):
        m[1:, :] -= m[:-1, ::-1]

    both(lambda: np.arange(16, dtype=np.float64).reshape(4, 4), transpose_add)
    both(lambda: np.arange(20, dtype=np.int16).reshape(4, 5), row_shift)

    # through PyTorch memory as well
    t = torch.arange(8, dtype=torch.int64)
    x = xp.from_dlpack(t)
    x[1:] += x[:-1]
    a = np.arange(8)
    a[1:] += a[:-1]
    assert t.tolist() == a.tolist()


# ---------------------------------------------------------------- other operand types

def test_unsupported_operand_types_give_notimplemented():
    x = xp.asarray(np.array([1.0, 2.0]))
    for symbol, (op, iop, _name, dunder) in BINARY.items():
        for other in ("a", None, [1.0, 2.0], (1,), object(), b"1"):
            assert getattr(x, f"__{dunder}__")(other) is NotImplemented, (symbol, other)
            if isinstance(other, bytes):  # bytes would concatenate the array's buffer
                with pytest.raises(TypeError, match="unsupported operand"):
                    getattr(x, f"__r{dunder}__")(other)
            else:
                assert getattr(x, f"__r{dunder}__")(other) is NotImplemented, (symbol, other)
            assert getattr(x, f"__i{dunder}__")(other) is NotImplemented, (symbol, other)
            with pytest.raises(TypeError):
                op(x, other)
            if not (symbol == "%" and isinstance(other, (str, bytes))):  # "a" % x formats a string
                with pytest.raises(TypeError):
                    op(other, x)
            y = x
            with pytest.raises(TypeError):
                iop(y, other)
        # reflected forms take Python scalars only (an array on the left is the forward form)
        assert getattr(x, f"__r{dunder}__")(x) is NotImplemented
    for symbol, (op, _name) in COMPARISONS.items():
        for other in ("a", [1.0, 2.0], object()):
            assert getattr(x, f"__{op.__name__.strip('_')}__")(other) is NotImplemented
        if symbol not in ("==", "!="):
            for other in ("a", None, [1.0, 2.0]):
                with pytest.raises(TypeError):
                    op(x, other)


def test_comparison_with_none_and_other_objects_is_consistent():
    """array-api-strict raises TypeError for ``x == None``; dlnumba's __eq__ returns
    NotImplemented, so Python answers with identity: False for ==, True for !=. Either way the
    answer must be consistent: a clear TypeError, or False/True, never an array."""
    x = xp.asarray(np.array([1, 2]))
    with pytest.raises(TypeError):
        strict.asarray([1, 2]) == None  # noqa: E711
    for other in (None, "a", object(), [1, 2]):
        try:
            equal = x == other
        except TypeError:
            with pytest.raises(TypeError):
                x != other  # noqa: B015
            continue
        assert equal is False
        assert (x != other) is True


@pytest.mark.strict
def test_comparisons_return_bool_arrays():
    x = xp.asarray(np.array([1.0, nan, -0.0], np.float32))
    y = xp.asarray(np.array([1.0, nan, 0.0], np.float32))
    for symbol, (op, _name) in COMPARISONS.items():
        result = op(x, y)
        assert isinstance(result, xp.ndarray) and result.dtype == xp.bool
        assert to_numpy(result).tolist() == op(to_numpy(x), to_numpy(y)).tolist(), symbol
    assert to_numpy(x == y).tolist() == [True, False, True]
    assert to_numpy(x != y).tolist() == [False, True, False]
    i = xp.asarray(np.array([1, 2, 3], np.int8))
    assert (i == 2).dtype == xp.bool
    with pytest.raises(TypeError):
        i == 2.5  # noqa: B015  (a float scalar with an integer array)
    with pytest.raises(TypeError):
        i < xp.asarray(np.array([1.0]))  # noqa: B015
    z = xp.asarray(np.array([1 + 1j]))
    with pytest.raises(TypeError):
        z < z  # noqa: B015  (complex numbers have no order)
    assert to_numpy(z == 1 + 1j).tolist() == [True]


def test_arrays_are_unhashable():
    x = xp.asarray(np.array([1, 2]))
    with pytest.raises(TypeError):
        hash(x)
    with pytest.raises(TypeError):
        {x}
    with pytest.raises(TypeError):
        {x: 1}
    assert xp.ndarray.__hash__ is None


def test_bool_of_comparison_follows_0d_rules():
    x = xp.asarray(np.array(3))
    assert bool(x == 3) is True
    assert bool(x > 5) is False
    with pytest.raises((TypeError, ValueError)):
        bool(xp.asarray(np.array([1, 2])) == 1)


# ---------------------------------------------------------------- float16 and bfloat16 arithmetic

def _half_examples():
    return max(10, settings().max_examples // 3)


HALF_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


@settings(max_examples=_half_examples())
@given(data=st.data())
def test_float16_arithmetic_equals_numpy_float16(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5))
    a = data.draw(hnp.arrays(np.float16, shapes.input_shapes[0]), label="a")
    b = data.draw(hnp.arrays(np.float16, shapes.input_shapes[1]), label="b")
    x, y = xp.asarray(a), xp.asarray(b[..., ::-1] if b.ndim else b)
    b = b[..., ::-1] if b.ndim else b
    with np.errstate(all="ignore"):
        for symbol, op in HALF_OPS.items():
            result = op(x, y)
            assert result.dtype == xp.float16
            assert_same(to_numpy(result), op(a, b), label=f"float16 {symbol}")
        scalar = data.draw(st.floats(-1e5, 1e5, allow_nan=False), label="scalar")
        for symbol, op in HALF_OPS.items():
            assert_same(to_numpy(op(x, scalar)), op(a, scalar), label=f"float16 {symbol} scalar")
            assert_same(to_numpy(op(scalar, x)), op(scalar, a), label=f"scalar {symbol} float16")


@settings(max_examples=_half_examples())
@given(data=st.data())
def test_bfloat16_arithmetic_equals_torch_bfloat16(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5))
    bits = [data.draw(hnp.arrays(np.uint16, s, elements=st.integers(0, 0xFFFF)), label=f"x{k}")
            for k, s in enumerate(shapes.input_shapes)]
    ta, tb = (torch.from_numpy(b.astype(np.int16)).view(torch.bfloat16) for b in bits)
    x, y = xp.from_dlpack(ta), xp.from_dlpack(tb)
    for symbol, op in HALF_OPS.items():
        result = op(x, y)
        assert result.dtype == xp.bfloat16
        assert_same(to_numpy(result), op(ta, tb).float().numpy(), label=f"bfloat16 {symbol}")
    scalar = float(torch.tensor(data.draw(st.floats(-1e30, 1e30), label="scalar"),
                                dtype=torch.bfloat16))
    ts = torch.tensor(scalar, dtype=torch.bfloat16)
    for symbol, op in HALF_OPS.items():
        assert_same(to_numpy(op(x, scalar)), op(ta, ts).float().numpy(),
                    label=f"bfloat16 {symbol} scalar")
        assert_same(to_numpy(op(scalar, x)), op(ts, ta).float().numpy(),
                    label=f"scalar {symbol} bfloat16")


@pytest.mark.strict
def test_half_mixed_arithmetic_promotes_to_float32():
    h = xp.asarray(np.array([1.5, 2.0], np.float16))
    b = xp.from_dlpack(torch.tensor([0.25, 3.0], dtype=torch.bfloat16))
    f = xp.asarray(np.array([1.0, 1.0], np.float32))
    assert (h + b).dtype == xp.float32 and to_numpy(h + b).tolist() == [1.75, 5.0]
    assert (b * f).dtype == xp.float32 and to_numpy(b * f).tolist() == [0.25, 3.0]
    assert (h - f).dtype == xp.float32
    assert (h / xp.asarray(np.array([2.0]))).dtype == xp.float64
    assert (b + xp.asarray(np.array([1j], np.complex64))).dtype == xp.complex64
    with pytest.raises(TypeError):
        h + xp.asarray(np.array([1], np.int8))
