"""The backend interface: every backend has every entry point, the device alone picks the
backend, and the layers stay apart (``tools/architecture.py``)."""

import importlib.util
import pathlib

import pytest

import dlnumba as xp
from dlnumba import _backend, kernels

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _architecture(package=ROOT / "dlnumba"):
    """``tools/architecture.py``'s measure of ``package``."""
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "tools/architecture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.measure(package)


def test_the_cpu_backend_has_every_entry_point():
    assert _backend.backend_of(xp.Device("cpu")) is kernels
    for name in _backend.ENTRY_POINTS:
        assert callable(getattr(kernels, name)), name


def test_a_cuda_backend_has_every_entry_point(device):
    backend = _backend.backend_of(device)
    for name in _backend.DEVICE_ENTRY_POINTS if device.type == "cuda" else _backend.ENTRY_POINTS:
        assert callable(getattr(backend, name)), name
    assert _backend.backend_of(device) is backend


def test_an_unusable_device_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="cuda:7"):
        _backend.backend_of(xp.Device("cuda", 7))


def test_front_end_modules_never_pick_a_backend_themselves():
    """Front-end modules ask a device what its memory allows (``host_memory``), never which
    device it is; only the CUDA array interface, which describes CUDA memory alone, tests the
    device's type outside ``_backend``."""
    assert [(module, function) for module, function, _ in _architecture()["device branches"]] \
        == [("_array_object", "ndarray.__cuda_array_interface__")]


def test_the_guard_sees_every_form_of_device_test(tmp_path):
    """Comparisons with the CPU device, with a device type's name and ``_cuda(...)`` calls, in
    functions and methods of a front-end module; not a device's capabilities."""
    (tmp_path / "_front.py").write_text(
        "def f(x):\n    return x._device != CPU or x._device == CPU\n"
        "class A:\n    def g(self, device):\n        if device.type == 'cuda':\n"
        "            return _cuda(device)\n        return 'cpu' != device.type\n"
        "def h(x):\n    return x._device.host_memory and x._device is x._device\n")
    found = _architecture(tmp_path)["device branches"]
    assert sorted((function, line) for _, function, line in found) == [
        ("A.g", 5), ("A.g", 6), ("A.g", 7), ("f", 2), ("f", 2)]


def test_the_layers_below_the_front_end_import_none_of_it_nor_private_names_across_layers():
    """The interface (``_backend``), the kernel layers and the core import no front-end
    module: ``ndarray`` registers itself as a ``@cuda.jit`` argument type with the backend."""
    shape = _architecture()
    assert shape["front end imported below it"] == []
    assert shape["private imports across layers"] == []
