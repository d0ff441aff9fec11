"""Linear algebra kernels: BLAS and LAPACK (Numba's ``np.dot`` and ``np.linalg``) over stacks.

A kernel reads each operand as C-contiguous matrices (or vectors) of one dtype, named by a tag
(a NumPy dtype, or an empty array of it as in :mod:`.transfer`): an address and an int64 array
of element offsets, one per matrix of the batch (a broadcast operand repeats an offset).
Results go to C-contiguous stacks at ``out`` addresses, one matrix after another. One
compilation per dtype therefore covers every batch shape, broadcast and matrix size; it happens
on first use and is cached on disk. Decompositions take float32, float64, complex64 and
complex128 tags; the products (``matmul``, ``vecdot``, ``cross``, ``row_sums``) take integer
tags too, and wrap around as NumPy does. LAPACK failures raise ``numpy.linalg.LinAlgError``
(singular or not positive definite matrices, and NaN or infinity in an input) or
``ValueError`` (no convergence).
"""

import functools
import sys

import numpy as np

from .._native import c_caller
from .._numba import carray, njit, overload, types
from .._shipped import import_alone
from ..shared.tags import storage
from .transfer import _typed_pointer
from .walk import compile_run, entry_point


def load_lapack():
    """Import the modules through which Numba's BLAS and LAPACK calls find SciPy's functions
    (``scipy.linalg.cython_blas`` and ``cython_lapack``), without ``scipy.linalg`` itself,
    which takes a quarter of a second to import and which they do not need. Without SciPy,
    nothing: compiling a kernel then raises Numba's ImportError, which says what is missing.
    (A ``scipy.linalg`` imported later lacks the two as attributes; importing them by name
    finds them.)"""
    for name in ("scipy.linalg.cython_blas", "scipy.linalg.cython_lapack"):
        try:
            module = import_alone(name)
        except ImportError:
            return
        if "scipy.linalg" in sys.modules:
            setattr(sys.modules["scipy.linalg"], name.rpartition(".")[2], module)


_prepare = functools.cache(load_lapack)
_lapack_entry_point = entry_point(prepare=_prepare)


def _matrix(address, offset, rows, cols, tag):
    """The C-contiguous ``rows x cols`` matrix ``offset`` elements after ``address`` (compiled
    only)."""


@overload(_matrix)
def _matrix_overload(address, offset, rows, cols, tag):
    itemsize = storage(tag.dtype).bitwidth // 8
    return lambda address, offset, rows, cols, tag: carray(
        _typed_pointer(address + offset * itemsize, tag), (rows, cols))


@njit
def _stack(address, count, rows, cols, tag):
    """``count`` C-contiguous ``rows x cols`` matrices, one after another, at ``address``."""
    return carray(_typed_pointer(address, tag), (count, rows, cols))


def _product(a, b, out):
    """``out = a @ b`` for 2-D arrays (compiled only): BLAS for floats, a loop for integers."""


@overload(_product)
def _product_overload(a, b, out):
    if isinstance(a.dtype, (types.Float, types.Complex)):
        return lambda a, b, out: np.dot(a, b, out)

    def integer_product(a, b, out):
        out[:] = 0
        for i in range(a.shape[0]):
            for p in range(a.shape[1]):
                value = a[i, p]
                for j in range(b.shape[1]):
                    out[i, j] += value * b[p, j]

    return integer_product


def _dot(a, b, out, index):
    """``out[index] = sum(conj(a) * b)`` for 1-D arrays (compiled only)."""


@overload(_dot)
def _dot_overload(a, b, out, index):
    if isinstance(a.dtype, (types.Float, types.Complex)):
        def blas_dot(a, b, out, index):
            out[index] = np.vdot(a, b)
        return blas_dot

    def integer_dot(a, b, out, index):
        out[index] = 0
        for i in range(a.size):
            out[index] += a[i] * b[i]

    return integer_dot


@_lapack_entry_point
def matmul(x1, offsets1, x2, offsets2, out, m, k, n, tag):
    """``out[b] = x1[b] @ x2[b]`` for ``m x k`` and ``k x n`` matrices."""
    result = _stack(out, offsets1.size, m, n, tag)
    for b in range(offsets1.size):
        _product(_matrix(x1, offsets1[b], m, k, tag), _matrix(x2, offsets2[b], k, n, tag),
                 result[b])


# Products of at most this many multiply-adds keep the GIL: releasing and taking it back would
# cost more than the work frees for other threads.
HELD_GIL_PRODUCT = 4096


@functools.cache
def plain_matmul(tag):
    """``call(x1, x2, out, m, k, n)``: ``out = x1 @ x2`` for C-contiguous ``m x k`` and
    ``k x n`` matrices of dtype ``tag`` at those addresses; a builtin, for small products.
    Returns two: the first keeps the GIL (for at most ``HELD_GIL_PRODUCT`` multiplications),
    the second releases it."""
    def product(x1, x2, out, m, k, n):
        _product(_matrix(x1, 0, m, k, tag), _matrix(x2, 0, k, n, tag), _matrix(out, 0, m, n, tag))

    _prepare()
    address = compile_run(product, types.void(*[types.intp] * 6))
    return tuple(functools.partial(c_caller(6, "none", release=release), address)
                 for release in (False, True))


