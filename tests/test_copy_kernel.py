"""The copy engine (``kernels.copy_array``) and ``ndarray._copy`` with casts.

The kernel is checked byte for byte against NumPy's ``dst[...] = src`` on random layouts:
itemsizes 1..16, up to 6-D (and 32-D), negative and zero strides, overlap, misaligned memory.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._dtypes import as_dtype
from dlnumba.kernels import copy_array

from helpers import NUMPY_NAMES, data_address, integers_from_floats

torch = pytest.importorskip("torch")

NP_DTYPES = [np.dtype(n) for n in NUMPY_NAMES]
XP_DTYPE = {d: getattr(xp, d.name) for d in NP_DTYPES}
TORCH_DTYPE = {
    "bool": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "uint8": torch.uint8, "float16": torch.float16,
    "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
    "complex128": torch.complex128,
}
ITEMSIZES = [1, 2, 4, 8, 16]


def address(a):
    return a.__array_interface__["data"][0]


def item_view(buffer, offset, count, itemsize):
    """``count`` items of ``itemsize`` bytes starting ``offset`` bytes into a uint8 buffer,
    as an array of that itemsize (a void dtype: NumPy copies its bytes verbatim)."""
    return buffer[offset:offset + count * itemsize].view(np.dtype(f"V{itemsize}"))


@st.composite
def layouts(draw, shape, itemsize, zero_strides):
    """A view of ``shape`` into a fresh random uint8 buffer at a random (maybe odd) offset,
    with permuted axes, steps of either sign and (if ``zero_strides``) broadcast axes."""
    steps = [draw(st.sampled_from([1, 1, 2, 3, -1, -2])) for _ in shape]
    broadcast = [zero_strides and n > 0 and draw(st.integers(0, 3)) == 0 for n in shape]
    base_shape = [1 if b else n * abs(s) for n, s, b in zip(shape, steps, broadcast)]
    perm = draw(st.permutations(range(len(shape))))
    count = int(np.prod(base_shape))
    offset = draw(st.sampled_from([0, 0, 1, 2, 3, 4, 5, 7, 8]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    buffer = np.frombuffer(rng.bytes(offset + count * itemsize + 16), np.uint8).copy()
    base = item_view(buffer, offset, count, itemsize).reshape([base_shape[p] for p in perm])
    base = base.transpose(np.argsort(perm))
    view = base[tuple(slice(None, None, s) if not b else slice(None)
                      for s, b in zip(steps, broadcast)) + (Ellipsis,)]
    view = np.broadcast_to(view, shape)
    return buffer, view


UNIT_DTYPE = {1: xp.uint8, 2: xp.uint16, 4: xp.uint32, 8: xp.uint64, 16: xp.complex128}


def run_copy(src, dst):
    """Run the engine on two NumPy views of the same itemsize, moving their bytes."""
    size = dst.itemsize
    copy_array(address(src), tuple(s // size for s in src.strides), UNIT_DTYPE[size],
               address(dst), tuple(s // size for s in dst.strides), UNIT_DTYPE[size], dst.shape)


def same_view_in(other, buffer, view):
    """The view of ``other`` that has ``view``'s offset, shape and strides in ``buffer``."""
    offset = address(view) - address(buffer)
    start = other[offset:offset + view.itemsize].view(view.dtype)
    return np.lib.stride_tricks.as_strided(start, view.shape, view.strides, writeable=True)


@given(st.data())
def test_copy_array_matches_numpy(data):
    """Random shapes (up to 6-D), itemsizes, strides (any sign, zero in the source) and
    alignments: the destination buffer ends up exactly as NumPy's assignment leaves it."""
    itemsize = data.draw(st.sampled_from(ITEMSIZES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4))
    _, src = data.draw(layouts(shape, itemsize, zero_strides=True))
    dst_buffer, dst = data.draw(layouts(shape, itemsize, zero_strides=False))
    expected = dst_buffer.copy()
    if dst.size:
        same_view_in(expected, dst_buffer, dst)[...] = src
    run_copy(src, dst)
    assert dst_buffer.tobytes() == expected.tobytes()


