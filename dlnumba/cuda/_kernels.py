"""CUDA kernels: the strided copy/cast engine, elementwise operations, reductions (plain, index
and running), and the gathers and scatters of array indexing, on one device.

A kernel applies one compiled scalar function to every element of a planned layout, one or
two operands and an output, in a grid-stride loop. The layout travels as an int64 array (the
shape, then each operand's strides, in elements) with a runtime rank, so no rank or layout is
ever specialized; index arithmetic is 64-bit. The scalar functions are the CPU engine's own,
compiled for the device from the shared kernel layer (:mod:`dlnumba.shared`): conversions
(``conversions.convert``; a same-dtype copy moves raw 1/2/4/8/16-byte units), the elementwise
operations of ``scalar`` and the reduction operations of ``reductions``, so both backends give
the same bits. One kernel per (operation, dtypes), compiled on first use.
"""

import functools

import numpy as np
from numba import cuda, int64, njit
from numba.np.numpy_support import from_dtype

from .._dtypes import computation_dtype
from .._layout import c_strides, extent, size_of
from ..shared import conversions
from ..shared.plan import make_plan
from ..shared import reductions
from ..shared.scalar import implementation
from ..shared.tags import COMPUTED, TAGS, UNITS, op_tag
from ._driver import (SIMULATOR, allocate, copy_bytes, device_view, download, launch_shape,
                      plan_view)

if not SIMULATOR:
    from ._ufuncs import complete_ufunc_table
    complete_ufunc_table()


@cuda.jit(device=True)
def _offsets(i, layout, ndim, operands):
    """The offsets in elements of the flat index ``i`` in the first ``operands`` (2 to 4)
    strides rows of a layout, 0 for the rows beyond them."""
    a = b = c = d = 0
    rest = i
    k = ndim - 1
    while k >= 0:
        q = rest // layout[k]
        r = rest - q * layout[k]
        a += r * layout[ndim + k]
        b += r * layout[2 * ndim + k]
        if operands >= 3:
            c += r * layout[3 * ndim + k]
        if operands == 4:
            d += r * layout[4 * ndim + k]
        rest = q
        k -= 1
    return a, b, c, d


def _unary_kernel(function):
    """A kernel writing ``function(x)`` for each element of a planned layout."""
    @cuda.jit
    def kernel(x, x_start, out, out_start, layout, ndim, n):
        i = cuda.grid(1)
        while i < n:
            a, o, _, _ = _offsets(i, layout, ndim, 2)
            out[out_start + o] = function(x[x_start + a])
            i += cuda.gridsize(1)

    return kernel


def _binary_kernel(function):
    """A kernel writing ``function(x, y)`` for each element of a planned layout."""
    @cuda.jit
    def kernel(x, x_start, y, y_start, out, out_start, layout, ndim, n):
        i = cuda.grid(1)
        while i < n:
            a, b, o, _ = _offsets(i, layout, ndim, 3)
            out[out_start + o] = function(x[x_start + a], y[y_start + b])
            i += cuda.gridsize(1)

    return kernel


@functools.lru_cache(maxsize=None)
def _transfer_kernel(src_dtype, dst_dtype):
    """The copy kernel from ``src_dtype`` to ``dst_dtype`` elements (raw units when they are
    the same dtype)."""
    src_tag, dst_tag = _tags(src_dtype, dst_dtype)

    @njit
    def convert(value):
        return conversions.convert(value, src_tag, dst_tag)

    return _unary_kernel(convert)


@functools.lru_cache(maxsize=None)
def _elementwise_kernel(name, kind, dtypes, compute_dtype):
    """The kernel of the elementwise operation ``name`` (implementation ``kind``) on operands
    and a result of ``dtypes`` (the result's last), computed in ``compute_dtype``."""
    tags = [TAGS[dtype] for dtype in dtypes]
    compute_tag, out_tag = TAGS[compute_dtype], tags[-1]
    operation = implementation(op_tag(name, kind))
    if len(dtypes) == 2:
        x_tag = tags[0]

        @njit
        def unary(x):
            return conversions.store(operation(conversions.convert(x, x_tag, compute_tag)),
                                     out_tag)

        return _unary_kernel(unary)
    x_tag, y_tag = tags[:2]

    @njit
    def binary(x, y):
        return conversions.store(operation(conversions.convert(x, x_tag, compute_tag),
                                           conversions.convert(y, y_tag, compute_tag)),
                                 out_tag)

    return _binary_kernel(binary)


