"""DLPack interoperability with real NumPy, PyTorch (CPU) and JAX (CPU) memory in one process.

Every test exchanges real memory (no mocks) and checks values, layout, zero-copy (the same data
pointer on both sides) and, where the peer is mutable, that writes on one side show on the other.
Negative strides are never sent to PyTorch: torch 2.13 aborts the process on them.
"""

import ml_dtypes
import numpy as np
import pytest
import torch
import jax
import jax.numpy as jnp
from hypothesis import given, strategies as st
import hypothesis.extra.numpy as hnp

import dlnumba as xp

from dlpack_forge import IS_COPIED, READ_ONLY, capsule_name, versioned_header
from helpers import ALL, NUMPY_NAMES, data_address

# Host peers: on a machine with a GPU, JAX would make its arrays there.
jax.config.update("jax_default_device", jax.devices("cpu")[0])

TORCH_DTYPES = {name: getattr(torch, name) for name in ALL}


# ---- helpers ----

def np_ptr(a):
    return a.__array_interface__["data"][0]


def bits(a):
    """A NumPy array whose elements compare equal exactly when the values' bytes do."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return np.stack((bits(a.real), bits(a.imag)))
    if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
        return a.view(f"u{a.itemsize}")
    return a


def torch_values(t):
    """A NumPy array of a tensor's values (bfloat16 as its uint16 bits)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def xp_values(x):
    """A NumPy array of a dlnumba array's values (bfloat16 as its uint16 bits), read through
    its array interface, independently of DLPack."""
    a = np.asarray(x)
    return a.view(np.uint16) if x.dtype == xp.bfloat16 else a


def elem_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def sample(name, shape=(4, 6)):
    """A NumPy array of dtype ``name`` (bfloat16 from ml_dtypes) with distinct-ish values."""
    n = int(np.prod(shape))
    values = (np.arange(n) % 7 - 3).reshape(shape)
    if name == "bool":
        return values > 0
    if name.startswith("uint"):
        values = np.abs(values)
    if name.startswith("complex"):
        return (values + 1j * (2 - values)).astype(name)
    if name == "bfloat16":
        return values.astype(ml_dtypes.bfloat16)
    return values.astype(name)


def torch_sample(name, shape=(4, 6)):
    a = sample(name, shape)
    if name == "bfloat16":
        return torch.from_numpy(a.view(np.uint16).astype(np.int16)).view(torch.bfloat16).clone()
    return torch.from_numpy(a).clone()


def xp_sample(name, shape=(4, 6)):
    """A dlnumba-owned (64-byte aligned) array with ``sample``'s values."""
    source = torch_sample(name, shape)
    return xp.asarray(xp.from_dlpack(source), copy=True)


LAYOUTS = {  # the same view taken of a NumPy array, a dlnumba array or (no "negative") a tensor
    "contiguous": lambda a: a,
    "strided": lambda a: a[::2, 1::3],
    "transposed": lambda a: a.T,
    "offset": lambda a: a[1:, 2:],
    "rows": lambda a: a[1:],
    "negative": lambda a: a[::-1, ::-2],
    "0-d": lambda a: a[1, 2, ...],
    "size-0": lambda a: a[:0],
    "size-0-strided": lambda a: a[2:2, ::-1],
}
TORCH_LAYOUTS = {k: v for k, v in LAYOUTS.items() if k not in ("negative", "size-0-strided")}


# ---- NumPy -> dlnumba ----

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMPY_NAMES)
def test_from_numpy(dtype, layout):
    """dlnumba.from_dlpack(numpy) is zero-copy and keeps values, shape and strides."""
    a = LAYOUTS[layout](sample(dtype))
    x = xp.from_dlpack(a)
    assert x.dtype == getattr(xp, dtype)
    assert x.shape == a.shape
    assert data_address(x) == np_ptr(a)
    if a.size:
        assert x._strides == elem_strides(a)
    np.testing.assert_array_equal(bits(xp_values(x)), bits(a))
    assert not x._readonly


