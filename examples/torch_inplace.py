"""A PyTorch tensor, imported zero-copy, updated in place by a Numba kernel, read back in
PyTorch."""

import numba
import torch

import dlnumba as xp


@numba.njit
def clip_and_scale(values, low, high, factor):
    """Clip each element to [low, high] and scale it, in place."""
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            values[i, j] = min(max(values[i, j], low), high) * factor


def main():
    tensor = torch.linspace(-2.0, 2.0, 12, dtype=torch.float64).reshape(3, 4)
    expected = tensor.clamp(-1.0, 1.0) * 10.0
    clip_and_scale(xp.from_dlpack(tensor), -1.0, 1.0, 10.0)  # no copy: torch's own memory
    assert torch.equal(tensor, expected), (tensor, expected)
    print(tensor)


if __name__ == "__main__":
    main()
