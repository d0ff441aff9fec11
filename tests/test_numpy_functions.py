"""NumPy's functions and methods on dlnumba arrays (NEP 18's ``__array_function__``): each
call gives a dlnumba array with the values and dtype NumPy gives for the same values, checked
against NumPy in the same process over dtypes, shapes and strided, reversed and transposed
layouts; on CUDA (the simulator) dlnumba's kernels answer, or NumPy raises its TypeError."""

import warnings

import numpy as np
import pytest
from hypothesis import given, note, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from helpers import NUMPY_NAMES, axes, to_numpy

FLOATS = {"float16": 1e-2, "float32": 2e-5, "complex64": 2e-5, "float64": 1e-12,
          "complex128": 1e-12}


@st.composite
def arrays(draw, dtypes=NUMPY_NAMES, min_dims=0):
    """A dlnumba array in some layout (stepped, reversed, transposed) and a NumPy array of the
    same values."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=5))
    elements = None
    if dtype.kind in "fc":
        real = st.floats(-100, 100, width=16 if dtype == np.float16 else 64)
        real = real if dtype.kind == "f" else st.builds(complex, real, real)
        elements = st.one_of(real, st.sampled_from([np.nan, 0.0, -0.0]))
    values = draw(hnp.arrays(dtype, shape, elements=elements))
    key = tuple(slice(None, None, draw(st.sampled_from([1, -1, 2]))) for _ in shape)
    x, values = xp.asarray(values.copy())[key], values[key]
    if values.ndim >= 2 and draw(st.booleans()):
        x, values = x.mT, np.swapaxes(values, -1, -2)
    return x, values


def outcome(call, *arguments, **keywords):
    """``call(*arguments, **keywords)``'s result, or the exception it raises; NumPy's warnings
    silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(*arguments, **keywords)
        except Exception as error:  # compared with NumPy's below
            return error


def assert_numpy_result(ours, theirs, exact=False, atol=0.0):
    """``ours`` (a dlnumba call's result) is NumPy's ``theirs`` as dlnumba arrays: the same
    dtype, shape and values (floating sums within a few ulps of the dtype: the pairing of the
    sums may differ; within ``atol`` too), or the same kind of exception (NumPy's type or one
    of its bases: its AxisError is an IndexError and a ValueError)."""
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), (f"NumPy raises {theirs!r}", ours)
        assert isinstance(ours, (type(theirs), *type(theirs).__bases__)), (ours, theirs)
        return
    if isinstance(ours, Exception):
        raise ours
    if isinstance(theirs, tuple):
        assert type(ours) is tuple and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_numpy_result(a, b, exact)
        return
    if not isinstance(theirs, (np.ndarray, np.generic)):
        assert ours == theirs
        return
    assert type(ours) is xp.ndarray, type(ours)
    theirs = np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours, theirs)
    rtol = 0.0 if exact else FLOATS.get(theirs.dtype.name, 0.0)
    np.testing.assert_allclose(to_numpy(ours), theirs, rtol=rtol, atol=atol, equal_nan=True)


def axis_of(ndim, data):
    """An int axis of ``ndim`` dimensions or None."""
    return data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)) if ndim else st.none())


REDUCTIONS = [np.sum, np.prod, np.mean, np.std, np.var, np.max, np.min, np.any, np.all,
              np.nansum, np.nanprod, np.nanmean, np.nanstd, np.nanvar, np.nanmax, np.nanmin,
              np.amax, np.amin, np.median, np.nanmedian, np.ptp, np.count_nonzero]


@pytest.mark.parametrize("function", REDUCTIONS, ids=lambda f: f.__name__)
@given(data=st.data())
def test_reductions(function, data):
    """Reductions with ``axis`` (None, an int or a tuple) and ``keepdims``; std and var with
    ``ddof``."""
    x, values = data.draw(arrays())
    keywords = {"axis": data.draw(axes(values.ndim))}
    if function is not np.count_nonzero:
        keywords["keepdims"] = data.draw(st.booleans())
    if function in (np.std, np.var, np.nanstd, np.nanvar):
        keywords["ddof"] = data.draw(st.sampled_from([0, 1]))
    note(f"{function.__name__}({values.dtype} {values.shape}, {keywords})")
    exact = function in (np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin, np.any,
                         np.all, np.count_nonzero)
    theirs = outcome(function, values, **keywords)
    assert_numpy_result(outcome(function, x, **keywords), theirs, exact,
                        spread_error(function, values, theirs))


