"""Every public function and ndarray method, called with arrays on a device dlnumba has no
kernels for (``cuda:0``) whose memory cannot be touched: the address points into a PROT_NONE
mapping, so any host read or write kills the process.

Run as a script, it prints ``START key`` before each case and ``RESULT key outcome`` after it;
``tests/test_device_guard.py`` runs it in a child process and checks the outcomes. ``CASES``
maps a case key to ``(public name, expectation, call)``; the expectation is ``refused`` (an
error that names the device), ``on device`` (every array in the result is on ``cuda:0``) or
``anything`` (only: no crash).
"""

import copy
import ctypes
import mmap
import sys

import numpy as np

import dlnumba as xp
from dlnumba._dtypes import as_dtype
from dlnumba import fft, lib, linalg
from dlnumba._array_object import ndarray
from dlnumba._layout import c_strides
from dlnumba.shared.scalar import FUNCTIONS

CUDA = xp.Device("cuda", 0)
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long)
_POISON_BYTES = 1 << 20
_POISON = _libc.mmap(None, _POISON_BYTES, 0, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)


def c(shape=(2, 3), dtype=xp.float64):
    """An array on cuda:0 whose memory no host access may touch."""
    return ndarray._new(_POISON + 4096, shape, c_strides(shape), as_dtype(dtype), CUDA, None, False)


def h(shape=(2, 3), dtype=xp.float64):
    """An array of ones on the CPU."""
    return xp.ones(shape, dtype=dtype)


def _dtype_for(name):
    if name.startswith("bitwise"):
        return xp.int64
    if name.startswith("logical"):
        return xp.bool
    return xp.float64


CASES = {}


def case(key, name, expectation, call):
    CASES[key] = (name, expectation, call)


for _name, _row in FUNCTIONS.items():
    _f, _d = getattr(xp, _name), _dtype_for(_name)
    if _name == "imag":
        _d = xp.complex128
    if _row.arity == 1:
        case(_name, _name, "refused", lambda f=_f, d=_d: f(c(dtype=d)))
    else:
        case(_name, _name, "refused", lambda f=_f, d=_d: f(c(dtype=d), c(dtype=d)))
        case(f"{_name} cuda-scalar", _name, "refused",
             lambda f=_f, d=_d: f(c(dtype=d), True if d is xp.bool else 1))
        case(f"{_name} cpu-cuda", _name, "refused", lambda f=_f, d=_d: f(h(dtype=d), c(dtype=d)))

case("cumulative_sum", "cumulative_sum", "refused", lambda: xp.cumulative_sum(c(), axis=1))
case("cumulative_prod", "cumulative_prod", "refused", lambda: xp.cumulative_prod(c(), axis=1))
for _name in ("all", "any", "argmax", "argmin", "count_nonzero", "diff", "max", "mean", "min",
              "prod", "sort", "argsort", "std", "sum", "var", "unique_all", "unique_counts",
              "unique_inverse", "unique_values", "nonzero", "tril", "triu", "zeros_like",
              "ones_like", "empty_like"):
    case(_name, _name, "refused", lambda f=getattr(xp, _name): f(c()))
case("full_like", "full_like", "refused", lambda: xp.full_like(c(), 2.0))
case("clip", "clip", "refused", lambda: xp.clip(c(), 0.0, 1.0))
case("clip cuda-bound", "clip", "refused", lambda: xp.clip(h(), c(), 1.0))
for _name in ("empty", "zeros", "ones"):
    case(_name, _name, "refused", lambda f=getattr(xp, _name): f((2,), device=CUDA))
case("full", "full", "refused", lambda: xp.full((2,), 1.0, device=CUDA))
case("eye", "eye", "refused", lambda: xp.eye(2, device=CUDA))
case("arange", "arange", "refused", lambda: xp.arange(3, device=CUDA))
case("linspace", "linspace", "refused", lambda: xp.linspace(0, 1, 3, device=CUDA))
case("asarray", "asarray", "on device", lambda: xp.asarray(c()))
case("asarray copy", "asarray", "refused", lambda: xp.asarray(c(), copy=True))
case("asarray to cpu", "asarray", "refused", lambda: xp.asarray(c(), device="cpu"))
case("asarray from cpu", "asarray", "refused", lambda: xp.asarray(h(), device=CUDA))
case("asarray list", "asarray", "refused", lambda: xp.asarray([1.0, 2.0], device=CUDA))
case("astype", "astype", "refused", lambda: xp.astype(c(), xp.float32))
case("astype no copy", "astype", "on device", lambda: xp.astype(c(), xp.float64, copy=False))
case("from_dlpack", "from_dlpack", "refused", lambda: xp.from_dlpack(c()))
case("from_dlpack to cpu", "from_dlpack", "refused", lambda: xp.from_dlpack(c(), device="cpu"))
case("from_dlpack cpu to cuda", "from_dlpack", "refused",
     lambda: xp.from_dlpack(h(), device=CUDA))
