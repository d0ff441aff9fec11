"""Linear algebra against NumPy (and array-api-strict where NumPy departs from the standard).

- Products (matmul and ``@``, tensordot, vecdot, cross, outer, trace, diagonal) against NumPy for
  integer (exact, wrapping around), floating and complex dtypes; hypothesis over batch shapes,
  broadcasting, 1-D operands and memory layouts (negative steps, transposes, steps of 2).
- Decompositions checked by reconstruction (``Q @ R``, ``U S Vh``, ``A v = w v``, ``L L^H``) and
  against ``numpy.linalg`` where the result is unique (inv, det, slogdet, solve, eigenvalues,
  singular values, pinv, rank, powers, norms), with tolerances for each dtype.
- float16/bfloat16 compute in float32 and round back; result dtypes against array-api-strict;
  errors (TypeError for dtypes, ValueError for shapes, LinAlgError for singular matrices);
  empty matrices and batches.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dlnumba as xp
from dlnumba import linalg as la

from helpers import INTS

strict = pytest.importorskip("array_api_strict")

FLOATS = ["float32", "float64", "complex64", "complex128"]
# Relative tolerances per dtype for results of well-conditioned problems.
RTOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
LAYOUTS = ["contiguous", "reversed", "transposed", "stepped"]

seeds = st.integers(0, 2**32 - 1)
batches = st.lists(st.integers(0, 3), max_size=2).map(tuple)
# A second batch that broadcasts with a first: some sizes 1, some leading dimensions dropped.
broadcasts = st.tuples(st.lists(st.booleans(), min_size=2, max_size=2), st.integers(0, 2))


def broadcast_batch(batch, broadcast):
    ones, drop = broadcast
    return tuple(1 if one else n for n, one in zip(batch, ones))[drop:]


def values(rng, shape, dtype):
    """Random values of ``dtype`` (any integer in range; floats of order 1)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def array(a, layout="contiguous"):
    """A dlnumba array with the values of the NumPy array ``a`` in the memory ``layout``."""
    if layout == "reversed" and a.ndim:
        flip = (slice(None, None, -1),) * a.ndim
        return xp.asarray(np.ascontiguousarray(a[flip]))[flip]
    if layout == "transposed" and a.ndim >= 2:
        return xp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
    if layout == "stepped" and a.ndim:
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return xp.asarray(wide)[..., ::2]
    return xp.asarray(a)


def close(result, expected, dtype, scale=1.0):
    """Check a dlnumba result against a NumPy value (dtype and shape exact)."""
    got = np.asarray(result)
    assert got.shape == np.shape(expected)
    assert got.dtype == np.asarray(expected).dtype, (got.dtype, np.asarray(expected).dtype)
    if got.dtype.kind in "iub":
        np.testing.assert_array_equal(got, expected)
    else:
        rtol = RTOL[str(np.dtype(dtype))] * scale
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def strict_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def well_conditioned(rng, batch, n, dtype):
    """Stacks of matrices ``R + n I`` with ``R`` of order 1: far from singular."""
    return (values(rng, batch + (n, n), dtype) + n * np.eye(n)).astype(dtype)


def hermitian_pd(rng, batch, n, dtype):
    a = values(rng, batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


# ---- products ----


@given(seed=seeds, dtype=st.sampled_from(INTS + FLOATS), batch1=batches, batch2=broadcasts,
       m=st.integers(0, 5), k=st.integers(0, 5), n=st.integers(0, 5),
       vectors=st.sampled_from([(False, False), (True, False), (False, True), (True, True)]),
       layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)))
def test_matmul(seed, dtype, batch1, batch2, m, k, n, vectors, layouts):
    rng = np.random.default_rng(seed)
    batch2 = broadcast_batch(batch1, batch2)
    shape1 = (k,) if vectors[0] else batch1 + (m, k)
    shape2 = (k,) if vectors[1] else batch2 + (k, n)
    a, b = values(rng, shape1, dtype), values(rng, shape2, dtype)
    x1, x2 = array(a, layouts[0]), array(b, layouts[1])
    expected = np.matmul(a, b)
    close(xp.matmul(x1, x2), expected, dtype, scale=k + 1)
    close(x1 @ x2, expected, dtype, scale=k + 1)
    assert la.matmul is xp.matmul


