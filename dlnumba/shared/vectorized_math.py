"""Real functions written for the vectorizer: straight-line arithmetic, no calls, no tables.

``np.exp`` inside a Numba loop calls libm once per element; these inline into the elementwise
loop, which LLVM then turns into SIMD code. They compile for the CPU and CUDA targets alike.
"""

import numpy as np
from llvmlite import ir
from .._numba import intrinsic, overload, register_jitable, types

from .conversions import reinterpret

_LOG2_E = 1.4426950408889634


@intrinsic
def fused_multiply_add(typingctx, a, b, c):
    """``a * b + c`` rounded once (LLVM's ``fma``), in the type of ``a``."""

    def codegen(context, builder, signature, args):
        value_type = args[0].type
        function = builder.module.declare_intrinsic(
            "llvm.fma", [value_type], ir.FunctionType(value_type, [value_type] * 3))
        return builder.call(function, args)

    return a(a, a, a), codegen


def _extremum(larger):
    """IEEE 754-2019 ``maximum`` (``larger``) or ``minimum``: LLVM's intrinsic on the CPU; on
    CUDA, whose NVVM compiler lacks it, the same bits from comparisons: NaN if either is NaN,
    and of two equal values their bits ANDed (ORed), so +0 wins a maximum and -0 a minimum."""
    @intrinsic
    def function(typingctx, a, b):
        def codegen(context, builder, signature, args):
            x, y = args
            if context.target_name != "cuda":
                declared = builder.module.declare_intrinsic(
                    "llvm.maximum" if larger else "llvm.minimum", [x.type],
                    ir.FunctionType(x.type, [x.type] * 2))
                return builder.call(declared, args)
            bits = ir.IntType(32 if x.type == ir.FloatType() else 64)
            x_bits, y_bits = builder.bitcast(x, bits), builder.bitcast(y, bits)
            tie = builder.bitcast((builder.and_ if larger else builder.or_)(x_bits, y_bits),
                                  x.type)
            pick_x = builder.fcmp_ordered(">" if larger else "<", x, y)
            pick_y = builder.fcmp_ordered("<" if larger else ">", x, y)
            ordered = builder.select(pick_x, x, builder.select(pick_y, y, tie))
            return builder.select(builder.fcmp_unordered("uno", x, y), builder.fadd(x, y),
                                  ordered)

        return a(a, a), codegen

    return function


maximum = _extremum(larger=True)
maximum.__doc__ = "The larger float (IEEE 754-2019 ``maximum``: NaN if either is NaN, -0 < +0)."
minimum = _extremum(larger=False)
minimum.__doc__ = "The smaller float (IEEE 754-2019 ``minimum``: NaN if either is NaN, -0 < +0)."


def exp(x):
    """``e**x`` for float32 or float64 ``x``, within one ULP (compiled only)."""


@overload(exp)  # not inline="always", which numba-cuda mistypes; LLVM inlines it all the same
def _exp_overload(x):
    if x == types.float32:
        return _exp_float32
    if x == types.float64:
        return _exp_float64


# Both work the same way: x = k*ln(2) + r with |r| <= ln(2)/2 (Cody-Waite, ln(2) split in two
# so that k*high is exact); e**r from its Taylor series, evaluated with fused multiply-adds; the
# result scaled by 2**k as two powers of two, so that a subnormal result is rounded once and
# the clamped range never overflows an exponent field. Adding 1.5 * 2**(mantissa bits) rounds
# x/ln(2) to the integer k, found in the low bits.

