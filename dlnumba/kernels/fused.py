"""Fused expressions on the CPU: one kernel walks every operand of a chain of calls at once.

A fused kernel is ``run(layout, ndim, addresses, constants)`` (addresses of int64 words): the
layout's rows are the plan's shape and each operand's strides, ``addresses`` the operands' and
``constants`` the constants' stored values, one 16-byte slot each. Its walk is written out per
expression and per *variant* of the plan (:func:`_walk_source`), with one register per operand
and the expression's steps (:func:`.shared.fused.step_lines`) in its innermost loop. Where every
operand's innermost stride is 1 (``dense``), that loop reads them in place, and LLVM vectorizes
it; elsewhere (``gathered``) each input's elements are gathered onto the stack a block at a
time first.

A fused reduction computes the chain's values a block at a time on the stack and reduces each
block as the reduction engine reduces the array the unfused calls would write: the same plan,
pieces and pairwise blocks (:mod:`.reduction`, :mod:`.runs`), hence the same bits. Large calls
run in pieces on the engine's threads, each piece the same kernel over its part of the plan.
"""

import functools
import struct

import numpy as np

from .._layout import c_strides, size_of
from .._memory import numpy_view
from .._native import buffer_address, c_caller
from .._numba import carray, overload, types
from ..shared import reductions
from ..shared.conversions import convert
from ..shared.fused import expression_of, step_lines
from ..shared.plan import make_plan
from ..shared.reductions import COMBINE_PARTIALS, OP_TAGS, identity_value, op_name
from ..shared.tags import TAGS
from . import runs, transfer, vectors
from .reduction import reduce_array, reduced_dtype, split_plan
from .threads import (PARALLEL_BYTES, PIECE, PIECES, THREADS, VECTORIZED_SIZE, WORD,
                      pieces_state, run_pieces)
from .transfer import _typed_pointer
from .walk import HELD_GIL_WORK, call_function, compile_run, odometer

FUSED_RUN = types.void(*[types.intp] * 4)  # run(layout, ndim, addresses, constants)
CONSTANT_BYTES = 16  # a constant's slot: room for a complex128
_GATHERED = 256  # elements of strided operands computed at a time


def fused_walk(tag, variant, layout, ndim, addresses, constants, reduction):
    """Compute the expression ``tag`` names over a layout (compiled only): ``layout`` points to
    its rows of ``ndim`` words, ``addresses`` to the operands' addresses. ``variant`` (a
    dtype whose one field names it) is the code the plan needs (:func:`fused_job`,
    :func:`fused_reduction`).
    ``reduction`` None writes each element to the last operand; else it is ``(op, x_tag,
    acc_tag)``, and the values, of ``x_tag``'s dtype, are reduced by ``op`` into the
    accumulator (the operand after the inputs), as :mod:`.reduction` reduces the array of them
    the unfused calls write."""


@overload(fused_walk, jit_options={"error_model": "numpy"})
def _fused_walk_overload(tag, variant, layout, ndim, addresses, constants, reduction):
    expression, name = expression_of(tag), next(iter(variant.dtype.fields))
    if reduction == types.none:
        return _walk_source(expression, name, None)
    op, x_tag, acc_tag = reduction[0], reduction[1], reduction[2]
    pairwise = runs.sums_pairwise(op_name(op), isinstance(acc_tag.dtype, (types.Float,
                                                                         types.Complex)))
    vectors = pairwise and runs._vectorizes(op, x_tag, acc_tag)
    return _walk_source(expression, name, "vectors" if vectors else
                        "pairwise" if pairwise else "in order")


