"""The elementwise functions, one row each (:data:`FUNCTIONS`), and their arithmetic.

A row holds everything about a function: its arity, the dtypes the standard allows, its result
dtype, its NumPy ufunc, its ``ndarray`` operator, and its scalar code. The scalar code is plain
Python that Numba compiles for either backend (``numba.njit``; device functions for CUDA), one
implementation per kind of computation dtype: ``FUNCTIONS[name].kinds[kind]`` with kind one of
``bool``, ``int``, ``float``, ``complex``, or the name of a dtype that needs its own (nextafter
steps in float16 and bfloat16, which are computed in float32). Helpers they share are
``register_jitable``: Numba compiles them into each.
Where C leaves a case undefined or traps (integer division by zero or of the minimum by -1,
shifts past the width), the result is NumPy's.
"""

import math
from typing import NamedTuple

import numpy as np
from .._numba import as_dtype, njit, overload, register_jitable, types

from . import vectorized_math


def like(value, x):
    """``value`` converted to the type of ``x`` (compiled only)."""


@overload(like)
def _like_overload(value, x):
    target = x
    return lambda value, x: target(value)


def bit_width(x):
    """The width in bits of the integer type of ``x`` (compiled only)."""


@overload(bit_width)
def _bit_width_overload(x):
    width = x.bitwidth
    return lambda x: width


def float_limits(x):
    """The epsilon, largest and smallest normal values of the float type of ``x`` (compiled
    only)."""


@overload(float_limits)
def _float_limits_overload(x):
    info = np.finfo(as_dtype(x))
    eps, largest, smallest = float(info.eps), float(info.max), float(info.smallest_normal)
    target = x
    return lambda x: (target(eps), target(largest), target(smallest))


def _shared(function):
    """``function`` made callable from every compiled scalar function, with NumPy's error
    model (a division by zero gives inf or NaN, never an exception)."""
    return register_jitable(error_model="numpy")(function)


def _add(x, y):
    return x + y


def _subtract(x, y):
    return x - y


def _multiply(x, y):
    return x * y


def _divide(x, y):
    return x / y


def _negative(x):
    return -x


def _positive(x):
    return x


def _square(x):
    return x * x


def _reciprocal(x):
    return like(1, x) / x


def _equal(x, y):
    return x == y


def _not_equal(x, y):
    return x != y


def _less(x, y):
    return x < y


def _less_equal(x, y):
    return x <= y


def _greater(x, y):
    return x > y


def _greater_equal(x, y):
    return x >= y


def _and(x, y):
    return x & y


def _or(x, y):
    return x | y


def _xor(x, y):
    return x ^ y


def _not(x):
    return not x


def _invert(x):
    return ~x


def _left_shift(x, y):
    if y < 0 or y >= bit_width(x):
        return like(0, x)
    return x << y


def _right_shift(x, y):
    if y < 0 or y >= bit_width(x):
        return like(-1, x) if x < 0 else like(0, x)
    return x >> y


def _floor_divide_int(x, y):
    if y == 0:
        return like(0, x)
    if y == -1:  # the minimum divided by -1 traps in hardware; NumPy wraps
        return -x
    return x // y


def _remainder_int(x, y):
    if y == 0 or y == -1:
        return like(0, x)
    return x % y


def _floor_divide_float(x, y):
    if y == 0 or not (math.isfinite(x) and math.isfinite(y)):
        return x / y  # the standard's floor(x / y): inf // 2 is inf, 1 // -inf is -0
    remainder = np.fmod(x, y)
    quotient = (x - remainder) / y
    if remainder != 0 and (y < 0) != (remainder < 0):
        quotient -= 1
    if quotient == 0:
        return like(math.copysign(0.0, x / y), x)
    floored = np.floor(quotient)  # math.floor would give an int64 in Numba
    if quotient - floored > 0.5:
        floored += 1
    return like(floored, x)


def _remainder_float(x, y):
    remainder = np.fmod(x, y)
    if y == 0:
        return like(remainder, x)
    if remainder != 0:
        if (y < 0) != (remainder < 0):
            remainder += y
        return like(remainder, x)
    return like(math.copysign(0.0, y), x)


def _pow_int(x, y):
    if y < 0:  # an integer result exists only for bases 1 and -1
        if x == 1:
            return like(1, x)
        if x == -1:
            return like(1 if y % 2 == 0 else -1, x)
        return like(0, x)
    result = like(1, x)
    base = x
    while y:
        if y & 1:
            result = like(result * base, x)
        base = like(base * base, x)
        y >>= 1
    return result


def _pow(x, y):
    if y == 2:  # NumPy's power loop squares by one product, which vectorizes where pow does not
        return x * x
    return x ** y


def _maximum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x >= y else y


def _minimum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x <= y else y


def _abs(x):
    return abs(x)


def _sign_real(x):
    if x > 0:
        return like(1, x)
    if x < 0:
        return like(-1, x)
    return like(0, x) if x == 0 else x


def _sign_complex(x):
    magnitude = abs(x)
    if magnitude == 0:
        return like(0, x)
    return like(complex(x.real / magnitude, x.imag / magnitude), x)


