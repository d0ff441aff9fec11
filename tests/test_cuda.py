"""The CUDA backend: memory, the copy/cast kernel, moves between devices, DLPack on CUDA, and
the refusal of host-only functions. In CI this runs under the Numba CUDA simulator (see
conftest); with DLNUMBA_TEST_GPU=1 on a GPU machine the same tests run on the device."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
import hypothesis.extra.numpy as hnp

import dlnumba as xp
from dlpack_forge import IS_COPIED, Forged, versioned_header
from helpers import COMPLEX, REAL_FLOATS, compare_with_numpy, data_address, to_numpy

if "cuda" not in {d.type for d in xp.__array_namespace_info__().devices()}:
    pytest.skip("no CUDA device (or simulator) here", allow_module_level=True)

CUDA = xp.Device("cuda", 0)
SAMPLE_DTYPES = ["bool", "int8", "uint16", "int64"] + REAL_FLOATS + COMPLEX


def on_cuda(values, dtype):
    x = xp.asarray(values)
    return xp.astype(x, getattr(xp, dtype)).to_device(CUDA)


def strided(draw, shape):
    """A view of ``shape`` with a random permutation, steps and reversals."""
    ndim = len(shape)
    order = tuple(draw(st.permutations(range(ndim))))
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in range(ndim)]
    return order, steps


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_cast_on_device_matches_the_host_engine(data):
    """Copies and casts on the device, over transposed, stepped and reversed layouts, give the
    bits the CPU engine gives (which matches NumPy's astype)."""
    src = data.draw(st.sampled_from(SAMPLE_DTYPES))
    dst = data.draw(st.sampled_from([d for d in SAMPLE_DTYPES
                                     if "complex" in d or "complex" not in src]))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    values = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-300, 300, width=32)
                                  | st.sampled_from([np.nan, np.inf, -0.0])))
    x = xp.astype(xp.asarray(values), getattr(xp, src))
    order, steps = strided(data.draw, shape)
    index = tuple(slice(None, None, s) for s in steps)
    view_cpu = xp.permute_dims(x, order)[index] if shape else x
    view_cuda = xp.permute_dims(x.to_device(CUDA), order)[index] if shape else x.to_device(CUDA)
    expected = xp.astype(view_cpu, getattr(xp, dst))
    result = xp.astype(view_cuda, getattr(xp, dst))
    assert result.device == CUDA and result.dtype == expected.dtype
    assert result.shape == expected.shape
    # Bits: NaN payloads and signed zeros count.
    np.testing.assert_array_equal(np.asarray(result.to_device("cpu")).reshape(-1).view(np.uint8),
                                  np.asarray(expected).reshape(-1).view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "complex128", "bfloat16"])
def test_moves_keep_values_for_every_layout(dtype):
    """CPU -> CUDA -> CPU through non-contiguous sources and targets, and broadcasts."""
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = xp.astype(xp.asarray(a), getattr(xp, dtype))
    for view in (x, x[::-1, :, ::2], xp.permute_dims(x, (2, 0, 1)),
                 xp.broadcast_to(x[0, 0], (2, 5))):
        moved = view.to_device(CUDA)
        assert moved.device == CUDA
        np.testing.assert_array_equal(to_numpy(moved), to_numpy(view))
        back = xp.permute_dims(moved, tuple(range(moved.ndim))[::-1]).to_device("cpu")
        np.testing.assert_array_equal(to_numpy(back), to_numpy(view).T)


def test_creation_on_the_device():
    assert to_numpy(xp.zeros((2, 3), device=CUDA)).tolist() == [[0.0] * 3] * 2
    assert to_numpy(xp.ones(2, dtype=xp.int8, device="cuda")).tolist() == [1, 1]
    assert to_numpy(xp.full((2,), 2.5, dtype=xp.bfloat16, device=CUDA)).tolist() == [2.5, 2.5]
    assert to_numpy(xp.eye(3, k=1, device=CUDA)).tolist() == np.eye(3, k=1).tolist()
    assert to_numpy(xp.arange(4, device=CUDA)).tolist() == [0, 1, 2, 3]
    assert to_numpy(xp.asarray([[1, 2]], device=CUDA)).tolist() == [[1, 2]]
    like = xp.ones_like(xp.zeros(3, device=CUDA))
    assert like.device == CUDA and to_numpy(like).tolist() == [1.0, 1.0, 1.0]


