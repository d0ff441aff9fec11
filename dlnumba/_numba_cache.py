"""Numba's on-disk cache for dlnumba's own kernels, salted with the version and kernel sources.

Numba stamps a cached function with a hash of its own source file only, so a change in a
helper in another module, or a new release, would load stale machine code. Every function
compiled with ``cache=True`` from a file of this package gets a stamp that also holds the
package version and a hash of every source file whose code is compiled.

Numba names a new entry's data file by the first number its index does not use, and saves the
index before the data: two processes adding different entries at once (pytest-xdist or Dask
workers) pick the same file, and one entry's key can end up with the other's machine code.
The entries of dlnumba's functions are named by a hash of their key and saved data first.
"""

import hashlib
import os
import pickle

from numba.core import caching
from numba.core.caching import _CacheLocator

from ._shipped import source_salt

_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.6x
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class SaltedLocator(_CacheLocator):
    """Wraps the locator Numba would choose for a dlnumba file and salts its source stamp."""

    salt = source_salt()

    def __init__(self, inner):
        self._inner = inner
        self._py_file = inner._py_file  # Numba names it in its "cannot cache" messages

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        return (self._inner.get_source_stamp(), self.salt)

    def get_disambiguator(self):
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(_PACKAGE_DIR + os.sep):
            return None
        for locator_class in _CacheImpl._locator_classes:
            if locator_class is not cls:
                inner = locator_class.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
        return None


_numba_save = caching.IndexDataCacheFile.save


def _save(self, key, data):
    """``IndexDataCacheFile.save``, for an entry of dlnumba's: its data file named by its key
    and written before the index names it (a concurrent writer may drop the index entry, which
    costs a compilation, but never gives the key another entry's data)."""
    stamp = self._source_stamp
    if not (isinstance(stamp, tuple) and len(stamp) == 2 and stamp[1] == SaltedLocator.salt):
        _numba_save(self, key, data)
        return
    base = self._index_name[:-len(".nbi")]
    name = f"{base}.{hashlib.sha256(pickle.dumps(key)).hexdigest()[:24]}.nbc"
    self._save_data(name, data)
    overloads = self._load_index()
    overloads[key] = name
    self._save_index(overloads)


if SaltedLocator not in _CacheImpl._locator_classes:
    _CacheImpl._locator_classes.insert(0, SaltedLocator)
    caching.IndexDataCacheFile.save = _save
