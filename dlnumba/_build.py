"""``python -m dlnumba build [LEVEL ... | all]``: compile dlnumba's kernels ahead of time.

For each CPU level (default: the best one this host runs, see :data:`._shipped.LEVELS`), child
processes that target that level (``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES``, an empty
``NUMBA_CACHE_DIR``) run the namespace's functions on every dtype, small arrays and large ones,
and the DLPack functions. They keep what Numba compiled for the C functions of
:func:`._shipped.c_function` (the kernels of :func:`.kernels.walk.compile_run`, the DLPack
callbacks) and for the njit functions that Python calls (:func:`.kernels.walk.entry_point`):
each one's optimized module, its C entry (or Python wrapper) renamed to its
:func:`._shipped.kernel_key`, the slots of the Numba environments it reads renamed after it,
and everything else made private, and the group of the arrays whose calls compiled it first
(:func:`_groups`). Then as many child processes each link a share of the groups and have LLVM
emit each group's object file, and this process writes the level's manifest: the level, the
objects with the kernels each holds, the environments of the njit functions and the argument
types they were called with (as :func:`._shipped.describe_call` writes them, so that a
process without Numba finds them), the symbols the objects need, the versions and the
sources' salt. A level whose manifest matches the sources and versions is left as it is.
"""

import base64
import json
import os
import pickle
import platform
import struct
import subprocess
import sys
import tempfile
import time

from ._shipped import (LEVELS, OBJECT_DIR, host_levels, manifest_problem, read_manifest,
                       source_salt, versions)

_LARGE_DTYPES = ("float64", "float32", "int64", "bool")  # their large-array kernels too
_SIZES = (6, 1 << 15)  # below and above the small-array engine's limit (2**14 elements)


def levels_to_build(names, report=print):
    """The levels ``names`` asks for: ``[]`` is the best one this host runs, ``["all"]``
    every level of its architecture that this host runs (it reports the others).

    Raises
    ------
    ValueError
        If a name is not a level of this architecture, or one this host does not run: the
        build runs the kernels it compiles.
    """
    known = {level[0]: level for level in LEVELS.get(platform.machine(), ())}
    lacking = {name: missing for name, _, _, missing in host_levels() if missing}
    runnable = [name for name in known if name not in lacking]
    if not names:
        return [known[runnable[-1]]] if runnable else []
    if names == ["all"]:
        for name, missing in lacking.items():
            report(f"{name}: not built, this CPU lacks {', '.join(missing)}")
        return [known[name] for name in runnable]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown CPU level {', '.join(unknown)}; this machine "
                         f"({platform.machine()}) has {', '.join(known) or 'none'}")
    for name in names:
        if name in lacking:
            raise ValueError(f"{name} cannot be built here: this CPU lacks "
                             f"{', '.join(lacking[name])}, and the build runs what it compiles")
    return [known[name] for name in names]


def build(names=(), jobs=None, report=print):
    """Build the objects of the levels ``names`` (see :func:`levels_to_build`)."""
    salt = source_salt()
    jobs = jobs or os.cpu_count() or 1
    for level in levels_to_build(list(names), report):
        try:
            manifest = read_manifest(level[0])
        except (OSError, ValueError):  # unreadable: built again
            manifest = None
        if manifest is not None and manifest_problem(manifest, salt, level) is None:
            report(f"{level[0]}: up to date, "
                   f"{sum(map(len, manifest['objects'].values()))} kernels")
            continue
        _build_level(level, salt, jobs, report)


