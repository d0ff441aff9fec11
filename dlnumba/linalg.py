"""The array API ``linalg`` extension (``dlnumba.linalg``).

Every function works on stacks: the last two dimensions are the matrices, the leading ones a
batch. Decompositions and solvers call LAPACK (through Numba's ``np.linalg``, see
:mod:`.kernels.linalg`) once per matrix, in float32, float64, complex64 or complex128; float16
and bfloat16 compute in float32 and round back. As in array-api-strict, the functions the
standard says should take floating-point arrays refuse other dtypes (TypeError).

Errors: shapes that do not fit (not square, too few dimensions, sizes that differ) raise
ValueError. Numerical failures raise :class:`LinAlgError` (NumPy's, a ValueError): a singular
matrix in ``inv``, ``solve`` or a negative ``matrix_power``, a matrix that is not positive
definite in ``cholesky``, and NaN or infinity in the input of ``inv``, ``solve``, ``det``,
``slogdet``, ``eig``, ``eigh``, ``svd``, ``qr``, ``pinv`` and the functions built on them (NumPy
returns NaN there instead). A LAPACK routine that does not converge raises ValueError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import _elementwise_functions as _elementwise
from ._arguments import check_array, check_int, normalize_axes, on_host
from ._array_object import ndarray
from ._data_type_functions import finfo
from ._dtypes import (FLOATING, NUMERIC, REAL_OF_COMPLEX, as_dtype, complex64, complex128,
                      computation_dtype, float32, float64, int64, uint64)
from ._layout import broadcast_shapes, size_of
from ._linear_algebra_functions import (
    TAGS, check_pair, matmul,
    matrix_transpose, packed, rounded, stack_offsets, tensordot, vecdot,
)
from .kernels import linalg as kernels

if TYPE_CHECKING:
    from typing import Literal

    from ._typing import Axes, DTypeLike

__all__ = [
    "LinAlgError", "EighResult", "EigResult", "QRResult", "SlogdetResult", "SVDResult",
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]

LinAlgError = np.linalg.LinAlgError
_COMPLEX = {float32: complex64, float64: complex128}


class EighResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


class EigResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


class QRResult(NamedTuple):
    Q: ndarray
    R: ndarray


class SlogdetResult(NamedTuple):
    sign: ndarray
    logabsdet: ndarray


class SVDResult(NamedTuple):
    U: ndarray
    S: ndarray
    Vh: ndarray


def _floating(name, x, square=False, complex_result=False):
    """Check a stack of (``square``) floating-point matrices; returns ``x`` packed for the
    kernels and the dtype they compute in (complex if ``complex_result``)."""
    check_array(name, x, FLOATING, "floating-point", min_ndim=2)
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} takes square matrices, not shape {x.shape}")
    compute = computation_dtype(x._dtype)
    if complex_result:
        compute = _COMPLEX.get(compute, compute)
    return packed(x, compute), compute


def _real(dtype):
    return REAL_OF_COMPLEX.get(dtype, dtype)


def _identity(shape, dtype):
    """A new stack of identity matrices (any shape of at least 2 dimensions)."""
    result = ndarray._empty(shape, dtype, zero=True)
    rows, cols = shape[-2:]
    if result.size:
        strides = result._strides
        result._view(0, shape[:-2] + (min(rows, cols),), strides[:-2] + (cols + 1,))._fill(1)
    return result


@on_host
def inv(x: ndarray, /) -> ndarray:
    """The inverse of each square matrix of ``x``.

    Raises
    ------
    LinAlgError
        If a matrix is singular.
    """
    a, compute = _floating("inv", x, square=True)
    out = ndarray._empty(x.shape, compute)
    if out.size:
        kernels.inv(a._address, stack_offsets(a, a.shape[:-2]), out._address, x.shape[-1],
                    TAGS[compute])
    return rounded(out, x._dtype)


@on_host
def cholesky(x: ndarray, /, *, upper: bool = False) -> ndarray:
    """The Cholesky factor of each Hermitian positive-definite matrix of ``x``: lower
    triangular ``L`` with ``x = L @ L^H``, or, if ``upper``, ``U = L^H``.

    Raises
    ------
    LinAlgError
        If a matrix is not positive definite.
    """
    a, compute = _floating("cholesky", x, square=True)
    out = ndarray._empty(x.shape, compute)
    if out.size:
        kernels.cholesky(a._address, stack_offsets(a, a.shape[:-2]), out._address, x.shape[-1],
                         bool(upper), TAGS[compute])
    return rounded(out, x._dtype)


@on_host
def det(x: ndarray, /) -> ndarray:
    """The determinant of each square matrix of ``x``."""
    a, compute = _floating("det", x, square=True)
    out = ndarray._empty(x.shape[:-2], compute)
    if out.size:
        kernels.det(a._address, stack_offsets(a, a.shape[:-2]), out._address, x.shape[-1],
                    TAGS[compute])
    return rounded(out, x._dtype)


@on_host
def slogdet(x: ndarray, /) -> SlogdetResult:
    """The sign and the natural logarithm of the absolute value of each determinant.

    Returns
    -------
    SlogdetResult
        ``sign`` (``x``'s dtype; 0 for a singular matrix) and ``logabsdet`` (the real dtype of
        ``x``'s precision; -inf for a singular matrix).
    """
    a, compute = _floating("slogdet", x, square=True)
    sign = ndarray._empty(x.shape[:-2], compute)
    logabsdet = ndarray._empty(x.shape[:-2], _real(compute))
    if sign.size:
        kernels.slogdet(a._address, stack_offsets(a, a.shape[:-2]), sign._address,
                        logabsdet._address, x.shape[-1], TAGS[compute], TAGS[_real(compute)])
    return SlogdetResult(rounded(sign, x._dtype), rounded(logabsdet, _real(x._dtype)))


def _eigh(name, x, vectors):
    a, compute = _floating(name, x, square=True)
    n = x.shape[-1]
    values = ndarray._empty(x.shape[:-1], _real(compute))
    result = ndarray._empty(x.shape, compute) if vectors else None
    if values.size:
        kernels.eigh(a._address, stack_offsets(a, a.shape[:-2]), values._address,
                     result._address if vectors else 0, n, TAGS[compute], TAGS[_real(compute)])
    values = rounded(values, _real(x._dtype))
    return EighResult(values, rounded(result, x._dtype)) if vectors else values


@on_host
def eigh(x: ndarray, /) -> EighResult:
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of each Hermitian (or
    real symmetric) matrix of ``x``; only the lower triangle is read.

    Returns
    -------
    EighResult
        ``eigenvalues`` (shape ``(..., M)``, real dtype of ``x``'s precision) and
        ``eigenvectors`` (shape ``(..., M, M)``, ``x``'s dtype).
    """
    return _eigh("eigh", x, True)


@on_host
def eigvalsh(x: ndarray, /) -> ndarray:
    """Eigenvalues (ascending, real) of each Hermitian (or real symmetric) matrix of ``x``."""
    return _eigh("eigvalsh", x, False)


def _eig(name, x, vectors):
    a, compute = _floating(name, x, square=True, complex_result=True)
    values = ndarray._empty(x.shape[:-1], compute)
    result = ndarray._empty(x.shape, compute) if vectors else None
    if values.size:
        kernels.eig(a._address, stack_offsets(a, a.shape[:-2]), values._address,
                    result._address if vectors else 0, x.shape[-1], TAGS[compute])
    return EigResult(values, result) if vectors else values


@on_host
def eig(x: ndarray, /) -> EigResult:
    """Eigenvalues and right eigenvectors (unit-norm columns) of each square matrix of ``x``.

    Returns
    -------
    EigResult
        ``eigenvalues`` (shape ``(..., M)``) and ``eigenvectors`` (shape ``(..., M, M)``), both
        complex: complex64 for float16, bfloat16, float32 and complex64 inputs, else
        complex128.
    """
    return _eig("eig", x, True)


@on_host
def eigvals(x: ndarray, /) -> ndarray:
    """Eigenvalues (complex, as in :func:`eig`) of each square matrix of ``x``."""
    return _eig("eigvals", x, False)


@on_host
def svd(x: ndarray, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh`` of each matrix of ``x``.

    Returns
    -------
    SVDResult
        ``U`` (``(..., M, M)``, or ``(..., M, K)`` unless ``full_matrices``), ``S``
        (``(..., K)``, descending, real dtype of ``x``'s precision) and ``Vh`` (``(..., N, N)``
        or ``(..., K, N)``), with ``K = min(M, N)``.
    """
    a, compute = _floating("svd", x)
    (m, n), batch = x.shape[-2:], x.shape[:-2]
    k = min(m, n)
    full = bool(full_matrices)
    s = ndarray._empty(batch + (k,), _real(compute))
    new = ndarray._empty if s.size else _identity  # the singular vectors of empty matrices
    u = new(batch + (m, m if full else k), compute)
    vh = new(batch + (n if full else k, n), compute)
    if s.size:
        kernels.svd(a._address, stack_offsets(a, batch), u._address, s._address, vh._address,
                    m, n, full, TAGS[compute], TAGS[_real(compute)])
    return SVDResult(rounded(u, x._dtype), rounded(s, _real(x._dtype)), rounded(vh, x._dtype))


@on_host
def svdvals(x: ndarray, /) -> ndarray:
    """The singular values (descending) of each matrix of ``x``, in the real dtype of ``x``'s
    precision."""
    a, compute = _floating("svdvals", x)
    (m, n), batch = x.shape[-2:], x.shape[:-2]
    s = ndarray._empty(batch + (min(m, n),), _real(compute))
    if s.size:
        kernels.svd(a._address, stack_offsets(a, batch), 0, s._address, 0, m, n, False,
                    TAGS[compute], TAGS[_real(compute)])
    return rounded(s, _real(x._dtype))


@on_host
def qr(x: ndarray, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition of each matrix of ``x``.

    Parameters
    ----------
    mode : {'reduced', 'complete'}
        ``Q`` of shape ``(..., M, K)`` and ``R`` of ``(..., K, N)`` with ``K = min(M, N)``, or
        ``Q`` of ``(..., M, M)`` and ``R`` of ``(..., M, N)``.

    Returns
    -------
    QRResult
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    a, compute = _floating("qr", x)
    (m, n), batch = x.shape[-2:], x.shape[:-2]
    k = m if mode == "complete" else min(m, n)
    run = min(m, n) and size_of(batch)
    q = (ndarray._empty if run else _identity)(batch + (m, k), compute)
    r = ndarray._empty(batch + (k, n), compute, zero=not run)
    if run:
        kernels.qr(a._address, stack_offsets(a, batch), q._address, r._address, m, n,
                   mode == "complete", TAGS[compute])
    return QRResult(rounded(q, x._dtype), rounded(r, x._dtype))


@on_host
def solve(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The solution ``X`` of ``x1 @ X = x2`` for each square matrix of ``x1``.

    ``x2`` of shape ``(M,)`` is one right-hand side for every matrix (the result has shape
    ``(..., M)``); otherwise ``x2`` is a stack ``(..., M, K)`` whose batch broadcasts with
    ``x1``'s.

    Raises
    ------
    LinAlgError
        If a matrix of ``x1`` is singular.
    """
    check_array("solve", x1, FLOATING, "floating-point", min_ndim=2)
    check_array("solve", x2, FLOATING, "floating-point", min_ndim=1)
    dtype = check_pair("solve", x1, x2)
    n = x1.shape[-1]
    if x1.shape[-2] != n:
        raise ValueError(f"solve takes square matrices for x1, not shape {x1.shape}")
    vector = x2.ndim == 1
    b = x2._view(0, x2.shape + (1,), x2._strides + (0,)) if vector else x2
    if b.shape[-2] != n:
        raise ValueError(f"solve: x2 of shape {x2.shape} does not match x1 of shape {x1.shape}")
    batch = broadcast_shapes(x1.shape[:-2], b.shape[:-2])
    k = b.shape[-1]
    compute = computation_dtype(dtype)
    out = ndarray._empty(batch + (n, k), compute)
    if out.size:
        a, b = packed(x1, compute), packed(b, compute)
        kernels.solve(a._address, stack_offsets(a, batch), b._address, stack_offsets(b, batch),
                      out._address, n, k, TAGS[compute])
    if vector:
        out = out._view(0, batch + (n,), out._strides[:-1])
    return rounded(out, dtype)


def _rtols(name, x, rtol):
    """The batch shape that ``x`` and ``rtol`` broadcast to, and one float64 relative
    tolerance per matrix of it (default: ``max(M, N)`` times the machine epsilon)."""
    batch = x.shape[:-2]
    if rtol is None:
        rtol = max(x.shape[-2:]) * finfo(x._dtype).eps
    if isinstance(rtol, ndarray):
        if rtol._dtype.kind != "real floating":
            raise TypeError(f"{name}: rtol must have a real floating-point dtype, not "
                            f"{rtol._dtype}")
        batch = broadcast_shapes(batch, rtol.shape)
        values = ndarray._empty(batch, float64)
        values._assign(rtol)
        return batch, values._numpy().reshape(-1)
    if type(rtol) not in (int, float):
        raise TypeError(f"{name}: rtol must be a float, an array or None, not {rtol!r}")
    return batch, np.full(size_of(batch), float(rtol))


@on_host
def pinv(x: ndarray, /, *, rtol: float | ndarray | None = None) -> ndarray:
    """The Moore-Penrose pseudo-inverse (shape ``(..., N, M)``) of each matrix of ``x``.

    Singular values at most ``rtol`` times the largest count as zero; ``rtol`` (a float or a
    real floating array broadcasting with the batch) defaults to ``max(M, N) * eps``.
    """
    a, compute = _floating("pinv", x)
    m, n = x.shape[-2:]
    batch, rtols = _rtols("pinv", x, rtol)
    out = ndarray._empty(batch + (n, m), compute, zero=True)
    if out.size:
        kernels.pinv(a._address, stack_offsets(a, batch), rtols, out._address, m, n,
                     TAGS[compute])
    return rounded(out, x._dtype)


@on_host
def matrix_rank(x: ndarray, /, *, rtol: float | ndarray | None = None) -> ndarray:
    """The rank of each matrix of ``x``: the number of singular values above ``rtol`` times
    the largest (``rtol`` as in :func:`pinv`). Returns int64.

    Integer and boolean matrices are taken as float64 (as NumPy and array-api-strict do).
    """
    check_array("matrix_rank", x, ("bool",) + NUMERIC, "any", min_ndim=2)
    if x._dtype.kind not in FLOATING:
        x = x._copy(float64)
    a, compute = _floating("matrix_rank", x)
    m, n = x.shape[-2:]
    batch, rtols = _rtols("matrix_rank", x, rtol)
    out = ndarray._empty(batch, int64, zero=True)
    if out.size and m and n:
        kernels.matrix_rank(a._address, stack_offsets(a, batch), rtols, out._address, m, n,
                            TAGS[compute], TAGS[int64])
    return out


@on_host
def matrix_power(x: ndarray, n: int, /) -> ndarray:
    """Each square matrix of ``x`` raised to the integer power ``n`` (the identity for 0,
    powers of the inverse for negative ``n``).

    Raises
    ------
    LinAlgError
        If ``n`` is negative and a matrix is singular.
    """
    a, compute = _floating("matrix_power", x, square=True)
    power = check_int("matrix_power n", n)
    out = ndarray._empty(x.shape, compute)
    if out.size:
        kernels.matrix_power(a._address, stack_offsets(a, a.shape[:-2]), out._address,
                             x.shape[-1], power, TAGS[compute])
    return rounded(out, x._dtype)


@on_host
def matrix_norm(x: ndarray, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] = "fro") -> ndarray:
    """The norm of each matrix of ``x``, in the real dtype of ``x``'s precision.

    Parameters
    ----------
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}
        Frobenius, nuclear, max/min absolute column sum, largest/smallest singular value,
        max/min absolute row sum. The norm of an empty matrix is 0.
    keepdims : bool
        Keep the last two dimensions, as size 1.
    """
    a, compute = _floating("matrix_norm", x)
    if isinstance(ord, bool) or ord not in kernels.NORM_CODES:
        raise ValueError(f"matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, "
                         f"-inf, not {ord!r}")
    (m, n), batch = x.shape[-2:], x.shape[:-2]
    out = ndarray._empty(batch, _real(compute), zero=True)
    if out.size and m and n:
        kernels.matrix_norm(a._address, stack_offsets(a, batch), out._address, m, n,
                            kernels.NORM_CODES[ord], TAGS[compute], TAGS[_real(compute)])
    out = rounded(out, _real(x._dtype))
    return out._view(0, batch + (1, 1), out._strides + (0, 0)) if keepdims else out


@on_host
def vector_norm(x: ndarray, /, *, axis: Axes | None = None, keepdims: bool = False,
                ord: int | float = 2) -> ndarray:
    """The ``ord``-norm of the vectors of ``x`` along ``axis`` (an int, a tuple of ints, or
    None for all axes), in the real dtype of ``x``'s precision.

    ``ord`` is any int or float, or ``inf``/``-inf`` (max/min absolute value); 0 counts the
    non-zero elements. An empty vector has norm 0 (``inf`` for ``ord=-inf``).
    """
    check_array("vector_norm", x, FLOATING, "floating-point")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord must be an int or a float, not {ord!r}")
    axes = _axes("vector_norm", axis, x.ndim)
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    view = x._view(0, tuple(x.shape[i] for i in order), tuple(x._strides[i] for i in order))
    compute = computation_dtype(x._dtype)
    out = ndarray._empty(tuple(x.shape[i] for i in kept), _real(compute))
    if out.size:
        values = packed(view, compute, inner=view.ndim)
        kernels.vector_norm(values._address, out._address, out.size,
                            size_of(view.shape[len(kept):]), float(ord), TAGS[compute],
                            TAGS[_real(compute)])
    out = rounded(out, _real(x._dtype))
    if keepdims:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        out = out._view(0, shape, _expand(out._strides, axes, x.ndim))
    return out


def _expand(strides, axes, ndim):
    """Strides of the kept axes, spread over ``ndim`` positions (0 at ``axes``)."""
    kept = iter(strides)
    return tuple(0 if i in axes else next(kept) for i in range(ndim))


def _axes(name, axis, ndim):
    """``axis`` (None, an int or a tuple of ints) as a tuple of distinct non-negative axes."""
    return tuple(range(ndim)) if axis is None else normalize_axes(axis, ndim, name)


def diagonal(x: ndarray, /, *, offset: int = 0) -> ndarray:
    """The diagonal ``offset`` of each matrix of ``x`` (above the main one if positive, below
    if negative), as a view of shape ``(..., L)``."""
    check_array("diagonal", x, ("bool",) + NUMERIC, "any", min_ndim=2)
    offset = check_int("diagonal offset", offset)
    (m, n), strides = x.shape[-2:], x._strides
    length = max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))
    start = (offset * strides[-1] if offset >= 0 else -offset * strides[-2]) if length else 0
    return x._view(start, x.shape[:-2] + (length,), strides[:-2] + (strides[-2] + strides[-1],))


