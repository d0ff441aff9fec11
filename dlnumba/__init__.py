"""dlnumba: a DLPack-native array API namespace whose kernels are compiled by Numba.

``import dlnumba as xp`` gives arrays over raw memory that trade that memory, zero-copy, with
NumPy, PyTorch, JAX and every other DLPack library.
"""

import math

from . import _import_guard  # noqa: F401 (before anything imports dlnumba.cuda)
from . import _memory, _native, _numba  # noqa: F401 (the host allocator's builtin first)
from ._array_object import ndarray
from ._shipped import preload

# The shipped level is chosen on a thread of its own while the rest of the package imports;
# after every builtin is compiled, the callers of C functions included, since llvmlite serves
# one thread at a time: a compile would wait for that thread's calls, and for any object's load.
_native.compile_callers()
preload()

from ._creation_functions import (
    arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid,
    ones, ones_like, to_dlpack, tril, triu, zeros, zeros_like,
)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._devices import Device
from ._fuse import fuse
from ._elementwise_functions import *  # noqa: F403 (every elementwise function)
from ._elementwise_functions import __all__ as _elementwise_names
from . import _dtypes
from ._indexing_functions import take, take_along_axis
from ._info import __array_namespace_info__
from ._linear_algebra_functions import matmul, matrix_transpose, tensordot, vecdot
from ._mode import is_strict, set_strict, strict
from ._nan_functions import (
    nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum,
    nanvar,
)
from ._manipulation_functions import (
    broadcast_arrays, broadcast_shapes, broadcast_to, concat, expand_dims, flip, moveaxis, pad,
    permute_dims, repeat, reshape, roll, squeeze, stack, tile, transpose, unstack,
)
from ._einsum import einsum
from ._quantile_functions import median, percentile, quantile
from ._searching_functions import (
    argmax, argmin, count_nonzero, nonzero, searchsorted, where,
)
from ._set_functions import isin, unique_all, unique_counts, unique_inverse, unique_values
from ._sorting_functions import argsort, sort
from ._statistical_functions import (
    cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum, var,
)
from ._utility_functions import all, any, diff
from . import fft
from . import lib
from . import linalg

from ._version import __version__ as __version__


def _register_with_numba():
    from . import numba_ext  # noqa: F401 (dlnumba.ndarray in @njit code)


_numba.when_loaded(_register_with_numba)

__array_api_version__ = "2025.12"

# data types: NumPy's dtype objects (bfloat16: ml_dtypes'), as NumPy, CuPy and JAX arrays have
(bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32,
 float64, complex64, complex128) = (dtype.numpy for dtype in _dtypes.DTYPES)

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
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # data type functions
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # elementwise functions
    *_elementwise_names,
    # indexing functions
    "take", "take_along_axis",
    # linear algebra functions
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation functions
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "transpose", "unstack",
    # searching functions
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # set functions
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting functions
    "argsort", "sort",
    # statistical functions
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility functions
    "all", "any", "diff",
    # DLPack, legacy interface
    "to_dlpack",
    # extensions
    "fft", "fuse", "lib", "linalg", "is_strict", "set_strict", "strict",
    "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin", "nanprod",
    "nanstd", "nansum", "nanvar", "pad", "median", "percentile", "quantile", "einsum",
]