VIEWS_AND_JOINS = {
    "reshape view": lambda m, a: m.reshape(a, (4, 3)),
    "reshape copy": lambda m, a: m.reshape(a.mT, (12,)),
    "flip": lambda m, a: m.flip(a),
    "expand_dims": lambda m, a: m.expand_dims(a, axis=1),
    "broadcast_to": lambda m, a: m.broadcast_to(a[0], (2, 4)),
    "concat": lambda m, a: m.concat([a, a[:1]]),
    "stack": lambda m, a: m.stack([a[0], a[1]], axis=1),
    "getitem": lambda m, a: a[1:, ::-2],
}


@pytest.mark.parametrize("name", VIEWS_AND_JOINS)
def test_views_and_joins_stay_on_the_device(name):
    compare_with_numpy(VIEWS_AND_JOINS[name], np.arange(12.0).reshape(3, 4), device=CUDA)


def test_roll_tile_and_meshgrid_stay_on_the_device():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    on_device = x.to_device(CUDA)
    for function in (lambda a: xp.roll(a, 5), lambda a: xp.roll(a, (1, -2), axis=(0, 1)),
                     lambda a: xp.tile(a.mT, (2, 1, 2)),
                     lambda a: xp.meshgrid(a[0], a[1:, 1], indexing="xy")[0]):
        result = function(on_device)
        assert result.device == CUDA
        assert to_numpy(result).tolist() == to_numpy(function(x)).tolist()


def test_overlapping_copy_on_the_device_reads_before_it_writes():
    x = xp.arange(10, dtype=xp.int32, device=CUDA)
    x[1:]._assign(x[:-1])
    assert to_numpy(x).tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]


def _stream_handle():
    """A CUDA stream handle a consumer could pass (any integer under the simulator)."""
    from numba import cuda

    from dlnumba.cuda import SIMULATOR
    return 12345 if SIMULATOR else int(cuda.stream().handle)


def test_dlpack_on_cuda():
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], device=CUDA)
    assert x.__dlpack_device__() == (2, 0)
    y = xp.from_dlpack(x)
    assert y.device == CUDA and data_address(y) == data_address(x)
    assert data_address(xp.from_dlpack(x.__dlpack__(max_version=(1, 0), stream=-1))) == \
        data_address(x)
    for stream in (None, -1, 1, 2, _stream_handle()):
        x.__dlpack__(stream=stream)
    for stream in (0, -2, 1.5):
        with pytest.raises(ValueError, match="stream"):
            x.__dlpack__(stream=stream)
    capsule = x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))
    assert versioned_header(capsule)[2] & IS_COPIED
    assert np.from_dlpack(xp.from_dlpack(capsule)).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        xp.from_dlpack(x, device="cpu", copy=False)
    assert to_numpy(xp.from_dlpack(x, device="cpu")).tolist() == [[1.0, 2.0], [3.0, 4.0]]


class _CannotMove:
    """A CUDA producer that, as PyTorch 2.11 does, raises ValueError (not the standard's
    BufferError) when asked for its data on another device."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, *, dl_device=None, copy=None, **keywords):
        if dl_device is not None and tuple(dl_device) != self.array.__dlpack_device__():
            raise ValueError(f"cannot move (i.e. copy={copy}) tensor to {dl_device}")
        return self.array.__dlpack__(copy=copy, **keywords)


def test_from_dlpack_moves_what_a_producer_cannot():
    """A producer that refuses the move hands its data over where it is: dlnumba moves it,
    or refuses copy=False with its own BufferError (seen with PyTorch on a GPU)."""
    producer = _CannotMove(xp.asarray([[1.0, 2.0]], device=CUDA))
    with pytest.raises(BufferError, match="copy=False"):
        xp.from_dlpack(producer, device="cpu", copy=False)
    for copy in (None, True):
        y = xp.from_dlpack(producer, device="cpu", copy=copy)
        assert y.device == xp.Device("cpu") and to_numpy(y).tolist() == [[1.0, 2.0]]


# Every elementwise function, reduction and manipulation function runs on the device in the
# tests of its own module, over the ``device`` fixture; here are the device's own cases.

def assert_same_bits(result, expected, label):
    """A device result has the bits of the host engine's: NaN payloads and signed zeros count."""
    np.testing.assert_array_equal(
        np.ascontiguousarray(result.to_device("cpu")).view(np.uint8),
        np.ascontiguousarray(expected).view(np.uint8), err_msg=label)


