"""Per-call overhead of a user ``@numba.njit`` function on dlnumba arguments, against the same
function on NumPy arguments (the only other arrays Numba takes), in the same run.

The functions only read their arguments' shapes, so the time is Numba's dispatch: typing and
unboxing each argument. ``time_100_calls`` times 100 calls with 1 or 3 arguments; the result is
checked once per process.
"""

import numba
import numpy as np

import dlnumba as xp

from ._common import CALLS, check_once


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
        check_once((arguments, library),
                   lambda: np.testing.assert_equal(self.function(*self.args), 16 * arguments))

    def time_100_calls(self, arguments, library):
        function, args = self.function, self.args
        for _ in range(CALLS):
            function(*args)
