"""A DLPack capsule fuzzer: hypothesis forges capsules, legacy and versioned, with every field
varied, and checks each import against an independent model of what DLPack allows.

Two families of forgeries:

* **Real buffers** (``test_fuzz_real_buffers``): a valid layout over a real NumPy buffer (any
  dtype, shape, strides within the buffer, negative and zero included, NULL strides, the address
  split between ``data`` and ``byte_offset``, meaningless strides on axes of size 0 or 1, up to
  64 dimensions, READ_ONLY and IS_COPIED flags, any minor version), then 0 to 3 fields broken
  (version, ndim, NULL shape, negative size, dtype, device, NULL data, address, overflowing
  sizes or strides). A valid capsule must import and read the right values, through copies and
  exports too; a broken one must raise BufferError naming one of the broken fields.
* **Raw words** (``test_fuzz_raw_fields``): every field an arbitrary word (within the struct's
  C types); the memory is never read, so the pointers may point anywhere. :func:`verdict` says,
  from the DLPack rules alone, which messages may explain a refusal; an accepted tensor must
  describe exactly the struct's fields and fit the address space.

Always: no crash; a refused capsule keeps its name and its deleter is not run (the producer
still owns it); an accepted one is renamed ``used_...`` and its deleter runs exactly once, when
the last array over it dies (or at once, when ``copy=True`` copied it).

Each test records how many capsules it forged (``record_property("capsules_forged", n)``, and
printed with ``-s``): per run, ``FORGED_PER_EXAMPLE`` times its ``max_examples``.
"""

import re

import numpy as np
import pytest
from hypothesis import assume, example, given, settings, strategies as st

import dlnumba as xp
from dlnumba._dtypes import as_dtype

from dlpack_forge import Forged, PyCapsule_GetName, capsule_named, kDLCUDA
from helpers import data_address

LIMIT = 2**62  # dlnumba's bound on the bytes a tensor may span
INT64_MAX = 2**63 - 1
MAX_NDIM = 64

# The DLPack (code, bits) of each dtype dlnumba holds, from dlpack.h, with a NumPy storage type.
DLPACK_DTYPES = {  # name: (code, bits, numpy storage)
    "bool": (6, 8, np.bool_), "int8": (0, 8, np.int8), "int16": (0, 16, np.int16),
    "int32": (0, 32, np.int32), "int64": (0, 64, np.int64), "uint8": (1, 8, np.uint8),
    "uint16": (1, 16, np.uint16), "uint32": (1, 32, np.uint32), "uint64": (1, 64, np.uint64),
    "float16": (2, 16, np.float16), "bfloat16": (4, 16, np.uint16),
    "float32": (2, 32, np.float32), "float64": (2, 64, np.float64),
    "complex64": (5, 64, np.complex64), "complex128": (5, 128, np.complex128),
}
VALID_DTYPES = {(code, bits): name for name, (code, bits, _) in DLPACK_DTYPES.items()}

FORGED = [0]  # capsules forged in this process
FORGED_PER_EXAMPLE = 1  # each example forges exactly one capsule


def examples(scale):
    """``scale`` times the profile's max_examples (ci: 60, thorough: 300)."""
    return settings(max_examples=scale * settings().max_examples)


def forge(array, **kwargs):
    FORGED[0] += 1
    return Forged(array, **kwargs)


def count_forged(function, record_property):
    """Run a hypothesis test and record how many capsules it forged."""
    start = FORGED[0]
    function()
    forged = FORGED[0] - start
    record_property("capsules_forged", forged)
    print(f"\n{function.__name__}: {forged} capsules forged")
    assert forged >= settings().max_examples


def test_dtype_table_matches_dlnumba():
    """The fuzzer's dtype table is dlnumba's: every (code, bits) it calls valid imports."""
    for name, (code, bits, _) in DLPACK_DTYPES.items():
        assert as_dtype(getattr(xp, name)).dlpack == (code, bits, 1)


# ---- the model: which messages may explain refusing these fields ----

