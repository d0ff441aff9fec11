"""Dtypes, devices and ``__array_namespace_info__``."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import dlnumba as xp
from dlnumba._devices import as_device
from dlnumba._dtypes import as_dtype

from helpers import ALL, DTYPES, STANDARD

ml_dtypes = pytest.importorskip("ml_dtypes")

# name: (kind, itemsize, DLPack code)
DTYPE_FACTS = {
    "bool": ("bool", 1, 6),
    "int8": ("signed integer", 1, 0), "int16": ("signed integer", 2, 0),
    "int32": ("signed integer", 4, 0), "int64": ("signed integer", 8, 0),
    "uint8": ("unsigned integer", 1, 1), "uint16": ("unsigned integer", 2, 1),
    "uint32": ("unsigned integer", 4, 1), "uint64": ("unsigned integer", 8, 1),
    "float16": ("real floating", 2, 2), "bfloat16": ("real floating", 2, 4),
    "float32": ("real floating", 4, 2), "float64": ("real floating", 8, 2),
    "complex64": ("complex floating", 8, 5), "complex128": ("complex floating", 16, 5),
}


# ---- dtypes ----

@pytest.mark.parametrize("name", ALL)
def test_dtype_attributes(name):
    """Each dtype is a module attribute: NumPy's dtype of that name (ml_dtypes' bfloat16), whose
    row in dlnumba's table has its kind, itemsize and DLPack code."""
    dtype = getattr(xp, name)
    kind, itemsize, code = DTYPE_FACTS[name]
    expected = np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    assert dtype is expected and dtype.name == name and dtype.itemsize == itemsize
    assert name in xp.__all__
    assert str(dtype) == name
    row = as_dtype(dtype)
    assert row.name == name and row.kind == kind and row.itemsize == itemsize
    assert row.dlpack == (code, 8 * itemsize, 1)
    assert row.numpy is dtype and row.storage.itemsize == itemsize


@pytest.mark.parametrize("name", ALL)
def test_dtype_storage(name):
    """A row's storage is the NumPy dtype whose bytes the kernels use (uint16 for bfloat16)."""
    expected = np.dtype("uint16" if name == "bfloat16" else name)
    assert as_dtype(getattr(xp, name)).storage == expected


def test_dtype_equality_and_hash():
    """Dtypes compare equal only to themselves (and NumPy's spellings of themselves) and hash
    consistently."""
    dtypes = list(DTYPES.values())
    assert len(set(dtypes)) == len(dtypes)
    for a in dtypes:
        assert a == a and hash(a) == hash(getattr(xp, a.name))
        for b in dtypes:
            if a is not b:
                assert a != b
    assert xp.float32 == np.float32 and xp.float32 == "float32"  # NumPy's dtype equality
    assert xp.bfloat16 != xp.uint16 and xp.bfloat16 != xp.float16


@pytest.mark.parametrize("name", ALL)
def test_dtype_pickle_and_copy_keep_the_dtype(name):
    """pickle, copy and deepcopy give an equal dtype (NumPy's dtypes), which arrays take."""
    dtype = getattr(xp, name)
    for same in (pickle.loads(pickle.dumps(dtype)), copy.copy(dtype), copy.deepcopy(dtype)):
        assert same == dtype and hash(same) == hash(dtype)
        assert xp.zeros(2, dtype=same).dtype is dtype


@pytest.mark.parametrize("name", ALL)
def test_arrays_report_their_dtype(name):
    """An array's dtype attribute is the module's dtype object."""
    dtype = getattr(xp, name)
    assert xp.zeros(2, dtype=dtype).dtype is dtype


def test_constants():
    """e, inf, nan, pi and newaxis are the Python values."""
    import math
    assert xp.e == math.e and xp.pi == math.pi and xp.inf == math.inf
    assert xp.nan != xp.nan and isinstance(xp.nan, float)
    assert xp.newaxis is None


# ---- Device ----

def test_device_cpu():
    """Device('cpu'): type, index 0, repr/str, DLPack pair."""
    d = xp.Device("cpu")
    assert (d.type, d.index) == ("cpu", 0)
    assert repr(d) == "Device('cpu')" and str(d) == "cpu"
    assert d.dlpack == (1, 0)
    assert xp.Device("cpu", 0) == d