@on_host
def trace(x: ndarray, /, *, offset: int = 0, dtype: DTypeLike | None = None) -> ndarray:
    """The sum of the diagonal ``offset`` of each matrix of ``x``.

    ``dtype`` None keeps ``x``'s dtype, except that signed integers narrower than int64 sum
    as int64 and unsigned ones as uint64; otherwise ``x`` is cast to ``dtype`` first.
    """
    check_array("trace", x, NUMERIC, "numeric", min_ndim=2)
    if dtype is None:
        dtype = {"signed integer": int64, "unsigned integer": uint64}.get(x._dtype.kind, x._dtype)
    else:
        dtype = as_dtype(dtype)
        if dtype.kind not in NUMERIC:
            raise TypeError(f"trace: dtype must be a numeric dtype or None, not {dtype}")
        if x._dtype.kind == "complex floating" and dtype.kind != "complex floating":
            raise TypeError(f"trace: a {x._dtype} array cannot be summed as {dtype}")
    compute = computation_dtype(dtype)
    values = diagonal(x, offset=offset)._copy(compute)
    out = ndarray._empty(x.shape[:-2], compute)
    if out.size:
        kernels.row_sums(values._address, out._address, out.size, values.shape[-1],
                         TAGS[compute])
    return rounded(out, dtype)