def assert_same_values(result, expected, label, ulps=0):
    """A device result has the host engine's values, signed zeros included, within ``ulps``
    units in the last place, and its NaNs in the same places; a NaN's payload and sign may
    differ (a GPU makes 0x7fffffff where x86 makes 0xffc00000)."""
    got = np.ascontiguousarray(result.to_device("cpu"))
    want = np.ascontiguousarray(expected)
    if want.dtype.kind == "c":
        got, want = got.view(got.real.dtype), want.view(want.real.dtype)
    nan, zero = np.isnan(want), want == 0
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{label}: NaN places")
    np.testing.assert_array_equal(got[zero], want[zero], err_msg=f"{label}: zeros")
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]),
                                  err_msg=f"{label}: signs of zeros")
    words = {4: np.int32, 8: np.int64}[want.dtype.itemsize]

    def ordered(values):  # consecutive floats to consecutive integers, -0.0 just below 0.0
        bits = values[~nan].view(words).astype(np.int64)
        return np.where(bits < 0, np.iinfo(words).min - bits - 1, bits)

    distance = np.abs(ordered(got).astype(object) - ordered(want))  # no int64 overflow
    assert distance.size == 0 or distance.max() <= ulps, (
        f"{label}: {distance.max()} ulp apart at {np.flatnonzero(distance > ulps)[:5]}")


_EDGES = (0.0, -0.0, 1.5, -3.0, np.inf, -np.inf, np.nan)
_LIBDEVICE_ULPS = 3  # libm against libdevice (CUDA's documented bounds: 1 to 2 ulp each)


@pytest.mark.parametrize("name", ["cosh", "sinh", "tanh", "atanh", "expm1", "exp"])
def test_complex_special_values_on_device_match_the_host_engine(name):
    """The standard's complex special cases (every pair of zeros, finite values, infinities
    and NaN) give on the device the values the CPU engine gives: the same bits, except for
    NaN payloads (seen on an H200) and the last bits that libdevice may round otherwise."""
    values = [complex(a, b) for a in _EDGES for b in _EDGES]
    for dtype in ("complex64", "complex128"):
        x = xp.asarray(np.array(values, dtype))
        expected = getattr(xp, name)(x)
        assert_same_values(getattr(xp, name)(x.to_device(CUDA)), expected, f"{name} {dtype}",
                           ulps=_LIBDEVICE_ULPS)


@pytest.mark.parametrize("name", ["log", "sin", "cos"])
def test_vectorized_real_functions_on_device_match_the_host_engine(name):
    """dlnumba's own float32 log, sin and cos give on the device the bits the CPU engine
    gives, zeros, subnormals, infinities, NaN and huge arguments included; float64 comes from
    libm on the host and from libdevice on a GPU, within a few ulp (one seen on an H200)."""
    values = [0.0, -0.0, 1e-45, -1e-45, 1e-40, 0.5, 1.0, -1.5, 1.5707964, 100.0, 1e5, 1e20,
              -3e38, 3.4028235e38, np.inf, -np.inf, np.nan]
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        x = on_cuda(values, dtype)
        expected = getattr(xp, name)(x.to_device("cpu"))
        if dtype == "float64":
            assert_same_values(getattr(xp, name)(x), expected, f"{name} {dtype}",
                               ulps=_LIBDEVICE_ULPS)
        else:
            assert_same_bits(getattr(xp, name)(x), expected, f"{name} {dtype}")

def test_in_place_operators_on_device_read_before_they_write():
    x = xp.asarray(np.arange(10.0))
    expected = xp.asarray(np.arange(10.0))
    expected[1:] += expected[:-1]
    expected *= 2
    on_device = x.to_device(CUDA)
    on_device[1:] += on_device[:-1]
    on_device *= 2
    np.testing.assert_array_equal(to_numpy(on_device), to_numpy(expected))


def test_reductions_of_empty_axes_give_the_identity_on_device():
    x = xp.ones((3, 0), device=CUDA)
    assert to_numpy(xp.sum(x, axis=1)).tolist() == [0.0] * 3
    assert to_numpy(xp.prod(x, axis=1)).tolist() == [1.0] * 3
    assert to_numpy(xp.all(x, axis=1)).tolist() == [True] * 3
    assert xp.sum(xp.ones((0, 3), device=CUDA), axis=1).shape == (0,)


