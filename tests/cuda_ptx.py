"""Compile dlnumba's CUDA kernels for a real GPU (PTX for sm_80), without a GPU.

The simulator runs kernels as Python, so it never checks that they type and lower for the
CUDA target; NVVM does, given numba-cuda's NVVM and NVRTC libraries. Two steps, each its own
process because the simulator is chosen at import:

``record OUT``  (under ``NUMBA_ENABLE_CUDASIM=1``) calls every elementwise function, reduction,
index reduction, scan and cast on CUDA arrays of every dtype, recording the kernels they ask
for instead of running them, and writes their keys to the JSON file OUT.

``compile KEYS SHARD SHARDS``  (without the simulator) compiles every SHARDS-th kernel of KEYS
and of the indexing, ``where``, ``nonzero`` and creation kernels, starting at SHARD, and fails if
one does not compile or leaves an unresolved function (a call NVVM cannot lower, which would only
fail when the module loads on a GPU). Exits 77 when the NVVM libraries are not installed.

``user``  (without the simulator) checks that a user's ``@cuda.jit`` kernel types dlnumba
arrays on a CUDA device by their CUDA Array Interface and compiles for them, and that it
refuses an array in host memory with a TypeError. Exits 77 as ``compile`` does.
"""

import ctypes
import itertools
import json
import sys
import types