@pytest.mark.parametrize("dtype1, dtype2", [("int8", "uint8"), ("int16", "int64"),
                                            ("float32", "complex128"), ("uint32", "uint64")])
def test_matmul_promotion(dtype1, dtype2):
    rng = np.random.default_rng(0)
    a, b = values(rng, (2, 3), dtype1), values(rng, (3, 4), dtype2)
    result = xp.matmul(xp.asarray(a), xp.asarray(b))
    expected = strict.matmul(strict.asarray(a), strict.asarray(b))
    assert strict_name(result.dtype) == strict_name(expected.dtype)
    close(result, np.asarray(expected), str(result.dtype), scale=10)


@pytest.mark.parametrize("dtype", FLOATS + ["int32"])
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("transposed", "stepped"),
                                     ("stepped", "transposed")])
def test_large_products_in_any_layout(dtype, layouts):
    """Products of 128**3 multiply-adds and more (NumPy's BLAS on views for floating dtypes),
    in every layout, broadcast batches, and A @ A.T of one buffer (a symmetric product)."""
    rng = np.random.default_rng(2)
    a, b = values(rng, (2, 130, 140), dtype), values(rng, (1, 140, 150), dtype)
    x1, x2 = array(a, layouts[0]), array(b, layouts[1])
    close(x1 @ x2, a @ b, dtype, scale=141)
    square = values(rng, (200, 200), dtype)
    x = array(square, layouts[0])
    close(x @ x.mT, square @ square.T, dtype, scale=201)


def test_matmul_one_tall_matrix():
    # A stack times one matrix runs as one tall product.
    rng = np.random.default_rng(1)
    a, b = values(rng, (4, 3, 5), "float64"), values(rng, (5, 2), "float64")
    close(xp.asarray(a) @ xp.asarray(b), a @ b, "float64")
    close(xp.asarray(a)[::2] @ xp.asarray(b), a[::2] @ b, "float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_half_computes_in_float32(dtype):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 2))
    x1, x2 = (xp.astype(xp.asarray(v.astype(np.float32)), getattr(xp, dtype)) for v in (a, b))
    result = x1 @ x2
    assert result.dtype == getattr(xp, dtype)
    expected = xp.astype(xp.astype(x1, xp.float32) @ xp.astype(x2, xp.float32),
                         getattr(xp, dtype))
    np.testing.assert_array_equal(np.asarray(xp.astype(result, xp.float32)),
                                  np.asarray(xp.astype(expected, xp.float32)))


@pytest.mark.strict
def test_matmul_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="1-D"):
        xp.matmul(xp.asarray(1.0), x)
    with pytest.raises(ValueError, match="do not match"):
        xp.matmul(x, x)
    with pytest.raises(ValueError, match="broadcast"):
        xp.matmul(xp.asarray(np.ones((2, 2, 3))), xp.asarray(np.ones((3, 3, 1))))
    with pytest.raises(TypeError, match="numeric"):
        xp.matmul(xp.asarray(np.ones((2, 2), bool)), xp.asarray(np.ones((2, 2), bool)))
    with pytest.raises(TypeError, match="no common dtype"):
        xp.matmul(xp.asarray(np.ones((2, 2), np.int32)), xp.asarray(np.ones((2, 2))))
    with pytest.raises(TypeError, match="dlnumba.ndarray"):
        xp.matmul(np.ones((2, 2)), x)
    with pytest.raises(TypeError):
        x @ 2