def _divide_complex(x, y):
    # Smith's algorithm, as NumPy divides; a zero divisor gives inf/NaN parts, never a trap.
    a, b, c, d = x.real, x.imag, y.real, y.imag
    if abs(c) >= abs(d):
        if c == 0 and d == 0:
            return like(complex(a / abs(c), b / abs(d)), x)
        ratio = d / c
        scale = 1.0 / (c + d * ratio)
        return like(complex((a + b * ratio) * scale, (b - a * ratio) * scale), x)
    ratio = c / d
    scale = 1.0 / (d + c * ratio)
    return like(complex((a * ratio + b) * scale, (b * ratio - a) * scale), x)


@_shared
def _reciprocal_complex(x):
    # Smith's algorithm with a numerator of 1, as NumPy's reciprocal (1/0j is nan+nanj there)
    c, d = x.real, x.imag
    if abs(c) >= abs(d):
        ratio = d / c
        scale = 1.0 / (c + d * ratio)
        return like(complex(scale, -ratio * scale), x)
    ratio = c / d
    scale = 1.0 / (d + c * ratio)
    return like(complex(ratio * scale, -scale), x)


def _isnan_real(x):
    return x != x


def _isinf_real(x):
    return math.isinf(x)


def _isfinite_real(x):
    return math.isfinite(x)


def _isnan_complex(x):
    return x.real != x.real or x.imag != x.imag


def _isinf_complex(x):
    return math.isinf(x.real) or math.isinf(x.imag)


def _isfinite_complex(x):
    return math.isfinite(x.real) and math.isfinite(x.imag)


def _false(x):
    return False


def _true(x):
    return True


def _signbit(x):
    return math.copysign(1.0, x) < 0


def _conj(x):
    return x.conjugate()


def _real(x):
    return x.real


def _imag(x):
    return x.imag


def _round_complex(x):
    return like(complex(np.rint(x.real), np.rint(x.imag)), x)


def _logaddexp(x, y):
    if x == y:  # also infinities of one sign
        return x + like(math.log(2.0), x)
    difference = x - y
    if difference > 0:
        return x + np.log1p(np.exp(-difference))
    if difference <= 0:
        return y + np.log1p(np.exp(difference))
    return difference  # NaN


def _nextafter_float16(x, y):
    return _next_in_format(x, y, 11, -13, like(65504.0, x))


def _nextafter_bfloat16(x, y):
    return _next_in_format(x, y, 8, -125, like(3.3895313892515355e38, x))


@_shared
def _next_in_format(x, y, digits, min_exponent, largest):
    """nextafter(x, y) in a narrower binary format whose values ``x`` and ``y`` hold exactly:
    ``digits`` significand bits, ``2**(min_exponent - 1)`` its smallest normal value."""
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    if x == 0:
        return math.copysign(math.ldexp(like(1, x), min_exponent - digits), y)
    if math.isinf(x):
        return math.copysign(largest, x)
    fraction, exponent = math.frexp(abs(x))
    exponent = max(exponent, min_exponent)
    step = math.ldexp(like(1, x), exponent - digits)
    if (y > x) == (x > 0):  # away from zero
        return math.copysign(abs(x) + step, x)
    if fraction == 0.5 and exponent > min_exponent:  # below a power of 2 the spacing halves
        step *= like(0.5, x)
    return math.copysign(abs(x) - step, x)


# ---- complex functions: the special cases of C99 Annex G (the standard's), computed in the
# precision of the value as NumPy does, with FreeBSD msun's algorithms (s_csqrt.c, catrig.c,
# s_csinh.c, s_ctanh.c): no overflow inside where the result is finite.

@_shared
def _log_parts(x, y):
    """The real and imaginary parts of log(x + iy): log|z| neither overflowing nor losing its
    precision near |z| = 1."""
    angle = math.atan2(y, x)
    if math.isinf(x) or math.isinf(y):
        return like(math.inf, x), angle
    if x != x or y != y:
        return x + y, x + y
    big, small = max(abs(x), abs(y)), min(abs(x), abs(y))
    one, half = like(1, x), like(0.5, x)
    eps, largest, smallest = float_limits(x)
    if half <= big < like(2, x):  # |z| near 1: log1p(|z|**2 - 1), |z|**2 never formed
        return half * math.log1p((big - one) * (big + one) + small * small), angle
    if big > largest * half:  # |z| may overflow: halve both parts
        return math.log(math.hypot(big * half, small * half)) + like(math.log(2.0), x), angle
    if big < smallest:  # subnormal parts: |z| would lose digits; scale them by 1/eps**2
        scale = one / (eps * eps)
        return (math.log(math.hypot(big * scale, small * scale)) + like(2, x) * math.log(eps),
                angle)
    return math.log(math.hypot(big, small)), angle


def _log_complex(x):
    real, imag = _log_parts(x.real, x.imag)
    return like(complex(real, imag), x)


def _log2_complex(x):
    real, imag = _log_parts(x.real, x.imag)
    scale = like(math.log(2.0), real)
    return like(complex(real / scale, imag / scale), x)


