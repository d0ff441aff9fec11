"""dlnumba on a CUDA GPU against CuPy, PyTorch CUDA and raw ``cudaMemcpy``, in the same run.

Skipped (NotImplementedError in setup) without a GPU: when ``dlnumba.cuda.device_count()`` is
0 or Numba's CUDA simulator is on; a peer that is not installed (or a PyTorch without CUDA) is
skipped alone. Every timed function ends by synchronizing the device of its library, so the
clock stops when the work is done; the check in setup (once per process: values against NumPy's
on the host) is also the warm-up, outside the timed region. CUDA starts only in the benchmark
processes, never in the asv process that forks them.

- ``TimeCudaCopy``: a C-contiguous copy of a 16384 x 16384 float32 array (1 GiB) or of its
  transpose: ``xp.asarray(x.T, copy=True)``, ``cupy.ascontiguousarray(c.T)``,
  ``t.T.contiguous()``; ``cudaMemcpy`` is a device-to-device copy of the same bytes into an
  existing buffer (Numba's ``copy_to_device``), the bandwidth the copy kernels aim at.
- ``TimeCudaTransfer``: 256 MiB between a host buffer and the device; the buffer is pinned
  (``cuda.pinned_array``, which every library reads in place) or pageable (a NumPy array,
  which dlnumba stages through its pinned buffers and the others leave to the driver).
  ``method="new"`` allocates the destination (dlnumba ``to_device``, ``cupy.asarray`` /
  ``.get()``, ``Tensor.to``), and device-to-host lands in ordinary pageable memory; ``"into"``
  writes an existing destination (dlnumba ``dst[...] = src``, CuPy ``set`` / ``get(out=)``,
  ``Tensor.copy_``). ``cudaMemcpy`` is Numba's ``copy_to_device`` / ``copy_to_host`` on the
  buffer: the bound for both methods.
- ``TimeCudaFromDLPack``: 100 imports of a 3 x 4 float32 array of another library:
  ``xp.from_dlpack`` of a PyTorch tensor, ``torch.from_dlpack`` of a CuPy array,
  ``cupy.from_dlpack`` of a PyTorch tensor.
- ``TimeCudaCast``, ``TimeCudaElementwise``, ``TimeCudaReduce``, ``TimeCudaScanAndArgmax``:
  float32 to float64, ``add`` and ``exp``, ``sum`` over all axes, axis 0 and axis 1, and
  ``cumulative_sum`` and ``argmax`` along axis 1, on 8192 x 8192 float32 (256 MiB).
"""

import numba
import numpy as np

import dlnumba as xp

from ._common import CALLS, MiB, assert_matches, cached, check_once, convert, torch

LIBRARIES = ["dlnumba", "cupy", "torch"]
_CUDA = xp.Device("cuda", 0)
_SHAPE = (8192, 8192)  # 256 MiB of float32
_COPY_SHAPE = (16384, 16384)  # 1 GiB
_TRANSFER = 256 * MiB // 4


def _require(library):
    """Raise NotImplementedError (asv: skip) unless ``library`` can run on a GPU here."""
    import dlnumba.cuda
    if numba.config.ENABLE_CUDASIM or dlnumba.cuda.device_count() == 0:
        raise NotImplementedError("no CUDA GPU (or Numba's CUDA simulator is on)")
    if library == "torch" and (torch is None or not torch.cuda.is_available()):
        raise NotImplementedError("PyTorch with CUDA is not installed")
    if library == "cupy":
        _cupy()


def _cupy():
    try:
        import cupy
    except ImportError:
        raise NotImplementedError("CuPy is not installed") from None
    return cupy


def _cuda():
    """numba-cuda's ``numba.cuda`` (imported by dlnumba.cuda when a GPU is found)."""
    from numba import cuda
    return cuda


def _module(library):
    if library == "dlnumba":
        return xp
    return torch if library == "torch" else _cupy()


def _pinned(a):
    """A copy of NumPy array ``a`` in pinned (page-locked) host memory."""
    pinned = _cuda().pinned_array(a.shape, a.dtype)
    pinned[...] = a
    return pinned


