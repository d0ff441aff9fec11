"""Per-call costs of small calls in one process: NumPy, PyTorch (CPU) and dlnumba, then a
user ``@njit`` function on NumPy and on dlnumba arguments.

Each figure is the best of 7 timings of 20,000 calls (100,000 for ``@njit``), in microseconds;
the ratios are dlnumba's time over each peer's. Quick to run while working; ``make bench``
(``bench_overhead`` and the ``TimeSmall*`` benchmarks) is the record.

Usage: ``python tools/small_calls.py [NAME ...]`` (only the rows whose name contains a NAME).
"""

import sys
import timeit

import numba
import numpy as np
import torch

import dlnumba as xp

# name: the call in NumPy, in PyTorch and in dlnumba, over the inputs of _inputs()
ROWS = [
    ("x + y", "n + n", "tn + tn", "x + x"),
    ("sqrt", "np.sqrt(n)", "torch.sqrt(tn)", "xp.sqrt(x)"),
    ("x + 1.5", "n + 1.5", "tn + 1.5", "x + 1.5"),
    ("sum", "np.sum(n)", "torch.sum(tn)", "xp.sum(x)"),
    ("max axis", "np.max(m, axis=1)", "torch.amax(tm, dim=1)", "xp.max(a, axis=1)"),
    ("8x8 matmul", "m @ m", "tm @ tm", "a @ a"),
    ("copy", "n.copy()", "tn.clone()", "xp.asarray(x, copy=True)"),
    ("astype f32", "n.astype(np.float32)", "tn.to(torch.float32)", "xp.astype(x, xp.float32)"),
    ("slice", "n[2:5]", "tn[2:5]", "x[2:5]"),
    ("int index", "n[3]", "tn[3]", "x[3]"),
    ("take", "np.take(n, nidx)", "torch.take(tn, tidx)", "xp.take(x, idx)"),
    ("array index", "n[nidx]", "tn[tidx]", "x[idx]"),
    ("mask get", "n[nmask]", "tn[tmask]", "x[mask]"),
    ("int set", "n.__setitem__(nidx, 0.5)", "tn.__setitem__(tidx, 0.5)",
     "x.__setitem__(idx, 0.5)"),
    ("mask set", "n.__setitem__(nmask, 0.5)", "tn.__setitem__(tmask, 0.5)",
     "x.__setitem__(mask, 0.5)"),
    ("reshape", "m.reshape(64)", "tm.reshape(64)", "xp.reshape(a, (64,))"),
    ("transpose", "m.T", "tm.T", "a.T"),
    ("empty", "np.empty(16)", "torch.empty(16)", "xp.empty(16)"),
    ("zeros", "np.zeros(16)", "torch.zeros(16)", "xp.zeros(16)"),
    ("asarray list", "np.asarray([1., 2., 3.])", "torch.tensor([1., 2., 3.])",
     "xp.asarray([1., 2., 3.])"),
    ("from_dlpack(np)", "np.from_dlpack(n)", "torch.from_dlpack(n)", "xp.from_dlpack(n)"),
    ("__dlpack__", "n.__dlpack__()", "tn.__dlpack__()", "x.__dlpack__()"),
    ("linalg.inv 4x4", "np.linalg.inv(e)", "torch.linalg.inv(te)", "xp.linalg.inv(xe)"),
]


def _inputs():
    n, m, e = np.arange(16.0), np.ones((8, 8)), np.eye(4) * 2 + 0.1
    x = xp.asarray(n)
    tn = torch.arange(16, dtype=torch.float64)
    return dict(np=np, torch=torch, xp=xp, n=n, m=m, e=e, x=x, a=xp.asarray(m),
                xe=xp.asarray(e), tn=tn, tm=torch.ones((8, 8), dtype=torch.float64),
                te=torch.asarray(e), nidx=np.array([1, 3, 5]), tidx=torch.tensor([1, 3, 5]),
                idx=xp.asarray([1, 3, 5]), nmask=n > 3, tmask=tn > 3, mask=x > 3)


def best(statement, names, number=20000):
    """The best per-call time of ``statement`` (evaluated in ``names``), in microseconds."""
    call = eval("lambda: " + statement, names)
    call()
    call()
    return min(timeit.repeat(call, number=number, repeat=7)) / number * 1e6


@numba.njit
def _one(a):
    return a.shape[0]


@numba.njit
def _three(a, b, c):
    return a.shape[0]


def main(only):
    torch.set_num_threads(2)
    names = _inputs()
    print(f"{'call':18s} {'numpy':>8s} {'torch':>8s} {'dlnumba':>8s} {'/np':>6s} {'/torch':>6s}")
    for name, *statements in ROWS:
        if only and not any(o in name for o in only):
            continue
        peer_np, peer_torch, ours = (best(s, names) for s in statements)
        print(f"{name:18s} {peer_np:8.2f} {peer_torch:8.2f} {ours:8.2f} {ours / peer_np:6.2f} "
              f"{ours / peer_torch:6.2f}", flush=True)
    names.update(one=_one, three=_three)
    for arguments, call in (("1 arg", "one({0})"), ("3 args", "three({0}, {0}, {0})")):
        numpy_time, ours = (best(call.format(a), names, 100000) for a in ("n", "x"))
        print(f"njit {arguments}: numpy {numpy_time:.3f} dlnumba {ours:.3f} "
              f"ratio {ours / numpy_time:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
