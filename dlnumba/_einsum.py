"""``einsum``: NumPy's Einstein summation, as dlnumba's views, sums and matrix products.

Repeated labels in one operand are a strided view of its diagonal; a label in one operand only
and not in the output is summed there; the operands are then contracted left to right, each
pair as one batched matrix product (the labels both share and still need, then each one's own,
then the labels summed), so a contraction is as fast as ``matmul``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._arguments import check_array
from ._data_type_functions import astype, result_type
from ._dtypes import bool as bool_, int64
from ._layout import size_of
from ._linear_algebra_functions import matmul
from ._manipulation_functions import broadcast_to, permute_dims, reshape
from ._statistical_functions import sum as sum_

if TYPE_CHECKING:
    from ._array_object import ndarray

__all__ = ["einsum"]

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ELLIPSIS_BASE = 0x100  # the labels of an ellipsis's dimensions: no letter takes them


def einsum(subscripts: str, /, *operands: ndarray) -> ndarray:
    """Einstein summation of ``operands`` as ``subscripts`` says, with NumPy's semantics.

    Parameters
    ----------
    subscripts : str
        Comma-separated labels (letters) per operand, optionally ``...`` for broadcast
        dimensions, and ``->`` with the output's labels; without ``->``, the output has the
        broadcast dimensions, then the labels that appear once, in alphabetical order.
    *operands : ndarray
        The arrays, one per group of labels.

    Returns
    -------
    ndarray
        The dtype NumPy's ``result_type`` gives (a bool result is whether any product is
        true). A relabelling or a diagonal without a sum is a view of the operand.

    Raises
    ------
    TypeError
        For an operand that is not a dlnumba array.
    ValueError
        For subscripts that do not fit the operands, or sizes of one label that differ and
        neither is 1.
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum takes its subscripts as a str first, not {subscripts!r}")
    for x in operands:
        check_array("einsum", x)
    inputs, output = _parse(subscripts, [x.ndim for x in operands])
    dtype = _numpy_result_type(operands)
    computed = int64.numpy if dtype == bool_.numpy else dtype
    sizes, terms = {}, []
    for x, labels in zip(operands, inputs):
        x, labels = _diagonal(x, labels)
        for label, n in zip(labels, x.shape):
            known = sizes.setdefault(label, n)
            if n != known and 1 not in (n, known):
                raise ValueError(f"einsum: operands could not be broadcast together: label "
                                 f"{_shown(label)} has sizes {known} and {n}")
            sizes[label] = known if n == 1 else n  # 1 broadcasts, to 0 too
        terms.append((x, labels))
    terms = [(astype(x, computed, copy=False), labels) for x, labels in terms]
    x, labels = _summed(terms, 0, output, computed)
    for k in range(1, len(terms)):
        y, y_labels = _summed(terms, k, output, computed)
        later = set(output).union(*(t[1] for t in terms[k + 1:]))
        x, labels = _contracted(x, labels, y, y_labels, later, sizes)
    x = permute_dims(x, tuple(labels.index(label) for label in output))
    x = broadcast_to(x, tuple(sizes[label] for label in output))
    return x != 0 if dtype == bool_.numpy else x


def _numpy_result_type(operands):
    """NumPy's result dtype for all the operands at once, which differs from a pairwise fold
    for three kinds (int8, uint8 and float16 give float16); dlnumba's for bfloat16."""
    try:
        return np.result_type(*(x.dtype for x in operands))
    except TypeError:
        return result_type(*operands)


def _shown(label):
    return repr(label) if label in _LETTERS else "of '...'"


