"""The array API ``fft`` extension.

On the CPU the transforms are NumPy's pocketfft, handed the array's memory zero-copy
(``x._numpy()``); the result comes back as a dlnumba array over NumPy's memory, cast by the copy
engine only where NumPy's dtype is not the standard's (complex64 stays complex64, float32 gives
complex64). On CUDA the same functions will hand the memory, through DLPack, to cuFFT in
``dlnumba.cuda`` (plans cached per shape, dtype and axes, run on the array's stream); nothing
here will change but the hand-off.

float16 and bfloat16 inputs raise TypeError: the standard asks for a result whose precision
matches the input's, and no complex dtype has 16-bit components (array-api-strict, which has no
16-bit floats, accepts only float32/float64 and complex64/complex128 here too). ``fftshift``
and ``ifftshift`` move data only: they are rolls by the copy engine, for every floating dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._arguments import check_int, normalize_axes, normalize_axis, on_host
from ._array_object import _from_numpy, ndarray
from ._creation_functions import _creation_args
from ._dtypes import (FLOATING, REAL_OF_COMPLEX, bfloat16, complex128, complex64, float16, float32,
                      float64)
from ._manipulation_functions import roll

if TYPE_CHECKING:
    from ._typing import Axes, DeviceLike, DTypeLike, FFTNorm

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_TO_COMPLEX = {float32: complex64, float64: complex128, complex64: complex64,
               complex128: complex128}


@on_host
def fft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
        norm: FFTNorm = "backward") -> ndarray:
    """The 1-D discrete Fourier transform of a complex ``x`` along ``axis`` (zero-padded or
    trimmed to ``n``); the result has ``x``'s dtype."""
    return _along_axis("fft", x, n, axis, norm, "complex floating", _TO_COMPLEX)


@on_host
def ifft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: FFTNorm = "backward") -> ndarray:
    """The 1-D inverse discrete Fourier transform of a complex ``x`` along ``axis``."""
    return _along_axis("ifft", x, n, axis, norm, "complex floating", _TO_COMPLEX)


@on_host
def rfft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: FFTNorm = "backward") -> ndarray:
    """The 1-D transform of a real ``x``: ``n // 2 + 1`` complex values of its precision."""
    return _along_axis("rfft", x, n, axis, norm, "real floating", _TO_COMPLEX)


@on_host
def irfft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
          norm: FFTNorm = "backward") -> ndarray:
    """The inverse of ``rfft``: ``n`` (default ``2 * (m - 1)``) real values of ``x``'s
    precision."""
    return _along_axis("irfft", x, n, axis, norm, "complex floating", REAL_OF_COMPLEX)


@on_host
def hfft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: FFTNorm = "backward") -> ndarray:
    """The transform of a Hermitian-symmetric signal given by its first half: ``n`` (default
    ``2 * (m - 1)``) real values of ``x``'s precision."""
    return _along_axis("hfft", x, n, axis, norm, "complex floating", REAL_OF_COMPLEX)


@on_host
def ihfft(x: ndarray, /, *, n: int | None = None, axis: int = -1,
          norm: FFTNorm = "backward") -> ndarray:
    """The inverse of ``hfft`` for a real ``x``: ``n // 2 + 1`` complex values."""
    return _along_axis("ihfft", x, n, axis, norm, "real floating", _TO_COMPLEX)


@on_host
def fftn(x: ndarray, /, *, s: tuple[int, ...] | None = None,
         axes: tuple[int, ...] | None = None, norm: FFTNorm = "backward") -> ndarray:
    """The n-D discrete Fourier transform of a complex ``x`` over ``axes`` (all if None),
    each zero-padded or trimmed to its size in ``s``."""
    return _over_axes("fftn", x, s, axes, norm, "complex floating", _TO_COMPLEX)


@on_host
def ifftn(x: ndarray, /, *, s: tuple[int, ...] | None = None,
          axes: tuple[int, ...] | None = None, norm: FFTNorm = "backward") -> ndarray:
    """The n-D inverse discrete Fourier transform of a complex ``x``."""
    return _over_axes("ifftn", x, s, axes, norm, "complex floating", _TO_COMPLEX)


@on_host
def rfftn(x: ndarray, /, *, s: tuple[int, ...] | None = None,
          axes: tuple[int, ...] | None = None, norm: FFTNorm = "backward") -> ndarray:
    """The n-D transform of a real ``x``; the last transformed axis keeps ``s[-1] // 2 + 1``
    values."""
    return _over_axes("rfftn", x, s, axes, norm, "real floating", _TO_COMPLEX)