@_lapack_entry_point
def vecdot(x1, offsets1, x2, offsets2, out, length, tag):
    """``out[b] = sum(conj(x1[b]) * x2[b])`` for vectors of ``length``."""
    result = carray(_typed_pointer(out, tag), offsets1.size)
    for b in range(offsets1.size):
        _dot(_matrix(x1, offsets1[b], 1, length, tag)[0],
             _matrix(x2, offsets2[b], 1, length, tag)[0], result, b)


@_lapack_entry_point
def row_sums(x, out, rows, length, tag):
    """``out[r] = sum(x[r])`` for a C-contiguous ``rows x length`` matrix."""
    values = _matrix(x, 0, rows, length, tag)
    result = carray(_typed_pointer(out, tag), rows)
    for r in range(rows):
        result[r] = 0
        for i in range(length):
            result[r] += values[r, i]


@_lapack_entry_point
def cross(x1, x2, out, outer, inner, tag):
    """Cross products along the middle axis of C-contiguous ``outer x 3 x inner`` stacks."""
    a = _stack(x1, outer, 3, inner, tag)
    b = _stack(x2, outer, 3, inner, tag)
    c = _stack(out, outer, 3, inner, tag)
    for o in range(outer):
        for i in range(inner):
            a0, a1, a2 = a[o, 0, i], a[o, 1, i], a[o, 2, i]
            b0, b1, b2 = b[o, 0, i], b[o, 1, i], b[o, 2, i]
            c[o, 0, i] = a1 * b2 - a2 * b1
            c[o, 1, i] = a2 * b0 - a0 * b2
            c[o, 2, i] = a0 * b1 - a1 * b0


@_lapack_entry_point
def inv(x, offsets, out, n, tag):
    """Inverses of ``n x n`` matrices."""
    result = _stack(out, offsets.size, n, n, tag)
    for b in range(offsets.size):
        result[b] = np.linalg.inv(_matrix(x, offsets[b], n, n, tag))


@_lapack_entry_point
def cholesky(x, offsets, out, n, upper, tag):
    """Lower (or, if ``upper``, upper) Cholesky factors of ``n x n`` matrices."""
    result = _stack(out, offsets.size, n, n, tag)
    for b in range(offsets.size):
        lower = np.linalg.cholesky(_matrix(x, offsets[b], n, n, tag))
        if upper:
            result[b] = np.conj(lower.T)
        else:
            result[b] = lower


@_lapack_entry_point
def det(x, offsets, out, n, tag):
    """Determinants of ``n x n`` matrices."""
    result = carray(_typed_pointer(out, tag), offsets.size)
    for b in range(offsets.size):
        result[b] = np.linalg.det(_matrix(x, offsets[b], n, n, tag))


@_lapack_entry_point
def slogdet(x, offsets, sign, logabsdet, n, tag, real_tag):
    """Signs (``tag``) and logarithms of absolute determinants (``real_tag``)."""
    signs = carray(_typed_pointer(sign, tag), offsets.size)
    logs = carray(_typed_pointer(logabsdet, real_tag), offsets.size)
    for b in range(offsets.size):
        signs[b], logs[b] = np.linalg.slogdet(_matrix(x, offsets[b], n, n, tag))


@_lapack_entry_point
def eigh(x, offsets, values, vectors, n, tag, real_tag):
    """Eigenvalues (ascending) and, unless ``vectors`` is 0, eigenvectors (columns) of Hermitian
    ``n x n`` matrices, read from their lower triangles."""
    w = _stack(values, offsets.size, 1, n, real_tag)
    v = _stack(vectors, offsets.size, n, n, tag)
    for b in range(offsets.size):
        a = _matrix(x, offsets[b], n, n, tag)
        if vectors:
            eigenvalues, eigenvectors = np.linalg.eigh(a)
            w[b, 0] = eigenvalues
            v[b] = eigenvectors
        else:
            w[b, 0] = np.linalg.eigvalsh(a)


@_lapack_entry_point
def eig(x, offsets, values, vectors, n, tag):
    """Eigenvalues and, unless ``vectors`` is 0, right eigenvectors (unit columns) of complex
    ``n x n`` matrices."""
    w = _stack(values, offsets.size, 1, n, tag)
    v = _stack(vectors, offsets.size, n, n, tag)
    for b in range(offsets.size):
        a = _matrix(x, offsets[b], n, n, tag)
        if vectors:
            eigenvalues, eigenvectors = np.linalg.eig(a)
            w[b, 0] = eigenvalues
            v[b] = eigenvectors
        else:
            w[b, 0] = np.linalg.eigvals(a)


