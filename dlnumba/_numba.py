"""Numba on first need: the decorators, types and names that dlnumba's kernel modules define
their kernels with, made real only when a kernel must be compiled.

A process whose kernels are all shipped (:mod:`._shipped`) never compiles one, so it need not
import Numba. Until :func:`load` runs, ``njit``, ``intrinsic``, ``overload`` and
``register_jitable`` only record what they were asked for, ``types`` makes C signatures as text
(with Numba's own spelling, which :func:`._shipped.kernel_key` hashes), and ``carray``,
``cgutils`` and the like are placeholders. :func:`load` imports Numba, runs what asked to run
then (:func:`when_loaded`), makes every recorded definition in the order it was made, and
puts the real objects where the modules of the package hold the placeholders. Calling a
deferred function, or reading any attribute of it, loads Numba first.
"""

import importlib
import sys
import threading

_DEFERRED = []  # every definition recorded before load, in order
_WHEN_LOADED = []  # what runs once Numba is imported, before the definitions are made
_LOCK = threading.RLock()  # held by the thread that loads, until it has loaded
_loaded = False  # set once Numba is imported: later definitions are made at once
_done = threading.Event()


def loaded():
    """Whether Numba is loaded (by :func:`load`)."""
    return _done.is_set()


def load():
    """Import Numba and make every deferred definition real, once: a thread that calls this
    while another loads waits for it."""
    global _loaded
    if _done.is_set():
        return
    with _LOCK:
        if _loaded:  # done, or this thread is loading (a definition being made asked again)
            return
        from .kernels.linalg import load_lapack
        load_lapack()  # else Numba's first compilation imports all of scipy.linalg
        import numba  # noqa: F401
        from numba.extending import typeof_impl
        _loaded = True

        @typeof_impl.register(_Placeholder)
        def _typeof_placeholder(value, context):  # one held where no module global is
            return typeof_impl(value.real, context)

        from . import _numba_cache  # noqa: F401 (the cache of dlnumba's kernels)
        for callback in _WHEN_LOADED:
            callback()
        for deferred in _DEFERRED:
            deferred.real  # noqa: B018 (makes it)
        _DEFERRED.clear()
        for name, module in list(sys.modules.items()):
            if name.startswith("dlnumba.") and module is not None:
                _replace_placeholders(vars(module))
        _done.set()


def when_loaded(callback):
    """Call ``callback()`` once Numba is loaded (now, if it is)."""
    with _LOCK:
        if not _loaded:
            _WHEN_LOADED.append(callback)
            return
    callback()


def _replace_placeholders(namespace):
    for name, value in list(namespace.items()):
        if isinstance(value, (_Placeholder, _Types)):
            namespace[name] = value.real
        elif isinstance(value, (_Text, _Signature)):
            namespace[name] = value.numba()


def _unwrapped(value):
    """``value``, or the real object if it is a placeholder of this module."""
    return value.real if isinstance(value, (_Placeholder, _Types)) else value


def resolve_closure(function):
    """Put the real objects in the closure cells of ``function`` that hold placeholders, so
    that Numba sees its own objects there."""
    for cell in function.__closure__ or ():
        try:
            contents = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(contents, (_Placeholder, _Types)):
            cell.cell_contents = contents.real


class _Placeholder:
    """What stands for a Numba object until :func:`load`: ``real`` is the object."""

    def __init__(self, make):
        object.__setattr__(self, "_make", make)
        object.__setattr__(self, "_real", None)
        object.__setattr__(self, "_attributes", {})  # set before it was made

    @property
    def real(self):
        """The Numba object (Numba is loaded first)."""
        made = object.__getattribute__(self, "_real")
        if made is None:
            load()
            with _LOCK:
                made = object.__getattribute__(self, "_real")
                if made is None:
                    made = object.__getattribute__(self, "_make")()
                    for name, value in object.__getattribute__(self, "_attributes").items():
                        setattr(made, name, value)
                    object.__setattr__(self, "_real", made)
        return made

    def __call__(self, *arguments, **keywords):
        return self.real(*arguments, **keywords)

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __setattr__(self, name, value):
        made = object.__getattribute__(self, "_real")
        if made is not None:
            setattr(made, name, value)
        else:
            object.__getattribute__(self, "_attributes")[name] = value
            if name.startswith("__"):
                object.__setattr__(self, name, value)


class Deferred(_Placeholder):
    """A definition (a function decorated for Numba) made when Numba is loaded."""

    def __init__(self, make, function):
        super().__init__(make)
        object.__setattr__(self, "py_func", function)
        object.__setattr__(self, "__name__", function.__name__)
        object.__setattr__(self, "__qualname__", function.__qualname__)
        object.__setattr__(self, "__module__", function.__module__)
        object.__setattr__(self, "__doc__", function.__doc__)

    def __repr__(self):
        return f"<deferred Numba definition {self.__module__}.{self.__qualname__}>"


