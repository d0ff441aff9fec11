"""``xp.fuse``: a fused function gives the bits of the same calls made one by one.

- Hypothesis, differentially: expression trees (depth 1 to 4) over one to three array arguments
  and Python scalar arguments, of the elementwise functions and operators that each dtype
  family allows (``FUNCTIONS`` rows and their categories), ``where``, ``astype`` and ``clip``,
  with and without a final reduction (axis, keepdims, dtype); every dtype, 0-d, size-0 and
  broadcast shapes, stepped, reversed, transposed and zero-stride views, large arrays (the
  vectorized path), strict mode or not. The trees are a fixed pool (``TEMPLATES``: trees drawn
  once from seeded generators, and one call of each function they miss), each fused function
  made once: a new expression compiles a kernel, a new dtype another, and the pool bounds how
  many. Where the unfused calls raise, the fused call raises the same exception type.
- Deterministic: the issue's expressions on 2**22 elements (threads and pieces), large
  reductions along each axis, NaN (and its sign) in reductions, broadcasting, Python scalar
  arguments (their signed zeros and NaN), where/astype/clip corners, the decorator forms, a new
  array for the identity, one trace per kind of arguments, strict mode, arguments and values
  the function leaves unused.
- The errors: calls a fused function cannot make (named in the message), what may not follow
  the reduction, results that are not one array, arguments that are not arrays or scalars.
- Each device: a few fused calls on CUDA arrays (the simulator in CI, see conftest) against the
  unfused calls there.

Results are compared by their bytes (NaN payloads and signed zeros count; bfloat16 through
NumPy's ml_dtypes view of the same bits).
"""

import contextlib
import math
import operator
import random
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st
from hypothesis.extra import numpy as hnp

import dlnumba as xp
from dlnumba._dtypes import CATEGORIES
from dlnumba.shared.scalar import FUNCTIONS

from helpers import (axes, ALL, COMPLEX, CPU, DTYPES, REAL_FLOATS, SIGNED_INTS, UNSIGNED_INTS,
                     data_address, run_python)

FAMILIES = {"bool": ["bool"], "signed integer": SIGNED_INTS,
            "unsigned integer": UNSIGNED_INTS, "real floating": REAL_FLOATS,
            "complex floating": COMPLEX}
REDUCTIONS = ("sum", "prod", "max", "min", "mean", "any", "all")
SCALAR_TYPES = {"bool": bool, "signed integer": int, "unsigned integer": int,
                "real floating": float, "complex floating": complex}


def kind_of(name):
    """The dtype kind (a key of ``FAMILIES``) of the dtype ``name``."""
    return next(kind for kind, names in FAMILIES.items() if name in names)


# ---------------------------------------------------------------- comparing results

def host(x):
    """A NumPy array of ``x``'s values, in its own dtype (bfloat16 as ml_dtypes' bfloat16)."""
    return np.asarray(x.to_device(CPU) if x.device != CPU else x)