def _synchronize(library):
    """Wait until the device work ``library`` queued is done."""
    if library == "torch":
        torch.cuda.synchronize()
    elif library == "cupy":
        _cupy().cuda.Device().synchronize()
    else:
        _cuda().synchronize()


def _to_device(library, a):
    """Host NumPy array ``a`` copied to GPU 0 as an array of ``library`` (Numba's for
    ``cudaMemcpy``)."""
    if library == "dlnumba":
        return xp.asarray(a, device=_CUDA)
    if library == "cupy":
        return _cupy().asarray(a)
    if library == "torch":
        return torch.from_numpy(a).to("cuda")
    return _cuda().to_device(a)


def _to_host(result):
    """A device array of any library here (or a host one) as a host NumPy array."""
    if isinstance(result, xp.ndarray):
        return np.asarray(result.to_device("cpu"))
    if torch is not None and isinstance(result, torch.Tensor):
        return result.cpu().numpy()
    if isinstance(result, np.ndarray):
        return result
    if hasattr(result, "copy_to_host"):
        return result.copy_to_host()
    return _cupy().asnumpy(result)


def _into(write, destination):
    """A function that calls ``write()`` and returns ``destination``, the array it wrote."""
    def run():
        write()
        return destination
    return run


def _random(shape):
    return cached(("random", shape),
                  lambda: np.random.default_rng(0).random(shape, dtype=np.float32))


def _on_device(library, shape):
    """The random float32 array of ``shape`` on GPU 0, in ``library``, once per process."""
    return cached((library, shape), lambda: _to_device(library, _random(shape)))


class _Timed:
    """Times ``self.run`` (a function of no arguments, set by setup), synchronized."""

    def time_run(self, *params):
        self.run()
        _synchronize(params[-1])


class TimeCudaCopy(_Timed):
    params = (["contiguous", "transpose"], LIBRARIES + ["cudaMemcpy"])
    param_names = ("layout", "library")

    def setup(self, layout, library):
        _require(library)
        shape = _COPY_SHAPE
        x = _on_device(library, shape)
        transpose = layout == "transpose"
        if library == "dlnumba":
            self.run = lambda: xp.asarray(x.T if transpose else x, copy=True)
        elif library == "cupy":
            cupy = _cupy()
            self.run = (lambda: cupy.ascontiguousarray(x.T)) if transpose else x.copy
        elif library == "torch":
            self.run = (lambda: x.T.contiguous()) if transpose else x.clone
        else:
            out = cached("out", lambda: _cuda().device_array_like(x))
            self.run = _into(lambda: out.copy_to_device(x), out)
        transposed = transpose and library != "cudaMemcpy"
        check_once((layout, library), lambda: assert_matches(
            _to_host(self.run()), _random(shape).T if transposed else _random(shape)))


class TimeCudaTransfer:
    params = (["host_to_device", "device_to_host"], ["pinned", "pageable"], ["new", "into"],
              LIBRARIES + ["cudaMemcpy"])
    param_names = ("direction", "memory", "method", "library")

    def setup(self, direction, memory, method, library):
        _require(library)
        n = _TRANSFER
        buffer = cached(memory, lambda: _pinned(_random((n,))) if memory == "pinned" else
                        _random((n,)).copy())
        if direction == "host_to_device":
            self.run = self._upload(library, method, buffer)
        else:
            self.run = self._download(library, method, buffer, _on_device(library, (n,)))

        def check():
            if direction == "device_to_host":
                buffer[:] = 0  # the values must come from the device
            assert_matches(_to_host(self.run()), _random((n,)))

        check_once((direction, memory, method, library), check)

    @staticmethod
    def _upload(library, method, buffer):
        """Copy the host buffer to the device and return the device array."""
        if library == "cudaMemcpy":
            device = _cuda().device_array_like(buffer)
            return _into(lambda: device.copy_to_device(buffer), device)
        source = convert(library, buffer)
        if method == "new":
            return {"dlnumba": lambda: source.to_device(_CUDA),
                    "cupy": lambda: _cupy().asarray(source),
                    "torch": lambda: source.to("cuda")}[library]
        device = _to_device(library, np.zeros_like(buffer))
        return {"dlnumba": _into(lambda: device.__setitem__(..., source), device),
                "cupy": _into(lambda: device.set(source), device),
                "torch": lambda: device.copy_(source)}[library]

    @staticmethod
    def _download(library, method, buffer, device):
        """Copy the device array to the host and return the host array."""
        if library == "cudaMemcpy":
            return lambda: device.copy_to_host(buffer)
        if method == "new":
            return {"dlnumba": lambda: device.to_device("cpu"), "cupy": lambda: device.get(),
                    "torch": lambda: device.cpu()}[library]
        host = convert(library, buffer)
        return {"dlnumba": _into(lambda: host.__setitem__(..., device), host),
                "cupy": lambda: device.get(out=buffer),
                "torch": lambda: host.copy_(device)}[library]

    def time_transfer(self, direction, memory, method, library):
        self.run()
        _synchronize(library)


