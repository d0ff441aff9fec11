"""Creation kernels: evenly spaced values (``linspace``) and triangles zeroed (``tril``, ``triu``).

``linspace`` compiles for float64 and complex128 results (the computation dtypes; other dtypes
are cast from them by the copy engine). ``zero_triangle`` writes raw zero units, selected by a
unit tag as the copy engine's same-dtype copies are: one specialization per item size.
"""

from ..shared.scalar import linspace_value
from .transfer import _typed_pointer
from .walk import entry_point


@entry_point()
def linspace(out_address, num, start, stop, div, endpoint, tag):
    """Write the ``num`` values of :func:`.shared.scalar.linspace_value` to ``out_address``.

    ``start``, ``stop`` and ``tag`` have the result's dtype (float64 or complex128).
    """
    out = _typed_pointer(out_address, tag)
    for i in range(num):
        out[i] = linspace_value(i, num, start, stop, div, endpoint)


@entry_point()
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