HOST_READABLE = (3, 13)  # kDLCUDAHost, kDLCUDAManaged: imported as CPU arrays, any device id


def _device_message(device_type, device_id):
    return rf"device (kDL\w+|unknown device type {device_type}):{device_id} is not available"


def verdict(f):
    """The BufferError messages (regexes) that may explain refusing forged fields ``f``, none
    when DLPack and dlnumba's limits allow them, with the C-contiguous strides for NULL.

    ``f`` has: versioned, major, minor, ndim, shape (None for NULL), strides (None for NULL),
    code, bits, lanes, device_type, device_id, data, byte_offset, as the C struct holds them
    (ndim int32; data, byte_offset uint64).
    """
    if f["versioned"] and f["major"] != 1:  # another ABI: nothing else can be read
        return [rf"DLPack version {f['major']}\.{f['minor']} is not supported"]
    reasons = []
    ndim, shape = f["ndim"], f["shape"]
    if not 0 <= ndim <= MAX_NDIM:
        reasons.append(rf"ndim is {ndim}; expected 0 to {MAX_NDIM}")
    elif ndim and shape is None:
        reasons.append(rf"shape is NULL for a tensor of ndim {ndim}")
    dtype_ok = f["lanes"] == 1 and (f["code"], f["bits"]) in VALID_DTYPES
    if not dtype_ok:
        reasons.append(rf"dtype \(code={f['code']}, bits={f['bits']}, lanes={f['lanes']}\) is "
                       "not supported")
    if (f["device_type"], f["device_id"]) != (1, 0) and not (
            f["device_type"] in HOST_READABLE and f["device_id"] >= 0):
        reasons.append(_device_message(f["device_type"], f["device_id"]))
    if reasons or ndim == 0 and shape is None:
        shape = ()
    if reasons:
        return reasons
    negative = [axis for axis, n in enumerate(shape) if n < 0]
    if negative:
        return [rf"shape\[{axis}\] is {shape[axis]}; sizes must be >= 0" for axis in negative]
    itemsize = f["bits"] // 8
    shape_text = re.escape(str(tuple(shape)))
    too_large = rf"shape {shape_text} with strides .* spans more than 2\*\*62 bytes"
    extent = 1
    for n in shape:
        extent *= max(n, 1)
    if extent * itemsize > LIMIT:
        return [too_large]
    empty = 0 in shape
    strides = f["strides"] if f["strides"] is not None else c_strides(shape)
    low = sum(min(0, s * (n - 1)) for n, s in zip(shape, strides) if n > 1) * itemsize
    high = sum(max(0, s * (n - 1)) for n, s in zip(shape, strides) if n > 1) * itemsize
    if not empty and (high > LIMIT or low < -LIMIT):
        return [too_large]
    if empty:
        low = high = 0
    if not empty and f["data"] == 0:
        return [rf"data is NULL for a tensor of shape {shape_text}"]
    base = f["data"] + f["byte_offset"]  # an element at address 0 would be at NULL
    if (f["data"] > INT64_MAX or f["byte_offset"] > LIMIT or base + low < (0 if empty else 1)
            or base + high + itemsize > INT64_MAX):
        return [rf"data {f['data']:#x} with byte_offset {f['byte_offset']}, shape {shape_text} "
                "and strides .* reaches outside the address space"]
    return []


def c_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def effective_strides(shape, strides, itemsize):
    """The strides dlnumba keeps: an empty tensor's are the C-contiguous ones, and a stride
    on an axis of size 1 that lies beyond 2**62 bytes is replaced by the C-contiguous one."""
    contiguous = c_strides(shape)
    if 0 in shape:
        return contiguous
    return tuple(c if n <= 1 and abs(s) > LIMIT // itemsize else s
                 for n, s, c in zip(shape, strides, contiguous))


def check_refused(f, capsule, reasons, kwargs=None):
    """Import must raise BufferError with one of ``reasons``; the capsule stays the producer's."""
    with pytest.raises(BufferError) as info:
        xp.from_dlpack(capsule, **(kwargs or {}))
    message = str(info.value)
    assert any(re.search(r, message) for r in reasons), (message, reasons)
    assert f.name == ("dltensor_versioned" if f.versioned else "dltensor")
    assert f.calls == []
    return message