def _walk_source(expression, variant, algorithm):
    """The walk of ``expression`` for ``variant``, written out: elementwise (``algorithm``
    None) or reducing runs ``"in order"``, in ``"pairwise"`` blocks, or in ``"vectors"``."""
    inputs, out = range(len(expression.inputs)), len(expression.inputs)
    count = out + len(expression.constants)
    namespace = _walk_names()
    for k, dtype in enumerate(expression.inputs):
        namespace[f"T{k}"] = TAGS[dtype].dtype
    for j, dtype in enumerate(expression.constants):
        namespace[f"C{j}"] = TAGS[dtype].dtype
    namespace["R"] = namespace[f"T{out}"] = TAGS[expression.dtypes()[-1]].dtype
    steps, result = step_lines(expression, namespace, inline=True)

    def computed(loads, indent):
        """The lines that compute the value ``result`` from each input's ``loads(k)``."""
        pad = " " * indent
        return [f"{pad}v{k} = {loads(k)}" for k in inputs] + [pad + line for line in steps]

    lines = [
        "def walk(tag, variant, layout, ndim, addresses, constants, reduction):",
        "    last = ndim - 1",
        "    inner = layout[last]",
        "    outer = 1",
        "    for d in range(last):",
        "        outer *= layout[d]",
        "    index = odometer(ndim)",
        *(f"    s{k} = {k + 1} * ndim" for k in range(out + 1)),
        *(f"    i{k} = layout[s{k} + last]" for k in range(out + 1)),
        *(f"    b{k} = 0" for k in range(out + 1)),
        *(f"    p{k} = _typed_pointer(addresses[{k}], T{k})" for k in inputs),
        *(f"    v{k} = _typed_pointer(constants + {CONSTANT_BYTES * (k - out)}, C{k - out})[0]"
          for k in range(out, count)),
    ]
    if algorithm is None:
        lines += _elementwise_lines(variant, out, computed, result)
    else:
        lines += _reduction_lines(variant, algorithm, out, computed, result)
    lines += [
        "        d = last - 1",
        "        while d >= 0:",
        "            index[d] += 1",
        *(f"            b{k} += layout[s{k} + d]" for k in range(out + 1)),
        "            if index[d] < layout[d]:",
        "                break",
        *(f"            b{k} -= layout[s{k} + d] * layout[d]" for k in range(out + 1)),
        "            index[d] = 0",
        "            d -= 1",
    ]
    exec("\n".join(lines), namespace)
    return namespace["walk"]


def _elementwise_lines(variant, out, computed, result):
    """The loop over runs of an elementwise walk: in place (``dense``: every innermost stride
    is 1), else (``gathered``) the inputs gathered onto the stack a block at a time (a
    broadcast one repeated), so that the expression's loop still vectorizes."""
    if variant == "dense":
        return [
            f"    po = _typed_pointer(addresses[{out}], T{out})",
            "    for _ in range(outer):",
            "        for i in range(inner):",
            *computed(lambda k: f"p{k}[b{k} + i]", 12),
            f"            po[b{out} + i] = {result}",
        ]
    return [
        f"    po = _typed_pointer(addresses[{out}], T{out})",
        *(f"    g{k} = stack_values(T{k}, _GATHERED)" for k in range(out)),
        f"    results = stack_values(T{out}, _GATHERED)",
        "    for _ in range(outer):",
        "        for start in range(0, inner, _GATHERED):",
        "            count = min(_GATHERED, inner - start)",
        *(line for k in range(out) for line in (
            "            for i in range(count):",
            f"                g{k}[i] = p{k}[b{k} + (start + i) * i{k}]")),
        "            for i in range(count):",
        *computed(lambda k: f"g{k}[i]", 16),
        f"                results[i] = {result}",
        "            for i in range(count):",
        f"                po[b{out} + (start + i) * i{out}] = results[i]",
    ]


