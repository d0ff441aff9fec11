"""Fused expressions on a CUDA device: one grid-stride kernel computes a chain of calls.

The kernel is written out per number of inputs and constants, as :mod:`._kernels`' are (a
runtime rank, 64-bit index arithmetic), and calls the expression's scalar function
(:func:`dlnumba.shared.fused.scalar_function`), the CPU engine's code compiled for the device.
A final reduction has no fused kernel here: the caller writes the values out, and the device's
reduction reduces them, as the unfused calls do.
"""

import functools

import numpy as np
from numba import cuda

from ..shared.fused import expression_of_dtype, scalar_function
from ..shared.plan import make_plan
from ..shared.tags import TAGS
from ._driver import device_view, launch_shape, plan_view
from ._kernels import _storage


@functools.lru_cache(maxsize=None)
def _fused_kernel(tag, inputs, constants):
    """The kernel of the expression whose tag dtype is ``tag``, over ``inputs`` operands and
    an output, taking ``constants`` scalars."""
    function = scalar_function(tag)
    operands = [f"x{k}, x{k}_start" for k in range(inputs)] + ["out, out_start"]
    scalars = [f"c{j}" for j in range(constants)]
    lines = [
        f"def kernel({', '.join(operands)}, layout, ndim, n{''.join(', ' + c for c in scalars)}):",
        "    i = cuda.grid(1)",
        "    while i < n:",
        *(f"        a{k} = 0" for k in range(inputs + 1)),
        "        rest = i",
        "        d = ndim - 1",
        "        while d >= 0:",
        "            q = rest // layout[d]",
        "            r = rest - q * layout[d]",
        *(f"            a{k} += r * layout[{k + 1} * ndim + d]" for k in range(inputs + 1)),
        "            rest = q",
        "            d -= 1",
        f"        out[out_start + a{inputs}] = function(TAG, ("
        + "".join(f"x{k}[x{k}_start + a{k}], " for k in range(inputs))
        + "".join(f"{c}, " for c in scalars) + "))",
        "        i += cuda.gridsize(1)",
    ]
    namespace = {"cuda": cuda, "function": function, "TAG": tag}
    exec("\n".join(lines), namespace)
    return cuda.jit(namespace["kernel"])


class _FusedJob:
    """A fused call on CUDA device ``index``: ``call(addresses, constants)`` launches its
    kernel and returns when it is done."""

    def __init__(self, tag, layouts, plan, index):
        self.tag, self.plan, self.index = tag, plan, index
        self.storages = [_storage(TAGS[dtype]) for _, dtype in layouts]
        self.constant_dtypes = [_storage(TAGS[dtype])
                                for dtype in expression_of_dtype(tag).constants]

    def call(self, addresses, constants):
        plan = self.plan
        kernel = _fused_kernel(self.tag, len(addresses) - 1, len(self.constant_dtypes))
        blocks, threads = launch_shape(plan.size)
        slots = constants.words.view(np.uint8).reshape(-1, 16)
        scalars = [slots[j, :dtype.itemsize].view(dtype)[0]
                   for j, dtype in enumerate(self.constant_dtypes)]
        with cuda.gpus[self.index]:
            arguments = []
            for address, storage, (low, high), offset in zip(addresses, self.storages,
                                                             plan.extents, plan.offsets):
                size = storage.itemsize
                arguments += (device_view(address + low * size, high - low + 1, storage),
                              offset - low)
            layout = plan_view(np.concatenate([plan.shape, *plan.strides]))
            kernel[blocks, threads](*arguments, layout, plan.shape.size, plan.size, *scalars)
            cuda.synchronize()


def fused_job(tag, layouts, shape, index):
    """The fused job (:meth:`dlnumba._backend.Backend.fused_job`) on CUDA device ``index``."""
    plan = make_plan(shape, *(strides for strides, _ in layouts))
    return None if plan is None else _FusedJob(tag, layouts, plan, index)


def fused_reduction(tag, layouts, shape, name, axes, x_strides, x_dtype, acc_dtype, index):
    """None: the values are written out by :func:`fused_job`, then reduced by the device's
    reduction, as the unfused calls reduce them."""