# ---- family 1: real buffers ----

words = st.integers(-2**63, INT64_MAX)
u64 = st.integers(0, 2**64 - 1)


NAMES = st.sampled_from(sorted(DLPACK_DTYPES))
SMALL_SIZE = st.integers(0, 4)
SMALL_STRIDE = st.integers(-6, 6)
ONE_STRIDE = st.one_of(st.integers(-4, 4), words)
MINOR = st.sampled_from([0, 1, 2, 3, 4, 2**32 - 1])
FLAGS = st.sampled_from([0, 1, 2, 3])
RESERVED = st.sampled_from([0, 1 << 2, 1 << 63, 2**64 - 4])
EMPTY_DATA = st.one_of(st.just(0), st.integers(1, 2**48),
                       st.integers(INT64_MAX - 2**16, INT64_MAX - 64 - 16))
OPTIONS = st.sampled_from([{}, {}, {"copy": True}, {"copy": False}, {"device": "cpu"}])


@st.composite
def layouts(draw):
    """A valid tensor over a real buffer, as Forged arguments plus the values it must read."""
    name = draw(NAMES)
    code, bits, storage = DLPACK_DTYPES[name]
    itemsize = bits // 8
    ndim = draw(st.integers(0, 5))
    shape = [draw(SMALL_SIZE) for _ in range(ndim)]
    null_strides = draw(st.booleans())
    empty = 0 in shape
    if null_strides:
        strides = c_strides(shape)
    else:
        strides = [draw(words) if n <= 1 or empty and draw(st.booleans())
                   else draw(SMALL_STRIDE) for n in shape]
    if ndim and not null_strides and draw(st.integers(0, 9)) == 0:  # many size-1 axes
        for _ in range(draw(st.integers(1, MAX_NDIM - ndim))):
            at = draw(st.integers(0, len(shape)))
            shape.insert(at, 1)
            strides.insert(at, draw(ONE_STRIDE))
    shape, strides = tuple(shape), tuple(strides)
    meaningful = [(n, s) for n, s in zip(shape, strides) if n > 1 and not empty]
    low = sum(min(0, s * (n - 1)) for n, s in meaningful)
    high = sum(max(0, s * (n - 1)) for n, s in meaningful)
    slack = draw(st.integers(0, 3))
    values = np.arange(high - low + 1 + slack) * 7 + 3
    buffer = (values % 2 == 1 if storage is np.bool_ else values.astype(storage))
    start = -low + draw(st.integers(0, slack))  # element index of element (0, ..., 0)
    address = buffer.__array_interface__["data"][0]
    in_data = draw(st.integers(0, start))  # elements moved from byte_offset into data
    data, byte_offset = address + in_data * itemsize, (start - in_data) * itemsize
    if empty:  # no memory is read: a drawn address makes any failure replay
        data, byte_offset = draw(EMPTY_DATA), draw(st.integers(0, 64))
    if empty:
        expected = np.zeros(shape, storage)
    else:
        kept = tuple(s if n > 1 else 0 for n, s in zip(shape, strides))
        expected = np.lib.stride_tricks.as_strided(
            buffer[start:], shape, tuple(s * itemsize for s in kept))
    versioned = draw(st.booleans())
    fields = dict(versioned=versioned, shape=shape, strides=strides, null_strides=null_strides,
                  data=data, byte_offset=byte_offset, code=code, bits=bits)
    if versioned:
        fields["version"] = (1, draw(MINOR))
        fields["flags"] = draw(FLAGS) | draw(RESERVED)  # reserved bits are ignored
    if ndim == 0:
        fields["null_shape"] = draw(st.booleans())
    return name, buffer, expected, fields


