"""Scans (cumulative sums and products) along one axis, or none.

:func:`scan` walks a planned layout in memory order and computes in the computation dtype,
rounding to the output's at each step as NumPy does.
"""

import numpy as np

from .. import _dtypes
from .._layout import c_strides
from .._shipped import ships_call
from ..shared.conversions import convert, store
from ..shared.plan import make_plan
from ..shared.reductions import OP_TAGS, combine
from ..shared.tags import TAGS
from .copy import dense_copy
from .transfer import _typed_pointer
from .walk import Direct, advance, entry_point, odometer


@entry_point(error_model="numpy")
def scan(op, shape, x_address, x_strides, x_tag, out_address, out_strides, out_tag, axis,
         compute_tag):
    """``out`` = the running ``op`` of ``x`` along the planned dimension ``axis`` (-1: none, every
    element is the first of its run) over a planned layout (at least 2-D)."""
    x = _typed_pointer(x_address, x_tag)
    out = _typed_pointer(out_address, out_tag)
    last = shape.size - 1
    inner, sx, so = shape[last], x_strides[last], out_strides[last]
    back = out_strides[axis] if axis >= 0 else 0
    outer = 1
    for d in range(last):
        outer *= shape[d]
    index = odometer(last + 1)
    bx = bo = 0
    for _ in range(outer):
        if axis == last:
            out[bo] = store(convert(x[bx], x_tag, compute_tag), out_tag)
            for i in range(1, inner):
                previous = convert(out[bo + (i - 1) * so], out_tag, compute_tag)
                value = convert(x[bx + i * sx], x_tag, compute_tag)
                out[bo + i * so] = store(combine(op, previous, value), out_tag)
        elif axis < 0 or index[axis] == 0:
            for i in range(inner):
                out[bo + i * so] = store(convert(x[bx + i * sx], x_tag, compute_tag), out_tag)
        else:
            for i in range(inner):
                previous = convert(out[bo + i * so - back], out_tag, compute_tag)
                value = convert(x[bx + i * sx], x_tag, compute_tag)
                out[bo + i * so] = store(combine(op, previous, value), out_tag)
        bx, bo = advance(index, shape, last - 1, (bx, bo), x_strides, out_strides)


def scan_array(name, x_address, x_strides, x_dtype, shape, axis, out_address, out_strides,
               out_dtype):
    """The running sum (``name="sum"``) or product (``"prod"``) along ``axis`` of a layout,
    computed in ``out_dtype`` (float16/bfloat16 through float32, rounded at each step as
    NumPy does) and written to the layout at ``out_address``.

    Where the scan from ``x_dtype`` is not shipped and the one from the computation dtype is,
    ``x`` is cast to that dtype first (as NumPy casts), so that no kernel is compiled."""
    compute_dtype = _dtypes.computation_dtype(out_dtype)
    arguments = _scan_arguments(name, x_address, x_strides, x_dtype, shape, axis, out_address,
                                out_strides, out_dtype, compute_dtype)
    if arguments is None:
        return
    key = (name, x_dtype, out_dtype)
    cast_first = _CAST_FIRST.get(key)
    if cast_first is None:
        cast_first = _CAST_FIRST[key] = (
            x_dtype is not compute_dtype and not ships_call(scan.py_func, arguments)
            and ships_call(scan.py_func, _scan_arguments(
                name, 0, c_strides(shape), compute_dtype, shape, axis, out_address,
                out_strides, out_dtype, compute_dtype)))
    if cast_first:
        cast, cast_address, dense = dense_copy(x_address, x_strides, x_dtype, shape,
                                               compute_dtype)
        arguments = _scan_arguments(name, cast_address, dense, compute_dtype, shape, axis,
                                    out_address, out_strides, out_dtype, compute_dtype)
        key = (name, compute_dtype, out_dtype)
    _SCANS(key, *arguments)


_SCANS = Direct(scan)  # by operation, input dtype and output dtype, which fix every type
_CAST_FIRST = {}  # (operation, input dtype, output dtype): whether scan_array casts the input


def _scan_arguments(name, x_address, x_strides, x_dtype, shape, axis, out_address, out_strides,
                    out_dtype, compute_dtype):
    """The arguments of :func:`scan` for :func:`scan_array`'s; None for no elements."""
    marker = tuple(int(d == axis) for d in range(len(shape)))
    plan = make_plan(shape, marker, x_strides, out_strides)
    if plan is None:
        return None
    _, x_planned, out_planned = plan.strides
    position = np.flatnonzero(plan.strides[0])
    return (OP_TAGS[name], plan.shape, x_address + plan.offsets[1] * x_dtype.itemsize,
            x_planned, TAGS[x_dtype], out_address + plan.offsets[2] * out_dtype.itemsize,
            out_planned, TAGS[out_dtype], int(position[0]) if position.size else -1,
            TAGS[compute_dtype])