def _log10_complex(x):
    real, imag = _log_parts(x.real, x.imag)
    scale = like(math.log(10.0), real)
    return like(complex(real / scale, imag / scale), x)


def _expm1_complex(x):
    a, b = x.real, x.imag
    if not (math.isfinite(a) and math.isfinite(b)):  # exp's special cases, less 1
        exponential = np.exp(x)
        return like(complex(exponential.real - like(1, a), exponential.imag), x)
    if b == 0:  # expm1(+-0 + i0) is +0 + i0, as exp(z) - 1 gives
        return like(complex(np.expm1(a) if a != 0 else like(0, a), b), x)
    # exp(a)cos(b) - 1 written so that it keeps its precision near 0
    half = np.sin(b * like(0.5, b))
    return like(complex(np.expm1(a) * np.cos(b) - like(2, b) * half * half,
                        np.exp(a) * np.sin(b)), x)


def _pow_complex(x, y):
    # NumPy's cases: y = 0, x = 0, and small integer exponents by repeated multiplication
    if y == 0:
        return like(1, x)
    if x == 0:
        return like(0, x) if y.real > 0 else like(complex(math.nan, math.nan), x)
    if y.imag == 0 and abs(y.real) < 100 and y.real == np.floor(y.real):
        n = int(y.real)
        if n == 1:
            return x
        if n == 2:
            return x * x
        if n == 3:
            return x * (x * x)
        result, power, k = like(1, x), x, abs(n)
        while True:
            if k & 1:
                result = result * power
            k >>= 1
            if k == 0:
                break
            power = power * power
        return _reciprocal_complex(result) if n < 0 else result
    real, imag = _log_parts(x.real, x.imag)
    exponent = y * like(complex(real, imag), x)
    if not (math.isfinite(exponent.real) and math.isfinite(exponent.imag)):
        return np.exp(exponent)
    real, imag = _scaled_exp_parts(exponent.real, exponent.imag, like(1, real))
    return like(complex(real, imag), x)


@_shared
def _scaled_exp_parts(x, y, factor):
    """``factor * exp(x + iy)`` as (real, imaginary) parts for finite x and y, exp(x) not
    overflowing where the result does not (FreeBSD's __ldexp_cexp)."""
    if x > math.log(float_limits(x)[1]) - like(1, x):  # exp(x) may overflow: exp(x/2) twice
        h = math.exp(x * like(0.5, x))
        return h * (factor * math.cos(y)) * h, h * (factor * math.sin(y)) * h
    exponential = math.exp(x)
    return exponential * (factor * math.cos(y)), exponential * (factor * math.sin(y))


def _sqrt_complex(z):
    a, b = z.real, z.imag
    if a == 0 and b == 0:
        return like(complex(0, b), z)
    if math.isinf(b):
        return like(complex(math.inf, b), z)
    if a != a:
        return like(complex(a, a), z)
    if math.isinf(a):  # sqrt(-inf + iy) = 0 + inf i, sqrt(inf + iy) = inf + 0i; y NaN: NaN
        if a < 0:
            return like(complex(abs(b - b), math.copysign(a, b)), z)
        return like(complex(a, math.copysign(b - b, b)), z)
    eps, largest, smallest = float_limits(a)
    scale, quarter = like(1, a), like(0.25, a)
    if max(abs(a), abs(b)) >= largest / like(1 + math.sqrt(2.0), a):  # a + |z| overflows
        if abs(a) * quarter >= smallest:  # a part that small is lost beside the other anyway
            a *= quarter
        if abs(b) * quarter >= smallest:
            b *= quarter
        scale = like(2, a)
    elif max(abs(a), abs(b)) < smallest:  # both subnormal: scale up to keep their bits
        a, b, scale = a / (eps * eps), b / (eps * eps), eps
    # Algorithm 312, CACM vol. 10, Oct. 1967
    t = math.sqrt((abs(a) + math.hypot(a, b)) * like(0.5, a))
    if a >= 0:
        return like(complex(t * scale, b / (t + t) * scale), z)
    return like(complex(abs(b) / (t + t) * scale, math.copysign(t, b) * scale), z)


@_shared
def _half_difference(a, b, hypot_a_b):
    """(hypot(a, b) - b) / 2 without cancellation (catrig.c's f)."""
    half = like(0.5, a)
    if b < 0:
        return (hypot_a_b - b) * half
    if b == 0:
        return a * half
    return a * a / (hypot_a_b + b) * half