_REDUCE_THREADS = 256  # the most threads a reduction block has (a power of 2)


def _block_tree(merge):
    """A device function ``fold(shared, t)`` that folds a block's partial results, held at the
    threads' places ``t`` in the shared arrays ``shared`` (a tuple), into place 0: in a tree,
    ``merge(shared, t, t + width)`` for half the width at each step (the block's size is a
    power of 2). Every thread of the block calls it."""

    @cuda.jit(device=True)
    def fold(shared, t):
        cuda.syncthreads()
        width = cuda.blockDim.x // 2
        while width > 0:
            if t < width:
                merge(shared, t, t + width)
            cuda.syncthreads()
            width //= 2

    return fold


def _combiner(op, dtype):
    """A device function ``combine(a, b)``: the reduction ``op`` of two partial results held
    as ``dtype`` values. It casts them back to ``dtype`` first: a no-op on the device, where
    they are typed, and needed in the simulator, which hands device functions Python ints that
    Numba would multiply as int64 (a running uint64 product turned negative). The kernels keep
    such values in a typed one-element array between calls for the same reason: a Python int
    past 2**63 cannot be passed back to a compiled function at all."""
    scalar = dtype.storage.type

    @njit
    def combine(a, b):
        return reductions.combine(op, scalar(a), scalar(b))

    return combine


@functools.lru_cache(maxsize=None)
def _reduce_kernel(name, x_dtype, acc_dtype):
    """The kernel of the reduction ``name`` of ``x_dtype`` elements into ``acc_dtype``: one
    block per kept element; its threads accumulate strided shares of the reduced elements,
    then combine their partial results in a tree."""
    op, x_tag, acc_tag = reductions.OP_TAGS[name], TAGS[x_dtype], TAGS[acc_dtype]
    acc_type = from_dtype(acc_dtype.storage)

    @njit
    def load(value):
        return reductions.load(op, value, x_tag, acc_tag)

    combine = _combiner(op, acc_dtype)

    @njit
    def identity():
        return reductions.identity(op, acc_tag)

    @njit
    def merge(shared, t, u):
        shared[0][t] = combine(shared[0][t], shared[0][u])

    fold = _block_tree(merge)

    @cuda.jit
    def kernel(x, x_start, out, kept, kept_ndim, reduced, reduced_ndim, n_out, n_reduced):
        partials = cuda.shared.array(_REDUCE_THREADS, acc_type)
        held = cuda.local.array(1, acc_type)  # the thread's partial result, typed (_combiner)
        t = cuda.threadIdx.x
        k = cuda.blockIdx.x
        while k < n_out:
            base, o, _, _ = _offsets(k, kept, kept_ndim, 2)
            held[0] = identity()
            j = t
            while j < n_reduced:
                a, _, _, _ = _offsets(j, reduced, reduced_ndim, 2)
                held[0] = combine(held[0], load(x[x_start + base + a]))
                j += cuda.blockDim.x
            partials[t] = held[0]
            fold((partials,), t)
            if t == 0:
                out[o] = partials[0]
            cuda.syncthreads()
            k += cuda.gridDim.x

    return kernel


@functools.lru_cache(maxsize=None)
def _arg_reduce_kernel(name, x_dtype):
    """The kernel of the index reduction ``name`` ("max" or "min") of ``x_dtype`` elements: one
    block per kept element; each thread finds the first extreme (a NaN counts as one) of its
    strided share of the run, then the block keeps, in a tree, the better of each pair (the
    earlier on a tie)."""
    op, x_tag = reductions.OP_TAGS[name], TAGS[x_dtype]
    compute_tag = TAGS[computation_dtype(x_dtype)]
    value_type = from_dtype(computation_dtype(x_dtype).storage)

    @njit
    def load(value):
        return conversions.convert(value, x_tag, compute_tag)

    @njit
    def beyond(value, best):
        return reductions.beyond(op, value, best)

    @njit
    def replaces(value, position, best, best_position):
        """Whether ``(value, position)`` is a better extreme than ``(best, best_position)``."""
        if value != value or best != best:
            return value != value and (best == best or position < best_position)
        return beyond(value, best) or (value == best and position < best_position)

    @njit
    def merge(shared, t, u):
        values, positions = shared
        if replaces(values[u], positions[u], values[t], positions[t]):
            values[t], positions[t] = values[u], positions[u]

    fold = _block_tree(merge)

    @cuda.jit
    def kernel(x, x_start, out, kept, kept_ndim, n_out, n, stride):
        values = cuda.shared.array(_REDUCE_THREADS, value_type)
        positions = cuda.shared.array(_REDUCE_THREADS, int64)
        t = cuda.threadIdx.x
        k = cuda.blockIdx.x
        while k < n_out:
            base, o, _, _ = _offsets(k, kept, kept_ndim, 2)
            start = x_start + base
            position = min(t, n - 1)  # a thread without elements takes the last (ties: the earlier)
            best = load(x[start + position * stride])
            j = t + cuda.blockDim.x
            while j < n and best == best:
                value = load(x[start + j * stride])
                if beyond(value, best):
                    best, position = value, j
                j += cuda.blockDim.x
            values[t], positions[t] = best, position
            fold((values, positions), t)
            if t == 0:
                out[o] = positions[0]
            cuda.syncthreads()
            k += cuda.gridDim.x

    return kernel


