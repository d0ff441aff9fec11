"""What the test modules share: the dtype lists, reading a dlnumba array back as NumPy, the
address of its memory, comparing dlnumba's results with NumPy's on any device, C's conversion of
floats to integers, running code in a new Python process, and the shipped kernels' level.

``from helpers import ...`` works in every test module: pytest puts ``tests/`` (which has no
``__init__.py``) on ``sys.path``, as it does for ``dlpack_forge`` and ``standard_reference``.
The dtype lists are names, in one order (bool, signed and unsigned integers by width, real
floating, complex); ``DTYPES`` maps each name to its dlnumba dtype object. Copy a list before
changing it.
"""

import os
import subprocess
import sys

import numpy as np
from hypothesis import strategies as st

import dlnumba as xp
from dlnumba import _shipped

SIGNED_INTS = ["int8", "int16", "int32", "int64"]
UNSIGNED_INTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED_INTS + UNSIGNED_INTS
HALF = ["float16", "bfloat16"]  # storage dtypes beyond the standard, computed in float32
REAL_FLOATS = HALF + ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
NUMERIC = INTS + REAL_FLOATS + COMPLEX
ALL = ["bool"] + NUMERIC
STANDARD = [d for d in ALL if d not in HALF]  # the standard's dtypes
NUMPY_NAMES = [d for d in ALL if d != "bfloat16"]  # the dtypes NumPy has
DTYPES = {name: getattr(xp, name) for name in ALL}  # name: dlnumba dtype object

CPU = xp.Device("cpu")


def to_numpy(x):
    """Read a dlnumba array back as a NumPy array, whatever its device.

    Parameters
    ----------
    x : dlnumba.ndarray
        An array on any device.

    Returns
    -------
    numpy.ndarray
        ``x``'s values: a view of a CPU array's memory (through DLPack), a host copy of an array
        on another device. bfloat16, which NumPy's DLPack import lacks, comes back as float32
        (the same values, exactly).
    """
    if x.device != CPU:
        x = x.to_device(CPU)
    if x.dtype == xp.bfloat16:
        x = xp.astype(x, xp.float32)
    return np.from_dlpack(x)


def data_address(x):
    """The address of a dlnumba array's first element, as its (CUDA) array interface gives it;
    bfloat16, which has neither interface, reads it from the array's private field."""
    if x.dtype == xp.bfloat16:
        return x._address
    if x.device.type == "cuda":
        return x.__cuda_array_interface__["data"][0]
    return x.__array_interface__["data"][0]


def assert_matches_numpy(result, expected, *, rtol=0.0, atol=0.0, check_dtype=True, device=None,
                         err_msg=""):
    """Assert that a dlnumba array holds NumPy's result.

    Parameters
    ----------
    result : dlnumba.ndarray
        dlnumba's result, on any device.
    expected : array_like
        NumPy's result.
    rtol, atol : float, optional
        Both 0 (the default): equal values. Else within ``atol + rtol * abs(expected)``
        (``numpy.testing.assert_allclose``). NaNs compare equal either way.
    check_dtype : bool, optional
        Whether ``result.dtype`` must be ``expected``'s dtype (the shapes must always agree).
    device : dlnumba.Device, optional
        The device ``result`` must be on.
    err_msg : str, optional
        Printed with a failure.
    """
    expected = np.asarray(expected)
    if device is not None:
        assert result.device == device, (err_msg, result.device, device)
    assert result.shape == expected.shape, (err_msg, result.shape, expected.shape)
    if check_dtype:
        assert result.dtype == expected.dtype, (err_msg, result.dtype, expected.dtype)
    actual = to_numpy(result)
    if expected.dtype == xp.bfloat16:
        expected = expected.astype(np.float32)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(actual, expected, err_msg=err_msg)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=err_msg)


def compare_with_numpy(body, *arrays, device=CPU, **tolerances):
    """Run ``body`` with NumPy and with dlnumba and assert that they agree: CuPy's
    ``numpy_cupy_allclose``, as a call.

    Parameters
    ----------
    body : callable
        ``body(namespace, *arrays)``, written against the standard's names (NumPy 2 has them).
        Arrays it makes itself belong on ``arrays``' device: ``device=a.device`` works in both
        namespaces.
    *arrays : numpy.ndarray
        The inputs. NumPy gets them as they are; dlnumba gets copies on ``device``.
    device : dlnumba.Device, optional
        Where dlnumba's inputs and results are (the CPU by default).
    **tolerances
        ``rtol``, ``atol``, ``check_dtype``: as for :func:`assert_matches_numpy`.

    Returns
    -------
    dlnumba.ndarray or tuple
        dlnumba's result. A tuple or list of arrays is compared item by item.
    """
    expected = body(np, *arrays)
    result = body(xp, *(xp.asarray(a, device=device) for a in arrays))
    pairs = (zip(result, expected, strict=True) if isinstance(expected, (tuple, list))
             else [(result, expected)])
    for i, (ours, theirs) in enumerate(pairs):
        assert_matches_numpy(ours, theirs, device=device, err_msg=f"result {i}", **tolerances)
    return result


def integers_from_floats(values, dtype):
    """``values`` (real or complex floats; the real part) converted to the integer ``dtype`` as
    dlnumba defines it everywhere: as NumPy's ``astype`` of a contiguous float32 or float64
    array on x86-64 (its strided and float16 loops differ for uint32 out of range).

    Truncation by ``cvttsd2si`` gives the least integer of its width for NaN and out-of-range
    values; it converts through int32 up to 32 bits and through int64 beyond, the upper half of
    uint32 and uint64 shifted down first; the result wraps to the type's width.
    """
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        v = np.trunc(np.asarray(values).real.astype(np.float64))
    half = 2.0**31 if dtype.itemsize <= 4 else 2.0**63

    def truncated(w):
        inside = np.abs(w) < half
        return np.where(inside, np.where(inside, w, 0.0).astype(np.int64), -int(half))

    if dtype.kind == "i" or dtype.itemsize < 4:
        return truncated(v).astype(dtype)
    upper = v >= half
    shifted = truncated(np.where(upper, v - half, 0.0)) ^ -int(half)
    return np.where(upper, shifted, truncated(v)).astype(dtype)


def run_python(code, **env):
    """What ``code`` prints when a new Python process runs it with ``env`` added to the
    environment; the test fails, with its stderr, if the process does."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=900, env={**os.environ, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout


def built_level():
    """The CPU level whose shipped kernels this host loads, which ``make test`` has built; the
    test fails, saying why none is loaded, if there is none."""
    loaded = _shipped.shipped()
    assert loaded.level, "no shipped kernels loaded: " + "; ".join(loaded.reasons)
    return loaded.level


@st.composite
def axes(draw, ndim):
    """``axis`` for a reduction: None, an int (maybe negative) or a tuple of them."""
    choice = draw(st.sampled_from(["none", "int", "tuple"] if ndim else ["none", "tuple"]))
    if choice == "none":
        return None
    if choice == "int":
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.permutations(range(ndim)).map(lambda p: p[:draw(st.integers(0, ndim))]))
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen)