@_shared
def _hard_work(x, y):
    """catrig.c's do_hard_work for 0 <= x, y < 1/epsilon, Hull, Fairgrieve and Tang's algorithm:
    (Re asinh(x + iy), whether B = y/A is usable, B, sqrt(A*A - y*y), y), the last two
    rescaled alike where the square root would underflow."""
    eps, _, smallest = float_limits(x)
    one, half, zero = like(1, x), like(0.5, x), like(0, x)
    r, s = math.hypot(x, y + one), math.hypot(x, y - one)  # |z + i|, |z - i|
    a = max((r + s) * half, one)  # mathematically >= 1
    if a >= like(10, x):
        real = math.log(a + math.sqrt(a * a - one))
    elif y == one and x < eps * eps * like(1 / 128, x):
        real = math.sqrt(x)
    elif x >= eps * abs(y - one):
        a_minus_1 = _half_difference(x, one + y, r) + _half_difference(x, one - y, s)
        real = math.log1p(a_minus_1 + math.sqrt(a_minus_1 * (a + one)))
    elif y < one:
        real = x / math.sqrt((one - y) * (one + y))
    else:
        real = math.log1p((y - one) + math.sqrt((y - one) * (y + one)))
    if y < like(4, x) * math.sqrt(smallest):  # y / a may underflow
        return real, False, zero, a * (like(2, x) / eps), y * (like(2, x) / eps)
    b = y / a
    if b <= like(0.6417, x):
        return real, True, b, zero, y
    if y == one and x < eps * like(1 / 128, x):
        return real, False, b, math.sqrt(x) * math.sqrt((a + y) * half), y
    if x >= eps * abs(y - one):
        a_minus_y = _half_difference(x, y + one, r) + _half_difference(x, y - one, s)
        return real, False, b, math.sqrt(a_minus_y * (a + y)), y
    if y > one:
        scale = like(4, x) / eps / eps
        return real, False, b, x * scale * y / math.sqrt((y + one) * (y - one)), y * scale
    return real, False, b, math.sqrt((one - y) * (one + y)), y


@_shared
def _asinh_parts(x, y):
    """asinh(x + iy) as (real, imaginary) parts (catrig.c's casinh)."""
    if x != x or y != y:
        if math.isinf(x):
            return x, y + y
        if math.isinf(y):
            return y, x + x
        if y == 0:
            return x + x, y
        return x + y, x + y
    ax, ay = abs(x), abs(y)
    eps = float_limits(x)[0]
    if ax > like(1, x) / eps or ay > like(1, x) / eps:  # asinh(z) = log(2z) to the last bit
        real, imag = _log_parts(ax, ay)
        return math.copysign(real + like(math.log(2.0), x), x), math.copysign(imag, y)
    if ax < math.sqrt(like(6, x) * eps) * like(0.25, x) and \
            ay < math.sqrt(like(6, x) * eps) * like(0.25, x):  # asinh(z) = z to the last bit
        return x, y
    real, usable, b, root, new_y = _hard_work(ax, ay)
    imag = math.asin(b) if usable else math.atan2(new_y, root)
    return math.copysign(real, x), math.copysign(imag, y)


@_shared
def _acos_parts(x, y):
    """acos(x + iy) as (real, imaginary) parts (catrig.c's cacos)."""
    if x != x or y != y:
        if math.isinf(x):
            return y + y, like(-math.inf, x)
        if math.isinf(y):
            return x + x, -y
        if x == 0:
            return like(math.pi / 2, x), y + y
        return x + y, x + y
    ax, ay = abs(x), abs(y)
    eps = float_limits(x)[0]
    if ax > like(1, x) / eps or ay > like(1, x) / eps:  # acos(z) = -i log(2z) to the last bit
        real, imag = _log_parts(x, y)
        return abs(imag), math.copysign(real + like(math.log(2.0), x), -y)
    if x == 1 and y == 0:
        return like(0, x), -y
    if ax < math.sqrt(like(6, x) * eps) * like(0.25, x) and \
            ay < math.sqrt(like(6, x) * eps) * like(0.25, x):  # acos(z) = pi/2 - z
        return like(math.pi / 2, x) - x, -y
    imag, usable, b, root, new_x = _hard_work(ay, ax)
    real = math.acos(math.copysign(b, x)) if usable else \
        math.atan2(root, math.copysign(new_x, x))
    return real, math.copysign(imag, -y)


def _acos_complex(z):
    real, imag = _acos_parts(z.real, z.imag)
    return like(complex(real, imag), z)


def _acosh_complex(z):
    # acosh(z) = +-i acos(z), the sign making the real part >= 0
    real, imag = _acos_parts(z.real, z.imag)
    if imag != imag:  # acosh(+-0 + i NaN) = NaN + i pi/2, and NaN + i NaN
        return like(complex(imag, real), z)
    if real != real:  # acosh(NaN + i inf), acosh(+-inf + i NaN) = inf + i NaN
        return like(complex(abs(imag), real), z)
    return like(complex(abs(imag), math.copysign(real, z.imag)), z)


def _asinh_complex(z):
    real, imag = _asinh_parts(z.real, z.imag)
    return like(complex(real, imag), z)


def _asin_complex(z):
    # asin(z) = -i asinh(iz), with the parts swapped instead
    real, imag = _asinh_parts(z.imag, z.real)
    return like(complex(imag, real), z)


@_shared
def _exp_dominates(x):
    """Where cosh(x) and |sinh(x)| equal exp(|x|)/2 in the precision of ``x`` (about 22 in
    float64, 9.5 in float32)."""
    return like(-0.6, x) * math.log(float_limits(x)[0])