def test_imatmul():
    rng = np.random.default_rng(3)
    a, b = values(rng, (2, 3, 3), "float64"), values(rng, (3, 3), "float64")
    x = xp.asarray(a.copy())  # asarray shares a NumPy array's memory
    y = x
    y @= xp.asarray(b)
    assert y is x
    close(x, a @ b, "float64")
    x @= x  # the result is computed before x is overwritten
    close(x, (a @ b) @ (a @ b), "float64")
    with pytest.raises(TypeError, match="in-place matmul"):
        x @= xp.asarray(np.ones((3, 2)))
    with pytest.raises(TypeError, match="in-place matmul"):
        x @= xp.asarray(np.ones((3, 3), np.complex128))
    z = xp.asarray(np.ones((3, 3)))
    np.testing.assert_array_equal(np.asarray(z.__rmatmul__(xp.asarray(np.eye(3)))), np.ones((3, 3)))


@given(seed=seeds, dtype=st.sampled_from(INTS + FLOATS), shape1=st.lists(st.integers(0, 3),
       min_size=0, max_size=4).map(tuple), data=st.data())
@settings(max_examples=40)
def test_tensordot(seed, dtype, shape1, data):
    rng = np.random.default_rng(seed)
    count = data.draw(st.integers(0, len(shape1)))
    if data.draw(st.booleans()):
        axes = count
        shape2 = shape1[len(shape1) - count:] + tuple(data.draw(st.lists(st.integers(0, 3),
                                                                         max_size=2)))
    else:
        axes1 = data.draw(st.permutations(range(len(shape1))))[:count]
        shape2 = list(data.draw(st.lists(st.integers(0, 3), max_size=2)))
        axes2 = []
        for i in axes1:
            position = data.draw(st.integers(0, len(shape2)))
            shape2.insert(position, shape1[i])
            axes2 = [j + (j >= position) for j in axes2] + [position]
        shape2 = tuple(shape2)
        axes = ([i - len(shape1) if i % 2 else i for i in axes1], axes2)
    a, b = values(rng, shape1, dtype), values(rng, shape2, dtype)
    expected = np.tensordot(a, b, axes=axes)
    layout = data.draw(st.sampled_from(LAYOUTS))
    result = xp.tensordot(array(a, layout), array(b), axes=axes)
    close(result, expected, dtype, scale=max(1, expected.size and a.size // max(
        1, math.prod(np.shape(expected)))))


def test_tensordot_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="differ in size"):
        xp.tensordot(x, x, axes=1)
    with pytest.raises(ValueError, match="out of range"):
        xp.tensordot(x, x, axes=([2], [0]))
    with pytest.raises(ValueError, match="repeated"):
        xp.tensordot(x, x.mT, axes=([0, 0], [1, 1]))
    with pytest.raises(ValueError, match=r"axes=3"):
        xp.tensordot(x, x, axes=3)
    with pytest.raises(TypeError, match="axes"):
        xp.tensordot(x, x, axes=1.0)


@given(seed=seeds, dtype=st.sampled_from(INTS + FLOATS), batch1=batches, batch2=broadcasts,
       n=st.integers(0, 6), axis=st.integers(-3, -1), layout=st.sampled_from(LAYOUTS))
def test_vecdot(seed, dtype, batch1, batch2, n, axis, layout):
    rng = np.random.default_rng(seed)
    batch2 = broadcast_batch(batch1, batch2)
    shape1, shape2 = list(batch1 + (n,)), list(batch2 + (n,))
    axis = max(axis, -min(len(shape1), len(shape2)))
    for shape in (shape1, shape2):  # move the vectors to ``axis``
        vector = shape.pop()
        shape.insert(len(shape) + axis + 1, vector)
    a, b = values(rng, tuple(shape1), dtype), values(rng, tuple(shape2), dtype)
    expected = np.vecdot(a, b, axis=axis)
    close(xp.vecdot(array(a, layout), array(b), axis=axis), expected, dtype, scale=n + 1)
    assert la.vecdot is xp.vecdot


