"""The backend interface: every backend has every entry point, the device alone picks the
backend, and the layers stay apart (``tools/architecture.py``)."""

import importlib.util
import pathlib

import pytest

import dlnumba as xp
from dlnumba import _backend, kernels

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _architecture():
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "tools/architecture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.measure(ROOT / "dlnumba")


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
    """Only the host round trip of host-only families (``_arguments.on_host``, and
    ``both_on_host`` for their lean paths) and the buffer protocol, which host memory alone
    has (``_buffer.describe``), test the device outside ``_backend``."""
    assert sorted({module for module, _ in _architecture()["device branches"]}) == [
        "_arguments", "_buffer"]


def test_the_layers_below_the_front_end_import_none_of_it_nor_private_names_across_layers():
    """The interface (``_backend``), the kernel layers and the core import no front-end
    module: ``ndarray`` registers itself as a ``@cuda.jit`` argument type with the backend."""
    shape = _architecture()
    assert shape["front end imported below it"] == []
    assert shape["private imports across layers"] == []
