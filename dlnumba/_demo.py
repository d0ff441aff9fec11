"""The demo: NumPy and PyTorch memory through dlnumba and a Numba kernel, zero-copy both ways."""

import timeit

import numba
import numpy as np

import dlnumba as xp


@numba.njit(cache=True)
def _scale_in_place(values, factor):
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            values[i, j] *= factor


def _address(array):
    return np.from_dlpack(array).__array_interface__["data"][0]


def _exchange(name, source, to_source, source_address, peek):
    """Import ``source``, scale it by a Numba kernel in place, hand it back; return a table row."""
    before = float(peek(source))
    imported = xp.from_dlpack(source)
    _scale_in_place(imported, 10.0)
    returned = to_source(imported)
    shared = (_address(imported) == source_address and float(peek(source)) == 10 * before
              and float(peek(returned)) == 10 * before)
    seconds = min(timeit.repeat(lambda: xp.from_dlpack(source), number=2000, repeat=5)) / 2000
    return (name, str(imported.device), str(imported._dtype), str(imported.shape),
            "zero-copy" if shared else "COPIED", f"{seconds * 1e6:.2f} us")


def run():
    """Print how NumPy and PyTorch arrays travel through dlnumba and a Numba kernel."""
    rows = []
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    rows.append(_exchange("numpy", array, np.from_dlpack, array.__array_interface__["data"][0],
                          lambda a: a[1, 2]))
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: skipping its row (pip install torch)")
    else:
        tensor = torch.arange(12, dtype=torch.float64).reshape(3, 4)
        rows.append(_exchange("torch", tensor, torch.from_dlpack, tensor.data_ptr(),
                              lambda t: t[1, 2]))
    print("Each source array is imported with dlnumba.from_dlpack, scaled x10 in place by a "
          "@numba.njit kernel,\nand handed back with its own library's from_dlpack; the source "
          "sees the change.\n")
    header = ("source", "device", "dtype", "shape", "memory", "from_dlpack time")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    if any(row[4] != "zero-copy" for row in rows):
        raise SystemExit("demo failed: memory was not shared")