def _sinh_complex(z):
    x, y = z.real, z.imag
    if math.isfinite(x) and math.isfinite(y):
        if y == 0:
            return like(complex(math.sinh(x), y), z)
        if abs(x) < _exp_dominates(x):
            return like(complex(math.sinh(x) * math.cos(y), math.cosh(x) * math.sin(y)), z)
        real, imag = _scaled_exp_parts(abs(x), y, like(0.5, x))  # exp(|x|)/2 * cis(y)
        return like(complex(math.copysign(like(1, x), x) * real, imag), z)
    if x == 0:  # sinh(+-0 + i inf or NaN) = +-0 + i NaN, the zero's sign x's, as in NumPy
        return like(complex(x, y - y), z)
    if y == 0:  # sinh(+-inf or NaN + i 0) = +-inf or NaN + i 0
        return like(complex(x, y), z)
    if math.isfinite(x):
        return like(complex(y - y, x * (y - y)), z)
    if math.isinf(x):
        if not math.isfinite(y):
            return like(complex(x * x, x * (y - y)), z)
        return like(complex(x * math.cos(y), math.inf * math.sin(y)), z)
    return like(complex((x * x) * (y - y), (x + x) * (y - y)), z)


def _cosh_complex(z):
    x, y = z.real, z.imag
    if math.isfinite(x) and math.isfinite(y):
        if y == 0:  # cosh(x + i0) = cosh(x) + i sinh(x) 0, the zero signed, where sinh overflows
            return like(complex(math.cosh(x), math.copysign(like(1, x), x) * y), z)
        if abs(x) < _exp_dominates(x):
            return like(complex(math.cosh(x) * math.cos(y), math.sinh(x) * math.sin(y)), z)
        real, imag = _scaled_exp_parts(abs(x), y, like(0.5, x))  # exp(|x|)/2 * cis(y)
        return like(complex(real, math.copysign(like(1, x), x) * imag), z)
    if x == 0:  # cosh(+-0 + i inf or NaN) = NaN + i0
        return like(complex(y - y, x), z)
    if math.isfinite(x):  # cosh(x + i inf or NaN) = NaN + i NaN
        return like(complex(y - y, x * (y - y)), z)
    if math.isinf(x):
        if y == 0:  # cosh(+-inf + i0) = inf + i0, the zero signed
            return like(complex(x * x, math.copysign(like(1, x), x) * y), z)
        if math.isfinite(y):  # cosh(+-inf + iy) = inf cis(+-y)
            return like(complex(math.inf * math.cos(y), x * math.sin(y)), z)
        return like(complex(x * x, x * (y - y)), z)  # inf + i NaN
    if y == 0:  # cosh(NaN + i0) = NaN + i0
        return like(complex(x, y), z)
    return like(complex(x, x), z)


def _atanh_complex(z):
    x, y = z.real, z.imag
    if y != y:  # atanh(+-0 or +-inf + i NaN) = +-0 + i NaN, else NaN + i NaN
        if x == 0 or math.isinf(x):
            return like(complex(math.copysign(like(0, x), x), y), z)
        return like(complex(y, y), z)
    if x != x:  # atanh(NaN + i inf) = 0 + i pi/2 (the real part's sign is free), else NaN + i NaN
        if math.isinf(y):
            return like(complex(like(0, x), math.copysign(like(math.pi / 2, x), y)), z)
        return like(complex(x, x), z)
    return np.arctanh(z)


def _tanh_complex(z):
    x, y = z.real, z.imag
    one = like(1, x)
    if x != x:  # tanh(NaN + i 0) = NaN + i 0
        return like(complex(x, y if y == 0 else x * y), z)
    if math.isinf(x):  # tanh(+-inf + iy) = +-1 + i0, the zero signed as y
        return like(complex(math.copysign(one, x), math.copysign(like(0, x), y)), z)
    if not math.isfinite(y):  # tanh(+-0 + i inf or NaN) = +-0 + i NaN, else NaN + i NaN
        return like(complex(y - y if x != 0 else x, y - y), z)
    if abs(x) >= _exp_dominates(x):  # tanh = +-1 + 4i sin(y) cos(y) exp(-2|x|), no overflow
        exp_minus = math.exp(-abs(x))
        return like(complex(math.copysign(one, x),
                            like(4, x) * math.sin(y) * math.cos(y) * exp_minus * exp_minus), z)
    # Kahan's algorithm
    t = math.tan(y)
    beta = one + t * t  # 1 / cos(y)**2
    s = math.sinh(x)
    rho = math.sqrt(one + s * s)  # cosh(x)
    denominator = one + beta * s * s
    return like(complex(beta * rho * s / denominator, t / denominator), z)


def _log1p_complex(x):
    return np.log(like(complex(1 + x.real, x.imag), x))


def _exp_real(x):
    return vectorized_math.exp(x)


def _log_real(x):
    return vectorized_math.log(x)


def _sin_real(x):
    return vectorized_math.sin(x)


def _cos_real(x):
    return vectorized_math.cos(x)


def _sin_common_real(x):
    return vectorized_math.sin_common(x)


def _cos_common_real(x):
    return vectorized_math.cos_common(x)


def _outside_common_real(x):
    return vectorized_math.outside_common(x)


