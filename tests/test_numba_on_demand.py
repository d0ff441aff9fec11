"""Numba on first need (dlnumba._numba): ``import dlnumba`` does not import Numba, nor do the
calls whose kernels are shipped; the first kernel that must be compiled loads it, makes every
deferred definition, and puts Numba's own objects where the modules held placeholders. The C
signatures made before Numba is loaded read as Numba's own, since the shipped kernels' keys hash
that text."""

import sys
from types import SimpleNamespace

import numba
import pytest

import dlnumba as xp
from dlnumba import _numba
from dlnumba.kernels import elementwise, sorting, walk
from helpers import built_level, run_python


def _run(code, **env):
    return run_python(code, **env).split()


def test_import_does_not_import_numba():
    assert _run("import sys, dlnumba; print('numba' in sys.modules)") == ["False"]


_DEVICES = """
import sys
import dlnumba as xp
print(*xp.__array_namespace_info__().devices(), 'numba' in sys.modules)
"""


def test_listing_the_devices_of_a_machine_without_cuda_does_not_import_numba():
    """Without a CUDA driver library (and outside the simulator) there is no CUDA device to
    find; the simulator's device is listed."""
    import importlib.util

    from dlnumba._backend import cuda_driver_loads

    if cuda_driver_loads() or importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("a CUDA driver library loads here, or numba-cuda is not installed")
    assert _run(_DEVICES, NUMBA_ENABLE_CUDASIM="0") == ["cpu", "False"]
    assert _run(_DEVICES, NUMBA_ENABLE_CUDASIM="1") == ["cpu", "cuda:0", "True"]


_SHIPPED_CALLS = """
import sys
import numpy as np
import dlnumba as xp
from dlnumba import _shipped
assert _shipped.shipped().level, _shipped.shipped().reasons
for dtype in (xp.float32, xp.float64, xp.int64):
    x = xp.reshape(xp.astype(xp.arange(12), dtype), (3, 4))
    x + 1, x * x, xp.exp(x), xp.sum(x), xp.sum(x, axis=0), xp.max(x, axis=1)
    xp.mean(xp.astype(x, xp.float64))
    xp.astype(x, xp.float32), xp.asarray(x.mT, copy=True), xp.sqrt(xp.abs(x)), x > 3
    np.from_dlpack(x), xp.from_dlpack(np.ones(3, dtype)), xp.to_dlpack(x)
    xp.sort(x), xp.argsort(x, descending=True), xp.unique_values(x), xp.argmax(x), x[x > 3]
    xp.where(x > 3, x, x), xp.nonzero(x), xp.cumulative_sum(x, axis=1), x @ x.mT, xp.tril(x)
    xp.take(x, xp.asarray([0, 2]), axis=1), xp.searchsorted(x[0], x)
    if dtype != xp.int64:
        xp.linalg.inv(xp.eye(3, dtype=dtype) * 4 + 1)
small = xp.reshape(xp.astype(xp.arange(12), xp.int8), (3, 4))
x + small, x * small[0], x >= small, xp.cumulative_sum(small, axis=1, dtype=xp.int16)
xp.sum(x, axis=1, dtype=xp.int16), xp.prod(small, dtype=xp.uint8)
y = xp.astype(small, xp.int16)
y **= small[:, ::-1]
print('numba' in sys.modules)
"""


def test_shipped_calls_do_not_import_numba(tmp_path):
    """Shipped C kernels come from the object with Numba's C helpers loaded on their own, and
    shipped njit functions run for the argument types they were shipped for."""
    built_level()
    assert _run(_SHIPPED_CALLS, NUMBA_CACHE_DIR=str(tmp_path)) == ["False"]


_NAN_REMAINDER = """
import sys
import numpy as np
import dlnumba as xp
x, y = (xp.asarray(np.array([value], np.float32)) for value in (-np.nan, np.nan))
print(np.asarray(xp.remainder(x, y)).view(np.uint32)[0], 'numba' in sys.modules)
"""


def test_shipped_code_calls_the_c_math_functions_that_the_jit_calls(tmp_path):
    """fmod of two NaNs keeps the sign the JIT's kernel gives: the loader binds the C math
    functions to Numba's, as Numba does before it compiles, though Numba is not loaded."""
    built_level()
    shipped = _run(_NAN_REMAINDER, NUMBA_CACHE_DIR=str(tmp_path / "shipped"))
    jit = _run(_NAN_REMAINDER, NUMBA_CACHE_DIR=str(tmp_path / "jit"), DLNUMBA_JIT_ONLY="1")
    assert shipped == [jit[0], "False"]