@functools.lru_cache(maxsize=None)
def _scan_kernel(name, x_dtype, out_dtype):
    """The kernel of the running reduction ``name`` ("sum" or "prod") of ``x_dtype`` elements
    into ``out_dtype``: one block per run; each thread takes a contiguous share of the run and
    totals it, the block turns the totals into the running value before each share, and each
    thread writes its share's running values, rounded to ``out_dtype`` at each step."""
    op, x_tag, out_tag = reductions.OP_TAGS[name], TAGS[x_dtype], TAGS[out_dtype]
    compute_tag = TAGS[computation_dtype(out_dtype)]
    compute_type = from_dtype(computation_dtype(out_dtype).storage)

    @njit
    def load(value):
        return conversions.convert(value, x_tag, compute_tag)

    @njit
    def stored(value):
        return conversions.store(value, out_tag)

    @njit
    def rounded(value):
        return conversions.convert(stored(value), out_tag, compute_tag)

    combine = _combiner(op, computation_dtype(out_dtype))

    @njit
    def identity():
        return reductions.identity(op, compute_tag)

    @cuda.jit
    def kernel(x, x_start, out, out_start, lanes, lanes_ndim, n_lanes, n, x_stride, out_stride):
        totals = cuda.shared.array(_REDUCE_THREADS, compute_type)
        held = cuda.local.array(1, compute_type)  # its total, then running value (_combiner)
        t = cuda.threadIdx.x
        share = (n + cuda.blockDim.x - 1) // cuda.blockDim.x
        first = t * share
        last = min(first + share, n)
        k = cuda.blockIdx.x
        while k < n_lanes:
            x_base, out_base, _, _ = _offsets(k, lanes, lanes_ndim, 2)
            x_base += x_start
            out_base += out_start
            held[0] = identity()
            if first < last:
                held[0] = load(x[x_base + first * x_stride])
            for j in range(first + 1, last):
                held[0] = combine(held[0], load(x[x_base + j * x_stride]))
            totals[t] = held[0]
            cuda.syncthreads()
            if t == 0:  # the running value before each share, from the first share's total on
                held[0] = totals[0]
                for u in range(1, cuda.blockDim.x):
                    total = totals[u]
                    totals[u] = held[0]
                    held[0] = combine(held[0], total)
            cuda.syncthreads()
            held[0] = totals[t]
            for j in range(first, last):
                value = load(x[x_base + j * x_stride])
                held[0] = value if j == 0 else combine(held[0], value)
                held[0] = rounded(held[0])
                out[out_base + j * out_stride] = stored(held[0])
            cuda.syncthreads()
            k += cuda.gridDim.x

    return kernel


@cuda.jit
def _gather_kernel(src, offsets, dst, n):
    i = cuda.grid(1)
    while i < n:
        dst[i] = src[offsets[i]]
        i += cuda.gridsize(1)


@cuda.jit
def _scatter_kernel(src, positions, offsets, dst, n):
    i = cuda.grid(1)
    while i < n:
        dst[offsets[i]] = src[positions[i]]
        i += cuda.gridsize(1)


def _storage(tag):
    """The NumPy dtype of the memory behind a tag (float16/bfloat16 tags are records of their
    uint16 bits)."""
    return np.dtype(np.uint16) if tag.dtype.fields else tag.dtype


def _tags(src_dtype, dst_dtype):
    if src_dtype is dst_dtype:
        unit = UNITS[src_dtype.itemsize]
        return unit, unit
    return TAGS[src_dtype], TAGS[dst_dtype]


