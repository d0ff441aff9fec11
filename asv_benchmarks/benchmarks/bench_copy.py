"""The copy/cast engine against NumPy on the same 64 MiB inputs, in the same run.

Each case is one operation timed for ``library`` in (dlnumba, numpy); the ratio of NumPy's time
to dlnumba's is dlnumba's relative throughput. ``TimeSmallCopy`` measures per-call overhead.
"""

import numpy as np

import dlnumba as xp

_BYTES = 64 << 20


def _case(name, a):
    """(dlnumba operation, NumPy operation, source array) for a case on NumPy array ``a``."""
    if name == "contiguous":
        return (lambda x: xp.asarray(x, copy=True)), (lambda a: np.array(a, copy=True)), a
    if name == "transpose":
        a = a.reshape(4096, -1)
        return (lambda x: xp.reshape(x.T, (-1,))), (lambda a: np.reshape(a.T, -1)), a
    if name == "stride2":
        return (lambda x: xp.asarray(x[::2], copy=True)), (lambda a: np.array(a[::2], copy=True)), a
    if name == "reversed":
        return (lambda x: xp.asarray(x[::-1], copy=True)), (lambda a: np.array(a[::-1], copy=True)), a
    if name == "permute3d":
        a = a.reshape(256, 256, -1).transpose(2, 0, 1)
        return (lambda x: xp.reshape(x, (-1,))), (lambda a: np.reshape(a, -1)), a
    raise ValueError(name)


class TimeCopy:
    params = (["contiguous", "transpose", "stride2", "reversed", "permute3d"],
              ["float32", "float64"], ["dlnumba", "numpy"])
    param_names = ("layout", "dtype", "library")

    def setup(self, layout, dtype, library):
        a = np.arange(_BYTES // np.dtype(dtype).itemsize, dtype=dtype)
        ours, theirs, a = _case(layout, a)
        x = xp.asarray(a)
        self.run, self.arg = (ours, x) if library == "dlnumba" else (theirs, a)
        np.testing.assert_array_equal(np.from_dlpack(ours(x)), theirs(a))

    def time_copy(self, layout, dtype, library):
        self.run(self.arg)


class TimeCast:
    params = (["float32->float64", "int32->float32", "float64->float16"], ["dlnumba", "numpy"])
    param_names = ("cast", "library")

    def setup(self, cast, library):
        source, target = cast.split("->")
        a = (np.arange(_BYTES // np.dtype(source).itemsize) % 70000).astype(source)
        x = xp.asarray(a)
        dtype = getattr(xp, target)
        self.run = (lambda: xp.astype(x, dtype)) if library == "dlnumba" else (lambda: a.astype(target))
        ours = np.from_dlpack(xp.astype(x, dtype))
        np.testing.assert_array_equal(ours.view(f"u{ours.itemsize}"),
                                      a.astype(target).view(f"u{ours.itemsize}"))

    def time_cast(self, cast, library):
        self.run()


class TimeSmallCopy:
    params = ["dlnumba", "numpy"]
    param_names = ["library"]

    def setup(self, library):
        a = np.arange(16, dtype=np.float32)
        x = xp.asarray(a)
        self.run = (lambda: xp.asarray(x, copy=True)) if library == "dlnumba" else (
            lambda: np.array(a, copy=True))
        np.testing.assert_array_equal(np.from_dlpack(xp.asarray(x, copy=True)), a)

    def time_small_copy(self, library):
        self.run()
