"""Kernels compiled ahead of time: the object files of the best CPU level this host runs.

``python -m dlnumba build`` (:mod:`._build`) has Numba compile dlnumba's kernels once per CPU
level, into object files with a JSON manifest beside them: the C-level ones that
:func:`.kernels.walk.compile_run` makes, and the njit functions that Python calls
(:func:`.kernels.walk.entry_point`), each with the wrapper through which Python calls it. The
kernels of a level come in objects by group: those a dtype's small arrays need, its large
arrays, the DLPack functions, and, by kernel module, those several dtypes share. A process
picks the best level whose features its CPU has, and loads each of its objects with llvmlite's
MCJIT when it first needs a kernel of it; it takes each kernel from there instead of compiling
it: a C kernel's address, or an njit function's wrapper made callable, for its argument types.
None of this imports Numba (:mod:`._numba`): Numba's C helpers are loaded from their extension
modules alone, and before Numba is loaded an njit function's call finds its wrapper by the text
of its argument types (:func:`describe_call`), which the build noted. A kernel no object holds,
an object that is missing or stale (another salt, Numba, llvmlite or Python), a symbol that
nothing provides, or ``DLNUMBA_JIT_ONLY=1`` in the environment leave the kernels to the JIT:
never a crash. ``python -m dlnumba info`` says which level is loaded, or why none is.
"""

import base64
import ctypes
import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import pickle
import platform
import sys
import threading

import numpy as np

OBJECT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_objects")
# The sources whose code the objects hold, and the build that makes them.
_SOURCES = ("_capi.py", "_build.py", "kernels", "shared")