def _exp_complex(z):
    x, y = z.real, z.imag
    if y == 0:  # exp(x + 0i) = exp(x) + 0i, also where exp(x) overflows
        return like(complex(math.exp(x), y), z)
    if math.isfinite(x) and math.isfinite(y):
        real, imag = _scaled_exp_parts(x, y, like(1, x))
        return like(complex(real, imag), z)
    return np.exp(z)  # Numba's special cases for infinities and NaN are the standard's


def _numpy(name):
    """A scalar function that calls ``np.<name>`` (Numba compiles it per type)."""
    function = getattr(np, name)
    return {1: lambda x: function(x), 2: lambda x, y: function(x, y)}[
        2 if name in ("arctan2", "hypot", "copysign", "nextafter") else 1]


def _unary_math(numpy_name, complex_implementation=None):
    implementation = _numpy(numpy_name)
    return {"float": implementation, "complex": complex_implementation or implementation}


class Elementwise(NamedTuple):
    """One elementwise function of the standard: everything dlnumba knows about it.

    Both backends compile ``kinds`` (the CPU engine and the CUDA kernels), so every function
    runs on every device.
    """

    arity: int
    category: str  #: the dtypes the standard allows: a key of ``_dtypes.CATEGORIES``
    result: str  #: the result dtype: "same" (the promoted), "bool", or "real" (of a complex)
    kinds: dict  #: the scalar code per computation kind: bool, int, float, complex, or a dtype
    ufunc: str | None  #: the NumPy ufunc it matches (None: none), whose loops NumPy habits use
    operator: str | None = None  #: the ndarray operator, ``"add"`` for ``__add__`` (and the
    #: reflected and in-place ``__radd__``, ``__iadd__`` of arithmetic operators)
    copies: tuple = ()  #: the kinds whose result is a copy of the input (``ceil`` of an int)
    common: dict = {}  #: faster scalar code per kind for most arguments, which the vectorized
    #: loops run: (code, outside) with ``outside(x)`` true where ``kinds``' code must run instead