@on_host
def cross(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """Cross products of the 3-element vectors along ``axis`` (negative; the other dimensions
    broadcast).

    Raises
    ------
    ValueError
        If ``axis`` is not in ``[-min(x1.ndim, x2.ndim), -1]`` or either size along it is not 3.
    """
    dtype = check_pair("cross", x1, x2, min_ndim=1)
    axis = check_int("cross axis", axis)
    if not -min(x1.ndim, x2.ndim) <= axis <= -1:
        raise ValueError(f"cross: axis {axis} must be negative and at least "
                         f"-{min(x1.ndim, x2.ndim)} for shapes {x1.shape} and {x2.shape}")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"cross: shapes {x1.shape} and {x2.shape} must both have size 3 along "
                         f"axis {axis}")
    shape = broadcast_shapes(x1.shape, x2.shape)
    compute = computation_dtype(dtype)
    a, b = (_dense(x, shape, compute) for x in (x1, x2))
    out = ndarray._empty(shape, compute)
    if out.size:
        kernels.cross(a._address, b._address, out._address, size_of(shape[:axis]),
                      size_of(shape[len(shape) + axis + 1:]), TAGS[compute])
    return rounded(out, dtype)


def _dense(x, shape, dtype):
    """``x`` broadcast to ``shape`` as a C-contiguous array of ``dtype`` (itself if it is)."""
    if x.shape == shape and x._dtype is dtype and packed(x, dtype, inner=x.ndim) is x:
        return x
    result = ndarray._empty(shape, dtype)
    result._assign(x)
    return result


@on_host
def outer(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The outer product ``x1[i] * x2[j]`` of two 1-D arrays (shape ``(N, M)``)."""
    check_pair("outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer takes 1-D arrays, not shapes {x1.shape} and {x2.shape}")
    return _elementwise._binary("multiply", x1[:, None], x2[None, :])
