"""DLPack import errors, with capsules forged by hand (ctypes) over real NumPy memory.

Each forged tensor's deleter counts its calls. A bad tensor must raise BufferError naming the
bad field and leave the capsule exactly as it was: same name, deleter not called (its producer
still owns it). A good one imports with the right values, and its deleter runs exactly once,
when the last dlnumba view of it is gone.
"""

import ctypes
import gc

import numpy as np
import pytest

import dlnumba as xp
from dlnumba import _capi

from dlpack_forge import (IS_COPIED, READ_ONLY, DLManagedTensor, DLManagedTensorVersioned,
                          DLTensor, Forged, capsule_name, capsule_named, kDLCUDA, kDLROCM)
from helpers import data_address, to_numpy

KINDS = [pytest.param(False, id="legacy"), pytest.param(True, id="versioned")]
NAMES = {False: "dltensor", True: "dltensor_versioned"}


def collect():
    gc.collect()


def base(dtype=np.int32):
    return np.arange(6, dtype=dtype).reshape(2, 3)


def test_the_compiled_import_reads_dlpack_h_s_fields_where_c_puts_them():
    """dlnumba's structs of dlpack.h (NumPy dtypes, whose offsets the compiled code uses, and
    the packed headers of its exports) against ctypes' layout of the C structs."""
    def offsets(struct):
        found = {}
        for name, kind in struct._fields_:
            field = getattr(struct, name)
            if hasattr(kind, "_fields_"):
                found.update({inner: field.offset + at for inner, at in offsets(kind).items()})
            found[name] = field.offset
        return found

    for ours, theirs, header in (
            (_capi.DL_TENSOR, DLTensor, None),
            (_capi.DL_MANAGED_TENSOR, DLManagedTensor, _capi.LEGACY_HEADER),
            (_capi.DL_MANAGED_TENSOR_VERSIONED, DLManagedTensorVersioned,
             _capi.VERSIONED_HEADER)):
        assert ours.itemsize == ctypes.sizeof(theirs)
        if header is not None:
            assert header.size == ours.itemsize
        expected = offsets(theirs)
        for name, (_, offset) in ours.fields.items():
            assert offset == expected[name], (theirs.__name__, name)
        for kind, offset in ours.fields.values():
            for inner, (_, at) in (kind.fields or {}).items():
                assert offset + at == expected[inner], (theirs.__name__, inner)


# ---- valid forged tensors ----

@pytest.mark.parametrize("versioned", KINDS)
def test_forged_valid_imports(versioned):
    """A valid forged tensor imports zero-copy with its values; the capsule is renamed."""
    a = base()
    f = Forged(a, versioned=versioned)
    x = xp.from_dlpack(f.capsule)
    assert f.name == "used_" + NAMES[versioned]
    assert x.shape == (2, 3) and x._strides == (3, 1) and x.dtype == xp.int32
    assert data_address(x) == a.ctypes.data and not x._readonly
    np.testing.assert_array_equal(to_numpy(x), a)
    assert f.calls == []


@pytest.mark.parametrize("device", [(3, 0), (13, 0), (13, 5)])
def test_pinned_and_managed_memory_import_as_host_arrays(device):
    """kDLCUDAHost and kDLCUDAManaged memory is host-readable: imported zero-copy as a CPU
    array that CPU kernels read and write in place; the deleter runs once, after the last
    view."""
    a = base()
    f = Forged(a, device_type=device[0], device_id=device[1])
    x = xp.from_dlpack(f.capsule)
    assert x.device == xp.Device("cpu") and data_address(x) == a.ctypes.data
    assert int(xp.sum(x)) == int(a.sum())
    x[0, 0] = 100
    assert a[0, 0] == 100
    assert xp.from_dlpack(x).__dlpack_device__() == (1, 0)
    del x
    assert len(f.calls) == 1


@pytest.mark.parametrize("device", [(3, -1), (13, -2)])
def test_pinned_and_managed_memory_with_negative_id_refused(device):
    f = Forged(base(), device_type=device[0], device_id=device[1])
    with pytest.raises(BufferError, match=f"device kDLCUDA(Host|Managed):{device[1]} is not "
                                          "available"):
        xp.from_dlpack(f.capsule)
    assert f.calls == []


