"""A JAX array read by a Numba kernel through dlnumba, and the result handed back to JAX."""

import jax.numpy as jnp
import numba
import numpy as np

import dlnumba as xp


@numba.njit
def running_max(values, out):
    """out[i] = max(values[:i + 1])."""
    best = values[0]
    for i in range(values.shape[0]):
        best = max(best, values[i])
        out[i] = best


def main():
    source = jnp.asarray([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], dtype=jnp.float32)
    values = xp.from_dlpack(source)              # zero-copy view of JAX's buffer
    out = xp.empty(values.shape, dtype=xp.float32)
    running_max(values, out)
    result = jnp.from_dlpack(out)                # JAX takes dlnumba's memory back
    expected = np.maximum.accumulate(np.asarray(source))
    assert np.array_equal(np.asarray(result), expected), (result, expected)
    print(result)


if __name__ == "__main__":
    main()
