"""dlnumba arrays as arguments of user ``@cuda.jit`` kernels.

numba-cuda types a kernel argument with its own ``typeof``; registered here for
``dlnumba.ndarray``, it types an array on a CUDA device by its CUDA Array Interface (the kernel
then gets a view of the device memory, synchronized with dlnumba's stream) and refuses an array
in host memory with a TypeError, rather than hand the GPU a host pointer. (The CPU type that
``@numba.njit`` reads from ``_numba_type_`` never matches a kernel's compiled signatures, so a
host array always reaches this function.)
"""

import functools

from numba.cuda.typing.typeof import _typeof_cuda_array_interface, typeof_impl


def _typeof_ndarray(array, context):
    if array.device.type != "cuda":
        raise TypeError(f"a dlnumba array on {array.device} cannot be an argument of a "
                        f"@cuda.jit kernel: its memory is not on a GPU; move it first with "
                        f"x.to_device('cuda')")
    try:
        interface = array.__cuda_array_interface__
    except AttributeError as error:
        raise TypeError(f"{error}: it cannot be an argument of a @cuda.jit kernel") from None
    return _typeof_cuda_array_interface(interface, context)


@functools.cache
def register(array_type):
    """Teach numba-cuda's ``typeof`` the dlnumba array, ``array_type`` (once)."""
    typeof_impl.register(array_type)(_typeof_ndarray)