def _build_level(level, salt, jobs, report):
    name, cpu, features = level
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dlnumba-build-") as work:
        env = dict(os.environ, NUMBA_CPU_NAME=cpu, NUMBA_CPU_FEATURES=_feature_string(features),
                   DLNUMBA_JIT_ONLY="1")
        # each child its own empty cache: a kernel loaded from a cache has no module to ship
        run_parts([([sys.executable, "-m", "dlnumba._build", "--part", str(k), str(jobs), work],
                    {**env, "NUMBA_CACHE_DIR": os.path.join(work, f"cache{k}")})
                   for k in range(jobs)], f"building the {name} kernels")
        _take_modules(work, jobs)
        kernels = sorted({f[:-3] for f in os.listdir(work) if f.endswith(".bc")})
        groups = _groups(work, kernels)
        entries = {}
        for key in kernels:
            if os.path.exists(os.path.join(work, f"{key}.json")):
                with open(os.path.join(work, f"{key}.json")) as file:
                    entries[key] = json.load(file)
        calls = _described_calls(work)
        shares = _shares(work, groups, jobs)
        report(f"  linking {len(kernels)} kernels into {len(groups)} objects")
        for k, share in enumerate(shares):
            _write(os.path.join(work, f"share{k}.json"), json.dumps(share).encode())
        run_parts([([sys.executable, "-m", "dlnumba._build", "--emit", str(k), work, cpu,
                     ",".join(features)], os.environ) for k in range(len(shares))],
                  f"emitting the {name} objects")
        objects = {}
        for group in sorted(groups):
            with open(os.path.join(work, f"{group}.o"), "rb") as file:
                objects[f"{name}.{group}.o"] = file.read()
    os.makedirs(OBJECT_DIR, exist_ok=True)
    # the new manifest comes last: a process that loads meanwhile finds no level, a stale
    # manifest (which it refuses before loading anything), or the whole new level
    for old in os.listdir(OBJECT_DIR):
        if old == f"{name}.json" or (old.startswith(f"{name}.") and old.endswith(".o")):
            os.remove(os.path.join(OBJECT_DIR, old))
    for object_name, data in objects.items():
        with open(os.path.join(OBJECT_DIR, object_name), "wb") as file:
            file.write(data)
    manifest = {"level": name, "cpu": cpu, "features": list(features), "salt": salt,
                "versions": versions(),
                "objects": {f"{name}.{group}.o": keys for group, keys in sorted(groups.items())},
                "entries": entries, "calls": calls,
                "undefined": sorted(set().union(*map(undefined_symbols, objects.values())))}
    with open(os.path.join(OBJECT_DIR, f"{name}.json"), "w") as file:
        json.dump(manifest, file, indent=1)
    report(f"{name}: {len(kernels)} kernels ({len(entries)} njit functions), "
           f"{sum(map(len, objects.values())) / 2**20:.1f} MiB in {len(objects)} objects, "
           f"{time.perf_counter() - start:.0f} s")


def _take_modules(work, parts):
    """Move each kernel's module, and its environments' list, from the first of the ``parts``
    that compiled it to ``work``: two parts may name its environments' slots in two orders."""
    for k in range(parts):
        folder = os.path.join(work, f"part{k}")
        for name in sorted(os.listdir(folder)):
            if name.endswith(".bc") and not os.path.exists(os.path.join(work, name)):
                for taken in (name, f"{name[:-3]}.json"):
                    if os.path.exists(os.path.join(folder, taken)):
                        os.replace(os.path.join(folder, taken), os.path.join(work, taken))


def _groups(work, kernels):
    """``{group: its kernels}``: each of ``kernels`` in the group the parts noted for it, or,
    where parts noted different groups (a kernel that dtypes share, such as the walk, a sort by
    unit or float32's linear algebra), in ``common-`` and the last name of its function's
    module: a first call loads the walk without the linear algebra."""
    noted, modules = {}, {}
    for name in os.listdir(work):
        key, _, part = name.partition(".group")
        if part:
            with open(os.path.join(work, name)) as file:
                group, modules[key] = file.read().split()
            noted.setdefault(key, set()).add(group)
    groups = {}
    for key in kernels:
        group, = noted[key] if len(noted[key]) == 1 else (
            f"common-{modules[key].rpartition('.')[2]}",)
        groups.setdefault(group, []).append(key)
    return groups


