"""Per-call overhead of a user @njit function on dlnumba arguments, against NumPy arguments.

The function does nothing with its arguments, so the time is Numba's dispatch: typing each
argument and unboxing it. Same inputs, same run; quote dlnumba / numpy.
"""

import numba
import numpy as np

import dlnumba as xp


@numba.njit
def _one(a):
    return a.shape[0]


@numba.njit
def _three(a, b, c):
    return a.shape[0] + b.shape[0] + c.shape[0]


class TimeNjitDispatch:
    params = ([1, 3], ["dlnumba", "numpy"])
    param_names = ("arguments", "library")

    def setup(self, arguments, library):
        a = np.arange(16.0)
        x = xp.asarray(a) if library == "dlnumba" else a
        self.function, self.args = (_one, (x,)) if arguments == 1 else (_three, (x, x, x))
        assert self.function(*self.args) == 16 * arguments

    def time_call(self, arguments, library):
        self.function(*self.args)