def assert_same_bits(result, expected, err_msg="", nans_meet=False):
    """``result`` is a dlnumba array with ``expected``'s shape, dtype, device and bytes.

    ``nans_meet``: two NaNs that meet in one operation may leave either one's sign and payload
    (README, xp.fuse): NaN where ``expected`` has NaN (in each component), the same bytes
    elsewhere.
    """
    assert isinstance(result, xp.ndarray), (err_msg, type(result))
    assert result.shape == expected.shape, (err_msg, result.shape, expected.shape)
    assert result.dtype == expected.dtype, (err_msg, result.dtype, expected.dtype)
    assert result.device == expected.device, (err_msg, result.device, expected.device)
    got, want = host(result), host(expected)
    if nans_meet and want.dtype.kind in "fcV":  # V: ml_dtypes' bfloat16
        pairs = ([(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c"
                 else [(got, want)])
        got, want = [], []
        for ours, theirs in pairs:
            nan = np.isnan(theirs)
            np.testing.assert_array_equal(np.isnan(ours), nan, err_msg=err_msg)
            zero = np.zeros((), theirs.dtype)
            got.append(np.where(nan, zero, ours))
            want.append(np.where(nan, zero, theirs))
        got, want = np.stack(got), np.stack(want)
    if got.tobytes() != want.tobytes():
        raise AssertionError(f"{err_msg}: the fused result's bits differ\nfused:   {got!r}\n"
                             f"unfused: {want!r}")


def assert_fused_matches(fused, function, *arguments, err_msg="", nans_meet=False):
    """The fused call ``fused(*arguments)`` gives the bits of ``function(*arguments)``, the
    unfused calls, or raises the exception type they raise (``nans_meet``: as for
    :func:`assert_same_bits`). Returns the unfused result (None where it raised)."""
    try:
        expected = function(*arguments)
    except Exception as error:
        with pytest.raises(Exception) as raised:
            fused(*arguments)
        assert isinstance(raised.value, type(error)), (
            f"{err_msg}: the unfused calls raise {type(error).__name__}: {error}; the fused "
            f"call raises {type(raised.value).__name__}: {raised.value}")
        return None
    assert_same_bits(fused(*arguments), expected, err_msg, nans_meet)
    return expected


# ---------------------------------------------------------------- expression trees

# Nodes: ("arg", k), the function's k-th argument (the arrays first, then the scalars);
# ("call", name, form, *operands), form "call" (xp.name) or "op" (the operator);
# ("where", condition, x1, x2); ("astype", dtype name, x); ("clip", x, min, max), a bound
# None or an ("arg", k) node.
OPERATORS = {"and": operator.and_, "or": operator.or_, "abs": abs}


def operator_of(name):
    dunder = FUNCTIONS[name].operator
    return OPERATORS.get(dunder) or getattr(operator, dunder)


def evaluate(node, arguments):
    """The value of the tree ``node`` for ``arguments``, by dlnumba's calls (traced or not)."""
    how = node[0]
    if how == "arg":
        return arguments[node[1]]
    if how == "call":
        operands = [evaluate(n, arguments) for n in node[3:]]
        function = operator_of(node[1]) if node[2] == "op" else getattr(xp, node[1])
        return function(*operands)
    if how == "where":
        return xp.where(*(evaluate(n, arguments) for n in node[1:]))
    if how == "astype":
        return xp.astype(evaluate(node[2], arguments), DTYPES[node[1]])
    x, low, high = (None if n is None else evaluate(n, arguments) for n in node[1:])
    return xp.clip(x, min=low, max=high)


SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
           "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "neg": "-",
           "pos": "+", "invert": "~"}


def describe(node, names):
    """The tree ``node`` as Python source, its arguments called ``names``."""
    how = node[0]
    if how == "arg":
        return names[node[1]]
    if how == "call":
        operands = [describe(n, names) for n in node[3:]]
        dunder = FUNCTIONS[node[1]].operator
        if node[2] == "call" or dunder == "abs":
            function = "abs" if node[2] == "op" else f"xp.{node[1]}"
            return f"{function}({', '.join(operands)})"
        if len(operands) == 1:
            return f"({SYMBOLS[dunder]}{operands[0]})"
        return f"({operands[0]} {SYMBOLS[dunder]} {operands[1]})"
    if how == "where":
        return f"xp.where({', '.join(describe(n, names) for n in node[1:])})"
    if how == "astype":
        return f"xp.astype({describe(node[2], names)}, xp.{node[1]})"
    bounds = [describe(n, names) if n is not None else "None" for n in node[2:]]
    return f"xp.clip({describe(node[1], names)}, min={bounds[0]}, max={bounds[1]})"


def functions_for(kind, arity):
    """The elementwise functions of ``arity`` operands whose category holds ``kind``."""
    return sorted(name for name, row in FUNCTIONS.items()
                  if row.arity == arity and kind in CATEGORIES[row.category])


def result_kind(name, kind):
    rule = FUNCTIONS[name].result
    if rule == "bool":
        return "bool"
    return "real floating" if rule == "real" and kind == "complex floating" else kind


class Template(NamedTuple):
    """One expression of the pool: its dtype family (of the first array argument), number of
    array arguments, the Python types of its scalar arguments, tree, result kind and text."""

    family: str
    inputs: int
    scalars: tuple
    tree: tuple
    kind: str
    text: str

    def function(self, *arguments):
        return evaluate(self.tree, arguments)


class _Builder:
    """Grows one random tree (:func:`make_template`)."""

    def __init__(self, rng, family, inputs):
        self.rng, self.family, self.inputs, self.scalars = rng, family, inputs, []
        self.unused = set(range(inputs))  # not used yet: taken first by leaf

    def scalar(self, kind):
        """A new scalar argument of a Python type that goes with arrays of ``kind``."""
        choices = {"bool": [bool], "signed integer": [int], "unsigned integer": [int],
                   "real floating": [float, float, int],
                   "complex floating": [complex, complex, float]}[kind]
        self.scalars.append(self.rng.choice(choices))
        return ("arg", self.inputs + len(self.scalars) - 1)

    def leaf(self):
        """An array argument, one not used yet where there is one."""
        k = self.rng.choice(sorted(self.unused) or range(self.inputs))
        self.unused.discard(k)
        return ("arg", k), self.family

    def grow(self, depth):
        """A tree of ``depth`` calls, and the kind of its value."""
        if depth == 0:
            return self.leaf()
        rng = self.rng
        x, kind = self.grow(depth - 1)
        choice = rng.random()
        if choice < 0.1:
            return self.where(x, kind)
        if choice < 0.17:
            target = rng.choice([d for d in ALL if kind != "complex floating" or
                                 d in COMPLEX or rng.random() < 0.1])
            return ("astype", target, x), kind_of(target)
        if choice < 0.24 and kind in ("signed integer", "unsigned integer", "real floating"):
            low, high = (self.scalar(kind) if rng.random() < 0.7 else None for _ in range(2))
            return ("clip", x, low, high), kind
        if choice < 0.55:
            name = rng.choice(functions_for(kind, 1))
            form = "op" if FUNCTIONS[name].operator and rng.random() < 0.5 else "call"
            return ("call", name, form, x), result_kind(name, kind)
        name = rng.choice(functions_for(kind, 2))
        form = "op" if FUNCTIONS[name].operator and rng.random() < 0.5 else "call"
        other = None
        for _ in range(3):
            if rng.random() < 0.4:
                break
            candidate, other_kind = self.grow(rng.randrange(depth))
            if other_kind == kind:
                other = candidate
                break
        if other is None:
            other = self.scalar(kind)
        operands = (x, other) if rng.random() < 0.7 else (other, x)
        return ("call", name, form, *operands), result_kind(name, kind)

    def where(self, x, kind):
        rng = self.rng
        if kind == "bool" or rng.random() < 0.05:  # a non-bool condition: strict mode refuses
            condition = x
        elif kind == "complex floating":
            condition = ("call", rng.choice(["isnan", "isfinite"]), "call", x)
        else:
            name = rng.choice(["greater", "less", "greater_equal", "not_equal"])
            condition = ("call", name, rng.choice(["op", "call"]), x, self.scalar(kind))
        if kind == self.family and rng.random() < 0.5:
            other = self.leaf()[0]
        else:
            other = self.scalar(kind)
        chosen = (x, other) if rng.random() < 0.5 else (other, x)
        return ("where", condition, *chosen), kind


def make_template(seed, family, depth, inputs):
    """The first tree of ``depth`` calls that uses each of its ``inputs`` array arguments,
    grown by the generator seeded ``seed`` (an unused one has its own test:
    :func:`test_an_unused_array_argument`)."""
    rng = random.Random(seed)
    while True:
        builder = _Builder(rng, family, inputs)
        tree, kind = builder.grow(depth)
        used = sorted(arguments_in(tree))
        if used[:inputs] == list(range(inputs)):
            break
    # the scalar arguments the tree uses (a subtree it dropped made others), numbered anew
    renumbered = {k: position for position, k in enumerate(used)}
    tree = renumber(tree, renumbered)
    scalars = tuple(builder.scalars[k - inputs] for k in used[inputs:])
    names = [f"x{k}" for k in range(inputs)] + [f"s{j}" for j in range(len(scalars))]
    text = f"lambda {', '.join(names)}: {describe(tree, names)}"
    return Template(family, inputs, scalars, tree, kind, text)


def calls_in(node):
    """The ``(how, name, form)`` of each call in the tree ``node``: ``("call", name, form)``
    for an elementwise function, ``(how, "", "")`` for where, astype and clip."""
    if node is None or node[0] == "arg":
        return set()
    call = (node[0], node[1], node[2]) if node[0] == "call" else (node[0], "", "")
    return {call}.union(*(calls_in(n) for n in node[1:] if isinstance(n, tuple)))


def arguments_in(node):
    """The positions of the arguments the tree ``node`` uses."""
    if node is None:
        return set()
    if node[0] == "arg":
        return {node[1]}
    return set().union(*(arguments_in(n) for n in node[1:] if n is None or
                         isinstance(n, tuple)))


def renumber(node, positions):
    """The tree ``node`` with its argument ``k`` replaced by argument ``positions[k]``."""
    if node is None or node[0] == "arg":
        return node and ("arg", positions[node[1]])
    return tuple(renumber(n, positions) if n is None or isinstance(n, tuple) else n
                 for n in node)


def make_pool(per_family=8):
    """``per_family`` trees for each dtype family, of depths 1 to 4 and 1 to 3 arrays."""
    pool = [make_template(1000 * f + k, family, 1 + k % 4, 1 + k % 3)
            for f, family in enumerate(FAMILIES) for k in range(per_family)]
    called = {name for t in pool for _, name, _ in calls_in(t.tree)}
    for k, name in enumerate(sorted(set(FUNCTIONS) - called)):  # one call of each of the others
        row = FUNCTIONS[name]
        families = [f for f in FAMILIES if f in CATEGORIES[row.category]]
        family = families[-1 - k % len(families)]  # complex and real floats first
        operands = [("arg", 0)] if row.arity == 1 else [("arg", 0), ("arg", 1)]
        inputs, scalars = ((1, (SCALAR_TYPES[family],)) if row.arity == 2 and k % 2
                           else (row.arity, ()))
        names = [f"x{j}" for j in range(inputs)] + [f"s{j}" for j in range(len(scalars))]
        tree = ("call", name, "call", *operands)
        pool.append(Template(family, inputs, scalars, tree, result_kind(name, family),
                             f"lambda {', '.join(names)}: {describe(tree, names)}"))
    return pool


TEMPLATES = make_pool()
_FUSED = {}


def fused_of(function, *key):
    """The fused function of ``function``, made once per ``key``: its traces and kernels are
    reused by the examples that share it."""
    fused = _FUSED.get(key)
    if fused is None:
        fused = _FUSED[key] = xp.fuse(function)
    return fused


def test_the_pool_covers_every_function_and_form():
    """The trees call every elementwise function, in both forms, and where, astype and
    clip."""
    calls = set().union(*(calls_in(template.tree) for template in TEMPLATES))
    assert {how for how, _, _ in calls} == {"call", "where", "astype", "clip"}
    assert {form for how, _, form in calls if how == "call"} == {"call", "op"}
    assert {name for _, name, _ in calls} - {""} == set(FUNCTIONS)


# ---------------------------------------------------------------- arrays and scalars

def elements(dtype):
    """Values of ``dtype`` (as its NumPy storage dtype holds them): small ones, the whole range
    and the special values."""
    if dtype == "bool":
        return st.booleans()
    if dtype in SIGNED_INTS + UNSIGNED_INTS:
        info = np.iinfo(dtype)
        return st.integers(max(info.min, -4), 8) | st.integers(info.min, info.max)
    width = {"float16": 16, "bfloat16": 32, "float32": 32, "complex64": 32}.get(dtype, 64)
    real = st.floats(-10, 10, width=width) | st.floats(width=width)
    if dtype in COMPLEX:
        return st.builds(complex, real, real)
    return real


def storage_dtype(dtype):
    return np.dtype("float32" if dtype == "bfloat16" else dtype)


def random_values(rng, dtype, shape):
    """Values of ``dtype`` for a large array, from the NumPy generator ``rng``: mostly ordinary
    numbers, a few special ones."""
    n = math.prod(shape)
    if dtype == "bool":
        return rng.random(n).reshape(shape) < 0.5
    if dtype in SIGNED_INTS + UNSIGNED_INTS:
        info = np.iinfo(dtype)
        small = rng.integers(max(info.min, -4), 9, n)
        wide = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        return np.where(rng.random(n) < 0.8, small, wide).astype(dtype).reshape(shape)

    def real():
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, n)
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 70000.0])
        return np.where(rng.random(n) < 0.02, rng.choice(special, n), values)
    values = real()
    if dtype in COMPLEX:
        values = values.astype(np.complex128)
        values.imag = real()
    with np.errstate(over="ignore"):
        return values.astype(storage_dtype(dtype)).reshape(shape)


