"""Linear algebra functions of the main namespace: matmul, tensordot, vecdot, matrix_transpose.

Products run on :mod:`.kernels.linalg`: BLAS for float32, float64, complex64 and complex128, an
own loop for integers (wrapping around, as NumPy does). float16 and bfloat16 compute in float32
and round back. Operands go to the kernels as C-contiguous matrices (copied only when they are
not) and one offset per matrix, so broadcast batches are never copied.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ._arguments import both_on_host, check_array, check_int, on_host
from ._array_object import ndarray
from ._devices import CPU
from ._dtypes import DTYPES, NUMERIC, common_dtype, computation_dtype
from ._layout import (broadcast_shapes, broadcast_strides, c_contiguous, c_strides,
                      reshaped_strides, size_of)
from ._memory import allocate_host
from .kernels import linalg as kernels
from .kernels.linalg import HELD_GIL_PRODUCT
from .kernels.walk import Direct

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

# The kernels' dtype tags: NumPy dtypes, which a compiled function unboxes for nothing.
TAGS = {d: d.storage for d in DTYPES if computation_dtype(d) is d}


def check_pair(name, x1, x2, min_ndim=0):
    """Check two numeric operands; returns their promoted dtype."""
    if (type(x1) is ndarray and type(x2) is ndarray and x1._dtype is x2._dtype
            and x1._device is x2._device and x1._dtype.kind in NUMERIC
            and len(x1._shape) >= min_ndim and len(x2._shape) >= min_ndim):
        return x1._dtype  # the common case, kept lean
    check_array(name, x1, NUMERIC, "numeric", min_ndim)
    check_array(name, x2, NUMERIC, "numeric", min_ndim)
    if x1.device != x2.device:
        raise ValueError(f"{name}: arrays on {x1.device} and {x2.device} cannot be combined")
    return common_dtype(x1._dtype, x2._dtype)


def packed(x, dtype, inner=2):
    """``x`` itself when its last ``inner`` dimensions are C-contiguous in ``dtype``, else a
    C-contiguous copy cast to ``dtype``."""
    if x._dtype is dtype and c_contiguous(x._shape[-inner:], x._strides[-inner:]):
        return x
    return x._copy(dtype)


@functools.lru_cache(maxsize=1024)
def offsets(shape, strides, batch):
    """Element offsets of the matrices of a batch of ``shape`` and ``strides``, broadcast to
    the batch shape ``batch``, in C order (an int64 array)."""
    result = np.zeros(1, np.int64)
    for n, s in zip(batch, broadcast_strides(shape, strides, batch)):
        result = (result[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    return result


_FIRST = offsets((), (), ())  # the one matrix of an unbatched operand
_NUMPY_BLAS_PRODUCT = 1 << 21  # multiply-adds (128**3) from which NumPy's matmul computes
_MATMUL = Direct(kernels.matmul)  # by compute dtype, which fixes the argument types


class _PlainCalls(dict):
    """``kernels.plain_matmul``'s calls for each dtype that computes in itself (None for the
    others), made on first use."""

    def __missing__(self, dtype):
        tag = TAGS.get(dtype) if dtype.kind in NUMERIC else None
        self[dtype] = call = None if tag is None else kernels.plain_matmul(tag)
        return call


_PLAIN_CALLS = _PlainCalls()


def _numpy_blas(dtype, work):
    """Whether a host product of ``work`` multiply-adds in ``dtype`` runs NumPy's matmul on
    views: a large floating one, where NumPy's BLAS call takes any strides without a copy and
    computes ``A @ A.T`` as a symmetric product, in half the time."""
    return work >= _NUMPY_BLAS_PRODUCT and dtype.kind in ("real floating", "complex floating")


def plain_matmul(x1, x2):
    """``x1 @ x2`` of two C-contiguous, non-empty 2-D host arrays of one numeric dtype that
    computes in itself, in one kernel call; None for any other operands."""
    if both_on_host(x1, x2) and x1._dtype is x2._dtype and len(x1._shape) == len(x2._shape) == 2:
        (m, k), n = x1._shape, x2._shape[1]
        calls = _PLAIN_CALLS[x1._dtype]
        if (calls is not None and m and n and k and x2._shape[0] == k and x1._strides == (k, 1)
                and x2._strides == (n, 1) and not _numpy_blas(x1._dtype, m * k * n)):
            address, owner = allocate_host(m * n * x1._dtype.itemsize)
            calls[m * k * n > HELD_GIL_PRODUCT](x1._address, x2._address, address, m, k, n)
            return ndarray._new(address, (m, n), (n, 1), x1._dtype, CPU, owner, False)
    return None


def stack_offsets(x, batch):
    """The offsets of the matrices of ``x`` (its last two dimensions) broadcast to ``batch``."""
    return offsets(x.shape[:-2], x._strides[:-2], batch)


def rounded(x, dtype):
    """``x`` as ``dtype``: itself, or a copy when it was computed in a wider dtype."""
    return x if x._dtype is dtype else x._copy(dtype)


def matrix_transpose(x: ndarray, /) -> ndarray:
    """Transpose the last two dimensions of ``x`` (a view).

    Raises
    ------
    ValueError
        If ``x`` has fewer than two dimensions.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"matrix_transpose expects a dlnumba.ndarray, not {type(x).__name__}")
    return x.mT