def _shares(work, groups, count):
    """The names of ``groups`` shared out into at most ``count`` lists of about the same
    bitcode size: LLVM emits each list's objects in a process of its own."""
    shares, sizes = [{} for _ in range(count)], [0] * count
    for size, group in sorted(((sum(os.path.getsize(os.path.join(work, f"{key}.bc"))
                                    for key in keys), group)
                               for group, keys in groups.items()), reverse=True):
        k = sizes.index(min(sizes))
        shares[k][group] = groups[group]
        sizes[k] += size
    return [share for share in shares if share]


def _emit_part(k, work, cpu, features):
    """Link the kernels of each group of share ``k`` (:func:`_shares`) and emit the group's
    object for ``cpu`` with ``features`` (names, comma-separated)."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    with open(os.path.join(work, f"share{k}.json")) as file:
        share = json.load(file)
    machine = _target_machine(cpu, features.split(","))
    for group, keys in share.items():
        module = llvm.parse_assembly("")
        for key in keys:
            with open(os.path.join(work, f"{key}.bc"), "rb") as file:
                module.link_in(llvm.parse_bitcode(file.read()))
        module.triple = llvm.get_process_triple()
        _write(os.path.join(work, f"{group}.o"), machine.emit_object(module))


def _described_calls(work):
    """{argument types of a call (:func:`._shipped.describe_call`): njit function's key}, from
    what the parts noted.

    Raises
    ------
    RuntimeError
        If one text describes calls of two compiled functions: the description would then
        miss a type that Numba tells apart.
    """
    calls = {}
    for name in sorted(os.listdir(work)):
        key, _, part = name.partition(".calls")
        if part:
            with open(os.path.join(work, name)) as file:
                for text in json.load(file):
                    if calls.setdefault(text, key) != key:
                        raise RuntimeError(f"{text} describes two njit functions' calls")
    return calls


def run_parts(parts, what):
    """Run the ``(command, environment)`` pairs ``parts`` at once; as soon as one fails, stop
    the others and raise RuntimeError naming ``what``."""
    children = [subprocess.Popen(command, env=env) for command, env in parts]
    while True:
        codes = [child.poll() for child in children]  # every child's, not the first running
        if None not in codes or any(codes):
            break
        time.sleep(0.2)
    if any(child.returncode for child in children):
        for child in children:
            child.kill()
            child.wait()
        raise RuntimeError(f"{what} failed (see above)")


def undefined_symbols(data):
    """The names of the symbols an ELF-64 object file uses and does not define (LLVM may add
    calls of its own, such as memset or compiler-rt's helpers, that the IR does not declare)."""
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    size, count = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + k * size)
                for k in range(count)]
    names = set()
    for _, kind, _, _, offset, length, link, _, _, entry in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + length, entry):
            name, _, _, index = struct.unpack_from("<IBBH", data, at)
            if name and index == 0:  # SHN_UNDEF
                names.add(data[strings + name:data.index(b"\0", strings + name)].decode())
    return sorted(names)


def _feature_string(features):
    """LLVM's (and ``NUMBA_CPU_FEATURES``'s) spelling of ``features``: ``+avx2,+fma``."""
    return ",".join(f"+{f}" for f in features)


def _target_machine(cpu, features):
    """The target machine Numba's JIT uses, for ``cpu`` with exactly ``features``."""
    import llvmlite.binding as llvm
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=cpu, features=_feature_string(features), opt=3,
        reloc="static" if target.name.startswith("x86") else "default",
        codemodel="jitdefault", jit=True)


