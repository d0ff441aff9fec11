"""Host memory: 64-byte aligned allocations and the objects that keep them alive."""

import numpy as np

from ._native import host_allocator

ALIGNMENT = 64
POOLED_BYTES = 1 << 18  # blocks this large are pooled: malloc returns them to the system when freed
# Freed large blocks kept for reuse, at most this many bytes in all: a new block costs a page
# fault and a kernel-zeroed page per 4 KiB (or 2 MiB) on its first write, more than the work of
# a streaming kernel that writes it.
POOL_LIMIT = 256 << 20
POOL_DEPTH = 32  # freed large blocks kept per size class


def _new_block(size):
    """The memory of a new pooled block: a NumPy byte buffer (NumPy advises huge pages for
    large ones)."""
    return np.empty(size, np.uint8)


def _refuse(nbytes, zero=False):
    """Raise the error of an allocation of ``nbytes`` that allocate_host cannot make."""
    raise ValueError(f"allocate_host: nbytes must be from 0 to 2**62 - 64, not {nbytes!r}")


allocate_host, pooled_bytes = host_allocator(_new_block, _refuse, POOLED_BYTES, ALIGNMENT,
                                             POOL_LIMIT, POOL_DEPTH, """\
allocate_host(nbytes, zero=False)
--

Allocate ``nbytes`` of host memory aligned to 64 bytes, uninitialised unless ``zero``.

Returns ``(address, owner)``: the aligned address, and the object that keeps the memory alive:
below 256 KiB a bytearray, else a capsule over a block of the pool (the block goes back to
the pool when the capsule dies).""")


class _ArrayInterface:
    """Presents memory to NumPy through ``__array_interface__``; holds a reference to its owner."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.owner = owner


def numpy_view(address, shape, strides, storage, readonly, owner):
    """A NumPy array over existing host memory, without a copy.

    Parameters
    ----------
    address : int
        Address of the element at index ``(0, ..., 0)``.
    shape, strides : tuple of int
        Layout; strides in elements.
    storage : numpy.dtype
        NumPy dtype of the bytes.
    readonly : bool
        Whether NumPy may write through the view.
    owner : object
        Kept alive as long as the view.
    """
    interface = {
        "version": 3,
        "data": (address, readonly),
        "shape": shape,
        "strides": tuple(s * storage.itemsize for s in strides),
        "typestr": storage.str,
    }
    return np.asarray(_ArrayInterface(interface, owner))
