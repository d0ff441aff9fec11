"""Numba extension: ``dlnumba.ndarray`` arguments in user ``@numba.njit`` code.

A dlnumba array is typed as :class:`NdarrayType`, a ``types.Array`` with Numba's own array data
model, so everything Numba does with NumPy arrays works on it. Calls cost no conversion: the
array keeps its Numba type and a packed descriptor (the array struct's fields) in two slots,
computed on first use; the unboxer copies the descriptor into the struct and makes the memory
info from the dlnumba array itself, which therefore lives as long as any view Numba makes.

Results typed ``NdarrayType`` (an argument, or a view of one) come back as ``dlnumba.ndarray``:
the very argument when unchanged, else a view sharing its memory. Arrays created inside a
compiled function (``np.empty`` and friends) come back as NumPy arrays, as Numba makes them.

:func:`numba_type_of` is the one place that decides how a dlnumba array is typed.
"""

import struct
import sys

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.boxing import box_array
from numba.core.datamodel.models import ArrayModel
from numba.extending import NativeValue, box, register_model, typeof_impl, unbox

from ._array_object import _from_numpy, ndarray
from ._devices import CPU
from ._dtypes import bfloat16, float16

ABI_VERSION = 1  # part of the type's name: bump it when the descriptor changes
_NUMBA_DTYPES = {}


class NdarrayType(types.Array):
    """The Numba type of a ``dlnumba.ndarray`` (and of views of it made in compiled code)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        name = (f"dlnumba.ndarray.v{ABI_VERSION}({dtype}, {ndim}d, {layout}"
                f"{', readonly' if readonly else ''})")
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)

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
    if array.device != CPU:
        raise TypeError(f"an array on {array.device} cannot be an argument of CPU-compiled code")
    if array._dtype in (float16, bfloat16):
        raise TypeError(f"{array._dtype} arrays cannot be arguments of @njit functions: Numba's "
                        "CPU target has no 16-bit float type; astype(x, float32) first")
    shape, strides = array.shape, array._strides
    layout = ("C" if _dense(shape, strides) else
              "F" if _dense(shape[::-1], strides[::-1]) else "A")
    key = (array._dtype, len(shape), layout, array._readonly)
    numba_type = _NUMBA_DTYPES.get(key)
    if numba_type is None:
        from numba.np.numpy_support import from_dtype
        numba_type = _NUMBA_DTYPES[key] = NdarrayType(
            from_dtype(array._dtype.storage), len(shape), layout, readonly=array._readonly)
    return numba_type


def _dense(shape, strides):
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1:
            if s != step:
                return False
            step *= n
    return True


def describe(array):
    """Fill the two slots Numba reads: ``_numba_type_`` and ``_numba_descriptor_``.

    The descriptor packs the array struct's fields after ``meminfo`` and ``parent``: nitems,
    itemsize, data, shape, strides in bytes.
    """
    if "numba.cuda" in sys.modules:  # a user of @cuda.jit: its kernels must type this array
        from ._backend import cuda_package
        cuda_package()
    numba_type = numba_type_of(array)
    itemsize = array._dtype.itemsize
    ndim = len(array.shape)
    array._numba_descriptor_ = struct.pack(
        f"<3q{2 * ndim}q", array.size, itemsize, array._address, *array.shape,
        *(s * itemsize for s in array._strides))
    array._numba_type_ = numba_type


@typeof_impl.register(ndarray)
def _typeof_ndarray(value, context):
    return value._numba_type_


@unbox(NdarrayType)
def _unbox_ndarray(typ, obj, c):
    array = c.context.make_array(typ)(c.context, c.builder)
    pointer = array._getpointer()
    descriptor = c.pyapi.object_getattr_string(obj, "_numba_descriptor_")
    failed = cgutils.is_null(c.builder, descriptor)
    with c.builder.if_then(c.builder.not_(failed), likely=True):
        as_string = cgutils.get_or_insert_function(
            c.builder.module, ir.FunctionType(c.pyapi.cstring, [c.pyapi.pyobj]),
            "PyBytes_AsString")
        source = c.builder.call(as_string, [descriptor])
        target = cgutils.gep(c.builder, c.builder.bitcast(pointer, c.pyapi.cstring), 16)
        cgutils.memcpy(c.builder, target, source, cgutils.intp_t(24 + 16 * typ.ndim))
        c.pyapi.decref(descriptor)
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