def spread_error(function, values, result):
    """The error NumPy's own std and var of ``values`` may have where the deviations cancel
    (its mean is off by up to one rounding per element, of the largest finite magnitude), in
    the dtype of its ``result``; 0 for other functions."""
    deviations = {np.std: 1, np.nanstd: 1, np.var: 2, np.nanvar: 2}.get(function)
    if deviations is None or not values.size or not isinstance(result, (np.ndarray, np.generic)):
        return 0.0
    magnitudes = np.abs(values.astype(np.complex128 if values.dtype.kind == "c" else np.float64))
    finite = magnitudes[np.isfinite(magnitudes)]
    error = values.size * np.finfo(result.dtype).eps * (finite.max() if finite.size else 0.0)
    return error ** deviations


@pytest.mark.parametrize("function", [np.argmax, np.argmin, np.nanargmax, np.nanargmin,
                                      np.cumsum, np.cumprod, np.nancumsum, np.nancumprod,
                                      np.sort, np.flip, np.diff, np.ravel, np.squeeze],
                         ids=lambda f: f.__name__)
@given(data=st.data())
def test_along_one_axis(function, data):
    """Functions of one axis or None (flattened)."""
    x, values = data.draw(arrays())
    keywords = {}
    if function is not np.ravel:
        keywords["axis"] = axis_of(values.ndim, data)
    if function is np.squeeze and keywords["axis"] is not None:
        keywords["axis"] = data.draw(st.sampled_from(
            [d for d, n in enumerate(values.shape) if n == 1] or [0]))
    if function is np.diff and keywords["axis"] is None:
        keywords["axis"] = -1
    if function in (np.argmax, np.argmin) and data.draw(st.booleans()):
        keywords["keepdims"] = True
    note(f"{function.__name__}({values.dtype} {values.shape}, {keywords})")
    exact = function not in (np.cumsum, np.cumprod, np.nancumsum, np.nancumprod, np.diff)
    assert_numpy_result(outcome(function, x, **keywords), outcome(function, values, **keywords),
                        exact)


@given(data=st.data())
def test_argsort_orders_as_numpy(data):
    """argsort's indices sort the values as NumPy's do (stable: the same indices)."""
    x, values = data.draw(arrays())
    axis = axis_of(values.ndim, data)
    stable = data.draw(st.booleans())
    ours = np.argsort(x, axis=axis, stable=stable)
    theirs = np.argsort(values, axis=axis, stable=stable)
    assert type(ours) is xp.ndarray and ours.dtype == theirs.dtype and ours.shape == theirs.shape
    flat = values.reshape(-1) if axis is None else values
    taken = np.take_along_axis(flat, to_numpy(ours), axis=-1 if axis is None else axis)
    np.testing.assert_array_equal(taken, np.sort(values, axis=axis))
    if stable:
        np.testing.assert_array_equal(to_numpy(ours), theirs)