@on_host  # the same object in dlnumba and dlnumba.linalg
def matmul(x1: ndarray, x2: ndarray, /) -> ndarray:
    """Matrix product of ``x1`` and ``x2`` (array API broadcasting and 1-D rules).

    A 1-D ``x1`` is a row vector, a 1-D ``x2`` a column vector; that dimension is dropped from
    the result. Leading (batch) dimensions broadcast.

    Raises
    ------
    TypeError
        For non-numeric dtypes or dtypes that do not promote.
    ValueError
        For 0-d operands, contracted sizes that differ and batches that do not broadcast.
    """
    dtype = check_pair("matmul", x1, x2, min_ndim=1)
    if len(x1._shape) == len(x2._shape) == 2 and x1._shape[1] == x2._shape[0]:
        return product(x1, x2, dtype)  # the common case, kept lean
    a = x1 if len(x1._shape) > 1 else x1._view(0, (1,) + x1._shape, (0,) + x1._strides)
    b = x2 if len(x2._shape) > 1 else x2._view(0, x2._shape + (1,), x2._strides + (0,))
    if a._shape[-1] != b._shape[-2]:
        raise ValueError(f"matmul: shapes {x1.shape} and {x2.shape} do not match: the last "
                         "dimension of x1 must equal the second last (or only) of x2")
    result = product(a, b, dtype)
    if a is x1 and b is x2:
        return result
    shape = result.shape
    if x1.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if x2.ndim == 1:
        shape = shape[:-1]
    return result._view(0, shape, c_strides(shape))


def product(a, b, dtype):
    """The product of two stacks of matrices (at least 2-D, contracted sizes equal) as a new
    C-contiguous array of ``dtype``."""
    compute = computation_dtype(dtype)
    batch = () if len(a._shape) == len(b._shape) == 2 else broadcast_shapes(a._shape[:-2],
                                                                           b._shape[:-2])
    (m, k), n = a._shape[-2:], b._shape[-1]
    out = ndarray._empty(batch + (m, n), compute, zero=k == 0)
    if m and n and k and _numpy_blas(compute, m * k * n):
        np.matmul(rounded(a, compute)._numpy(), rounded(b, compute)._numpy(), out=out._numpy())
    elif m and n and k:
        a, b = packed(a, compute), packed(b, compute)
        if not batch:
            first = second = _FIRST
        elif (size_of(b._shape[:-2]) == 1 and a._shape[:-2] == batch
                and a._strides == c_strides(a._shape)):
            # One matrix on the right: the stack on the left is one tall matrix.
            m, first, second = m * size_of(batch), _FIRST, _FIRST
        else:
            first, second = stack_offsets(a, batch), stack_offsets(b, batch)
        arguments = (a._address, first, b._address, second, out._address, m, k, n,
                     TAGS[compute])
        (_MATMUL.get(compute) or _MATMUL.entry(compute, arguments))(*arguments)
    return rounded(out, dtype)


