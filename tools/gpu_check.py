"""One prepared check of dlnumba on a CUDA GPU: every CUDA path, the exchanges with CuPy,
PyTorch and JAX, and the speed beside CuPy's and PyTorch's, in one command.

Usage::

    PYTHONPATH=. python tools/gpu_check.py [--out DIR] [--budget SECONDS] [--tests WHICH]
                                           [--checks NAME,...]
    NUMBA_ENABLE_CUDASIM=1 python tools/gpu_check.py --simulate

Correctness (on a GPU, or under the Numba CUDA simulator with ``--simulate``):

- ``tests``: the CUDA cases of the test files on the device (``DLNUMBA_TEST_GPU=1``), in
  pytest-xdist workers on all cores but four, from the start, beside the checks below;
- ``user_kernel``: a user ``@cuda.jit`` kernel writes into a dlnumba array imported zero-copy
  from a PyTorch CUDA tensor, and PyTorch reads the values;
- ``dlpack_<peer>``: DLPack both ways with CuPy, PyTorch and JAX (protocol, legacy and
  versioned capsules, views, lifetimes); under the simulator the peers' CPU arrays take part;
- ``streams_<peer>``: a producer still writing on a non-blocking stream while the consumer
  reads after the hand-over, both directions; a control read without hand-over must see the
  unfinished values, or the check proves nothing;
- ``moves``: host and device, both directions, pageable, pinned and managed memory, and
  ``from_dlpack(device=, copy=)``;
- ``device_vs_host``: reductions, scans, sorts and elementwise functions on the device against
  the host engine, bit for bit where the README promises it, else within rounding.

Speed (GPU only; CuPy and PyTorch in the same run): device copies as a fraction of the driver's
copy bandwidth, ``add, exp, sum, max`` on 256 MiB, ``from_dlpack`` per call, and the first call
of new CUDA kernels in a fresh process with an empty Numba cache.

Writes ``gpu_check.json`` (every record), ``gpu_check.txt`` (the table) and ``tests.log`` to
``--out``. Exits 0 when every correctness check passes, 1 when one fails, and 2 at once, with
"no CUDA GPU", on a machine without one unless ``--simulate``.
"""

import argparse
import contextlib
import ctypes
import faulthandler
import gc
import json
import math
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

cuda = None  # numba.cuda, imported by main() once the simulator switch is set
ROOT = Path(__file__).resolve().parent.parent
TEST_FILES = ["test_backend.py", "test_buffer.py", "test_creation.py", "test_cuda.py",
              "test_data_type_functions.py", "test_dlpack_errors.py", "test_dlpack_interop.py",
              "test_dtypes_devices.py", "test_elementwise_functions.py",
              "test_manipulation_functions.py", "test_reductions_utility.py",
              "test_statistical_functions.py"]
SPEED_BYTES = 256 << 20


def gpu_count():
    """CUDA devices the driver reports (0 without a driver), without importing Numba."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if libcuda.cuInit(0) or libcuda.cuDeviceGetCount(ctypes.byref(count)):
        return 0
    return count.value


class Report:
    """The records of one run, written to ``out`` after each, so a run cut short keeps them."""

    def __init__(self, out, wanted):
        self.out, self.wanted = out, wanted
        self.environment = {}
        self.records = []
        out.mkdir(parents=True, exist_ok=True)

    def wants(self, name):
        return not self.wanted or name in self.wanted

    def add(self, name, part, status, seconds, detail="", **values):
        if not self.wants(name):
            return
        record = {"name": name, "part": part, "status": status, "seconds": round(seconds, 2),
                  "detail": detail, **values}
        self.records.append(record)
        print(f"[{status:>5}] {name} ({seconds:.1f} s) {detail}".rstrip(), flush=True)
        self.write()

    def failed(self):
        return [r["name"] for r in self.records if r["status"] in ("fail", "error")]

    def write(self):
        summary = {"failed": self.failed(), "records": len(self.records)}
        (self.out / "gpu_check.json").write_text(json.dumps(
            {"environment": self.environment, "summary": summary, "records": self.records},
            indent=1, default=str))
        (self.out / "gpu_check.txt").write_text(self.table())

    def table(self):
        lines = [f"{k}: {v}" for k, v in self.environment.items()] + [""]
        lines.append(f"{'status':<6} {'check':<34} {'s':>6}  detail")
        for r in self.records:
            lines.append(f"{r['status']:<6} {r['name']:<34} {r['seconds']:>6.1f}  {r['detail']}")
        speed = [r for r in self.records if r["part"] == "speed" and "rows" in r]
        for r in speed:
            lines += ["", f"{r['name']}: {r.get('unit', '')}"]
            lines += [f"  {row}" for row in r["rows"]]
        return "\n".join(lines) + "\n"


class CheckFailed(AssertionError):
    """A check's finding, with the values that show it."""


def run_check(report, name, part, function, *arguments):
    """Run one check; its result dict (``status`` may say ``skip``) or its failure is recorded."""
    if not report.wants(name):
        return
    start = time.perf_counter()
    try:
        result = function(*arguments) or {}
    except CheckFailed as error:
        report.add(name, part, "fail", time.perf_counter() - start, str(error))
    except Exception as error:  # a check that breaks is reported, and the others still run
        report.add(name, part, "error", time.perf_counter() - start,
                   f"{type(error).__name__}: {error}", traceback=traceback.format_exc())
    else:
        status = result.pop("status", "pass")
        detail = result.pop("detail", "")
        report.add(name, part, status, time.perf_counter() - start, detail, **result)


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def same_bits(a, b):
    """Whether two NumPy arrays hold the same shape and bytes (NaN payloads, signed zeros;
    bfloat16 may be read as its uint16 storage)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return (a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize
            and a.tobytes() == b.tobytes())


def same_values(a, b):
    """Whether two NumPy arrays hold the same values bit for bit, signed zeros included, with
    any NaN equal to any NaN (a GPU makes 0x7fffffff where x86 makes 0xffc00000)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return same_bits(a, b)
    if a.dtype.kind == "c":
        a, b = a.view(a.real.dtype), b.view(b.real.dtype)
    nan = np.isnan(b)
    return (a.shape == b.shape and np.array_equal(np.isnan(a), nan)
            and a[~nan].tobytes() == b[~nan].tobytes())