case("to_dlpack", "to_dlpack", "anything", lambda: xp.to_dlpack(c()))
case("meshgrid", "meshgrid", "refused", lambda: xp.meshgrid(c((2,)), c((3,))))
for _name in ("broadcast_arrays",):
    case(_name, _name, "on device", lambda: xp.broadcast_arrays(c(), c((3,))))
case("broadcast_to", "broadcast_to", "on device", lambda: xp.broadcast_to(c(), (4, 2, 3)))
case("concat", "concat", "refused", lambda: xp.concat([c(), c()]))
case("concat mixed", "concat", "refused", lambda: xp.concat([h(), c()]))
case("stack", "stack", "refused", lambda: xp.stack([c(), c()]))
case("expand_dims", "expand_dims", "on device", lambda: xp.expand_dims(c(), axis=0))
case("flip", "flip", "on device", lambda: xp.flip(c()))
case("moveaxis", "moveaxis", "on device", lambda: xp.moveaxis(c(), 0, 1))
case("permute_dims", "permute_dims", "on device", lambda: xp.permute_dims(c(), (1, 0)))
case("matrix_transpose", "matrix_transpose", "on device", lambda: xp.matrix_transpose(c()))
case("squeeze", "squeeze", "on device", lambda: xp.squeeze(c((1, 3)), axis=0))
case("unstack", "unstack", "on device", lambda: xp.unstack(c()))
case("reshape view", "reshape", "on device", lambda: xp.reshape(c(), (3, 2)))
case("reshape copy", "reshape", "refused", lambda: xp.reshape(c().mT, (6,)))
case("repeat", "repeat", "refused", lambda: xp.repeat(c(), 2))
case("repeat cuda repeats", "repeat", "refused",
     lambda: xp.repeat(h((3,)), c((3,), xp.int64)))
case("roll", "roll", "refused", lambda: xp.roll(c(), 1))
case("tile", "tile", "refused", lambda: xp.tile(c(), (2,)))
case("take", "take", "refused", lambda: xp.take(c(), h((2,), xp.int64) - 1, axis=1))
case("take cuda indices", "take", "refused", lambda: xp.take(h(), c((2,), xp.int64), axis=1))
case("take_along_axis", "take_along_axis", "refused",
     lambda: xp.take_along_axis(c(), h((2, 1), xp.int64) - 1, axis=1))
case("searchsorted", "searchsorted", "refused", lambda: xp.searchsorted(c((3,)), h((2,))))
case("searchsorted cuda x2", "searchsorted", "refused",
     lambda: xp.searchsorted(h((3,)), c((2,))))
case("searchsorted cuda sorter", "searchsorted", "refused",
     lambda: xp.searchsorted(h((3,)), h((2,)), sorter=c((3,), xp.int64)))
case("where", "where", "refused", lambda: xp.where(c(dtype=xp.bool), c(), c()))
case("where mixed", "where", "refused", lambda: xp.where(h(dtype=xp.bool), h(), c()))
case("fuse", "fuse", "refused", lambda: xp.fuse(lambda a, b: a * b + 1)(c(), c()))
case("fuse reduction", "fuse", "refused", lambda: xp.fuse(lambda a: xp.sum(a * a))(c()))
case("fuse mixed", "fuse", "refused", lambda: xp.fuse(lambda a, b: a * b)(h(), c()))
case("isin", "isin", "refused", lambda: xp.isin(c(), c((4,))))
case("isin mixed", "isin", "refused", lambda: xp.isin(h(), c((4,))))
for _name in ("matmul", "tensordot", "vecdot"):
    case(_name, _name, "refused", lambda f=getattr(xp, _name): f(c((3, 3)), c((3, 3))))
    case(f"{_name} mixed", _name, "refused", lambda f=getattr(xp, _name): f(h((3, 3)), c((3, 3))))