def test_vecdot_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="negative"):
        xp.vecdot(x, x, axis=1)
    with pytest.raises(ValueError, match="negative"):
        xp.vecdot(x, x, axis=-3)
    with pytest.raises(ValueError, match="differ"):
        xp.vecdot(x, x.mT, axis=-1)
    with pytest.raises(ValueError, match="1-D"):
        xp.vecdot(xp.asarray(1.0), x)


def test_matrix_transpose():
    a = np.arange(24).reshape(2, 3, 4)
    result = xp.matrix_transpose(xp.asarray(a))
    np.testing.assert_array_equal(np.asarray(result), np.swapaxes(a, -1, -2))
    assert la.matrix_transpose is xp.matrix_transpose
    with pytest.raises(ValueError):
        xp.matrix_transpose(xp.asarray(np.ones(3)))


@given(seed=seeds, dtype=st.sampled_from(INTS + FLOATS), batch1=batches, batch2=broadcasts,
       axis=st.integers(-3, -1), layout=st.sampled_from(LAYOUTS))
@settings(max_examples=40)
def test_cross(seed, dtype, batch1, batch2, axis, layout):
    rng = np.random.default_rng(seed)
    batch2 = broadcast_batch(batch1, batch2)
    shape1, shape2 = list(batch1 + (3,)), list(batch2 + (3,))
    axis = max(axis, -min(len(shape1), len(shape2)))
    for shape in (shape1, shape2):
        vector = shape.pop()
        shape.insert(len(shape) + axis + 1, vector)
    a, b = values(rng, tuple(shape1), dtype), values(rng, tuple(shape2), dtype)
    with np.errstate(over="ignore"):
        expected = np.cross(a, b, axis=axis)
    close(la.cross(array(a, layout), array(b), axis=axis), expected, dtype, scale=3)


def test_cross_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="size 3"):
        la.cross(x.mT, x.mT)
    with pytest.raises(ValueError, match="negative"):
        la.cross(x, x, axis=1)
    with pytest.raises(TypeError, match="numeric"):
        la.cross(xp.asarray(np.ones(3, bool)), xp.asarray(np.ones(3, bool)))


@pytest.mark.parametrize("dtype", INTS + FLOATS + ["float16"])
def test_outer(dtype):
    rng = np.random.default_rng(4)
    a, b = values(rng, (4,), dtype), values(rng, (3,), dtype)
    result = la.outer(xp.asarray(a)[::-1], xp.asarray(b))
    expected = np.outer(a[::-1], b)
    if dtype == "float16":
        np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-3)
    else:
        close(result, expected, dtype)
    with pytest.raises(ValueError, match="1-D"):
        la.outer(xp.asarray(a[None]), xp.asarray(b))


@given(seed=seeds, dtype=st.sampled_from(INTS + FLOATS + ["bool"]), batch=batches,
       m=st.integers(0, 4), n=st.integers(0, 4), offset=st.integers(-5, 5),
       layout=st.sampled_from(LAYOUTS))
def test_diagonal_and_trace(seed, dtype, batch, m, n, offset, layout):
    rng = np.random.default_rng(seed)
    a = values(rng, batch + (m, n), dtype) if dtype != "bool" else rng.random(
        batch + (m, n)) < 0.5
    x = array(a, layout)
    diag = la.diagonal(x, offset=offset)
    np.testing.assert_array_equal(np.asarray(diag), np.diagonal(a, offset, -2, -1))
    if dtype == "bool":
        with pytest.raises(TypeError, match="numeric"):
            la.trace(x)
        return
    result = la.trace(x, offset=offset)
    expected = strict.linalg.trace(strict.asarray(a), offset=offset)
    assert strict_name(result.dtype) == strict_name(expected.dtype)
    close(result, np.asarray(expected), dtype, scale=4)