@pytest.mark.parametrize("versioned", KINDS)
def test_forged_byte_offset_honoured(versioned):
    """data + byte_offset is the first element."""
    a = np.arange(10, dtype=np.int64)
    f = Forged(a, versioned=versioned, shape=(2, 2), strides=(2, 1), byte_offset=3 * 8)
    x = xp.from_dlpack(f.capsule)
    assert data_address(x) == a.ctypes.data + 24
    np.testing.assert_array_equal(to_numpy(x), [[3, 4], [5, 6]])


@pytest.mark.parametrize("versioned", KINDS)
def test_forged_null_strides_mean_c_contiguous(versioned):
    """NULL strides (allowed from pre-1.2 producers) mean C-contiguous."""
    a = np.arange(24, dtype=np.float32)
    f = Forged(a, versioned=versioned, shape=(2, 3, 4), null_strides=True)
    x = xp.from_dlpack(f.capsule)
    assert x._strides == (12, 4, 1)
    np.testing.assert_array_equal(to_numpy(x), a.reshape(2, 3, 4))


def test_forged_strided_negative_and_zero():
    """Explicit strides, negative and zero included, are honoured."""
    a = np.arange(12, dtype=np.int16)
    f = Forged(a, shape=(3, 2, 2), strides=(-4, 0, 2), byte_offset=8 * 2)
    x = xp.from_dlpack(f.capsule)
    expected = np.lib.stride_tricks.as_strided(a[8:], (3, 2, 2), (-8, 0, 4))
    np.testing.assert_array_equal(to_numpy(x), expected)


@pytest.mark.parametrize("versioned", KINDS)
def test_forged_0d_null_shape_and_strides(versioned):
    """A 0-d tensor may have NULL shape and strides."""
    a = np.array(7.5)
    f = Forged(a, versioned=versioned, null_shape=True, null_strides=True)
    x = xp.from_dlpack(f.capsule)
    assert x.shape == () and float(x) == 7.5


@pytest.mark.parametrize("versioned", KINDS)
def test_forged_empty_null_data(versioned):
    """A size-0 tensor may have NULL data."""
    f = Forged(np.zeros(0), versioned=versioned, shape=(3, 0), strides=(0, 1), data=None)
    x = xp.from_dlpack(f.capsule)
    assert x.shape == (3, 0) and x.size == 0


def test_forged_64_dims():
    """ndim 64 (the limit) imports."""
    a = np.array([5], dtype=np.uint8)
    f = Forged(a, shape=(1,) * 64, strides=(1,) * 64)
    x = xp.from_dlpack(f.capsule)
    assert x.ndim == 64 and int(x[(0,) * 64]) == 5


def test_forged_read_only_flag():
    """A versioned tensor with READ_ONLY imports read-only; writes raise ValueError."""
    a = base()
    f = Forged(a, flags=READ_ONLY)
    x = xp.from_dlpack(f.capsule)
    assert x._readonly
    with pytest.raises(ValueError, match="read-only"):
        x[0, 0] = 1
    assert a[0, 0] == 0
    assert not np.from_dlpack(x).flags.writeable


def test_forged_legacy_is_writable():
    """A legacy tensor imports writable; writes reach the producer's memory."""
    a = base()
    x = xp.from_dlpack(Forged(a, versioned=False).capsule)
    x[1, 2] = -1
    assert a[1, 2] == -1


def test_forged_is_copied_satisfies_copy_true():
    """from_dlpack(capsule, copy=True) does not copy again when the producer set IS_COPIED."""
    a = base()
    f = Forged(a, flags=IS_COPIED)
    x = xp.from_dlpack(f.capsule, copy=True)
    assert data_address(x) == a.ctypes.data


@pytest.mark.parametrize("versioned", KINDS)
def test_forged_copy_true_copies_and_releases(versioned):
    """from_dlpack(capsule, copy=True) without IS_COPIED copies and releases the producer."""
    a = base()
    f = Forged(a, versioned=versioned)
    x = xp.from_dlpack(f.capsule, copy=True)
    assert data_address(x) != a.ctypes.data
    np.testing.assert_array_equal(to_numpy(x), a)
    collect()
    assert f.calls == [f.managed_address]


@pytest.mark.parametrize("dtype, code, bits", [
    (np.bool_, 6, 8), (np.int8, 0, 8), (np.uint64, 1, 64), (np.float16, 2, 16),
    (np.complex128, 5, 128)])
def test_forged_dtype_codes(dtype, code, bits):
    """Each DLPack (code, bits) pair maps to its dtype."""
    a = np.ones(3, dtype=dtype)
    x = xp.from_dlpack(Forged(a, code=code, bits=bits).capsule)
    assert x.dtype == getattr(xp, np.dtype(dtype).name)


