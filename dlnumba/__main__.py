"""``python -m dlnumba demo``: the tour a new user runs first. ``python -m dlnumba warm
[DTYPE ...]``: compile the kernels of common calls into Numba's cache (see :mod:`._warm`).
``python -m dlnumba build [LEVEL ... | all]``: compile the shipped kernels of CPU levels (see
:mod:`._build`). ``python -m dlnumba info``: which shipped kernels this process loads."""

import sys

_USAGE = ("usage: python -m dlnumba demo | python -m dlnumba warm [DTYPE ...] | "
          "python -m dlnumba build [LEVEL ... | all] | python -m dlnumba info")


def main(argv):
    if argv == ["demo"]:
        from ._demo import run
        run()
        return 0
    if argv == ["info"]:
        from ._shipped import info
        print("\n".join(info()))
        return 0
    if argv[:1] in (["warm"], ["build"]):
        try:
            if argv[0] == "warm":
                from ._warm import DTYPES, run
                run(argv[1:] or DTYPES)
            else:
                from ._build import build
                build(argv[1:])
        except ValueError as error:
            print(f"{error}\n{_USAGE}", file=sys.stderr)
            return 2
        return 0
    print(_USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
