"""Searching kernels: ``where`` (a ternary elementwise kernel) and ``nonzero``.

``where`` walks a planned layout of four operands (condition, x1, x2, out) as the elementwise
kernels do; x1, x2 and out share one dtype and move as raw units, so five compilations cover
every dtype. ``nonzero`` walks an array in C order and tests the stored bits (a float is zero
when all but its sign bit are), so one compilation per storage unit covers every dtype.
"""

import numpy as np

from .transfer import _typed_pointer
from .walk import advance, entry_point, odometer

_FLAGS = np.empty(0, np.uint8)  # bool storage


@entry_point()
def where(shape, c_address, c_strides, x_address, x_strides, y_address, y_strides, out_address,
          out_strides, unit):
    """``out = x if c else y`` over a planned layout (strides in elements, at least 2-D)."""
    c = _typed_pointer(c_address, _FLAGS)
    x = _typed_pointer(x_address, unit)
    y = _typed_pointer(y_address, unit)
    out = _typed_pointer(out_address, unit)
    last = shape.size - 1
    inner = shape[last]
    sc, sx, sy, so = c_strides[last], x_strides[last], y_strides[last], out_strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    bc = bx = by = bo = 0
    for _ in range(outer):
        if sc == 1 and sx == 1 and sy == 1 and so == 1:
            for i in range(inner):
                out[bo + i] = x[bx + i] if c[bc + i] else y[by + i]
        else:
            for i in range(inner):
                out[bo + i * so] = x[bx + i * sx] if c[bc + i * sc] else y[by + i * sy]
        # Written out: the shared walk (.walk.advance) measured slower here.
        d = last - 1
        while d >= 0:
            index[d] += 1
            bc += c_strides[d]
            bx += x_strides[d]
            by += y_strides[d]
            bo += out_strides[d]
            if index[d] < shape[d]:
                break
            bc -= c_strides[d] * shape[d]
            bx -= x_strides[d] * shape[d]
            by -= y_strides[d] * shape[d]
            bo -= out_strides[d] * shape[d]
            index[d] = 0
            d -= 1


@entry_point()
def nonzero(shape, strides, address, unit, magnitude, components, out):
    """Count the non-zero elements of a layout (an element is zero when its components have
    no bit of ``magnitude`` set); when ``out`` (int64, ``(ndim, count)``) has elements, also
    write their indices there, in C order."""
    src = _typed_pointer(address, unit)
    last = shape.size - 1
    inner, step = shape[last], strides[last]
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    base = count = 0
    for _ in range(outer):
        for i in range(inner):
            found = False
            for c in range(components):
                found |= np.uint64(src[(base + i * step) * components + c]) & magnitude != 0
            if found and out.size:
                for d in range(last):
                    out[d, count] = index[d]
                out[last, count] = i
            count += found
        base, = advance(index, shape, last - 1, (base,), strides)
    return count
