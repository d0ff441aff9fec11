"""NumPy's functions and methods on dlnumba arrays (NEP 18's ``__array_function__``).

``np.mean(x)``, ``np.concatenate([x, y])`` and the methods NumPy users call (``x.sum()``,
``x.reshape(2, 3)``) give dlnumba arrays with NumPy's values and dtypes, as CuPy's do:

- a NumPy function whose result dlnumba's namesake gives runs dlnumba's, on any device;
- any other runs NumPy on zero-copy views of host arrays, and its arrays (NumPy scalars too)
  come back as dlnumba arrays over NumPy's memory, as :meth:`ndarray.__array_ufunc__` does.
  On a device without host memory it answers NotImplemented, so that NumPy raises its
  TypeError naming the function.

In strict mode every function runs NumPy's own code on views: NumPy's rules, not the
standard's, are what a NumPy function promises.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from . import _manipulation_functions as _manipulation
from . import _nan_functions as _nan
from . import _quantile_functions as _quantiles
from . import _searching_functions as _searching
from . import _sorting_functions as _sorting
from . import _statistical_functions as _statistical
from . import _utility_functions as _utility
from ._array_object import _from_numpy, ndarray
from ._creation_functions import empty, full, ones, zeros, zeros_like
from ._data_type_functions import astype as _astype
from ._einsum import einsum
from ._devices import CPU
from ._dtypes import bfloat16, from_numpy_dtype
from ._elementwise_functions import clip, conj as _conj, imag as _imag_of, real as _real_of, round
from ._indexing_functions import take
from ._linear_algebra_functions import matmul, tensordot
from ._mode import is_strict
from .lib.stride_tricks import sliding_window_view

_NO = np._NoValue  # NumPy's default for a keyword that was not given
_ON_VIEWS = object()  # a handler's answer where only NumPy's own function gives NumPy's result
_HANDLERS = {}


def array_function(function, types, args, kwargs):
    """:meth:`ndarray.__array_function__`: ``function(*args, **kwargs)`` for NumPy."""
    for kind in types:
        if kind is not ndarray and kind is not np.ndarray:
            return NotImplemented  # another library's array: NumPy asks it next
    handler = _HANDLERS.get(function)
    if handler is not None and not is_strict():
        result = handler(*args, **kwargs)
        if result is not _ON_VIEWS:
            return result
    return on_views(function, args, kwargs)


def on_views(function, args, kwargs):
    """NumPy's ``function`` on zero-copy views of the host arrays in ``args`` and ``kwargs``
    (in lists and tuples too), its arrays returned as dlnumba arrays; NotImplemented for an
    array on a device without host memory."""
    try:
        args = _views(args)
        viewed = {name: _views(value) for name, value in kwargs.items()}
    except _NoView:
        return NotImplemented
    result = function(*args, **viewed)
    out = kwargs.get("out")
    return out if out is not None else as_dlnumba(result)


class _NoView(Exception):
    """An array whose memory the host cannot read."""


def _views(value):
    if type(value) is ndarray:
        if not value._device.host_memory:
            raise _NoView
        return value.__array__() if value._dtype is bfloat16 else value._numpy()
    if type(value) is list or type(value) is tuple:
        return type(value)(_views(item) for item in value)
    return value


def as_dlnumba(result):
    """``result`` with its NumPy arrays and scalars of dlnumba's dtypes as dlnumba arrays."""
    if type(result) is np.ndarray or isinstance(result, np.generic):
        try:
            from_numpy_dtype(result.dtype)
        except TypeError:
            return result  # strings, objects, datetimes: NumPy's
        return _from_numpy(np.asarray(result))
    if type(result) is list or type(result) is tuple:
        return type(result)(as_dlnumba(item) for item in result)
    if isinstance(result, tuple) and hasattr(result, "_fields"):  # a named tuple
        return type(result)(*(as_dlnumba(item) for item in result))
    return result


def _handles(*pairs):
    """Register the decorated handler for each (NumPy function, dlnumba function) pair; the
    handler takes the dlnumba function first, then NumPy's arguments."""
    def register(handler):
        for numpy_function, function in pairs:
            _HANDLERS[numpy_function] = functools.partial(handler, function)
        return handler
    return register


def _given(*values):
    """Whether any of ``values`` was given (is neither None nor NumPy's no-value)."""
    return any(value is not None and value is not _NO for value in values)