def as_dlnumba(values, dtype):
    """A new dlnumba array of ``values`` in ``dtype`` (bfloat16 rounded from float32)."""
    x = xp.asarray(np.ascontiguousarray(values))
    return xp.astype(x, xp.bfloat16) if dtype == "bfloat16" else x


@st.composite
def arrays_of(draw, dtype, shape, large=False):
    """A dlnumba array of ``dtype`` and ``shape`` in a drawn layout: C-contiguous, every axis
    stepped by 2 or reversed, transposed in memory, or broadcast (zero strides) from size 1."""
    layout = draw(st.sampled_from(["contiguous", "stepped", "transposed", "broadcast"]))
    ndim = len(shape)
    if ndim == 0:
        layout = "contiguous"
    if layout == "broadcast":
        axis = draw(st.integers(0, ndim - 1))
        source = tuple(1 if d == axis else n for d, n in enumerate(shape))
        return xp.broadcast_to(draw(arrays_of(dtype, source, large)), shape)
    steps = [1] * ndim
    order = list(range(ndim))
    if layout != "contiguous":
        steps = [draw(st.sampled_from([-1, 2, -2] if not large else [-1, 1])) for _ in shape]
    if layout == "transposed":
        order = draw(st.permutations(range(ndim)))
    # The base holds axis order[j] of the view as its axis j, |step| times as long.
    base_shape = tuple(shape[d] * abs(steps[d]) for d in order)
    if large:
        values = random_values(np.random.default_rng(draw(st.integers(0, 2**32 - 1))), dtype,
                               base_shape)
    else:
        values = draw(hnp.arrays(storage_dtype(dtype), base_shape, elements=elements(dtype)))
    base = as_dlnumba(values, dtype)
    view = base[tuple(slice(None, None, steps[d]) for d in order)]
    return xp.permute_dims(view, tuple(np.argsort(order))) if ndim else view


