"""Host memory: 64-byte aligned allocations and the objects that keep them alive."""

import threading

import numpy as np

from ._native import buffer_address, host_allocator

ALIGNMENT = 64
POOLED_BYTES = 1 << 18  # blocks this large are pooled: malloc returns them to the system when freed
# Freed large blocks kept for reuse, at most this many bytes in all: a new block costs a page
# fault and a kernel-zeroed page per 4 KiB (or 2 MiB) on its first write, more than the work of
# a streaming kernel that writes it.
POOL_LIMIT = 256 << 20


def _allocate_large(nbytes, zero=False):
    size = nbytes + ALIGNMENT - 1
    block = PooledBlock(_size_class(size))
    if zero:
        block.buffer.fill(0)
    return (block.address + ALIGNMENT - 1) & -ALIGNMENT, block


allocate_host = host_allocator(_allocate_large, POOLED_BYTES, ALIGNMENT, """\
allocate_host(nbytes, zero=False)
--

Allocate ``nbytes`` of host memory aligned to 64 bytes, uninitialised unless ``zero``.

Returns ``(address, owner)``: the aligned address, and the object that keeps the memory alive:
below 256 KiB a bytearray, else a PooledBlock (its memory goes back to the pool when it dies).""")


def _size_class(size):
    """``size`` rounded up to a multiple of an eighth of its power of two (<= 12.5% more)."""
    step = 1 << (size.bit_length() - 4)
    return (size + step - 1) & -step


class _Pool:
    """Freed large host blocks by size, at most :data:`POOL_LIMIT` bytes; safe from any thread."""

    def __init__(self):
        self.blocks = {}
        self.size = 0
        self.lock = threading.Lock()

    def take(self, size):
        with self.lock:
            free = self.blocks.get(size)
            if not free:
                return None
            self.size -= size
            return free.pop()

    def give(self, buffer):
        with self.lock:
            if self.size + buffer.size > POOL_LIMIT:
                return
            self.size += buffer.size
            self.blocks.setdefault(buffer.size, []).append(buffer)


_pool = _Pool()


class PooledBlock:
    """Owner of a large host block (a NumPy byte buffer; NumPy advises huge pages for it).

    When the last array over it dies, the buffer goes back to the pool for the next
    allocation of its size class.
    """

    __slots__ = ("buffer", "address")

    def __init__(self, size):
        self.buffer = _pool.take(size)
        if self.buffer is None:
            self.buffer = np.empty(size, np.uint8)
        self.address = buffer_address(self.buffer)

    def __del__(self, give=_pool.give):  # bound now: module globals may be gone at exit
        if self.buffer is not None:  # None when the allocation in __init__ failed
            give(self.buffer)


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