@pytest.mark.parametrize("dtype", NUMPY_NAMES)
def test_from_numpy_broadcast(dtype):
    """A zero-stride NumPy view (np.broadcast_to, read-only) arrives read-only, zero-copy."""
    base = sample(dtype)[1]
    a = np.broadcast_to(base, (3, 6))
    x = xp.from_dlpack(a)
    assert x._strides == (0, 1)
    assert data_address(x) == np_ptr(base)
    assert x._readonly
    np.testing.assert_array_equal(bits(xp_values(x)), bits(a))


# ---- dlnumba -> NumPy ----

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMPY_NAMES)
def test_numpy_from_dlnumba(dtype, layout):
    """np.from_dlpack(dlnumba) is zero-copy, writable, and keeps values, shape and strides."""
    x = LAYOUTS[layout](xp_sample(dtype))
    a = np.from_dlpack(x)
    assert a.dtype == np.dtype(dtype)
    assert a.shape == x.shape
    assert np_ptr(a) == data_address(x)
    if a.size:
        assert elem_strides(a) == x._strides
    assert a.flags.writeable
    np.testing.assert_array_equal(bits(a), bits(LAYOUTS[layout](sample(dtype))))


def test_numpy_from_dlnumba_zero_stride_is_read_only():
    """A broadcast (zero-stride) dlnumba view reaches NumPy read-only (READ_ONLY flag)."""
    t = torch.arange(6.0, dtype=torch.float64).expand(3, 6)
    x = xp.from_dlpack(t)
    assert x._strides == (0, 1) and not x._readonly
    a = np.from_dlpack(x)
    assert a.strides == (0, 8) and np_ptr(a) == t.data_ptr()
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, t.numpy())


def test_writes_visible_numpy():
    """Writes through dlnumba show in NumPy and the reverse, in both directions of exchange."""
    a = np.zeros((3, 4))
    x = xp.from_dlpack(a)
    x[1, ::-2] = 5.0
    assert (a[1] == [0, 5, 0, 5]).all()
    a[2, 0] = -1.0
    assert float(x[2, 0]) == -1.0
    b = np.from_dlpack(x[::-1])
    b[0, 0] = 9.0
    assert a[2, 0] == 9.0 and float(x[2, 0]) == 9.0


# ---- PyTorch -> dlnumba ----