def _reduction_lines(variant, algorithm, out, computed, result):
    """The loop over runs of a reducing walk (see :func:`fused_walk`): each run's values
    computed a block at a time into ``scratch[at:]``, then reduced as the engine reduces a
    run of that variant (``kept`` or ``reduced`` innermost dimension, ``dense`` or
    ``strided`` inputs, ``vectors`` where the engine's large walk meets a contiguous run,
    else ``blocks``)."""
    inner, layout, path = variant.split(":")
    position = "first + i" if layout == "dense" else "(first + i) * i{k}"

    def filled(indent):
        return [" " * indent + "for i in range(count):",
                *computed(lambda k: f"p{k}[b{k} + {position.format(k=k)}]", indent + 4),
                " " * indent + f"    scratch[at + i] = convert({result}, R, x_tag)"]

    if algorithm == "vectors" and path == "vectors":
        reduced = [  # the large reduction's vectors, a block of them at a time
            "        full = inner - inner % _BLOCK if inner > _BLOCK else 0",
            "        stack = vector_stack(scratch, _STACK)",
            "        depth = 0",
            "        for first in range(0, full, _VECTOR_BLOCK):",
            "            count = min(_VECTOR_BLOCK, full - first)",
            *filled(12),
            "            vector = _rounds(op, scratch, at, 0, count // (4 * width), None)[0]",
            "            depth = push(op, stack, depth, first // _VECTOR_BLOCK, vector)",
            "        r = vector_total(op, fold(op, stack, depth)) if full else "
            "identity(op, acc_tag)",
            "        if inner > full:",
            "            first, count = full, inner - full",
            *filled(12),
            "            block = _called_block(op, scratch, at, count, 1, x_tag, acc_tag)",
            "            r = combine(op, r, block) if full else block",
        ]
    elif algorithm != "in order":  # blocks of _BLOCK paired, as small and strided runs sum
        reduced = [
            "        stack = stack_values(acc_tag, _STACK)",
            "        depth = 0",
            "        for first in range(0, inner, _BLOCK):",
            "            count = min(_BLOCK, inner - first)",
            *filled(12),
            "            value = _called_block(op, scratch, at, count, 1, x_tag, acc_tag)",
            "            depth = push(op, stack, depth, first // _BLOCK, value)",
            "        r = fold(op, stack, depth)",
        ]
    else:  # exact in any order: block by block
        reduced = [
            "        r = identity(op, acc_tag)",
            "        for first in range(0, inner, _VECTOR_BLOCK):",
            "            count = min(_VECTOR_BLOCK, inner - first)",
            *filled(12),
            "            r = combine(op, r, reduced_run(op, scratch, at, count, 1, x_tag, "
            "acc_tag))",
        ]
    if inner == "kept":
        reduced = [
            "        for first in range(0, inner, _VECTOR_BLOCK):",
            "            count = min(_VECTOR_BLOCK, inner - first)",
            *filled(12),
            "            for i in range(count):",
            f"                a = b{out} + (first + i) * i{out}",
            "                acc[a] = combine(op, acc[a], load(op, scratch[at + i], x_tag, "
            "acc_tag))",
        ]
    else:
        reduced.append(f"        acc[b{out}] = combine(op, acc[b{out}], r)")
    aligned = (["    width = lanes(scratch)", "    at = (width - line_offset(scratch, 0)) % width"]
               if algorithm == "vectors" and path == "vectors" else ["    at = 0"])
    return [
        "    op, x_tag, acc_tag = reduction",
        f"    acc = _typed_pointer(addresses[{out}], acc_tag)",
        "    scratch = stack_values(x_tag, _SCRATCH)",
        *aligned,
        "    for _ in range(outer):",
        *reduced,
    ]


_SCRATCH = runs._VECTOR_BLOCK + 16  # a block and room to start it at a 64-byte line


def _walk_names():
    """What the written-out walks call (read when Numba is loaded: placeholders before)."""
    return {
        "convert": convert, "odometer": odometer,
        "_typed_pointer": _typed_pointer, "stack_values": transfer.stack_values,
        "combine": reductions.combine, "identity": reductions.identity, "load": reductions.load,
        "reduced_run": runs.reduced_run, "push": runs.push, "fold": runs.fold,
        "_called_block": runs._called_block, "_rounds": runs._rounds,
        "_BLOCK": runs._BLOCK, "_STACK": runs._STACK, "_VECTOR_BLOCK": runs._VECTOR_BLOCK,
        "lanes": vectors.lanes, "line_offset": vectors.line_offset,
        "vector_stack": vectors.vector_stack, "vector_total": vectors.vector_total,
        "_GATHERED": _GATHERED, "_SCRATCH": _SCRATCH,
    }


@functools.lru_cache(maxsize=None)
def fused_run(tag_dtype, variant, reduction=None):
    """The address of the fused kernel ``run(layout, ndim, addresses, constants)`` of the
    expression whose tag has this dtype, for the plan ``variant`` (:func:`fused_walk`);
    ``reduction``: None, or the dtypes of its operation tag, of the values reduced and of the
    accumulator."""
    return compile_run(_run_function(tag_dtype, np.dtype([(variant, np.uint8)]), reduction),
                       FUSED_RUN)


def _run_function(tag, variant, reduction):
    def run(layout_address, ndim, addresses_address, constants_address):
        fused_walk(tag, variant, _typed_pointer(layout_address, WORD), ndim,
                   _typed_pointer(addresses_address, WORD), constants_address, reduction)
    return run


