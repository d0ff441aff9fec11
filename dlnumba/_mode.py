"""Strict mode: the array API standard's errors, where by default dlnumba does what NumPy 2 does.

By default, the cases the standard leaves to the implementation (mixed kinds, Python scalars
of another kind, integers in floating-point functions, dtype spellings other than dlnumba's
own) follow NumPy 2. Strict mode refuses them with a TypeError, as array-api-strict does, for
library authors checking that their code is portable. The process default comes from the
environment variable ``DLNUMBA_STRICT`` (``1`` turns it on).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

_process_strict = os.environ.get("DLNUMBA_STRICT", "0") not in ("", "0")
_scoped_strict = contextvars.ContextVar("dlnumba_strict", default=None)


def is_strict() -> bool:
    """Whether strict mode is on here (in this thread or task, else for the process)."""
    scoped = _scoped_strict.get()
    return _process_strict if scoped is None else scoped


def _checked(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"strict mode is switched by a bool, not {enabled!r}")
    return enabled


def set_strict(enabled: bool) -> bool:
    """Switch strict mode on or off for the whole process; returns the previous setting.

    A :func:`strict` block in effect still decides inside it.
    """
    global _process_strict
    previous, _process_strict = _process_strict, _checked(enabled)
    return previous


@contextlib.contextmanager
def strict(enabled: bool = True) -> Iterator[None]:
    """A ``with`` block in strict mode (or, with ``enabled=False``, out of it), in the current
    thread or task only.

    Examples
    --------
    >>> import dlnumba as xp
    >>> with xp.strict():
    ...     xp.arange(3) / 2
    Traceback (most recent call last):
    TypeError: divide takes arrays of floating-point dtypes, not int64
    """
    token = _scoped_strict.set(_checked(enabled))
    try:
        yield
    finally:
        _scoped_strict.reset(token)
