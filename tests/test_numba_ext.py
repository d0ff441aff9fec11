"""dlnumba arrays as arguments and results of user @numba.njit code (dlnumba.numba_ext)."""

import gc
import json
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap
import weakref

import numba
import numpy as np
import pytest
from numba import prange
from numba.core.errors import TypingError
from numba.core.types.abstract import _type_reconstructor

import dlnumba as xp
from dlnumba import numba_ext

from helpers import data_address

torch = pytest.importorskip("torch")


@numba.njit
def _identity(a):
    return a


@numba.njit
def _every_other(a):
    return a[::2]


@numba.njit
def _sum2d(a):
    total = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            total += a[i, j]
    return total


@numba.njit
def _fill(a, value):
    a[...] = value


@numba.njit
def _arange(n):
    return np.arange(n)


# ---- typing: one place decides ----

@pytest.mark.parametrize("make, layout", [
    (lambda a: a, "C"), (lambda a: a.T, "F"), (lambda a: a[:, ::2], "A"), (lambda a: a[::-1], "A"),
])
def test_type_has_dtype_ndim_layout(make, layout):
    x = xp.asarray(make(np.zeros((4, 6), np.int32)))
    numba_type = numba.typeof(x)
    assert numba_type is x._numba_type_ is numba_ext.numba_type_of(x)
    assert (numba_type.dtype, numba_type.ndim, numba_type.layout) == (numba.int32, 2, layout)
    assert numba_type.mutable and isinstance(numba_type, numba.types.Array)
    assert f"v{numba_ext.ABI_VERSION}" in numba_type.name


def test_a_type_cached_by_an_older_version_is_not_todays():
    """Numba's cache index pickles argument types: one without today's descriptor version
    must not match, or machine code for another descriptor would be loaded."""
    numba_type = numba.typeof(xp.zeros(3))
    assert pickle.loads(pickle.dumps(numba_type)) == numba_type
    _, (reconstructor, arguments, state) = numba_type.__reduce__()
    older = _type_reconstructor(reconstructor, arguments,
                                {k: v for k, v in state.items() if k != "abi"})
    assert older != numba_type


def test_read_only_array_is_typed_read_only_and_writes_fail_to_compile():
    a = np.arange(6.0)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    assert not numba.typeof(x).mutable
    assert _sum2d(xp.reshape(x, (2, 3))) == 15.0
    with pytest.raises(TypingError):
        _fill(x, 1.0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_arrays_are_refused_with_a_clear_error(dtype):
    x = xp.zeros(3, dtype=getattr(xp, dtype))
    with pytest.raises(TypeError, match=f"{dtype} arrays cannot be arguments of @njit"):
        _identity(x)


# ---- zero-copy and writes ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16, torch.int64,
                                   torch.uint8, torch.complex64, torch.bool])
def test_writes_reach_torch(dtype):
    tensor = torch.zeros(3, 4, dtype=dtype)
    value = True if dtype is torch.bool else 3
    _fill(xp.from_dlpack(tensor), value)
    assert torch.equal(tensor, torch.full((3, 4), value, dtype=dtype))


def test_strided_torch_view_indexing_and_slices():
    tensor = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    x = xp.from_dlpack(tensor[:, 1::2].t())
    assert numba.typeof(x).layout == "A"
    assert _sum2d(x) == float(tensor[:, 1::2].sum())
    _fill(x, -1.0)
    assert (tensor[:, 1::2] == -1).all() and (tensor[:, ::2] >= 0).all()


def test_prange_parallel_writes_every_element():
    @numba.njit(parallel=True)
    def squares(a):
        for i in prange(a.shape[0]):
            a[i] = i * i

    tensor = torch.empty(10_000, dtype=torch.int64)
    squares(xp.from_dlpack(tensor))
    assert torch.equal(tensor, torch.arange(10_000) ** 2)


def test_vectorize_and_numpy_ufuncs_return_dlnumba_arrays():
    @numba.vectorize(["float64(float64)"])
    def double(v):
        return 2 * v

    x = xp.asarray([1.0, 2.0, 3.0])
    for result in (double(x), np.add(x, x)):
        assert isinstance(result, xp.ndarray)
        assert np.from_dlpack(result).tolist() == [2.0, 4.0, 6.0]


def test_guvectorize_writes_into_an_imported_output():
    @numba.guvectorize(["void(int64[:], int64[:])"], "(n)->(n)")
    def cumsum(row, out):
        acc = 0
        for i in range(row.shape[0]):
            acc += row[i]
            out[i] = acc

    data = torch.arange(12).reshape(3, 4)
    result = torch.zeros_like(data)
    out = xp.from_dlpack(result)
    assert cumsum(xp.from_dlpack(data), out) is out
    assert torch.equal(result, data.cumsum(dim=1))


def test_ufunc_refuses_read_only_output_and_bfloat16():
    a = np.zeros(3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        np.add(xp.asarray([1.0, 2.0, 3.0]), 1.0, out=xp.from_dlpack(a))
    with pytest.raises(TypeError, match="bfloat16"):
        np.negative(xp.zeros(2, dtype=xp.bfloat16))


# ---- returns and lifetime ----

def test_returning_an_argument_gives_back_the_same_object():
    x = xp.asarray(np.arange(5.0))
    assert _identity(x) is x


def test_returned_view_shares_memory_and_keeps_the_source_alive():
    tensor = torch.arange(10, dtype=torch.float32)
    source = weakref.ref(tensor)
    view = _every_other(xp.from_dlpack(tensor))
    assert isinstance(view, xp.ndarray) and view.shape == (5,)
    assert data_address(view) == tensor.data_ptr()
    del tensor
    gc.collect()
    assert source() is not None
    junk = [torch.full((1000,), 7.0) for _ in range(20)]
    assert np.from_dlpack(view).tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    del view, junk
    gc.collect()
    assert source() is None


def test_returned_view_of_read_only_array_stays_read_only():
    a = np.arange(6.0)
    a.flags.writeable = False
    view = _every_other(xp.from_dlpack(a))
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0


def test_arrays_created_inside_njit_come_back_as_numpy():
    assert isinstance(_arange(4), np.ndarray)


# ---- caching in the user's own module ----

def test_user_function_cached_on_dlnumba_arguments_loads_in_a_second_process(tmp_path):
    (tmp_path / "user_kernels.py").write_text(textwrap.dedent("""
        import numba

        @numba.njit(cache=True)
        def total(a):
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i]
            return s
    """))
    script = textwrap.dedent("""
        import json, numpy as np, dlnumba as xp, user_kernels
        value = user_kernels.total(xp.asarray(np.arange(5.0)))
        stats = user_kernels.total.stats
        print(json.dumps([value, sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
    """)
    root = str(pathlib.Path(__file__).parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), root]))
    runs = []
    for _ in range(2):
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                timeout=300, env=env)
        assert result.returncode == 0, result.stderr
        runs.append(json.loads(result.stdout.splitlines()[-1]))
    assert runs[0] == [10.0, 0, 1]
    assert runs[1] == [10.0, 1, 0]