def first_differences(result, expected, bad):
    """Where ``result`` and ``expected`` differ (the mask ``bad``): the first three places and
    their values, and how many."""
    result, expected, bad = (np.atleast_1d(np.asarray(v)) for v in (result, expected, bad))
    places = [tuple(int(i) for i in place) for place in np.argwhere(bad)[:3]]
    return ("; ".join(f"at {place} {expected[place]!r} expected, {result[place]!r} got"
                      for place in places) + f" ({int(bad.sum())} of {bad.size})")


# ---------------------------------------------------------------- the environment and peers

def environment(simulate):
    import numba

    found = {"python": platform.python_version(), "machine": platform.machine(),
             "numpy": np.__version__, "numba": numba.__version__,
             "mode": "Numba CUDA simulator" if simulate else "GPU"}
    for module in ("llvmlite", "numba_cuda", "ml_dtypes", "torch", "cupy", "jax"):
        try:
            found[module] = __import__(module).__version__
        except Exception as error:  # absent or broken: the checks that need it skip
            found[module] = f"absent ({type(error).__name__})"
    from dlnumba import _shipped
    found["dlnumba CPU kernels"] = _shipped.info()[0]
    if simulate:
        return found
    try:
        from numba.cuda.cudadrv.driver import driver
        device = cuda.get_current_device()
        name = device.name
        found.update(gpu=name.decode() if isinstance(name, bytes) else name,
                     compute_capability=".".join(map(str, device.compute_capability)),
                     multiprocessors=device.MULTIPROCESSOR_COUNT,
                     memory_gib=round(cuda.current_context().get_memory_info()[1] / 2**30, 1),
                     cuda_driver=".".join(map(str, driver.get_version())))
    except Exception as error:  # the checks themselves say what works
        found["gpu"] = f"unreadable ({type(error).__name__}: {error})"
    return found


def peers(on_gpu):
    """The peer libraries usable here, each as its adapter: on the GPU, or their CPU arrays
    under the simulator (whose device memory is host memory no peer sees as CUDA)."""
    found = {}
    for name, adapter in (("torch", _Torch), ("cupy", _CuPy), ("jax", _JAX)):
        try:
            found[name] = adapter(on_gpu)
        except Exception as error:  # absent, or without a device of the kind asked for
            found[name] = f"{type(error).__name__}: {error}"
    return found


class Peer:
    """What the DLPack checks need of one library: make, read back, locate and exchange."""

    legacy_export = legacy_import = None
    steps = True  # arrays may be strided views
    negative_strides = True  # takes them in an import

    def __init__(self, on_gpu):
        self.on_gpu = on_gpu


class _Torch(Peer):
    name = "torch"
    negative_strides = False  # PyTorch 2.13 aborts the process on one (pytorch/pytorch#188023)

    def __init__(self, on_gpu):
        super().__init__(on_gpu)
        import torch
        import torch.utils.dlpack
        if on_gpu and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")
        self.torch = torch
        self.device = "cuda" if on_gpu else "cpu"
        self.dtypes = ["bool", "uint8", "int8", "int64", "float16", "bfloat16", "float32",
                       "float64", "complex64"]
        self.legacy_export = torch.utils.dlpack.to_dlpack
        self.legacy_import = torch.utils.dlpack.from_dlpack

    def make(self, values):
        torch = self.torch
        if values.dtype.name == "bfloat16":
            return torch.from_numpy(values.view(np.int16)).view(torch.bfloat16).to(self.device)
        return torch.from_numpy(values).to(self.device)

    def host(self, array):
        array = array.detach().cpu()
        if array.dtype == self.torch.bfloat16:
            import ml_dtypes
            return array.view(self.torch.int16).numpy().view(ml_dtypes.bfloat16)
        return array.numpy()

    def pointer(self, array):
        return array.data_ptr()

    def views(self, array):
        return {"transposed": array.T, "stepped": array[:, ::2]}

    def from_dlpack(self, obj):
        return self.torch.from_dlpack(obj)

    def unsynchronized(self, x):
        """A view of dlnumba array ``x`` made with no stream hand-over."""
        return self.legacy_import(x.__dlpack__(stream=-1))

    def full(self, shape, value, dtype):
        return self.torch.full(shape, value, dtype=getattr(self.torch, dtype), device=self.device)


class _CuPy(Peer):
    name = "cupy"

    def __init__(self, on_gpu):
        super().__init__(on_gpu)
        if not on_gpu:
            raise RuntimeError("CuPy has no CPU arrays")
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        self.cupy = cupy
        self.dtypes = ["bool", "uint8", "int8", "int64", "float16", "float32", "float64",
                       "complex64"]
        self.legacy_export = lambda array: array.toDlpack()
        self.legacy_import = getattr(cupy, "fromDlpack", cupy.from_dlpack)

    def make(self, values):
        return self.cupy.asarray(values)

    def host(self, array):
        return array.get()

    def pointer(self, array):
        return array.data.ptr

    def views(self, array):
        """No reversed view: CuPy 14.2 exports a stride of -k as 2**61 - k (seen on an H200;
        dlnumba refuses the capsule, as it must)."""
        return {"transposed": array.T, "stepped": array[:, ::2]}

    def from_dlpack(self, obj):
        return self.cupy.from_dlpack(obj)

    def unsynchronized(self, x):
        """A view of dlnumba array ``x`` made with no stream hand-over."""
        cuda_memory = self.cupy.cuda
        memory = cuda_memory.UnownedMemory(x._address, x.size * x.dtype.itemsize, x)
        return self.cupy.ndarray(x.shape, np.dtype(x.dtype), cuda_memory.MemoryPointer(memory, 0))

    def full(self, shape, value, dtype):
        return self.cupy.full(shape, value, dtype=dtype)


