"""The buffer protocol of host arrays (dlnumba._buffer), read by CPython, NumPy and Numba."""

import ctypes
import gc
import hashlib
import sys

import numba
import numpy as np
import pytest
from helpers import DTYPES, NUMPY_NAMES, to_numpy
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._layout import c_strides


PyBUF_WRITABLE, PyBUF_FULL_RO = 0x1, 0x11C


def _request(x, flags):
    """Ask ``x`` for a buffer with ``flags`` (as Numba's dispatcher does), then release it."""
    view = ctypes.create_string_buffer(128)  # a Py_buffer
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    get(x, view, flags)
    ctypes.pythonapi.PyBuffer_Release(view)


def _views(data, dtype):
    """A NumPy array and a strided view of it (negative, zero-size, 0-d, broadcast strides)."""
    base = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                        max_side=5)))
    key = tuple(data.draw(st.sampled_from([slice(None), slice(None, None, -1),
                                           slice(None, None, 2), slice(1, None)]))
                for _ in range(base.ndim))
    return base[key]


@pytest.mark.parametrize("name", NUMPY_NAMES)
@given(data=st.data())
def test_numpy_and_memoryview_read_every_dtype_and_layout_through_the_buffer(name, data):
    expected = _views(data, np.dtype(name))
    x = xp.asarray(expected)
    view = memoryview(x)
    assert (view.format, view.shape, view.itemsize) == (memoryview(expected).format,
                                                         expected.shape, expected.itemsize)
    if expected.size:
        assert view.strides == expected.strides
    else:  # C-contiguous, as PyTorch's (NumPy's are zeros for a new array, kept by a view)
        assert view.strides == tuple(s * expected.itemsize for s in c_strides(expected.shape))
    through_buffer = np.asarray(x)
    assert through_buffer.dtype == expected.dtype
    np.testing.assert_array_equal(through_buffer, expected)
    if expected.flags.c_contiguous:
        assert hashlib.sha256(x).digest() == hashlib.sha256(expected).digest()
    assert view.tobytes() == expected.tobytes()


def test_a_request_without_strides_needs_a_contiguous_array():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    hashlib.sha256(x)  # a simple (contiguous, no strides) request
    with pytest.raises(BufferError, match="not contiguous"):
        hashlib.sha256(x.T)
    with pytest.raises(BufferError, match="not contiguous"):
        hashlib.sha256(x[:, ::2])


def test_read_only_arrays_refuse_a_writable_buffer():
    source = np.arange(4.0)
    source.flags.writeable = False
    x = xp.from_dlpack(source)
    assert memoryview(x).readonly and not np.asarray(x).flags.writeable
    with pytest.raises(BufferError, match="read-only"):
        _request(x, PyBUF_WRITABLE | PyBUF_FULL_RO)
    writable = xp.zeros(4)
    (ctypes.c_double * 4).from_buffer(writable)[1] = 7.0
    assert float(writable[1]) == 7.0


def test_bfloat16_and_device_arrays_have_no_buffer(device):
    x = xp.ones(4, dtype=xp.bfloat16, device=device)
    with pytest.raises(BufferError, match="no buffer"):
        memoryview(x)
    np.testing.assert_array_equal(to_numpy(x), np.ones(4, np.float32))
    if device.type == "cuda":
        with pytest.raises(BufferError, match="no buffer"):
            memoryview(xp.ones(4, device=device))


def test_the_buffer_keeps_the_memory_alive_and_releases_it():
    owner = np.arange(8.0)
    x = xp.from_dlpack(owner)[::2]
    references = sys.getrefcount(x)
    view = memoryview(x)
    assert sys.getrefcount(x) == references + 1
    del x, owner
    gc.collect()
    assert view.tolist() == [0.0, 2.0, 4.0, 6.0]
    view.release()


def test_the_descriptor_is_freed_with_the_array():
    x = xp.arange(5)
    descriptor = x._descriptor
    references = sys.getrefcount(descriptor)
    del x
    gc.collect()
    assert sys.getrefcount(descriptor) == references - 1


@numba.njit
def _first(a):  # of a 2-D array
    return a[0, 0]


@pytest.mark.parametrize("name", [n for n in NUMPY_NAMES if n != "float16"])
def test_njit_dispatch_keeps_dtypes_and_layouts_apart(name):
    """Numba caches a type per buffer fingerprint: uint16 and int16, C and strided, read-only
    and writable arrays each get their own."""
    values = np.arange(1, 13).astype(name).reshape(3, 4)
    for x in (xp.asarray(values), xp.asarray(values).T, xp.asarray(values)[:, ::-2],
              xp.broadcast_to(xp.asarray(values[0]), (3, 4))):
        assert _first(x) == to_numpy(x)[0, 0]
        assert numba.typeof(x).dtype == numba.from_dtype(np.dtype(name))


def test_njit_refuses_bfloat16_after_a_uint16_array_of_the_same_shape():
    _first(xp.zeros((2, 3), dtype=xp.uint16))
    with pytest.raises(TypeError, match="bfloat16"):
        _first(xp.zeros((2, 3), dtype=DTYPES["bfloat16"]))
