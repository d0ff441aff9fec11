"""The NumPy ufuncs that dlnumba's scalar functions call, made available in CUDA device code.

numba-cuda types ``np.floor(x)`` and the like in a kernel but can lower only the ufuncs in its
table (``numba.cuda.ufuncs.ufunc_db``); the CPU scalar functions of :mod:`dlnumba.kernels`
call a few more. :func:`complete_ufunc_table` adds their loops, each lowered the way numba-cuda
lowers the ones it has: the ``math`` function's CUDA implementation (libdevice), or numba-cuda's
own ``npyfuncs`` loop, or libdevice's ``rint`` (NVVM has no ``llvm.rint``).
"""

import math

import numpy as np
from llvmlite import ir
from numba.cuda import cgutils, ufuncs
from numba.cuda.mathimpl import get_binary_impl_for_fn_and_ty, get_unary_impl_for_fn_and_ty
from numba.cuda.np import npyfuncs

_UNARY_MATH = {np.floor: math.floor, np.ceil: math.ceil, np.trunc: math.trunc,
               np.exp: math.exp, np.expm1: math.expm1, np.log1p: math.log1p,
               np.sqrt: math.sqrt}
_BINARY_MATH = {np.fmod: math.fmod, np.copysign: math.copysign, np.nextafter: math.nextafter}
_COMPLEX = {np.exp: npyfuncs.np_complex_exp_impl, np.sqrt: npyfuncs.np_complex_sqrt_impl}


def _math(function, implementation_for):
    """The lowering of a ufunc loop by the CUDA implementation of the ``math`` function."""
    def lower(context, builder, signature, args):
        return implementation_for(function, signature.args[0])(
            context, builder, signature, args)
    return lower


def _rint(builder, value):
    name = "__nv_rintf" if value.type == ir.FloatType() else "__nv_rint"
    function = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(value.type, [value.type]), name)
    return builder.call(function, [value])


def _real_rint(context, builder, signature, args):
    return _rint(builder, args[0])


def _complex_rint(context, builder, signature, args):
    value = context.make_complex(builder, signature.args[0], value=args[0])
    result = context.make_complex(builder, signature.args[0])
    result.real = _rint(builder, value.real)
    result.imag = _rint(builder, value.imag)
    return result._getvalue()


def _loops():
    """The loops to add: ``{ufunc: {loop signature: lowering}}``."""
    loops = {}
    for ufunc, function in _UNARY_MATH.items():
        lower = _math(function, get_unary_impl_for_fn_and_ty)
        loops[ufunc] = {"f->f": lower, "d->d": lower}
    for ufunc, function in _BINARY_MATH.items():
        lower = _math(function, get_binary_impl_for_fn_and_ty)
        loops[ufunc] = {"ff->f": lower, "dd->d": lower}
    for ufunc, lower in _COMPLEX.items():
        loops[ufunc].update({"F->F": lower, "D->D": lower})
    loops[np.rint] = {"f->f": _real_rint, "d->d": _real_rint, "F->F": _complex_rint,
                      "D->D": _complex_rint}
    return loops


def complete_ufunc_table():
    """Add the missing loops to numba-cuda's ufunc table, keeping any it has (idempotent)."""
    table = ufuncs.ufunc_db()
    for ufunc, loops in _loops().items():
        present = table.setdefault(ufunc, {})
        for loop, lower in loops.items():
            present.setdefault(loop, lower)