@pytest.mark.parametrize("layout", TORCH_LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_from_torch(dtype, layout):
    """dlnumba.from_dlpack(tensor) is zero-copy for every torch dtype and layout."""
    t = TORCH_LAYOUTS[layout](torch_sample(dtype))
    x = xp.from_dlpack(t)
    assert x.dtype == getattr(xp, dtype)
    assert x.shape == tuple(t.shape)
    if t.numel():
        assert data_address(x) == t.data_ptr()
        assert x._strides == t.stride()
    np.testing.assert_array_equal(xp_values(x), torch_values(t))
    assert not x._readonly


@pytest.mark.parametrize("dtype", ALL)
def test_from_torch_expand(dtype):
    """A zero-stride tensor (expand) arrives with zero strides, zero-copy."""
    base = torch_sample(dtype)[1]
    t = base.expand(3, 6)
    x = xp.from_dlpack(t)
    assert x._strides == (0, 1) and data_address(x) == base.data_ptr()
    np.testing.assert_array_equal(xp_values(x), torch_values(t))


# ---- dlnumba -> PyTorch ----

@pytest.mark.parametrize("layout", TORCH_LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_torch_from_dlnumba(dtype, layout):
    """torch.from_dlpack(dlnumba) is zero-copy for every dtype and (non-negative) layout."""
    x = TORCH_LAYOUTS[layout](xp_sample(dtype))
    t = torch.from_dlpack(x)
    assert t.dtype == TORCH_DTYPES[dtype]
    assert tuple(t.shape) == x.shape
    if t.numel():
        assert t.data_ptr() == data_address(x)
        assert t.stride() == x._strides
    np.testing.assert_array_equal(torch_values(t), xp_values(x))


def test_torch_from_dlnumba_zero_stride():
    """A zero-stride dlnumba view reaches torch with zero strides, zero-copy."""
    base = torch.arange(6.0)
    x = xp.from_dlpack(base.expand(3, 6))
    t = torch.from_dlpack(x)
    assert t.stride() == (0, 1) and t.data_ptr() == base.data_ptr()


def test_writes_visible_torch():
    """Writes through dlnumba show in torch and the reverse, in both directions of exchange."""
    t = torch.zeros(3, 4, dtype=torch.int32)
    x = xp.from_dlpack(t)
    x[:, 1] = 7
    assert t[:, 1].tolist() == [7, 7, 7]
    t[0, 0] = -3
    assert int(x[0, 0]) == -3
    u = torch.from_dlpack(x.T)
    u[3, 2] = 11
    assert t[2, 3] == 11 and int(x[2, 3]) == 11


# ---- capsules: legacy and versioned, with torch ----

def test_torch_legacy_capsule_into_dlnumba():
    """torch.utils.dlpack.to_dlpack -> dlnumba: shared, writable, capsule renamed, once only."""
    t = torch.arange(6, dtype=torch.int64)
    capsule = torch.utils.dlpack.to_dlpack(t)
    assert capsule_name(capsule) == "dltensor"
    x = xp.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    assert data_address(x) == t.data_ptr() and not x._readonly
    x[0] = -9
    assert t[0] == -9
    with pytest.raises(BufferError, match="already consumed.*used_dltensor"):
        xp.from_dlpack(capsule)


def test_torch_versioned_capsule_into_dlnumba():
    """A versioned torch capsule -> dlnumba: shared, writable, renamed used_dltensor_versioned."""
    t = torch.arange(6.0)
    capsule = t.__dlpack__(max_version=(1, 0))
    assert capsule_name(capsule) == "dltensor_versioned"
    x = xp.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor_versioned"
    assert data_address(x) == t.data_ptr() and not x._readonly
    with pytest.raises(BufferError, match="already consumed.*used_dltensor_versioned"):
        xp.from_dlpack(capsule)


@pytest.mark.parametrize("consume", [torch.from_dlpack, torch.utils.dlpack.from_dlpack],
                         ids=["torch.from_dlpack", "torch.utils.dlpack.from_dlpack"])
def test_legacy_capsule_into_torch(consume):
    """dlnumba.to_dlpack -> torch: zero-copy; the capsule is renamed used_dltensor."""
    x = xp.arange(5)
    capsule = xp.to_dlpack(x)
    assert capsule_name(capsule) == "dltensor"
    t = consume(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    assert t.data_ptr() == data_address(x) and t.tolist() == [0, 1, 2, 3, 4]
    t[4] = 40
    assert int(x[4]) == 40


def test_versioned_capsule_into_torch():
    """x.__dlpack__(max_version=(1, 0)) -> torch.from_dlpack: zero-copy, renamed."""
    x = xp.arange(4.0)
    capsule = x.__dlpack__(max_version=(1, 0))
    assert capsule_name(capsule) == "dltensor_versioned"
    assert versioned_header(capsule) == (1, 0, 0)
    t = torch.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor_versioned"
    assert t.data_ptr() == data_address(x) and t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_dlnumba_capsules_into_dlnumba():
    """dlnumba's own capsules, both kinds, round-trip into dlnumba zero-copy and only once."""
    x = xp.arange(3)
    for capsule, used in [(xp.to_dlpack(x), "used_dltensor"),
                          (x.__dlpack__(max_version=(1, 3)), "used_dltensor_versioned")]:
        y = xp.from_dlpack(capsule)
        assert capsule_name(capsule) == used and data_address(y) == data_address(x)
        with pytest.raises(BufferError, match="already consumed"):
            xp.from_dlpack(capsule)


def test_numpy_legacy_capsule_is_writable():
    """A legacy NumPy capsule imports writable and shared (dlnumba follows torch, not NumPy)."""
    a = np.arange(4.0)
    x = xp.from_dlpack(a.__dlpack__())
    assert not x._readonly
    x[0] = 8.0
    assert a[0] == 8.0


@pytest.mark.parametrize("max_version, expected", [
    ((1, 0), (1, 0)), ((1, 1), (1, 1)), ((1, 3), (1, 3)), ((1, 9), (1, 3)), ((2, 0), (1, 3))])
def test_export_version_negotiation(max_version, expected):
    """__dlpack__(max_version=...) gives a versioned capsule of version min(max_version, 1.3)."""
    capsule = xp.arange(2).__dlpack__(max_version=max_version)
    assert capsule_name(capsule) == "dltensor_versioned"
    assert versioned_header(capsule)[:2] == expected


@pytest.mark.parametrize("max_version", [None, (0, 8)])
def test_export_legacy_when_no_major_1(max_version):
    """max_version None or major 0 gives a legacy capsule."""
    assert capsule_name(xp.arange(2).__dlpack__(max_version=max_version)) == "dltensor"


# ---- read-only and copied flags ----

def test_readonly_numpy_imports_readonly():
    """A read-only NumPy array (READ_ONLY in its versioned capsule) imports read-only."""
    a = np.arange(4.0)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    assert x._readonly and data_address(x) == np_ptr(a)
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x[1:][0] = 1.0
    assert a[0] == 0.0


@pytest.mark.parametrize("source", ["numpy", "dlnumba"])
def test_copy_of_readonly_is_writable(source):
    """from_dlpack(read-only, copy=True) gives fresh, writable memory."""
    a = np.arange(4.0)
    a.flags.writeable = False
    src = a if source == "numpy" else xp.from_dlpack(a)
    x = xp.from_dlpack(src, copy=True)
    assert not x._readonly and data_address(x) != np_ptr(a)
    x[0] = 9.0
    assert a[0] == 0.0


def test_readonly_export_sets_read_only_flag():
    """A read-only dlnumba array exports with READ_ONLY; NumPy gets a non-writeable view."""
    a = np.arange(4.0)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    _, _, flags = versioned_header(x.__dlpack__(max_version=(1, 0)))
    assert flags & READ_ONLY and not flags & IS_COPIED
    b = np.from_dlpack(x)
    assert not b.flags.writeable and np_ptr(b) == np_ptr(a)


def test_empty_zero_stride_export_stays_writable():
    """A writable size-0 array with zero strides (NumPy makes them) exports without READ_ONLY."""
    a = np.zeros((0, 2))
    assert a.strides == (0, 0) and a.flags.writeable
    x = xp.from_dlpack(a)
    assert not x._readonly
    assert versioned_header(x.__dlpack__(max_version=(1, 0)))[2] & READ_ONLY == 0
    assert np.from_dlpack(x).flags.writeable


def test_writable_export_has_no_flags():
    """A writable contiguous export sets neither READ_ONLY nor IS_COPIED."""
    assert versioned_header(xp.arange(3).__dlpack__(max_version=(1, 0)))[2] == 0


def test_zero_stride_export_sets_read_only_flag():
    """A broadcast (zero-stride) view exports READ_ONLY even when writable in dlnumba."""
    x = xp.from_dlpack(torch.arange(3.0).expand(2, 3))
    assert versioned_header(x.__dlpack__(max_version=(1, 0)))[2] == READ_ONLY


def test_readonly_legacy_export_refused():
    """A read-only array cannot leave through a legacy capsule: BufferError (to_dlpack, JAX)."""
    a = np.arange(4.0)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only.*legacy"):
        xp.to_dlpack(x)
    with pytest.raises(BufferError, match="read-only.*legacy"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="read-only.*legacy"):
        jnp.from_dlpack(x)


def test_readonly_legacy_export_with_copy():
    """copy=True lets a read-only array leave through a legacy capsule (a fresh copy)."""
    a = np.arange(4.0)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    t = torch.utils.dlpack.from_dlpack(x.__dlpack__(copy=True))
    assert t.data_ptr() != np_ptr(a) and t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_export_copy_sets_is_copied():
    """__dlpack__(copy=True) exports fresh memory and sets IS_COPIED."""
    x = xp.arange(4.0)[::-1]
    capsule = x.__dlpack__(max_version=(1, 0), copy=True)
    assert versioned_header(capsule)[2] == IS_COPIED
    y = xp.from_dlpack(capsule)
    assert data_address(y) != data_address(x) and y._strides == (1,)
    np.testing.assert_array_equal(xp_values(y), [3.0, 2.0, 1.0, 0.0])


def test_numpy_from_dlpack_copy_flags():
    """np.from_dlpack(x, copy=True) shares nothing; copy=False and device='cpu' share."""
    x = xp.arange(4.0)
    a = np.from_dlpack(x, copy=True)
    assert np_ptr(a) != data_address(x)
    a[0] = 5.0
    assert float(x[0]) == 0.0
    assert np_ptr(np.from_dlpack(x, copy=False)) == data_address(x)
    assert np_ptr(np.from_dlpack(x, device="cpu")) == data_address(x)


# ---- dlnumba.from_dlpack: copy and device ----

def _producers():
    return {
        "numpy": lambda: np.arange(6.0),
        "torch": lambda: torch.arange(6.0),
        "jax": lambda: jnp.arange(6.0, dtype=jnp.float32),
        "dlnumba": lambda: xp.arange(6.0),
    }


def _ptr(obj):
    if isinstance(obj, np.ndarray):
        return np_ptr(obj)
    if isinstance(obj, torch.Tensor):
        return obj.data_ptr()
    if isinstance(obj, xp.ndarray):
        return data_address(obj)
    return obj.unsafe_buffer_pointer()


@pytest.mark.parametrize("producer", _producers())
def test_from_dlpack_copy_true_shares_nothing(producer):
    """from_dlpack(copy=True) returns fresh memory: writes do not reach the source."""
    src = _producers()[producer]()
    x = xp.from_dlpack(src, copy=True)
    assert data_address(x) != _ptr(src) and not x._readonly
    x[0] = 100.0
    assert float(np.asarray(src)[0] if producer != "dlnumba" else src[0]) == 0.0
    np.testing.assert_array_equal(xp_values(x)[1:], np.arange(1.0, 6.0))


@pytest.mark.parametrize("producer", _producers())
@pytest.mark.parametrize("kwargs", [dict(copy=False), dict(copy=None), dict(device="cpu"),
                                    dict(device=(1, 0)), dict(device=xp.Device("cpu")),
                                    dict(device="cpu", copy=False)], ids=str)
def test_from_dlpack_never_copies(producer, kwargs):
    """copy=False / None and every spelling of the CPU device give a zero-copy view."""
    src = _producers()[producer]()
    x = xp.from_dlpack(src, **kwargs)
    assert data_address(x) == _ptr(src)
    np.testing.assert_array_equal(xp_values(x), np.arange(6.0))


def test_from_dlpack_copy_false_noncontiguous():
    """copy=False keeps non-contiguous and negative-stride NumPy views as they are."""
    a = np.arange(24).reshape(4, 6)[::-1, ::3]
    x = xp.from_dlpack(a, copy=False)
    assert data_address(x) == np_ptr(a) and x._strides == (-6, 3)


def _cuda_params():
    return _producers()


@pytest.mark.parametrize("producer", _cuda_params())
def test_from_dlpack_cuda_copy_false(producer):
    """device='cuda', copy=False: BufferError naming the device (no copy allowed)."""
    src = _producers()[producer]()
    with pytest.raises(BufferError):
        xp.from_dlpack(src, device="cuda", copy=False)


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("producer", _cuda_params())
def test_from_dlpack_to_cuda_copies(producer, copy):
    """device='cuda' otherwise: a copy on cuda:0 with the producer's values."""
    src = _producers()[producer]()
    x = xp.from_dlpack(src, device="cuda", copy=copy)
    assert x.device == xp.Device("cuda", 0)
    expected = xp.from_dlpack(_producers()[producer]())
    assert x.shape == expected.shape and x.dtype == expected.dtype
    np.testing.assert_array_equal(np.from_dlpack(x.to_device("cpu")), np.from_dlpack(expected))


def test_from_dlpack_capsule_cuda():
    """A raw CPU capsule with device='cuda': BufferError for copy=False, else a copy."""
    with pytest.raises(BufferError, match="cuda"):
        xp.from_dlpack(xp.to_dlpack(xp.arange(3)), device="cuda", copy=False)
    x = xp.from_dlpack(xp.to_dlpack(xp.arange(3)), device="cuda")
    assert x.device == xp.Device("cuda", 0)
    assert np.from_dlpack(x.to_device("cpu")).tolist() == [0, 1, 2]


def test_dlpack_device():
    """__dlpack_device__() is (kDLCPU, 0) = (1, 0)."""
    assert xp.arange(3).__dlpack_device__() == (1, 0)
    assert xp.from_dlpack(torch.arange(3)).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("stream", [0, 1, 2, -1])
def test_dlpack_stream_on_cpu(stream):
    """__dlpack__(stream=...) other than None on the CPU: ValueError naming the stream."""
    with pytest.raises(ValueError, match=f"stream must be None.*{stream}"):
        xp.arange(3).__dlpack__(stream=stream)


@pytest.mark.parametrize("max_version", [1, (1,), "1.0", (1.0, 0)])
def test_dlpack_bad_max_version(max_version):
    """A malformed max_version: TypeError naming it."""
    with pytest.raises(TypeError, match="max_version"):
        xp.arange(3).__dlpack__(max_version=max_version)


def test_dlpack_dl_device_cuda():
    """__dlpack__(dl_device=(2, 0)) copies to cuda:0 (IS_COPIED); copy=False: BufferError; a
    device that is not here: BufferError naming it."""
    with pytest.raises(BufferError, match="kDLCUDA:0"):
        xp.arange(3).__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError, match="kDLCUDA:5"):
        xp.arange(3).__dlpack__(max_version=(1, 0), dl_device=(2, 5))
    capsule = xp.arange(3).__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    assert versioned_header(capsule)[2] & IS_COPIED
    x = xp.from_dlpack(capsule)
    assert x.device == xp.Device("cuda", 0)
    assert np.from_dlpack(x.to_device("cpu")).tolist() == [0, 1, 2]


def test_dlpack_dl_device_cpu_no_copy():
    """__dlpack__(dl_device=(1, 0), copy=False) exports without a copy."""
    x = xp.arange(3)
    y = xp.from_dlpack(x.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False))
    assert data_address(y) == data_address(x)


# ---- JAX ----

@pytest.fixture
def x64():
    with jax.enable_x64(True):
        yield


def jax_values(j):
    a = np.asarray(j)
    return a.view(np.uint16) if a.dtype == ml_dtypes.bfloat16 else a


@pytest.mark.parametrize("shape", [(4, 6), (), (0, 3)], ids=["2-d", "0-d", "size-0"])
@pytest.mark.parametrize("dtype", ALL)
def test_from_jax(x64, dtype, shape):
    """dlnumba.from_dlpack(jax array) is zero-copy for every dtype; 0-d and size-0 too."""
    j = jnp.asarray(sample(dtype, shape))
    x = xp.from_dlpack(j)
    assert x.dtype == getattr(xp, dtype) and x.shape == shape
    if j.size:
        assert data_address(x) == j.unsafe_buffer_pointer()
    np.testing.assert_array_equal(bits(xp_values(x)), bits(jax_values(j)))


@pytest.mark.parametrize("dtype", ALL)
def test_jax_from_dlnumba(x64, dtype):
    """jnp.from_dlpack(dlnumba) keeps values for every dtype, zero-copy (64-byte aligned)."""
    x = xp_sample(dtype)
    assert data_address(x) % 64 == 0
    j = jnp.from_dlpack(x)
    assert j.dtype == (ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype))
    assert j.unsafe_buffer_pointer() == data_address(x)
    np.testing.assert_array_equal(jax_values(j), xp_values(x))


