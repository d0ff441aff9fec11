"""The fft extension: every function against NumPy's pocketfft (which it hands the memory to)
and against array-api-strict for the result dtypes the standard asks for, over dtypes, layouts
(reversed, transposed, broadcast), n/s, axis/axes and norm; fftshift/ifftshift (rolls by the
copy engine) for every floating dtype; and the errors.
"""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st
from hypothesis.extra import numpy as hnp

import array_api_strict as strict

import dlnumba as xp
from dlnumba._dtypes import as_dtype

from helpers import COMPLEX, HALF, REAL_FLOATS, to_numpy

ONE_AXIS = {"fft": "complex", "ifft": "complex", "rfft": "real", "irfft": "complex",
            "hfft": "complex", "ihfft": "real"}
N_AXES = {"fftn": "complex", "ifftn": "complex", "rfftn": "real", "irfftn": "complex"}
DTYPES_BY_KIND = {"complex": COMPLEX, "real": [d for d in REAL_FLOATS if d not in HALF]}
NORMS = ["backward", "ortho", "forward"]


@st.composite
def inputs(draw, kind, min_side=1):
    """(NumPy array, dlnumba array over its memory) of a random layout."""
    name = draw(st.sampled_from(DTYPES_BY_KIND[kind]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=6))
    part = st.floats(-100, 100, width=32 if name in ("float32", "complex64") else 64)
    a = draw(hnp.arrays(name, shape, elements=part if kind == "real" else st.builds(
        complex, part, part)))
    layout = draw(st.sampled_from(["contiguous", "reversed", "transposed", "broadcast"]))
    event(layout)
    if layout == "reversed":
        a = a[::-1]
    elif layout == "transposed":
        a = a.T
    elif layout == "broadcast":
        a = np.broadcast_to(a[:1], a.shape)
    return a, xp.asarray(a)


def strict_dtype(name, a, **kwargs):
    """The dtype array-api-strict gives (its names are the standard's)."""
    out = getattr(strict.fft, name)(strict.asarray(a), **kwargs)
    return out.dtype._np_dtype


def check(result, a, name, expected):
    """``result`` is NumPy's transform in the standard's dtype; the input is untouched."""
    before = a.copy()
    assert as_dtype(result.dtype).storage == expected.dtype
    values = to_numpy(result)
    assert values.shape == expected.shape
    np.testing.assert_array_equal(values, expected)
    assert np.array_equal(a, before)


@given(st.data())
def test_one_axis_transforms(data):
    name = data.draw(st.sampled_from(sorted(ONE_AXIS)))
    a, x = data.draw(inputs(ONE_AXIS[name], min_side=2))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.none() | st.integers(2, 9))
    norm = data.draw(st.sampled_from(NORMS))
    kwargs = {"n": n, "axis": axis, "norm": norm}
    dtype = strict_dtype(name, a, **kwargs)
    expected = getattr(np.fft, name)(a, **kwargs).astype(dtype)
    check(getattr(xp.fft, name)(x, **kwargs), a, name, expected)


@given(st.data())
def test_n_dimensional_transforms(data):
    name = data.draw(st.sampled_from(sorted(N_AXES)))
    a, x = data.draw(inputs(N_AXES[name], min_side=2))
    kwargs = {"norm": data.draw(st.sampled_from(NORMS))}
    if data.draw(st.booleans()):
        axes = data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), min_size=1,
                                  max_size=a.ndim, unique_by=lambda v: v % a.ndim))
        kwargs["axes"] = tuple(axes)
        if data.draw(st.booleans()):
            kwargs["s"] = tuple(data.draw(st.integers(2, 7) | st.just(-1)) for _ in axes)
    event(", ".join(sorted(kwargs)))
    dtype = strict_dtype(name, a, **kwargs)
    expected = getattr(np.fft, name)(a, **kwargs).astype(dtype)
    check(getattr(xp.fft, name)(x, **kwargs), a, name, expected)


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_round_trips(name):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(name)
    x = xp.asarray(a)
    tol = 1e-5 if name == "complex64" else 1e-12
    np.testing.assert_allclose(to_numpy(xp.fft.ifft(xp.fft.fft(x))), a, atol=tol)
    np.testing.assert_allclose(to_numpy(xp.fft.ifftn(xp.fft.fftn(x))), a, atol=tol)
    real = xp.real(x)
    back = xp.fft.irfft(xp.fft.rfft(real), n=6)
    assert back.dtype is real.dtype
    np.testing.assert_allclose(to_numpy(back), a.real, atol=tol)
    back = xp.fft.irfftn(xp.fft.rfftn(real), s=(4, 6), axes=(0, 1))
    np.testing.assert_allclose(to_numpy(back), a.real, atol=tol)
    back = xp.fft.hfft(xp.fft.ihfft(real), n=6)
    np.testing.assert_allclose(to_numpy(back), a.real, atol=tol)


@given(st.sampled_from(["fftfreq", "rfftfreq"]), st.integers(1, 20),
       st.floats(0.1, 10) | st.integers(1, 5) | st.just(1.0),
       st.sampled_from([None, "float32", "float64", "float16"]))
def test_frequencies(name, n, d, dtype):
    expected = getattr(np.fft, name)(n, d)
    kwargs = {} if dtype is None else {"dtype": getattr(xp, dtype)}
    r = getattr(xp.fft, name)(n, d=d, **kwargs)
    assert r.dtype is getattr(xp, dtype or "float64")
    assert to_numpy(r).tobytes() == expected.astype(dtype or "float64").tobytes()
    strict_kwargs = {} if dtype in (None, "float16") else {"dtype": getattr(strict, dtype)}
    assert getattr(strict.fft, name)(n, d=d, **strict_kwargs).shape == r.shape