@given(st.data())
def test_copy_array_overlapping(data):
    """Source and destination in the same buffer: the result is a copy from a snapshot."""
    itemsize = data.draw(st.sampled_from(ITEMSIZES))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    size = int(np.prod(shape))
    count = 3 * size
    offset = data.draw(st.sampled_from([0, 1, 4]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    buffer = np.frombuffer(rng.bytes(offset + count * itemsize + 8), np.uint8).copy()
    items = item_view(buffer, offset, count, itemsize)

    def pick():
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
        span = (size - 1) * abs(step) + 1
        start = data.draw(st.integers(0, count - span))
        perm = data.draw(st.permutations(range(len(shape))))
        flat = items[start:start + span][::step]
        view = flat.reshape([shape[p] for p in perm]).transpose(np.argsort(perm))
        assert view.shape == shape and view.base is not None and np.shares_memory(view, items)
        return view

    src, dst = pick(), pick()
    expected = buffer.copy()
    same_view_in(expected, buffer, dst)[...] = src.copy()
    run_copy(src, dst)
    assert buffer.tobytes() == expected.tobytes()


OVERLAP_CASES = {
    "x[1:] = x[:-1]": (lambda x: x[1:], lambda x: x[:-1]),
    "x[:-1] = x[1:]": (lambda x: x[:-1], lambda x: x[1:]),
    "x[::-1] = x": (lambda x: x[::-1], lambda x: x),
    "x = x.T": (lambda x: x, lambda x: x.T),
    "x[::2] = x[1::2]": (lambda x: x[::2], lambda x: x[1::2]),
    "x[1:, 1:] = x[:-1, :-1]": (lambda x: x[1:, 1:], lambda x: x[:-1, :-1]),
    "x = x[::-1, ::-1].T": (lambda x: x, lambda x: x[::-1, ::-1].T),
    "x = x": (lambda x: x, lambda x: x),
    "x[:, 0] = x[0, :]": (lambda x: x[:, 0], lambda x: x[0, :]),
    "x = x[0] (broadcast)": (lambda x: x, lambda x: np.broadcast_to(x[0], x.shape)),
}


@pytest.mark.parametrize("case", OVERLAP_CASES)
@pytest.mark.parametrize("itemsize", ITEMSIZES)
def test_copy_array_overlapping_2d(case, itemsize):
    """2-D overlapping copies (shifts, reversals, transposes, identity) match NumPy."""
    dst_of, src_of = OVERLAP_CASES[case]
    raw = np.frombuffer(np.random.default_rng(itemsize).bytes(64 * itemsize), np.uint8).copy()
    expected = raw.copy()
    e = item_view(expected, 0, 64, itemsize).reshape(8, 8)
    dst_of(e)[...] = src_of(e).copy()
    x = item_view(raw, 0, 64, itemsize).reshape(8, 8)
    run_copy(src_of(x), dst_of(x))
    assert raw.tobytes() == expected.tobytes()


def test_copy_array_32_dimensions():
    """A 32-dimensional copy with permuted, reversed and skipping strides."""
    rng = np.random.default_rng(0)
    shape = (2, 1, 3, 1) * 4 + (2, 1) * 8  # 32 dims, 20736 elements
    base = rng.integers(0, 2**31, size=int(np.prod(shape)) * 2, dtype=np.int32)
    src = base[::2].reshape(shape)[::-1, ..., ::-1]
    perm = list(rng.permutation(32))
    src = src.transpose(perm)
    dst_base = np.zeros(src.size * 3, np.int32)
    dst = dst_base[::3].reshape(src.shape)[..., ::-1]
    assert src.ndim == dst.ndim == 32
    run_copy(src, dst)
    assert np.array_equal(dst, src)
    assert not np.any(dst_base.reshape(-1, 3)[:, 1:])


def test_copy_array_32_dimensions_broadcast():
    """A 32-D broadcast (zero-stride) source fills every element of the destination."""
    shape = (2,) * 12 + (1,) * 20
    src = np.broadcast_to(np.arange(2, dtype=np.int16).reshape((2,) + (1,) * 31), shape)
    dst = np.full(shape, -1, np.int16)
    run_copy(src, dst)
    assert np.array_equal(dst, src)


@pytest.mark.parametrize("itemsize", ITEMSIZES)
@pytest.mark.parametrize("src_offset", [0, 1, 3, 6])
@pytest.mark.parametrize("dst_offset", [0, 1, 5, 8])
def test_copy_array_misaligned(itemsize, src_offset, dst_offset):
    """Items at odd byte offsets (views of a uint8 buffer) still copy exactly."""
    count = 37
    rng = np.random.default_rng(itemsize * 100 + src_offset * 10 + dst_offset)
    src_buffer = np.frombuffer(rng.bytes(count * itemsize + 16), np.uint8).copy()
    dst_buffer = np.zeros(count * itemsize + 16, np.uint8)
    src = item_view(src_buffer, src_offset, count, itemsize)
    dst = item_view(dst_buffer, dst_offset, count, itemsize)
    run_copy(src, dst)
    assert dst.tobytes() == src.tobytes()
    assert not dst_buffer[:dst_offset].any()
    assert not dst_buffer[dst_offset + count * itemsize:].any()
    dst_buffer[:] = 0
    run_copy(src[::-2], dst[:19][::-1])
    assert dst[:19][::-1].tobytes() == src[::-2].tobytes()


def test_copy_array_empty_and_scalar():
    """Size-0 copies write nothing; 0-d and all-size-1 copies move one item."""
    dst = np.full(4, 7, np.int64)
    i64 = xp.int64
    copy_array(address(np.arange(4)), (1,), i64, address(dst), (1,), i64, (0,))
    copy_array(0, (1, 1), i64, address(dst), (1, 1), i64, (3, 0))  # never dereferenced
    assert dst.tolist() == [7] * 4
    src = np.array([42], np.int64)
    copy_array(address(src), (), i64, address(dst), (), i64, ())
    assert dst.tolist() == [42, 7, 7, 7]
    copy_array(address(src), (0, 0, 0), i64, address(dst[1:]), (1, 1, 1), i64, (1, 1, 1))
    assert dst.tolist() == [42, 42, 7, 7]


# ---- ndarray._copy ----

@st.composite
def numpy_arrays(draw, dtypes=st.sampled_from(NP_DTYPES)):
    """A NumPy array of random bits (NaNs, infs, subnormals) in a random strided layout."""
    dtype = draw(dtypes)
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    steps = [draw(st.sampled_from([1, 2, -1])) for _ in shape]
    count = int(np.prod([n * abs(s) for n, s in zip(shape, steps)]))
    if dtype == np.bool_:
        flat = rng.integers(0, 2, count).astype(np.bool_)
    else:
        flat = np.frombuffer(rng.bytes(count * dtype.itemsize), dtype).copy()
    a = flat.reshape([n * abs(s) for n, s in zip(shape, steps)])
    a = a[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    return a.transpose(draw(st.permutations(range(a.ndim))))


@given(numpy_arrays())
def test_copy_same_dtype(a):
    """x._copy() is a new, aligned, C-contiguous, writable array with the same bits."""
    x = xp.asarray(a)
    c = x._copy()
    assert c.dtype is x.dtype and c.shape == a.shape and c._readonly is False
    assert data_address(c) % 64 == 0
    if a.size:
        assert data_address(c) != data_address(x)
    out = np.from_dlpack(c)
    assert out.flags.c_contiguous
    assert out.tobytes() == a.tobytes()


@given(numpy_arrays(), st.sampled_from(NP_DTYPES))
def test_copy_cast_matches_numpy_astype(a, dtype):
    """x._copy(dtype) is bit-identical to NumPy's a.astype(dtype) for every dtype pair (floats
    to integers: see assert_cast_equal)."""
    x = xp.asarray(a)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = a.astype(dtype)
        c = x._copy(as_dtype(XP_DTYPE[dtype]))
    assert c.dtype is XP_DTYPE[dtype] and c.shape == a.shape
    assert data_address(c) % 64 == 0
    assert_cast_equal(np.from_dlpack(c), expected, a)


def assert_cast_equal(out, expected, source):
    """Bit equality; floats cast to an integer as C converts each element (NumPy's contiguous
    loops differ out of range: see ``integers_from_floats``)."""
    assert out.shape == expected.shape and out.dtype == expected.dtype
    if out.dtype.kind in "iu" and source.dtype.kind in "fc":
        expected = integers_from_floats(source, out.dtype)
    assert out.tobytes() == expected.tobytes()


def _bf16_bits(t):
    return t.contiguous().view(torch.int16).numpy().view(np.uint16)


def _same_bf16(actual, expected):
    """Equal bfloat16 bits, with any NaN matching any NaN (torch keeps NaN payloads)."""
    nan = lambda b: (b & 0x7F80 == 0x7F80) & (b & 0x007F != 0)
    return np.array_equal(nan(actual), nan(expected)) and \
        np.array_equal(actual[~nan(expected)], expected[~nan(expected)])


@given(numpy_arrays(st.sampled_from([np.dtype(n) for n in TORCH_DTYPE])))
def test_copy_cast_to_bfloat16_like_torch(a):
    """Casts to bfloat16 round as torch's .to(torch.bfloat16) (NaN to a quiet NaN)."""
    x = xp.asarray(a)
    c = x._copy(as_dtype(xp.bfloat16))
    assert c.dtype is xp.bfloat16 and c.shape == a.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _bf16_bits(torch.from_numpy(a.copy()).to(torch.bfloat16))
    assert _same_bf16(np.asarray(c).view(np.uint16), expected)


def test_copy_cast_to_bfloat16_keeps_the_sign_of_nan():
    """NaN becomes the quiet NaN of its sign, 0x7FC0 or 0xFFC0, as ml_dtypes casts it (quiet,
    signalling, with payloads; from float32 and float64)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFA00000],
                    np.uint32).view(np.float32)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        sources = (nans, nans.astype(np.float64))
        expected = [s.astype(ml_dtypes.bfloat16).view(np.uint16).tolist() for s in sources]
    for source, bits in zip(sources, expected):
        got = np.asarray(xp.asarray(source)._copy(as_dtype(xp.bfloat16))).view(np.uint16)
        assert got.tolist() == bits == [0x7FC0, 0xFFC0] * 3


@given(hnp.arrays(np.uint16, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)),
       st.sampled_from(NP_DTYPES))
def test_copy_cast_from_bfloat16(bits, dtype):
    """Casts from bfloat16 widen exactly to float32 first, then cast as NumPy does; float
    and complex results equal torch's."""
    b = xp.zeros(bits.shape, dtype=xp.bfloat16)
    np.asarray(b).view(np.uint16)[...] = bits
    widened = (bits.astype(np.uint32) << 16).view(np.float32)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        c = b._copy(as_dtype(XP_DTYPE[dtype]))
        expected = widened.astype(dtype)
    out = np.from_dlpack(c)
    assert_cast_equal(out, expected, widened)
    if dtype.kind in "fcb":
        t = torch.from_numpy(bits.astype(np.int16)).view(torch.bfloat16)
        expected_torch = t.to(TORCH_DTYPE[dtype.name]).numpy()
        assert np.array_equal(out, expected_torch, equal_nan=dtype.kind != "b")


SPECIAL = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 127.9, -128.7, 255.5, 300.25, -129.5, 65504.0,
           65520.0, 1e-40, 1e-8, 3.0e38, 1e300, -1e20, 2.0**63, np.nan, np.inf, -np.inf]
ALL_NAMES = [d.name for d in NP_DTYPES] + ["bfloat16"]


def _special_values(name):
    """A reversed, stepped NumPy view (dtype ``name``) of special values; bfloat16 as bits."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        values = np.array(SPECIAL + [complex(v, -1.0) for v in SPECIAL[:6]], np.complex128)
        if name == "bfloat16":
            t = torch.from_numpy(values.real.astype(np.float32)).to(torch.bfloat16)
            flat = t.view(torch.int16).numpy().view(np.uint16)
        elif name in ("complex64", "complex128"):
            flat = values.astype(name)
        else:
            flat = values.real.astype(name)
    doubled = np.repeat(flat, 2)  # strided source: every other element, reversed
    return doubled[::-2]


@pytest.mark.parametrize("dst_name", ALL_NAMES)
@pytest.mark.parametrize("src_name", ALL_NAMES)
def test_copy_cast_all_pairs(src_name, dst_name):
    """Every dtype pair casts special values (NaN, inf, -0.0, out of range) like NumPy's
    astype; bfloat16 goes through its exact float32 value, and is rounded like torch."""
    a = _special_values(src_name)
    if src_name == "bfloat16":
        x = xp.zeros(a.shape, dtype=xp.bfloat16)
        np.asarray(x).view(np.uint16)[...] = a
        x = x[::-1][::-1]
        source = (a.astype(np.uint32) << 16).view(np.float32)  # exact widening
    else:
        x = xp.asarray(a)
        source = a
    dst = getattr(xp, dst_name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        c = x._copy(as_dtype(dst))
        if dst_name == "bfloat16" and src_name in TORCH_DTYPE:
            expected = _bf16_bits(torch.from_numpy(a.copy()).to(torch.bfloat16))
        elif dst_name == "bfloat16":  # torch lacks these casts: go through float32
            expected = _bf16_bits(torch.from_numpy(source.astype(np.float32)).to(torch.bfloat16))
        else:
            expected = source.astype(dst_name)
    assert c.dtype is dst and c.shape == a.shape and data_address(c) % 64 == 0
    if dst_name == "bfloat16":
        assert _same_bf16(np.asarray(c).view(np.uint16), expected)
    else:
        assert_cast_equal(np.from_dlpack(c), expected, source)


def test_copy_bfloat16_to_bfloat16_keeps_bits():
    """bfloat16 -> bfloat16 copies every bit pattern unchanged (NaN payloads too)."""
    bits = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    b = xp.zeros(bits.shape, dtype=xp.bfloat16)
    np.asarray(b).view(np.uint16)[...] = bits
    assert np.asarray(b[::-1]._copy()).tobytes() == bits[::-1].tobytes()
    assert np.asarray(b._copy(as_dtype(xp.bfloat16))).tobytes() == bits.tobytes()


def test_copy_of_broadcast_and_read_only():
    """Copies of zero-stride and read-only arrays are dense, writable and independent."""
    a = np.broadcast_to(np.arange(3.0), (4, 3))
    x = xp.asarray(a)
    c = x._copy()
    assert c._strides == (3, 1) and c._readonly is False
    c[0, 0] = 9.0
    assert np.array_equal(np.from_dlpack(c)[1:], a[1:]) and a[0, 0] == 0.0
    d = x._copy(as_dtype(xp.int8))
    assert np.from_dlpack(d).tolist() == [[0, 1, 2]] * 4