SHAPES = {
    "concatenate": lambda a: np.concatenate([a, a[::-1]], axis=-1 if a.ndim else None),
    "concatenate None": lambda a: np.concatenate([a, a], axis=None),
    "stack": lambda a: np.stack([a, a], axis=a.ndim),
    "where": lambda a: np.where(a != 0, a, 1),
    "where scalars": lambda a: np.where(a != 0, 2.5, 1),
    "where one": lambda a: np.where(a != 0),
    "nonzero": np.nonzero,
    "transpose": np.transpose,
    "transpose axes": lambda a: np.transpose(a, tuple(range(a.ndim))[::-1]),
    "reshape": lambda a: np.reshape(a, -1),
    "reshape shape": lambda a: np.reshape(a, (1, a.size)),
    "moveaxis": lambda a: np.moveaxis(a, 0, -1),
    "broadcast_to": lambda a: np.broadcast_to(a, (2, *a.shape)),
    "expand_dims": lambda a: np.expand_dims(a, 0),
    "roll": lambda a: np.roll(a, 2),
    "roll axis": lambda a: np.roll(a, -1, axis=0),
    "repeat": lambda a: np.repeat(a, 2),
    "repeat axis": lambda a: np.repeat(a, 2, axis=0),
    "tile": lambda a: np.tile(a, 2),
    "copy": np.copy,
    "take": lambda a: np.take(a, xp.asarray([0, -1]) if isinstance(a, xp.ndarray)
                              else np.asarray([0, -1]), axis=0),
    "take flat": lambda a: np.take(a, [1, 0]),
    "clip": lambda a: np.clip(a, -1, 1),
    "clip upper": lambda a: np.clip(a, None, 3),
    "clip float bounds": lambda a: np.clip(a, 0.5, 2.5),
    "clip array bounds": lambda a: np.clip(a, a[:1].astype(np.float32), None),
    "round": np.round,
    "around": np.around,
    "round decimals": lambda a: np.round(a, 1),
    "tensordot": lambda a: np.tensordot(a, a, axes=a.ndim),
    "tensordot int pair": lambda a: np.tensordot(a, a, axes=(0, 0)),
    "tensordot lists": lambda a: np.tensordot(a, a, axes=([0], [0])),
    "dot": lambda a: np.dot(a, np.transpose(a)),
    "einsum": lambda a: np.einsum("i...->...", a),
    "quantile": lambda a: np.quantile(a, 0.3, axis=0),
    "percentile": lambda a: np.percentile(a, [10, 90], method="nearest"),
    "average": lambda a: np.average(a, axis=0),
    "isclose": lambda a: np.isclose(a, a[::-1]),
    "allclose": lambda a: np.allclose(a, a),
    "array_equal": lambda a: np.array_equal(a, a),
    "unique": np.unique,
    "searchsorted": lambda a: np.searchsorted(np.sort(a.reshape(-1)), a.reshape(-1)[:2]),
    "empty_like shape": lambda a: np.empty_like(a, shape=(2, 3)).shape,
    "zeros_like": np.zeros_like,
    "ones_like dtype": lambda a: np.ones_like(a, dtype=np.int16),
    "full_like": lambda a: np.full_like(a, 7),
    "atleast_2d": np.atleast_2d,
    "swapaxes": lambda a: np.swapaxes(a, 0, -1),
    "triu": np.triu,
    "outer": lambda a: np.outer(a, a),
    "cov": lambda a: np.cov(a.reshape(-1)),
    "histogram": lambda a: np.histogram(a.real.astype(float), bins=3),
    "shape": np.shape,
    "ndim": np.ndim,
    "size": np.size,
}
INEXACT = {"quantile", "percentile", "average", "tensordot", "tensordot int pair",
           "tensordot lists", "dot", "einsum", "outer", "cov", "histogram"}  # sums: a few ulps


@pytest.mark.parametrize("name", SHAPES)
@given(data=st.data())
def test_functions_against_numpy(name, data):
    """Joining, selecting, reshaping, rounding, products, quantiles and the rest: NumPy's result,
    as dlnumba arrays; those dlnumba has no namesake for run NumPy on views."""
    x, values = data.draw(arrays(min_dims=1))
    call = SHAPES[name]
    note(f"{name}({values.dtype} {values.shape})")
    assert_numpy_result(outcome(call, x), outcome(call, values), name not in INEXACT)


METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]
QS = [0.0, 0.3, 0.5, 1.0, 1, [0.0, 0.25, 1.0], np.float32(0.7), np.array([[0.1, 0.9]])]


