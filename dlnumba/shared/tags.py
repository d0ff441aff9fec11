"""Dtype tags: how a kernel learns, at compile time, which dtypes and operation it works on.

A *tag* is an empty array whose Numba dtype names a logical dtype (float16 and bfloat16, which
Numba's CPU target cannot hold, are one-field records named after them) or an operation (a
one-field record named ``"add:float"``). Kernels take tags as arguments, so each combination is
one compiled specialization; both backends read them the same way.
"""

import numpy as np
from .._numba import intrinsic, types

from .. import _dtypes

FLOAT16_TAG = np.dtype([("float16", np.uint16)])
BFLOAT16_TAG = np.dtype([("bfloat16", np.uint16)])
#: The tag of each dtype.
TAGS = {d: np.empty(0, BFLOAT16_TAG if d is _dtypes.bfloat16 else
                    FLOAT16_TAG if d is _dtypes.float16 else d.storage)
        for d in _dtypes.DTYPES}
#: The tags of raw units by item size: same-dtype copies move units, whatever the dtype.
UNITS = {1: np.empty(0, np.uint8), 2: np.empty(0, np.uint16), 4: np.empty(0, np.uint32),
         8: np.empty(0, np.uint64), 16: np.empty(0, np.complex128)}
#: The dtypes no hardware computes in: converted to and from float32 (or float64) by code.
COMPUTED = (_dtypes.float16, _dtypes.bfloat16)


def storage(dtype):
    """The Numba type in memory for a tag's (Numba) dtype."""
    if isinstance(dtype, types.Record):
        return types.uint16
    if dtype == types.boolean:
        return types.uint8
    return dtype


def op_tag(name, kind):
    """The tag that selects the scalar operation ``FUNCTIONS[name].kinds[kind]``
    (:mod:`.scalar`)."""
    return np.empty(0, np.dtype([(f"{name}:{kind}", np.uint8)]))


def signature_tag(name, kind, tags):
    """The signature of ``name`` of ``kind`` on operands and a result with dtype tags ``tags``
    (the last is the computation's): one tag whose record's fields are the others' dtypes."""
    fields = [("op", op_tag(name, kind).dtype)]
    fields += [(f"operand{k}", tag.dtype) for k, tag in enumerate(tags)]
    return np.empty(0, np.dtype(fields))


@intrinsic
def unpack(typingctx, signature):
    """The tags a signature (an array or a dtype) holds, as empty arrays of its fields' dtypes
    (compiled only)."""
    unpacked = types.Tuple([types.Array(field, 1, "C") for _, field in signature.dtype.members])

    def codegen(context, builder, sig, args):
        # Only the tags' types are ever used; their values are null arrays.
        return context.get_constant_null(unpacked)

    return unpacked(signature), codegen