def _exp_float64(x):
    clamped = min(max(x, -746.0), 710.0)
    shifted = fused_multiply_add(clamped, _LOG2_E, 6755399441055744.0)
    k = reinterpret(shifted, np.int64) - 0x4338000000000000
    kf = shifted - 6755399441055744.0
    r = fused_multiply_add(kf, -6.93147180369123816490e-01, clamped)
    r = fused_multiply_add(kf, -1.90821492927058770002e-10, r)
    p = 1.0 / 6227020800.0
    p = fused_multiply_add(p, r, 1.0 / 479001600.0)
    p = fused_multiply_add(p, r, 1.0 / 39916800.0)
    p = fused_multiply_add(p, r, 1.0 / 3628800.0)
    p = fused_multiply_add(p, r, 1.0 / 362880.0)
    p = fused_multiply_add(p, r, 1.0 / 40320.0)
    p = fused_multiply_add(p, r, 1.0 / 5040.0)
    p = fused_multiply_add(p, r, 1.0 / 720.0)
    p = fused_multiply_add(p, r, 1.0 / 120.0)
    p = fused_multiply_add(p, r, 1.0 / 24.0)
    p = fused_multiply_add(p, r, 1.0 / 6.0)
    p = fused_multiply_add(p, r, 0.5)
    p = fused_multiply_add(r * r, p, r) + 1.0
    half = k >> 1
    y = (p * reinterpret((half + 1023) << 52, np.float64)
         * reinterpret((k - half + 1023) << 52, np.float64))
    return y if x == x else x


def _exp_float32(x):
    clamped = min(max(x, np.float32(-104.0)), np.float32(89.0))
    shifted = fused_multiply_add(clamped, np.float32(_LOG2_E), np.float32(12582912.0))
    k = reinterpret(shifted, np.int32) - np.int32(0x4B400000)
    kf = shifted - np.float32(12582912.0)
    r = fused_multiply_add(kf, np.float32(-0.693145751953125), clamped)
    r = fused_multiply_add(kf, np.float32(-1.428606765330187e-06), r)
    p = np.float32(1.0 / 40320.0)
    p = fused_multiply_add(p, r, np.float32(1.0 / 5040.0))
    p = fused_multiply_add(p, r, np.float32(1.0 / 720.0))
    p = fused_multiply_add(p, r, np.float32(1.0 / 120.0))
    p = fused_multiply_add(p, r, np.float32(1.0 / 24.0))
    p = fused_multiply_add(p, r, np.float32(1.0 / 6.0))
    p = fused_multiply_add(p, r, np.float32(0.5))
    p = fused_multiply_add(r * r, p, r) + np.float32(1.0)
    half = k >> 1
    y = (p * reinterpret(np.int32((half + 127) << 23), np.float32)
         * reinterpret(np.int32((k - half + 127) << 23), np.float32))
    return y if x == x else x


def log(x):
    """The natural logarithm of float32 ``x`` within two ULP, of float64 ``x`` within one
    (compiled only)."""


@overload(log)
def _log_overload(x):
    if x == types.float32:
        return _log_float32
    if x == types.float64:
        return _log_float64


# x = 2**e * m with m in [sqrt(1/2), sqrt(2)); log(m) = log(1 + f) from Cephes' logf
# polynomial. A subnormal x is scaled by 2**25 first.

def _log_float32(x):
    subnormal = x < np.float32(1.1754943508222875e-38)
    scaled = x * np.float32(33554432.0) if subnormal else x
    bits = reinterpret(scaled, np.int32)
    offset = np.int32(bits - np.int32(0x3F3504F3))
    f = reinterpret(np.int32(bits - (offset & np.int32(-0x800000))), np.float32) - np.float32(1)
    e = np.float32(np.int32(offset >> np.int32(23)) - np.int32(25 if subnormal else 0))
    z = f * f
    p = np.float32(7.0376836292e-2)
    p = fused_multiply_add(p, f, np.float32(-1.1514610310e-1))
    p = fused_multiply_add(p, f, np.float32(1.1676998740e-1))
    p = fused_multiply_add(p, f, np.float32(-1.2420140846e-1))
    p = fused_multiply_add(p, f, np.float32(1.4249322787e-1))
    p = fused_multiply_add(p, f, np.float32(-1.6668057665e-1))
    p = fused_multiply_add(p, f, np.float32(2.0000714765e-1))
    p = fused_multiply_add(p, f, np.float32(-2.4999993993e-1))
    p = fused_multiply_add(p, f, np.float32(3.3333331174e-1))
    y = fused_multiply_add(p * f, z, fused_multiply_add(e, np.float32(-2.12194440e-4), f))
    y = fused_multiply_add(z, np.float32(-0.5), y)
    y = fused_multiply_add(e, np.float32(0.693359375), y)
    if x > 0 and x < np.inf:
        return y
    if x == 0:
        return np.float32(-np.inf)
    return x if x >= 0 else np.float32(np.nan)