# CPU levels by architecture, lowest first: (name, LLVM CPU name, LLVM features), the x86-64
# ones as the psABI defines them. The features are given in full: a CPU name alone would keep
# the build host's own (AVX-512 on an AVX-512 build host).
_X86_V2 = ("cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3")
_X86_V3 = _X86_V2 + ("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_X86_V4 = _X86_V3 + ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
LEVELS = {
    "x86_64": (("x86-64-v2", "x86-64-v2", _X86_V2), ("x86-64-v3", "x86-64-v3", _X86_V3),
               ("x86-64-v4", "x86-64-v4", _X86_V4)),
    "aarch64": (("armv8-a", "generic", ("neon",)),),
}
_PLAIN_TYPES = (bool, int, float, str, bytes, type(None))


@functools.cache
def source_salt():
    """A hash of the package version and of every source file whose code is compiled."""
    from ._version import __version__
    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256(__version__.encode())
    for name in _SOURCES:
        path = os.path.join(package, name)
        files = [path] if path.endswith(".py") else sorted(
            os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
        for file in files:
            with open(file, "rb") as source:
                digest.update(source.read())
    return digest.hexdigest()


def versions():
    """What an object is tied to: Numba's and llvmlite's versions and the Python ABI (read from
    the packages' own version modules: importing ``importlib.metadata`` takes longer than
    loading an object)."""
    import llvmlite
    return {"numba": import_alone("numba._version").get_versions()["version"],
            "llvmlite": llvmlite.__version__, "python": sys.implementation.cache_tag,
            "machine": platform.machine()}


def kernel_key(function, signature):
    """The name a kernel is shipped under: the function's module, qualified name and bytecode,
    its C signature and the values of its closure, hashed; None when a closure value has no stable
    text (only dtypes and plain values do)."""
    cells = tuple(cell.cell_contents for cell in function.__closure__ or ())
    if not all(isinstance(v, (*_PLAIN_TYPES, np.dtype)) for v in cells):
        return None
    text = f"{function.__module__}.{function.__qualname__}|{signature}|{cells!r}"
    digest = hashlib.sha256(text.encode())
    digest.update(function.__code__.co_code)
    return "dlnumba_" + digest.hexdigest()[:32]


def host_levels(features=None, machine=None):
    """The levels of this architecture, best first, each with the features it needs that the
    host lacks (``features``: the host's, as ``llvmlite.binding.get_host_cpu_features``)."""
    if features is None:
        import llvmlite.binding as llvm
        features = {name for name, on in llvm.get_host_cpu_features().items() if on}
    levels = LEVELS.get(machine or platform.machine(), ())
    return [(name, cpu, required, [f for f in required if f not in features])
            for name, cpu, required in reversed(levels)]


class _Shipped:
    """The chosen level: its ``kernels`` (key: the object that holds it), the objects loaded
    so far, and what was decided."""

    def __init__(self):
        self.level, self.kernels, self.reasons, self._engine = None, {}, [], None
        self._loaded = set()  # the objects loaded so far, of those ``kernels`` names
        self.entries, self._made = {}, {}  # the njit functions' environments; those made
        self._inserted = set()  # the keys of those in their dispatchers' tables
        self.calls = {}  # "function|argument types" (describe_call) -> njit function's key
        self.runs = {}  # "function|argument types" -> the builtin made for it

    def load(self, salt, features=None):
        """Load the best level's object that passes every check; note why others did not."""
        if os.environ.get("DLNUMBA_JIT_ONLY", "0") not in ("", "0"):
            self.reasons.append("DLNUMBA_JIT_ONLY is set: every kernel is compiled")
            return
        for name, cpu, required, missing in host_levels(features):
            if missing:
                self.reasons.append(f"{name}: the CPU lacks {', '.join(missing)}")
                continue
            try:
                problem = self._try((name, cpu, required), salt)
            except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
                problem = f"unreadable ({type(error).__name__}: {error})"
            if problem is None:
                self.level = name
                return
            self.reasons.append(f"{name}: {problem}")
        if not self.reasons:
            self.reasons.append(f"no CPU level is defined for {platform.machine()}")

    def _try(self, level, salt):
        name = level[0]
        manifest = read_manifest(name)
        if manifest is None:
            return f"not built (python -m dlnumba build; {OBJECT_DIR})"
        problem = manifest_problem(manifest, salt, level)
        if problem is not None:
            return problem
        from ._native import new_engine
        engine = new_engine()  # first: it makes the process's own symbols known
        missing = provide_symbols(manifest["undefined"])
        if missing:
            return f"nothing provides the symbols {', '.join(missing[:5])}"
        self.kernels = {key: object_name for object_name, keys in manifest["objects"].items()
                        for key in keys}
        self.entries, self.calls = manifest.get("entries", {}), manifest.get("calls", {})
        self._engine = engine
        return None

    def address(self, key):
        """The address of the shipped kernel ``key`` (its object loaded first), or None."""
        object_name = self.kernels.get(key)
        if object_name is None:
            return None
        if object_name not in self._loaded:
            with _OBJECTS:
                if object_name not in self._loaded:
                    import llvmlite.binding as llvm
                    with open(os.path.join(OBJECT_DIR, object_name), "rb") as file:
                        self._engine.add_object_file(llvm.ObjectFileRef.from_data(file.read()))
                    self._engine.finalize_object()
                    self._loaded.add(object_name)
        return self._engine.get_function_address(key)

    def entry(self, key, dispatcher, signature):
        """The njit function shipped as ``key``, as a builtin over its wrapper, in
        ``dispatcher``'s table for the Numba types ``signature``."""
        made = self.builtin(key, dispatcher.py_func)
        with _LOADING:
            if key not in self._inserted:
                self._inserted.add(key)
                dispatcher._insert([t._code for t in signature], made, False)
        return made

    def builtin(self, key, function):
        """The njit function ``function`` shipped as ``key``, as a builtin over its wrapper
        (made once, without Numba)."""
        with _LOADING:
            made = self._made.get(key)
            if made is None:
                made = self._made[key] = self._make(key, function)
        return made

    def _make(self, key, function):
        dynfunc = import_alone("numba._dynfunc")
        wrapper = self.address(key)  # its object loaded: the environments' slots are there
        environments = []
        for name, module, consts in self.entries[key]:  # the function's own first
            # nopython code reads only its environment's consts (the globals serve Numba's
            # object mode): the module, often one of Numba's own, need not be imported
            environment = dynfunc.Environment({"__name__": module})
            if consts:
                environment.consts[:] = pickle.loads(base64.b64decode(consts))
            address = self._engine.get_global_value_address(name)
            ctypes.c_void_p.from_address(address).value = id(environment)
            environments.append(environment)
        return dynfunc.make_function(sys.modules[function.__module__], function.__name__,
                                      f"shipped {function.__qualname__}", wrapper,
                                      environments[0], (self, environments))


def read_manifest(level):
    """The manifest of ``level``'s objects, or None when it or an object it names is missing.

    Raises
    ------
    ValueError
        If the manifest is not a JSON object, or names no objects and their kernels.
    """
    path = os.path.join(OBJECT_DIR, f"{level}.json")
    if not os.path.exists(path):
        return None
    with open(path) as file:
        manifest = json.load(file)
    if not isinstance(manifest, dict):
        raise ValueError(f"{path} holds a JSON {type(manifest).__name__}, not an object")
    objects = manifest.get("objects")
    if not isinstance(objects, dict) or not objects or not all(
            isinstance(keys, list) for keys in objects.values()):
        raise ValueError(f"{path} names no objects and their kernels")
    if not all(os.path.exists(os.path.join(OBJECT_DIR, name)) for name in objects):
        return None
    return manifest


def manifest_problem(manifest, salt, level):
    """Why an object with ``manifest`` must not be loaded here as ``level`` (a row of
    :data:`LEVELS`), or None."""
    if manifest.get("salt") != salt:
        return "built from other sources (stale: python -m dlnumba build)"
    built = manifest.get("versions", {})
    for name, value in versions().items():
        if built.get(name) != value:
            return f"built for {name} {built.get(name)}, this is {value}"
    name, cpu, features = level
    if (manifest.get("level"), manifest.get("cpu"), manifest.get("features")) != (
            name, cpu, list(features)):
        return (f"built for {manifest.get('level')} ({manifest.get('cpu')}: "
                f"{', '.join(manifest.get('features', []))})")
    return None


def provide_symbols(names):
    """Make Numba's C helpers (``numba_*``, ``NRT_*``) that ``names`` need known to the JIT
    linker, and bind the C math functions to Numba's, as Numba does before it compiles
    (``numba.core.externals``): the libm that Python loaded, so that shipped and JIT-compiled
    kernels give the same bits, NaN signs included. Return the names that nothing provides,
    which MCJIT would leave as jumps to 0."""
    import llvmlite.binding as llvm
    helpers = import_alone("numba._helperlib").c_helpers
    missing = []
    for name in names:
        if name in helpers:  # a C math function
            llvm.add_symbol(name, helpers[name])
            continue
        if llvm.address_of_symbol(name):
            continue
        address = _helper_address(name)
        if address:
            llvm.add_symbol(name, address)
        else:
            missing.append(name)
    return missing


def _helper_address(name):
    if name.startswith("numba_"):
        return import_alone("numba._helperlib").c_helpers.get(name[len("numba_"):])
    if name.startswith("NRT_"):
        return _runtime().c_helpers.get(name[len("NRT_"):])
    return None


@functools.cache
def _runtime():
    """Numba's runtime (NRT), set to allocate as ``numba.core.runtime.nrt`` sets it on import."""
    runtime = import_alone("numba.core.runtime._nrt_python")
    runtime.memsys_use_cpython_allocator()
    return runtime


_IMPORTING = threading.RLock()


def import_alone(name):
    """The module ``name`` (an extension such as ``numba._helperlib``), imported from its file
    without the packages above it, whose own imports can take far longer; registered under its
    name, so that a later import of those packages finds it.

    Raises
    ------
    ImportError
        If there is no such module.
    """
    with _IMPORTING:
        if name in sys.modules:
            return sys.modules[name]
        top, _, rest = name.partition(".")
        package = importlib.util.find_spec(top)
        folders = rest.split(".")[:-1]
        found = package and package.submodule_search_locations and (
            importlib.machinery.PathFinder.find_spec(name, [
                os.path.join(path, *folders) for path in package.submodule_search_locations]))
        if not found:
            raise ImportError(f"no module {name}", name=name)
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        sys.modules[name] = module
        return module


_SHIPPED = None
_LOADING = threading.Lock()
_OBJECTS = threading.Lock()  # apart from _LOADING, which is held while a kernel's object loads


def shipped():
    """The loaded object (loaded on the first call)."""
    global _SHIPPED
    if _SHIPPED is None:
        with _LOADING:
            if _SHIPPED is None:
                loaded = _Shipped()
                loaded.load(source_salt())
                _SHIPPED = loaded
    return _SHIPPED


def preload():
    """Start choosing the level (:func:`shipped`) on a thread of its own: the rest of ``import
    dlnumba`` runs meanwhile. A fork, and the interpreter's exit (not a daemon), wait for it to
    finish."""
    loader = threading.Thread(target=shipped, name="dlnumba shipped kernels")
    loader.start()
    if hasattr(os, "register_at_fork"):  # POSIX: a child never inherits a load half done
        os.register_at_fork(before=loader.join)
        os.register_at_fork(before=_OBJECTS.acquire, after_in_parent=_OBJECTS.release,
                            after_in_child=_OBJECTS.release)


def shipped_address(function, signature):
    """The address of the shipped kernel ``function`` of C ``signature``, or None."""
    loaded = shipped()
    return loaded.address(kernel_key(function, signature)) if loaded.kernels else None


COMPILED = []  # every C function this process compiled: callers keep only its address


def c_function(function, signature, **options):
    """The address of ``function`` as a C function of ``signature``: the shipped kernel, or
    compiled by Numba (``cfunc(signature, cache=True, **options)``, loaded from its cache if
    there) and kept as long as the process."""
    address = shipped_address(function, signature)
    if address:
        return address
    from ._numba import as_numba, load, resolve_closure
    load()
    from numba import cfunc
    resolve_closure(function)
    compiled = cfunc(as_numba(signature), cache=True, **options)(function)
    COMPILED.append(compiled)
    return compiled.address


def shipped_entry(dispatcher, signature):
    """The shipped compiled function of the njit function ``dispatcher`` for the Numba types
    ``signature``, put in the dispatcher's table so that its later calls with those types run
    it; or None."""
    loaded = shipped()
    key = kernel_key(dispatcher.py_func, signature) if loaded.entries else None
    return loaded.entry(key, dispatcher, signature) if key in loaded.entries else None


def shipped_call(function, arguments, prepare):
    """The shipped compiled function that the njit function ``function`` (its Python
    function) runs for ``arguments``, made without Numba, with ``prepare()`` run first; or
    None."""
    loaded = shipped()
    if not loaded.calls:
        return None
    text = describe_call(function, arguments)
    run = loaded.runs.get(text)
    if run is None:
        key = loaded.calls.get(text) if text else None
        if key is None:
            return None
        prepare()
        run = loaded.runs[text] = loaded.builtin(key, function)
    return run


def ships_call(function, arguments):
    """Whether the shipped object holds the compiled function that the njit function
    ``function`` (its Python function) runs for ``arguments``."""
    text = describe_call(function, arguments)
    return text is not None and text in shipped().calls


def describe_call(function, arguments):
    """``"module.function|types"``: the Numba types that ``numba.typeof`` gives
    ``arguments`` of the kinds dlnumba's njit functions take, as text; None for another kind."""
    try:
        types = [_DESCRIBERS[type(argument)](argument) for argument in arguments]
    except KeyError:
        types = [describe(argument) for argument in arguments]
    return None if None in types else (
        f"{function.__module__}.{function.__qualname__}|{', '.join(types)}")


def describe(value):
    """The Numba type of ``value`` as ``numba.typeof`` makes it, as text; None for a kind of
    value that dlnumba's njit functions do not take."""
    describer = _DESCRIBERS.get(type(value))
    if describer is None:
        if isinstance(value, np.dtype):
            describer = _DESCRIBERS[type(value)] = _describe_dtype
        elif isinstance(value, np.generic):
            describer = _DESCRIBERS[type(value)] = _describe_scalar
        else:
            return None
    return describer(value)


def _describe_array(value):
    key = (value.dtype, value.ndim, value.flags.num & _LAYOUT_FLAGS)
    text = _TEXTS.get(key)
    if text is None:
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        text = _TEXTS[key] = f"array({value.dtype!r}, {value.ndim}, {layout}, {flags.writeable})"
    return text


def _describe_int(value):  # as Numba's typeof: int64, or uint64 where only that holds it
    bits = value.bit_length()
    return "int64" if bits < 64 else "uint64" if bits == 64 and value > 0 else None


def _describe_tuple(value):
    items = [describe(item) for item in value]
    return None if None in items else f"({', '.join(items)},)"


def _describe_dtype(value):
    text = _TEXTS.get(value)
    if text is None:
        text = _TEXTS[value] = f"dtype({value!r})"  # NumPy writes a dtype in Python: slow
    return text


def _describe_scalar(value):  # typed as its dtype, as a Python bool, int or float
    key = ("scalar", value.dtype)
    text = _TEXTS.get(key)
    if text is None:
        text = _TEXTS[key] = value.dtype.name if value.dtype.kind in "biufc" else ""
    return text or None


_LAYOUT_FLAGS = 0x1 | 0x2 | 0x400  # NPY_ARRAY_C_CONTIGUOUS, _F_CONTIGUOUS, _WRITEABLE
_TEXTS = {}
_DESCRIBERS = {np.ndarray: _describe_array, int: _describe_int, bool: lambda value: "bool",
               float: lambda value: "float64", complex: lambda value: "complex128",
               type(None): lambda value: "none", tuple: _describe_tuple}
DESCRIBED = None  # while the build runs: njit function's key -> describe_call texts


def note_call(function, signature, arguments):
    """While the build runs, note that ``arguments`` of ``function`` have the Numba types
    ``signature``."""
    if DESCRIBED is not None:
        key, text = kernel_key(function, signature), describe_call(function, arguments)
        if key is not None and text is not None:
            DESCRIBED.setdefault(key, set()).add(text)


def info():
    """Lines that say which level is loaded and why the better ones are not."""
    loaded = shipped()
    head = (f"shipped kernels: {loaded.level}, {len(loaded.kernels)} kernels in "
            f"{len(set(loaded.kernels.values()))} objects in {OBJECT_DIR}" if loaded.level
            else "shipped kernels: none loaded (JIT only)")
    return [head, *(f"  {reason}" for reason in loaded.reasons)]
