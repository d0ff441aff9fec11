"""Creation kernels: evenly spaced values (``linspace``) and triangles zeroed (``tril``, ``triu``).

``linspace`` compiles for float64 and complex128 results (the computation dtypes; other dtypes
are cast from them by the copy engine). ``zero_triangle`` writes raw zero units, selected by a
unit tag as the copy engine's same-dtype copies are: one specialization per item size.
"""

from numba import njit, types
from numba.extending import overload

from .transfer import _typed_pointer


def _divide(value, count):
    """``value / count`` as NumPy divides (compiled only)."""


@overload(_divide, jit_options={"nogil": True})
def _divide_overload(value, count):
    if isinstance(value, types.Complex):
        def divide(value, count):  # NumPy's (Smith's) complex division by count + 0j
            scale = 1.0 / count
            return complex((value.real + value.imag * 0.0) * scale,
                           (value.imag - value.real * 0.0) * scale)
        return divide
    return lambda value, count: value / count


def _as_type_of(i, like):
    """The integer ``i`` as a value of ``like``'s type: float or complex (compiled only)."""


@overload(_as_type_of, jit_options={"nogil": True})
def _as_type_of_overload(i, like):
    if isinstance(like, types.Complex):
        return lambda i, like: complex(float(i), 0.0)
    return lambda i, like: float(i)


@njit(nogil=True)
def linspace_value(i, num, start, stop, div, endpoint):
    """The ``i``-th of ``num`` values from ``start`` in steps of ``(stop - start) / div``, with
    NumPy's arithmetic; the last is ``stop`` exactly when ``endpoint`` (the scalar code of
    both backends' kernels)."""
    if endpoint and num > 1 and i == num - 1:
        return stop
    delta = stop - start
    step = _divide(delta, div) if div > 0 else delta
    value = _as_type_of(i, start)
    # NumPy multiplies by the step, or (no step, or one that underflows to 0) divides by div
    # and multiplies by delta.
    if div <= 0 or step == 0:
        value = (_divide(value, div) if div > 0 else value) * delta
    else:
        value = value * step
    return value + start


@njit(cache=True, nogil=True)
def linspace(out_address, num, start, stop, div, endpoint, tag):
    """Write the ``num`` values of :func:`linspace_value` to ``out_address``.

    ``start``, ``stop`` and ``tag`` have the result's dtype (float64 or complex128).
    """
    out = _typed_pointer(out_address, tag)
    for i in range(num):
        out[i] = linspace_value(i, num, start, stop, div, endpoint)


@njit(cache=True, nogil=True)
def zero_triangle(address, batch, rows, cols, k, lower, unit):
    """Zero, in each of ``batch`` C-contiguous ``rows`` x ``cols`` matrices at ``address``, the
    elements above diagonal ``k`` (``lower``: what ``tril`` drops) or below it (``triu``)."""
    out = _typed_pointer(address, unit)
    for b in range(batch):
        base = b * rows * cols
        for i in range(rows):
            if lower:
                first, last = min(max(i + k + 1, 0), cols), cols
            else:
                first, last = 0, min(max(i + k, 0), cols)
            row = base + i * cols
            for j in range(first, last):
                out[row + j] = 0