@_lapack_entry_point
def svd(x, offsets, u, s, vh, m, n, full, tag, real_tag):
    """Singular values (descending) of ``m x n`` matrices and, unless ``u`` is 0, the singular
    vectors: all of them if ``full``, else the leading ``min(m, n)``."""
    k = min(m, n)
    values = _stack(s, offsets.size, 1, k, real_tag)
    left = _stack(u, offsets.size, m, m if full else k, tag)
    right = _stack(vh, offsets.size, n if full else k, n, tag)
    for b in range(offsets.size):
        factors = np.linalg.svd(_matrix(x, offsets[b], m, n, tag), full)
        values[b, 0] = factors[1]
        if u:
            left[b] = factors[0]
            right[b] = factors[2]


@_lapack_entry_point
def qr(x, offsets, q, r, m, n, complete, tag):
    """QR decompositions of ``m x n`` matrices, reduced or ``complete``."""
    k = m if complete else min(m, n)
    qs = _stack(q, offsets.size, m, k, tag)
    rs = _stack(r, offsets.size, k, n, tag)
    for b in range(offsets.size):
        a = _matrix(x, offsets[b], m, n, tag)
        if k > n:
            # Zero columns add identity reflectors: Q of the padded matrix is the complete Q.
            padded = np.zeros((m, m), a.dtype)
            padded[:, :n] = a
            factor_q, factor_r = np.linalg.qr(padded)
            qs[b] = factor_q
            rs[b] = factor_r[:, :n]
        else:
            factor_q, factor_r = np.linalg.qr(a)
            qs[b] = factor_q
            rs[b] = factor_r


@_lapack_entry_point
def solve(x1, offsets1, x2, offsets2, out, n, k, tag):
    """Solutions ``X`` of ``x1[b] @ X = x2[b]`` for ``n x n`` and ``n x k`` matrices."""
    result = _stack(out, offsets1.size, n, k, tag)
    for b in range(offsets1.size):
        result[b] = np.linalg.solve(_matrix(x1, offsets1[b], n, n, tag),
                                    _matrix(x2, offsets2[b], n, k, tag))


@_lapack_entry_point
def pinv(x, offsets, rtols, out, m, n, tag):
    """Pseudo-inverses (``n x m``) of ``m x n`` matrices, dropping singular values at most
    ``rtols[b]`` times the largest."""
    result = _stack(out, offsets.size, n, m, tag)
    for b in range(offsets.size):
        result[b] = np.linalg.pinv(_matrix(x, offsets[b], m, n, tag), rtols[b])


@_lapack_entry_point
def matrix_rank(x, offsets, rtols, out, m, n, tag, count_tag):
    """The number of singular values above ``rtols[b]`` times the largest."""
    result = carray(_typed_pointer(out, count_tag), offsets.size)
    for b in range(offsets.size):
        values = np.linalg.svd(_matrix(x, offsets[b], m, n, tag), False)[1]
        result[b] = np.sum(values > rtols[b] * values[0])


@_lapack_entry_point
def matrix_power(x, offsets, out, n, power, tag):
    """``n x n`` matrices raised to the integer ``power`` (inverted first if it is negative)."""
    result = _stack(out, offsets.size, n, n, tag)
    for b in range(offsets.size):
        result[b] = np.linalg.matrix_power(_matrix(x, offsets[b], n, n, tag), power)


# The orders of matrix_norm, as kernel codes.
NORM_CODES = {"fro": 0, "nuc": 1, 1: 2, -1: 3, 2: 4, -2: 5, np.inf: 6, -np.inf: 7}


@_lapack_entry_point
def matrix_norm(x, offsets, out, m, n, code, tag, real_tag):
    """Norms of ``m x n`` matrices (not empty) of the order that ``code`` names (NORM_CODES)."""
    result = carray(_typed_pointer(out, real_tag), offsets.size)
    for b in range(offsets.size):
        a = _matrix(x, offsets[b], m, n, tag)
        if code == 0:
            total = 0.0
            for v in a.ravel():
                total += abs(v) ** 2
            result[b] = np.sqrt(total)
        elif code <= 1 or code >= 4 and code <= 5:
            values = np.linalg.svd(a, False)[1]
            result[b] = np.sum(values) if code == 1 else values[0] if code == 4 else values[-1]
        else:
            sums = np.sum(np.abs(a), axis=0 if code <= 3 else 1)
            result[b] = np.max(sums) if code % 2 == 0 else np.min(sums)


@_lapack_entry_point
def vector_norm(x, out, rows, length, order, tag, real_tag):
    """The ``order``-norm of each row of a C-contiguous ``rows x length`` matrix."""
    values = _matrix(x, 0, rows, length, tag)
    result = carray(_typed_pointer(out, real_tag), rows)
    for r in range(rows):
        total = 0.0
        if order == np.inf:
            for v in values[r]:
                total = max(total, abs(v))
        elif order == -np.inf:
            total = np.inf
            for v in values[r]:
                total = min(total, abs(v))
        elif order == 0:
            for v in values[r]:
                total += v != 0
        elif order == 1:
            for v in values[r]:
                total += abs(v)
        elif order == 2:
            for v in values[r]:
                total += abs(v) ** 2
            total = np.sqrt(total)
        else:
            for v in values[r]:
                total += abs(v) ** order
            total **= 1.0 / order
        result[r] = total