@pytest.mark.parametrize("index", [0, 1, 7])
def test_device_cuda(index):
    """Device('cuda', n): repr/str, DLPack pair; index defaults to 0."""
    d = xp.Device("cuda", index)
    assert (d.type, d.index) == ("cuda", index)
    assert repr(d) == f"Device('cuda', {index})" and str(d) == f"cuda:{index}"
    assert d.dlpack == (2, index)
    assert xp.Device("cuda") == xp.Device("cuda", 0)


@pytest.mark.parametrize("args", [("cpu", 1), ("gpu",), ("CPU",), ("cuda:0",), ("",),
                                  ("cuda", -1), ("cuda", True), ("cuda", 1.0), ("cuda", "1")])
def test_device_constructor_errors(args):
    """Unknown types, CPU index other than 0 and non-int/negative indices raise ValueError."""
    with pytest.raises(ValueError):
        xp.Device(*args)


def test_one_object_per_device():
    """A device is one object, made once per process: after pickling, copying and a DLPack pair
    too (so comparing and hashing it costs Python's identity test)."""
    for device in (xp.Device("cpu"), xp.Device("cuda", 3)):
        assert xp.Device(device.type, device.index) is device
        assert pickle.loads(pickle.dumps(device)) is device
        assert copy.copy(device) is device and copy.deepcopy(device) is device
        assert as_device(device.dlpack) is device
    assert xp.asarray([1.0]).device is xp.Device("cpu")


def test_device_equality_and_hash():
    """Devices are equal when type and index are; they work as dict keys."""
    devices = [xp.Device("cpu"), xp.Device("cuda", 0), xp.Device("cuda", 1)]
    for i, a in enumerate(devices):
        for j, b in enumerate(devices):
            assert (a == b) == (i == j)
            assert (a != b) == (i != j)
    assert hash(xp.Device("cuda", 1)) == hash(xp.Device("cuda", 1))
    assert {xp.Device("cpu"): 1}[xp.Device("cpu")] == 1
    assert len({xp.Device("cuda", 2), xp.Device("cuda", 2), xp.Device("cpu")}) == 2
    assert xp.Device("cpu") != "cpu" and xp.Device("cpu") != (1, 0)


@pytest.mark.parametrize("spelling, expected", [
    ("cpu", ("cpu", 0)), ("cpu:0", ("cpu", 0)), ("cuda", ("cuda", 0)), ("cuda:0", ("cuda", 0)),
    ("cuda:1", ("cuda", 1)), ("cuda:12", ("cuda", 12)), ((1, 0), ("cpu", 0)),
    ((2, 0), ("cuda", 0)), ((2, 3), ("cuda", 3)),
])
def test_device_parsing(spelling, expected):
    """Every device= spelling parses to the Device it names."""
    assert as_device(spelling) == xp.Device(*expected)
    assert as_device(xp.Device(*expected)) == xp.Device(*expected)


@pytest.mark.parametrize("spelling", ["gpu", "", "CPU", "cuda:", "cuda:x", "cuda:-1", "cpu:1",
                                      " cuda", "cuda:1:2", "cuda 1", (1, 1), (99, 0), (3, 0),
                                      (2, -1)])
def test_device_parsing_bad_values(spelling):
    """Strings and DLPack pairs that name no supported device raise ValueError."""
    with pytest.raises(ValueError):
        as_device(spelling)


@pytest.mark.parametrize("spelling", [None, 1, 1.0, [1, 0], (1,), (1, 0, 0), (True, 0),
                                      (1.0, 0), b"cpu", object()])
def test_device_parsing_bad_types(spelling):
    """Objects that are no device spelling at all raise TypeError."""
    with pytest.raises(TypeError):
        as_device(spelling)


@given(st.integers(0, 2**31))
def test_device_cuda_index_roundtrip(index):
    """'cuda:N', ('cuda', N) and (2, N) name the same device, whose str is 'cuda:N'."""
    d = as_device(f"cuda:{index}")
    assert d == xp.Device("cuda", index) == as_device((2, index))
    assert as_device(str(d)) == d and d.dlpack == (2, index)


