"""Fused expressions: a chain of elementwise steps as one scalar function, for both backends.

An :class:`Expression` numbers its values: the input arrays' first, then its constants' (Python
scalars, stored in the dtype the unfused call gives them), then one per step. Each step is what
one call of the chain computes, with the call's own dtypes: ``apply`` converts its arguments
to the computation dtype, applies the scalar operation of :mod:`.scalar` and stores the result
in the result dtype, as the elementwise engine does; ``cast`` converts as ``astype`` does;
``where`` picks one of two values (already of its dtype) by a truth value. Every value is held
in its dtype's stored form, so each step sees the bits the unfused call would read from memory.

Kernels take an expression as a *tag* (:func:`expression_tag`): an empty array whose record
dtype's one field names the expression by a hash of its text, so that each expression is one
compiled, cached specialization. :func:`step_lines` writes its steps out as Python, for a
kernel's own loop (:mod:`..kernels.fused`) or a scalar function (:func:`scalar_function`).
"""

import hashlib
from typing import NamedTuple

import numpy as np
from .._numba import njit

from .conversions import convert, store
from .scalar import implementation
from .tags import TAGS, op_tag

_EXPRESSIONS = {}  # a tag's field name -> its Expression, for the compiler


class Step(NamedTuple):
    """One call of a chain: ``how`` (``apply``, ``cast`` or ``where``), the values it takes,
    and the dtype it computes in and the one it stores (both the target dtype for ``cast`` and
    ``where``). ``name`` and ``kind`` select an ``apply`` step's scalar operation."""

    how: str
    arguments: tuple
    compute_dtype: object
    dtype: object
    name: str = ""
    kind: str = ""


class Expression(NamedTuple):
    """The dtypes of the input arrays and of the constants, and the steps; the last step's
    value is the result."""

    inputs: tuple
    constants: tuple
    steps: tuple

    def dtypes(self):
        """The dtype of every value, in the expression's numbering."""
        return [*self.inputs, *self.constants, *(step.dtype for step in self.steps)]

    def text(self):
        """A description that differs for any two expressions that compute differently."""
        def names(dtypes):
            return ",".join(d.name for d in dtypes)
        steps = ";".join(f"{s.how}:{s.name}:{s.kind}:{','.join(map(str, s.arguments))}:"
                         f"{s.compute_dtype.name}:{s.dtype.name}" for s in self.steps)
        return f"{names(self.inputs)}|{names(self.constants)}|{steps}"


def expression_tag(expression):
    """The tag of ``expression`` (see the module's description), registered for compiling."""
    key = "fused:" + hashlib.sha256(expression.text().encode()).hexdigest()[:32]
    _EXPRESSIONS[key] = expression
    return np.empty(0, np.dtype([(key, np.uint8)]))


def expression_of_dtype(tag_dtype):
    """The expression a tag's dtype names."""
    return _EXPRESSIONS[next(iter(tag_dtype.fields))]


def expression_of(tag):
    """The expression a tag (its Numba type, at compile time) names."""
    return _EXPRESSIONS[next(iter(tag.dtype.fields))]


def scalar_function(tag):
    """The scalar function ``f(tag, values)`` of the expression the tag dtype ``tag`` names:
    its result's stored value from a tuple of the inputs' and constants' stored values, as an
    njit function (CUDA device code calls it)."""
    return njit(error_model="numpy")(_evaluator(expression_of_dtype(tag)))


def step_lines(expression, namespace, inline=False):
    """The lines of Python that compute ``expression``'s steps, each into ``v<k>`` (its value's
    number), from ``v0``, ``v1``, ... (the inputs' and constants' stored values), and the name
    of the result; what they call is put in ``namespace``. A conversion between equal dtypes is
    left out (every value is in its stored form). ``inline``: the scalar
    operations are written into the caller by Numba (:func:`.scalar.implementation`)."""
    dtypes = expression.dtypes()
    namespace.update(convert=convert, store=store)

    def tag(dtype):
        name = f"T_{dtype.name}"
        namespace[name] = TAGS[dtype].dtype
        return name

    def converted(value, source, target):
        return value if source is target else f"convert({value}, {tag(source)}, {tag(target)})"

    lines = []
    for k, step in enumerate(expression.steps, len(dtypes) - len(expression.steps)):
        arguments = [f"v{a}" for a in step.arguments]
        if step.how == "apply":
            namespace[f"F{k}"] = implementation(op_tag(step.name, step.kind), inline=inline)
            operands = ", ".join(converted(v, dtypes[a], step.compute_dtype)
                                 for v, a in zip(arguments, step.arguments))
            # stored always: an integer operation's Python result may be wider than its dtype
            lines.append(f"v{k} = store(F{k}({operands}), {tag(step.dtype)})")
        elif step.how == "cast":
            source = dtypes[step.arguments[0]]
            lines.append(f"v{k} = {converted(arguments[0], source, step.dtype)}")
        else:
            condition, chosen, other = arguments
            lines.append(f"v{k} = {chosen} if {condition} else {other}")
    return lines, f"v{len(dtypes) - 1}"


def _evaluator(expression):
    """The scalar function ``evaluate(tag, values)`` of ``expression``."""
    namespace = {}
    steps, result = step_lines(expression, namespace)
    count = len(expression.inputs) + len(expression.constants)
    lines = ["def evaluate(tag, values):", *(f"    v{k} = values[{k}]" for k in range(count)),
             *("    " + line for line in steps), f"    return {result}"]
    exec("\n".join(lines), namespace)
    return namespace["evaluate"]