def _dtype(dtype):
    """dlnumba's dtype for NumPy's spelling ``dtype`` (None stays None); TypeError where
    dlnumba has none."""
    return None if dtype is None else from_numpy_dtype(dtype).numpy


def _supported_dtype(dtype):
    try:
        _dtype(dtype)
    except TypeError:
        return False
    return True


def _real(a):
    """Whether ``a`` is a dlnumba array of a real or bool dtype (NumPy orders complex values,
    which dlnumba's max, min, argmax, argmin, sort and clip refuse)."""
    return type(a) is ndarray and a._dtype.kind != "complex floating"


def _numeric(a):
    """Whether ``a`` is a dlnumba array of a numeric dtype (NumPy's bool differences and
    products, which dlnumba's refuse, are NumPy's)."""
    return type(a) is ndarray and a._dtype.kind != "bool"


def _keep(keepdims):
    return keepdims if keepdims is False or keepdims is True else keepdims is not _NO and \
        bool(keepdims)


def _flat(a, axis):
    """``a`` flattened where NumPy's ``axis`` is None (as NumPy's running sums, sorts and
    takes do), else ``a``; and the axis to use."""
    return (_manipulation.reshape(a, (-1,)), 0) if axis is None else (a, axis)


# ---------------------------------------------------------------- reductions

@_handles((np.sum, _statistical.sum), (np.prod, _statistical.prod),
          (np.nansum, _nan.nansum), (np.nanprod, _nan.nanprod))
def _summed(reduce, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO,
            where=_NO):
    if type(a) is not ndarray or out is not None or initial is not _NO or where is not _NO \
            or dtype is not None and not _supported_dtype(dtype):
        return _ON_VIEWS
    return reduce(a, axis=axis, dtype=_dtype(dtype), keepdims=_keep(keepdims))


@_handles((np.mean, _statistical.mean), (np.nanmean, _nan.nanmean))
def _averaged(reduce, a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO):
    if type(a) is not ndarray or out is not None or where is not _NO \
            or dtype is not None and not _supported_dtype(dtype):
        return _ON_VIEWS
    return reduce(a, axis=axis, dtype=_dtype(dtype), keepdims=_keep(keepdims))


@_handles((np.std, _statistical.std), (np.var, _statistical.var),
          (np.nanstd, _nan.nanstd), (np.nanvar, _nan.nanvar))
def _spread(reduce, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
            where=_NO, mean=_NO, correction=_NO):
    if type(a) is not ndarray or _given(out, where, mean, dtype) or a.dtype == np.float16:
        return _ON_VIEWS  # NumPy squares float16 deviations in float16
    if correction is not _NO:
        if ddof != 0:
            return _ON_VIEWS  # NumPy's error for both
        ddof = correction
    return reduce(a, axis=axis, correction=ddof, keepdims=_keep(keepdims))


@_handles((np.max, _statistical.max), (np.amax, _statistical.max),
          (np.min, _statistical.min), (np.amin, _statistical.min),
          (np.nanmax, _nan.nanmax), (np.nanmin, _nan.nanmin))
def _extreme(reduce, a, axis=None, out=None, keepdims=False, initial=_NO, where=_NO):
    if not _real(a) or out is not None or initial is not _NO or where is not _NO:
        return _ON_VIEWS
    return reduce(a, axis=axis, keepdims=_keep(keepdims))


@_handles((np.any, _utility.any), (np.all, _utility.all))
def _tested(reduce, a, axis=None, out=None, keepdims=False, *, where=_NO):
    if type(a) is not ndarray or out is not None or where is not _NO:
        return _ON_VIEWS
    return reduce(a, axis=axis, keepdims=_keep(keepdims))


@_handles((np.argmax, _searching.argmax), (np.argmin, _searching.argmin),
          (np.nanargmax, _nan.nanargmax), (np.nanargmin, _nan.nanargmin))
def _located(reduce, a, axis=None, out=None, *, keepdims=False):
    if not _real(a) or _given(out):
        return _ON_VIEWS
    return reduce(a, axis=axis, keepdims=_keep(keepdims))


@_handles((np.cumsum, _statistical.cumulative_sum),
          (np.cumprod, _statistical.cumulative_prod),
          (np.nancumsum, _nan.nancumsum), (np.nancumprod, _nan.nancumprod))
def _running(accumulate, a, axis=None, dtype=None, out=None):
    if type(a) is not ndarray or _given(out) or not _supported_dtype(dtype) or a.ndim == 0:
        return _ON_VIEWS
    a, axis = _flat(a, axis)
    return accumulate(a, axis=axis, dtype=_dtype(dtype))