def test_array_device_and_to_device():
    """Arrays live on Device('cpu'); to_device takes every CPU spelling, refuses a device that
    is not here."""
    x = xp.arange(3)
    assert x.device == xp.Device("cpu") and x.__dlpack_device__() == (1, 0)
    for spelling in ("cpu", (1, 0), xp.Device("cpu")):
        assert x.to_device(spelling) is x
    with pytest.raises(ValueError):
        x.to_device("cuda:9")
    with pytest.raises(TypeError):
        x.to_device(0)


# ---- __array_namespace_info__ ----

@pytest.fixture
def info():
    return xp.__array_namespace_info__()


def test_info_devices(info, device):
    """devices() is a tuple (2025.12) that lists the CPU first; default_device() is the CPU;
    the fixture's is listed."""
    assert type(info.devices()) is tuple
    assert info.devices()[0] == xp.Device("cpu")
    assert info.default_device() == xp.Device("cpu")
    assert device in info.devices()
    assert all(isinstance(d, xp.Device) for d in info.devices())


def test_info_default_dtypes(info):
    """default_dtypes: float64, complex128, int64 (integral and indexing)."""
    expected = {"real floating": xp.float64, "complex floating": xp.complex128,
                "integral": xp.int64, "indexing": xp.int64}
    assert info.default_dtypes() == expected
    assert info.default_dtypes(device="cpu") == expected
    assert info.default_dtypes(device=xp.Device("cpu")) == expected


def test_info_dtypes_all(info):
    """dtypes() lists the array API's dtypes by name (not float16/bfloat16)."""
    dtypes = info.dtypes()
    assert list(dtypes) == STANDARD
    assert all(dtypes[n] is getattr(xp, n) for n in STANDARD)
    assert info.dtypes(device="cpu") == dtypes


@pytest.mark.parametrize("kind, names", [
    ("bool", ["bool"]),
    ("signed integer", ["int8", "int16", "int32", "int64"]),
    ("unsigned integer", ["uint8", "uint16", "uint32", "uint64"]),
    ("integral", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]),
    ("real floating", ["float32", "float64"]),
    ("complex floating", ["complex64", "complex128"]),
    ("numeric", [n for n in STANDARD if n != "bool"]),
    (("bool", "complex floating"), ["bool", "complex64", "complex128"]),
    (("signed integer", "real floating"), ["int8", "int16", "int32", "int64", "float32",
                                           "float64"]),
])
def test_info_dtypes_by_kind(info, kind, names):
    """dtypes(kind=...) takes a kind or a tuple of kinds."""
    assert sorted(info.dtypes(kind=kind)) == sorted(names)


@pytest.mark.parametrize("kind", ["float", "integer", "floating", ("bool", "complex")])
def test_info_dtypes_bad_kind(info, kind):
    """An unknown kind raises ValueError."""
    with pytest.raises(ValueError):
        info.dtypes(kind=kind)


@pytest.mark.parametrize("dev", ["cuda:9", (2, 9), xp.Device("cuda", 9)])
def test_info_unavailable_device(info, dev):
    """Asking about a device this machine lacks raises ValueError."""
    with pytest.raises(ValueError):
        info.dtypes(device=dev)
    with pytest.raises(ValueError):
        info.default_dtypes(device=dev)


def test_info_capabilities(info):
    """capabilities() has the array API keys with the right types, and tells the truth."""
    caps = info.capabilities()
    assert caps["boolean indexing"] is True
    assert caps["data-dependent shapes"] is True
    x = xp.asarray([0, 3, 0, 5])
    assert xp.nonzero(x)[0].shape == (2,) and xp.unique_values(x).shape == (3,)
    assert x[x > 0].shape == (2,)
    assert isinstance(caps["max dimensions"], int) and caps["max dimensions"] >= 32


def test_info_max_dimensions_holds():
    """An array with 'max dimensions' dimensions can be made; one more is refused."""
    n = xp.__array_namespace_info__().capabilities()["max dimensions"]
    assert xp.zeros((1,) * n).ndim == n
    with pytest.raises(ValueError):
        xp.zeros((1,) * (n + 1))
