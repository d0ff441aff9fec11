"""Copy plans: the layout a transfer walks, computed once per (shape, strides) and cached.

A plan drops size-1 dimensions, turns negative destination strides around (so writes go
forward), orders dimensions so the innermost has the smallest destination stride, merges
dimensions that are contiguous together on both sides, and, when the source's most contiguous
dimension is not the innermost (a transpose), moves it next to the innermost and tiles the two.
"""

import functools
from typing import NamedTuple

import numpy as np

_TILE_BYTES = 4096  # one side of a tile: 64 x 64 float32, or 32 x 32 float64 ... fits in L1


class Plan(NamedTuple):
    """A planned layout. Offsets and strides are in elements; extents are relative to the
    unplanned element ``(0, ..., 0)``; ``None`` extents mean the layout is empty."""

    shape: np.ndarray
    src_strides: np.ndarray
    dst_strides: np.ndarray
    src_offset: int
    dst_offset: int
    tile: int
    src_extent: tuple
    dst_extent: tuple
    size: int


def _extent(dims, pick):
    low = high = 0
    for dim in dims:
        step = (dim[0] - 1) * dim[pick]
        if step > 0:
            high += step
        else:
            low += step
    return low, high


@functools.lru_cache(maxsize=4096)
def make_plan(shape, src_strides, dst_strides, itemsize):
    """Plan a transfer of ``shape`` between two layouts (strides in elements).

    Returns
    -------
    Plan or None
        None when the shape has no elements.
    """
    dims = [(n, s, d) for n, s, d in zip(shape, src_strides, dst_strides) if n != 1]
    if any(n == 0 for n, _, _ in dims):
        return None
    src_extent, dst_extent = _extent(dims, 1), _extent(dims, 2)
    size = 1
    src_offset = dst_offset = 0
    for i, (n, s, d) in enumerate(dims):
        size *= n
        if d < 0:
            src_offset += (n - 1) * s
            dst_offset += (n - 1) * d
            dims[i] = (n, -s, -d)
    dims.sort(key=lambda dim: (dim[2], abs(dim[1])), reverse=True)
    merged = []
    for n, s, d in dims:
        if merged and merged[-1][1] == s * n and merged[-1][2] == d * n:
            merged[-1] = (merged[-1][0] * n, s, d)
        else:
            merged.append((n, s, d))
    tile = 0
    contiguous = min(range(len(merged)), key=lambda i: abs(merged[i][1]) or 2**63,
                     default=None)
    if contiguous is not None and contiguous < len(merged) - 1 and abs(merged[-1][1]) > 1:
        merged.insert(len(merged) - 1, merged.pop(contiguous))
        tile = max(8, _TILE_BYTES // itemsize)
    while len(merged) < 2:
        merged.insert(0, (1, 0, 0))
    if not tile:
        tile = max(merged[-1][0], merged[-2][0])
    return Plan(np.array([m[0] for m in merged], np.int64),
                np.array([m[1] for m in merged], np.int64),
                np.array([m[2] for m in merged], np.int64),
                src_offset, dst_offset, tile, src_extent, dst_extent, size)


@functools.lru_cache(maxsize=1024)
def split(plan, parts):
    """Cut a plan along its outermost dimension into at most ``parts`` plans of equal size.

    Returns
    -------
    list of (src_offset, dst_offset, shape)
        Element offsets from the plan's own offsets, and the shape array of each part.
    """
    n = int(plan.shape[0])
    step = -(-n // parts)
    pieces = []
    for start in range(0, n, step):
        shape = plan.shape.copy()
        shape[0] = min(step, n - start)
        pieces.append((start * int(plan.src_strides[0]), start * int(plan.dst_strides[0]), shape))
    return pieces