_ROUND_TRIPS = {
    "sort": lambda x: xp.sort(x[::-1], axis=0, descending=True),
    "searchsorted": lambda x: xp.searchsorted(x[0], x[1:]),
    "unique_all": lambda x: xp.unique_all(xp.round(x / 3)),
    "isin": lambda x: xp.isin(x, x[0]),
    "matmul": lambda x: x @ x.mT,
    "linalg.svdvals": lambda x: xp.linalg.svdvals(x),
    "linalg.vector_norm": lambda x: xp.linalg.vector_norm(x, axis=0),
    "fft.rfft": lambda x: xp.fft.rfft(x),
}


@pytest.mark.parametrize("name", sorted(_ROUND_TRIPS))
def test_host_functions_make_a_round_trip_for_cuda_arrays(name):
    values = np.arange(12, dtype=np.float64).reshape(3, 4) % 7
    on_host = _ROUND_TRIPS[name](xp.asarray(values))
    on_device = _ROUND_TRIPS[name](xp.asarray(values, device=CUDA))
    for expected, result in zip(*((r,) if isinstance(r, xp.ndarray) else r
                                  for r in (on_host, on_device))):
        assert result.device == CUDA and result.dtype == expected.dtype
        np.testing.assert_array_equal(to_numpy(result), np.from_dlpack(expected))


def test_only_sorting_sets_and_linear_algebra_make_a_host_round_trip():
    host_only = sorted(name for name in xp.__all__
                       if getattr(getattr(xp, name), "on_host", False) is True)
    assert host_only == ["argsort", "isin", "matmul", "searchsorted", "sort", "tensordot",
                         "unique_all", "unique_counts", "unique_inverse", "unique_values",
                         "vecdot"]


def _strided_values(data, dtype, min_dims=1, max_side=5):
    """A CPU array of ``dtype`` with ties, NaN and signed zeros, and a permuted, stepped and
    reversed view of it; and the same view of its copy on the device."""
    shape = data.draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1,
                                       max_side=max_side))
    values = data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(
        [0.0, -0.0, 1.0, -2.0, 3.5, 120.0, np.nan])))
    x = xp.astype(xp.asarray(values), getattr(xp, dtype))
    order, steps = strided(data.draw, shape)
    index = tuple(slice(None, None, s) for s in steps)
    return (xp.permute_dims(x, order)[index],
            xp.permute_dims(x.to_device(CUDA), order)[index])


def _assert_same(result, expected, rtol=0.0):
    assert result.device == CUDA and result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_allclose(to_numpy(result), to_numpy(expected), rtol=rtol)


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_index_reductions_and_scans_on_device_match_the_host_engine(data):
    """argmax/argmin (the first extreme; a NaN is one), count_nonzero and the running sums and
    products on the device give what the CPU engine gives, along any axis of strided views
    (float sums to rounding: the device adds in another order). Three dtypes, an unsigned
    integer, one computed in float32 and a float, bound the simulator's compilations."""
    dtype = data.draw(st.sampled_from(["uint16", "float16", "float64"]))
    view, on_device = _strided_values(data, dtype)
    axis = data.draw(st.none() | st.integers(-view.ndim, view.ndim - 1))
    for name in ("argmax", "argmin", "count_nonzero"):
        _assert_same(getattr(xp, name)(on_device, axis=axis),
                     getattr(xp, name)(view, axis=axis))
    axis = 0 if axis is None else axis
    rtol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6
    include_initial = data.draw(st.booleans())
    for name in ("cumulative_sum", "cumulative_prod"):
        _assert_same(getattr(xp, name)(on_device, axis=axis, include_initial=include_initial),
                     getattr(xp, name)(view, axis=axis, include_initial=include_initial), rtol)