@on_host  # the same object in dlnumba and dlnumba.linalg
def tensordot(x1: ndarray, x2: ndarray, /, *,
              axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> ndarray:
    """Contract ``x1`` and ``x2`` over ``axes``.

    Parameters
    ----------
    axes : int or (sequence of int, sequence of int)
        N: the last N axes of ``x1`` with the first N of ``x2``. A pair: the axes of ``x1``
        and of ``x2`` to contract, in matching order (negative axes count from the end).

    Returns
    -------
    ndarray
        The non-contracted axes of ``x1`` followed by those of ``x2``.

    Raises
    ------
    ValueError
        For axes out of range or repeated, or contracted sizes that differ.
    """
    dtype = check_pair("tensordot", x1, x2)
    axes1, axes2 = _tensordot_axes(x1, x2, axes)
    for i, j in zip(axes1, axes2):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(f"tensordot: axis {i} of x1 (size {x1.shape[i]}) and axis {j} of "
                             f"x2 (size {x2.shape[j]}) differ in size")
    free1 = [i for i in range(x1.ndim) if i not in axes1]
    free2 = [j for j in range(x2.ndim) if j not in axes2]
    compute = computation_dtype(dtype)
    a = _as_matrix(x1, free1 + list(axes1), len(free1), compute)
    b = _as_matrix(x2, list(axes2) + free2, len(axes2), compute)
    shape = tuple(x1.shape[i] for i in free1) + tuple(x2.shape[j] for j in free2)
    return product(a, b, dtype)._view(0, shape, c_strides(shape))


def _tensordot_axes(x1, x2, axes):
    if isinstance(axes, tuple) and len(axes) == 2:
        pair = []
        for x, group in zip((x1, x2), axes):
            try:
                group = [check_int("tensordot axes", i) for i in group]
            except TypeError:
                raise TypeError("tensordot: axes must be an int or a pair of sequences of ints, "
                                f"not {axes!r}") from None
            if any(not -x.ndim <= i < x.ndim for i in group):
                raise ValueError(f"tensordot: axes {axes} out of range for shapes {x1.shape} "
                                 f"and {x2.shape}")
            group = tuple(i % x.ndim for i in group)
            if len(set(group)) != len(group):
                raise ValueError(f"tensordot: repeated axis in {axes}")
            pair.append(group)
        if len(pair[0]) != len(pair[1]):
            raise ValueError(f"tensordot: axes {axes} must name as many axes of x1 as of x2")
        return pair
    count = check_int("tensordot axes (when not a pair of sequences)", axes)
    if not 0 <= count <= min(x1.ndim, x2.ndim):
        raise ValueError(f"tensordot: axes={count} must be in [0, {min(x1.ndim, x2.ndim)}] for "
                         f"shapes {x1.shape} and {x2.shape}")
    return tuple(range(x1.ndim - count, x1.ndim)), tuple(range(count))


def _as_matrix(x, order, split, dtype):
    """``x`` with its axes in ``order``, the first ``split`` of them as rows and the rest as
    columns: a C-contiguous matrix of ``dtype`` (a view when the layout allows)."""
    shape = tuple(x.shape[i] for i in order)
    x = x._view(0, shape, tuple(x._strides[i] for i in order))
    matrix = (size_of(shape[:split]), size_of(shape[split:]))
    strides = reshaped_strides(shape, x._strides, matrix)
    if strides is None:
        x = x._copy(dtype)
        strides = c_strides(matrix)
    return packed(x._view(0, matrix, strides), dtype)


@on_host  # the same object in dlnumba and dlnumba.linalg
def vecdot(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """Dot products of the vectors along ``axis``, the first conjugated: ``sum(conj(x1) * x2)``.

    ``axis`` is negative (counted from the end after broadcasting); the other dimensions
    broadcast.

    Raises
    ------
    ValueError
        If ``axis`` is not in ``[-min(x1.ndim, x2.ndim), -1]``, the sizes along it differ, or
        the other dimensions do not broadcast.
    """
    dtype = check_pair("vecdot", x1, x2, min_ndim=1)
    axis = check_int("vecdot axis", axis)
    if not -min(x1.ndim, x2.ndim) <= axis <= -1:
        raise ValueError(f"vecdot: axis {axis} must be negative and at least "
                         f"-{min(x1.ndim, x2.ndim)} for shapes {x1.shape} and {x2.shape}")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot: sizes {x1.shape[axis]} and {x2.shape[axis]} along axis "
                         f"{axis} differ (shapes {x1.shape} and {x2.shape})")
    length = x1.shape[axis]
    a, b = _axis_last(x1, axis), _axis_last(x2, axis)
    batch = broadcast_shapes(a.shape[:-1], b.shape[:-1])
    compute = computation_dtype(dtype)
    out = ndarray._empty(batch, compute, zero=length == 0)
    if out.size and length:
        a, b = packed(a, compute, inner=1), packed(b, compute, inner=1)
        kernels.vecdot(a._address, offsets(a.shape[:-1], a._strides[:-1], batch), b._address,
                       offsets(b.shape[:-1], b._strides[:-1], batch), out._address, length,
                       TAGS[compute])
    return rounded(out, dtype)


def _axis_last(x, axis):
    """A view of ``x`` with the (negative) ``axis`` moved to the end."""
    order = [i for i in range(x.ndim) if i != x.ndim + axis] + [x.ndim + axis]
    return x._view(0, tuple(x.shape[i] for i in order), tuple(x._strides[i] for i in order))
