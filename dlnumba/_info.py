"""``__array_namespace_info__``: what this namespace supports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._backend import available_devices, check_available
from ._devices import CPU, as_device
from ._dtypes import DTYPES, KINDS, complex128, float64, int64
from ._layout import MAX_NDIM

if TYPE_CHECKING:
    from ._devices import Device
    from ._typing import Capabilities, DataTypes, DefaultDataTypes, DeviceLike


class __array_namespace_info__:
    """Inspection of the namespace: devices, dtypes, default dtypes and capabilities."""

    def capabilities(self) -> Capabilities:
        """What optional behaviour the namespace has: boolean-mask indexing, and functions whose
        result shape depends on the data (``nonzero``, ``unique_*``, ``repeat`` with an array of
        counts)."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": MAX_NDIM}

    def default_device(self) -> Device:
        """The device arrays are created on when none is given."""
        return CPU

    def devices(self) -> tuple[Device, ...]:
        """The devices arrays can live on (asking imports the CUDA backend)."""
        return available_devices()

    def default_dtypes(self, *, device: DeviceLike | None = None) -> DefaultDataTypes:
        """The default dtype of each kind."""
        self._check(device)
        return {"real floating": float64.numpy, "complex floating": complex128.numpy,
                "integral": int64.numpy, "indexing": int64.numpy}

    def dtypes(self, *, device: DeviceLike | None = None,
               kind: str | tuple[str, ...] | None = None) -> DataTypes:
        """The dtypes of the array API (of ``kind`` when given) that ``device`` supports.

        bfloat16 and float16, storage dtypes outside the standard, are not listed.
        """
        self._check(device)
        kinds = (kind,) if isinstance(kind, str) or kind is None else tuple(kind)
        wanted = set()
        for k in kinds:
            if k is not None and k not in KINDS:
                raise ValueError(f"unknown dtype kind {k!r}; expected one of {', '.join(KINDS)}")
            wanted.update(KINDS[k] if k else KINDS["numeric"] + ("bool",))
        return {d.name: d.numpy for d in DTYPES
                if d.kind in wanted and d.name not in ("float16", "bfloat16")}

    def _check(self, device):
        if device is not None:
            check_available(as_device(device))


