"""Numba extension: ``dlnumba.ndarray`` arguments in user ``@numba.njit`` code.

A dlnumba array is typed as :class:`NdarrayType`, a ``types.Array`` with Numba's own array data
model, so everything Numba does with NumPy arrays works on it. Calls cost no conversion:
Numba's dispatcher types the array in C through its buffer (:mod:`dlnumba._buffer`), and the
unboxer copies the array's descriptor (filled on first use) into the array struct and makes the
memory info from the dlnumba array itself, which therefore lives as long as any view Numba
makes.

Results typed ``NdarrayType`` (an argument, or a view of one) come back as ``dlnumba.ndarray``:
the very argument when unchanged, else a view sharing its memory. Arrays created inside a
compiled function (``np.empty`` and friends) come back as NumPy arrays, as Numba makes them.

:func:`numba_type_of` is the one place that decides how a dlnumba array is typed.
"""

import sys

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.boxing import box_array
from numba.core.datamodel.models import ArrayModel
from numba.extending import NativeValue, box, register_model, typeof_impl, unbox

from ._array_object import _from_numpy, ndarray
from ._buffer import C_CONTIGUOUS, DESCRIPTOR_OFFSET, F_CONTIGUOUS, NUMBA_PART, contiguity
from ._dtypes import bfloat16, float16

def numba_extension():
    """Numba's ``numba_extensions`` entry point (see ``pyproject.toml``), which Numba calls
    before its first compilation: importing this module registered the type."""


ABI_VERSION = 2  # part of the type's key: bump it when the descriptor changes
_NUMBA_TYPES = {}


class NdarrayType(types.Array):
    """The Numba type of a ``dlnumba.ndarray`` (and of views of it made in compiled code)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        self.abi = ABI_VERSION  # pickled with the type in Numba's cache index
        name = (f"dlnumba.ndarray.v{ABI_VERSION}({dtype}, {ndim}d, {layout}"
                f"{', readonly' if readonly else ''})")
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)

    @property
    def key(self):
        # A type unpickled from a cache index of an older version differs from today's, so
        # machine code compiled for another descriptor is never loaded.
        return super().key + (self.__dict__.get("abi"),)

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return NdarrayType(self.dtype if dtype is None else dtype,
                           self.ndim if ndim is None else ndim,
                           self.layout if layout is None else layout,
                           not self.mutable if readonly is None else readonly, self.aligned)


register_model(NdarrayType)(ArrayModel)


def numba_type_of(array):
    """The Numba type of a dlnumba array: dtype, ndim, layout (C, F or A), read-only.

    Raises
    ------
    TypeError
        For float16 and bfloat16 (Numba's CPU target has no 16-bit float type) and for arrays
        that are not on the CPU.
    """
    if "numba.cuda" in sys.modules:  # a user of @cuda.jit: its kernels must type this array
        from ._backend import cuda_package
        cuda_package()
    if not array.device.host_memory:
        raise TypeError(f"an array on {array.device} cannot be an argument of CPU-compiled code")
    if array._dtype in (float16, bfloat16):
        raise TypeError(f"{array._dtype} arrays cannot be arguments of @njit functions: Numba's "
                        "CPU target has no 16-bit float type; astype(x, float32) first")
    shape = array._shape
    key = (array._dtype, len(shape), contiguity(shape, array._strides), array._readonly)
    numba_type = _NUMBA_TYPES.get(key)
    if numba_type is None:
        from numba.np.numpy_support import from_dtype
        layout = "C" if key[2] & C_CONTIGUOUS else "F" if key[2] & F_CONTIGUOUS else "A"
        numba_type = _NUMBA_TYPES[key] = NdarrayType(
            from_dtype(array._dtype.storage), len(shape), layout, readonly=array._readonly)
    return numba_type


@typeof_impl.register(ndarray)
def _typeof_ndarray(value, context):
    return numba_type_of(value)


@unbox(NdarrayType)
def _unbox_ndarray(typ, obj, c):
    array = c.context.make_array(typ)(c.context, c.builder)
    pointer = array._getpointer()
    # The descriptor is ArrayBase's field (borrowed: the array holds it), or made on first use.
    field = c.builder.bitcast(cgutils.gep(c.builder, obj, DESCRIPTOR_OFFSET),
                              c.pyapi.pyobj.as_pointer())
    descriptor = cgutils.alloca_once_value(c.builder, c.builder.load(field))
    with c.builder.if_then(cgutils.is_null(c.builder, c.builder.load(descriptor)), likely=False):
        made = c.pyapi.object_getattr_string(obj, "_descriptor")
        with c.builder.if_then(cgutils.is_not_null(c.builder, made)):
            c.pyapi.decref(made)
        c.builder.store(made, descriptor)
    descriptor = c.builder.load(descriptor)
    failed = cgutils.is_null(c.builder, descriptor)
    with c.builder.if_then(c.builder.not_(failed), likely=True):
        as_string = cgutils.get_or_insert_function(
            c.builder.module, ir.FunctionType(c.pyapi.cstring, [c.pyapi.pyobj]),
            "PyBytes_AsString")
        source = cgutils.gep(c.builder, c.builder.call(as_string, [descriptor]), NUMBA_PART)
        target = cgutils.gep(c.builder, c.builder.bitcast(pointer, c.pyapi.cstring), 16)
        cgutils.memcpy(c.builder, target, source, cgutils.intp_t(24 + 16 * typ.ndim))
        array.meminfo = c.pyapi.nrt_meminfo_new_from_pyobject(
            c.builder.bitcast(array.data, c.pyapi.voidptr), obj)
        array.parent = obj
    return NativeValue(c.builder.load(pointer), is_error=failed)


@box(NdarrayType)
def _box_ndarray(typ, value, c):
    parent = c.context.make_array(typ)(c.context, c.builder, value=value).parent
    as_numpy = box_array(typ, value, c)
    wrap = c.pyapi.unserialize(c.pyapi.serialize_object(_wrap_result))
    readonly = c.pyapi.bool_from_bool(cgutils.false_bit if typ.mutable else cgutils.true_bit)
    parent_or_none = c.builder.select(cgutils.is_null(c.builder, parent),
                                      c.pyapi.borrow_none(), parent)
    result = c.pyapi.call_function_objargs(wrap, [as_numpy, parent_or_none, readonly])
    c.pyapi.decref(as_numpy)
    c.pyapi.decref(readonly)
    return result


def _wrap_result(result, parent, readonly):
    """A returned array as ``dlnumba.ndarray``: ``parent`` itself when ``result`` is exactly it."""
    if isinstance(parent, ndarray) and parent._address == result.__array_interface__["data"][0] \
            and parent.shape == result.shape and parent._strides == tuple(
                s // result.itemsize for s in result.strides):
        return parent
    wrapped = _from_numpy(result)
    wrapped._readonly = bool(readonly)
    return wrapped