def defer(make, function, kind=Deferred, **attributes):
    """``make()`` now if Numba is loaded, else a placeholder (a ``kind``, with ``attributes``
    of its own) that calls it when it is. ``make`` receives nothing and returns the real
    definition of ``function``."""
    if _loaded:
        return make()
    deferred = kind(make, function)
    for name, value in attributes.items():
        object.__setattr__(deferred, name, value)
    _DEFERRED.append(deferred)
    return deferred


def _numba_attribute(module, name):
    return getattr(importlib.import_module(module), name)


def njit(*arguments, **options):
    """``numba.njit``, deferred: ``@njit``, ``@njit(**options)`` or ``njit(function,
    **options)``."""
    if arguments and callable(arguments[0]):
        return _njit(arguments[0], options)
    return lambda function: _njit(function, options)


def _njit(function, options):
    def make():
        import numba
        resolve_closure(function)
        return numba.njit(**options)(function)

    return defer(make, function)


def intrinsic(function):
    """``numba.extending.intrinsic``, deferred."""
    def make():
        from numba.extending import intrinsic as numba_intrinsic
        return numba_intrinsic(function)

    return defer(make, function)


def _register(make, function):
    """Run the registration ``make()`` now if Numba is loaded, else when it is; return
    ``function``, which stays a Python function, as Numba's registering decorators do."""
    if _loaded:
        make()
    else:
        _DEFERRED.append(Deferred(make, function))
    return function


def overload(target, **options):
    """``numba.extending.overload``, deferred: registered when Numba is loaded; returns the
    implementation, as Numba's does."""
    def register(implementation):
        def make():
            from numba.extending import overload as numba_overload
            return numba_overload(_unwrapped(target), **options)(implementation)

        return _register(make, implementation)

    return register


def register_jitable(*arguments, **options):
    """``numba.extending.register_jitable``, deferred: the function stays a Python function,
    and Numba compiles it inline where a kernel calls it."""
    def register(function):
        def make():
            from numba.extending import register_jitable as numba_register_jitable
            return (numba_register_jitable(**options)(function) if options
                    else numba_register_jitable(function))

        return _register(make, function)

    if arguments and callable(arguments[0]):
        return register(arguments[0])
    return register


class _Text:
    """A Numba type as its text, made real by :meth:`numba`."""

    def __init__(self, text, make):
        self.text, self._make = text, make

    def __str__(self):
        return self.text

    __repr__ = __str__

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.text)

    def numba(self):
        """The Numba type."""
        load()
        return self._make()

    def __call__(self, *arguments):
        return _Signature(self, arguments)


class _Signature:
    """A Numba signature as text (``(int64, int64) -> none``), made real by :meth:`numba`."""

    def __init__(self, result, arguments):
        self.result, self.args = result, tuple(arguments)

    def __str__(self):
        comma = "," if len(self.args) == 1 else ""  # a tuple's text, as Numba's
        return f"({', '.join(map(str, self.args))}{comma}) -> {self.result}"

    __repr__ = __str__

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def numba(self):
        """The Numba signature."""
        return as_numba(self.result)(*map(as_numba, self.args))


def as_numba(value):
    """The Numba type or signature that ``value`` (text or Numba's own) stands for."""
    return value.numba() if isinstance(value, (_Text, _Signature)) else value


def _numba_type(name):
    return lambda: getattr(_numba_attribute("numba.core", "types"), name)


def _pointer(of):
    return _Text(f"{of}*", lambda: _numba_attribute("numba.core", "types").CPointer(
        as_numba(of)))


# What signatures are made of before Numba is loaded, as Numba spells it.
TEXT_TYPES = {name: _Text(text, _numba_type(name)) for name, text in (
    ("void", "none"), ("intp", "int64"), ("int64", "int64"), ("int32", "int32"),
    ("uint64", "uint64"), ("uint32", "uint32"), ("uint8", "uint8"), ("boolean", "bool"),
    ("float32", "float32"), ("float64", "float64"), ("voidptr", "void*"))}
TEXT_TYPES["CPointer"] = _pointer


class _Types:
    """``numba.types``: :data:`TEXT_TYPES` until Numba is loaded, every other name from Numba
    (loading it)."""

    def __getattr__(self, name):
        if not _loaded and name in TEXT_TYPES:
            return TEXT_TYPES[name]
        return getattr(self.real, name)

    @property
    def real(self):
        """``numba.types``."""
        load()
        return _numba_attribute("numba.core", "types")


types = _Types()


class _LazyModule(_Placeholder):
    """A module of Numba's, imported on its first attribute."""

    def __init__(self, name):
        super().__init__(lambda: importlib.import_module(name))


def external_function(name, signature):
    """``numba.types.ExternalFunction(name, signature)``: a C symbol that compiled code calls,
    made when Numba is loaded."""
    return _Placeholder(lambda: _numba_attribute("numba.core.types", "ExternalFunction")(
        name, as_numba(signature)))


cgutils = _LazyModule("numba.core.cgutils")
carray = _Placeholder(lambda: _numba_attribute("numba", "carray"))
as_dtype = _Placeholder(lambda: _numba_attribute("numba.np.numpy_support", "as_dtype"))