@pytest.mark.strict
def test_trace_dtype():
    a = np.arange(9, dtype=np.int8).reshape(3, 3) * 40
    result = la.trace(xp.asarray(a), dtype=xp.int8)
    assert result.dtype == xp.int8 and int(result) == np.int8(np.trace(a, dtype=np.int8))
    assert int(la.trace(xp.asarray(a))) == np.trace(a, dtype=np.int64)
    assert la.trace(xp.asarray(a.astype(np.uint16))).dtype == xp.uint64
    assert la.trace(xp.asarray(a.astype(np.float32)), dtype=xp.float64).dtype == xp.float64
    half = la.trace(xp.astype(xp.asarray(a.astype(np.float32)), xp.bfloat16))
    assert half.dtype == xp.bfloat16 and float(half) == np.trace(a)
    with pytest.raises(TypeError, match="cannot be summed"):
        la.trace(xp.asarray(a.astype(np.complex64)), dtype=xp.float32)
    with pytest.raises(TypeError, match="dtype"):
        la.trace(xp.asarray(a), dtype="float64")


# ---- solvers and decompositions ----

square = dict(seed=seeds, dtype=st.sampled_from(FLOATS), batch=batches, n=st.integers(0, 5),
              layout=st.sampled_from(LAYOUTS))


@given(**square)
@settings(max_examples=30)
def test_inv_det_slogdet(seed, dtype, batch, n, layout):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, batch, n, dtype)
    x = array(a, layout)
    close(la.inv(x), np.linalg.inv(a), dtype, scale=10)
    close(la.det(x), np.linalg.det(a), dtype, scale=10)
    sign, logabsdet = la.slogdet(x)
    expected = np.linalg.slogdet(a)
    close(sign, expected.sign, dtype, scale=10)
    close(logabsdet, expected.logabsdet, dtype, scale=10)


@given(**square, k=st.integers(0, 3), vector=st.booleans())
@settings(max_examples=30)
def test_solve(seed, dtype, batch, n, layout, k, vector):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, batch, n, dtype)
    b = values(rng, (n,) if vector else batch[1:] + (n, k), dtype)
    result = la.solve(array(a, layout), array(b, layout))
    expected = strict.linalg.solve(strict.asarray(a), strict.asarray(b))
    close(result, np.asarray(expected), dtype, scale=10)


@given(**square, upper=st.booleans())
@settings(max_examples=30)
def test_cholesky(seed, dtype, batch, n, layout, upper):
    rng = np.random.default_rng(seed)
    a = hermitian_pd(rng, batch, n, dtype)
    lower = np.linalg.cholesky(a)
    expected = np.conj(np.swapaxes(lower, -1, -2)) if upper else lower
    close(la.cholesky(array(a, layout), upper=upper), expected, dtype, scale=10)


@given(**square)
@settings(max_examples=30)
def test_eigh(seed, dtype, batch, n, layout):
    rng = np.random.default_rng(seed)
    a = hermitian_pd(rng, batch, n, dtype)
    w, v = la.eigh(array(a, layout))
    real = np.dtype(dtype).char.lower().replace("f", "float32").replace("d", "float64")
    close(w, np.linalg.eigvalsh(a), dtype, scale=10 * n + 1)
    close(la.eigvalsh(array(a, layout)), np.linalg.eigvalsh(a), dtype, scale=10 * n + 1)
    assert str(w.dtype) == real
    v = np.asarray(v)
    assert v.dtype == a.dtype
    close(xp.asarray(a @ v), v * np.asarray(w)[..., None, :], dtype, scale=10 * n + 1)


@given(**square)
@settings(max_examples=30)
def test_eig(seed, dtype, batch, n, layout):
    rng = np.random.default_rng(seed)
    a = values(rng, batch + (n, n), dtype)
    w, v = la.eig(array(a, layout))
    complex_dtype = np.result_type(a.dtype, np.complex64)
    assert np.asarray(w).dtype == np.asarray(v).dtype == complex_dtype
    w, v = np.asarray(w), np.asarray(v)
    close(xp.asarray(a @ v), v * w[..., None, :], complex_dtype, scale=10 * n + 1)
    if n:
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=RTOL[str(complex_dtype)])
    # Eigenvalues are unordered: compare the polynomials they are the roots of.
    for values_, expected in zip(np.asarray(la.eigvals(array(a))).reshape(-1, n),
                                 np.linalg.eigvals(a).reshape(-1, n)) if n else ():
        close(xp.asarray(np.poly(values_).astype(complex_dtype)),
              np.poly(expected).astype(complex_dtype), complex_dtype, scale=1000)


