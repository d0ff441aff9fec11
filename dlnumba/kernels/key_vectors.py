"""Vectors of unsigned sort keys (64 bytes: 16 of 32 bits, 8 of 64) for the quicksort
(:mod:`.quicksort`): the intrinsics Numba cannot express, a partition of one vector by a pivot
(AVX-512's compress) and a sorting network over a few vectors.

The quicksort runs only where the target compiles AVX-512 (:func:`compresses`); elsewhere LLVM
would emulate the compress lane by lane, slower than the radix sort it replaces.
"""

from llvmlite import ir
from .._numba import cgutils, intrinsic, types
from .vectors import VECTOR_BYTES

_ALIGN = ir.Constant(ir.IntType(32), 1)  # keys are read and written at any element


def compresses(bits):
    """Whether the target compiles the quicksort's vectors of keys of ``bits`` bits: 32 or 64,
    and AVX-512 (the build's level, else the host's)."""
    from numba.core import config
    import llvmlite.binding as llvm
    features = config.CPU_FEATURES
    if features is None:
        features = llvm.get_host_cpu_features().flatten()
    return bits in (32, 64) and "+avx512f" in features.split(",")


def _vector(dtype):
    return ir.VectorType(ir.IntType(dtype.bitwidth), VECTOR_BYTES * 8 // dtype.bitwidth)


def _intrinsic(builder, name, result, arguments):
    function = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(result, [a.type for a in arguments]), name)
    return builder.call(function, arguments)


def _splat(builder, vector, value):
    one = builder.insert_element(ir.Constant(vector, ir.Undefined), value,
                                 ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, one, ir.Constant(
        ir.VectorType(ir.IntType(32), vector.count), [0] * vector.count))


def _first(builder, lanes, count):
    """The mask of the first ``count`` (an intp, at most ``lanes``) of ``lanes`` lanes."""
    one = ir.Constant(count.type, 1)
    bits = builder.sub(builder.shl(one, count), one)
    return builder.bitcast(builder.trunc(bits, ir.IntType(lanes)),
                           ir.VectorType(ir.IntType(1), lanes))


def _load(builder, address, vector, mask, fill):
    name = f"llvm.masked.load.v{vector.count}i{vector.element.width}.p0"
    return _intrinsic(builder, name, vector, [address, _ALIGN, mask, fill])


def _store(builder, value, address, mask):
    name = f"llvm.masked.store.v{value.type.count}i{value.type.element.width}.p0"
    _intrinsic(builder, name, ir.VoidType(), [value, address, _ALIGN, mask])


def _address(context, builder, array_type, array, index, vector):
    data = context.make_array(array_type)(context, builder, array).data
    return builder.bitcast(builder.gep(data, [index]), vector.as_pointer())


@intrinsic
def partition_vector(typingctx, src, at, count, pivot, inclusive, dst, left, right, slack,
                     above_first):
    """Read ``src[at:at + count]`` (``count`` at most a vector's lanes) and write the keys
    below ``pivot`` (or with ``inclusive`` not above it) from ``dst[left]`` on, the others to
    end at ``dst[right]``, in their order; return how many were below. With ``slack`` (a
    literal) the whole vector is stored at ``dst[left]``, where the places past the keys below
    are free (a masked store costs more). With ``above_first`` (a literal) the sides swap: the
    others from ``dst[left]`` on, the keys below to end at ``dst[right]``."""
    if not isinstance(slack, types.BooleanLiteral) or not isinstance(above_first,
                                                                     types.BooleanLiteral):
        return None

    def codegen(context, builder, signature, args):
        source, start, n, bound, equal_too, target, low, high = args[:8]
        vector = _vector(src.dtype)
        valid = _first(builder, vector.count, n)
        keys = _load(builder, _address(context, builder, src, source, start, vector), vector,
                     valid, ir.Constant(vector, ir.Undefined))
        bounds = _splat(builder, vector, bound)
        below = builder.select(equal_too, builder.icmp_unsigned("<=", keys, bounds),
                               builder.icmp_unsigned("<", keys, bounds))
        below = builder.and_(below, valid)
        above = builder.and_(builder.not_(below), valid)
        bits = builder.bitcast(below, ir.IntType(vector.count))
        lower = builder.zext(_intrinsic(builder, f"llvm.ctpop.i{vector.count}", bits.type,
                                        [bits]), ir.IntType(64))
        compress = f"llvm.x86.avx512.mask.compress.v{vector.count}i{vector.element.width}"
        sides = [(below, lower), (above, builder.sub(n, lower))]
        if above_first.literal_value:
            sides.reverse()
        (first, first_n), (last, last_n) = sides
        for mask, place, written, whole in (
                (first, low, first_n, slack.literal_value),
                (last, builder.sub(high, last_n), last_n, False)):
            packed = _intrinsic(builder, compress, vector,
                                [keys, ir.Constant(vector, ir.Undefined), mask])
            address = _address(context, builder, dst, target, place, vector)
            if whole:
                builder.store(packed, address, align=1)
            else:
                _store(builder, packed, address, _first(builder, vector.count, written))
        return lower

    return types.intp(src, types.intp, types.intp, src.dtype, types.boolean, dst, types.intp,
                      types.intp, slack, above_first), codegen


