"""Keeps ``dlnumba.cuda`` importable next to numba-cuda.

numba-cuda installs an import hook (``_numba_cuda_redirector``) that claims every module whose
name contains ``"numba.cuda"``, so ``"dlnumba.cuda"`` too, and recurses until RecursionError
on those that are not numba's. A finder placed before it resolves this package's own modules
the standard way.
"""

import importlib.abc
import importlib.machinery
import sys


class _OwnModulesFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "dlnumba.cuda" or name.startswith("dlnumba.cuda."):
            return importlib.machinery.PathFinder.find_spec(name, path, target)
        return None


if not any(isinstance(finder, _OwnModulesFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _OwnModulesFinder())