def _overlaps(a_address, a_extent, a_size, b_address, b_extent, b_size):
    """Whether two planned operands share bytes (extents in elements from their addresses)."""
    return (a_address + a_extent[0] * a_size < b_address + (b_extent[1] + 1) * b_size
            and b_address + b_extent[0] * b_size < a_address + (a_extent[1] + 1) * a_size)


def _snapshot(address, span, size, index):
    """A device copy of the bytes an operand's walk touches: the address that stands for
    ``address`` in the copy, and the copy's owner."""
    low, high = span
    nbytes = (high - low + 1) * size
    copy, owner = allocate(nbytes, index=index)
    copy_bytes(copy, address + low * size, nbytes, index)
    return copy - low * size, owner


def _launch(kernel, plan, operands, index):
    """Run ``kernel`` over ``plan`` for ``operands`` (address, storage tag), output last, on
    CUDA device ``index``; return when it is done."""
    blocks, threads = launch_shape(plan.size)
    with cuda.gpus[index]:
        arguments = []
        for (address, tag), (low, high), offset in zip(operands, plan.extents, plan.offsets):
            size = tag.itemsize
            arguments += (device_view(address + low * size, high - low + 1, _storage(tag)),
                          offset - low)
        layout = plan_view(np.concatenate([plan.shape, *plan.strides]))
        kernel[blocks, threads](*arguments, layout, plan.shape.size, plan.size)
        cuda.synchronize()


def copy_array(src_address, src_strides, src_dtype, dst_address, dst_strides, dst_dtype, shape,
               index):
    """Write the elements of one layout on CUDA device ``index``, converted to ``dst_dtype``,
    into another layout on the same device; the arguments are those of
    :func:`dlnumba.kernels.copy_array`, and so is the result (NumPy's ``astype``; an overlapping
    source is read completely before the first write)."""
    plan = make_plan(shape, src_strides, dst_strides)
    if plan is None:
        return
    src_size, dst_size = src_dtype.itemsize, dst_dtype.itemsize
    src_extent, dst_extent = plan.extents
    snapshot = None  # owns a copy of an overlapping source until the kernel is done
    if _overlaps(src_address, src_extent, src_size, dst_address, dst_extent, dst_size):
        if src_address == dst_address and src_strides == dst_strides and src_dtype is dst_dtype:
            return
        src_address, snapshot = _snapshot(src_address, src_extent, src_size, index)
    src_tag, dst_tag = _tags(src_dtype, dst_dtype)
    _launch(_transfer_kernel(src_dtype, dst_dtype), plan,
            [(src_address, src_tag), (dst_address, dst_tag)], index)


def apply_elementwise(name, kind, inputs, out, shape, compute_dtype, index):
    """Compute ``out = name(*inputs)`` elementwise on CUDA device ``index``; the arguments are
    those of :func:`dlnumba.kernels.apply_elementwise`, and so is the result (an input that
    overlaps the output other than exactly is read from a snapshot)."""
    operands = (*inputs, out)
    plan = make_plan(shape, *(strides for _, strides, _ in operands))
    if plan is None:
        return
    out_address, out_strides, out_dtype = out
    snapshots, addresses = [], []  # copies of overlapping inputs, alive until the kernel is done
    for (address, strides, dtype), span in zip(inputs, plan.extents):
        if (_overlaps(address, span, dtype.itemsize, out_address, plan.extents[-1],
                      out_dtype.itemsize)
                and not (address == out_address and strides == out_strides)):
            address, snapshot = _snapshot(address, span, dtype.itemsize, index)
            snapshots.append(snapshot)
        addresses.append(address)
    dtypes = tuple(dtype for _, _, dtype in operands)
    _launch(_elementwise_kernel(name, kind, dtypes, compute_dtype), plan,
            [(address, TAGS[dtype]) for address, dtype in zip([*addresses, out_address], dtypes)],
            index)


def reduce_array(name, x_address, x_strides, x_dtype, shape, axes, acc_address, acc_dtype,
                 index):
    """Reduce the elements of a layout on CUDA device ``index`` along ``axes`` into an
    accumulator; the arguments are those of :func:`dlnumba.kernels.reduction.reduce_array`,
    and so is the result (floating-point sums may differ in the last bits: the order of
    additions is the blocks' tree, not the CPU's pairwise blocks)."""
    kept_layout, kept_ndim, n_out = _kept_layout(shape, axes, x_strides)
    if n_out == 0:
        return
    n_reduced = size_of(tuple(shape[d] for d in axes))
    reduced_layout = np.array([[shape[d] for d in axes], [x_strides[d] for d in axes],
                               [0] * len(axes)], np.int64).reshape(-1)
    blocks, threads = launch_shape(n_out * _REDUCE_THREADS)
    threads = min(threads, _REDUCE_THREADS)
    with cuda.gpus[index]:
        x, x_start = _view_of(x_address, shape, x_strides, x_dtype)
        out = device_view(acc_address, n_out, acc_dtype.storage)
        _reduce_kernel(name, x_dtype, acc_dtype)[blocks, threads](
            x, x_start, out, plan_view(kept_layout), kept_ndim, plan_view(reduced_layout),
            len(axes), n_out, n_reduced)
        cuda.synchronize()