def test_forged_bfloat16():
    """DLPack bfloat16 (code 4, bits 16) maps to dlnumba.bfloat16, bits kept."""
    a = np.array([0x3F80, 0x4000], dtype=np.uint16)  # 1.0, 2.0
    x = xp.from_dlpack(Forged(a, code=4, bits=16).capsule)
    assert x.dtype == xp.bfloat16 and float(x[1]) == 2.0


# ---- deleter runs exactly once ----

@pytest.mark.parametrize("versioned", KINDS)
def test_deleter_runs_once_after_last_view(versioned):
    """The deleter runs once, with the managed pointer, after the array and its views die."""
    f = Forged(base(), versioned=versioned)
    x = xp.from_dlpack(f.capsule)
    view = x[1, ::-1]
    exported = np.from_dlpack(x.T)
    del x
    collect()
    assert f.calls == []
    del view
    collect()
    assert f.calls == []
    np.testing.assert_array_equal(exported, base().T)
    del exported
    collect()
    assert f.calls == [f.managed_address]
    del f.capsule  # dropping the consumed capsule runs nothing more
    collect()
    assert f.calls == [f.managed_address]


# ---- invalid forged tensors ----

BAD = {  # id: (forge arguments, regex the BufferError message must match)
    "ndim=-1": (dict(ndim=-1), r"ndim is -1"),
    "ndim=65": (dict(ndim=65), r"ndim is 65; expected 0 to 64"),
    "shape<0": (dict(shape=(2, -3), strides=(3, 1)), r"shape\[1\] is -3"),
    "shape NULL": (dict(null_shape=True), r"shape is NULL"),
    "code=3": (dict(code=3), r"code=3, bits=32"),
    "code=99": (dict(code=99), r"code=99"),
    "float24": (dict(code=2, bits=24), r"code=2, bits=24"),
    "int7": (dict(code=0, bits=7), r"code=0, bits=7"),
    "bits=0": (dict(bits=0), r"code=0, bits=0"),
    "lanes=2": (dict(lanes=2), r"lanes=2"),
    "lanes=0": (dict(lanes=0), r"lanes=0"),
    "data NULL": (dict(data=None), r"data is NULL.*\(2, 3\)"),
    "CUDA:7": (dict(device_type=kDLCUDA, device_id=7), r"kDLCUDA:7"),
    "ROCm": (dict(device_type=kDLROCM, device_id=1), r"kDLROCM:1"),
    "CPU:3": (dict(device_id=3), r"kDLCPU:3"),
    "device 99": (dict(device_type=99), r"unknown device type 99"),
    "huge stride": (dict(shape=(2, 3), strides=(2**61, 1)), r"strides \(2305843009213693952, 1\)"),
    "huge shape": (dict(shape=(2**31, 2**31, 2**31), strides=(0, 0, 0)),
                   r"shape \(2147483648, 2147483648, 2147483648\)"),
    "below address 0": (dict(data=16, shape=(6,), strides=(-1,)),
                        r"data 0x10 .*reaches outside the address space"),
    # the fuzzer's crash: data + byte_offset put the lowest element at address 0 (NULL)
    "element at address 0": (dict(data=8, byte_offset=12, shape=(6,), strides=(-1,)),
                             r"data 0x8 with byte_offset 12.*reaches outside the address space"),
    "byte_offset > 2**62": (dict(byte_offset=2**62 + 8), r"byte_offset 4611686018427387912"),
}


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("versioned", KINDS)
def test_invalid_tensor_rejected_untouched(versioned, case):
    """A bad field raises BufferError naming it; capsule keeps its name, deleter not run."""
    kwargs, message = BAD[case]
    f = Forged(base(), versioned=versioned, **kwargs)
    with pytest.raises(BufferError, match=message):
        xp.from_dlpack(f.capsule)
    assert f.name == NAMES[versioned]
    collect()
    assert f.calls == []
    with pytest.raises(BufferError, match=message):  # still unconsumed: same answer again
        xp.from_dlpack(f.capsule)


@pytest.mark.parametrize("version, shown", [((2, 0), "2.0"), ((0, 9), "0.9"), ((3, 1), "3.1")])
def test_bad_major_version_rejected(version, shown):
    """A versioned capsule of major version other than 1: BufferError naming the version."""
    f = Forged(base(), version=version)
    with pytest.raises(BufferError, match=rf"version {shown}"):
        xp.from_dlpack(f.capsule)
    assert f.name == "dltensor_versioned" and f.calls == []