@pytest.mark.parametrize("layout", ["transposed", "0-d", "size-0", "rows"])
def test_jax_from_dlnumba_layouts(x64, layout):
    """JAX takes compact layouts (transposed, 0-d, size-0, a row range) with equal values."""
    x = LAYOUTS[layout](xp_sample("float64"))
    j = jnp.from_dlpack(x)
    assert j.shape == x.shape
    np.testing.assert_array_equal(np.asarray(j), xp_values(x))
    if layout == "transposed":  # aligned and compact: JAX keeps the memory
        assert j.unsafe_buffer_pointer() == data_address(x)


@pytest.mark.parametrize("layout", ["strided", "offset", "negative", "zero-stride"])
def test_jax_refuses_non_compact(x64, layout):
    """JAX (0.10) refuses non-compact views (steps, a sub-block, negative or zero strides)."""
    if layout == "zero-stride":
        x = xp.from_dlpack(torch.arange(6.0, dtype=torch.float64).expand(3, 6))
    else:
        x = LAYOUTS[layout](xp_sample("float64"))
    with pytest.raises(Exception, match=r"trivial \(compact\) striding"):
        jnp.from_dlpack(x)


# ---- differential round trips with hypothesis ----

def _index_key(key):
    """A basic index as a tuple that always yields an array (a trailing Ellipsis)."""
    key = key if isinstance(key, tuple) else (key,)
    return key if any(k is Ellipsis for k in key) else key + (Ellipsis,)