def _kept_layout(shape, axes, x_strides, out_strides=None):
    """The layout of the dimensions of ``shape`` not in ``axes``: their shape, their strides in
    ``x_strides``, then in ``out_strides`` (C-contiguous over them if None); the number of
    those dimensions and of their elements."""
    kept = [d for d in range(len(shape)) if d not in axes]
    kept_shape = tuple(shape[d] for d in kept)
    out = c_strides(kept_shape) if out_strides is None else [out_strides[d] for d in kept]
    layout = np.array([kept_shape, [x_strides[d] for d in kept], out], np.int64)
    return layout.reshape(-1), len(kept), size_of(kept_shape)


def _view_of(address, shape, strides, dtype):
    """The device view of the elements a layout reaches from ``address``, and the index in it of
    the element at ``address`` (a layout of no elements: a view of one, never read)."""
    low, high = extent(shape, strides) or (0, 0)
    size = dtype.itemsize
    return device_view(address + low * size, high - low + 1, _storage(TAGS[dtype])), -low


def arg_reduce_array(name, x_address, x_strides, x_dtype, shape, axis, out_address, index):
    """The position of the first maximum (``name="max"``) or minimum (``"min"``) along ``axis``
    on CUDA device ``index``; the arguments are those of
    :func:`dlnumba.kernels.reduction.arg_reduce_array`, and so is the result."""
    layout, kept_ndim, n_out = _kept_layout(shape, (axis,), x_strides)
    if n_out == 0:
        return
    blocks, threads = launch_shape(n_out * _REDUCE_THREADS)
    with cuda.gpus[index]:
        x, x_start = _view_of(x_address, shape, x_strides, x_dtype)
        out = device_view(out_address, n_out, np.dtype(np.int64))
        _arg_reduce_kernel(name, x_dtype)[blocks, min(threads, _REDUCE_THREADS)](
            x, x_start, out, plan_view(layout), kept_ndim, n_out, shape[axis],
            x_strides[axis])
        cuda.synchronize()


def scan_array(name, x_address, x_strides, x_dtype, shape, axis, out_address, out_strides,
               out_dtype, index):
    """The running sum (``name="sum"``) or product (``"prod"``) along ``axis`` on CUDA device
    ``index``; the arguments are those of :func:`dlnumba.kernels.reduction.scan_array`, and so
    is the result (float32 and wider values may differ in the last bits: each share of a run
    starts from its predecessors' totals)."""
    layout, lanes_ndim, n_lanes = _kept_layout(shape, (axis,), x_strides, out_strides)
    n = shape[axis]
    if n_lanes == 0 or n == 0:
        return
    blocks, threads = launch_shape(n_lanes * _REDUCE_THREADS)
    # Short runs would leave most of a block idle: one warp each for them. A float16 or
    # bfloat16 running value is rounded at each step: one thread walks each run in order.
    threads = (1 if out_dtype in COMPUTED else
               min(threads, _REDUCE_THREADS if n >= 8 * _REDUCE_THREADS else 32))
    with cuda.gpus[index]:
        x, x_start = _view_of(x_address, shape, x_strides, x_dtype)
        out, out_start = _view_of(out_address, shape, out_strides, out_dtype)
        _scan_kernel(name, x_dtype, out_dtype)[blocks, threads](
            x, x_start, out, out_start, plan_view(layout), lanes_ndim, n_lanes, n,
            x_strides[axis], out_strides[axis])
        cuda.synchronize()


def gather(src_address, offsets, dst_address, itemsize, index):
    """``dst[k] = src[offsets[k]]`` on CUDA device ``index``, for elements of ``itemsize``
    bytes: ``offsets`` (a host int64 array, in elements) into any memory there, ``dst`` a
    contiguous array there."""
    n = offsets.size
    if n == 0:
        return
    low, high = int(offsets.min()), int(offsets.max())
    storage = _storage(UNITS[itemsize])
    with cuda.gpus[index]:
        src = device_view(src_address + low * itemsize, high - low + 1, storage)
        _gather_kernel[launch_shape(n)](src, plan_view(offsets - low),
                                        device_view(dst_address, n, storage), n)
        cuda.synchronize()


