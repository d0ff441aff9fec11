"""DLPack exchange overhead: dlnumba against NumPy and PyTorch on the same inputs, same run.

``TimeFromDLPack.time_from_dlpack`` imports a small array made by ``source`` with the
consumer ``library``; ``TimeExport`` times ``__dlpack__`` of each library's own array.
Quote ratios against the peer in the same run: this machine is shared and noisy.
"""

import numpy as np

import dlnumba as xp

try:
    import torch
except ImportError:
    torch = None


def _source(name):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    if name == "numpy":
        return data
    if name == "torch":
        return torch.from_numpy(data.copy())
    return xp.asarray(data)


def _consumer(name):
    return {"dlnumba": xp.from_dlpack, "numpy": np.from_dlpack,
            "torch": None if torch is None else torch.from_dlpack}[name]


class TimeFromDLPack:
    params = (["numpy", "torch", "dlnumba"], ["dlnumba", "torch", "numpy"])
    param_names = ("source", "library")

    def setup(self, source, library):
        if torch is None and "torch" in (source, library):
            raise NotImplementedError("PyTorch is not installed")
        self.x = _source(source)
        self.consume = _consumer(library)
        imported = self.consume(self.x)  # validate once, outside the timed region
        np.testing.assert_array_equal(np.from_dlpack(imported), np.arange(12.0).reshape(3, 4))

    def time_from_dlpack(self, source, library):
        self.consume(self.x)


class TimeExport:
    params = (["dlnumba", "torch", "numpy"], ["legacy", "versioned"])
    param_names = ("library", "capsule")

    def setup(self, library, capsule):
        if torch is None and library == "torch":
            raise NotImplementedError("PyTorch is not installed")
        self.x = _source(library)
        self.kwargs = {} if capsule == "legacy" else {"max_version": (1, 0)}
        restored = xp.from_dlpack(self.x.__dlpack__(**self.kwargs))
        np.testing.assert_array_equal(np.from_dlpack(restored), np.arange(12.0).reshape(3, 4))

    def time_dlpack(self, library, capsule):
        self.x.__dlpack__(**self.kwargs)