FUNCTIONS = {
    "add": Elementwise(2, "numeric", "same", {"int": _add, "float": _add, "complex": _add},
                       ufunc="add", operator="add"),
    "subtract": Elementwise(2, "numeric", "same",
                            {"int": _subtract, "float": _subtract, "complex": _subtract},
                            ufunc="subtract", operator="sub"),
    "multiply": Elementwise(2, "numeric", "same",
                            {"int": _multiply, "float": _multiply, "complex": _multiply},
                            ufunc="multiply", operator="mul"),
    "divide": Elementwise(2, "floating-point", "same",
                          {"float": _divide, "complex": _divide_complex},
                          ufunc="divide", operator="truediv"),
    "floor_divide": Elementwise(2, "real numeric", "same",
                                {"int": _floor_divide_int, "float": _floor_divide_float},
                                ufunc="floor_divide", operator="floordiv"),
    "remainder": Elementwise(2, "real numeric", "same",
                             {"int": _remainder_int, "float": _remainder_float},
                             ufunc="remainder", operator="mod"),
    "pow": Elementwise(2, "numeric", "same",
                       {"int": _pow_int, "float": _pow, "complex": _pow_complex},
                       ufunc="power", operator="pow"),
    "negative": Elementwise(1, "numeric", "same",
                            {"int": _negative, "float": _negative, "complex": _negative},
                            ufunc="negative", operator="neg"),
    "positive": Elementwise(1, "numeric", "same",
                            {"int": _positive, "float": _positive, "complex": _positive},
                            ufunc="positive", operator="pos"),
    "square": Elementwise(1, "numeric", "same",
                          {"int": _square, "float": _square, "complex": _square},
                          ufunc="square"),
    "reciprocal": Elementwise(1, "floating-point", "same",
                              {"float": _reciprocal, "complex": _reciprocal_complex},
                              ufunc="reciprocal"),
    "abs": Elementwise(1, "numeric", "real", {"int": _abs, "float": _abs, "complex": _abs},
                       ufunc="abs", operator="abs"),
    "sign": Elementwise(1, "numeric", "same",
                        {"int": _sign_real, "float": _sign_real, "complex": _sign_complex},
                        ufunc="sign"),
    "equal": Elementwise(2, "all", "bool", {k: _equal for k in ("bool", "int", "float", "complex")},
                         ufunc="equal", operator="eq"),
    "not_equal": Elementwise(2, "all", "bool",
                             {k: _not_equal for k in ("bool", "int", "float", "complex")},
                             ufunc="not_equal", operator="ne"),
    "less": Elementwise(2, "real numeric", "bool", {"int": _less, "float": _less},
                        ufunc="less", operator="lt"),
    "less_equal": Elementwise(2, "real numeric", "bool", {"int": _less_equal, "float": _less_equal},
                              ufunc="less_equal", operator="le"),
    "greater": Elementwise(2, "real numeric", "bool", {"int": _greater, "float": _greater},
                           ufunc="greater", operator="gt"),
    "greater_equal": Elementwise(2, "real numeric", "bool",
                                 {"int": _greater_equal, "float": _greater_equal},
                                 ufunc="greater_equal", operator="ge"),
    "maximum": Elementwise(2, "real numeric", "same", {"int": _maximum, "float": _maximum},
                           ufunc="maximum"),
    "minimum": Elementwise(2, "real numeric", "same", {"int": _minimum, "float": _minimum},
                           ufunc="minimum"),
    "logical_and": Elementwise(2, "boolean", "same", {"bool": _and}, ufunc="logical_and"),
    "logical_or": Elementwise(2, "boolean", "same", {"bool": _or}, ufunc="logical_or"),
    "logical_xor": Elementwise(2, "boolean", "same", {"bool": _xor}, ufunc="logical_xor"),
    "logical_not": Elementwise(1, "boolean", "same", {"bool": _not}, ufunc="logical_not"),
    "bitwise_and": Elementwise(2, "integer or boolean", "same", {"bool": _and, "int": _and},
                               ufunc="bitwise_and", operator="and"),
    "bitwise_or": Elementwise(2, "integer or boolean", "same", {"bool": _or, "int": _or},
                              ufunc="bitwise_or", operator="or"),
    "bitwise_xor": Elementwise(2, "integer or boolean", "same", {"bool": _xor, "int": _xor},
                               ufunc="bitwise_xor", operator="xor"),
    "bitwise_invert": Elementwise(1, "integer or boolean", "same", {"bool": _not, "int": _invert},
                                  ufunc="invert", operator="invert"),
    "bitwise_left_shift": Elementwise(2, "integer", "same", {"int": _left_shift},
                                      ufunc="left_shift", operator="lshift"),
    "bitwise_right_shift": Elementwise(2, "integer", "same", {"int": _right_shift},
                                       ufunc="right_shift", operator="rshift"),
    "isnan": Elementwise(1, "numeric", "bool",
                         {"int": _false, "float": _isnan_real, "complex": _isnan_complex},
                         ufunc="isnan"),
    "isinf": Elementwise(1, "numeric", "bool",
                         {"int": _false, "float": _isinf_real, "complex": _isinf_complex},
                         ufunc="isinf"),
    "isfinite": Elementwise(1, "numeric", "bool",
                            {"int": _true, "float": _isfinite_real, "complex": _isfinite_complex},
                            ufunc="isfinite"),
    "signbit": Elementwise(1, "real floating-point", "bool", {"float": _signbit}, ufunc="signbit"),
    "conj": Elementwise(1, "numeric", "same", {"complex": _conj},
                        ufunc="conjugate", copies=("int", "float")),
    "real": Elementwise(1, "numeric", "real", {"complex": _real},
                        ufunc=None, copies=("int", "float")),
    "imag": Elementwise(1, "complex floating-point", "real", {"complex": _imag}, ufunc=None),
    "round": Elementwise(1, "numeric", "same", {"float": _numpy("rint"), "complex": _round_complex},
                         ufunc="rint", copies=("int",)),
    "ceil": Elementwise(1, "real numeric", "same", {"float": _numpy("ceil")},
                        ufunc="ceil", copies=("int",)),
    "floor": Elementwise(1, "real numeric", "same", {"float": _numpy("floor")},
                         ufunc="floor", copies=("int",)),
    "trunc": Elementwise(1, "real numeric", "same", {"float": _numpy("trunc")},
                         ufunc="trunc", copies=("int",)),
    "sqrt": Elementwise(1, "floating-point", "same", _unary_math("sqrt", _sqrt_complex),
                        ufunc="sqrt"),
    "exp": Elementwise(1, "floating-point", "same", {"float": _exp_real, "complex": _exp_complex},
                       ufunc="exp"),
    "expm1": Elementwise(1, "floating-point", "same", _unary_math("expm1", _expm1_complex),
                         ufunc="expm1"),
    "log": Elementwise(1, "floating-point", "same", {"float": _log_real, "complex": _log_complex},
                       ufunc="log"),
    "log1p": Elementwise(1, "floating-point", "same", _unary_math("log1p", _log1p_complex),
                         ufunc="log1p"),
    "log2": Elementwise(1, "floating-point", "same", _unary_math("log2", _log2_complex),
                        ufunc="log2"),
    "log10": Elementwise(1, "floating-point", "same", _unary_math("log10", _log10_complex),
                         ufunc="log10"),
    "sin": Elementwise(1, "floating-point", "same",
                       {"float": _sin_real, "complex": _numpy("sin")}, ufunc="sin",
                       common={"float": (_sin_common_real, _outside_common_real)}),
    "cos": Elementwise(1, "floating-point", "same",
                       {"float": _cos_real, "complex": _numpy("cos")}, ufunc="cos",
                       common={"float": (_cos_common_real, _outside_common_real)}),
    "tan": Elementwise(1, "floating-point", "same", _unary_math("tan"), ufunc="tan"),
    "asin": Elementwise(1, "floating-point", "same", _unary_math("arcsin", _asin_complex),
                        ufunc="arcsin"),
    "acos": Elementwise(1, "floating-point", "same", _unary_math("arccos", _acos_complex),
                        ufunc="arccos"),
    "atan": Elementwise(1, "floating-point", "same", _unary_math("arctan"), ufunc="arctan"),
    "sinh": Elementwise(1, "floating-point", "same", _unary_math("sinh", _sinh_complex),
                        ufunc="sinh"),
    "cosh": Elementwise(1, "floating-point", "same", _unary_math("cosh", _cosh_complex),
                        ufunc="cosh"),
    "tanh": Elementwise(1, "floating-point", "same", _unary_math("tanh", _tanh_complex),
                        ufunc="tanh"),
    "asinh": Elementwise(1, "floating-point", "same", _unary_math("arcsinh", _asinh_complex),
                         ufunc="arcsinh"),
    "acosh": Elementwise(1, "floating-point", "same", _unary_math("arccosh", _acosh_complex),
                         ufunc="arccosh"),
    "atanh": Elementwise(1, "floating-point", "same", _unary_math("arctanh", _atanh_complex),
                         ufunc="arctanh"),
    "atan2": Elementwise(2, "real floating-point", "same", {"float": _numpy("arctan2")},
                         ufunc="arctan2"),
    "hypot": Elementwise(2, "real floating-point", "same", {"float": _numpy("hypot")},
                         ufunc="hypot"),
    "copysign": Elementwise(2, "real floating-point", "same", {"float": _numpy("copysign")},
                            ufunc="copysign"),
    "nextafter": Elementwise(2, "real floating-point", "same",
                             {"float": _numpy("nextafter"), "float16": _nextafter_float16,
                  "bfloat16": _nextafter_bfloat16},
                             ufunc="nextafter"),
    "logaddexp": Elementwise(2, "real floating-point", "same", {"float": _logaddexp},
                             ufunc="logaddexp"),
}