for _name in ("broadcast_shapes", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
              "__array_namespace_info__", "is_strict", "set_strict", "strict"):
    case(_name, _name, "anything", {
        "broadcast_shapes": lambda: xp.broadcast_shapes((2, 1), (3,)),
        "can_cast": lambda: xp.can_cast(c(), xp.float32),
        "finfo": lambda: xp.finfo(c()),
        "iinfo": lambda: xp.iinfo(c(dtype=xp.int32)),
        "isdtype": lambda: xp.isdtype(xp.float64, "real floating"),
        "result_type": lambda: xp.result_type(c(), c(dtype=xp.float32)),
        "__array_namespace_info__": lambda: xp.__array_namespace_info__().devices(),
        "is_strict": xp.is_strict,
        "set_strict": lambda: xp.set_strict(xp.set_strict(True)),
        "strict": lambda: xp.strict().__enter__(),
    }[_name])

for _name in ("cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_norm",
              "matrix_rank", "pinv", "qr", "slogdet", "svd", "svdvals", "trace"):
    case(f"linalg.{_name}", f"linalg.{_name}", "refused",
         lambda f=getattr(linalg, _name): f(c((3, 3))))
case("linalg.eig complex", "linalg.eig", "refused", lambda: linalg.eig(c((3, 3), xp.complex128)))
case("linalg.pinv cuda rtol", "linalg.pinv", "refused",
     lambda: linalg.pinv(h((3, 3)), rtol=c((), xp.float64)))
case("linalg.matrix_power", "linalg.matrix_power", "refused",
     lambda: linalg.matrix_power(c((3, 3)), 2))
case("linalg.vector_norm", "linalg.vector_norm", "refused", lambda: linalg.vector_norm(c()))
case("linalg.diagonal", "linalg.diagonal", "on device", lambda: linalg.diagonal(c((3, 3))))
case("linalg.outer", "linalg.outer", "refused", lambda: linalg.outer(c((3,)), c((3,))))
case("linalg.outer mixed", "linalg.outer", "refused", lambda: linalg.outer(h((3,)), c((3,))))
for _name in ("cross", "solve", "matmul", "tensordot", "vecdot"):
    case(f"linalg.{_name}", f"linalg.{_name}", "refused",
         lambda f=getattr(linalg, _name): f(c((3, 3)), c((3, 3))))
    case(f"linalg.{_name} mixed", f"linalg.{_name}", "refused",
         lambda f=getattr(linalg, _name): f(h((3, 3)), c((3, 3))))
case("linalg.matrix_transpose", "linalg.matrix_transpose", "on device",
     lambda: linalg.matrix_transpose(c()))

for _name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
              "fftshift", "ifftshift"):
    dtype = xp.float64 if _name.startswith(("rfft", "ihfft", "fftshift", "ifftshift")) \
        else xp.complex128
    case(f"fft.{_name}", f"fft.{_name}", "refused",
         lambda f=getattr(fft, _name), d=dtype: f(c(dtype=d)))
for _name in ("fftfreq", "rfftfreq"):
    case(f"fft.{_name}", f"fft.{_name}", "refused",
         lambda f=getattr(fft, _name): f(4, device=CUDA))

_OPERATORS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
}
for _dunder, _symbol in _OPERATORS.items():
    _d = xp.int64 if _dunder in ("and", "or", "xor", "lshift", "rshift") else xp.float64
    case(f"__{_dunder}__", f"ndarray.__{_dunder}__", "refused",
         lambda s=_symbol, d=_d: eval(f"a {s} b", {"a": c(dtype=d), "b": c(dtype=d)}))
    case(f"__r{_dunder}__", f"ndarray.__r{_dunder}__", "refused",
         lambda s=_symbol, d=_d: eval(f"2 {s} a", {"a": c(dtype=d)}))
    case(f"__i{_dunder}__", f"ndarray.__i{_dunder}__", "refused",
         lambda s=_symbol, d=_d: exec(f"a {s}= b", {"a": c(dtype=d), "b": c(dtype=d)}))
    case(f"__i{_dunder}__ cpu", f"ndarray.__i{_dunder}__", "refused",
         lambda s=_symbol, d=_d: exec(f"a {s}= b", {"a": h(dtype=d), "b": c(dtype=d)}))