@_handles((np.median, _quantiles.median))
def _middle(median, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    if not _real(a) or _given(out) or axis == () or a.size == 0:
        return _ON_VIEWS  # NumPy's own answers (and errors) for no values
    return median(a, axis=axis, keepdims=_keep(keepdims))


@_handles((np.quantile, _quantiles.quantile), (np.percentile, _quantiles.percentile))
def _quantiles_of(quantile, a, q, axis=None, out=None, overwrite_input=False,
                  method="linear", keepdims=False, *, weights=None):
    if not _real(a) or _given(out, weights) or a.size == 0 or axis == ():
        return _ON_VIEWS  # NumPy's own errors for no values
    return quantile(a, q, axis=axis, method=method, keepdims=_keep(keepdims))


# ---------------------------------------------------------------- joining and selecting

@_handles((np.concatenate, _manipulation.concat), (np.stack, _manipulation.stack))
def _joined(join, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if type(arrays) not in (list, tuple) or not arrays or _given(out, dtype) or \
            casting != "same_kind" or any(type(a) is not ndarray for a in arrays):
        return _ON_VIEWS
    if join is _manipulation.stack and axis is None or len({a.dtype for a in arrays}) > 2:
        return _ON_VIEWS  # NumPy promotes three dtypes at once, not pairwise
    return join(arrays, axis=axis)


@_handles((np.where, _searching.where))
def _chosen(where, condition, x=_NO, y=_NO):
    if type(condition) is not ndarray or condition._dtype.kind != "bool":
        return _ON_VIEWS
    if x is _NO and y is _NO:
        return _searching.nonzero(condition) if condition.ndim else _ON_VIEWS
    if not all(type(v) is ndarray or type(v) in (bool, int, float, complex) for v in (x, y)):
        return _ON_VIEWS
    return where(condition, x, y)


@_handles((np.nonzero, _searching.nonzero))
def _nonzero(nonzero, a):
    return nonzero(a) if type(a) is ndarray and a.ndim else _ON_VIEWS


@_handles((np.take, take))
def _taken(take, a, indices, axis=None, out=None, mode="raise"):
    if type(a) is not ndarray or _given(out) or mode != "raise" or \
            type(indices) is not ndarray or indices.ndim != 1:
        return _ON_VIEWS
    a, axis = _flat(a, axis)
    return take(a, indices, axis=axis)


@_handles((np.sort, _sorting.sort), (np.argsort, _sorting.argsort))
def _sorted(sort, a, axis=-1, kind=None, order=None, *, stable=None):
    if not _real(a) or _given(order) or a.ndim == 0 and axis is not None:
        return _ON_VIEWS
    a, axis = _flat(a, axis)
    return sort(a, axis=axis, stable=True)


@_handles((np.clip, clip))
def _clipped(clip, a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    low, high = (a_min if a_min is not _NO else min), (a_max if a_max is not _NO else max)
    bounds = [b for b in (low, high) if b is not _NO and b is not None]
    if not _real(a) or a._dtype.kind == "bool" or _given(out) or kwargs or not all(
            type(b) is ndarray and b._dtype is a._dtype or type(b) is int or
            type(b) is float and a._dtype.kind == "real floating" for b in bounds):
        return _ON_VIEWS  # NumPy promotes x with bounds of another dtype; dlnumba keeps x's
    return clip(a, None if low is _NO else low, None if high is _NO else high)


@_handles((np.round, round), (np.around, round))
def _rounded(round, a, decimals=0, out=None):
    if type(a) is not ndarray or decimals != 0 or _given(out):
        return _ON_VIEWS
    return round(a)


# ---------------------------------------------------------------- shapes

@_handles((np.reshape, _manipulation.reshape))
def _reshaped(reshape, a, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    if type(a) is not ndarray or order != "C" or shape is None:
        return _ON_VIEWS
    return reshape(a, (shape,) if isinstance(shape, int) else tuple(shape), copy=copy)


@_handles((np.ravel, _manipulation.reshape))
def _raveled(reshape, a, order="C"):
    return reshape(a, (-1,)) if type(a) is ndarray and order == "C" else _ON_VIEWS


@_handles((np.transpose, _manipulation.transpose), (np.permute_dims, _manipulation.transpose))
def _transposed(transpose, a, axes=None):
    return transpose(a, axes) if type(a) is ndarray else _ON_VIEWS


@_handles((np.squeeze, _manipulation.squeeze))
def _squeezed(squeeze, a, axis=None):
    if type(a) is not ndarray:
        return _ON_VIEWS
    if axis is None:
        axis = tuple(d for d, n in enumerate(a.shape) if n == 1)
    return squeeze(a, axis)


@_handles((np.expand_dims, _manipulation.expand_dims))
def _expanded(expand_dims, a, axis):
    return expand_dims(a, axis) if type(a) is ndarray else _ON_VIEWS


@_handles((np.moveaxis, _manipulation.moveaxis))
def _moved(moveaxis, a, source, destination):
    return moveaxis(a, source, destination) if type(a) is ndarray else _ON_VIEWS


@_handles((np.broadcast_to, _manipulation.broadcast_to))
def _broadcast(broadcast_to, array, shape, subok=False):
    if type(array) is not ndarray:
        return _ON_VIEWS
    return broadcast_to(array, (shape,) if isinstance(shape, int) else tuple(shape))


@_handles((np.flip, _manipulation.flip))
def _flipped(flip, m, axis=None):
    return flip(m, axis=axis) if type(m) is ndarray else _ON_VIEWS


@_handles((np.roll, _manipulation.roll))
def _rolled(roll, a, shift, axis=None):
    return roll(a, shift, axis=axis) if type(a) is ndarray else _ON_VIEWS


@_handles((np.repeat, _manipulation.repeat))
def _repeated(repeat, a, repeats, axis=None):
    if type(a) is not ndarray or type(repeats) is not int:
        return _ON_VIEWS
    return repeat(a, repeats, axis=axis)


@_handles((np.copy, ndarray._copy))
def _copied(copy, a, order="K", subok=False):
    return copy(a) if type(a) is ndarray and order in ("K", "C", "A") else _ON_VIEWS


@_handles((np.diff, _utility.diff))
def _differences(diff, a, n=1, axis=-1, prepend=_NO, append=_NO):
    if not _numeric(a) or _given(prepend, append) or a.ndim == 0:
        return _ON_VIEWS
    return diff(a, axis=axis, n=n)


@_handles((np.lib.stride_tricks.sliding_window_view, sliding_window_view))
def _windows(sliding_window_view, x, window_shape, axis=None, *, subok=False, writeable=False):
    if type(x) is not ndarray:
        return _ON_VIEWS
    return sliding_window_view(x, window_shape, axis, writeable=writeable)


# ---------------------------------------------------------------- products

@_handles((np.tensordot, tensordot))
def _contracted(tensordot, a, b, axes=2):
    if not _numeric(a) or not _numeric(b):
        return _ON_VIEWS
    if not isinstance(axes, int):  # NumPy's pair may hold an int where the standard's has a tuple
        axes = tuple((side,) if isinstance(side, int) else tuple(side) for side in axes)
    return tensordot(a, b, axes=axes)


@_handles((np.einsum, einsum))
def _summation(einsum, *operands, out=None, optimize=False, **kwargs):
    if not operands or type(operands[0]) is not str or _given(out) or kwargs or \
            any(type(x) is not ndarray for x in operands[1:]):
        return _ON_VIEWS  # the interleaved form, out=, dtype=, order=, casting=
    return einsum(*operands)


@_handles((np.dot, matmul))
def _dotted(matmul, a, b, out=None):
    if not _numeric(a) or not _numeric(b) or _given(out) or \
            not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return _ON_VIEWS  # NumPy's dot of 0-d or N-d arrays is not a matrix product
    return matmul(a, b)


# ---------------------------------------------------------------- new arrays like others

def _like(a, dtype, order, shape, device):
    """The shape, dtype and device of NumPy's ``*_like(a, ...)``, or None where NumPy's own
    function answers. A dtype dlnumba lacks (a structured one) raises TypeError, as CuPy's
    does: Dask then keeps the parts of its argmax apart."""
    if type(a) is not ndarray or order not in ("K", "C", "A") or _given(device):
        return None
    shape = a.shape if shape is None else (shape,) if isinstance(shape, int) else tuple(shape)
    return shape, a.dtype if dtype is None else _dtype(dtype), a.device


@_handles((np.empty_like, empty), (np.zeros_like, zeros), (np.ones_like, ones))
def _new_like(make, prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    like = _like(prototype, dtype, order, shape, device)
    if like is None:
        return _ON_VIEWS
    shape, dtype, device = like
    return make(shape, dtype=dtype, device=device)


@_handles((np.full_like, full))
def _filled_like(full, a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
                 device=None):
    like = _like(a, dtype, order, shape, device)
    if like is None or type(fill_value) not in (bool, int, float, complex):
        return _ON_VIEWS
    shape, dtype, device = like
    return full(shape, fill_value, dtype=dtype, device=device)


# ---------------------------------------------------------------- methods

def _call(function, args, kwargs):
    """``function(*args, **kwargs)`` as NumPy answers it for a method of ``args[0]``."""
    result = array_function(function, (ndarray,), args, kwargs)
    if result is NotImplemented:
        raise TypeError(f"numpy.{function.__name__} has no dlnumba implementation for an array "
                        f"on {args[0].device}; move it first with to_device('cpu')")
    return result


def _method(function):
    """NumPy's ``ndarray.<name>``: ``numpy.<name>(self, *args, **kwargs)``."""
    def method(self, *args, **kwargs):
        return _call(function, (self, *args), kwargs)

    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = f"``numpy.{function.__name__}(self, ...)``, as NumPy's method."
    return method


def _shape_arguments(shape):
    """A method's shape given as ``(2, 3)`` or as ``2, 3``."""
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def reshape(self, *shape, order="C", copy=None):
    """``numpy.reshape(self, shape)``, the shape given whole or as separate ints."""
    return _call(np.reshape, (self, _shape_arguments(shape)), {"order": order, "copy": copy})


def transpose(self, *axes):
    """``numpy.transpose(self, axes)``, the axes given whole or as separate ints."""
    return _call(np.transpose, (self, _shape_arguments(axes) if axes else None), {})


def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """A copy cast to ``dtype`` (this array where not ``copy`` and the dtype is its own)."""
    if casting != "unsafe" and not np.can_cast(self._dtype.numpy, dtype, casting):
        raise TypeError(f"cannot cast array data from {self._dtype} to {np.dtype(dtype)} "
                        f"according to the rule {casting!r}")
    dtype = _dtype(dtype)
    if self._dtype.kind == "complex floating" and dtype.kind != "c":
        warnings.warn("casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
        return _astype(_real_of(self), dtype)
    return _astype(self, dtype, copy=copy)


def flatten(self, order="C"):
    """A new 1-D array of the values in C order."""
    if order != "C":
        return _call(np.ravel, (self, order), {})._copy()
    return _manipulation.reshape(self, (-1,), copy=True)


def ravel(self, order="C"):
    """The values in C order as a 1-D array: a view where the layout allows."""
    return _call(np.ravel, (self, order), {})


def tolist(self):
    """The values as nested Python lists of Python scalars."""
    return self.to_device(CPU)._values().tolist()


def item(self, *index):
    """One element as a Python scalar: the only one, or the one at ``index``."""
    return self.to_device(CPU)._values().item(*index)


def sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Sort in place along ``axis``, as NumPy's method does."""
    self._assign(_call(np.sort, (self, axis, kind, order), {"stable": stable}))


def fill(self, value):
    """Set every element to ``value``."""
    self[...] = value


def conj(self):
    """The complex conjugate (the array itself for a real dtype)."""
    return _conj(self)


def _real_part(self):
    """The real parts (the array itself for a real dtype), as NumPy's attribute."""
    return _real_of(self) if self._dtype.kind == "complex floating" else self


def _imaginary_part(self):
    """The imaginary parts (zeros for a real dtype), as NumPy's attribute."""
    return _imag_of(self) if self._dtype.kind == "complex floating" else zeros_like(self)


def _length(self):
    """The size of the first dimension, as NumPy's ``len``."""
    if not self._shape:
        raise TypeError("len() of a 0-d array")
    return self._shape[0]


for _method_ in (*(_method(f) for f in (
        np.sum, np.prod, np.mean, np.std, np.var, np.max, np.min, np.any, np.all, np.argmax,
        np.argmin, np.cumsum, np.cumprod, np.squeeze, np.clip, np.round, np.take, np.repeat,
        np.nonzero, np.argsort, np.copy, np.dot, np.swapaxes)),
        reshape, transpose, astype, flatten, ravel, tolist, item, sort, fill, conj):
    setattr(ndarray, _method_.__name__, _method_)
ndarray.conjugate = conj
ndarray.__len__ = _length
ndarray.real = property(_real_part)
ndarray.imag = property(_imaginary_part)
