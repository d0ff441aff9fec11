"""Copy plans: the layout a transfer walks, computed once per (shape, strides) and cached.

A plan drops size-1 dimensions, turns negative destination strides around (so writes go
forward), orders dimensions so the innermost has the smallest destination stride, merges
dimensions that are contiguous together on both sides, and, when the source's most contiguous
dimension is not the innermost (a transpose), moves it next to the innermost and tiles the two.
"""

import functools

import numpy as np

from .._layout import extent

_TILE = 16  # transposes walk 16 x 16 blocks: the best measured here for 2- to 8-byte items


class Plan:
    """A planned layout. Offsets and strides are in elements; extents are relative to the
    unplanned element ``(0, ..., 0)``."""

    __slots__ = ("shape", "src_strides", "dst_strides", "src_offset", "dst_offset", "tile",
                 "tiled", "src_extent", "dst_extent", "size", "_pieces")

    def __init__(self, dims, src_offset, dst_offset, tile, src_extent, dst_extent, size):
        self.shape = np.array([d[0] for d in dims], np.int64)
        self.src_strides = np.array([d[1] for d in dims], np.int64)
        self.dst_strides = np.array([d[2] for d in dims], np.int64)
        self.src_offset, self.dst_offset, self.tile = src_offset, dst_offset, tile
        self.tiled = tile < max(dims[-1][0], dims[-2][0])
        self.src_extent, self.dst_extent, self.size = src_extent, dst_extent, size
        self._pieces = {}

    def split(self, parts):
        """Cut the plan along its outermost dimension into at most ``parts`` equal pieces.

        Returns
        -------
        list of (src_offset, dst_offset, shape)
            Element offsets from the plan's own offsets, and the shape array of each piece.
        """
        pieces = self._pieces.get(parts)
        if pieces is None:
            n = int(self.shape[0])
            step = -(-n // parts)
            pieces = self._pieces[parts] = []
            for start in range(0, n, step):
                shape = self.shape.copy()
                shape[0] = min(step, n - start)
                pieces.append((start * int(self.src_strides[0]), start * int(self.dst_strides[0]),
                               shape))
        return pieces


@functools.lru_cache(maxsize=4096)
def make_plan(shape, src_strides, dst_strides):
    """Plan a transfer of ``shape`` between two layouts (strides in elements).

    Returns
    -------
    Plan or None
        None when the shape has no elements.
    """
    dims = [(n, s, d) for n, s, d in zip(shape, src_strides, dst_strides) if n != 1]
    if any(n == 0 for n, _, _ in dims):
        return None
    sizes = [n for n, _, _ in dims]
    src_extent = extent(sizes, [s for _, s, _ in dims])
    dst_extent = extent(sizes, [d for _, _, d in dims])
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
        merged.insert(-1, merged.pop(contiguous))
        tile = _TILE
    while len(merged) < 2:
        merged.insert(0, (1, 0, 0))
    if not tile:
        tile = max(merged[-1][0], merged[-2][0])
    return Plan(merged, src_offset, dst_offset, tile, src_extent, dst_extent, size)