def test_index_reductions_and_scans_of_long_runs_on_device():
    """Runs longer than a block: several elements per thread, then the block's tree."""
    values = np.random.default_rng(7).integers(-1000, 1000, (3, 2500)).astype(np.float32)
    values[1, [700, 2100]] = 5000.0  # a tie: the first wins
    values[2, [1800, 900]] = (np.nan, -5000.0)
    x = xp.asarray(values)
    on_device = x.to_device(CUDA)
    for name in ("argmax", "argmin"):
        _assert_same(getattr(xp, name)(on_device, axis=1), getattr(xp, name)(x, axis=1))
        _assert_same(getattr(xp, name)(on_device[:, ::-1]), getattr(xp, name)(x[:, ::-1]))
    integers = xp.astype(x[:2], xp.int32)
    _assert_same(xp.cumulative_sum(integers.to_device(CUDA), axis=1),
                 xp.cumulative_sum(integers, axis=1))
    _assert_same(xp.cumulative_sum(on_device[:2, ::-3], axis=1, dtype=xp.float64),
                 xp.cumulative_sum(x[:2, ::-3], axis=1, dtype=xp.float64), 1e-12)


def test_unsigned_products_past_two_to_the_63_on_device():
    """Whole and running uint64 products that wrap past 2**63, exactly as the host's (the
    simulator once failed them: a Python int that large cannot go back into compiled code)."""
    values = xp.asarray(np.array([[60000, 65535, 50000, 40000, 33333, 65000, 7, 9]] * 3 +
                                 [[65535] * 8], np.uint16))
    long_run = xp.asarray((np.arange(1, 3000, dtype=np.uint16) * 23) | 1)
    for result, expected in (
            (xp.cumulative_prod(values.to_device(CUDA), axis=1),
             xp.cumulative_prod(values, axis=1)),
            (xp.prod(values.to_device(CUDA), axis=1), xp.prod(values, axis=1)),
            (xp.cumulative_prod(long_run.to_device(CUDA)), xp.cumulative_prod(long_run)),
            (xp.prod(long_run.to_device(CUDA)), xp.prod(long_run))):
        assert result.device == CUDA and result.dtype == xp.uint64
        np.testing.assert_array_equal(to_numpy(result), to_numpy(expected))


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_where_and_nonzero_on_device_match_the_host_engine(data):
    dtype = data.draw(st.sampled_from(SAMPLE_DTYPES))
    view, on_device = _strided_values(data, dtype, max_side=4)
    condition = xp.not_equal(view, xp.flip(view, axis=0))
    other = data.draw(st.sampled_from([True if dtype == "bool" else 1, view[0:1]]))
    on_device_other = other.to_device(CUDA) if isinstance(other, xp.ndarray) else other
    expected = xp.where(condition, view, other)
    result = xp.where(condition.to_device(CUDA), on_device, on_device_other)
    assert result.device == CUDA and result.dtype == expected.dtype
    np.testing.assert_array_equal(to_numpy(result), to_numpy(expected))
    for result, expected in zip(xp.nonzero(on_device), xp.nonzero(view), strict=True):
        _assert_same(result, expected)


def test_nonzero_of_transposed_and_stepped_arrays_on_device():
    """The flags of a layout that is not C-contiguous are counted in C order."""
    x = xp.asarray(np.arange(24.0).reshape(2, 3, 4) % 5)
    on_device = x.to_device(CUDA)
    for view in (lambda a: a.mT, lambda a: xp.permute_dims(a, (2, 0, 1)),
                 lambda a: a[:, ::-1, ::2], lambda a: xp.astype(a, xp.bool)[::-1].mT):
        for result, expected in zip(xp.nonzero(view(on_device)), xp.nonzero(view(x)),
                                    strict=True):
            _assert_same(result, expected)


def test_float16_running_sums_round_at_each_step_on_device():
    ones = xp.ones(4096, dtype=xp.float16)
    expected = xp.cumulative_sum(ones, dtype=xp.float16)
    result = xp.cumulative_sum(ones.to_device(CUDA), dtype=xp.float16)
    _assert_same(result, expected)
    assert to_numpy(result)[-1] == 2048  # 2048 + 1 rounds to 2048 in float16, as in NumPy


def test_nonzero_of_empty_and_all_zero_arrays_on_device():
    for shape in ((0,), (2, 0, 3), (3, 4)):
        result = xp.nonzero(xp.zeros(shape, device=CUDA))
        assert len(result) == len(shape)
        assert all(r.device == CUDA and r.shape == (0,) for r in result)


