"""dlnumba: a DLPack-native array API namespace whose kernels are compiled by Numba.

``import dlnumba as xp`` gives arrays over raw memory that trade that memory, zero-copy, with
NumPy, PyTorch, JAX and every other DLPack library.
"""

import math

from . import _numba_cache  # first: kernels compiled below are cached under its salt
from ._array_object import ndarray
from ._creation_functions import (
    arange, asarray, empty, empty_like, from_dlpack, full, full_like, ones, ones_like, to_dlpack,
    zeros, zeros_like,
)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._devices import Device
from ._elementwise_functions import *  # noqa: F403 (every elementwise function)
from ._elementwise_functions import __all__ as _elementwise_names
from ._dtypes import (
    bfloat16, bool, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64,
)
from ._indexing_functions import take, take_along_axis
from ._info import __array_namespace_info__
from ._manipulation_functions import broadcast_shapes, reshape
from . import numba_ext  # registers dlnumba.ndarray with Numba

from ._version import __version__

__array_api_version__ = "2025.12"

# constants
e = math.e
inf = math.inf
nan = math.nan
newaxis = None
pi = math.pi

__all__ = [
    "__array_api_version__", "__array_namespace_info__", "ndarray", "Device",
    # constants
    "e", "inf", "nan", "newaxis", "pi",
    # data types
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    # creation functions
    "arange", "asarray", "empty", "empty_like", "from_dlpack", "full", "full_like", "ones",
    "ones_like", "zeros", "zeros_like",
    # data type functions
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # elementwise functions
    *_elementwise_names,
    # indexing functions
    "take", "take_along_axis",
    # manipulation functions
    "broadcast_shapes", "reshape",
    # DLPack, legacy interface
    "to_dlpack",
]
