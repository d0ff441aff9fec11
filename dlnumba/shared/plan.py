"""Plans: the layout a kernel walks over several operands, computed once per layout and cached.

A plan drops size-1 dimensions, turns dimensions around where the last operand (the output)
has a negative stride (so writes go forward), orders dimensions so the innermost has the
output's smallest stride, and merges dimensions that are contiguous together in every operand.
For copies (two operands), when the source's most contiguous dimension is not the innermost (a
transpose), it moves next to the innermost and the two are walked in tiles.
"""

import functools

import numpy as np

from .._layout import extent

_TILE = 16  # transposes walk 16 x 16 blocks: the best measured here for 2- to 8-byte items


class Plan:
    """A planned layout. Offsets and strides are in elements, one entry per operand; extents
    (lowest, highest element offset reached) are relative to the unplanned ``(0, ..., 0)``."""

    __slots__ = ("shape", "strides", "offsets", "extents", "tile", "tiled", "size", "_pieces")

    def __init__(self, dims, offsets, extents, tile, size):
        self.shape = np.array([d[0] for d in dims], np.int64)
        self.strides = tuple(np.array([d[1][k] for d in dims], np.int64)
                             for k in range(len(offsets)))
        self.offsets, self.extents, self.size = offsets, extents, size
        self.tile = tile or max(dims[-1][0], dims[-2][0])
        self.tiled = self.tile < max(dims[-1][0], dims[-2][0])
        self._pieces = {}

    def split(self, parts):
        """Cut the plan into at most ``parts`` pieces along its outermost dimension that has at
        least ``parts`` elements (the innermost for a single merged run).

        Returns
        -------
        list of (offsets, shape)
            Per-operand element offsets from the plan's own offsets, and each piece's shape.
        """
        pieces = self._pieces.get(parts)
        if pieces is None:
            axis = next((i for i, n in enumerate(self.shape) if n >= parts), 0)
            n = int(self.shape[axis])
            step = -(-n // parts)
            pieces = self._pieces[parts] = []
            for start in range(0, n, step):
                shape = self.shape.copy()
                shape[axis] = min(step, n - start)
                pieces.append((tuple(start * int(s[axis]) for s in self.strides), shape))
        return pieces


@functools.lru_cache(maxsize=4096)
def make_plan(shape, *strides, tile_transposes=False):
    """Plan a walk over ``shape`` for operands with ``strides`` (in elements; output last).

    Returns
    -------
    Plan or None
        None when the shape has no elements.
    """
    dims = [(n, tuple(s[i] for s in strides)) for i, n in enumerate(shape) if n != 1]
    if any(n == 0 for n, _ in dims):
        return None
    sizes = [n for n, _ in dims]
    extents = tuple(extent(sizes, [s[k] for _, s in dims]) for k in range(len(strides)))
    offsets = [0] * len(strides)
    size = 1
    for i, (n, s) in enumerate(dims):
        size *= n
        if s[-1] < 0:
            for k in range(len(strides)):
                offsets[k] += (n - 1) * s[k]
            dims[i] = (n, tuple(-v for v in s))
    dims.sort(key=lambda dim: (dim[1][-1], *(abs(v) for v in dim[1][:-1])), reverse=True)
    merged = []
    for n, s in dims:
        if merged and all(o == v * n for o, v in zip(merged[-1][1], s)):
            merged[-1] = (merged[-1][0] * n, s)
        else:
            merged.append((n, s))
    tile = 0
    if tile_transposes and merged:
        contiguous = min(range(len(merged)), key=lambda i: abs(merged[i][1][0]) or 2**63)
        if contiguous < len(merged) - 1 and abs(merged[-1][1][0]) > 1:
            merged.insert(-1, merged.pop(contiguous))
            tile = _TILE
    while len(merged) < 2:
        merged.insert(0, (1, (0,) * len(strides)))
    return Plan(merged, tuple(offsets), extents, tile, size)