@on_host
def irfftn(x: ndarray, /, *, s: tuple[int, ...] | None = None,
           axes: tuple[int, ...] | None = None, norm: FFTNorm = "backward") -> ndarray:
    """The inverse of ``rfftn``: real values of ``x``'s precision."""
    return _over_axes("irfftn", x, s, axes, norm, "complex floating", REAL_OF_COMPLEX)


@on_host
def fftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike | None = None,
            device: DeviceLike | None = None) -> ndarray:
    """The sample frequencies of a length-``n`` transform with sample spacing ``d``:
    ``[0, 1, ..., -(n // 2), ..., -1] / (d * n)``."""
    return _frequencies("fftfreq", n, d, dtype, device)


@on_host
def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike | None = None,
             device: DeviceLike | None = None) -> ndarray:
    """The ``n // 2 + 1`` non-negative sample frequencies of ``rfft``: ``[0, 1, ..., n // 2]
    / (d * n)``."""
    return _frequencies("rfftfreq", n, d, dtype, device)


@on_host
def fftshift(x: ndarray, /, *, axes: Axes | None = None) -> ndarray:
    """``x`` rolled so that the zero frequency is at the centre of ``axes`` (all if None)."""
    return _shift("fftshift", x, axes, 1)


@on_host
def ifftshift(x: ndarray, /, *, axes: Axes | None = None) -> ndarray:
    """The inverse of ``fftshift`` (they differ for odd lengths)."""
    return _shift("ifftshift", x, axes, -1)


def _check_input(name, x, kind, results):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    if x._dtype in (float16, bfloat16):
        raise TypeError(f"{name} does not take {x._dtype}: no complex dtype has its precision; "
                        "astype(x, float32) first")
    if x._dtype.kind != kind or x._dtype not in results:
        raise TypeError(f"{name} takes a {kind} array, not {x._dtype}")


def _check_norm(name, norm):
    if norm not in _NORMS:
        raise ValueError(f"{name} norm must be one of {', '.join(map(repr, _NORMS))}, not "
                         f"{norm!r}")


def _along_axis(name, x, n, axis, norm, kind, results):
    _check_input(name, x, kind, results)
    axis = normalize_axis(axis, x.ndim, name)
    if n is not None and check_int(f"{name} n", n) < 1:
        raise ValueError(f"{name} n must be >= 1, not {n}")
    _check_norm(name, norm)
    transform = getattr(np.fft, name)
    return _result(transform(x._numpy(), n=n, axis=axis, norm=norm), results[x._dtype])


def _over_axes(name, x, s, axes, norm, kind, results):
    _check_input(name, x, kind, results)
    if axes is None:
        if s is not None:
            raise ValueError(f"{name} needs axes when s is given")
        axes = tuple(range(x.ndim))
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"{name} axes must be a sequence of ints, not {axes!r}")
    axes = normalize_axes(axes, x.ndim, name, unique=False)
    if s is not None:
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"{name} s must be a sequence of ints, not {s!r}")
        s = tuple(check_int(f"{name} s", n) for n in s)
        if len(s) != len(axes):
            raise ValueError(f"{name} s {s} and axes {axes} must have the same length")
        if any(n < 1 and n != -1 for n in s):
            raise ValueError(f"{name} sizes in s must be >= 1 (or -1 for the whole axis), "
                             f"not {s}")
    _check_norm(name, norm)
    transform = getattr(np.fft, name)
    return _result(transform(x._numpy(), s=s, axes=axes, norm=norm), results[x._dtype])


def _result(values, dtype):
    """NumPy's result as a dlnumba array of ``dtype`` (wrapped as it is when it has it)."""
    result = _from_numpy(values)
    return result if result._dtype is dtype else result._copy(dtype)


def _frequencies(name, n, d, dtype, device):
    n = check_int(f"{name} n", n)
    if n < 1:
        raise ValueError(f"{name} n must be >= 1, not {n}")
    if type(d) not in (int, float):
        raise TypeError(f"{name} d must be a float, not {d!r}")
    if d == 0:
        raise ValueError(f"{name} d (the sample spacing) must not be 0")
    dtype, device = _creation_args(dtype, device)
    if dtype.kind != "real floating":
        raise TypeError(f"{name} makes real floating-point values; dtype {dtype} is not one")
    values = _from_numpy(getattr(np.fft, name)(n, d))
    result = ndarray._empty(values.shape, dtype, device)
    result._assign(values)
    return result


def _shift(name, x, axes, direction):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    if x._dtype.kind not in FLOATING:
        raise TypeError(f"{name} takes a floating-point array, not {x._dtype}")
    axes = tuple(range(x.ndim)) if axes is None else normalize_axes(axes, x.ndim, name,
                                                                   unique=False)
    return roll(x, tuple(direction * (x.shape[a] // 2) for a in axes), axis=axes)