def test_frequencies_bfloat16_and_device():
    r = xp.fft.rfftfreq(4, dtype=xp.bfloat16, device="cpu")
    assert r.dtype is xp.bfloat16 and r.device == xp.Device("cpu")
    assert to_numpy(r).tolist() == [0.0, 0.25, 0.5]
    assert to_numpy(xp.fft.fftfreq(4, device=xp.Device("cpu"))).tolist() == [0, 0.25, -0.5,
                                                                               -0.25]


@given(st.data())
def test_shifts(data):
    name = data.draw(st.sampled_from(REAL_FLOATS + COMPLEX))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    bits = np.arange(int(np.prod(shape)), dtype=np.uint16).reshape(shape)
    a = bits if name == "bfloat16" else bits.astype(name)
    if a.ndim and data.draw(st.booleans()):
        a = a[::-1]
    x = xp.asarray(a)
    if name == "bfloat16":
        x = xp.ndarray._new(x._address, x.shape, x._strides, as_dtype(xp.bfloat16), x.device,
                            x._owner, x._readonly)
    axes = None
    if a.ndim and data.draw(st.booleans()):
        axes = data.draw(st.integers(-a.ndim, a.ndim - 1) | st.lists(
            st.integers(-a.ndim, a.ndim - 1), max_size=a.ndim, unique_by=lambda v: v % a.ndim)
            .map(tuple))
    for function in ("fftshift", "ifftshift"):
        r = getattr(xp.fft, function)(x, axes=axes)
        assert r.dtype is getattr(xp, name)
        # NumPy fails on 0-d arrays; shifting one gives it back.
        expected = getattr(np.fft, function)(a, axes=axes) if a.ndim else a
        assert np.asarray(r).tobytes() == np.ascontiguousarray(expected).tobytes()
        if a.size:
            assert not np.shares_memory(np.asarray(r), a)


@pytest.mark.parametrize("name", sorted(ONE_AXIS) + sorted(N_AXES))
def test_input_dtype_errors(name):
    """As array-api-strict: complex transforms refuse real input and the reverse; integers,
    bool, float16 and bfloat16 are refused everywhere."""
    kind = {**ONE_AXIS, **N_AXES}[name]
    wrong = ["bool", "int32", "uint8"] + HALF + DTYPES_BY_KIND[
        "real" if kind == "complex" else "complex"]
    function = getattr(xp.fft, name)
    for dtype in wrong:
        x = xp.ones(4, dtype=getattr(xp, dtype))
        with pytest.raises(TypeError, match=dtype):
            function(x)
        if dtype not in HALF:
            with pytest.raises(TypeError):
                getattr(strict.fft, name)(strict.ones(4, dtype=getattr(strict, dtype)))
    with pytest.raises(TypeError):
        function(np.ones(4, dtype=DTYPES_BY_KIND[kind][0]))


@pytest.mark.parametrize("name", sorted(ONE_AXIS))
def test_one_axis_argument_errors(name):
    x = xp.ones((2, 4), dtype=xp.complex128 if ONE_AXIS[name] == "complex" else xp.float64)
    f = getattr(xp.fft, name)
    with pytest.raises(ValueError, match="norm"):
        f(x, norm="both")
    with pytest.raises(ValueError, match=">= 1"):
        f(x, n=0)
    with pytest.raises(TypeError):
        f(x, n=2.0)
    with pytest.raises(IndexError):
        f(x, axis=2)
    with pytest.raises(IndexError):
        f(xp.ones((), dtype=x.dtype))
    with pytest.raises(TypeError):
        f(x, 4)  # n is keyword-only


@pytest.mark.parametrize("name", sorted(N_AXES))
def test_n_axes_argument_errors(name):
    x = xp.ones((2, 4), dtype=xp.complex128 if N_AXES[name] == "complex" else xp.float64)
    f = getattr(xp.fft, name)
    with pytest.raises(ValueError, match="needs axes"):
        f(x, s=(2, 4))
    with pytest.raises(ValueError, match="same length"):
        f(x, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match=">= 1"):
        f(x, s=(0,), axes=(0,))
    with pytest.raises(IndexError):
        f(x, axes=(2,))
    with pytest.raises(TypeError):
        f(x, axes=1)
    with pytest.raises(ValueError, match="norm"):
        f(x, norm=None)


def test_frequency_and_shift_errors():
    for name in ("fftfreq", "rfftfreq"):
        f = getattr(xp.fft, name)
        with pytest.raises(ValueError, match=">= 1"):
            f(0)
        with pytest.raises(ValueError, match="must not be 0"):
            f(4, d=0.0)
        with pytest.raises(TypeError):
            f(4.0)
        with pytest.raises(TypeError):
            f(4, d="1")
        with pytest.raises(TypeError, match="int64"):
            f(4, dtype=xp.int64)
        with pytest.raises(TypeError, match="complex64"):
            f(4, dtype=xp.complex64)
        with pytest.raises(ValueError, match="cuda:7"):
            f(4, device="cuda:7")
    for name in ("fftshift", "ifftshift"):
        f = getattr(xp.fft, name)
        with pytest.raises(TypeError, match="int64"):
            f(xp.ones(3, dtype=xp.int64))
        with pytest.raises(IndexError):
            f(xp.ones(3), axes=1)


def test_namespace():
    assert xp.ones(1).__array_namespace__().fft is xp.fft
    assert "fft" in xp.__all__
    assert sorted(xp.fft.__all__) == sorted(strict.fft.__all__)