def take(src_address, size, stride, index_address, count, dst_address, itemsize, index):
    """``dst[k] = src[wrap(indices[k]) * stride]`` on CUDA device ``index``, for ``count``
    int64 indices there (see :meth:`dlnumba._backend.Backend.take`): the indices are checked
    on the host, then gathered."""
    indices, bad = _wrapped(index_address, count, size, index)
    if bad < 0:
        gather(src_address, indices * stride, dst_address, itemsize, index)
    return bad


def put(src_address, src_stride, index_address, count, dst_address, size, stride, itemsize,
        index):
    """The inverse of :func:`take` on CUDA device ``index`` (see
    :meth:`dlnumba._backend.Backend.put`): the indices are checked on the host."""
    indices, bad = _wrapped(index_address, count, size, index)
    if bad < 0:
        _scatter_values(src_address, src_stride, indices * stride, dst_address, itemsize, index)
    return bad


def _wrapped(index_address, count, size, index):
    """The ``count`` int64 indices at ``index_address`` on CUDA device ``index``, read on the
    host with ``size`` added to negative ones, and the position of the first outside
    ``[0, size)`` (-1: none)."""
    indices = np.empty(count, np.int64)
    if count:
        download(indices.ctypes.data, index_address, indices.nbytes, index)
    indices[indices < 0] += size
    bad = np.flatnonzero((indices < 0) | (indices >= size))
    return indices, int(bad[0]) if bad.size else -1


def compress(src_address, size, stride, mask_address, mask_stride, dst_address, itemsize, index):
    """The items ``src[i * stride]`` whose ``mask[i * mask_stride]`` is true, gathered in order
    on CUDA device ``index`` (see :meth:`dlnumba._backend.Backend.compress`): the mask is read
    on the host."""
    selected = _selected(size, mask_address, mask_stride, index)
    gather(src_address, selected * stride, dst_address, itemsize, index)
    return selected.size


def expand(src_address, src_stride, size, mask_address, mask_stride, dst_address, stride,
           itemsize, index):
    """The inverse of :func:`compress` on CUDA device ``index`` (see
    :meth:`dlnumba._backend.Backend.expand`): the mask is read on the host."""
    selected = _selected(size, mask_address, mask_stride, index)
    _scatter_values(src_address, src_stride, selected * stride, dst_address, itemsize, index)


def _scatter_values(src_address, src_stride, offsets, dst_address, itemsize, index):
    """:func:`scatter` from a contiguous ``src``, or (``src_stride`` 0) of one value."""
    if src_stride == 0 and offsets.size:
        copies, owner = allocate(offsets.size * itemsize, index=index)  # alive to the end
        gather(src_address, np.zeros(offsets.size, np.int64), copies, itemsize, index)
        src_address = copies
    scatter(src_address, offsets, dst_address, itemsize, index)


def _selected(size, mask_address, mask_stride, index):
    """The positions ``i < size`` of the true elements ``mask[i * mask_stride]`` of a bool
    mask on CUDA device ``index``, read on the host."""
    if size == 0:
        return np.empty(0, np.int64)
    low = min(0, (size - 1) * mask_stride)
    flags = np.empty((size - 1) * abs(mask_stride) + 1, np.uint8)
    download(flags.ctypes.data, mask_address + low, flags.nbytes, index)
    return np.flatnonzero(flags[np.arange(size) * mask_stride - low])


def scatter(src_address, offsets, dst_address, itemsize, index):
    """``dst[offsets[k]] = src[k]`` on CUDA device ``index`` from a contiguous ``src`` there;
    of several writes to one element the last wins, as on the CPU (only it is made)."""
    n = offsets.size
    if n == 0:
        return
    _, last_reversed = np.unique(offsets[::-1], return_index=True)
    positions = n - 1 - last_reversed
    kept = offsets[positions]
    low, high = int(kept.min()), int(kept.max())
    storage = _storage(UNITS[itemsize])
    with cuda.gpus[index]:
        dst = device_view(dst_address + low * itemsize, high - low + 1, storage)
        _scatter_kernel[launch_shape(kept.size)](
            device_view(src_address, n, storage), plan_view(positions), plan_view(kept - low),
            dst, kept.size)
        cuda.synchronize()