@st.composite
def argument_arrays(draw, template, dtypes):
    """The template's array arguments: broadcastable shapes (0-d and size 0 among them), now
    and then large (at least 2**14 elements)."""
    if draw(st.integers(0, 7)) == 0:
        full = draw(st.sampled_from([(2**14 + 27,), (129, 131), (9, 3001)]))
        variants = [full, full[1:], (), full[:-1] + (1,)]
        shapes = [full] + [draw(st.sampled_from(variants)) for _ in dtypes[1:]]
        shapes = draw(st.permutations(shapes))
        return [draw(arrays_of(d, s, large=True)) for d, s in zip(dtypes, shapes)]
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=len(dtypes), min_dims=0, max_dims=3,
        min_side=draw(st.sampled_from([1, 1, 1, 0])), max_side=4)).input_shapes
    return [draw(arrays_of(d, s)) for d, s in zip(dtypes, shapes)]


def scalars_of(kind):
    """Python scalars of type ``kind``: small ones mostly, now and then beyond every dtype."""
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(-3, 9) | st.sampled_from([0, 1, 2, 127, 255, -129, 2**63])
    if kind is float:
        return st.floats(-4, 4, width=32) | st.sampled_from([0.5, -0.0, math.inf, math.nan,
                                                             1e300])
    return st.builds(complex, scalars_of(float), scalars_of(float))


@st.composite
def arguments_of(draw, template):
    """The arguments of a template's function: arrays (the first of the template's family,
    the others of its dtype mostly, else another of its family or any dtype), then scalars."""
    first = draw(st.sampled_from(FAMILIES[template.family]))
    dtypes = [first]
    for _ in range(template.inputs - 1):
        which = draw(st.sampled_from(["same"] * 6 + ["family", "any"]))
        dtypes.append(first if which == "same" else
                      draw(st.sampled_from(FAMILIES[template.family] if which == "family"
                                           else ALL)))
    arrays = draw(argument_arrays(template, dtypes))
    scalars = [draw(scalars_of(kind)) for kind in template.scalars]
    return [*arrays, *scalars]


def describe_arguments(arguments):
    """The arrays' dtypes and shapes, the scalars' values."""
    return ", ".join(f"{a.dtype} {a.shape}" if isinstance(a, xp.ndarray) else repr(a)
                     for a in arguments)


# ---------------------------------------------------------------- differential tests

