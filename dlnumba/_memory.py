"""Host memory: 64-byte aligned allocations and the objects that keep them alive."""

import ctypes

import numpy as np

ALIGNMENT = 64
_SMALL = 1 << 20


def allocate_host(nbytes, zero=False):
    """Allocate ``nbytes`` of host memory aligned to 64 bytes.

    Returns
    -------
    address : int
        The aligned address.
    owner : object
        The object that keeps the memory alive: below 1 MiB a ctypes buffer (zero-filled; sizes
        rounded up to a power of two so that ctypes keeps few array types), else a NumPy byte
        buffer (NumPy advises huge pages for those).
    """
    size = nbytes + ALIGNMENT - 1
    if size < _SMALL:
        buffer = (ctypes.c_char * (1 << size.bit_length()))()
        base = ctypes.addressof(buffer)
    else:
        buffer = (np.zeros if zero else np.empty)(size, dtype=np.uint8)
        base = buffer.__array_interface__["data"][0]
    return (base + ALIGNMENT - 1) & -ALIGNMENT, buffer


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