class _JAX(Peer):
    name = "jax"
    steps = False  # a JAX array is always dense

    def __init__(self, on_gpu):
        super().__init__(on_gpu)
        import jax
        import jax.dlpack
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.target = jax.devices("gpu" if on_gpu else "cpu")[0]
        self.dtypes = ["bool", "uint8", "int8", "int32", "float16", "bfloat16", "float32",
                       "complex64"]
        if hasattr(jax.dlpack, "to_dlpack"):
            self.legacy_export = jax.dlpack.to_dlpack
        self.legacy_import = jax.dlpack.from_dlpack

    def make(self, values):
        return self.jax.device_put(values, self.target)

    def host(self, array):
        return np.asarray(array)

    def pointer(self, array):
        return array.unsafe_buffer_pointer()

    def views(self, array):
        return {}

    def from_dlpack(self, obj):
        return self.jnp.from_dlpack(obj)

    def full(self, shape, value, dtype):
        return self.jax.device_put(self.jnp.full(shape, value, dtype=dtype), self.target)


def sample(dtype, shape=(48, 40), seed=0):
    """Values of ``dtype`` (a NumPy or ml_dtypes name) with edge cases: NaN, -0.0, extremes."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "bfloat16":
        import ml_dtypes
        return sample("float32", shape, seed).astype(ml_dtypes.bfloat16)
    kind = np.dtype(dtype).kind
    if kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    values = rng.standard_normal(shape) * 100
    if kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    values = values.astype(dtype)
    flat = values.reshape(-1)
    flat[:3] = [np.nan, -0.0, np.inf]
    return values


class Recorder:
    """Stands for a dlnumba array before a peer's ``from_dlpack`` and notes what it asked."""

    def __init__(self, array):
        self.array, self.calls = array, []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **keywords):
        self.calls.append(keywords)
        return self.array.__dlpack__(**keywords)


def capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get_name(capsule).decode()


def check_dlpack(xp, peer, device):
    """DLPack both ways between dlnumba and ``peer`` on ``device``: every dtype the peer has,
    dense and strided, through the protocol and through legacy and versioned capsules; values
    bit for bit, memory shared (a JAX import may copy: noted), and the memory outlives the side
    that made it."""
    problems, notes, cases = [], [], 0

    def case(label, consumed, expected, shared=None):
        """One exchange: the values, and whether the memory is shared where it must be."""
        nonlocal cases
        cases += 1
        if not same_bits(consumed, expected):
            problems.append(f"{label}: values differ")
        if shared is False:
            problems.append(f"{label}: a copy, not the producer's memory")

    def dl_host(x):
        return x.to_device("cpu")._numpy()

    def dl_pointer(x):
        return x._address

    for dtype in peer.dtypes:
        values = sample(dtype)
        source = peer.make(values)
        arrays = {"dense": source, **(peer.views(source) if peer.steps else {})}
        for layout, array in arrays.items():
            expected = peer.host(array)
            label = f"{dtype} {layout} {peer.name}->dlnumba"
            x = xp.from_dlpack(array)
            expect(x.device == device, f"{label}: landed on {x.device}")
            case(label + " (protocol)", dl_host(x), expected,
                 dl_pointer(x) == peer.pointer(array))
            try:
                capsule = array.__dlpack__(max_version=(1, 0), stream=None if device.type ==
                                           "cpu" else 1)
            except TypeError as error:
                notes.append(f"{peer.name} __dlpack__ takes no max_version ({error})")
            else:
                name = capsule_name(capsule)
                x = xp.from_dlpack(capsule)
                case(label + f" ({name})", dl_host(x), expected,
                     dl_pointer(x) == peer.pointer(array))
            if peer.legacy_export is not None:
                x = xp.from_dlpack(peer.legacy_export(array))
                case(label + " (legacy capsule)", dl_host(x), expected,
                     dl_pointer(x) == peer.pointer(array))
        x = xp.from_dlpack(source)
        dl_arrays = {"dense": x, "transposed": x.mT, "stepped": x[:, ::2]}
        if peer.negative_strides:
            dl_arrays["reversed"] = x[::-1]
        for layout, array in dl_arrays.items():
            expected = dl_host(array)
            label = f"{dtype} {layout} dlnumba->{peer.name}"
            recorder = Recorder(array)
            try:
                imported = peer.from_dlpack(recorder)
            except Exception as error:  # a peer may refuse a layout; noted, not a failure
                notes.append(f"{label}: {peer.name} refused ({type(error).__name__}: {error})")
                continue
            asked = ", ".join(f"{k}={v}" for k, v in sorted(recorder.calls[0].items())
                              if v is not None) or "no keywords"
            zero_copy = peer.pointer(imported) == dl_pointer(array)
            if not zero_copy:
                notes.append(f"{label}: {peer.name} copied")
            case(label + f" (protocol, asked {asked})", peer.host(imported), expected,
                 None if peer.name == "jax" else zero_copy)
            if peer.legacy_import is not None:
                try:
                    imported = peer.legacy_import(xp.to_dlpack(array))
                except Exception as error:
                    notes.append(f"{label}: legacy capsule refused ({type(error).__name__})")
                else:
                    case(label + " (legacy capsule)", peer.host(imported), expected)
    # Lifetimes: the side that made the memory lets go, new allocations of the same size are
    # filled with -1, and the importer still reads its values.
    values = sample("float32", (512, 512), seed=1)
    imported = xp.from_dlpack(peer.make(values))
    exported = peer.from_dlpack(xp.asarray(values, device=device))
    gc.collect()
    junk = [peer.full((512, 512), -1.0, "float32") for _ in range(8)]
    junk += [xp.full((512, 512), -1.0, device=device) for _ in range(8)]
    case("lifetime: dlnumba keeps the peer's memory", dl_host(imported), values)
    case("lifetime: the peer keeps dlnumba's memory", peer.host(exported), values)
    del junk
    if problems:
        raise CheckFailed(f"{len(problems)} of {cases} cases: " + "; ".join(problems[:8]))
    return {"detail": f"{cases} cases" + (f"; notes: {'; '.join(notes[:6])}" if notes else ""),
            "cases": cases, "notes": notes}


# ---------------------------------------------------------------- user kernels and streams

def _spin_kernel():
    @cuda.jit
    def spin_then_fill(out, value, microseconds):
        """Sleep about ``microseconds`` in every thread, then write ``value`` everywhere."""
        for _ in range(microseconds):
            cuda.nanosleep(1000)
        i = cuda.grid(1)
        while i < out.size:
            out[i] = value
            i += cuda.gridsize(1)

    return spin_then_fill