for _dunder, _symbol in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                         ("ge", ">=")):
    case(f"__{_dunder}__", f"ndarray.__{_dunder}__", "refused",
         lambda s=_symbol: eval(f"a {s} b", {"a": c(), "b": c()}))
case("__matmul__", "ndarray.__matmul__", "refused", lambda: c((3, 3)) @ c((3, 3)))
case("__rmatmul__", "ndarray.__rmatmul__", "refused", lambda: h((3, 3)).__rmatmul__(c((3, 3))))
case("__imatmul__", "ndarray.__imatmul__", "refused",
     lambda: c((3, 3)).__imatmul__(c((3, 3))))
case("__imatmul__ cpu", "ndarray.__imatmul__", "refused",
     lambda: h((3, 3)).__imatmul__(c((3, 3))))
case("__abs__", "ndarray.__abs__", "refused", lambda: abs(c()))
case("__neg__", "ndarray.__neg__", "refused", lambda: -c())
case("__pos__", "ndarray.__pos__", "refused", lambda: +c())
case("__invert__", "ndarray.__invert__", "refused", lambda: ~c(dtype=xp.int64))
for _dunder, _convert in (("bool", bool), ("int", int), ("float", float), ("complex", complex)):
    case(f"__{_dunder}__", f"ndarray.__{_dunder}__", "refused", lambda f=_convert: f(c(())))
case("__index__", "ndarray.__index__", "refused", lambda: [0, 1][c((), xp.int64)])
case("__getitem__", "ndarray.__getitem__", "on device", lambda: c()[0, 1:])
case("__getitem__ NumPy index", "ndarray.__getitem__", "refused", lambda: c()[np.array([0, 1])])
case("__reduce__", "ndarray.__reduce__", "refused", lambda: c().__reduce__())
case("pad", "pad", "refused", lambda: xp.pad(c(), 1))
for _name in xp._nan_functions.__all__:
    case(_name, _name, "refused", lambda f=getattr(xp, _name): f(c()))
case("__getitem__ array", "ndarray.__getitem__", "refused",
     lambda: c()[h((2,), xp.int64) - 1, h((2,), xp.int64)])
case("__getitem__ mask", "ndarray.__getitem__", "refused", lambda: c()[h(dtype=xp.bool)])
case("__getitem__ cuda index", "ndarray.__getitem__", "refused",
     lambda: h()[c((2,), xp.int64), h((2,), xp.int64)])
case("__setitem__", "ndarray.__setitem__", "refused", lambda: c().__setitem__(0, 1.0))
case("__setitem__ cuda value", "ndarray.__setitem__", "refused",
     lambda: h().__setitem__(0, c((3,))))
case("__setitem__ array key", "ndarray.__setitem__", "refused",
     lambda: c().__setitem__(h(dtype=xp.bool), 1.0))
case("__setitem__ array key cuda value", "ndarray.__setitem__", "refused",
     lambda: h().__setitem__(h(dtype=xp.bool), c(())))
case("__iter__", "ndarray.__iter__", "on device", lambda: list(c()))
case("__repr__", "ndarray.__repr__", "anything", lambda: repr(c()))
case("__array_interface__", "ndarray.__array_interface__", "anything",
     lambda: c().__array_interface__)
case("__array_ufunc__", "ndarray.__array_ufunc__", "refused", lambda: np.add(c(), 1.0))
case("__array__", "ndarray.__array__", "refused", lambda: np.asarray(c()))
case("__array_namespace__", "ndarray.__array_namespace__", "anything",
     lambda: c().__array_namespace__())
case("__dlpack__", "ndarray.__dlpack__", "anything", lambda: c().__dlpack__())
case("__dlpack__ to cpu", "ndarray.__dlpack__", "refused",
     lambda: c().__dlpack__(dl_device=(1, 0), max_version=(1, 0)))
case("__cuda_array_interface__", "ndarray.__cuda_array_interface__", "anything",
     lambda: c().__cuda_array_interface__)
case("__dlpack_device__", "ndarray.__dlpack_device__", "anything",
     lambda: c().__dlpack_device__())