# ---- the engine: jobs and threads ----

# The words of a fused call's pieces (_piece), after the runner's: the pieces' table, the plan's
# ndim, the address of the run and that of the constants. A row of the table: the address of
# the piece's layout, then that of its operands' addresses.
_TABLE, _NDIM, _RUN, _CONSTANTS = range(4)
_ROW_WORDS = 2


def _piece(words_address, k):
    """``piece(words, k)`` (:func:`.threads.pieces_state`) of a large fused call."""
    words = carray(_typed_pointer(words_address, WORD), _CONSTANTS + 1)
    row = carray(_typed_pointer(words[_TABLE] + 8 * _ROW_WORDS * k, WORD), _ROW_WORDS)
    call_function(words[_RUN], (row[0], words[_NDIM], row[1], words[_CONSTANTS]))


_piece_address = functools.cache(lambda: compile_run(_piece, PIECE))


class _FusedJob:
    """A fused call's kernel and plan for its layouts: ``call(addresses, constants)`` runs it
    for operands at ``addresses`` (the inputs, then the output or accumulator) with the
    constants' slots at ``constants.address``."""

    def __init__(self, plan, rows, starts, run, parallel):
        self.plan, self.starts = plan, np.array(starts, np.int64)
        self.layouts = np.ascontiguousarray(rows)  # one layout, or one per piece
        self.run, self.parallel = run, parallel
        self.ndim = plan.shape.size
        self.placed = self.starts.any()
        self._pack = struct.Struct(f"{self.starts.shape[-1]}q").pack
        self._run = functools.partial(c_caller(4, "none", release=plan.size >= HELD_GIL_WORK),
                                      run, self.layouts.ctypes.data, self.ndim)

    def call(self, addresses, constants):
        if not self.parallel:
            if self.placed:
                addresses = [a + s for a, s in zip(addresses, self.starts.tolist())]
            words = self._pack(*addresses)  # alive until the call returns
            self._run(buffer_address(words), constants.address)
            return
        placed = self.starts + np.asarray(addresses, np.int64)
        count = len(self.starts)
        table = np.empty((count, _ROW_WORDS), np.int64)
        table[:, 0] = self.layouts.ctypes.data + self.layouts[0].nbytes * np.arange(count)
        table[:, 1] = placed.ctypes.data + placed[0].nbytes * np.arange(count)
        words = [0] * (_CONSTANTS + 1)
        words[_TABLE], words[_NDIM], words[_RUN] = table.ctypes.data, self.ndim, self.run
        words[_CONSTANTS] = constants.address
        run_pieces(pieces_state(_piece_address(), count, words))


@functools.lru_cache(maxsize=1024)
def fused_job(tag_dtype, layouts, shape):
    """The job of an elementwise fused call: ``layouts`` are (strides, dtype) of the inputs,
    then of the output; None where the shape has no elements."""
    plan = make_plan(shape, *(strides for strides, _ in layouts))
    if plan is None:
        return None
    sizes = [dtype.itemsize for _, dtype in layouts]
    starts = [offset * size for offset, size in zip(plan.offsets, sizes)]
    layout = np.array([plan.shape, *plan.strides])
    dense = all(strides[-1] == 1 for strides in plan.strides)
    run = fused_run(tag_dtype, "dense" if dense else "gathered")
    if plan.size * sizes[-1] < PARALLEL_BYTES or THREADS == 1:
        return _FusedJob(plan, layout, starts, run, False)
    pieces = plan.split(PIECES)
    rows = np.empty((len(pieces), *layout.shape), np.int64)
    placed = np.empty((len(pieces), len(layouts)), np.int64)
    for k, (offsets, piece_shape) in enumerate(pieces):
        rows[k], rows[k, 0] = layout, piece_shape
        placed[k] = [start + offset * size
                     for start, offset, size in zip(starts, offsets, sizes)]
    return _FusedJob(plan, rows, placed, run, True)