def _calls(dtype, size):
    """(name, call) of the namespace's functions on a 2-D array of ``dtype`` and ``size``: every
    elementwise function (with an array, and with a Python int where the result keeps
    ``dtype``), the casts to every dtype,
    copies, reductions and products, the functions that call njit functions
    (:func:`_njit_calls`: their argument types depend on the size, such as a radix sort's
    counts for long rows), and on large arrays the sorts of one long row
    (:func:`_long_row_calls`)."""
    import dlnumba as xp
    from .shared.scalar import FUNCTIONS
    a = xp.reshape(xp.astype(xp.arange(size) % 7, dtype), (2, size // 2))
    mixed_scalar = xp.result_type(a, 1) != dtype  # bool with a Python int
    for function, row in FUNCTIONS.items():
        if row.arity == 1:
            yield function, lambda f=function: getattr(xp, f)(a)
        else:
            yield function, lambda f=function: getattr(xp, f)(a, a)
            if mixed_scalar:  # served by a cast to int64 and int64's kernel
                continue
            yield f"{function} scalar", lambda f=function: getattr(xp, f)(a, 1)
    for other in _dtype_names():
        yield f"astype {other}", lambda other=other: xp.astype(a, getattr(xp, other))
    yield "copy of a transpose", lambda: xp.asarray(xp.matrix_transpose(a), copy=True)
    for name in ("sum", "prod", "mean", "var", "max", "min", "argmax", "argmin", "any", "all",
                 "count_nonzero"):
        reduce = getattr(xp, name)
        for axis in (None, 0, 1):
            yield f"{name} axis {axis}", lambda f=reduce, axis=axis: f(a, axis=axis)
    for name in ("sum", "prod"):  # into the input's dtype: other dtypes are cast to it
        yield f"{name} dtype", lambda f=name: getattr(xp, f)(a, axis=1, dtype=a.dtype)
    yield "matmul", lambda: a @ xp.matrix_transpose(a)
    yield from _njit_calls(xp, a)
    if size > _SIZES[0]:
        yield from _long_row_calls(xp, dtype)


def _long_row_calls(xp, dtype):
    """(name, call) of sorts of one row of ``dtype`` long enough to be sorted over the engine's
    threads (:func:`.kernels.sorting.sort_row`), or in halves on two of them
    (:func:`.kernels.sorting.sort_in_halves`): values that differ in few bits (counted), in
    many (in buckets), positions (radix sorted), rows in order but for two neighbours (sorted
    by insertion; values of many bits too, which are not counted), and values with a NaN
    (written back)."""
    from .kernels.sorting import HALVES
    from .kernels.threads import PARALLEL_BYTES
    for name, size in (("long row", PARALLEL_BYTES // dtype.itemsize), ("row in halves", HALVES)):
        steps = xp.arange(size)
        few = xp.astype(steps % 7, dtype)
        many = xp.astype(steps * 2654435761 % 2147483647, dtype)
        rise = size // 100  # where the values of 100 * steps // size first rise: swapped there
        near = xp.astype(xp.where(steps == rise - 1, 1, xp.where(steps == rise, 0,
                                                                 100 * steps // size)), dtype)
        wide = xp.astype(xp.where(steps == 1, 2, xp.where(steps == 2, 1, steps)), dtype)
        yield f"sort of a {name}", lambda few=few, many=many, near=near, wide=wide: (
            xp.sort(few), xp.sort(many, descending=True), xp.argsort(many),
            xp.argsort(few, stable=False), xp.sort(near), xp.argsort(near), xp.sort(wide))
        if xp.isdtype(dtype, "real floating"):
            with_nan = xp.concat([xp.asarray([float("nan")], dtype=dtype), many[1:]])
            yield f"sort of a {name} with a NaN", lambda with_nan=with_nan: xp.sort(with_nan)


def _njit_calls(xp, a):
    """(name, call) of the namespace's functions that call njit functions (sorting, sets,
    searching, scans, indexing, triangles, linear algebra) on ``a``."""
    for name in ("sort", "argsort"):
        for descending in (False, True):
            yield f"{name} descending {descending}", lambda f=name, d=descending: (
                getattr(xp, f)(a, descending=d), getattr(xp, f)(a, axis=0, descending=d))
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
        yield name, lambda f=name: getattr(xp, f)(a)
    yield "isin", lambda: xp.isin(a, a[0, :3])
    yield "searchsorted", lambda: (xp.searchsorted(xp.sort(a[0]), a),
                                   xp.searchsorted(a[0], a, side="right",
                                                   sorter=xp.argsort(a[0])))
    yield "nonzero", lambda: xp.nonzero(a)
    mask = a != 0
    yield "where", lambda: xp.where(mask, a, a[0])
    for name in ("cumulative_sum", "cumulative_prod"):
        for axis in (0, 1):
            yield f"{name} axis {axis}", lambda f=name, axis=axis: getattr(xp, f)(a, axis=axis)
        # in the input's dtype too: other dtypes are cast to it (kernels.reduction.scan_array)
        yield f"{name} dtype", lambda f=name: getattr(xp, f)(a, axis=1, dtype=a.dtype)
    indices = xp.asarray([0, -1, 1])
    yield "take", lambda: (xp.take(a, indices, axis=1), xp.take(a[0], indices),
                           xp.take_along_axis(a, xp.stack([indices, indices]), axis=1))
    yield "mask", lambda: (a[mask], a[mask[:, 0]], xp.asarray(a, copy=True).__setitem__(
        mask, a[0, 0]))
    yield "linspace", lambda: xp.linspace(0, 1, num=5, dtype=a.dtype)
    yield "indices", lambda: (a[indices], a[:, indices], a[indices, indices],
                              xp.asarray(a, copy=True).__setitem__((0, indices), a[0, 0]))
    yield "triangles", lambda: (xp.tril(a), xp.triu(a, k=1))
    square = xp.astype(xp.eye(3) * 4 + 1, a.dtype)
    for name in ("inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals",
                 "svd", "svdvals", "qr", "pinv", "matrix_rank", "matrix_norm",
                 "vector_norm", "trace"):
        yield f"linalg.{name}", lambda f=name: getattr(xp.linalg, f)(square)
    yield "linalg.solve", lambda: xp.linalg.solve(square, square)
    yield "linalg.matrix_power", lambda: xp.linalg.matrix_power(square, 3)
    yield "linalg.cross", lambda: xp.linalg.cross(square, square)
    yield "vecdot", lambda: xp.vecdot(square, square)


def _dtype_names():
    from ._dtypes import DTYPES
    return [dtype.name for dtype in DTYPES]


def _units(parts):
    """For each of the ``parts``, its list of (dtype name, array sizes). A dtype's small arrays
    and then its large ones run in one process, which compiles the kernels both use only once,
    into the small arrays' group (a first call on small arrays loads only that group's object);
    the dtypes are shared out so that the parts take about as long (a dtype with large arrays
    as long as about four without)."""
    dtypes = sorted(_dtype_names(), key=lambda name: name not in _LARGE_DTYPES)
    units, loads = [[] for _ in range(parts)], [0] * parts
    for name in dtypes:
        k = loads.index(min(loads))
        large = name in _LARGE_DTYPES
        units[k].append((name, _SIZES if large else _SIZES[:1]))
        loads[k] += 4 if large else 1
    return units


def _build_part(part, parts, work):
    """Child ``part`` of ``parts``: compile the kernels of its share of the dtypes, write each
    one's module to a folder of its own in ``work`` (see :func:`_take_modules`), and note in
    ``work`` the group of the arrays whose calls compiled it first (``dlpack``, a dtype's name,
    or its name and ``-large``) and its function's module."""
    from . import _capi, _shipped
    from ._shipped import COMPILED, kernel_key
    from .kernels import walk
    import dlnumba as xp
    _shipped.DESCRIBED = {}
    groups = {}
    if part == 0:  # the DLPack callbacks and the import and export functions
        for name in _capi.ENTRY_POINTS:
            getattr(_capi, name)
        _note_group(groups, "dlpack")
    start = time.perf_counter()
    for name, sizes in _units(parts)[part]:
        for size in sizes:
            for _, call in _calls(getattr(xp, name), size):
                try:
                    call()
                except (TypeError, ValueError):
                    continue  # a function that does not take this dtype
            large = size > _SIZES[0]
            _note_group(groups, f"{name}-large" if large else name)
            print(f"  {name} ({'large' if large else 'small'} arrays): "
                  f"{len(COMPILED)} kernels compiled by part {part} in "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    own = os.path.join(work, f"part{part}")
    os.makedirs(own)
    for compiled in COMPILED:
        key = kernel_key(compiled._pyfunc, compiled._sig)
        if key is not None:
            _write_kernel(compiled._library, compiled.native_name, key, compiled._pyfunc, own)
            _write(os.path.join(work, f"{key}.group{part}"),
                   f"{groups[key]} {compiled._pyfunc.__module__}".encode())
    for dispatcher in walk.ENTRY_POINTS:
        for signature, compiled in dispatcher.overloads.items():
            key = kernel_key(dispatcher.py_func, signature)
            environments = _write_kernel(
                compiled.library, compiled.fndesc.llvm_cpython_wrapper_name, key,
                dispatcher.py_func, own, compiled.fndesc.env_name)
            _write(os.path.join(own, f"{key}.json"), json.dumps(environments).encode())
            _write(os.path.join(work, f"{key}.calls{part}"), json.dumps(
                sorted(_shipped.DESCRIBED.get(key, ()))).encode())
            _write(os.path.join(work, f"{key}.group{part}"),
                   f"{groups[key]} {dispatcher.py_func.__module__}".encode())


def _note_group(groups, group):
    """Put every kernel this process has compiled and ``groups`` has not yet in ``group``."""
    from ._shipped import COMPILED, kernel_key
    from .kernels import walk
    for compiled in COMPILED:
        groups.setdefault(kernel_key(compiled._pyfunc, compiled._sig), group)
    for dispatcher in walk.ENTRY_POINTS:
        for signature in dispatcher.overloads:
            groups.setdefault(kernel_key(dispatcher.py_func, signature), group)


def _write_kernel(library, entry, key, function, work, environment=None):
    """Write the optimized module of ``library`` to ``work`` as ``key``'s: its function
    ``entry`` named ``key``, everything else private, except, for a Python wrapper whose own
    environment is ``environment``, the slots of the environments it reads. Those are named
    after ``key``: return ``[slot, module, consts]`` for each, the wrapper's own first."""
    import llvmlite.binding as llvm
    from numba.core.environment import lookup_environment
    module = llvm.parse_bitcode(library._final_module.as_bitcode())
    slots = [] if environment is None else sorted(
        (v for v in module.global_variables
         if v.name.startswith("_ZN08NumbaEnv") and not v.is_declaration),
        key=lambda v: v.name != environment)  # the wrapper's own first
    environments = []
    for k, slot in enumerate(slots):
        found = lookup_environment(slot.name)
        name = found and found.globals.get("__name__")
        if name in sys.modules:  # else the slot stays empty: its globals cannot be found again
            slot.name = f"{key}_env{k}"
            consts = base64.b64encode(pickle.dumps(list(found.consts))).decode() \
                if found.consts else None
            environments.append([slot.name, name, consts])
        elif slot.name == environment:
            raise RuntimeError(f"{function.__qualname__} has no environment to ship")
    for value in (*module.functions, *module.global_variables):
        if value.is_declaration or value.name.startswith(f"{key}_env"):
            continue
        if value.name == entry:
            value.name = key
        else:
            value.linkage = llvm.Linkage.private  # not in the object's symbols: loads faster
    if key not in {f.name for f in module.functions if not f.is_declaration}:
        raise RuntimeError(f"{function.__qualname__} has no code to ship")
    _write(os.path.join(work, f"{key}.bc"), module.as_bitcode())
    return environments


def _write(path, data):
    """Write ``data`` to ``path`` at once."""
    with open(f"{path}.{os.getpid()}", "wb") as file:
        file.write(data)
    os.replace(f"{path}.{os.getpid()}", path)


if __name__ == "__main__" and sys.argv[1:2] == ["--part"]:
    _build_part(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
elif __name__ == "__main__" and sys.argv[1:2] == ["--emit"]:
    _emit_part(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
