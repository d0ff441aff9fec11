"""Checks of the arguments that functions of every category share: arrays, integers, axes."""

import functools
import operator

from ._array_object import check_host, ndarray
from ._devices import CPU, as_device


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
    if kinds is not None and x.dtype.kind not in kinds:
        raise TypeError(f"{name} takes arrays of {what} dtypes, not {x.dtype}")
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


def host_only(function):
    """``function``, refusing with ValueError, before it runs, array arguments (or items of
    list and tuple arguments) on another device than the CPU and a ``device`` argument naming
    one: it has host kernels only."""
    name = function.__name__

    @functools.wraps(function)
    def checked(*args, **kwargs):
        for value in (*args, *kwargs.values()):
            if type(value) is ndarray:
                if value._device is not CPU:
                    check_host(name, value)
            elif type(value) in (list, tuple):
                check_host(name, *value)
        device = kwargs.get("device")
        if device is not None and as_device(device) != CPU:
            raise ValueError(f"{name} is not implemented on {as_device(device)}: dlnumba "
                             "computes it on the CPU only")
        return function(*args, **kwargs)

    checked.host_only = True
    return checked


def host_only_namespace(namespace, names, on_any_device):
    """Replace each function among ``names`` in the module dict ``namespace`` by its
    :func:`host_only` form, except those in ``on_any_device`` and those that are already."""
    for name in names:
        value = namespace[name]
        if (callable(value) and not isinstance(value, type) and name not in on_any_device
                and not getattr(value, "host_only", False)):
            namespace[name] = host_only(value)