# Half the profile's examples (ci: 30, thorough: 150): an example with a new expression or new
# dtypes compiles its kernels.
COMPILING = settings(deadline=None, max_examples=max(20, settings().max_examples // 2))


@COMPILING
@given(template=st.sampled_from(TEMPLATES), data=st.data(), strict=st.booleans())
def test_fused_chains_give_the_unfused_bits(template, data, strict):
    """A fused tree of elementwise calls gives the bits of its calls made one by one; where two
    NaNs meet in one operation, a NaN (README)."""
    arguments = data.draw(arguments_of(template))
    note(f"{template.text}\narguments: {describe_arguments(arguments)}\nstrict: {strict}")
    fused = fused_of(template.function, template.text, strict)
    with xp.strict() if strict else contextlib.nullcontext():
        assert_fused_matches(fused, template.function, *arguments, err_msg=template.text,
                             nans_meet=True)


def valid_reductions(kind):
    """The reductions that take a value of ``kind`` (outside strict mode)."""
    if kind == "complex floating":
        return ["sum", "prod", "mean", "any", "all"]
    return list(REDUCTIONS)


@st.composite
def reduction_keywords(draw, name, ndim):
    keywords = {"axis": draw(axes(ndim)), "keepdims": draw(st.booleans())}
    if name in ("sum", "prod") and draw(st.integers(0, 3)) == 0:
        keywords["dtype"] = DTYPES[draw(st.sampled_from(["int64", "uint64", "float64",
                                                         "float32", "complex128", "int8"]))]
    if name == "mean" and draw(st.integers(0, 3)) == 0:
        keywords["dtype"] = DTYPES[draw(st.sampled_from(["float32", "float64", "complex128"]))]
    return keywords


class Reduced(NamedTuple):
    """A template's tree, reduced."""

    template: Template
    name: str
    keywords: tuple

    def function(self, *arguments):
        return getattr(xp, self.name)(self.template.function(*arguments),
                                      **dict(self.keywords))


@COMPILING
@given(template=st.sampled_from(TEMPLATES), data=st.data(), strict=st.booleans())
def test_fused_reductions_give_the_unfused_bits(template, data, strict):
    """A fused tree ending in a reduction (axis, keepdims, dtype) gives the bits of the unfused
    calls: the same pairwise sums and the empty axes' errors. Where two NaNs meet in one
    operation, a NaN (README).
    """
    arguments = data.draw(arguments_of(template))
    names = valid_reductions(template.kind)
    name = data.draw(st.sampled_from(names if data.draw(st.integers(0, 9)) else REDUCTIONS))
    ndim = max(a.ndim for a in arguments if isinstance(a, xp.ndarray))
    keywords = data.draw(reduction_keywords(name, ndim))
    reduced = Reduced(template, name, tuple(keywords.items()))
    text = f"xp.{name}({template.text.split(': ', 1)[1]}, **{keywords})"
    note(f"{text}\narguments: {describe_arguments(arguments)}\nstrict: {strict}")
    fused = fused_of(reduced.function, text, strict)
    with xp.strict() if strict else contextlib.nullcontext():
        assert_fused_matches(fused, reduced.function, *arguments, err_msg=text,
                             nans_meet=True)


# ---------------------------------------------------------------- large and deterministic

def normal(shape, dtype, seed=0):
    """A new array of standard normal values of ``dtype`` (a NumPy dtype name)."""
    return xp.asarray(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


ISSUE = {
    "a * b + c": lambda a, b, c: a * b + c,
    "xp.exp(-a * a / 2) * b + 0.5": lambda a, b, c: xp.exp(-a * a / 2) * b + 0.5,
    "xp.sum((a - b) ** 2)": lambda a, b, c: xp.sum((a - b) ** 2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", ISSUE)
def test_the_issue_expressions_on_4m_elements(text, dtype):
    """2**22 elements: the vectorized loops, on threads and in pieces."""
    a, b, c = (normal(2**22, dtype, seed) for seed in range(3))
    function = ISSUE[text]
    fused = xp.fuse(function)
    assert_fused_matches(fused, function, a, b, c, err_msg=text)
    # reversed and stepped views: the gathered loops
    assert_fused_matches(fused, function, a[::-2], b[::2], c[1::2], err_msg=text)


LARGE_2D = {
    "sum": lambda a, b, axis: xp.sum(a * b - 0.5, axis=axis),
    "sum keepdims": lambda a, b, axis: xp.sum(a * a, axis=axis, keepdims=True),
    "mean": lambda a, b, axis: xp.mean(xp.abs(a - b), axis=axis),
    "prod": lambda a, b, axis: xp.prod(1 + a * 1e-3, axis=axis),
    "max": lambda a, b, axis: xp.max(a * b, axis=axis),
    "min": lambda a, b, axis: xp.min(a - b, axis=axis),
    "any": lambda a, b, axis: xp.any(a > 3.5, axis=axis),
    "all": lambda a, b, axis: xp.all(a < 4.5, axis=axis),
}


@pytest.mark.parametrize("name", LARGE_2D)
def test_large_reductions_along_each_axis(name):
    """A (1024, 4096) float32 chain reduced along each axis, both, and (transposed) none."""
    a, b = normal((1024, 4096), "float32", 1), normal((1024, 4096), "float32", 2)
    for axis in (0, 1, -1, None, (0, 1), (1, 0), ()):
        function = lambda a, b, axis=axis: LARGE_2D[name](a, b, axis)
        fused = xp.fuse(function)
        assert_fused_matches(fused, function, a, b, err_msg=f"{name} axis={axis}")
        if axis == 0:
            assert_fused_matches(fused, function, a.mT, b[:, ::-1].mT, err_msg=f"{name} .mT")


@pytest.mark.parametrize("name, dtype", [
    *((name, dtype) for name in ("max", "min") for dtype in REAL_FLOATS),
    ("sum", "float32"), ("mean", "float16"), ("prod", "float64")])
def test_nan_in_reductions(name, dtype):
    """A NaN in the chain's values wins the reduction, as in the unfused call, in short and
    vectorized runs alike."""
    for n in (7, 2**15 + 3):
        values = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
        values[1, n // 2] = np.nan
        values[2, -1] = np.nan
        x = as_dlnumba(values, dtype)
        for axis in (None, 0, 1):
            function = lambda a, axis=axis: getattr(xp, name)(a * 2 - 1, axis=axis)
            assert_fused_matches(xp.fuse(function), function, x, err_msg=f"{n} axis={axis}")


def nan_lines(zero_for_inf=False):
    """(64, 3001) float32 values with a few NaN, infinities and zeros; in each of the first 8
    lines one NaN, then inf and -inf (``zero_for_inf``: 0 and inf), which make another NaN."""
    rng = np.random.default_rng(7)
    values = rng.standard_normal((64, 3001)).astype(np.float32)
    special = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0], np.float32), values.shape)
    values = np.where(rng.random(values.shape) < 0.003, special, values)
    values[:8] = 1.0
    values[:8, 2492], values[:8, 2955], values[:8, 2968] = (
        np.nan, 0.0 if zero_for_inf else np.inf, np.inf if zero_for_inf else -np.inf)
    return values


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_nans_meeting_in_large_sums(name):
    """Lines that hold a NaN of the input and make another (inf - inf), on the vectorized
    path: a NaN where the unfused sum has one, and the same bits elsewhere. Which NaN's sign
    and payload a sum keeps where two meet is the compiled kernel's (README, xp.fuse)."""
    x = xp.asarray(nan_lines())
    for axis in (1, None, 0):
        function = lambda a, axis=axis: getattr(xp, name)(a * 2, axis=axis)
        for view in (x, x[:8], x[::-1, ::-1]):
            assert_fused_matches(xp.fuse(function), function, view, nans_meet=True,
                                 err_msg=f"{view.shape} axis={axis}")


def test_nans_meeting_in_large_products():
    """The same for products (the input's NaN and the one 0 * inf makes): NaN where the
    unfused product is NaN (which NaN is kept is the README's exception), its bits elsewhere."""
    x = xp.asarray(nan_lines(zero_for_inf=True))
    for axis in (1, None, 0):
        function = lambda a, axis=axis: xp.prod(a * 2, axis=axis)
        for view in (x, x[:8], x[::-1, ::-1]):
            assert_fused_matches(xp.fuse(function), function, view, nans_meet=True,
                                 err_msg=f"{view.shape} axis={axis}")


NANS_MEETING_IN_A_NEW_PROCESS = """
import numpy as np
import dlnumba as xp

v = np.ones((8, 3001), np.float32)
v[:, 2492], v[:, 2955], v[:, 2968] = np.nan, np.inf, -np.inf
a = xp.asarray(v)
for function in (lambda a: xp.sum(a * 2, axis=1), lambda a: xp.sum(a, axis=1),
                 lambda a: xp.prod(a * 0, axis=1)):  # 0 * inf: another NaN
    fused, unfused = np.asarray(xp.fuse(function)(a)), np.asarray(function(a))
    print(bool(np.all(np.isnan(fused) == np.isnan(unfused))), fused.tobytes() == unfused.tobytes())
"""


def test_nans_meeting_when_the_fused_kernel_compiles_first(tmp_path):
    """In a new process with an empty kernel cache, the fused reduction compiled before the
    unfused one (as where the unfused kernels are shipped, and only the fused one compiles):
    NaN where the unfused sums and products have NaN (which NaN is kept where two meet is
    the README's exception)."""
    output = run_python(NANS_MEETING_IN_A_NEW_PROCESS, NUMBA_CACHE_DIR=str(tmp_path))
    lines = [line.split() for line in output.splitlines()]
    assert [nan for nan, _ in lines] == ["True"] * 3, output


WHERE_ASTYPE_CLIP = {
    "clip by arrays": lambda a, b: xp.clip(a * 2, b, b + 1),
    "clip by a wider array": lambda a, b: xp.clip(a, xp.astype(b, xp.float64)),
    "clip, min above max": lambda a, b: xp.clip(a, 1.0, -1.0) + b,
    "clip by NaN": lambda a, b: xp.clip(a - b, math.nan),
    "clip of ints beyond their range": lambda a, b: xp.clip(xp.astype(a * 50, xp.int8),
                                                            -1000, 1000),
    "clip of ints by a float": lambda a, b: xp.clip(xp.astype(a, xp.int16), 0.5, 2),
    "astype, copy=False": lambda a, b: xp.astype(a * 2, xp.float32, copy=False) + b,
    "astype by name": lambda a, b: xp.astype(a - b, "float16"),
    "astype to its device": lambda a, b: xp.astype(a, xp.float64, device=a.device),
    "astype to uint8": lambda a, b: xp.astype(a * 100, xp.uint8) + xp.astype(b, xp.uint8),
    "astype of complex to real": lambda a, b: xp.astype(xp.astype(a, xp.complex64), b.dtype),
    "where by a float condition": lambda a, b: xp.where(a, a, b),
    "where with a scalar": lambda a, b: xp.where(a > b, 2.5, a),
    "where of mixed dtypes": lambda a, b: xp.where(a > 0, xp.astype(a, xp.float16), b),
    "where of bool and int": lambda a, b: xp.where(a > 0, a > b, xp.astype(b, xp.uint8)),
    "NumPy scalars on the right": lambda a, b: a * np.float32(2) + b / np.float64(3),
    "NumPy scalars on the left": lambda a, b: np.float32(2) * a + np.float64(0.5) - b,
}


@pytest.mark.parametrize("name", WHERE_ASTYPE_CLIP)
def test_where_astype_and_clip(name):
    """Their promotions, bounds, copies and errors, as the unfused calls have them."""
    a = xp.asarray(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    b = xp.asarray(np.float32([-1, 0, 0.5, 1]))
    function = WHERE_ASTYPE_CLIP[name]
    fused = xp.fuse(function)
    assert_fused_matches(fused, function, a, b, err_msg=name)
    assert_fused_matches(fused, function, a.mT[::-1], b[:3], err_msg=name)
    with xp.strict():
        assert_fused_matches(xp.fuse(function), function, a, b, err_msg=name)


def test_broadcasting_a_column_against_a_row():
    """An (n, 1) array against a (1, m) one, either way round, reversed, and of size 0."""
    a = normal((300, 1), "float32", 3)
    b = normal((1, 200), "float32", 4)
    for function in (lambda a, b: a * b + a, lambda a, b: xp.sum(a - b, axis=0),
                     lambda a, b: xp.where(a > b, a, b), lambda a, b: xp.max(b * a)):
        fused = xp.fuse(function)
        assert_fused_matches(fused, function, a, b)
        assert_fused_matches(fused, function, b, a)
        assert_fused_matches(fused, function, a[::-1], b[:, ::-1])
        assert_fused_matches(fused, function, a[:, :0], b)  # size 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_python_scalar_arguments(dtype):
    """A scalar argument is traced by its value's bits: each call gives the unfused bits."""
    x = as_dlnumba(np.linspace(-3, 3, 41).astype(np.float32), dtype)
    if dtype == "complex64":
        x = xp.astype(x, xp.complex64)
    function = lambda a, s: a * s + s
    fused = xp.fuse(function)
    for s in (2.5, -0.0, 0.0, math.nan, -math.inf, 3, True, 1e300):
        assert_fused_matches(fused, function, x, s, err_msg=repr(s))
    assert_fused_matches(fused, function, x, 2.5)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_int_scalars_out_of_range_raise_as_unfused(dtype):
    """A Python int the array's dtype cannot hold: OverflowError, as an argument of the fused
    function and as a constant in it."""
    x = xp.asarray(np.arange(5, dtype=dtype))
    as_argument = lambda a, s: a + s
    for s in (300, -129, -1, 2**63, 2**64):
        assert_fused_matches(xp.fuse(as_argument), as_argument, x, s, err_msg=repr(s))
    for s in (300, -129, -1):
        constant = lambda a, s=s: a * 2 + s
        assert_fused_matches(xp.fuse(constant), constant, x, err_msg=repr(s))
    with pytest.raises(OverflowError):
        xp.fuse(as_argument)(x, 300)


def test_decorator_forms():
    """``@xp.fuse`` and ``@xp.fuse()``, which keep the function's name."""
    x = xp.asarray([1.0, -2.0, 3.0])

    @xp.fuse
    def plain(a):
        return a * a + 1

    @xp.fuse()
    def called(a):
        return a * a + 1

    assert plain.__name__ == "plain" and called.__name__ == "called"
    assert host(plain(x)).tolist() == host(called(x)).tolist() == [2.0, 5.0, 10.0]


@pytest.mark.parametrize("function", [lambda a: a, lambda a: +a, lambda a: xp.real(a),
                                      lambda a: xp.astype(a, a.dtype, copy=False),
                                      lambda a: xp.astype(a, a.dtype)])
def test_the_result_is_a_new_array(function):
    """Even where the unfused call returns its input, the fused call writes a new array."""
    x = xp.asarray(np.arange(6.0).reshape(2, 3))[:, ::-1]
    result = xp.fuse(function)(x)
    assert result is not x and data_address(result) != data_address(x)
    assert_same_bits(result, x[...] if function(x) is x else function(x))
    before = host(result).copy()
    x[...] = 0
    assert host(result).tolist() == before.tolist()


def test_the_function_is_traced_once_per_kind_of_arguments():
    """The function runs once per kind of arguments (dtype, number of dimensions, device;
    a scalar's type and value); other shapes and layouts reuse the trace."""
    calls = []

    def function(a, b):
        calls.append(1)
        return xp.exp(-a * a / 2) * b + 0.5
    fused = xp.fuse(function)
    a, b = normal((4, 5), "float32", 5), normal((4, 5), "float32", 6)
    first = host(fused(a, b)).tobytes()
    assert host(fused(a, b)).tobytes() == first
    fused(a[::-1], b.mT.mT)
    fused(normal((7, 1), "float32"), b[:1])
    assert len(calls) == 1
    fused(normal(3, "float32"), b[0, :3])  # another number of dimensions
    fused(a, 2.0)
    fused(a, 2.0)
    assert len(calls) == 3
    assert_fused_matches(fused, function, a, b)


@pytest.mark.parametrize("shapes", [[(2, 3), (3,)], [(4,), (3,)], [(5,), ()], [(0,), (2,)]])
def test_an_unused_array_argument(shapes):
    """An array argument the function ignores takes no part in the result's shape."""
    function = lambda a, b: xp.exp(b) * 2
    a, b = (xp.ones(shape) for shape in shapes)
    assert_fused_matches(xp.fuse(function), function, a, b)


def test_strict_mode_is_part_of_the_trace():
    """A function traced outside strict mode, then called in it (and the other way round),
    raises where the unfused calls raise and computes where they compute."""
    x = xp.asarray(np.arange(1, 4, dtype=np.int8))
    functions = [lambda a: xp.exp(a), lambda a: xp.where(a, a, 0), lambda a: xp.mean(a * 2)]
    for function in functions:
        fused = xp.fuse(function)
        assert_fused_matches(fused, function, x)
        with xp.strict():
            assert_fused_matches(fused, function, x)
        other = xp.fuse(function)
        with xp.strict():
            assert_fused_matches(other, function, x)
        assert_fused_matches(other, function, x)


def test_shape_and_ndim_in_a_fused_function():
    """A fused function sees its arrays' ndim, and ``None`` for each length."""
    x = normal((3, 4), "float64")
    function = lambda a: xp.sum(a * (a.ndim + 1), axis=a.ndim - 1)
    assert_fused_matches(xp.fuse(function), function, x)
    seen = []
    xp.fuse(lambda a: seen.append(a.shape) or a)(x)
    assert seen == [(None, None)]
    with pytest.raises(TypeError):
        xp.fuse(lambda a: a * a.shape[0])(x)


def dead_cast_after(a):
    y = a * 3
    xp.astype(a, xp.int8)
    return y


def dead_reduction(a):
    xp.sum(a)
    return a + 1


def dead_step_after_the_reduction(a):
    s = xp.sum(a * 2)
    a * 3
    return s


def another_reduction_after(a):
    s = xp.sum(a, axis=0)
    xp.max(a * 2)
    return s


@pytest.mark.parametrize("function", [dead_cast_after, dead_reduction,
                                      dead_step_after_the_reduction, another_reduction_after])
def test_values_computed_but_not_returned_leave_the_result_alone(function):
    """Calls whose values the function drops (a call after the one it returns, a reduction of
    another value) do not change the result: the fused call gives the unfused one, or refuses
    with TypeError."""
    x = xp.asarray([1.0, 2.0, 3.0])
    expected = function(x)
    try:
        result = xp.fuse(function)(x)
    except TypeError:
        return
    assert_same_bits(result, expected, function.__name__)


@pytest.mark.parametrize("function", [
    lambda a: a & 1.5, lambda a: xp.bitwise_and(a, a), lambda a: xp.sum(a, axis=2),
    lambda a: xp.max(a * 0, axis=(0, 0)), lambda a: xp.atan2(a, 1j),
    lambda a: xp.max(xp.abs(a), axis=1), lambda a: xp.min(a + 1),
])
def test_errors_of_the_unfused_calls(function):
    """Calls the unfused function rejects raise the same exception type fused, including
    the reduction of an empty axis by max and min (ValueError)."""
    for x in (xp.ones((3, 0)), xp.ones((2, 3))):
        assert_fused_matches(xp.fuse(function), function, x)


def test_max_and_min_of_an_empty_axis_raise_value_error():
    """Over an axis of length 0: ValueError; over the others of a size-0 array: empty."""
    for name in ("max", "min"):
        function = lambda a, name=name: getattr(xp, name)(a * 2, axis=1)
        with pytest.raises(ValueError):
            xp.fuse(function)(xp.ones((3, 0)))
        assert host(xp.fuse(function)(xp.ones((0, 3)))).shape == (0,)


# ---------------------------------------------------------------- what a fused function refuses

UNSUPPORTED_CALLS = {
    "sort": lambda a: xp.sort(a) * 2,
    "reshape": lambda a: xp.reshape(a * 2, (-1,)),
    "matmul": lambda a: xp.matmul(a, a),
    "cumulative_sum": lambda a: xp.cumulative_sum(a * 2, axis=0),
    "argmax": lambda a: xp.argmax(a * 2),
    "std": lambda a: xp.std(a * 2),
}


@pytest.mark.parametrize("name", UNSUPPORTED_CALLS)
def test_a_call_a_fused_function_cannot_make_is_named(name):
    """TypeError at the first call, naming the function."""
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        xp.fuse(UNSUPPORTED_CALLS[name])(xp.ones((2, 3)))


def test_a_call_a_fused_function_cannot_make_says_so():
    """The message says that the call cannot be fused, and what can (``FusedCallError``),
    rather than the function's own complaint about a traced argument."""
    for name, function in UNSUPPORTED_CALLS.items():
        with pytest.raises(TypeError, match=rf"{name}\(\) cannot be fused") as raised:
            xp.fuse(function)(xp.ones((2, 3)))
        assert "where, astype and clip" in str(raised.value)


@pytest.mark.parametrize("function, match", [
    (lambda a: a[0] * 2, "cannot index"),
    (lambda a: a * 2 if a > 0 else a, "cannot branch"),
    (lambda a: a * 2 if bool(xp.all(a > 0)) else a, "cannot branch"),
    (lambda a: a.mT * 2, "'mT'"),
    (lambda a: xp.sum(a) + 1, "add after the reduction"),
    (lambda a: xp.exp(xp.max(a, axis=0)), "exp after the reduction"),
    (lambda a: xp.sum(xp.max(a, axis=0)), "sum after the reduction"),
    (lambda a: xp.astype(xp.sum(a), xp.float32), "astype after the reduction"),
    (lambda a: (a * 2, a + 1), "return one array.*not tuple"),
    (lambda a: 2.5, "return one array.*not float"),
    (lambda a: xp.zeros(3), "return one array.*not ndarray"),
    (lambda a: a * np.ones(3), "multiply of an array and ndarray"),
    (lambda a: a + xp.ones(3), "add of an array and ndarray"),
    (lambda a: xp.ones(3) + a, "add of an array and ndarray"),
    (lambda a: xp.where(a > 0, xp.ones(3), a), "where takes arrays and Python scalars"),
])
def test_what_a_fused_function_cannot_do(function, match):
    """Indexing, branching on values, attributes beyond dtype/device/ndim/shape, anything after
    the reduction (a second reduction too), results other than one array computed from the
    arguments, arrays that are not arguments (NumPy's or dlnumba's) as operands: TypeError
    at the first call."""
    x = xp.ones((2, 3))
    with pytest.raises(TypeError, match=match):
        xp.fuse(function)(x)


@pytest.mark.parametrize("argument", [np.ones(3), [1.0, 2.0], (1.0,), None, "a"])
def test_arguments_must_be_arrays_or_python_scalars(argument):
    """A NumPy array, a list, a tuple, None or a string as an argument: TypeError."""
    fused = xp.fuse(lambda a, b: a + b)
    with pytest.raises(TypeError, match="takes dlnumba arrays and Python scalars"):
        fused(xp.ones(3), argument)


def test_fuse_takes_a_function():
    """``fuse`` of something that is not callable: TypeError."""
    with pytest.raises(TypeError, match="takes a function"):
        xp.fuse(3)


# ---------------------------------------------------------------- on each device

DEVICE_CASES = {
    "a * b + c": lambda a, b, c: a * b + c,
    "exp chain": lambda a, b, c: xp.exp(-a * a / 2) * b + 0.5,
    "where": lambda a, b, c: xp.where(a > b, a, 2.0) - c,
    "half casts": lambda a, b, c: xp.astype(xp.astype(a * b, xp.bfloat16) + 1, xp.float16),
    "clip": lambda a, b, c: xp.clip(a - b, min=-0.5, max=c),
    "sum": lambda a, b, c: xp.sum((a - b) ** 2, axis=1),
    "max keepdims": lambda a, b, c: xp.max(a * c, axis=0, keepdims=True),
}


@pytest.mark.parametrize("name", DEVICE_CASES)
def test_fused_calls_on_each_device(name, device):
    """On CUDA arrays (the simulator in CI) as on the CPU: the unfused calls' bits."""
    a, b, c = (normal((3, 5), "float32", seed).to_device(device) for seed in range(3))
    function = DEVICE_CASES[name]
    fused = xp.fuse(function)
    expected = assert_fused_matches(fused, function, a, b, c, err_msg=name)
    assert expected is not None and expected.device == device
    assert_fused_matches(fused, function, a[::-1], b[:, ::-1], c, err_msg=name)
    assert_fused_matches(fused, function, a, b[:1], c[:, :1], err_msg=name)
    assert_fused_matches(fused, function, a, b, 1.5, err_msg=name)


def test_arrays_on_two_devices_are_refused():
    """Arrays on the CPU and on CUDA in one call: ValueError, traced or not."""
    if "cuda" not in {d.type for d in xp.__array_namespace_info__().devices()}:
        pytest.skip("no CUDA device (or simulator) here")
    fused = xp.fuse(lambda a, b: a + b)
    a = xp.ones(3)
    with pytest.raises(ValueError, match="one device"):
        fused(a, a.to_device("cuda"))
    fused(a, a)
    with pytest.raises(ValueError):
        fused(a, a.to_device("cuda"))
    with pytest.raises(ValueError):
        fused(a.to_device("cuda"), a)
