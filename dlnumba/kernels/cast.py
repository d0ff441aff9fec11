"""Casts between dtypes on host memory.

Conversions use NumPy's casting loops on views of our memory (``unsafe`` casting, as
``astype``), so results are NumPy's bit for bit; bfloat16, which NumPy lacks, converts through
float32 with round-to-nearest-even, as PyTorch does. The Numba cast engine replaces this.
"""

import numpy as np


def bfloat16_bits_to_float32(bits):
    """Widen bfloat16 bit patterns (uint16) to float32 exactly."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float32_to_bfloat16_bits(values):
    """Round float32 values to bfloat16 bit patterns, to nearest even; NaN becomes 0x7FC0."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16
    return np.where(np.isnan(values), np.uint32(0x7FC0), rounded).astype(np.uint16)


def cast_into(dst, src, dst_is_bfloat16, src_is_bfloat16):
    """Write ``src`` converted to ``dst``'s dtype into ``dst`` (NumPy views of the same shape)."""
    with np.errstate(all="ignore"):
        if src_is_bfloat16:
            src = bfloat16_bits_to_float32(src)
        if dst_is_bfloat16:
            if src.dtype.kind == "c":
                src = src.real
            dst[...] = float32_to_bfloat16_bits(src.astype(np.float32))
        else:
            np.copyto(dst, src, casting="unsafe")