_COMPILED = {}


def implementation(tag, part=0, inline=False):
    """The compiled scalar operation an operation tag (:func:`.tags.op_tag`) selects; ``part``
    1 and 2: its common code and ``outside`` (:attr:`Elementwise.common`), the operation
    itself and False where it has none. ``inline``: written into its callers by Numba, not
    compiled on its own."""
    name, kind = next(iter(tag.dtype.fields)).split(":")
    function = _COMPILED.get((name, kind, part, inline))
    if function is None:
        row = FUNCTIONS[name]
        code = row.common[kind][part - 1] if part and kind in row.common else (
            _false if part == 2 else row.kinds[kind])
        function = _COMPILED[(name, kind, part, inline)] = njit(
            code, error_model="numpy", inline="always" if inline else "never")
    return function


def apply(op, *operands):
    """Apply the operation the tag ``op`` names to one or two operands (compiled only)."""


@overload(apply, jit_options={"error_model": "numpy"})
def _apply_overload(op, *operands):
    function = implementation(op)
    if len(operands) == 1:
        return lambda op, *operands: function(operands[0])
    return lambda op, *operands: function(operands[0], operands[1])


def apply_common(op, x):
    """The unary operation ``op`` of ``x`` by its common code, right where
    :func:`outside_common` is false (compiled only)."""


@overload(apply_common, jit_options={"error_model": "numpy"})
def _apply_common_overload(op, x):
    function = implementation(op, 1)
    return lambda op, x: function(x)


def outside_common(op, x):
    """Whether ``x`` is outside what the common code of the unary operation ``op`` takes
    (compiled only)."""


@overload(outside_common, jit_options={"error_model": "numpy"})
def _outside_common_overload(op, x):
    function = implementation(op, 2)
    return lambda op, x: function(x)


def _divide_by_count(value, count):
    """``value / count`` as NumPy divides (compiled only)."""


@overload(_divide_by_count, jit_options={"nogil": True})
def _divide_by_count_overload(value, count):
    if isinstance(value, types.Complex):
        def divide(value, count):  # NumPy's (Smith's) complex division by count + 0j
            scale = 1.0 / count
            return complex((value.real + value.imag * 0.0) * scale,
                           (value.imag - value.real * 0.0) * scale)
        return divide
    return lambda value, count: value / count


def _as_type_of(i, like):
    """The integer ``i`` as a value of ``like``'s type: float or complex (compiled only)."""


@overload(_as_type_of, jit_options={"nogil": True})
def _as_type_of_overload(i, like):
    if isinstance(like, types.Complex):
        return lambda i, like: complex(float(i), 0.0)
    return lambda i, like: float(i)


@njit(nogil=True)
def linspace_value(i, num, start, stop, div, endpoint):
    """The ``i``-th of ``num`` values from ``start`` in steps of ``(stop - start) / div``, with
    NumPy's arithmetic; the last is ``stop`` exactly when ``endpoint``."""
    if endpoint and num > 1 and i == num - 1:
        return stop
    delta = stop - start
    step = _divide_by_count(delta, div) if div > 0 else delta
    value = _as_type_of(i, start)
    # NumPy multiplies by the step, or (no step, or one that underflows to 0) divides by div
    # and multiplies by delta.
    if div <= 0 or step == 0:
        value = (_divide_by_count(value, div) if div > 0 else value) * delta
    else:
        value = value * step
    return value + start
