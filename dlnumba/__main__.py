"""``python -m dlnumba demo``: the tour a new user runs first. ``python -m dlnumba warm
[DTYPE ...]``: compile the kernels of common calls into Numba's cache (see :mod:`._warm`)."""

import sys

_USAGE = "usage: python -m dlnumba demo | python -m dlnumba warm [DTYPE ...]"


def main(argv):
    if argv == ["demo"]:
        from ._demo import run
        run()
        return 0
    if argv[:1] == ["warm"]:
        from ._warm import DTYPES, run
        try:
            run(argv[1:] or DTYPES)
        except ValueError as error:
            print(f"{error}\n{_USAGE}", file=sys.stderr)
            return 2
        return 0
    print(_USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