# x = 2**e * m with m in [sqrt(1/2), sqrt(2)); with f = m - 1 (exact) and s = f / (2 + f),
# log(1 + f) = 2s + 2s**3/3 + ... = f - f**2/2 + s * (f**2/2 + R(s**2)), R from fdlibm's e_log.c
# (Lg1-Lg7, error below 2**-58.45); e * log(2) in two parts, the first exact for any e. A
# subnormal x is scaled by 2**54 first.

def _log_float64(x):
    subnormal = x < 2.2250738585072014e-308
    scaled = x * 18014398509481984.0 if subnormal else x
    bits = reinterpret(scaled, np.int64)
    offset = bits - 0x3FE6A09E667F3BCD
    f = reinterpret(bits - (offset & -0x10000000000000), np.float64) - 1.0
    e = np.float64((offset >> 52) - (54 if subnormal else 0))
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    even = w * fused_multiply_add(w, fused_multiply_add(w, 1.531383769920937332e-01,
                                                        2.222219843214978396e-01),
                                  3.999999999940941908e-01)
    odd = z * fused_multiply_add(w, fused_multiply_add(w, fused_multiply_add(
        w, 1.479819860511658591e-01, 1.818357216161805012e-01), 2.857142874366239149e-01),
        6.666666666666735130e-01)
    half_square = 0.5 * f * f
    y = e * 6.93147180369123816490e-01 - (
        (half_square - fused_multiply_add(s, half_square + odd + even,
                                          e * 1.90821492927058770002e-10)) - f)
    if x > 0 and x < np.inf:
        return y
    if x == 0:
        return -np.inf
    return x if x >= 0 else np.nan


def sin(x):
    """The sine of float32 or float64 ``x`` (compiled only): float32 within one ULP, float64
    libm's."""


def cos(x):
    """The cosine of float32 or float64 ``x`` (compiled only): float32 within one ULP,
    float64 libm's."""


COMMON_LIMIT = 16777216.0  #: the largest float32 ``|x|`` that sin_common and cos_common take
COMMON_LIMIT_64 = 1048576.0  #: the largest float64 ``|x|`` that sin_common and cos_common take


def sin_common(x):
    """:func:`sin`, faster, for float32 ``|x| <= COMMON_LIMIT`` (and inf, NaN) and float64
    ``|x| <= COMMON_LIMIT_64`` (and NaN) only, within one ULP (compiled only)."""


def cos_common(x):
    """:func:`cos`, faster, for float32 ``|x| <= COMMON_LIMIT`` (and inf, NaN) and float64
    ``|x| <= COMMON_LIMIT_64`` (and NaN) only, within one ULP (compiled only)."""


def outside_common(x):
    """Whether :func:`sin_common` and :func:`cos_common` leave ``x`` to :func:`sin` and
    :func:`cos` (compiled only)."""


def _by_precision(float32_function, float64_function):
    """An overload: ``float32_function`` for float32, ``float64_function`` for float64."""
    def typer(x):
        if x == types.float32:
            return float32_function
        if x == types.float64:
            return float64_function
    return typer


# 2/pi in 24-bit pieces: 2/pi = sum of _TWO_OVER_PI[i] * 2**(-24 * (i + 1)); 216 bits cover
# every float32 argument. A float32 times a piece is exact in float64.
_TWO_OVER_PI = tuple(float(digits) * 2.0 ** (-24 * (i + 1)) for i, digits in enumerate(
    (0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163)))
_ROUNDER = 6755399441055744.0  # 1.5 * 2**52: adding it rounds a float64 below 2**51


@register_jitable
def _modulo_4(t):
    """``t`` less the multiple of 4 nearest to it, exactly."""
    return fused_multiply_add(np.rint(t * 0.25), -4.0, t)