rectangular = dict(seed=seeds, dtype=st.sampled_from(FLOATS), batch=batches,
                   m=st.integers(0, 5), n=st.integers(0, 5), layout=st.sampled_from(LAYOUTS))


@given(**rectangular, full_matrices=st.booleans())
@settings(max_examples=30)
def test_svd(seed, dtype, batch, m, n, layout, full_matrices):
    rng = np.random.default_rng(seed)
    a = values(rng, batch + (m, n), dtype)
    u, s, vh = la.svd(array(a, layout), full_matrices=full_matrices)
    eu, es, evh = np.linalg.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (eu.shape, es.shape, evh.shape)
    close(s, es, dtype, scale=10)
    close(la.svdvals(array(a)), es, dtype, scale=10)
    u, s, vh = np.asarray(u), np.asarray(s), np.asarray(vh)
    k = min(m, n)
    close(xp.asarray((u[..., :k] * s[..., None, :]) @ vh[..., :k, :]), a, dtype, scale=10)
    for q in (u, np.conj(np.swapaxes(vh, -1, -2))):  # orthonormal columns
        eye = np.broadcast_to(np.eye(q.shape[-1], dtype=a.dtype), q.shape[:-2] + (q.shape[-1],)
                              * 2)
        close(xp.asarray(np.conj(np.swapaxes(q, -1, -2)) @ q), eye, dtype, scale=10)


@given(**rectangular, mode=st.sampled_from(["reduced", "complete"]))
@settings(max_examples=30)
def test_qr(seed, dtype, batch, m, n, layout, mode):
    rng = np.random.default_rng(seed)
    a = values(rng, batch + (m, n), dtype)
    q, r = la.qr(array(a, layout), mode=mode)
    eq, er = np.linalg.qr(a, mode=mode)
    assert (q.shape, r.shape) == (eq.shape, er.shape)
    q, r = np.asarray(q), np.asarray(r)
    close(xp.asarray(q @ r), a, dtype, scale=10)
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    eye = np.broadcast_to(np.eye(q.shape[-1], dtype=a.dtype), q.shape[:-2] + (q.shape[-1],) * 2)
    close(xp.asarray(np.conj(np.swapaxes(q, -1, -2)) @ q), eye, dtype, scale=10)


@given(**rectangular, rtol=st.sampled_from([None, 0.1, "array"]))
@settings(max_examples=30)
def test_pinv_matrix_rank(seed, dtype, batch, m, n, layout, rtol):
    rng = np.random.default_rng(seed)
    a = values(rng, batch + (m, n), dtype)
    if m > 1 and n:
        a[..., -1, :] = a[..., 0, :]  # rank deficient
    tolerance = rtol
    if rtol == "array":
        np_rtol = rng.random(batch[-1:]) * 0.5
        rtol, tolerance = xp.asarray(np_rtol), strict.asarray(np_rtol)
    x = array(a, layout)
    if not a.size:  # NumPy finds no largest singular value
        close(la.pinv(x, rtol=rtol), np.zeros(a.shape[:-2] + (n, m), a.dtype), dtype)
        np.testing.assert_array_equal(np.asarray(la.matrix_rank(x, rtol=rtol)), 0)
        return
    expected = strict.linalg.pinv(strict.asarray(a), rtol=tolerance)
    close(la.pinv(x, rtol=rtol), np.asarray(expected), dtype, scale=1e3)
    expected = strict.linalg.matrix_rank(strict.asarray(a), rtol=tolerance)
    result = la.matrix_rank(x, rtol=rtol)
    assert result.dtype == xp.int64
    np.testing.assert_array_equal(np.asarray(result), np.asarray(expected))