def test_failed_import_leaves_capsule_importable():
    """After a rejected import the producer may repair and import it: deleter runs once."""
    f = Forged(base(), device_type=kDLCUDA, device_id=7)
    with pytest.raises(BufferError, match="kDLCUDA:7"):
        xp.from_dlpack(f.capsule)
    f.tensor.device.device_type, f.tensor.device.device_id = 1, 0
    x = xp.from_dlpack(f.capsule)
    np.testing.assert_array_equal(to_numpy(x), base())
    del x
    collect()
    assert f.calls == [f.managed_address]


@pytest.mark.parametrize("field, value, shown", [
    ("byte_offset", 2**63, r"byte_offset 9223372036854775808\b"),
    ("data", 2**63 + 16, r"data 0x8000000000000010\b")])
@pytest.mark.parametrize("versioned", KINDS)
def test_high_values_reported_unsigned(versioned, field, value, shown):
    """byte_offset or data at 2**63 and above is refused; the message shows it unsigned."""
    f = Forged(base(), versioned=versioned, **{field: value})
    with pytest.raises(BufferError, match=shown):
        xp.from_dlpack(f.capsule)
    assert f.name == NAMES[versioned] and f.calls == []


@pytest.mark.parametrize("kwargs", [dict(copy=True), dict(device="cpu"), dict(copy=False)],
                         ids=str)
def test_invalid_tensor_rejected_with_options(kwargs):
    """copy= and device= do not change the verdict on a bad tensor."""
    f = Forged(base(), lanes=4)
    with pytest.raises(BufferError, match="lanes=4"):
        xp.from_dlpack(f.capsule, **kwargs)
    assert f.name == "dltensor_versioned" and f.calls == []


# ---- objects that are not DLPack capsules or producers ----

@pytest.mark.parametrize("obj, name", [(object(), "object"), ([1, 2], "list"), (3, "int"),
                                       ("dltensor", "str")])
def test_non_producer_is_type_error(obj, name):
    """An object without __dlpack__ that is not a capsule: TypeError naming its type."""
    with pytest.raises(TypeError, match=rf"__dlpack__.*not {name}\b"):
        xp.from_dlpack(obj)


def test_producer_returning_non_capsule_is_type_error():
    """A __dlpack__ that returns something else than a capsule: TypeError naming it."""
    class Liar:
        def __dlpack__(self, **kwargs):
            return 42

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match="PyCapsule, not int"):
        xp.from_dlpack(Liar())


@pytest.mark.parametrize("name", [b"foo", b"dltensor_", b"used_dltensor_versioned_x"])
def test_capsule_with_other_name_is_buffer_error(name):
    """A capsule with a non-DLPack name: BufferError naming it; the capsule is not renamed."""
    capsule = capsule_named(name)
    with pytest.raises(BufferError, match=f"named '{name.decode()}' is not a DLPack capsule"):
        xp.from_dlpack(capsule)
    assert capsule_name(capsule) == name.decode()


@pytest.mark.parametrize("name", [b"used_dltensor", b"used_dltensor_versioned"])
def test_used_capsule_is_buffer_error(name):
    """A capsule already named used_...: BufferError saying it was consumed."""
    with pytest.raises(BufferError, match=f"already consumed.*'{name.decode()}'"):
        xp.from_dlpack(capsule_named(name))


def test_to_dlpack_needs_dlnumba_array():
    """to_dlpack of anything but a dlnumba array: TypeError naming the type."""
    with pytest.raises(TypeError, match="not list"):
        xp.to_dlpack([1, 2])


def test_torch_unsupported_dtypes_rejected():
    """Real producer dtypes dlnumba lacks (complex32, float8) are refused by code and bits."""
    torch = pytest.importorskip("torch")
    import warnings
    for dtype, message in [(torch.float8_e4m3fn, r"code=10, bits=8"),
                           (torch.float8_e5m2, r"code=12, bits=8")]:
        t = torch.zeros(3, dtype=dtype)
        with pytest.raises(BufferError, match=message):
            xp.from_dlpack(t)
        capsule = torch.utils.dlpack.to_dlpack(t)
        with pytest.raises(BufferError, match=message):
            xp.from_dlpack(capsule)
        assert capsule_name(capsule) == "dltensor"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "ComplexHalf support is experimental"
        t = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(BufferError, match=r"code=5, bits=32"):
        xp.from_dlpack(t)