@register_jitable
def _in_quadrant(sine, cosine, turns):
    """sin(r + turns * pi/2) from sin(r) and cos(r), ``turns`` an integral float64 below
    2**51."""
    quadrant = reinterpret(turns + _ROUNDER, np.int64)  # low bits: turns modulo 4
    y = cosine if quadrant & 1 else sine
    return -y if quadrant & 2 else y


@register_jitable
def _sine_of_reduced(x, r, k, quarter_turns):
    """sin(x + quarter_turns * pi/2) of a float32 ``x`` = k * pi/2 + r, ``k`` an integral
    float64 below 2**51, |r| a little over pi/4 at most: polynomials within 2**-27 in float64
    (sin(-0) is -0)."""
    z = r * r
    sine = fused_multiply_add(z, -1.9507352235044895e-04, 8.332099940897439e-03)
    sine = fused_multiply_add(z, sine, -1.6666653575326035e-01)
    sine = fused_multiply_add(r * z, sine, r)
    cosine = fused_multiply_add(z, 2.4423037803552694e-05, -1.3887224151684615e-03)
    cosine = fused_multiply_add(z, cosine, 4.1666643682060675e-02)
    cosine = fused_multiply_add(z * z, cosine, fused_multiply_add(z, -0.5, 1.0))
    y = np.float32(_in_quadrant(sine, cosine, k + quarter_turns))
    return x if x == 0 and quarter_turns == 0 else y


def _sine_float32(quarter_turns):
    """sin(x + quarter_turns * pi/2) of every float32 ``x``, without branches.

    x * 2/pi = k + f (Payne-Hanek): the products of x with the pieces of 2/pi are exact, and
    reduced modulo 4 where they can exceed 2 (x = m * 2**e with m below 2**24, so the
    products of the leading pieces are 0 modulo 4 for a large x). Summed from the largest
    after k is taken off, each sum is exact where f is small.
    """
    def function(x):
        wide = np.float64(x)
        t0 = _modulo_4(wide * _TWO_OVER_PI[0])
        t1 = _modulo_4(wide * _TWO_OVER_PI[1])
        t2 = _modulo_4(wide * _TWO_OVER_PI[2])
        t3 = _modulo_4(wide * _TWO_OVER_PI[3])
        t4 = _modulo_4(wide * _TWO_OVER_PI[4])
        t5 = _modulo_4(wide * _TWO_OVER_PI[5])
        t6 = wide * _TWO_OVER_PI[6]  # below 2**-16, as are the rest
        k = np.rint(t0 + t1 + t2 + t3 + t4 + t5 + t6)
        f = ((t0 - k) + t1 + t2 + t3 + t4 + t5 + t6 + wide * _TWO_OVER_PI[7]
             + wide * _TWO_OVER_PI[8])
        return _sine_of_reduced(x, f * 1.5707963267948966, k, quarter_turns)

    return function


def _sine_common_float32(quarter_turns):
    """sin(x + quarter_turns * pi/2) of a float32 ``x`` with ``|x| <= COMMON_LIMIT``: x - k*pi/2
    with pi/2 in two float64 parts (Cody-Waite), k below 2**24 (the error stays below 2**-80)."""
    def function(x):
        wide = np.float64(x)
        k = (wide * 0.6366197723675814 + _ROUNDER) - _ROUNDER
        r = fused_multiply_add(k, -1.5707963267948966, wide)
        r = fused_multiply_add(k, -6.123233995736766e-17, r)
        return _sine_of_reduced(x, r, k, quarter_turns)

    return function


# pi/2 in pieces (fdlibm's pio2_1, pio2_2, pio2_3, pio2_3t): the first three have 33 bits each,
# so that k times one is exact for |k| < 2**20; together the four hold 152 bits of pi/2.
_HALF_PI_PIECES = (1.57079632673412561417e+00, 6.07710050630396597660e-11,
                   2.02226624871116645580e-21, 8.47842766036889956997e-32)


