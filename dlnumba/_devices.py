"""Devices: the Device class and the parsing of every accepted ``device=`` spelling."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._typing import DeviceLike

__all__ = ["Device", "DLDeviceType", "CPU", "as_device"]


class DLDeviceType(enum.IntEnum):
    """DLPack device types, as ``__dlpack_device__`` returns them."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


LEGACY_DEFAULT_STREAM = 1  # the standard's stream integer for CUDA's legacy default stream
_TYPE_BY_NAME = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA}
_NAME_BY_TYPE = {v: k for k, v in _TYPE_BY_NAME.items()}


class Device:
    """A device that holds array memory: ``Device("cpu")`` or ``Device("cuda", n)``, one
    object per device.

    Parameters
    ----------
    type : {"cpu", "cuda"}
        The kind of device.
    index : int, optional
        The device ordinal; always 0 for the CPU.

    Attributes
    ----------
    host_memory : bool
        Whether the host reads and writes the device's memory in place: NumPy's array
        interface, the buffer protocol, ``@njit`` functions and printing work on its arrays.
    """

    __slots__ = ("type", "index", "host_memory")
    _interned: dict[tuple[str, int], Device] = {}

    def __new__(cls, type: str, index: int = 0) -> Device:
        if type not in _TYPE_BY_NAME:
            raise ValueError(f"unknown device type {type!r}; expected 'cpu' or 'cuda'")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError(f"device index must be a non-negative int, not {index!r}")
        if type == "cpu" and index != 0:
            raise ValueError(f"the CPU device has index 0, not {index}")
        # one object per device, so that equality and hashing are Python's fast identity ones
        device = cls._interned.get((type, index))
        if device is not None:
            return device
        device = super().__new__(cls)
        device.type, device.index, device.host_memory = type, index, type == "cpu"
        return cls._interned.setdefault((type, index), device)

    def __reduce__(self) -> tuple:
        return (Device, (self.type, self.index))

    @property
    def dlpack(self) -> tuple[DLDeviceType, int]:
        """The ``(DLDeviceType, device_id)`` pair of this device."""
        return (_TYPE_BY_NAME[self.type], self.index)

    def __repr__(self) -> str:
        return "Device('cpu')" if self.type == "cpu" else f"Device('cuda', {self.index})"

    def __str__(self) -> str:
        return "cpu" if self.type == "cpu" else f"cuda:{self.index}"


CPU = Device("cpu")


def device_name(device_type: int, device_id: int) -> str:
    """Name a DLPack device pair for messages, e.g. ``kDLROCM:1``."""
    try:
        return f"{DLDeviceType(device_type).name}:{device_id}"
    except ValueError:
        return f"unknown device type {device_type}:{device_id}"


def from_dlpack_device(device_type: int, device_id: int) -> Device:
    """Return the Device for a DLPack ``(device_type, device_id)`` pair.

    Raises
    ------
    ValueError
        If dlnumba has no device of that type.
    """
    name = _NAME_BY_TYPE.get(device_type)
    if name is None:
        raise ValueError(f"device {device_name(device_type, device_id)} is not supported; "
                         "dlnumba arrays live on kDLCPU (1) or kDLCUDA (2)")
    return CPU if name == "cpu" and device_id == 0 else Device(name, device_id)


def as_device(device: DeviceLike) -> Device:
    """Parse a ``device=`` argument.

    Parameters
    ----------
    device : Device, str or tuple
        A Device; ``"cpu"``, ``"cuda"`` or ``"cuda:N"``; or a DLPack pair such as ``(1, 0)``.

    Returns
    -------
    Device
        :data:`CPU` itself for the CPU, so that ``device is CPU`` holds for every host array.

    Raises
    ------
    ValueError
        For a string or pair that names no supported device.
    TypeError
        For any other kind of object.
    """
    if isinstance(device, Device):
        return CPU if device == CPU else device
    if isinstance(device, str):
        kind, sep, index = device.partition(":")
        if kind not in _TYPE_BY_NAME or (sep and not index.isdigit()):
            raise ValueError(f"cannot parse device {device!r}; expected 'cpu', 'cuda' or 'cuda:N'")
        device = Device(kind, int(index) if sep else 0)
        return CPU if device == CPU else device
    if isinstance(device, tuple) and len(device) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in device):
        return from_dlpack_device(*device)
    raise TypeError(f"device must be a dlnumba.Device, a string like 'cpu' or 'cuda:0', or a "
                    f"DLPack (device_type, device_id) tuple, not {device!r}")
