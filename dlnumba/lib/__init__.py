"""NumPy's ``numpy.lib`` functions that array code reaches for through its namespace
(``xp.lib.stride_tricks.sliding_window_view``, as xarray's ``rolling`` does)."""

from . import stride_tricks

__all__ = ["stride_tricks"]
