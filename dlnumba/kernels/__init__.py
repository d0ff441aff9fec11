"""CPU kernels (``numba.njit``): the strided copy engine and dtype casts."""

from .copy import copy_strided
from .cast import cast_into

__all__ = ["copy_strided", "cast_into"]