def record(path):
    import dlnumba as xp
    from dlnumba.shared.scalar import FUNCTIONS
    from dlnumba.cuda import _kernels

    keys = set()

    def recorder(kind):
        def kernel(*key):
            keys.add((kind, json.dumps(
                [[d.name for d in k] if isinstance(k, tuple) else getattr(k, "name", k)
                 for k in key])))
            return _Unlaunched()

        return kernel

    _kernels._elementwise_kernel = recorder("elementwise")
    _kernels._reduce_kernel = recorder("reduce")
    _kernels._transfer_kernel = recorder("transfer")
    _kernels._arg_reduce_kernel = recorder("arg_reduce")
    _kernels._scan_kernel = recorder("scan")

    device = xp.Device("cuda", 0)
    dtypes = [getattr(xp, name) for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128")]
    arrays = {dtype: xp.ones((2, 3), dtype=dtype, device=device) for dtype in dtypes}
    for name, row in FUNCTIONS.items():
        for dtype in dtypes:
            _try(getattr(xp, name), *[arrays[dtype]] * row.arity)
    for source, target in itertools.product(dtypes, dtypes):
        _try(xp.astype, arrays[source], target)
    for name in ("sum", "prod", "max", "min", "mean", "var", "std", "all", "any",
                 "count_nonzero", "argmax", "argmin", "cumulative_sum", "cumulative_prod"):
        for dtype, axis in itertools.product(dtypes, (None, 0)):
            _try(getattr(xp, name), arrays[dtype], axis=axis)
    with open(path, "w") as file:
        json.dump(sorted(keys), file)


class _Unlaunched:
    """A kernel that is only recorded: launching it does nothing."""

    def __getitem__(self, configuration):
        return lambda *args: None


def _try(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except (TypeError, ValueError):
        pass  # a dtype the function does not take, or no axis for a 2-D array


def _without_a_gpu():
    """numba-cuda's ``cuda`` and ``types``, set up to compile for an sm_80 GPU that is not
    there; exits 77 where the NVVM libraries are missing."""
    import numba.cuda.dispatcher
    # Device functions are compiled for the current device's compute capability; there is
    # no device here, so name one.
    numba.cuda.dispatcher.get_current_device = lambda: types.SimpleNamespace(
        compute_capability=(8, 0))
    from numba import cuda
    from numba.cuda import types as nbtypes

    try:
        cuda.compile_ptx(lambda a: None, (nbtypes.float64[::1],), cc=(8, 0))
    except Exception as error:  # numba-cuda names the library it misses
        print(f"cannot compile PTX here: {error}")
        sys.exit(77)
    return cuda, nbtypes


def compile_shard(path, shard, shards):
    cuda, nbtypes = _without_a_gpu()
    from numba.np.numpy_support import from_dtype

    import numpy as np

    from dlnumba import _dtypes
    from dlnumba.cuda import _creation, _kernels, _searching
    from dlnumba.shared.tags import TAGS, UNITS

    def vector(tag):
        return nbtypes.Array(from_dtype(_kernels._storage(tag)), 1, "C")

    i64, layout, flag = nbtypes.int64, nbtypes.int64[::1], nbtypes.boolean
    flags, int64s = nbtypes.boolean[::1], nbtypes.int64[::1]
    with open(path) as file:
        keys = json.load(file)
    keys += [(kind, json.dumps([size])) for kind in ("gather", "scatter", "where", "triangle")
             for size in UNITS]
    keys += [("linspace", json.dumps([dtype])) for dtype in ("float64", "complex128")]
    keys += [("nonzero", "[]")]
    keys = keys[shard::shards]
    failures = []
    for kind, key in keys:
        key = json.loads(key)
        if kind in ("gather", "scatter"):
            unit = vector(UNITS[key[0]])
            kernel = getattr(_kernels, f"_{kind}_kernel")
            signature = ((unit, layout, unit, i64) if kind == "gather" else
                         (unit, layout, layout, unit, i64))
        elif kind == "where":
            unit = vector(UNITS[key[0]])
            kernel = _searching._where_kernel
            signature = (flags, i64, unit, i64, unit, i64, unit, i64, layout, i64, i64)
        elif kind == "nonzero":
            kernel = _searching._nonzero_kernel
            signature = (flags, int64s, layout, i64, int64s, i64, i64)
        elif kind == "triangle":
            kernel = _creation._zero_triangle_kernel
            signature = (vector(UNITS[key[0]]), i64, i64, i64, flag, i64)
        elif kind == "linspace":
            value = from_dtype(np.dtype(key[0]))
            kernel = _creation._linspace_kernel
            signature = (nbtypes.Array(value, 1, "C"), i64, value, value, i64, flag)
        elif kind == "arg_reduce":
            name, source = key
            kernel = _kernels._arg_reduce_kernel(name, getattr(_dtypes, source))
            signature = (vector(TAGS[getattr(_dtypes, source)]), i64, int64s, layout, i64, i64,
                         i64, i64)
        elif kind == "scan":
            name, source, target = key
            source, target = getattr(_dtypes, source), getattr(_dtypes, target)
            kernel = _kernels._scan_kernel(name, source, target)
            signature = (vector(TAGS[source]), i64, vector(TAGS[target]), i64, layout, i64,
                         i64, i64, i64, i64)
        elif kind == "transfer":
            source, target = getattr(_dtypes, key[0]), getattr(_dtypes, key[1])
            source_tag, target_tag = _kernels._tags(source, target)
            kernel = _kernels._transfer_kernel(source, target)
            signature = (vector(source_tag), i64, vector(target_tag), i64, layout, i64, i64)
        elif kind == "elementwise":
            name, implementation, dtypes, compute = key
            dtypes = tuple(getattr(_dtypes, dtype) for dtype in dtypes)
            kernel = _kernels._elementwise_kernel(name, implementation, dtypes,
                                                  getattr(_dtypes, compute))
            operands = [vector(TAGS[dtype]) for dtype in dtypes]
            signature = (*itertools.chain(*((operand, i64) for operand in operands)),
                         layout, i64, i64)
        else:
            name, source, accumulator = key
            source, accumulator = getattr(_dtypes, source), getattr(_dtypes, accumulator)
            kernel = _kernels._reduce_kernel(name, source, accumulator)
            signature = (vector(TAGS[source]), i64,
                         nbtypes.Array(from_dtype(accumulator.storage), 1, "C"),
                         layout, i64, layout, i64, i64, i64)
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=(8, 0))
            unresolved = [line for line in ptx.splitlines() if ".extern" in line]
            if unresolved:
                raise RuntimeError(f"unresolved functions {unresolved}")
        except Exception as error:
            failures.append(f"{kind} {key}: {type(error).__name__}: {str(error)[:500]}")
    print(f"{len(keys)} kernels compiled, {len(failures)} failed")
    print("\n".join(failures))
    sys.exit(1 if failures else 0)


def user_kernel():
    cuda, _ = _without_a_gpu()
    from numba.cuda.typing.typeof import typeof

    import dlnumba as xp
    from dlnumba._backend import cuda_package
    from dlnumba import _dtypes
    from dlnumba._array_object import ndarray

    cuda_package()  # as the first array on a device loads it (this one is made below)

    def fill_first_column(y, value):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i, 0] = value

    # Device arrays cannot be allocated without a GPU: these describe host memory as if it
    # were on cuda:0, which is all typing reads (the kernels are never launched).
    memory = bytearray(48)
    address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    on_device = ndarray._new(address, (3, 4), (4, 1), _dtypes.float32, xp.Device("cuda", 0),
                             memory, False)
    for array, expected in ((on_device, "array(float32, 2d, C)"),
                            (on_device.mT, "array(float32, 2d, A)"),
                            (on_device[::-1, ::2], "array(float32, 2d, A)")):
        assert str(typeof(array)) == expected, (typeof(array), expected)
        cuda.compile_ptx(fill_first_column, (typeof(array), typeof(1.0)), cc=(8, 0))
    kernel = cuda.jit(fill_first_column)
    try:
        kernel[1, 32](xp.ones((3, 4)), 1.0)
    except TypeError as error:
        assert "cpu cannot be an argument of a @cuda.jit kernel" in str(error), error
    else:
        raise AssertionError("a host array was passed to a kernel")
    print("user kernels type dlnumba arrays")


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(sys.argv[2])
    elif sys.argv[1] == "compile":
        compile_shard(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        user_kernel()