@register_jitable
def _two_difference(a, b):
    """``a - b`` rounded and its rounding error, exactly (Knuth's TwoSum)."""
    difference = a - b
    b_part = a - difference
    return difference, (a - (difference + b_part)) + (b_part - b)


@register_jitable
def _sine_of_reduced_float64(x, high, low, k, quarter_turns):
    """sin(x + quarter_turns * pi/2) of a float64 ``x`` = k * pi/2 + high + low, ``k`` an
    integral float64 below 2**51, |high| a little over pi/4 at most, |low| below half its ULP:
    Taylor series to the 17th (sine) and 18th (cosine) power, whose first omitted terms stay
    below 2**-62 there (sin(-0) is -0)."""
    z = high * high
    sine = fused_multiply_add(z, 1.0 / 355687428096000.0, -1.0 / 1307674368000.0)
    sine = fused_multiply_add(z, sine, 1.0 / 6227020800.0)
    sine = fused_multiply_add(z, sine, -1.0 / 39916800.0)
    sine = fused_multiply_add(z, sine, 1.0 / 362880.0)
    sine = fused_multiply_add(z, sine, -1.0 / 5040.0)
    sine = fused_multiply_add(z, sine, 1.0 / 120.0)
    sine = fused_multiply_add(z, sine, -1.0 / 6.0)
    # sin(high + low) = sin(high) + low * cos(high), cos(high) = 1 - z/2 to the bits it adds
    sine = high + fused_multiply_add(high * z, sine, low * fused_multiply_add(z, -0.5, 1.0))
    cosine = fused_multiply_add(z, -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0)
    cosine = fused_multiply_add(z, cosine, -1.0 / 87178291200.0)
    cosine = fused_multiply_add(z, cosine, 1.0 / 479001600.0)
    cosine = fused_multiply_add(z, cosine, -1.0 / 3628800.0)
    cosine = fused_multiply_add(z, cosine, 1.0 / 40320.0)
    cosine = fused_multiply_add(z, cosine, -1.0 / 720.0)
    cosine = fused_multiply_add(z, cosine, 1.0 / 24.0)
    # 1 - z/2 + z*z*cosine - low*high, with the rounding error of 1 - z/2 added back (fdlibm)
    half_z = 0.5 * z
    one_less = 1.0 - half_z
    cosine = one_less + (((1.0 - one_less) - half_z)
                         + fused_multiply_add(z * z, cosine, -low * high))
    y = _in_quadrant(sine, cosine, k + quarter_turns)
    return x if x == 0 and quarter_turns == 0 else y


def _sine_common_float64(quarter_turns):
    """sin(x + quarter_turns * pi/2) of a float64 ``x`` with ``|x| <= COMMON_LIMIT_64``.

    x - k*pi/2 (fdlibm's three-step reduction, k below 2**20): x - k*piece0 is exact, and the
    differences with k*piece1 and k*piece2 (exact products) keep their rounding errors, so
    high + low holds the reduced argument to about 2**-130 absolute, or better where it is
    small: its ULP even where x lies closest to a multiple of pi/2.
    """
    def function(x):
        k = (x * 0.6366197723675814 + _ROUNDER) - _ROUNDER
        first = x - k * _HALF_PI_PIECES[0]
        second, error = _two_difference(first, k * _HALF_PI_PIECES[1])
        third, error2 = _two_difference(second, k * _HALF_PI_PIECES[2])
        low = (error + error2) - k * _HALF_PI_PIECES[3]
        high = third + low
        return _sine_of_reduced_float64(x, high, low - (high - third), k, quarter_turns)

    return function


overload(sin)(_by_precision(_sine_float32(0), lambda x: np.sin(x)))
overload(cos)(_by_precision(_sine_float32(1), lambda x: np.cos(x)))
overload(sin_common)(_by_precision(_sine_common_float32(0), _sine_common_float64(0)))
overload(cos_common)(_by_precision(_sine_common_float32(1), _sine_common_float64(1)))
overload(outside_common)(_by_precision(lambda x: abs(x) > COMMON_LIMIT,
                                       lambda x: abs(x) > COMMON_LIMIT_64))
