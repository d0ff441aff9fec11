"""A ``@guvectorize`` function applied to imported PyTorch tensors, writing into one of them."""

import numba
import torch

import dlnumba as xp


@numba.guvectorize(["void(float32[:], float32[:])"], "(n)->(n)")
def normalize_rows(row, out):
    """Scale each row to unit sum."""
    total = 0.0
    for value in row:
        total += value
    for i in range(row.shape[0]):
        out[i] = row[i] / total


def main():
    data = torch.arange(1, 13, dtype=torch.float32).reshape(3, 4)
    result = torch.empty_like(data)
    normalize_rows(xp.from_dlpack(data), xp.from_dlpack(result))  # writes into result's memory
    assert torch.allclose(result, data / data.sum(dim=1, keepdim=True))
    print(result)


if __name__ == "__main__":
    main()