def check_user_kernel(xp, torch_peer, device, simulate):
    """A user @cuda.jit kernel writes into a dlnumba array imported zero-copy from a PyTorch
    CUDA tensor (a dlnumba array under the simulator); the producer reads the values."""
    @cuda.jit
    def affine(a, scale, shift):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = i * scale + j + shift

    rows, columns = (40, 24) if simulate else (300, 200)
    expected = (np.arange(rows)[:, None] * 2.0 + np.arange(columns) + 0.5).astype(np.float32)
    if isinstance(torch_peer, Peer) and torch_peer.on_gpu:
        tensor = torch_peer.torch.zeros((columns, rows), dtype=torch_peer.torch.float32,
                                        device="cuda").T
        x = xp.from_dlpack(tensor)
        expect(x._address == tensor.data_ptr(), "the import copied the tensor")
        read_back, producer = (lambda: torch_peer.host(tensor)), "a transposed PyTorch tensor"
    else:
        x = xp.zeros((columns, rows), dtype=xp.float32, device=device).mT
        read_back, producer = (lambda: x.to_device("cpu")._numpy()), "a dlnumba array"
    affine[(rows // 16 + 1, columns // 16 + 1), (16, 16)](x, 2.0, 0.5)
    cuda.synchronize()
    expect(same_bits(read_back(), expected), f"the kernel's writes into {producer} differ")
    if simulate:  # the simulator's kernels take any array
        return {"detail": f"wrote a {rows}x{columns} view of {producer} in place"}
    try:
        affine[1, 1](xp.zeros((2, 2)), 1.0, 0.0)
        refused = ""
    except TypeError as error:
        refused = str(error)
    expect("cpu" in refused, "a host array reached the kernel")
    return {"detail": f"wrote a {rows}x{columns} view of {producer} in place; a host array "
                      f"was refused"}


def check_streams(xp, peer, device, seconds=0.2):
    """Both directions of a hand-over while the producer is still writing, on a non-blocking
    stream. The producer's kernel sleeps about ``seconds``, then writes ones; a consumer that
    read too early sees zeros. A control read of the same memory without the hand-over must see
    them, or the race was not provoked and the check shows nothing."""
    spin = _spin_kernel()
    n = 1 << 22
    blocks, threads = cuda.get_current_device().MULTIPROCESSOR_COUNT, 256
    warm = xp.ones(16, dtype=xp.float32, device=device)
    float(xp.sum(warm))  # every kernel of the race is compiled before it starts
    float(peer.full((16,), 1.0, "float32").sum())
    spin[blocks, threads](warm, 1.0, 1)
    cuda.synchronize()
    start = time.perf_counter()
    spin[blocks, threads](warm, 1.0, 10_000)
    cuda.synchronize()
    sleeps = max(1, int(10_000 * seconds / (time.perf_counter() - start)))
    if peer.name == "torch":
        torch = peer.torch
        stream = torch.cuda.Stream()
        handle, enter = stream.cuda_stream, (lambda: torch.cuda.stream(stream))
    else:
        stream = peer.cupy.cuda.Stream(non_blocking=True)
        handle, enter = stream.ptr, (lambda: stream)
    results, notes = {}, []
    for hand_over in (False, True):
        label = f"{peer.name}->dlnumba" + ("" if hand_over else " control")
        produced = peer.full((n,), 0.0, "float32")
        cuda.synchronize()
        start = time.perf_counter()
        with enter():
            spin[blocks, threads, cuda.external_stream(handle)](produced, 1.0, sleeps)
            try:
                source = produced if hand_over else produced.__dlpack__(stream=-1)
            except Exception as error:  # a producer that always synchronizes: no control
                notes.append(f"{label}: {peer.name} refused stream=-1 ({error})")
                cuda.synchronize()
                continue
            total = float(xp.sum(xp.from_dlpack(source)))
        results[label] = total, time.perf_counter() - start
        cuda.synchronize()
    for hand_over in (False, True):
        label = f"dlnumba->{peer.name}" + ("" if hand_over else " control")
        x = xp.zeros(n, dtype=xp.float32, device=device)
        cuda.synchronize()
        start = time.perf_counter()
        spin[blocks, threads](x, 1.0, sleeps)  # dlnumba's stream: the legacy default
        with enter():
            imported = peer.from_dlpack(x) if hand_over else peer.unsynchronized(x)
            total = float(imported.sum())
        results[label] = total, time.perf_counter() - start
        cuda.synchronize()
    rows = [f"{k}: sum {v[0]:.0f} of {n} after {v[1] * 1e3:.0f} ms" for k, v in results.items()]
    rows.insert(0, f"producer kernel: {sleeps} sleeps of 1 us per thread, about "
                   f"{seconds * 1e3:.0f} ms")
    for key, (total, _) in results.items():
        if "control" in key:
            expect(total != n, f"{key} read every value written: the race was not provoked, "
                               f"so the hand-over is not shown ({'; '.join(rows)})")
        else:
            expect(total == n, f"{key} read {total:.0f} of {n} ones: the hand-over failed "
                               f"({'; '.join(rows)})")
    return {"detail": "; ".join(rows[1:] + notes), "rows": rows + notes}


# ---------------------------------------------------------------- moves between host and device

def check_moves(xp, torch_peer, device, simulate):
    """Host to device and back for pageable memory (one transfer, and staged through the
    pinned buffers past 8 MiB), pinned and managed memory, views on either side, and
    ``from_dlpack(device=, copy=)`` both ways."""
    from dlnumba.cuda import _driver

    problems = []
    cpu = xp.Device("cpu")

    def same(label, x, expected):
        if not same_bits(x.to_device(cpu)._numpy(), expected):
            problems.append(label)

    for n in (1000, 3 << 20, 2 * _driver._CHUNK // 4 + 12345):
        values = sample("float32", (n,), seed=n)
        host = xp.asarray(values)
        on_device = host.to_device(device)
        same(f"pageable {n} up", on_device, values)
        same(f"pageable {n} reversed up", host[::-1].to_device(device), values[::-1])
        back = xp.empty((n,), dtype=xp.float32)[::-1]
        back[...] = on_device
        same(f"pageable {n} down into a reversed view", back, values)
    values = sample("float64", (1 << 21,), seed=5)
    allocators = {"pinned": cuda.pinned_array}
    if not simulate:
        allocators["managed"] = cuda.managed_array
    for kind, allocate in allocators.items():
        memory = allocate(values.shape, np.float64)
        memory[...] = values
        host = xp.asarray(memory)
        if host._address != memory.ctypes.data:
            problems.append(f"{kind}: asarray copied host memory")
        if not simulate and _driver._pageable(host._address):
            problems.append(f"{kind}: the driver does not know the memory")
        on_device = host.to_device(device)
        same(f"{kind} up", on_device, values)
        host[...] = xp.zeros_like(on_device)
        host[...] = on_device
        if not same_bits(np.asarray(memory), values):
            problems.append(f"{kind} down")
    if not simulate:
        try:
            import cupy
            managed = cupy.cuda.malloc_managed(values.nbytes)
            array = cupy.ndarray(values.shape, cupy.float64, managed)
            array.set(values)
            imported = xp.from_dlpack(array)
            in_place = imported._address == array.data.ptr
            if imported.device != cpu or not in_place:
                problems.append(f"CuPy managed memory imported to {imported.device}, "
                                f"{'in place' if in_place else 'a copy'}")
            if not same_bits(imported._numpy(), values):
                problems.append("CuPy managed memory: the host reads other values")
            total, expected = float(xp.sum(imported[3:])), float(np.sum(values[3:]))
            if not math.isclose(total, expected, rel_tol=1e-9):
                problems.append(f"CuPy managed memory: a host kernel's sum is {total!r}, "
                                f"not {expected!r}")
            same("CuPy managed up", imported.to_device(device), values)
        except ImportError:
            pass
    # from_dlpack(device=, copy=), with a CUDA producer and a host one.
    values = sample("int32", (300, 7), seed=6)
    if isinstance(torch_peer, Peer) and torch_peer.on_gpu:
        producer = torch_peer.make(values)
        address = producer.data_ptr()
    else:
        producer = xp.asarray(values, device=device)
        address = producer._address
    for copy in (None, False, True):
        x = xp.from_dlpack(producer, copy=copy)
        if x.device != device or (x._address == address) != (copy is not True):
            problems.append(f"from_dlpack(cuda producer, copy={copy}) gave "
                            f"{'a view' if x._address == address else 'a copy'} on {x.device}")
        same(f"from_dlpack(cuda producer, copy={copy})", x, values)
        x = xp.from_dlpack(producer, device="cpu", copy=copy) if copy is not False else None
        if x is not None:
            same(f"from_dlpack(cuda producer, device='cpu', copy={copy})", x, values)
    for source, target in ((producer, "cpu"), (values, device)):
        try:
            xp.from_dlpack(source, device=target, copy=False)
            problems.append(f"from_dlpack(device={target}, copy=False) did not refuse")
        except BufferError:
            pass
    same("from_dlpack(numpy, device=cuda)", xp.from_dlpack(values, device=device), values)
    if problems:
        raise CheckFailed("; ".join(problems))
    return {"detail": f"pageable to {2 * _driver._CHUNK >> 20} MiB, "
                      f"{', '.join(allocators)}; from_dlpack(device=, copy=)"}


# ---------------------------------------------------------------- device against host

def ulps(a, b):
    """The largest distance in units in the last place between two float arrays (NaNs must
    sit at the same places; inf where they do not)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c":
        return max(ulps(a.real, b.real), ulps(a.imag, b.imag))
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        return math.inf
    a, b = a[~nan_a], b[~nan_b]
    if not a.size:
        return 0
    words = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(v):  # consecutive floats to consecutive integers, -0.0 just below 0.0
        i = v.view(words).astype(np.int64)
        return np.where(i < 0, np.iinfo(words).min - i - 1, i)

    return int(np.abs(ordered(a).astype(object) - ordered(b)).max())  # no int64 overflow


def check_device_vs_host(xp, device, simulate):
    """The device's reductions, index reductions, scans, sorts and elementwise functions
    against the host engine on multi-block inputs: bit for bit for integers, booleans,
    max/min, index reductions and sorts (a NaN's payload aside); float sums within the
    pairwise bound; elementwise floats within 3 ulp (NVVM's FMA contraction, and libdevice
    where the host calls libm)."""
    problems, rows, cases = [], [], 0
    shape = (3, 7) if simulate else (517, 1031)
    rng = np.random.default_rng(7)
    inputs = {"float32": rng.standard_normal(shape).astype(np.float32),
              "float64": rng.standard_normal(shape),
              "int32": rng.integers(-1000, 1000, shape, dtype=np.int32),
              "int64": rng.integers(-2**40, 2**40, shape),
              "uint8": rng.integers(0, 256, shape, dtype=np.uint8),
              "bool": rng.random(shape) < 0.3}
    inputs["float32"][1, 5] = np.nan
    inputs["float64"][2, 2] = -0.0
    if simulate:  # each simulated thread is a Python thread: the logic, on fewer dtypes
        inputs = {k: inputs[k] for k in ("float32", "int32", "bool")}
    exact = ["max", "min", "argmax", "argmin", "any", "all", "count_nonzero", "sort", "argsort"]
    rounded = ["sum", "mean", "var", "std", "prod", "cumulative_sum", "cumulative_prod"]
    for dtype, values in inputs.items():
        host = xp.asarray(values)
        on_device = host.to_device(device)
        for name in exact + rounded:
            if dtype == "bool" and name not in ("any", "all", "count_nonzero", "sum"):
                continue
            if name in ("mean", "var", "std") and dtype[0] != "f":
                continue
            for axis in (None, 0, 1):
                if (name.startswith("cumulative") or name in ("sort", "argsort")) and axis is None:
                    continue
                function = getattr(xp, name)
                argument = host if name != "prod" or dtype[0] != "f" else 1 + host / 1000
                cases += 1
                expected = function(argument, axis=axis)._numpy()
                result = function(argument.to_device(device), axis=axis).to_device("cpu")._numpy()
                label = f"{name}({dtype}, axis={axis})"
                if name in exact or dtype[0] != "f":
                    if not same_values(result, expected):
                        bad = (result != expected) & ~(np.isnan(result) & np.isnan(expected)
                                                       if dtype[0] == "f" else False)
                        problems.append(f"{label}: {first_differences(result, expected, bad)}")
                    continue
                scale = np.abs(argument._numpy()).astype(np.float64)
                terms = values.size if axis is None else values.shape[axis]
                if name == "cumulative_sum":
                    bound = 4 * np.finfo(dtype).eps * terms * np.cumsum(scale, axis=axis)
                elif name in ("prod", "cumulative_prod"):
                    bound = 4 * np.finfo(dtype).eps * terms * np.abs(expected).astype(float)
                else:
                    total = scale.sum(axis=axis) if name != "var" else (scale**2).sum(axis=axis)
                    bound = 4 * np.finfo(dtype).eps * math.log2(terms + 1) * total / (
                        terms if name in ("mean", "var") else 1)
                    if name == "std":
                        bound = np.sqrt(bound) + 1e-6
                bound = bound + 16 * np.finfo(dtype).tiny  # below it no digit is promised
                error = np.abs(result.astype(np.float64) - expected.astype(np.float64))
                nan = np.isnan(expected)
                bad = (np.isnan(result) != nan) | (~nan & (error > bound))
                if bad.any():
                    problems.append(f"{label}: {first_differences(result, expected, bad)}")
        del on_device
    for name in ("exp", "log", "sin", "tanh", "sqrt", "divide", "pow", "atan2", "hypot",
                 "floor_divide", "remainder", "logaddexp", "expm1", "log1p"):
        function = getattr(xp, name)
        for dtype in [d for d in ("float32", "float64") if d in inputs]:
            a = xp.asarray(np.abs(inputs[dtype]) + 0.25)
            b = xp.asarray(inputs[dtype][::-1])
            arguments = (a,) if name in ("exp", "log", "sin", "tanh", "sqrt", "expm1",
                                         "log1p") else (a, b)
            expected = function(*arguments)._numpy()
            result = function(*(v.to_device(device) for v in arguments)).to_device("cpu")._numpy()
            cases += 1
            distance = ulps(result, expected)
            rows.append(f"{name} {dtype}: {distance} ulp")
            if distance > 3:
                problems.append(f"{name}({dtype}) off by {distance} ulp")
    if problems:
        raise CheckFailed(f"{len(problems)} of {cases} cases: " + "; ".join(problems[:12]))
    return {"detail": f"{cases} cases; elementwise at most "
                      f"{max(int(r.split(': ')[1].split()[0]) for r in rows)} ulp",
            "rows": rows}


# ---------------------------------------------------------------- the test files

def start_tests(which, workers, out, simulate):
    """The CUDA cases of the test files in pytest-xdist workers (a background process)."""
    if which == "none":
        return None
    files = ["test_cuda.py"] if which == "device" else TEST_FILES
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "HYPOTHESIS_PROFILE": "ci"}
    if simulate:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        env.pop("DLNUMBA_TEST_GPU", None)
    else:
        env["DLNUMBA_TEST_GPU"] = "1"
        env["NUMBA_ENABLE_CUDASIM"] = "0"
    command = [sys.executable, "-m", "pytest", *[f"tests/{f}" for f in files], "-k",
               "cuda or CUDA", "-rfE", "-v", "--tb=short", "-p", "no:cacheprovider"]
    if workers > 1:
        command += ["-n", str(workers)]
    log = open(out / "tests.log", "w")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True), log, time.perf_counter()


def finish_tests(report, started, deadline):
    """Wait for the test process until ``deadline`` (perf_counter), then record its outcome."""
    if started is None:
        report.add("tests", "correctness", "skip", 0, "--tests none")
        return
    process, log, start = started
    try:
        process.wait(timeout=max(1, deadline - time.perf_counter()))
        finished = True
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)  # pytest then writes its summary
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        finished = False
    log.close()
    text = (report.out / "tests.log").read_text(errors="replace")
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?|"
                                                r"deselected)", text.splitlines()[-1] if text
                                                else "")}
    outcomes = dict(re.findall(r"(tests/\S+::\S+)(?: <- \S+)? (PASSED|FAILED|ERROR|SKIPPED|"
                               r"XFAIL|XPASS)", text))
    outcomes.update((name, outcome) for outcome, name in re.findall(
        r"^(FAILED|ERROR) (tests/\S+)", text, re.M))
    failures = sorted(name for name, outcome in outcomes.items() if outcome in ("FAILED",
                                                                               "ERROR"))
    if not finished:
        status, detail = "fail", (f"cut at the deadline after {len(outcomes)} tests, "
                                  f"{len(failures)} failed: {'; '.join(failures[:10])}")
    elif process.returncode == 0:
        status, detail = "pass", ", ".join(f"{v} {k}" for k, v in counts.items())
    else:
        status = "fail"
        detail = (", ".join(f"{v} {k}" for k, v in counts.items()) or
                  f"pytest exit {process.returncode}") + "; " + "; ".join(failures[:10])
    report.add("tests", "correctness", status, time.perf_counter() - start, detail,
               failures=failures)


# ---------------------------------------------------------------- speed

def per_call(call, synchronize, repeat=5, least=0.05):
    """Seconds per call: the best of ``repeat`` batches of at least ``least`` seconds each,
    after a first call (which compiles) and a synchronization."""
    call()
    synchronize()
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            call()
        synchronize()
        elapsed = time.perf_counter() - start
        if elapsed >= least or batch >= 1 << 16:
            break
        batch *= max(2, min(16, int(least / max(elapsed, 1e-6)) + 1))
    best = elapsed / batch
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        synchronize()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def speed_bandwidth(xp, found, device):
    """Copies and a cast over 256 MiB of float32, in GB/s (bytes read and written), as a
    fraction of the driver's device-to-device copy, beside CuPy and PyTorch."""
    from dlnumba.cuda._driver import copy_bytes
    side = int(math.sqrt(SPEED_BYTES // 4))
    x = xp.ones((side, side), dtype=xp.float32, device=device)
    y = xp.empty_like(x)
    half = xp.empty((side, side // 2), dtype=xp.float32, device=device)
    wide = xp.empty((side, side), dtype=xp.float64, device=device)
    sync = cuda.synchronize
    nbytes = side * side * 4
    memcpy = per_call(lambda: copy_bytes(y._address, x._address, nbytes, device.index), sync)
    peak = 2 * nbytes / memcpy
    calls = {"copy": (2 * nbytes, {"dlnumba": lambda: y.__setitem__(..., x)}),
             "transposed copy": (2 * nbytes, {"dlnumba": lambda: y.__setitem__(..., x.mT)}),
             "stride-2 copy": (nbytes, {"dlnumba": lambda: half.__setitem__(..., x[:, ::2])}),
             "cast f32->f64 into": (3 * nbytes, {"dlnumba": lambda: wide.__setitem__(..., x)}),
             "astype f32->f64": (3 * nbytes, {"dlnumba": lambda: xp.astype(x, xp.float64)})}
    torch, cupy = found.get("torch"), found.get("cupy")
    if isinstance(cupy, Peer):
        cp = cupy.cupy
        a, b = cp.ones((side, side), cp.float32), cp.empty((side, side), cp.float32)
        h, w = cp.empty((side, side // 2), cp.float32), cp.empty((side, side), cp.float64)
        calls["copy"][1]["cupy"] = lambda: b.__setitem__(..., a)
        calls["transposed copy"][1]["cupy"] = lambda: b.__setitem__(..., a.T)
        calls["stride-2 copy"][1]["cupy"] = lambda: h.__setitem__(..., a[:, ::2])
        calls["cast f32->f64 into"][1]["cupy"] = lambda: w.__setitem__(..., a)
        calls["astype f32->f64"][1]["cupy"] = lambda: a.astype(cp.float64)
    if isinstance(torch, Peer) and torch.on_gpu:
        th = torch.torch
        t, u = th.ones((side, side), device="cuda"), th.empty((side, side), device="cuda")
        h2 = th.empty((side, side // 2), device="cuda")
        w2 = th.empty((side, side), device="cuda", dtype=th.float64)
        calls["copy"][1]["torch"] = lambda: u.copy_(t)
        calls["transposed copy"][1]["torch"] = lambda: u.copy_(t.T)
        calls["stride-2 copy"][1]["torch"] = lambda: h2.copy_(t[:, ::2])
        calls["cast f32->f64 into"][1]["torch"] = lambda: w2.copy_(t)
        calls["astype f32->f64"][1]["torch"] = lambda: t.to(th.float64)
    rows = [f"driver copy: {peak / 1e9:.0f} GB/s"]
    table, short = {}, []
    for name, (moved, libraries) in calls.items():
        rates = {lib: moved / per_call(call, sync) for lib, call in libraries.items()}
        table[name] = {lib: round(rate / 1e9, 1) for lib, rate in rates.items()}
        best_peer = max([r for lib, r in rates.items() if lib != "dlnumba"], default=None)
        row = f"{name}: " + ", ".join(f"{lib} {r / 1e9:.0f} GB/s ({r / peak:.0%})"
                                      for lib, r in rates.items())
        if best_peer:
            ratio = rates["dlnumba"] / best_peer
            row += f"; dlnumba/best peer {ratio:.2f}"
            if ratio < 0.9:
                short.append(name)
        rows.append(row)
    return {"status": "short" if short else "pass",
            "detail": f"driver copy {peak / 1e9:.0f} GB/s; under 90% of the best peer: "
                      f"{', '.join(short) or 'none'}",
            "rows": rows, "unit": "GB/s counting bytes read and written", "table": table,
            "driver_copy_gbs": round(peak / 1e9, 1)}


def speed_elementwise(xp, found, device):
    """``add, exp, sum, max`` over 256 MiB of float32, milliseconds per call, beside CuPy and
    PyTorch; the goal is at least their speed."""
    n = SPEED_BYTES // 4
    x = xp.ones(n, dtype=xp.float32, device=device) * 0.5
    y = xp.ones(n, dtype=xp.float32, device=device)
    calls = {"add": {"dlnumba": lambda: x + y}, "exp": {"dlnumba": lambda: xp.exp(x)},
             "sum": {"dlnumba": lambda: xp.sum(x)}, "max": {"dlnumba": lambda: xp.max(x)}}
    torch, cupy = found.get("torch"), found.get("cupy")
    if isinstance(cupy, Peer):
        cp = cupy.cupy
        a, b = cp.full(n, 0.5, cp.float32), cp.ones(n, cp.float32)
        for name, call in (("add", lambda: a + b), ("exp", lambda: cp.exp(a)),
                           ("sum", lambda: a.sum()), ("max", lambda: a.max())):
            calls[name]["cupy"] = call
    if isinstance(torch, Peer) and torch.on_gpu:
        th = torch.torch
        t, u = th.full((n,), 0.5, device="cuda"), th.ones(n, device="cuda")
        for name, call in (("add", lambda: t + u), ("exp", lambda: th.exp(t)),
                           ("sum", lambda: t.sum()), ("max", lambda: t.max())):
            calls[name]["torch"] = call
    rows, table, short = [], {}, []
    for name, libraries in calls.items():
        times = {lib: per_call(call, cuda.synchronize) for lib, call in libraries.items()}
        table[name] = {lib: round(s * 1e3, 3) for lib, s in times.items()}
        row = f"{name}: " + ", ".join(f"{lib} {s * 1e3:.3f} ms" for lib, s in times.items())
        best_peer = min([s for lib, s in times.items() if lib != "dlnumba"], default=None)
        if best_peer:
            ratio = times["dlnumba"] / best_peer
            row += f"; dlnumba/best peer {ratio:.2f}"
            if ratio > 1.0:
                short.append(name)
        rows.append(row)
    return {"status": "short" if short else "pass",
            "detail": f"slower than the best peer: {', '.join(short) or 'none'}",
            "rows": rows, "unit": "ms per call, 256 MiB of float32", "table": table}


def speed_from_dlpack(xp, found, device):
    """Microseconds per ``from_dlpack`` of a small PyTorch CUDA tensor, beside CuPy's."""
    torch, cupy = found.get("torch"), found.get("cupy")
    if not (isinstance(torch, Peer) and torch.on_gpu):
        return {"status": "skip", "detail": "no PyTorch CUDA"}
    tensor = torch.torch.ones(16, device="cuda")
    calls = {"dlnumba.from_dlpack(tensor)": lambda: xp.from_dlpack(tensor)}
    if isinstance(cupy, Peer):
        calls["cupy.from_dlpack(tensor)"] = lambda: cupy.cupy.from_dlpack(tensor)
        array = cupy.cupy.ones(16, cupy.cupy.float32)
        calls["torch.from_dlpack(cupy array)"] = lambda: torch.torch.from_dlpack(array)
    x = xp.ones(16, device=device)
    calls["torch.from_dlpack(dlnumba array)"] = lambda: torch.torch.from_dlpack(x)
    rows = [f"{name}: {per_call(call, cuda.synchronize, least=0.1) * 1e6:.2f} us"
            for name, call in calls.items()]
    return {"detail": rows[0], "rows": rows, "unit": "microseconds per call"}


FIRST_CALLS = r"""
import json, time
start = time.perf_counter()
import dlnumba as xp
times = {"import dlnumba": time.perf_counter() - start}
from numba import cuda
def timed(label, call):
    start = time.perf_counter()
    value = call()
    cuda.synchronize()
    times[label] = time.perf_counter() - start
    return value
x = timed("first ones(device='cuda') (CUDA start)", lambda: xp.ones(1000, device="cuda"))
timed("first sin (compiles its kernel)", lambda: xp.sin(x))
timed("second sin", lambda: xp.sin(x))
timed("first cos (one more kernel)", lambda: xp.cos(x))
timed("first sum (reduction kernel)", lambda: xp.sum(x))
timed("first x * 2 + 1 (two kernels)", lambda: x * 2 + 1)
@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2
timed("first user @cuda.jit call on a dlnumba array", lambda: double[8, 128](x))
print(json.dumps(times))
"""


def speed_first_calls(xp, found, device):
    """The first calls of new CUDA kernels in a fresh process with an empty Numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "NUMBA_ENABLE_CUDASIM": "0",
               "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        result = subprocess.run([sys.executable, "-c", FIRST_CALLS], env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=300)
    if result.returncode:
        raise CheckFailed(f"the fresh process failed: {result.stderr[-800:]}")
    times = json.loads(result.stdout.strip().splitlines()[-1])
    rows = [f"{label}: {seconds:.3f} s" for label, seconds in times.items()]
    return {"detail": f"first sin {times['first sin (compiles its kernel)']:.2f} s",
            "rows": rows, "unit": "seconds, fresh process, empty NUMBA_CACHE_DIR"}


# ---------------------------------------------------------------- the run

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gpu_check_report"),
                        help="folder for gpu_check.json, gpu_check.txt and tests.log")
    parser.add_argument("--simulate", action="store_true",
                        help="run the correctness part under the Numba CUDA simulator")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of wall time for the whole run, the test files cut "
                             "short to keep it (default 330 on a GPU, 540 simulated)")
    parser.add_argument("--tests", choices=["all", "device", "none"], default=None,
                        help="which test files run: the CUDA cases of all of them (default on "
                             "a GPU), test_cuda.py only (default under --simulate), or none")
    parser.add_argument("--checks", default="",
                        help="only these checks, by name, comma-separated (default: all)")
    parser.add_argument("--workers", type=int, default=None,
                        help="pytest-xdist workers for the test files (default: cores - 4)")
    options = parser.parse_args(argv)
    start = time.perf_counter()
    budget = options.budget or (540 if options.simulate else 330)
    if options.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    elif os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" or not gpu_count():
        print("no CUDA GPU")
        return 2
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    with tempfile.TemporaryDirectory(prefix="gpu_check_numba_") as cache:
        os.environ.setdefault("NUMBA_CACHE_DIR", cache)
        return _check(options, start, budget)


def _check(options, start, budget):
    """The run itself, once the simulator switch and the cache folder are set."""
    sys.path.insert(0, str(ROOT))
    faulthandler.dump_traceback_later(budget + 60, exit=True)
    report = Report(options.out, {n for n in options.checks.split(",") if n})
    workers = options.workers or max(1, (os.cpu_count() or 2) - 4)
    which = options.tests or ("device" if options.simulate else "all")
    on_gpu = not options.simulate

    global cuda
    from numba import cuda

    import dlnumba as xp
    device = xp.Device("cuda", 0)
    report.environment = environment(options.simulate)
    found = peers(on_gpu)
    report.environment.update({f"peer {k}": "yes" if isinstance(v, Peer) else v
                               for k, v in found.items()})
    report.write()
    started = start_tests(which if report.wants("tests") else "none", workers, options.out,
                          options.simulate)
    if on_gpu:
        for name, function in (("speed_bandwidth", speed_bandwidth),
                               ("speed_elementwise", speed_elementwise),
                               ("speed_from_dlpack", speed_from_dlpack),
                               ("speed_first_calls", speed_first_calls)):
            run_check(report, name, "speed", function, xp, found, device)
            with contextlib.suppress(Exception):
                gc.collect()
                found["cupy"].cupy.get_default_memory_pool().free_all_blocks()
            with contextlib.suppress(Exception):
                found["torch"].torch.cuda.empty_cache()
    torch_peer = found.get("torch")
    run_check(report, "user_kernel", "correctness", check_user_kernel, xp, torch_peer, device,
              options.simulate)
    for name, peer in found.items():
        if isinstance(peer, Peer):
            run_check(report, f"dlpack_{name}", "correctness", check_dlpack, xp, peer,
                      device if on_gpu else xp.Device("cpu"))
        else:
            report.add(f"dlpack_{name}", "correctness", "skip", 0, peer)
    for name in ("torch", "cupy"):
        peer = found.get(name)
        if on_gpu and isinstance(peer, Peer):
            run_check(report, f"streams_{name}", "correctness", check_streams, xp, peer, device)
        else:
            report.add(f"streams_{name}", "correctness", "skip", 0,
                       "the simulator has no streams" if not on_gpu else str(peer))
    run_check(report, "moves", "correctness", check_moves, xp, torch_peer, device,
              options.simulate)
    run_check(report, "device_vs_host", "correctness", check_device_vs_host, xp, device,
              options.simulate)
    finish_tests(report, started, start + budget)
    report.environment["wall seconds"] = round(time.perf_counter() - start, 1)
    report.write()
    print()
    print(report.table())
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