case("to_device cpu", "ndarray.to_device", "refused", lambda: c().to_device("cpu"))
case("to_device same", "ndarray.to_device", "on device", lambda: c().to_device(CUDA))
for _attribute in ("T", "mT"):
    case(_attribute, f"ndarray.{_attribute}", "on device", lambda a=_attribute: getattr(c(), a))
for _attribute in ("device", "dtype", "ndim", "shape", "size"):
    case(_attribute, f"ndarray.{_attribute}", "anything", lambda a=_attribute: getattr(c(), a))


case("transpose", "transpose", "on device", lambda: xp.transpose(c()))
case("einsum", "einsum", "refused", lambda: xp.einsum("ij,jk", c(), c((3, 2))))
case("einsum view", "einsum", "on device", lambda: xp.einsum("ij->ji", c()))
case("median", "median", "refused", lambda: xp.median(c()))
case("quantile", "quantile", "refused", lambda: xp.quantile(c(), 0.5))
case("percentile", "percentile", "refused", lambda: xp.percentile(c(), [5, 50], axis=0))
case("sliding_window_view", "lib.stride_tricks.sliding_window_view", "on device",
     lambda: lib.stride_tricks.sliding_window_view(c(), 2, axis=1))
case("__array_function__", "ndarray.__array_function__", "refused", lambda: np.sum(c()))
case("__array_function__ NumPy's own", "ndarray.__array_function__", "anything",
     lambda: np.median(c()))
case("__array_priority__", "ndarray.__array_priority__", "anything",
     lambda: c().__array_priority__)
case("__len__", "ndarray.__len__", "anything", lambda: len(c()))
case("__copy__", "ndarray.__copy__", "refused", lambda: copy.copy(c()))
case("__sizeof__", "ndarray.__sizeof__", "anything", lambda: sys.getsizeof(c()))
case("__deepcopy__", "ndarray.__deepcopy__", "refused", lambda: copy.deepcopy(c()))
for _method in ("sum", "prod", "mean", "std", "var", "max", "min", "any", "all", "argmax",
                "argmin", "cumsum", "cumprod", "argsort", "copy", "flatten", "nonzero",
                "tolist", "item", "sort", "round", "imag", "conj", "conjugate"):
    case(f"ndarray.{_method}", f"ndarray.{_method}", "refused",
         lambda m=_method: getattr(c(), m) if m == "imag" else getattr(c(), m)())
for _method in ("reshape", "transpose", "ravel", "real", "squeeze"):
    case(f"ndarray.{_method}", f"ndarray.{_method}", "on device",
         lambda m=_method: getattr(c((1, 3)), m) if m == "real" else
         getattr(c((1, 3)), m)(3) if m == "reshape" else getattr(c((1, 3)), m)())
case("ndarray.astype", "ndarray.astype", "refused", lambda: c().astype(np.float32))
case("ndarray.clip", "ndarray.clip", "refused", lambda: c().clip(0.0, 1.0))
case("ndarray.take", "ndarray.take", "refused", lambda: c().take(h((2,), xp.int64), axis=1))
case("ndarray.repeat", "ndarray.repeat", "refused", lambda: c().repeat(2))
case("ndarray.dot", "ndarray.dot", "refused", lambda: c().dot(c((3, 2))))
case("ndarray.swapaxes", "ndarray.swapaxes", "refused", lambda: c().swapaxes(0, 1))
case("ndarray.fill", "ndarray.fill", "refused", lambda: c().fill(1.0))


def _njit_sum():
    import numba

    @numba.njit
    def total(a):
        return a.sum()

    return total(c())


case("@njit argument", "numba.njit", "refused", _njit_sum)


def _arrays(value):
    if isinstance(value, ndarray):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _arrays(item)


def main():
    for key, (_, _, call) in CASES.items():
        print(f"START {key}", flush=True)
        try:
            result = call()
        except Exception as error:  # noqa: BLE001 - every outcome is reported to the parent
            message = " ".join(str(error).split())
            print(f"RESULT {key}\traised\t{type(error).__name__}\t{message}", flush=True)
        else:
            devices = sorted({str(a.device) for a in _arrays(result)})
            print(f"RESULT {key}\treturned\t{','.join(devices)}\t", flush=True)


if __name__ == "__main__":
    sys.exit(main())
