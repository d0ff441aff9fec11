"""Reference values where the array API standard and NumPy differ: NumPy's result, corrected
to what the standard specifies."""

import numpy as np


def floor_divide_standard(x1, x2):
    """NumPy's floor_divide, but the standard's floor(x1 / x2) where an operand is infinite:
    NumPy gives NaN for +-inf // 2 and -1 for 1 // -inf, the standard +-inf and -0."""
    result = np.floor_divide(x1, x2)
    if result.dtype.kind != "f":
        return result
    return np.where(np.isinf(x1) | np.isinf(x2), np.divide(x1, x2), result)
