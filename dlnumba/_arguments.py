"""Checks of the arguments that functions of every category share: arrays, integers, axes."""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING

from ._array_object import ndarray
from ._devices import CPU, as_device

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])


class AxisError(ValueError, IndexError):
    """An axis out of range for an array (a ValueError and an IndexError, as NumPy's)."""


def check_array(name, x, kinds=None, what=None, min_ndim=0):
    """Check that ``x`` is an ndarray, of a dtype kind in ``kinds`` (described by ``what``) if
    given, with at least ``min_ndim`` dimensions.

    Raises
    ------
    TypeError
        For something else than an ndarray, or another dtype kind.
    ValueError
        For too few dimensions.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"{name} expects a dlnumba.ndarray, not {type(x).__name__}")
    if kinds is not None and x._dtype.kind not in kinds:
        raise TypeError(f"{name} takes arrays of {what} dtypes, not {x._dtype}")
    if x.ndim < min_ndim:
        raise ValueError(f"{name} takes arrays of at least {min_ndim}-D, not shape "
                         f"{x.shape}")


def check_int(name, value):
    """``value`` as an int. Raises TypeError, naming the argument ``name``, for anything that
    is not an integer (bool included)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int, not {value!r}")
    return operator.index(value)


def normalize_axis(axis, ndim, name):
    """``axis`` (negative counts from the end) as an axis of an array of ``ndim`` dimensions.

    Raises
    ------
    AxisError
        (an IndexError and a ValueError) if it is out of range.
    """
    axis = check_int(f"{name} axis", axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"{name}: axis {axis} is out of bounds for an array of {ndim} "
                        "dimensions")
    return axis % ndim


def normalize_axes(axes, ndim, name, unique=True):
    """An int, tuple or list of axes as a tuple of axes in ``[0, ndim)``.

    Raises
    ------
    ValueError
        If an axis repeats and ``unique``.
    """
    items = axes if isinstance(axes, (tuple, list)) else (axes,)
    result = tuple(normalize_axis(a, ndim, name) for a in items)
    if unique and len(set(result)) != len(result):
        raise ValueError(f"{name}: axes {axes} name an axis more than once")
    return result


def both_on_host(x1, x2):
    """Whether ``x1`` and ``x2`` are both ndarrays on the host, where a function of a host-only
    family (see :func:`on_host`) may run its kernel without the round trip."""
    return (type(x1) is ndarray and type(x2) is ndarray and x1._device.host_memory
            and x2._device.host_memory)


def on_host(function: _F) -> _F:
    """``function``, which has host kernels only, working on every device: arrays on a CUDA
    device (arguments, or items of list and tuple arguments) are copied to the CPU, and the
    arrays it returns are copied back to that device; so is the result of a ``device``
    argument naming one.

    Raises
    ------
    ValueError
        For arrays on different devices, or a ``device`` argument other than theirs.
    """
    name = function.__name__

    @functools.wraps(function)
    def computed_on_host(*args, **kwargs):
        device = _device_of(name, args, kwargs)
        if device.host_memory:
            return function(*args, **kwargs)
        args = [_to_host(value) for value in args]
        kwargs = {key: _to_host(value) for key, value in kwargs.items()}
        if "device" in kwargs:
            kwargs["device"] = CPU
        return _to_device(function(*args, **kwargs), device)

    computed_on_host.on_host = True
    return computed_on_host


_PLAIN = frozenset((bool, int, float, str, type(None)))  # keyword values that hold no array


def _device_of(name, args, kwargs):
    """The one device of the arrays among the arguments and of a ``device`` argument (CPU when
    there is none)."""
    if args and type(args[0]) is ndarray and "device" not in kwargs:  # kept lean
        found = args[0]._device
        for value in args:
            if type(value) is not ndarray or value._device is not found:
                break
        else:
            for value in kwargs.values():
                if type(value) not in _PLAIN:
                    break
            else:
                return found
    found = as_device(kwargs["device"]) if kwargs.get("device") is not None else None
    for value in (*args, *kwargs.values()) if kwargs else args:
        for item in value if type(value) in (list, tuple) else (value,):
            if isinstance(item, ndarray) and item._device is not found:
                if found is not None and item._device != found:
                    raise ValueError(f"{name}: arrays (or a device argument) on {found} and "
                                     f"{item._device} cannot be combined")
                found = item._device
    return CPU if found is None else found


def _to_host(value):
    if isinstance(value, ndarray):
        return value.to_device(CPU)
    if type(value) in (list, tuple):
        return type(value)(_to_host(item) for item in value)
    return value


def _to_device(result, device):
    if isinstance(result, ndarray):
        return result.to_device(device)
    if isinstance(result, tuple):
        items = [_to_device(item, device) for item in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if isinstance(result, list):
        return [_to_device(item, device) for item in result]
    return result