def _broken_size(draw, shape, itemsize):
    """Sizes whose product (zeros aside) spans more than 2**62 bytes; none negative."""
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=3, unique=True))
    each = (LIMIT // itemsize) ** (1 / len(axes)) + 1
    shape = list(shape)
    for axis in axes:
        shape[axis] = draw(st.integers(int(each) + 1, max(int(each) + 1, 2**62)))
    extent = 1
    for n in shape:
        extent *= max(n, 1)
    assume(extent * itemsize > LIMIT)
    return tuple(shape)


int32 = st.integers(-2**31, 2**31 - 1)
BAD_MAJOR = st.one_of(st.sampled_from([0, 2, 3, 2**32 - 1]), st.integers(2, 2**32 - 1))
U32 = st.integers(0, 2**32 - 1)
BAD_NDIM = st.one_of(st.integers(-2**31, -1), st.integers(65, 2**31 - 1),
                     st.sampled_from([-1, 65, 128, 2**31 - 1]))
NEGATIVE = st.integers(-2**63, -1)
BYTE = st.integers(0, 255)
LANES = st.one_of(st.just(1), st.integers(0, 2**16 - 1))
BAD_LANES = st.sampled_from([0, 2, 4, 2**16 - 1])
BAD_DEVICE = st.one_of(
    st.tuples(st.just(1), int32.filter(bool)),
    st.tuples(st.just(kDLCUDA), st.one_of(st.integers(-2**31, -1), st.integers(64, 2**31 - 1))),
    st.tuples(st.sampled_from(HOST_READABLE), st.integers(-2**31, -1)),
    st.tuples(st.sampled_from([0, 4, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 99, -1, 2**31 - 1]),
              int32))
HIGH_DATA = st.integers(2**63, 2**64 - 1)
HIGH_OFFSET = st.integers(LIMIT + 1, 2**64 - 1)
SIGN = st.sampled_from([1, -1])

BREAKS = ["version", "ndim", "null_shape", "negative", "dtype", "device", "null_data",
          "data_high", "byte_offset", "below_zero", "size", "stride"]
BREAK_LISTS = st.lists(st.sampled_from(BREAKS), max_size=3, unique=True)


def break_fields(draw, fields, itemsize):
    """Break 0 to 3 fields of a valid layout; returns the fields to forge."""
    fields = dict(fields)
    for kind in draw(BREAK_LISTS):
        shape, strides = fields["shape"], fields["strides"]
        nonempty = 0 not in shape
        if kind == "version" and fields["versioned"]:
            fields["version"] = (draw(BAD_MAJOR), draw(U32))
        elif kind == "ndim":
            fields["ndim"] = draw(BAD_NDIM)
        elif kind == "null_shape" and shape:
            fields["null_shape"] = True
        elif kind == "negative" and shape:
            axis = draw(st.integers(0, len(shape) - 1))
            fields["shape"] = shape[:axis] + (draw(NEGATIVE),) + shape[axis + 1:]
        elif kind == "dtype":
            code, bits, lanes = draw(BYTE), draw(BYTE), draw(LANES)
            if lanes == 1 and (code, bits) in VALID_DTYPES:
                lanes = draw(BAD_LANES)
            fields.update(code=code, bits=bits, lanes=lanes)
        elif kind == "device":
            fields["device_type"], fields["device_id"] = draw(BAD_DEVICE)
        elif kind == "null_data" and nonempty:
            fields["data"], fields["byte_offset"] = 0, draw(st.integers(0, 64))
        elif kind == "data_high":
            fields["data"] = draw(HIGH_DATA)
        elif kind == "byte_offset":
            fields["byte_offset"] = draw(HIGH_OFFSET)
        elif kind == "below_zero" and nonempty:  # negative strides walk to address 0 or below
            reach = sum(min(0, s * (n - 1)) for n, s in zip(shape, strides) if n > 1)
            if reach < 0:
                fields["data"] = draw(st.integers(1, -reach * itemsize))
                fields["byte_offset"] = draw(st.integers(0, -reach * itemsize - fields["data"]))
        elif kind == "size" and shape:
            fields["shape"] = _broken_size(draw, shape, itemsize)
            fields["null_strides"], fields["strides"] = True, c_strides(fields["shape"])
        elif kind == "stride" and nonempty and any(n > 1 for n in shape):
            axis = draw(st.sampled_from([i for i, n in enumerate(shape) if n > 1]))
            smallest = LIMIT // itemsize // (shape[axis] - 1) + 1
            stride = draw(st.integers(smallest, INT64_MAX)) * draw(SIGN)
            fields["strides"] = strides[:axis] + (max(stride, -2**63),) + strides[axis + 1:]
            fields["null_strides"] = False
    return fields


def model_fields(fields, itemsize_bits):
    """The struct as verdict() reads it, from Forged arguments."""
    version = fields.get("version", (1, 3))
    shape = fields["shape"]
    return dict(versioned=fields["versioned"], major=version[0], minor=version[1],
                ndim=fields.get("ndim", len(shape)),
                shape=None if fields.get("null_shape") else shape,
                strides=None if fields.get("null_strides") else fields["strides"],
                code=fields["code"], bits=fields["bits"], lanes=fields.get("lanes", 1),
                device_type=fields.get("device_type", 1), device_id=fields.get("device_id", 0),
                data=fields["data"], byte_offset=fields["byte_offset"])


def read(x):
    """The values of a dlnumba array as NumPy storage (bfloat16 as its bits)."""
    a = np.array(x)
    return a.view(np.uint16) if x.dtype == xp.bfloat16 else a


def check_accepted(f, x, name, expected, fields, copy):
    """An accepted real-buffer import: dtype, shape, strides, values, flags, exports, copies."""
    shape = fields["shape"]
    itemsize = fields["bits"] // 8
    flags = fields.get("flags", 0)
    copied = copy and not flags & 2
    assert f.name == ("used_dltensor_versioned" if f.versioned else "used_dltensor")
    assert x.dtype == getattr(xp, name) and x.shape == shape
    if copied:
        assert f.calls == [f.managed_address]  # released as soon as copied
        assert not x._readonly
    else:
        assert f.calls == []
        assert data_address(x) == fields["data"] + fields["byte_offset"]
        strides = c_strides(shape) if fields["null_strides"] else fields["strides"]
        assert x._strides == effective_strides(shape, strides, itemsize)
        assert x._readonly == bool(f.versioned and flags & 1)
    np.testing.assert_array_equal(read(x), expected)
    repr(x)
    copy_of_x = xp.asarray(x, copy=True)
    np.testing.assert_array_equal(read(copy_of_x), expected)
    if x.ndim:
        reversed_view = x[..., ::-1]
        np.testing.assert_array_equal(read(reversed_view), expected[..., ::-1])
        if 0 in shape:
            assert data_address(reversed_view) == data_address(x)
            assert reversed_view._strides == x._strides == c_strides(shape)
    if name != "bfloat16":
        exported = np.from_dlpack(x)
        np.testing.assert_array_equal(exported, expected)
        assert not (x._readonly and exported.size and exported.flags.writeable)
        again = xp.from_dlpack(x.__dlpack__(max_version=(1, 3)))
        np.testing.assert_array_equal(read(again), expected)
        del exported, again
    if not copied:
        assert f.calls == []


@given(st.data())
def _fuzz_real_buffers(data):
    name, buffer, expected, fields = data.draw(layouts())
    itemsize = DLPACK_DTYPES[name][1] // 8
    fields = break_fields(data.draw, fields, itemsize)
    reasons = verdict(model_fields(fields, itemsize))
    kwargs = data.draw(OPTIONS)
    forged = dict(fields)
    forged.pop("versioned")
    if forged.get("null_strides"):
        forged["strides"] = None
    f = forge(buffer, versioned=fields["versioned"], **forged)
    if reasons:
        check_refused(f, f.capsule, reasons, kwargs)
        f.forget()
        return
    x = xp.from_dlpack(f.capsule, **kwargs)
    check_accepted(f, x, name, expected, fields, kwargs.get("copy"))
    del x
    assert f.calls == [f.managed_address]  # no cycle holds the import: refcounting frees it
    del f.capsule  # the consumed capsule runs nothing more
    assert f.calls == [f.managed_address]
    f.forget()


def test_fuzz_real_buffers(record_property):
    """Forged capsules over real buffers, valid or with 1 to 3 fields broken."""
    count_forged(examples(25)(_fuzz_real_buffers), record_property)


# ---- family 2: raw words, memory never read ----

def _no_real_cuda(device):
    return not (device[0] == kDLCUDA and 0 <= device[1] < 64)


RAW_MAJOR = st.one_of(st.just(1), st.just(1), st.just(1), U32)
RAW_NDIM = st.one_of(st.integers(0, 6), st.sampled_from([0, 63, 64, 65]), int32)
RAW_SIZE = st.one_of(st.integers(0, 5), words, st.sampled_from([-1, 2**31, 2**32 + 1, 2**62,
                                                                INT64_MAX]))
RAW_STRIDE = st.one_of(st.integers(-8, 8), words,
                       st.sampled_from([2**61, -2**61, 2**62, INT64_MAX, -2**63]))
VALID_CODE = st.sampled_from(sorted(VALID_DTYPES))
RAW_CODE = st.one_of(VALID_CODE, VALID_CODE, st.tuples(BYTE, BYTE))
RAW_LANES = st.one_of(st.just(1), st.just(1), st.integers(0, 2**16 - 1))
RAW_DEVICE = st.one_of(st.just((1, 0)), st.just((1, 0)),
                       st.tuples(int32, int32).filter(_no_real_cuda))
RAW_DATA = st.one_of(st.sampled_from([0, 8, 4096, 2**47, INT64_MAX - 7, 2**63, 2**64 - 8]), u64)
RAW_OFFSET = st.one_of(st.sampled_from([0, 0, 8, LIMIT, LIMIT + 1, 2**64 - 1]), u64)


@st.composite
def raw_fields(draw):
    versioned = draw(st.booleans())
    major, minor = draw(RAW_MAJOR), draw(U32)
    ndim = draw(RAW_NDIM)
    length = ndim if 0 <= ndim <= MAX_NDIM else draw(st.integers(0, 4))
    shape = tuple(draw(RAW_SIZE) for _ in range(length))
    strides = None if draw(st.booleans()) else tuple(draw(RAW_STRIDE) for _ in range(length))
    null_shape = draw(st.integers(0, 9)) == 0
    code, bits = draw(RAW_CODE)
    lanes = draw(RAW_LANES)
    device_type, device_id = draw(RAW_DEVICE)  # no real CUDA device
    data, byte_offset, flags = draw(RAW_DATA), draw(RAW_OFFSET), draw(u64)
    return dict(versioned=versioned, major=major, minor=minor, ndim=ndim, length=length,
                shape=None if null_shape else shape, strides=strides, code=code, bits=bits,
                lanes=lanes, device_type=device_type, device_id=device_id, data=data,
                byte_offset=byte_offset, flags=flags)


PLACEHOLDER = np.zeros(1)  # gives Forged a dtype; every field is overridden


@given(raw_fields())
# Two strides of 2**62 bytes each: the extent's sum passed 2**63 in int64 and wrapped around.
@example(dict(versioned=False, major=1, minor=0, ndim=2, length=2, shape=(2, 2),
              strides=(2**62, 2**62), code=0, bits=8, lanes=1, device_type=1, device_id=0,
              data=0, byte_offset=0, flags=0))
@example(dict(versioned=False, major=1, minor=0, ndim=2, length=2, shape=(2, 2),
              strides=(-2**62, -2**62), code=0, bits=8, lanes=1, device_type=1, device_id=0,
              data=4096, byte_offset=0, flags=0))
def _fuzz_raw_fields(r):
    shape = r["shape"] if r["shape"] is not None else (0,) * r["length"]
    kwargs = dict(shape=shape, strides=r["strides"], null_shape=r["shape"] is None,
                  null_strides=r["strides"] is None, ndim=r["ndim"], code=r["code"],
                  bits=r["bits"], lanes=r["lanes"], device_type=r["device_type"],
                  device_id=r["device_id"], data=r["data"], byte_offset=r["byte_offset"])
    if r["versioned"]:
        kwargs.update(version=(r["major"], r["minor"]), flags=r["flags"])
    f = forge(PLACEHOLDER, versioned=r["versioned"], **kwargs)
    reasons = verdict(r)
    if reasons:
        check_refused(f, f.capsule, reasons)
        f.forget()
        return
    x = xp.from_dlpack(f.capsule)  # never read: the memory may be anywhere
    itemsize = r["bits"] // 8
    strides = r["strides"] if r["strides"] is not None else c_strides(shape)
    assert x.shape == shape and x.dtype == getattr(xp, VALID_DTYPES[r["code"], r["bits"]])
    assert x._strides == effective_strides(shape, strides, itemsize)
    assert data_address(x) == r["data"] + r["byte_offset"]
    assert x._readonly == bool(r["versioned"] and r["flags"] & 1)
    assert all(abs(s) * itemsize <= LIMIT for s in x._strides)
    assert f.calls == []
    view = x[(slice(None, None, -1),) * x.ndim] if x.ndim else x  # address arithmetic only
    assert 0 <= data_address(view) <= INT64_MAX
    del x, view
    assert f.calls == [f.managed_address]
    f.forget()


def test_fuzz_raw_fields(record_property):
    """Forged capsules with every field an arbitrary word; judged by verdict()."""
    count_forged(examples(25)(_fuzz_raw_fields), record_property)


# ---- objects that are not DLPack capsules ----

NON_CAPSULES = st.one_of(st.integers(), st.floats(), st.text(max_size=5), st.binary(max_size=5),
                         st.none(), st.lists(st.integers(), max_size=3))


@examples(2)
@given(NON_CAPSULES)
def test_fuzz_non_capsules(obj):
    """An object without __dlpack__ that is no capsule: TypeError naming its type."""
    with pytest.raises(TypeError, match=rf"not {type(obj).__name__}\b"):
        xp.from_dlpack(obj)


@examples(2)
@given(st.binary(min_size=1, max_size=24).filter(lambda b: b"\0" not in b))
def test_fuzz_capsule_names(name):
    """A capsule of any other name: BufferError naming it, capsule untouched."""
    assume(name not in (b"dltensor", b"dltensor_versioned"))
    capsule = capsule_named(name)
    text = name.decode(errors="replace")
    expected = ("already consumed" if name in (b"used_dltensor", b"used_dltensor_versioned")
                else "is not a DLPack capsule")
    with pytest.raises(BufferError, match=re.escape(expected)) as info:
        xp.from_dlpack(capsule)
    assert repr(text) in str(info.value)
    assert PyCapsule_GetName(capsule) == name


# ---- regressions the fuzzer found ----

HUGE = [INT64_MAX, -2**63, 2**62, -2**61]


@pytest.mark.parametrize("stride", HUGE)
def test_size_one_axis_with_huge_stride(stride):
    """A stride that moves nothing (size-1 axis) beyond 2**62 bytes used to be kept: repr, the
    NumPy view and @njit calls then failed with OverflowError / struct.error. It is now
    replaced by the C-contiguous stride; the values and every path work."""
    numba = pytest.importorskip("numba")
    a = np.arange(6, dtype=np.int32)
    f = Forged(a, shape=(1, 6), strides=(stride, 1))
    x = xp.from_dlpack(f.capsule)
    assert x._strides == (6, 1)
    assert "ndarray([[0, 1, 2, 3, 4, 5]]" in repr(x)
    np.testing.assert_array_equal(np.from_dlpack(x), a[None])
    assert numba.njit(lambda v: v.sum())(x) == 15
    del x
    assert f.calls == [f.managed_address]


@pytest.mark.parametrize("versioned", [False, True])
def test_empty_tensor_with_huge_strides(versioned):
    """An empty tensor's strides move nothing: they become C-contiguous, on any axis (the order
    of the axes used to decide between refusing and keeping strides beyond 2**62 bytes)."""
    a = np.zeros(1)
    for shape, strides in [((0, 3), (INT64_MAX, INT64_MAX)), ((3, 0), (2**62, 1)),
                           ((0, 5), (1, -2**63))]:
        f = Forged(a, versioned=versioned, shape=shape, strides=strides)
        x = xp.from_dlpack(f.capsule)
        assert x.shape == shape
        assert x._strides == c_strides(shape)
        assert np.from_dlpack(x).shape == shape
        assert xp.from_dlpack(x.__dlpack__(max_version=(1, 3))).shape == shape


@pytest.mark.parametrize("versioned", [False, True])
def test_empty_tensor_keeps_no_strides_that_views_overflow(versioned):
    """Regression (thorough fuzzer, seed 777008): an empty uint32 tensor of shape (0, 4) with
    strides (0, -768622215807408451), within 2**62 bytes each, kept them; ``x[..., ::-1]`` then
    moved its address by 3 strides to -9223372036853124884 and np.asarray raised
    OverflowError. An empty tensor now takes C-contiguous strides, and its views its address."""
    data = 94_552_835_776_528
    f = Forged(np.zeros(1, np.uint32), versioned=versioned, shape=(0, 4),
               strides=(0, -768_622_215_807_408_451), data=data, byte_offset=0)
    x = xp.from_dlpack(f.capsule)
    assert x.shape == (0, 4) and x._strides == (4, 1) and data_address(x) == data
    view = x[..., ::-1]
    assert data_address(view) == data and view._strides == (4, 1)
    assert np.asarray(view).shape == (0, 4)
    assert np.from_dlpack(view).shape == (0, 4)
    assert data_address(xp.from_dlpack(view.__dlpack__(max_version=(1, 3)))) == data
    repr(view)
    del x, view
    assert f.calls == [f.managed_address]


def test_empty_tensor_with_huge_sizes_refused():
    """An empty tensor whose other sizes multiply beyond 2**62 bytes is refused, as NumPy
    refuses to make it: its C-contiguous strides would not fit in 64 bits."""
    f = Forged(np.zeros(1), shape=(0, 2**62), strides=(1, 1))
    with pytest.raises(BufferError, match=r"shape \(0, 4611686018427387904\) .* spans more"):
        xp.from_dlpack(f.capsule)
    assert f.calls == [] and f.name == "dltensor_versioned"


@pytest.mark.parametrize("data, byte_offset", [(2**64 - 8, 0), (8, 2**64 - 1), (2**63, 0)])
def test_empty_tensor_outside_address_space_refused(data, byte_offset):
    """An empty tensor at an address beyond 2**63 used to import with a negative address, and
    its export then failed with struct.error; it is refused like a non-empty one."""
    f = Forged(np.zeros(1), shape=(0,), strides=(1,), data=data, byte_offset=byte_offset)
    with pytest.raises(BufferError, match=rf"data {data:#x} with byte_offset {byte_offset}"):
        xp.from_dlpack(f.capsule)
    assert f.calls == []


@pytest.mark.parametrize("versioned", [False, True])
def test_null_deleter(versioned):
    """A NULL deleter (the producer needs no call back) is allowed; releasing calls nothing."""
    a = np.arange(4.0)
    f = Forged(a, versioned=versioned, null_deleter=True)
    x = xp.from_dlpack(f.capsule)
    np.testing.assert_array_equal(read(x), a)
    del x  # must not call through NULL


@pytest.mark.parametrize("flags", [1 << 2, 1 << 63, 2**64 - 1])
def test_reserved_flag_bits_ignored(flags):
    """Flag bits beyond READ_ONLY and IS_COPIED are reserved: ignored, not refused."""
    a = np.arange(3)
    x = xp.from_dlpack(Forged(a, flags=flags).capsule)
    assert x._readonly == bool(flags & 1)
    np.testing.assert_array_equal(read(x), a)