@given(**square, power=st.integers(-3, 5))
@settings(max_examples=30)
def test_matrix_power(seed, dtype, batch, n, layout, power):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, batch, n, dtype) / n if n else np.ones(batch + (0, 0), dtype)
    close(la.matrix_power(array(a, layout), power), np.linalg.matrix_power(a, power), dtype,
          scale=100)


@given(**rectangular, ord=st.sampled_from(["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]),
       keepdims=st.booleans())
@settings(max_examples=40)
def test_matrix_norm(seed, dtype, batch, m, n, layout, ord, keepdims):
    rng = np.random.default_rng(seed)
    m, n = max(m, 1), max(n, 1)
    a = values(rng, batch + (m, n), dtype)
    expected = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
    close(la.matrix_norm(array(a, layout), ord=ord, keepdims=keepdims), expected, dtype,
          scale=10)


@given(seed=seeds, dtype=st.sampled_from(FLOATS),
       shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), data=st.data(),
       ord=st.sampled_from([2, 1, 0, 3, 0.5, -1, -2, math.inf, -math.inf]),
       keepdims=st.booleans(), layout=st.sampled_from(LAYOUTS))
@settings(max_examples=40)
def test_vector_norm(seed, dtype, shape, data, ord, keepdims, layout):
    rng = np.random.default_rng(seed)
    a = values(rng, shape, dtype)
    axis = data.draw(st.none() | st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                                          unique_by=lambda i: i % len(shape)).map(tuple)
                     if shape else st.none())
    if axis is not None and len(axis) == 1 and data.draw(st.booleans()):
        axis = axis[0]
    reduced = math.prod(shape[i] for i in (range(len(shape)) if axis is None else
                                           np.atleast_1d(axis)))
    if reduced == 0 and ord in (-math.inf,) or reduced == 0 and ord < 0:
        return  # NumPy gives no identity for these on empty vectors
    expected = strict.linalg.vector_norm(strict.asarray(a), axis=axis, keepdims=keepdims,
                                         ord=ord)
    result = la.vector_norm(array(a, layout), axis=axis, keepdims=keepdims, ord=ord)
    close(result, np.asarray(expected), dtype, scale=10)


# ---- dtypes, errors, empty input ----


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_computes_in_float32(dtype):
    rng = np.random.default_rng(5)
    a = well_conditioned(rng, (2,), 3, "float32")
    x = xp.astype(xp.asarray(a), getattr(xp, dtype))
    x32 = xp.astype(x, xp.float32)
    for function in (la.inv, la.det, la.svdvals, la.eigvalsh, la.matrix_norm, la.vector_norm,
                     lambda v: la.solve(v, v), lambda v: la.matrix_power(v, 2),
                     lambda v: la.qr(v).R, lambda v: la.slogdet(v).logabsdet):
        result = function(x)
        expected = function(x32)
        assert result.dtype == getattr(xp, dtype)
        np.testing.assert_array_equal(np.asarray(xp.astype(result, xp.float32)),
                                      np.asarray(xp.astype(xp.astype(expected, result.dtype),
                                                           xp.float32)))
    assert la.eigvals(x).dtype == xp.complex64


@pytest.mark.parametrize("name", ["cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv",
                                  "matrix_norm", "pinv", "qr", "slogdet", "svd",
                                  "svdvals", "vector_norm"])
@pytest.mark.parametrize("dtype", ["int32", "bool"])
def test_floating_only(name, dtype):
    x = xp.asarray(np.eye(2, dtype=dtype))
    with pytest.raises(TypeError, match="floating-point"):
        getattr(la, name)(x)
    with pytest.raises(TypeError):
        getattr(strict.linalg, name)(strict.asarray(np.eye(2, dtype=dtype)))