@st.composite
def numpy_views(draw):
    """A NumPy array of any dlnumba dtype, 0-6 dims, sliced (negative steps included),
    possibly transposed and possibly broadcast (zero strides)."""
    dtype = draw(st.sampled_from(NUMPY_NAMES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4))
    base = draw(hnp.arrays(dtype, shape))
    view = base[_index_key(draw(hnp.basic_indices(shape, allow_newaxis=True)))]
    if draw(st.booleans()):
        view = view.transpose(draw(st.permutations(range(view.ndim))))
    if view.ndim < 6 and draw(st.booleans()):
        view = np.broadcast_to(view, (draw(st.integers(0, 3)),) + view.shape)
    return view


@given(numpy_views())
def test_roundtrip_numpy_dlnumba_numpy(a):
    """numpy -> dlnumba -> numpy is the identity: same memory, layout, values, writability."""
    x = xp.from_dlpack(a)
    assert x.shape == a.shape and x.dtype == getattr(xp, a.dtype.name)
    assert x._readonly == (not a.flags.writeable)
    b = np.from_dlpack(x)
    assert b.dtype == a.dtype and b.shape == a.shape
    if a.size:  # size-0 writability: see test_empty_zero_stride_export_stays_writable
        assert b.flags.writeable == a.flags.writeable
        assert data_address(x) == np_ptr(a) and np_ptr(b) == np_ptr(a)
        assert x._strides == elem_strides(a) and b.strides == a.strides
    np.testing.assert_array_equal(bits(b), bits(a))
    np.testing.assert_array_equal(bits(xp_values(x)), bits(a))


def moving_strides(a):
    """The strides of the axes of more than one element."""
    return [s for s, n in zip(a.strides, a.shape) if n > 1]


@given(st.data())
def test_dlnumba_views_match_numpy_views(data):
    """The same basic index on dlnumba and NumPy gives the same view (seen through DLPack)."""
    dtype = data.draw(st.sampled_from(NUMPY_NAMES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4))
    a = data.draw(hnp.arrays(dtype, shape))
    key = _index_key(data.draw(hnp.basic_indices(shape, allow_newaxis=True)))
    expected = a[key]
    got = np.from_dlpack(xp.from_dlpack(a)[key])
    assert got.shape == expected.shape
    if expected.size:  # the stride of an axis of one element moves nothing: dlnumba keeps its
        assert np_ptr(got) == np_ptr(expected)  # own there, where NumPy's may overflow
        assert moving_strides(got) == moving_strides(expected)
    np.testing.assert_array_equal(bits(got), bits(expected))
