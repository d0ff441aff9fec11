"""Print dlnumba's time (or memory) over each peer's, per benchmark, from asv's results.

One row per benchmark, parameters and peer: ratio = dlnumba / peer, so > 1 means dlnumba is
slower (or holds more memory). Failed cases come first, then the ratios from the worst down,
then what was skipped (a peer or a device missing here). Reads the results asv saved for one
commit (``--commit``, default: the repository's HEAD) under ``.asv/results`` next to this file;
with several machines, the one whose results were written last.

Usage: ``python asv_benchmarks/ratios.py [--commit HASH] [--machine NAME]``
"""

import argparse
import ast
import glob
import itertools
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, ".asv", "results")


def _results_file(commit, machine):
    pattern = os.path.join(RESULTS, machine or "*", commit[:8] + "-*.json")
    files = sorted(glob.glob(pattern), key=os.path.getmtime)
    if not files:
        sys.exit(f"no asv results for commit {commit[:8]} under {RESULTS}: run `make bench`")
    return files[-1]


def _format(value, unit):
    if unit == "bytes":
        return f"{value / 2 ** 20:.1f} MiB"
    for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if value >= scale:
            return f"{value / scale:.3g} {suffix}"
    return f"{value / 1e-9:.3g} ns"


def _status(value):
    """None for a measured value, else why there is none."""
    if value is None:
        return "FAILED"
    return "skipped" if isinstance(value, float) and math.isnan(value) else None


def rows(results, benchmarks):
    """(sort key, cells) per benchmark, parameters (but the library) and peer."""
    for name, entry in results.items():
        meta = benchmarks.get(name)
        if meta is None or entry[2] != meta["version"] or "library" not in meta["param_names"]:
            continue  # gone, changed since, or no peer
        params = [[ast.literal_eval(p) for p in values] for values in entry[1]]
        values = entry[0] if entry[0] is not None else [None] * math.prod(map(len, params))
        measured = dict(zip(itertools.product(*params), values))
        where = meta["param_names"].index("library")
        others = [p for i, p in enumerate(params) if i != where]
        names = [n for n in meta["param_names"] if n != "library"]
        for case in itertools.product(*others):
            label = " ".join(f"{n}={v}" for n, v in zip(names, case))

            def value(library):
                return measured[case[:where] + (library,) + case[where:]]  # noqa: B023 (used here)

            ours = value("dlnumba")
            for peer in params[where]:
                if peer == "dlnumba":
                    continue
                theirs = value(peer)
                status = _status(ours) or _status(theirs)
                if status:
                    missing = "dlnumba" if _status(ours) else "peer"
                    key = (0 if status == "FAILED" else 2, 0.0)
                    cells = [f"{status} ({missing})", "", ""]
                else:
                    ratio = ours / theirs
                    key = (1, -ratio)
                    cells = [f"{ratio:.2f}", _format(ours, meta["unit"]),
                             _format(theirs, meta["unit"])]
                yield key, [cells[0], name, label, peer] + cells[1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", help="the commit the results were recorded for (any name "
                        "git knows it by)")
    parser.add_argument("--machine", help="asv's machine name (default: the newest results)")
    args = parser.parse_args()
    revision = f"{args.commit or 'HEAD'}^{{commit}}"  # a short hash or a name, made whole
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", revision], cwd=HERE,
                           capture_output=True, text=True)
    if found.returncode:
        sys.exit(f"--commit {args.commit!r} names no commit of this repository")
    commit = found.stdout.strip()
    path = _results_file(commit, args.machine)
    with open(path) as file:
        results = json.load(file)["results"]
    with open(os.path.join(RESULTS, "benchmarks.json")) as file:
        benchmarks = json.load(file)
    table = [cells for _, cells in sorted(rows(results, benchmarks), key=lambda r: r[0])]
    header = ["dlnumba/peer", "benchmark", "parameters", "peer", "dlnumba", "peer time"]
    widths = [max(len(r[i]) for r in table + [header]) for i in range(len(header))]
    print(f"Ratios from {os.path.relpath(path)} (> 1: dlnumba slower or bigger)")
    for cells in [header] + table:
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
    measured = sum(1 for r in table if r[4])
    print(f"{len(table)} comparisons: {measured} measured, "
          f"{sum(1 for r in table if r[0].startswith('FAILED'))} failed, "
          f"{sum(1 for r in table if r[0].startswith('skipped'))} skipped")


if __name__ == "__main__":
    main()