def test_a_kernel_that_is_not_shipped_loads_numba_and_gives_the_same_results(tmp_path):
    out = _run("import sys, numpy as np, dlnumba as xp\n"
               "print('numba' in sys.modules)\n"
               "x = xp.asarray(np.arange(6.0).reshape(2, 3))\n"
               "print(float(xp.sum(xp.sin(x) * 2)), 'numba' in sys.modules)",
               DLNUMBA_JIT_ONLY="1", NUMBA_CACHE_DIR=str(tmp_path))
    import numpy as np
    assert out == ["False", repr(float(np.sum(np.sin(np.arange(6.0)) * 2))), "True"]


def test_loaded_modules_hold_numbas_own_objects():
    """After loading (this process compiled kernels already), the modules' placeholders are
    gone: Numba resolves their globals to its own objects."""
    _numba.load()
    assert _numba.loaded()
    assert walk.carray is numba.carray
    assert str(walk.RUN) == str(walk.RUN.return_type(*walk.RUN.args))
    assert isinstance(walk.odometer, numba.core.extending._Intrinsic)
    assert isinstance(elementwise.unary, numba.core.registry.CPUDispatcher)
    assert isinstance(sorting.sort_rows, numba.core.registry.CPUDispatcher)
    assert all(entry.real is getattr(sys.modules[entry.__module__], entry.__name__)
               for entry in walk.ENTRY_POINTS)
    assert float(xp.sum(xp.ones(3))) == 3.0


@pytest.mark.parametrize("make", [
    lambda t: t.void(*[t.intp] * 7), lambda t: t.intp(t.intp, t.int64),
    lambda t: t.int32(t.voidptr), lambda t: t.void(),
    lambda t: t.voidptr(t.voidptr, t.voidptr, t.intp),
    lambda t: t.void(t.CPointer(t.float32), t.boolean, t.uint8, t.float64, t.uint64, t.uint32),
])
def test_a_signature_made_before_loading_reads_as_numbas(make):
    text = make(SimpleNamespace(**_numba.TEXT_TYPES))
    assert str(text) == str(make(numba.types)) == str(text.numba())


def _typed_values():
    import numpy as np
    grid = np.arange(24.0).reshape(4, 6)
    readonly = np.ones(3)
    readonly.flags.writeable = False
    values = [grid, grid.T, grid[:, ::2], grid[0], np.asarray(2.0), grid.astype(np.float32),
              grid.astype(np.int64), np.zeros(0, np.uint32), np.ones(2, bool), readonly,
              np.zeros((1, 1)), np.empty(0, [("sum", "u1")]), np.empty(0, [("max", "u1")]),
              0, -5, 2**62, 2**63 - 1, 2**63, 2**64 - 1, True, False, 1.5, None,
              np.dtype("float32"), np.dtype("int64"), np.dtype([("sum", "u1")]),
              np.uint64(3), np.float32(1), np.bool_(True), np.int8(1), np.float64(2), 1.5j,
              np.complex64(1), (1, 2), (1, 2.0), (np.uint64(1),) * 3,
              (), (grid, 1)]
    return values


def test_describe_tells_apart_exactly_the_values_numba_types_apart():
    """Two values have the same description exactly when ``numba.typeof`` gives them the same
    type, so a shipped function is never run on arguments it was not compiled for."""
    from dlnumba._shipped import describe
    described = [(value, describe(value), numba.typeof(value)) for value in _typed_values()]
    assert all(text is not None for _, text, _ in described)
    for a, text_a, type_a in described:
        for b, text_b, type_b in described:
            assert (text_a == text_b) == (type_a == type_b), (a, b, text_a, text_b)


def test_describe_refuses_values_it_cannot_type():
    import numpy as np
    from dlnumba._shipped import describe
    for value in (2**64, -2**63 - 1, "text", [1], np.ma.masked_array([1.0]), object(),
                  (1, "text")):
        assert describe(value) is None


def test_the_build_refuses_one_description_of_two_compiled_functions(tmp_path):
    from dlnumba._build import _described_calls
    (tmp_path / "dlnumba_a.calls0").write_text('["f|int64"]')
    (tmp_path / "dlnumba_a.calls1").write_text('["f|int64"]')
    assert _described_calls(tmp_path) == {"f|int64": "dlnumba_a"}
    (tmp_path / "dlnumba_b.calls0").write_text('["f|int64"]')
    with pytest.raises(RuntimeError, match="f.int64 describes two"):
        _described_calls(tmp_path)


def test_the_thread_count_is_numbas():
    """Read without Numba, the engine's thread count is the one Numba's config gives."""
    from dlnumba.kernels import threads
    assert threads.THREADS == numba.config.NUMBA_NUM_THREADS
