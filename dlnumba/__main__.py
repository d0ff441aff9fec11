"""``python -m dlnumba demo``: the tour a new user runs first."""

import sys


def main(argv):
    if argv != ["demo"]:
        print("usage: python -m dlnumba demo", file=sys.stderr)
        return 2
    from ._demo import run
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