def _parse(subscripts, ndims):
    """The labels of each operand and of the output, each ``...`` expanded into labels of its
    own (right-aligned, as broadcasting aligns dimensions)."""
    text = subscripts.replace(" ", "")
    left, arrow, right = text.partition("->")
    groups = left.split(",")
    if len(groups) != len(ndims):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(groups)} operands, "
                         f"{len(ndims)} given")
    widths = []
    for group, ndim in zip(groups, ndims):
        _check_labels(group, subscripts)
        width = ndim - len(group.replace("...", "")) if "..." in group else 0
        if width < 0 or "..." not in group and len(group) != ndim:
            raise ValueError(f"einsum: subscripts {group!r} do not fit an operand of {ndim} "
                             "dimensions")
        widths.append(width)
    broadcast = max(widths, default=0)
    ellipsis = [chr(_ELLIPSIS_BASE + d) for d in range(broadcast)]
    inputs = [_expanded(group, ellipsis[broadcast - width:])
              for group, width in zip(groups, widths)]
    if arrow:
        _check_labels(right, subscripts)
        output = _expanded(right, ellipsis)
        seen = set().union(*map(set, inputs))
        for label in output:
            if label not in seen:
                raise ValueError(f"einsum: output label {label!r} is in no operand")
        if len(set(output)) != len(output):
            raise ValueError(f"einsum: output subscripts {right!r} repeat a label")
    else:
        counts = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        once = sorted(label for label, n in counts.items() if n == 1 and label in _LETTERS)
        output = ellipsis + once
    return inputs, output


def _check_labels(group, subscripts):
    if group.count("...") > 1 or any(c not in _LETTERS for c in group.replace("...", "")):
        raise ValueError(f"einsum: subscripts {subscripts!r} may hold only letters, one '...' "
                         "per operand, ',' and '->'")


def _expanded(group, ellipsis):
    before, found, after = group.partition("...")
    return [*before, *(ellipsis if found else []), *after]


def _diagonal(x, labels):
    """``x`` with each repeated label's dimensions as one (a strided view), and its labels."""
    unique = list(dict.fromkeys(labels))
    if len(unique) == len(labels):
        return x, labels
    shape, strides = [], []
    for label in unique:
        dims = [d for d, other in enumerate(labels) if other == label]
        sizes = {x.shape[d] for d in dims}
        if len(sizes) > 1:
            raise ValueError(f"einsum: the dimensions of label {_shown(label)} repeated in one "
                             f"operand differ ({sorted(sizes)})")
        shape.append(x.shape[dims[0]])
        strides.append(sum(x._strides[d] for d in dims))
    return x._view(0, tuple(shape), tuple(strides)), unique


def _summed(terms, k, output, dtype):
    """Term ``k`` with its labels that no other term and not the output has summed out."""
    x, labels = terms[k]
    others = set(output).union(*(t[1] for j, t in enumerate(terms) if j != k))
    alone = tuple(d for d, label in enumerate(labels) if label not in others)
    if not alone:
        return x, labels
    return (sum_(x, axis=alone, dtype=dtype),
            [label for d, label in enumerate(labels) if d not in alone])


def _contracted(x, x_labels, y, y_labels, later, sizes):
    """The product of two terms summed over the labels they share and nothing later needs, as
    one batched ``matmul``; and its labels (shared kept ones, ``x``'s own, ``y``'s own)."""
    shared = [label for label in x_labels if label in y_labels]
    batch = [label for label in shared if label in later]
    summed = [label for label in shared if label not in later]
    x_own = [label for label in x_labels if label not in y_labels]
    y_own = [label for label in y_labels if label not in x_labels]
    full = {label: sizes[label] for label in shared}
    left, left_shape = _matrices(x, x_labels, batch, x_own, summed, full)
    right, right_shape = _matrices(y, y_labels, batch, summed, y_own, full)
    shape = left_shape[:len(batch) + len(x_own)] + right_shape[len(batch) + len(summed):]
    return reshape(matmul(left, right), shape), batch + x_own + y_own


def _matrices(x, labels, batch, rows, columns, full):
    """``x`` as a stack of matrices, its ``batch`` labels first, then ``rows``, then
    ``columns``, each merged into one dimension; the labels shared with the other term
    broadcast to their ``full`` sizes. Also the shape before the merge."""
    order = batch + rows + columns
    x = permute_dims(x, tuple(labels.index(label) for label in order))
    shape = tuple(full.get(label, n) for label, n in zip(order, x.shape))
    merged = (size_of(shape[:len(batch)]), size_of(shape[len(batch):len(batch) + len(rows)]),
              size_of(shape[len(batch) + len(rows):]))
    return reshape(broadcast_to(x, shape), merged), shape
