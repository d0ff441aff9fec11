"""DLPack exchange overhead: dlnumba against NumPy, PyTorch and JAX on the same arrays, in the
same run. Each case times 100 exchanges of a 3 x 4 float32 array.

- ``TimeImport``: ``library.from_dlpack(a)`` for an array ``a`` made by ``source``: how fast
  dlnumba imports compared with the peers importing the same array.
- ``TimeExport``: ``consumer.from_dlpack(a)`` for an array ``a`` of ``library``: how fast
  dlnumba's arrays leave for a consumer compared with the peers' own arrays.
- ``TimeCapsule``: ``a.__dlpack__()`` of each library's array, for a legacy and a versioned
  (``max_version=(1, 0)``) capsule.

Every import is checked once per process: the values, and that dlnumba shares the memory.
"""

import numpy as np

import dlnumba as xp

from ._common import CALLS, assert_matches, cached, check_once, convert, namespace

LIBRARIES = ["dlnumba", "numpy", "torch", "jax"]
_DATA = np.arange(12, dtype=np.float32).reshape(3, 4)


def _array(library):
    """The 3 x 4 array of ``library``, made once per process."""
    namespace(library)
    return cached(library, lambda: convert(library, _DATA.copy()))


def _checked_import(consumer, source):
    """``from_dlpack`` of ``consumer`` and the ``source`` array, checked once per process."""
    from_dlpack, a = namespace(consumer).from_dlpack, _array(source)

    def check():
        imported = from_dlpack(a)
        assert_matches(imported, _DATA)
        if "dlnumba" in (consumer, source) and "jax" not in (consumer, source):
            assert np.shares_memory(np.asarray(imported), np.asarray(a))

    check_once((consumer, source), check)
    return from_dlpack, a


def _repeat(function, argument):
    for _ in range(CALLS):
        function(argument)


class TimeImport:
    params = (["numpy", "torch", "jax"], LIBRARIES)
    param_names = ("source", "library")

    def setup(self, source, library):
        self.from_dlpack, self.a = _checked_import(library, source)

    def time_100_imports(self, source, library):
        _repeat(self.from_dlpack, self.a)


class TimeExport:
    params = (["numpy", "torch", "jax"], LIBRARIES)
    param_names = ("consumer", "library")

    def setup(self, consumer, library):
        self.from_dlpack, self.a = _checked_import(consumer, library)

    def time_100_exports(self, consumer, library):
        _repeat(self.from_dlpack, self.a)


class TimeCapsule:
    params = (["legacy", "versioned"], LIBRARIES)
    param_names = ("capsule", "library")

    def setup(self, capsule, library):
        a = _array(library)
        kwargs = {} if capsule == "legacy" else {"max_version": (1, 0)}
        self.export = lambda: a.__dlpack__(**kwargs)
        check_once((capsule, library),
                   lambda: assert_matches(xp.from_dlpack(self.export()), _DATA))

    def time_100_capsules(self, capsule, library):
        export = self.export
        for _ in range(CALLS):
            export()