@given(data=st.data())
def test_quantiles_are_numpys_bits(data):
    """np.quantile, np.percentile and np.median of dlnumba arrays (dlnumba's sort and gathers,
    NumPy's positions and weights) give NumPy's bits and dtypes for all 13 methods, q as a
    Python scalar (weak), a NumPy scalar or an array, axes None, int or tuple, NaNs."""
    x, values = data.draw(arrays([d for d in NUMPY_NAMES if not d.startswith("complex")],
                                 min_dims=1))
    method, q = data.draw(st.sampled_from(METHODS)), data.draw(st.sampled_from(QS))
    axis, keepdims = data.draw(axes(values.ndim)), data.draw(st.booleans())
    note(f"{method} {q!r} axis={axis} keepdims={keepdims} {values.dtype} {values.shape}")
    for function, scaled in ((np.quantile, q), (np.percentile, np.multiply(q, 100)
                                                  if not isinstance(q, (int, float)) else q * 100)):
        call = (lambda a: function(a, scaled, axis=axis, method=method, keepdims=keepdims))
        assert_numpy_result(outcome(call, x), outcome(call, values), exact=True)
    call = (lambda a: np.median(a, axis=axis, keepdims=keepdims))
    assert_numpy_result(outcome(call, x), outcome(call, values), exact=True)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii->i", [(4, 4)]),
           ("ii", [(4, 4)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("i,i", [(5,), (5,)]),
           ("i,j->ij", [(3,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
           ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("...i,i...", [(5, 2, 3), (3, 2)]),
           ("ij,j->i", [(3, 4), (1,)]), ("iij->j", [(3, 3, 4)]),
           ("ijk,jl,lm->ikm", [(2, 3, 4), (3, 5), (5, 2)]), ("Ba,aC", [(2, 3), (3, 4)]),
           ("ba", [(2, 3)]), ("i,i,i->", [(4,), (4,), (4,)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
           ("ij,kl->", [(2, 3), (0, 4)]), ("ijk->kji", [(2, 0, 3)]),
           ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]), ("i,...->i...", [(3,), (2, 2)]),
           ("ij,jk->ik", [(3, 0), (0, 2)]), ("ii,jj", [(2, 3), (2, 2)]), ("i,i", [(3,), (4,)]),
           ("ij->k", [(2, 2)]), ("ij", [(2,)]), ("i,j,k", [(2,), (2,)]),
           ("i,i->i", [(1,), (0,)]), ("ij,jk->ik", [(2, 1), (3, 2)])]


@pytest.mark.parametrize("subscripts, shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
@given(data=st.data())
def test_einsum(subscripts, shapes, data):
    """xp.einsum (and np.einsum of dlnumba arrays) gives NumPy's dtype and values, for every mix
    of dtypes (NumPy's promotion of them all at once), and NumPy's kind of error for bad
    subscripts."""
    dtypes = data.draw(st.lists(st.sampled_from(NUMPY_NAMES), min_size=len(shapes),
                                max_size=len(shapes)))
    values = [data.draw(hnp.arrays(np.int8, s, elements=st.integers(
        0 if d[0] in "ub" else -3, 3))).astype(d) for d, s in zip(dtypes, shapes)]
    # small values: NumPy's overflows, and sums of huge values that cancel, are its loops' own
    arrays_ = [xp.asarray(v) for v in values]
    theirs = outcome(np.einsum, subscripts, *values)
    for call in (xp.einsum, np.einsum):
        ours = outcome(call, subscripts, *arrays_)
        if isinstance(theirs, Exception) or isinstance(ours, Exception):
            assert_numpy_result(ours, theirs)
            continue
        assert type(ours) is xp.ndarray and ours.dtype == theirs.dtype
        assert ours.shape == np.shape(theirs)
        tolerance = {"float16": 2e-2}.get(np.asarray(theirs).dtype.name, 1e-5)
        np.testing.assert_allclose(to_numpy(ours), theirs, rtol=tolerance,
                                   atol=tolerance * float(np.max(np.abs(theirs), initial=1)))


def test_einsum_views_and_operand_errors():
    """A diagonal or a relabelling is a view, as NumPy's is; a non-array operand is refused."""
    x = xp.reshape(xp.arange(9.0), (3, 3))
    diagonal = xp.einsum("ii->i", x)
    x[1, 1] = 50.0
    assert float(diagonal[1]) == 50.0
    with pytest.raises(TypeError, match="einsum expects a dlnumba.ndarray, not list"):
        xp.einsum("i", [1, 2])


def test_quantile_errors_name_the_value():
    """q outside its range, an unknown method and complex values raise, naming them."""
    x = xp.asarray([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        xp.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"range \[0, 100\]"):
        xp.percentile(x, [50, 101])
    with pytest.raises(ValueError, match="'cubic' is not a method"):
        xp.quantile(x, 0.5, method="cubic")
    with pytest.raises(TypeError, match="median takes arrays of real or bool dtypes"):
        xp.median(xp.asarray([1j]))
    with pytest.raises(ValueError, match="empty"):
        xp.quantile(xp.asarray([]), 0.5)


def test_the_issues_calls_keep_dlnumba():
    """The 13 calls issue 43 names: each is a dlnumba array with NumPy's values and dtype."""
    values = np.arange(24.0).reshape(4, 6) - 7.5
    x = xp.asarray(values)
    for call in (np.mean, np.median, np.cumsum, lambda a: np.concatenate([a, a]),
                 lambda a: np.where(a > 0, a, 0), lambda a: np.einsum("ij,kj->ik", a, a)):
        assert_numpy_result(call(x), call(values), exact=True)


def test_nan_results_and_integer_means_follow_numpy():
    """NumPy's rules where dlnumba's own functions would differ: int mean is float64, a mean
    of float16 is float16, an all-NaN slice's nanmax is NaN, complex values are ordered."""
    values = np.array([[1 + 2j, 1 - 1j], [np.nan, 0]], np.complex64)
    for call in (np.max, np.argmax, np.sort, lambda a: np.clip(a, 0, 1)):
        assert_numpy_result(outcome(call, xp.asarray(values)), outcome(call, values), True)
    ints = np.arange(10, dtype=np.int8)
    assert_numpy_result(np.mean(xp.asarray(ints)), np.mean(ints))
    half = np.linspace(0, 1, 5, dtype=np.float16)
    assert_numpy_result(np.mean(xp.asarray(half)), np.mean(half))
    nans = np.full((2, 2), np.nan)
    with pytest.warns(RuntimeWarning):
        np.nanmax(nans, axis=0)
    assert_numpy_result(outcome(np.nanmax, xp.asarray(nans), 0), outcome(np.nanmax, nans, 0))


def test_out_where_and_initial_run_numpy_in_place():
    """``out=`` gets NumPy's values in place and is returned as given; ``where=`` and
    ``initial=`` take NumPy's own path."""
    values = np.arange(12.0).reshape(3, 4)
    x, out = xp.asarray(values), xp.zeros(4, dtype=xp.float64)
    assert np.sum(x, axis=0, out=out) is out
    np.testing.assert_array_equal(to_numpy(out), values.sum(axis=0))
    mask = values > 4
    assert_numpy_result(np.sum(x, where=xp.asarray(mask)), np.sum(values, where=mask), True)
    assert_numpy_result(np.max(x, initial=100.0), np.max(values, initial=100.0), True)


def test_methods_numpy_users_call():
    """The methods NumPy users expect: NumPy's signatures (shapes as separate ints, ddof,
    in-place sort), dlnumba results."""
    values = np.arange(24.0).reshape(2, 3, 4)[:, ::-1]
    for name, args, kwargs in [
            ("sum", (), {"axis": 1}), ("prod", (0,), {}), ("mean", (), {"keepdims": True}),
            ("std", (), {"ddof": 1}), ("var", (2,), {}), ("max", (), {}), ("min", (1,), {}),
            ("any", (), {}), ("all", (0,), {}), ("argmax", (), {"axis": 2}), ("argmin", (), {}),
            ("cumsum", (1,), {}), ("cumprod", (), {}), ("squeeze", (), {}), ("clip", (2, 9), {}),
            ("round", (), {}), ("take", ([0, 2],), {"axis": 1}), ("repeat", (2,), {}),
            ("nonzero", (), {}), ("argsort", (), {"axis": 0}), ("copy", (), {}),
            ("swapaxes", (0, 2), {}), ("reshape", (4, 6), {}), ("reshape", ((6, 4),), {}),
            ("reshape", (-1,), {}), ("transpose", (), {}), ("transpose", (1, 0, 2), {}),
            ("transpose", ((2, 0, 1),), {}), ("astype", ("f4",), {}),
            ("astype", (np.int16,), {"copy": False}), ("flatten", (), {}), ("ravel", (), {}),
            ("conj", (), {}), ("conjugate", (), {})]:
        ours = getattr(xp.asarray(values), name)(*args, **kwargs)
        assert_numpy_result(ours, getattr(values, name)(*args, **kwargs), exact=True)
    x = xp.asarray(values)
    assert x.tolist() == values.tolist() and x[1, 2, 3].item() == values[1, 2, 3].item()
    assert x.item(5) == values.item(5) and type(x[0, 0, 0].item()) is float
    assert np.dot(x[0], x[0].T).shape == (3, 3)
    with pytest.raises(TypeError, match="cannot cast"):
        x.astype(np.int8, casting="safe")
    with pytest.warns(np.exceptions.ComplexWarning):
        assert x.astype(np.complex64).astype(np.float32).tolist() == values.astype(
            np.float32).tolist()
    shuffled = np.array([[3, 1, 2], [9, 7, 8]])
    y = xp.asarray(shuffled)
    assert y.sort(axis=1) is None
    shuffled.sort(axis=1)
    np.testing.assert_array_equal(to_numpy(y), shuffled)
    y.fill(4)
    assert y.tolist() == [[4] * 3] * 2


def test_flatten_copies_and_ravel_views():
    """flatten always copies; ravel is a view of a C-contiguous array, as in NumPy."""
    x = xp.reshape(xp.arange(6), (2, 3))
    flat, raveled = x.flatten(), x.ravel()
    x[0, 0] = 9
    assert int(flat[0]) == 0 and int(raveled[0]) == 9


def test_like_makes_dlnumba_arrays():
    """``like=`` and the ``*_like`` functions make dlnumba arrays (Dask's way of making a
    chunk's kind of array); a dtype dlnumba lacks raises TypeError, as CuPy's does."""
    x = xp.asarray([1.0, 2.0])
    for made in (np.asarray([1, 2], like=x), np.zeros(3, like=x), np.arange(4, like=x),
                 np.empty_like(x, shape=(2, 2)), np.full_like(x, 5, shape=3)):
        assert type(made) is xp.ndarray
    with pytest.raises(TypeError, match="no dlnumba equivalent"):
        np.empty_like(x, dtype=[("a", "f8"), ("b", "i8")])


def test_numpy_scalars_from_ufuncs_are_arrays():
    """A ufunc's 0-d result is a 0-d dlnumba array too, as a function's is (its type does not
    depend on which function NumPy ran)."""
    x = xp.asarray(2.0)
    for result in (np.add(x, 1), np.sqrt(x), np.mean(x), np.sum(xp.asarray([1, 2]))):
        assert type(result) is xp.ndarray and result.ndim == 0


def test_strict_mode_runs_numpy_on_views():
    """In strict mode NumPy's functions still give NumPy's results: the int mean the standard
    refuses is float64, as NumPy says."""
    x = xp.asarray([1, 2, 4])
    with xp.strict():
        assert_numpy_result(np.mean(x), np.mean(np.asarray([1, 2, 4])), True)


def test_other_arrays_take_precedence():
    """An argument of another library that implements the protocol (a Dask array) answers
    first; dlnumba answers NotImplemented to it."""
    class Other:
        def __array_function__(self, function, types, args, kwargs):
            return "other"
    assert np.concatenate([xp.asarray([1.0]), Other()]) == "other"


def test_indexing_with_numpy_arrays_among_dlnumba_ones():
    """A NumPy integer array in an index beside a dlnumba one (Dask's argmax does this)."""
    values = np.arange(12).reshape(3, 4)
    x = xp.asarray(values)
    rows, cols = np.array([[0], [2]]), xp.asarray([1, 3])
    np.testing.assert_array_equal(to_numpy(x[rows, cols]), values[rows, np.asarray([1, 3])])
    x[np.array([0, 1]), xp.asarray([0, 0])] = -1
    values[[0, 1], [0, 0]] = -1
    np.testing.assert_array_equal(to_numpy(x), values)


def cuda_device():
    """A CUDA device (the simulator's in CI); the test is skipped where there is none."""
    devices = [d for d in xp.__array_namespace_info__().devices() if d.type == "cuda"]
    if not devices:
        pytest.skip("no CUDA device (or simulator) here")
    return devices[0]


def test_cuda_arrays_run_dlnumba_kernels_or_refuse():
    """On CUDA, functions with a dlnumba namesake run on the device; the others raise NumPy's
    TypeError naming the function, as CuPy's do."""
    device = cuda_device()
    values = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(values, device=device)
    for call in (np.sum, np.mean, lambda a: np.concatenate([a, a]),
                 lambda a: np.where(a > 2, a, 0), np.transpose, lambda a: a.sum(axis=0),
                 lambda a: np.quantile(a, [0.2, 0.5], axis=1), np.median):
        result = call(x)
        assert result.device == device
        np.testing.assert_array_equal(to_numpy(result), call(values))
    with pytest.raises(TypeError, match="average"):
        np.average(x)
    with pytest.raises(TypeError, match="swapaxes has no dlnumba implementation"):
        x.swapaxes(0, 1)
    assert x.tolist() == values.tolist()