@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_triangles_linspace_repeat_and_diff_on_device(k):
    values = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4) - 5
    x = xp.astype(xp.asarray(values), xp.complex128)
    on_device = x.to_device(CUDA)
    _assert_same(xp.tril(on_device[:, ::-1], k=k), xp.tril(x[:, ::-1], k=k))
    integers = xp.astype(xp.asarray(values), xp.int8)
    _assert_same(xp.triu(integers.to_device(CUDA), k=k), xp.triu(integers, k=k))
    for start, stop, num, endpoint in ((0, 1, 7, True), (-3, 2e300, 5, False), (1j, 4, 4, True),
                                       (2, 2, 1, True), (0, 1, 0, True)):
        result = xp.linspace(start, stop, num + max(k, 0), endpoint=endpoint, device=CUDA)
        expected = xp.linspace(start, stop, num + max(k, 0), endpoint=endpoint)
        np.testing.assert_array_equal(to_numpy(result).view(np.uint8),
                                      to_numpy(expected).view(np.uint8))
    counts = xp.asarray([0, 2, max(k, 0), 1])
    _assert_same(xp.repeat(on_device, counts.to_device(CUDA), axis=2),
                 xp.repeat(x, counts, axis=2))
    _assert_same(xp.repeat(on_device, 2), xp.repeat(x, 2))
    with pytest.raises(ValueError, match="cuda:0 and cpu"):
        xp.repeat(on_device, counts, axis=2)
    appended = xp.ones((2, 3, 1), dtype=xp.complex128)
    _assert_same(xp.diff(on_device, n=2, append=appended.to_device(CUDA)),
                 xp.diff(x, n=2, append=appended))


def test_large_moves_between_host_and_device_go_through_pinned_buffers():
    """Moves of pageable host memory larger than one staging buffer, whole and partial chunks,
    packed and unpacked on either side."""
    from dlnumba.cuda import _driver

    n = (2 * _driver._CHUNK + 12_345) // 4
    values = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    x = xp.asarray(values)
    on_device = x.to_device(CUDA)
    np.testing.assert_array_equal(to_numpy(on_device), values)
    assert _driver._staging  # the buffers were made: the move was staged
    np.testing.assert_array_equal(to_numpy(x[::-1].to_device(CUDA)), values[::-1])
    back = xp.empty((n,), dtype=xp.float32)[::-1]
    back[...] = on_device  # a non-contiguous host target (unpacked on the host)
    np.testing.assert_array_equal(to_numpy(back), values)


def test_functions_refuse_arrays_on_different_devices():
    x = xp.ones(3, device=CUDA)
    for call in (lambda: xp.matmul(x, xp.ones(3)), lambda: xp.isin(xp.ones(3), x),
                 lambda: xp.searchsorted(x, xp.ones(2)),
                 lambda: xp.fft.fftfreq(4, device=CUDA) + xp.ones(4)):
        with pytest.raises(ValueError, match="cuda:0"):
            call()
    assert xp.linspace(0, 1, 3, device=CUDA).device == CUDA
    assert xp.fft.fftfreq(4, device=CUDA).device == CUDA
    with pytest.raises(ValueError, match="cuda:0 and cpu"):
        x + xp.ones(3)
    with pytest.raises(ValueError, match="cpu and cuda:0"):
        y = xp.ones(3)
        y += x
    # A 0-d array's value reaches Python from any device, as in CuPy and PyTorch.
    assert (float(x[0]), int(x[1]), bool(x[2]), complex(x[0])) == (1.0, 1, True, 1 + 0j)
    with pytest.raises(ValueError, match="cannot become a NumPy array"):
        np.asarray(x)
    assert "device='cuda:0'" in repr(x)


def test_imports_naming_a_device_that_does_not_hold_the_data_are_refused():
    """On a GPU the driver says where a pointer lives: host memory sent as kDLCUDA memory is
    refused before any kernel could read it (the simulator has no driver to ask)."""
    from dlnumba.cuda import SIMULATOR
    if SIMULATOR:
        pytest.skip("the simulator's device memory is host memory")
    forged = Forged(np.arange(4.0), device_type=2, device_id=0)
    with pytest.raises(BufferError, match="names device cuda:0, but its data .* is in no CUDA"):
        xp.from_dlpack(forged.capsule)
    assert forged.calls == [forged.managed_address]  # the producer's tensor was released