class _FusedReduction:
    """A fused call that ends in a reduction: the accumulator set to the identity, then the
    kernel's pieces (into rows of partial results, combined after, where the pieces cut a
    reduced dimension)."""

    def __init__(self, name, acc_dtype, kept, job, partials):
        self.name, self.acc_dtype, self.kept, self.job = name, acc_dtype, kept, job
        self.identity = identity_value(name, acc_dtype)
        self.partials = partials  # the pieces' count where each has its own row, else 0

    def call(self, addresses, acc_address, constants):
        size = self.acc_dtype.itemsize
        if not self.partials:
            _fill(acc_address, self.kept, self.acc_dtype, self.identity)
            if self.job is not None:
                self.job.call([*addresses, acc_address], constants)
            return
        partials = np.full((self.partials, self.kept), self.identity, self.acc_dtype.storage)
        rows = partials.ctypes.data + size * self.kept * np.arange(self.partials)
        self.job.call(np.array([[*addresses, row] for row in rows], np.int64), constants)
        reduce_array(COMBINE_PARTIALS.get(self.name, self.name), partials.ctypes.data,
                     (self.kept, 1), self.acc_dtype, partials.shape, (0,), acc_address,
                     self.acc_dtype, parallel=False)


def _fill(address, count, dtype, value):
    numpy_view(address, (count,), (1,), dtype.storage, False, None)[...] = value


@functools.lru_cache(maxsize=1024)
def fused_reduction(tag_dtype, layouts, shape, name, axes, x_strides, x_dtype, acc_dtype):
    """The job of a fused call that reduces: ``layouts`` are the inputs' (strides, dtype);
    the expression's values, of ``x_dtype``, are reduced by ``name`` along ``axes`` into a
    C-contiguous accumulator of ``acc_dtype``, as :func:`.reduction.reduce_array` reduces the
    array of them that the unfused calls write (with ``x_strides``). None where the runs of
    that reduction are not runs of every input (a broadcast one): the caller then writes the
    values out and reduces them."""
    if reduced_dtype(name, shape, x_strides, x_dtype, acc_dtype) is not x_dtype:
        x_strides, x_dtype = c_strides(shape), acc_dtype  # as the engine casts first
    acc_shape = tuple(n for d, n in enumerate(shape) if d not in axes)
    kept = size_of(acc_shape)
    strides = iter(c_strides(acc_shape))
    placed = tuple(0 if d in axes else next(strides) for d in range(len(shape)))
    unfused = make_plan(shape, placed, x_strides)
    if unfused is None:
        return _FusedReduction(name, acc_dtype, kept, None, 0)
    plan = make_plan(shape, placed, *(s for s, _ in layouts), x_strides)
    if plan.shape.size != unfused.shape.size or (plan.shape != unfused.shape).any():
        return None
    sizes = [acc_dtype.itemsize, *(dtype.itemsize for _, dtype in layouts)]
    small = plan.size < VECTORIZED_SIZE
    variant = ":".join(("kept" if plan.strides[0][-1] else "reduced",
                        "dense" if all(s[-1] == 1 for s in plan.strides[1:-1]) else "strided",
                        "blocks" if small or plan.strides[-1][-1] != 1 else "vectors"))
    op = (OP_TAGS[name].dtype, TAGS[x_dtype].dtype, TAGS[acc_dtype].dtype)
    run = fused_run(tag_dtype, variant, op)
    layout = np.array([plan.shape, *plan.strides[1:-1], plan.strides[0]])
    starts = [offset * size for offset, size in zip(plan.offsets, sizes)]
    starts = starts[1:] + starts[:1]  # the inputs', then the accumulator's
    if small or THREADS == 1 or plan.size * x_dtype.itemsize < PARALLEL_BYTES:
        return _FusedReduction(name, acc_dtype, kept, _FusedJob(plan, layout, starts, run,
                                                                 False), 0)
    pieces, reduced_split = split_plan(plan, PIECES)
    rows = np.empty((len(pieces), *layout.shape), np.int64)
    placed_starts = np.empty((len(pieces), len(starts)), np.int64)
    for k, (offsets, piece_shape) in enumerate(pieces):
        rows[k], rows[k, 0] = layout, piece_shape
        moved = [offset * size for offset, size in zip(offsets, sizes)]
        moved = moved[1:] + [0 if reduced_split else moved[0]]
        placed_starts[k] = [start + offset for start, offset in zip(starts, moved)]
    job = _FusedJob(plan, rows, placed_starts, run, True)
    return _FusedReduction(name, acc_dtype, kept, job, len(pieces) if reduced_split else 0)

