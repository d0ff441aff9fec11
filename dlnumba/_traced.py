"""Values that stand for arrays while :func:`.fuse` traces a function, and the one call through
which the namespace's functions hand them over (:func:`traced`), importing the tracer only
then."""


class Traced:
    """The base of :class:`._fuse.FusedArray`, which the namespace's functions recognise."""

    __slots__ = ()


def traced(name, *arguments, **keywords):
    """The traced call ``name(*arguments, **keywords)`` of a namespace function, where an
    argument is :class:`Traced`."""
    from . import _fuse
    return _fuse.trace_call(name, *arguments, **keywords)
