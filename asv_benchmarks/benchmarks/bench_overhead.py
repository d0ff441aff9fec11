"""The per-call cost of small calls that the other files do not time: views and indexing,
creation, axis reductions and small linear algebra, 100 calls each on 16 float64 elements (an
8x8 matrix for the 2-D calls), dlnumba against NumPy and PyTorch in the same run.

Each call's result is checked against NumPy's once per process.
"""

import numpy as np

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch"]


def _inputs():
    """NumPy inputs: a vector, an 8x8 matrix, integer indices, a mask and a 4x4 invertible."""
    vector = np.arange(16.0)
    return {"vector": vector, "matrix": np.arange(64.0).reshape(8, 8),
            "indices": np.array([1, 3, 5]), "mask": vector > 3,
            "invertible": np.eye(4) * 2 + 0.1}


# name: (the call, given the library's namespace and its inputs); NumPy's is the reference.
CALLS_BY_NAME = {
    "slice": lambda xp, a: a["vector"][2:5],
    "int_index": lambda xp, a: a["vector"][3],
    "array_index": lambda xp, a: a["vector"][a["indices"]],
    "mask_get": lambda xp, a: a["vector"][a["mask"]],
    "take": lambda xp, a: xp.take(a["vector"], a["indices"]),
    "reshape": lambda xp, a: xp.reshape(a["matrix"], (64,)),
    "transpose": lambda xp, a: a["matrix"].T,
    "empty": lambda xp, a: xp.empty(16, dtype=xp.float64),
    "zeros": lambda xp, a: xp.zeros(16, dtype=xp.float64),
    "asarray_list": lambda xp, a: xp.asarray([1.0, 2.0, 3.0], dtype=xp.float64),
    "max_axis": lambda xp, a: xp.max(a["matrix"], axis=1),
    "scalar_add": lambda xp, a: a["vector"] + 1.5,
    "inv": lambda xp, a: xp.linalg.inv(a["invertible"]),
}
_UNCHECKED = {"empty"}  # uninitialised values


def _namespace(library):
    """``library``'s namespace, with the array API spellings PyTorch lacks."""
    module = namespace(library)
    if library != "torch":
        return module

    class Torch:
        def __getattr__(self, name):
            return getattr(module, name)

        asarray = staticmethod(lambda values, dtype: module.tensor(values, dtype=dtype))
        max = staticmethod(lambda x, axis: module.amax(x, dim=axis))
        take = staticmethod(module.take)

    return Torch()


class TimeSmallCall:
    params = (list(CALLS_BY_NAME), LIBRARIES)
    param_names = ("call", "library")

    def setup(self, call, library):
        xp = _namespace(library)
        inputs = cached("overhead inputs", _inputs)
        converted = {name: convert(library, value) for name, value in inputs.items()}
        run = CALLS_BY_NAME[call]
        self.run = lambda: run(xp, converted)
        if call not in _UNCHECKED:
            check_once(("overhead", call, library), lambda: assert_matches(
                self.run(), CALLS_BY_NAME[call](np, inputs), rtol=1e-12))

    def time_100_calls(self, call, library):
        run = self.run
        for _ in range(CALLS):
            run()


# name: (NumPy's function called on a dlnumba array, the namespace call that answers it)
NUMPY_FUNCTIONS = {
    "mean": (lambda x: np.mean(x), lambda xp, x: xp.mean(x)),
    "sum_axis": (lambda x: np.sum(x, axis=0), lambda xp, x: xp.sum(x, axis=0)),
    "concatenate": (lambda x: np.concatenate([x, x]), lambda xp, x: xp.concat([x, x])),
    "where": (lambda x: np.where(x > 2, x, 0.0), lambda xp, x: xp.where(x > 2, x, 0.0)),
}


class TimeNumPyFunctions:
    """NumPy's functions on 16 dlnumba elements (``__array_function__``) against the dlnumba
    call that answers them and NumPy's on NumPy arrays: the dispatch's own cost."""

    params = (list(NUMPY_FUNCTIONS), ["numpy function on dlnumba", "dlnumba", "numpy"])
    param_names = ("function", "how")

    def setup(self, function, how):
        values = np.arange(16.0).reshape(2, 8)
        numpy_call, namespace_call = NUMPY_FUNCTIONS[function]
        if how == "numpy":
            self.run = lambda: numpy_call(values)
        else:
            xp, x = namespace("dlnumba"), convert("dlnumba", values)
            self.run = ((lambda: numpy_call(x)) if how == "numpy function on dlnumba"
                        else lambda: namespace_call(xp, x))
        check_once(("numpy functions", function, how),
                   lambda: assert_matches(self.run(), numpy_call(values), rtol=0))

    def time_100_calls(self, function, how):
        run = self.run
        for _ in range(CALLS):
            run()
