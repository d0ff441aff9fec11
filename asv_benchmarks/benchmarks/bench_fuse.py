"""Fused expressions: ``xp.fuse`` against NumPy, numexpr (on its threads) and PyTorch eager, on
the same operands, in the same run.

The issue's three memory-bound chains on 4M float32 elements (``TimeFused``), standard normal
operands, and one of them on 16 elements, 100 calls (``TimeSmallFused``: the per-call
overhead). The fused results are checked once per process against the unfused dlnumba calls
(bit for bit) and against NumPy's (to rounding).
"""

import numpy as np

import dlnumba as xp

from ._common import CALLS, cached, check_once, convert, namespace

try:
    import numexpr
except ImportError:  # asv: the numexpr cases are skipped
    numexpr = None

EXPRESSIONS = {  # name: (array API function, numexpr's text)
    "a*b+c": (lambda m, a, b, c: a * b + c, "a * b + c"),
    "exp(-a*a/2)*b+0.5": (lambda m, a, b, c: m.exp(-a * a / 2) * b + 0.5,
                          "exp(-a * a / 2) * b + 0.5"),
    "sum((a-b)**2)": (lambda m, a, b, c: m.sum((a - b) ** 2), "sum((a - b) ** 2)"),
}
LIBRARIES = ["dlnumba", "numpy", "numexpr", "torch"]


def _operands(n):
    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal(n).astype(np.float32) for _ in range(3))


def _prepare(expression, library, n):
    function, text = EXPRESSIONS[expression]
    arrays = cached(("fuse", n), lambda: _operands(n))
    expected = cached(("fuse", expression, n), lambda: function(np, *arrays))
    if library == "numexpr":
        if numexpr is None:
            raise NotImplementedError("numexpr is not installed")
        names = dict(zip("abc", arrays))
        return lambda: numexpr.evaluate(text, local_dict=names)
    operands = [convert(library, a) for a in arrays]
    if library != "dlnumba":
        module = namespace(library)
        return lambda: function(module, *operands)
    fused = cached(("fused", expression), lambda: xp.fuse(lambda a, b, c: function(xp, a, b, c)))
    check_once(("fused", expression, n), lambda: _check(fused, function, operands, expected))
    return lambda: fused(*operands)


def _check(fused, function, operands, expected):
    """The fused result is the unfused calls' result, bit for bit, and NumPy's to rounding."""
    got, unfused = fused(*operands), function(xp, *operands)
    assert np.from_dlpack(got).tobytes() == np.from_dlpack(unfused).tobytes()
    np.testing.assert_allclose(np.from_dlpack(got), expected, rtol=1e-5,
                               atol=1e-6 * float(np.max(np.abs(expected))))


class TimeFused:
    params = (list(EXPRESSIONS), LIBRARIES)
    param_names = ("expression", "library")

    def setup(self, expression, library):
        self.run = _prepare(expression, library, 4 << 20)

    def time_expression(self, expression, library):
        self.run()


class TimeSmallFused:
    params = (["a*b+c"], LIBRARIES)
    param_names = ("expression", "library")

    def setup(self, expression, library):
        self.run = _prepare(expression, library, 16)

    def time_100_calls(self, expression, library):
        run = self.run
        for _ in range(CALLS):
            run()