class TimeCudaFromDLPack:
    params = LIBRARIES
    param_names = ["library"]
    _SOURCE = {"dlnumba": "torch", "torch": "cupy", "cupy": "torch"}

    def setup(self, library):
        _require(library)
        _require(self._SOURCE[library])
        data = np.arange(12, dtype=np.float32).reshape(3, 4)
        self.a = _to_device(self._SOURCE[library], data)
        self.from_dlpack = _module(library).from_dlpack
        check_once(library, lambda: assert_matches(_to_host(self.from_dlpack(self.a)), data))

    def time_100_imports(self, library):
        from_dlpack, a = self.from_dlpack, self.a
        for _ in range(CALLS):
            from_dlpack(a)
        _synchronize(library)


class TimeCudaCast(_Timed):
    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        _require(library)
        x = _on_device(library, _SHAPE)
        self.run = {"dlnumba": lambda: xp.astype(x, xp.float64),
                    "cupy": lambda: x.astype("float64"),
                    "torch": lambda: x.to(torch.float64)}[library]
        check_once(library, lambda: assert_matches(
            _to_host(self.run()), _random(_SHAPE).astype(np.float64)))


class TimeCudaElementwise(_Timed):
    params = (["add", "exp"], LIBRARIES)
    param_names = ("function", "library")

    def setup(self, function, library):
        _require(library)
        x = _on_device(library, _SHAPE)
        module = _module(library)
        self.run = (lambda: module.add(x, x)) if function == "add" else (lambda: module.exp(x))
        a = _random(_SHAPE)
        check_once((function, library), lambda: assert_matches(
            _to_host(self.run()), a + a if function == "add" else np.exp(a), rtol=1e-6))


class TimeCudaScanAndArgmax(_Timed):
    params = (["cumulative_sum", "argmax"], LIBRARIES)
    param_names = ("function", "library")

    def setup(self, function, library):
        _require(library)
        x = _on_device(library, _SHAPE)
        if library == "dlnumba":
            self.run = lambda: getattr(xp, function)(x, axis=1)
        elif function == "cumulative_sum":
            self.run = lambda: x.cumsum(axis=1) if library == "cupy" else x.cumsum(dim=1)
        else:
            self.run = lambda: x.argmax(axis=1) if library == "cupy" else x.argmax(dim=1)
        a = _random(_SHAPE)
        expected = (np.cumsum(a, axis=1, dtype=np.float64).astype(np.float32)
                    if function == "cumulative_sum" else np.argmax(a, axis=1))
        check_once((function, library), lambda: assert_matches(
            _to_host(self.run()), expected, rtol=1e-4 if function == "cumulative_sum" else 0))


class TimeCudaReduce(_Timed):
    params = (["all", "axis0", "axis1"], LIBRARIES)
    param_names = ("axes", "library")

    def setup(self, axes, library):
        _require(library)
        axis = {"all": None, "axis0": 0, "axis1": 1}[axes]
        x = _on_device(library, _SHAPE)
        total = _module(library).sum
        self.run = lambda: total(x, axis=axis)
        check_once((axes, library), lambda: assert_matches(
            _to_host(self.run()),
            np.sum(_random(_SHAPE).astype(np.float64), axis=axis).astype(np.float32),
            rtol=1e-5))