@pytest.mark.parametrize("dtype", ["int8", "uint64", "bool"])
def test_matrix_rank_of_integers(dtype):
    a = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype)
    result = la.matrix_rank(xp.asarray(a))
    assert result.dtype == xp.int64 and int(result) == int(
        strict.linalg.matrix_rank(strict.asarray(a))) == 2


@pytest.mark.parametrize("name", ["cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv",
                                  "slogdet"])
def test_square_only(name):
    with pytest.raises(ValueError, match="square"):
        getattr(la, name)(xp.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError, match="2-D"):
        getattr(la, name)(xp.asarray(np.ones(3)))


def test_numerical_errors():
    singular = xp.asarray(np.ones((2, 2)))
    for call in (lambda: la.inv(singular), lambda: la.solve(singular, singular),
                 lambda: la.matrix_power(singular, -1), lambda: la.cholesky(-singular),
                 lambda: la.inv(xp.asarray(np.full((2, 2), np.nan)))):
        with pytest.raises(la.LinAlgError):
            call()
    assert issubclass(la.LinAlgError, ValueError)
    assert float(la.det(singular)) == 0.0
    sign, logabsdet = la.slogdet(singular)
    assert float(sign) == 0.0 and float(logabsdet) == -math.inf


def test_argument_errors():
    x = xp.asarray(np.eye(3))
    with pytest.raises(ValueError, match="mode"):
        la.qr(x, mode="r")
    with pytest.raises(ValueError, match="ord"):
        la.matrix_norm(x, ord=3)
    with pytest.raises(TypeError, match="ord"):
        la.vector_norm(x, ord="fro")
    with pytest.raises(ValueError, match="out of bounds"):
        la.vector_norm(x, axis=2)
    with pytest.raises(ValueError, match="more than once"):
        la.vector_norm(x, axis=(0, -2))
    with pytest.raises(TypeError, match="n must be an int"):
        la.matrix_power(x, 1.5)
    with pytest.raises(TypeError, match="rtol"):
        la.pinv(x, rtol="small")
    with pytest.raises(TypeError, match="rtol"):
        la.matrix_rank(x, rtol=xp.asarray(np.ones(1, np.int64)))
    with pytest.raises(ValueError, match="does not match"):
        la.solve(x, xp.asarray(np.ones(2)))
    with pytest.raises(TypeError, match="offset"):
        la.diagonal(x, offset=1.0)


def test_empty_matrices():
    close(la.det(xp.asarray(np.ones((2, 0, 0)))), np.ones(2), "float64")
    close(la.inv(xp.asarray(np.ones((0, 3, 3)))), np.ones((0, 3, 3)), "float64")
    u, s, vh = la.svd(xp.asarray(np.ones((2, 0, 3))))
    close(vh, np.broadcast_to(np.eye(3), (2, 3, 3)), "float64")
    assert u.shape == (2, 0, 0) and s.shape == (2, 0)
    q, r = la.qr(xp.asarray(np.ones((3, 0))), mode="complete")
    close(q, np.eye(3), "float64")
    assert r.shape == (3, 0)
    close(la.matrix_norm(xp.asarray(np.ones((2, 0, 3)))), np.zeros(2), "float64")
    close(la.matrix_rank(xp.asarray(np.ones((2, 3, 0)))), np.zeros(2, np.int64), "int64")
    close(la.pinv(xp.asarray(np.ones((3, 0)))), np.zeros((0, 3)), "float64")


def test_result_types_are_named_tuples():
    x = xp.asarray(np.eye(2))
    assert type(la.eigh(x)).__name__ == "EighResult" and la.eigh(x)._fields == (
        "eigenvalues", "eigenvectors")
    assert la.eig(x)._fields == ("eigenvalues", "eigenvectors")
    assert la.qr(x)._fields == ("Q", "R")
    assert la.slogdet(x)._fields == ("sign", "logabsdet")
    assert la.svd(x)._fields == ("U", "S", "Vh")
    assert set(strict.linalg.__all__) <= set(la.__all__)