def test_njit_refuses_cuda_arrays():
    import numba

    @numba.njit
    def first(a):
        return a[0]

    with pytest.raises(TypeError, match="cuda:0"):
        first(xp.ones(3, device=CUDA))


def test_cuda_array_interface_describes_the_device_memory():
    x = xp.reshape(xp.arange(12, dtype=xp.float32, device=CUDA), (3, 4))
    interface = x.__cuda_array_interface__
    assert interface == {"version": 3, "data": (x._address, False), "shape": (3, 4),
                         "strides": None, "typestr": "<f4", "stream": 1}
    view = x.mT[::-1]
    assert view.__cuda_array_interface__["strides"] == (-4, 16)
    assert view.__cuda_array_interface__["data"][0] == view._address
    assert not hasattr(xp.ones(3), "__cuda_array_interface__")
    assert not hasattr(xp.ones(3, dtype=xp.bfloat16, device=CUDA), "__cuda_array_interface__")


def test_array_indexing_gathers_and_scatters_on_the_device():
    values = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = xp.asarray(values, device=CUDA)
    rows, columns = [3, 0, 3], [5, 1, 5]
    for index, expected in (
            ((xp.asarray(rows), xp.asarray(columns, device=CUDA)), values[rows, columns]),
            ((xp.asarray(rows, device=CUDA), 2), values[rows, 2]),
            (xp.asarray(values > 10, device=CUDA), values[values > 10]),
            (xp.asarray(values[:, 0] > 5), values[values[:, 0] > 5])):
        result = x.mT.mT[index]
        assert result.device == CUDA
        np.testing.assert_array_equal(to_numpy(result), expected)
    row = x[1, ::-2]
    for index in (xp.asarray([2, 0, -1], device=CUDA), xp.asarray([2, 0, -1])):  # one call
        for taken in (xp.take(row, index), row[index]):
            assert taken.device == CUDA
            np.testing.assert_array_equal(to_numpy(taken), values[1, ::-2][[2, 0, -1]])
    for mask in (xp.asarray([True, False, True], device=CUDA), xp.asarray([False, True, True])):
        selected = row[mask[::-1]]
        assert selected.device == CUDA
        np.testing.assert_array_equal(to_numpy(selected),
                                      values[1, ::-2][to_numpy(mask)[::-1]])
    for value in (xp.asarray(-1.0, device=CUDA), xp.asarray([-1.0, -2.0], device=CUDA)):
        z, expected = xp.asarray(values, device=CUDA), values.copy()
        z[1, ::-2][xp.asarray([True, False, True], device=CUDA)] = value
        expected[1, ::-2][[True, False, True]] = to_numpy(value)
        np.testing.assert_array_equal(to_numpy(z), expected)
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        row[xp.asarray([0, -4], device=CUDA)]
    for value in (xp.asarray(-1.0, device=CUDA), xp.asarray([-1.0, -2.0, -3.0], device=CUDA)):
        z, expected = xp.asarray(values, device=CUDA), values.copy()
        z[1, ::-2][xp.asarray([2, 0, 2], device=CUDA)] = value
        expected[1, ::-2][[2, 0, 2]] = to_numpy(value)
        np.testing.assert_array_equal(to_numpy(z), expected)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        row[xp.asarray([0, 3], device=CUDA)] = 1.0
    taken = xp.take(x[::-1], xp.asarray([5, 0, -1], device=CUDA), axis=1)
    np.testing.assert_array_equal(to_numpy(taken), values[::-1][:, [5, 0, -1]])
    indices = np.array([[1], [0], [5], [2]])
    along = xp.take_along_axis(x, xp.asarray(indices), axis=1)
    np.testing.assert_array_equal(to_numpy(along), np.take_along_axis(values, indices, axis=1))
    with pytest.raises(IndexError, match="out of bounds"):
        x[xp.asarray([4], device=CUDA), 0]
    y, expected = xp.asarray(values, device=CUDA), values.copy()
    y[xp.asarray(rows), xp.asarray(columns)] = xp.asarray([1.0, 2.0, 3.0], device=CUDA)
    expected[rows, columns] = [1.0, 2.0, 3.0]  # the last of two writes to [3, 5] wins
    y[xp.asarray(values < 3, device=CUDA)] = -1.0
    expected[values < 3] = -1.0
    np.testing.assert_array_equal(to_numpy(y), expected)
