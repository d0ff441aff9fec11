"""Shipped kernels (dlnumba._shipped, built by ``python -m dlnumba build``): a process loads the
object of the best CPU level its host runs and compiles none of the kernels it holds; a level the
host cannot run, a stale manifest or a symbol nothing provides is refused before anything is
loaded; and the shipped kernels give the bits the JIT's give. ``make test`` builds the objects
first; without them the tests that need them fail, naming the command that builds them."""

import json
import os
import platform
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from dlnumba import _shipped
from helpers import built_level, run_python

X86 = platform.machine() == "x86_64"
V3 = set(_shipped.LEVELS["x86_64"][1][2])


@pytest.mark.skipif(not X86, reason="the x86-64 levels")
def test_a_level_whose_features_the_host_lacks_is_never_loaded():
    levels = _shipped.host_levels(features=V3 - {"avx2"}, machine="x86_64")
    assert [(name, missing) for name, _, _, missing in levels] == [
        ("x86-64-v4", ["avx2", "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]),
        ("x86-64-v3", ["avx2"]), ("x86-64-v2", [])]
    loaded = _shipped._Shipped()
    loaded.load(_shipped.source_salt(), features=V3 - {"avx2"})
    assert loaded.level in (None, "x86-64-v2")
    assert "x86-64-v3: the CPU lacks avx2" in loaded.reasons


def _level_row(name):
    return next(row for row in _shipped.LEVELS[platform.machine()] if row[0] == name)


def test_a_manifest_of_other_sources_versions_or_features_is_refused():
    level = _level_row(built_level())
    manifest = _shipped.read_manifest(level[0])
    salt = _shipped.source_salt()
    assert _shipped.manifest_problem(manifest, salt, level) is None
    assert "stale" in _shipped.manifest_problem({**manifest, "salt": "0" * 64}, salt, level)
    other = {**manifest, "versions": {**manifest["versions"], "numba": "0.1.0"}}
    assert "built for numba 0.1.0" in _shipped.manifest_problem(other, salt, level)
    fewer = {**manifest, "features": manifest["features"][:-1]}
    assert _shipped.manifest_problem(fewer, salt, level).startswith(f"built for {level[0]} (")


def _copy_level(level, to):
    """Copy ``level``'s manifest and the objects it names to the folder ``to``."""
    for name in (f"{level}.json", *_shipped.read_manifest(level)["objects"]):
        shutil.copy(os.path.join(_shipped.OBJECT_DIR, name), to)


def test_an_object_needing_an_unknown_symbol_is_refused_before_loading(tmp_path, monkeypatch):
    level = built_level()
    _copy_level(level, tmp_path)
    manifest = json.loads((tmp_path / f"{level}.json").read_text())
    manifest["undefined"].append("dlnumba_no_such_symbol")
    (tmp_path / f"{level}.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(_shipped, "OBJECT_DIR", str(tmp_path))
    assert _shipped._Shipped()._try(_level_row(level), _shipped.source_salt()) == (
        "nothing provides the symbols dlnumba_no_such_symbol")


def test_a_level_missing_one_of_its_objects_is_not_loaded(tmp_path, monkeypatch):
    level = built_level()
    _copy_level(level, tmp_path)
    monkeypatch.setattr(_shipped, "OBJECT_DIR", str(tmp_path))
    (tmp_path / sorted(_shipped.read_manifest(level)["objects"])[-1]).unlink()
    assert _shipped._Shipped()._try(_level_row(level), _shipped.source_salt()).startswith(
        "not built (python -m dlnumba build")


def test_an_unreadable_manifest_leaves_the_kernels_to_the_jit(tmp_path, monkeypatch):
    level = built_level()
    _copy_level(level, tmp_path)
    (tmp_path / f"{level}.json").write_text("{not json")
    monkeypatch.setattr(_shipped, "OBJECT_DIR", str(tmp_path))
    loaded = _shipped._Shipped()
    loaded.load(_shipped.source_salt())
    assert loaded.level != level and not loaded.kernels
    assert any(reason.startswith(f"{level}: unreadable (JSONDecodeError") for reason in
               loaded.reasons)
    (tmp_path / f"{level}.json").write_text("[]")
    loaded = _shipped._Shipped()
    loaded.load(_shipped.source_salt())
    assert loaded.level != level and not loaded.kernels
    assert any(reason.startswith(f"{level}: unreadable (ValueError") for reason in
               loaded.reasons)
    (tmp_path / f"{level}.json").write_text('{"objects": []}')
    loaded = _shipped._Shipped()
    loaded.load(_shipped.source_salt())
    assert f"{level}: unreadable (ValueError: {tmp_path / level}.json names no objects and " \
        "their kernels)" in loaded.reasons


def test_jit_only_loads_nothing():
    out = run_python("from dlnumba import _shipped; print(_shipped.shipped().level)",
               DLNUMBA_JIT_ONLY="1")
    assert out.strip() == "None"


_FORK = """
import os
import dlnumba as xp
pid = os.fork()  # while the level may still be chosen on its thread
if pid == 0:
    print(int(xp.sum(xp.ones(5))), flush=True)
    os._exit(0)
print(int(xp.sum(xp.ones(3))), os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


def test_the_level_is_chosen_on_a_thread_that_a_fork_and_the_exit_wait_for():
    built_level()
    lines = run_python(_FORK).split()
    assert sorted(lines) == ["0", "3", "5"]
    assert run_python("import dlnumba") == ""


_GROUPS = """
import dlnumba as xp
from dlnumba import _shipped
xp.sum(xp.ones((2, 3), dtype=xp.float32) + 1)
first = sorted(_shipped.shipped()._loaded)
xp.sum(xp.ones((2, 3), dtype=xp.int16) * 3, axis=0)
print(" ".join(first), "|", " ".join(sorted(_shipped.shipped()._loaded)))
"""


def test_a_process_loads_only_the_objects_of_the_kernels_it_uses():
    """The objects come by group: small float32 arrays' first calls load their group's object
    (and the common ones they need), not int16's nor any dtype's large arrays."""
    level = built_level()
    objects = _shipped.read_manifest(level)["objects"]
    assert {f"{level}.float32.o", f"{level}.int16.o", f"{level}.float32-large.o"} <= set(objects)
    first, then = (part.split() for part in run_python(_GROUPS).split("|"))
    assert f"{level}.float32.o" in first and f"{level}.int16.o" not in first
    assert f"{level}.int16.o" in then and set(first) < set(then) < set(objects)
    assert not any(name.endswith("-large.o") for name in then)


def test_info_names_the_level():
    result = subprocess.run([sys.executable, "-m", "dlnumba", "info"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0
    assert result.stdout.startswith(f"shipped kernels: {built_level()}, ")


_FIRST_CALLS = """
import numpy as np
import dlnumba as xp
from dlnumba import _shipped
from dlnumba.kernels import walk
np.from_dlpack(xp.ones(3)), xp.from_dlpack(np.ones(3)), xp.to_dlpack(xp.ones(3))
for dtype in (xp.float32, xp.float64, xp.int64):
    x = xp.reshape(xp.astype(xp.arange(12), dtype), (3, 4))
    x + 1, x * x, xp.exp(x), xp.sum(x), xp.sum(x, axis=0), xp.mean(xp.astype(x, xp.float64))
    xp.argmax(x), xp.max(x, axis=1), xp.astype(x, xp.float32), x[x > 3], x @ x.mT
    xp.asarray(x.mT, copy=True), xp.sqrt(xp.abs(x)), xp.where(x > 1, x, x)
    xp.sort(x), xp.argsort(x, descending=True), xp.unique_all(x), xp.cumulative_sum(x, axis=1)
    xp.nonzero(x), xp.take(x, xp.asarray([0, 2]), axis=1), x[xp.asarray([2, 0])]
    xp.searchsorted(x[0], x), xp.tril(x)
    if dtype != xp.int64:
        xp.linalg.inv(xp.eye(3, dtype=dtype) * 4 + 1), xp.linalg.det(x[:, :3])
    medium = xp.astype(xp.arange(1000) % 13, dtype)  # rows long enough for a radix sort
    xp.sort(medium), xp.argsort(medium), xp.unique_values(medium), xp.unique_all(medium)
    row = xp.astype(xp.arange(1 << 19) * 7919 % 65521, dtype)  # sorted over the threads
    xp.sort(row), xp.argsort(row), xp.sort(row % 5)
    xp.sort(row[:1 << 15]), xp.argsort(row[:1 << 15])  # sorted in halves
print(len(_shipped.COMPILED), sum(len(d.overloads) for d in walk.ENTRY_POINTS))
import sys
print("scipy.linalg" in sys.modules)
"""


def test_first_calls_compile_no_shipped_kernel(tmp_path):
    """A new process on an empty Numba cache compiles neither a C kernel nor an njit function
    for these calls, and its BLAS and LAPACK calls import no more of SciPy than they need."""
    built_level()
    assert run_python(_FIRST_CALLS, NUMBA_CACHE_DIR=str(tmp_path)).split() == ["0", "0", "False"]


_RESULTS = """
import sys
import numpy as np
import dlnumba as xp
from dlnumba._build import _LARGE_DTYPES
rng = np.random.default_rng(7)
values = {}
for name in ("float32", "float64", "int64", "int8", "uint16", "bool", "complex64"):
    # large arrays of the other dtypes are the JIT's in both processes
    for size in (37, 1 << 15) if name in _LARGE_DTYPES else (37,):
        a = xp.asarray(rng.normal(0, 100, size).astype(name) if name != "bool"
                       else rng.random(size) < 0.5)
        if name.startswith("float"):
            a[3] = float("nan")
        b = xp.flip(a)
        calls = [("add", lambda: a + b), ("multiply", lambda: a * b),
                 ("exp", lambda: xp.exp(a)), ("sqrt", lambda: xp.sqrt(a)),
                 ("sum", lambda: xp.sum(a)), ("max", lambda: xp.max(a)),
                 ("argmax", lambda: xp.argmax(a)), ("mean", lambda: xp.mean(a)),
                 ("float32", lambda: xp.astype(a, xp.float32)), ("greater", lambda: a > b),
                 ("sort", lambda: xp.sort(a)),
                 ("argsort", lambda: xp.argsort(a, descending=True)),
                 ("unique", lambda: xp.unique_counts(a)[1]),
                 ("cumulative_sum", lambda: xp.cumulative_sum(a)),
                 ("where", lambda: xp.where(a > b, a, b)), ("mask", lambda: a[a > b]),
                 ("take", lambda: xp.take(a, xp.argsort(b))),
                 ("searchsorted", lambda: xp.searchsorted(xp.sort(a), b))]
        if name in ("float32", "float64", "complex64"):
            square = xp.reshape(a[4:13], (3, 3)) + xp.eye(3, dtype=a.dtype) * 400
            calls += [("inv", lambda: xp.linalg.inv(square)),
                      ("eigvalsh", lambda: xp.linalg.eigvalsh(square))]
        for label, call in calls:
            try:
                values[f"{name}-{size}-{label}"] = np.asarray(call())
            except TypeError:
                pass
# mixed dtypes: shipped, cast to the computation dtype first; the JIT compiles them fused
small = {name: xp.asarray(rng.normal(0, 100, (3, 37)).astype(name))
         for name in ("int8", "uint8", "int16", "uint32", "float32", "float64")}
large = {name: xp.asarray(rng.normal(0, 100, (4, 1 << 13)).astype(name))
         for name in ("float32", "float64", "int64")}
for label, (x, y) in {"int8-uint8": (small["int8"], small["uint8"]),
                      "int16-uint8": (small["int16"], small["uint8"][:1, ::-1]),
                      "float32-float64": (small["float32"], small["float64"][:, 5:6]),
                      "large-float32-float64": (large["float32"], large["float64"][::-1])
                      }.items():
    for name in ("add", "multiply", "less", "maximum", "atan2", "pow"):
        try:
            values[f"{label}-{name}"] = np.asarray(getattr(xp, name)(x, y))
        except TypeError:  # atan2 of integers
            pass
for label, (x, y) in {"int16-uint8": (small["int16"], small["uint8"][:1, ::-1]),
                      "float64-float32": (large["float64"][::-1], large["float32"])}.items():
    inplace = xp.asarray(x, copy=True)
    inplace *= y
    values[f"{label}-imul"] = np.asarray(inplace)
for name in ("int8", "uint32", "float32"):
    x = small[name]
    values[f"{name}-cumsum-int16"] = np.asarray(xp.cumulative_sum(x, axis=1, dtype=xp.int16))
    values[f"{name}-cumprod-float64"] = np.asarray(xp.cumulative_prod(x, axis=0,
                                                                      dtype=xp.float64))
    values[f"{name}-sum-int16"] = np.asarray(xp.sum(x, axis=1, dtype=xp.int16))
    values[f"{name}-sum-float64"] = np.asarray(xp.sum(x, axis=0, dtype=xp.float64))
    if name != "float32":  # a float outside uint8's range has no defined cast
        values[f"{name}-prod-uint8"] = np.asarray(xp.prod(x.mT, axis=0, dtype=xp.uint8))
values["large-int64-sum-int32"] = np.asarray(xp.sum(large["int64"], axis=1, dtype=xp.int32))
values["large-float32-sum-float64"] = np.asarray(xp.sum(large["float32"], dtype=xp.float64))
for name in ("float32", "int64"):  # one row long enough to be sorted over the threads
    row = xp.asarray(rng.normal(0, 1e6, 1 << 19).astype(name))
    if name == "float32":
        row[5] = float("nan")
    values[f"{name}-row-sort"] = np.asarray(xp.sort(row, descending=True))
    values[f"{name}-row-argsort"] = np.asarray(xp.argsort(row))
    values[f"{name}-halves-sort"] = np.asarray(xp.sort(row[:1 << 15]))  # sorted in halves
    values[f"{name}-halves-argsort"] = np.asarray(xp.argsort(row[:1 << 15], descending=True))
np.savez(sys.argv[1], **values)
"""


def test_shipped_and_jit_kernels_give_the_same_bits(tmp_path):
    built_level()
    results = {}
    for mode in ("0", "1"):
        path = str(tmp_path / f"jit{mode}.npz")
        result = subprocess.run([sys.executable, "-c", _RESULTS, path], capture_output=True,
                                text=True, timeout=900,
                                env={**os.environ, "DLNUMBA_JIT_ONLY": mode})
        assert result.returncode == 0, result.stderr
        with open(path, "rb") as file:
            results[mode] = dict(np.load(file))
    assert results["0"].keys() == results["1"].keys() and len(results["0"]) > 200
    for key, shipped in results["0"].items():
        jit = results["1"][key]
        assert shipped.dtype == jit.dtype and shipped.tobytes() == jit.tobytes(), key


# What each x86-64 level adds, as objdump (AT&T syntax) prints it: an object may hold only the
# instructions of its own level and those below it.
# Not tzcnt: LLVM writes a bsf whose input is never zero as rep bsf (f3 0f bc), which older
# processors run as bsf and objdump shows as tzcnt.
_V3_MNEMONICS = ("andn", "bextr", "blsi", "blsmsk", "blsr", "bzhi", "sarx", "shlx", "shrx",
                 "rorx", "pdep", "pext", "mulx", "lzcnt", "movbe")
# One of them with AT&T's operand size suffix, if any: pextrw (SSE4.1) is not pext (BMI2).
_V3_INSTRUCTION = re.compile(f"({'|'.join(_V3_MNEMONICS)})[wlq]?")
_EVEX_ONLY = ("vpternlog", "vpermt2", "vpermi2", "vpmaxsq", "vpminsq", "vpmaxuq", "vpminuq",
              "vpsraq", "vpmullq", "vpabsq", "vrndscale", "vcvtqq2", "vcvtuqq2", "vcvttpd2qq",
              "vcvtpd2qq", "vpcompress", "vpexpand", "vprol", "vpror", "vpbroadcastm")
_EVEX_REGISTERS = re.compile(r"%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2[0-9]|3[01])\b")


def _above_level(level, mnemonic, operands):
    """Whether an instruction needs more than ``level`` (an x86-64 psABI level)."""
    if level == "x86-64-v4":
        return False
    if mnemonic.startswith(_EVEX_ONLY) or _EVEX_REGISTERS.search(operands):
        return True
    return level == "x86-64-v2" and (mnemonic.startswith("v") or "%ymm" in operands
                                     or _V3_INSTRUCTION.fullmatch(mnemonic) is not None)


@pytest.mark.skipif(not X86 or shutil.which("objdump") is None,
                    reason="the x86-64 levels, read by binutils' objdump")
def test_each_object_holds_only_instructions_of_its_level():
    """Every built object's code runs on any CPU of its level: no AVX in x86-64-v2, no
    AVX-512 (EVEX registers, masks or instructions) in x86-64-v3."""
    objects = sorted(n for n in os.listdir(_shipped.OBJECT_DIR) if n.endswith(".o"))
    assert objects, f"nothing built in {_shipped.OBJECT_DIR} (python -m dlnumba build)"
    for name in objects:
        level = name.partition(".")[0]
        listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                                  os.path.join(_shipped.OBJECT_DIR, name)],
                                 capture_output=True, text=True, check=True).stdout
        found = []
        for line in listing.splitlines():
            parts = line.split("\t")
            if len(parts) < 2 or not parts[0].strip().endswith(":"):
                continue
            mnemonic, _, operands = parts[1].strip().partition(" ")
            if _above_level(level, mnemonic, operands):
                found.append(parts[1].strip())
        assert not found, f"{name}: {len(found)} instructions above {level}, e.g. {found[:5]}"


def test_the_builder_builds_again_over_an_unreadable_manifest(tmp_path, monkeypatch):
    """A manifest that is not JSON, or not an object, is stale: the level is built again
    (the build itself replaced by a note of the levels it was asked for)."""
    from dlnumba import _build

    level = built_level()
    _copy_level(level, tmp_path)
    monkeypatch.setattr(_shipped, "OBJECT_DIR", str(tmp_path))
    built = []
    monkeypatch.setattr(_build, "_build_level", lambda row, *rest: built.append(row[0]))
    reports = []
    _build.build([level], report=reports.append)
    assert built == [] and len(reports) == 1 and reports[0].startswith(f"{level}: up to date")
    for text in ("{not json", "[]"):
        (tmp_path / f"{level}.json").write_text(text)
        _build.build([level])
    assert built == [level, level]


def test_a_failing_build_part_stops_the_others():
    """One part's failure ends the build at once: the parts still running are stopped."""
    from dlnumba import _build

    slow = [sys.executable, "-c", "import time; time.sleep(120)"]
    failing = [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(RuntimeError, match="the test parts failed"):
        _build.run_parts([(slow, os.environ), (failing, os.environ), (slow, os.environ)],
                         "the test parts")


def test_a_kernel_compiled_by_two_parts_keeps_one_part_s_module_and_environments(tmp_path):
    """Two parts may list a kernel's environments in two orders: its module and its list come
    from the same part, the first."""
    from dlnumba import _build

    for part, text in enumerate(("first", "second")):
        folder = tmp_path / f"part{part}"
        folder.mkdir()
        for name in ("shared.bc", "shared.json", f"own{part}.bc"):
            (folder / name).write_text(text)
    _build._take_modules(str(tmp_path), 2)
    assert {path.name: path.read_text() for path in tmp_path.iterdir() if path.is_file()} == {
        "shared.bc": "first", "shared.json": "first", "own0.bc": "first", "own1.bc": "second"}


def test_each_kernel_goes_to_the_group_its_parts_noted_or_to_its_module_s_common_one(
        tmp_path):
    from dlnumba import _build

    for name, group in (("a.group0", "float32"), ("b.group0", "int8"), ("b.group1", "bool"),
                        ("c.group1", "bool")):
        (tmp_path / name).write_text(f"{group} dlnumba.kernels.sorting")
    assert _build._groups(str(tmp_path), ["a", "b", "c"]) == {
        "float32": ["a"], "common-sorting": ["b"], "bool": ["c"]}


@pytest.mark.parametrize("parts", [1, 2, 3, 16])
def test_the_build_parts_take_every_dtype_once_its_large_arrays_with_its_small(parts):
    from dlnumba import _build

    units = _build._units(parts)
    assert len(units) == parts
    flat = [unit for share in units for unit in share]
    assert sorted(name for name, _ in flat) == sorted(_build._dtype_names())
    for name, sizes in flat:
        assert sizes == (_build._SIZES if name in _build._LARGE_DTYPES
                         else _build._SIZES[:1])
    loads = [sum(4 if len(sizes) == 2 else 1 for _, sizes in share) for share in units]
    assert max(loads) - min(loads) <= 4


@pytest.mark.skipif(not X86, reason="the x86-64 levels")
def test_the_build_makes_only_levels_the_host_runs(monkeypatch):
    """The build runs what it compiles: ``all`` is every level the host runs, and names the
    others; a level named that the host cannot run is refused, saying what the CPU lacks."""
    from dlnumba import _build

    monkeypatch.setattr(_build.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(_build, "host_levels",
                        lambda: _shipped.host_levels(features=V3, machine="x86_64"))
    reports = []
    assert [row[0] for row in _build.levels_to_build(["all"], reports.append)] == [
        "x86-64-v2", "x86-64-v3"]
    assert reports == ["x86-64-v4: not built, this CPU lacks avx512f, avx512bw, avx512cd, "
                       "avx512dq, avx512vl"]
    assert [row[0] for row in _build.levels_to_build([])] == ["x86-64-v3"]
    with pytest.raises(ValueError, match="x86-64-v4 cannot be built here: this CPU lacks avx512f"):
        _build.levels_to_build(["x86-64-v2", "x86-64-v4"])