def _network(builder, vectors):
    """The lanes of ``vectors`` (a power of two of them) sorted ascending, first vector
    first: a bitonic network. Keys a stage compares across vectors are compared lane by lane;
    keys it compares within a vector are first gathered from each pair of vectors into one of
    the keys that take the lesser and one of the others (shuffles of two vectors), and stay
    so gathered until a stage across vectors. A lone vector's partners are exchanged by a
    shuffle of it."""
    vector = vectors[0].type
    lanes, width = vector.count, vector.element.width
    low, high = (lambda a, b, op=op: _intrinsic(builder, f"llvm.{op}.v{lanes}i{width}", vector,
                                                [a, b]) for op in ("umin", "umax"))
    vectors, total = list(vectors), len(vectors) * lanes
    slots = list(range(total))  # the lane of each key, counted over all the vectors

    def gather(group, firsts, seconds):
        """Vectors ``group`` and ``group + 1`` as the keys ``firsts`` and ``seconds``."""
        base = group * lanes
        pair = vectors[group], vectors[group + 1]
        for v, keys in enumerate((firsts, seconds)):
            lanes_of = ir.Constant(ir.VectorType(ir.IntType(32), lanes),
                                   [slots[key] - base for key in keys])
            vectors[group + v] = builder.shuffle_vector(*pair, lanes_of)
            for lane, key in enumerate(keys):
                slots[key] = base + v * lanes + lane

    def in_order():
        for group in range(0, len(vectors) - 1, 2):  # a lone vector is never gathered
            if any(slots[key] != key for key in range(group * lanes, (group + 2) * lanes)):
                gather(group, range(group * lanes, (group + 1) * lanes),
                       range((group + 1) * lanes, (group + 2) * lanes))

    def exchange_in_one(size, distance):
        keys = vectors[0]
        other = builder.shuffle_vector(keys, keys, ir.Constant(
            ir.VectorType(ir.IntType(32), lanes), [i ^ distance for i in range(lanes)]))
        takes_low = [int((i & size == 0) == (i & distance == 0)) for i in range(lanes)]
        vectors[0] = builder.select(ir.Constant(ir.VectorType(ir.IntType(1), lanes), takes_low),
                                    low(keys, other), high(keys, other))

    size = 2
    while size <= total:
        distance = size // 2
        while distance:
            if distance >= lanes:
                in_order()
                for q in range(len(vectors)):
                    p = q ^ distance // lanes
                    if p > q:
                        pair = low(vectors[q], vectors[p]), high(vectors[q], vectors[p])
                        ascending = (q * lanes) & size == 0
                        vectors[q], vectors[p] = pair if ascending else pair[::-1]
            elif len(vectors) == 1:
                exchange_in_one(size, distance)
            else:
                for group in range(0, len(vectors), 2):
                    lesser = [key if key & size == 0 else key ^ distance
                              for key in range(group * lanes, (group + 2) * lanes)
                              if key & distance == 0]
                    gather(group, lesser, [key ^ distance for key in lesser])
                    pair = vectors[group], vectors[group + 1]
                    vectors[group], vectors[group + 1] = low(*pair), high(*pair)
            distance //= 2
        size *= 2
    in_order()
    return vectors


@intrinsic
def sort_vectors(typingctx, keys, at, count, vectors):
    """Sort ``keys[at:at + count]`` in ``vectors`` (a literal power of two) vectors, which
    hold at least ``count`` keys."""
    if not isinstance(vectors, types.IntegerLiteral):
        return None

    def codegen(context, builder, signature, args):
        array, start, n = args[:3]
        vector = _vector(keys.dtype)
        lanes = vector.count
        places, masks, loaded = [], [], []
        for q in range(vectors.literal_value):
            left = builder.sub(n, ir.Constant(n.type, q * lanes))
            left = builder.select(builder.icmp_signed("<", left, ir.Constant(n.type, 0)),
                                  ir.Constant(n.type, 0), left)
            left = builder.select(builder.icmp_signed(">", left, ir.Constant(n.type, lanes)),
                                  ir.Constant(n.type, lanes), left)
            places.append(_address(context, builder, keys, array,
                                   builder.add(start, ir.Constant(start.type, q * lanes)),
                                   vector))
            masks.append(_first(builder, lanes, left))
            loaded.append(_load(builder, places[-1], vector, masks[-1],
                                ir.Constant(vector, [-1] * lanes)))  # the greatest key
        for value, place, mask in zip(_network(builder, loaded), places, masks):
            _store(builder, value, place, mask)
        return context.get_dummy_value()

    return types.none(keys, types.intp, types.intp, vectors), codegen
