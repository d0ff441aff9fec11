"""No public function touches the memory of an array on a device it has no kernels for.

The cases (``device_guard_cases.py``) run in a child process on arrays labelled ``cuda:0``
whose memory is a PROT_NONE mapping: a host read or write is a crash there, where the CUDA
simulator (device memory is host memory) would let it pass silently.
"""

import os
import subprocess
import sys

import numpy as np

import dlnumba as xp
from dlnumba import fft, lib, linalg

import device_guard_cases

_HERE = os.path.dirname(os.path.abspath(__file__))
_NOT_FUNCTIONS = {"linalg", "fft", "lib", "newaxis", "e", "inf", "nan", "pi",
                  "__array_api_version__"}
_INTERNAL_METHODS = {"__getattr__", "__init__", "__module__", "__doc__", "__slots__",
                     "__weakref__"}


def _public_names():
    names = {n for n in xp.__all__
             if n not in _NOT_FUNCTIONS and not isinstance(getattr(xp, n), (type, np.dtype))}
    names |= {f"linalg.{n}" for n in linalg.__all__ if not isinstance(getattr(linalg, n), type)}
    names |= {f"fft.{n}" for n in fft.__all__}
    names |= {f"lib.stride_tricks.{n}" for n in lib.stride_tricks.__all__}
    names |= {f"ndarray.{n}" for n, value in vars(xp.ndarray).items()
              if value is not None and n not in _INTERNAL_METHODS
              and (not n.startswith("_") or n.startswith("__"))}
    return names


def test_every_public_name_has_a_case():
    covered = {name for name, _, _ in device_guard_cases.CASES.values()}
    assert _public_names() - covered == set()


def test_off_device_arrays_are_refused_before_their_memory_is_touched():
    # No usable CUDA device in the child: functions that can run on one refuse it too, so
    # every memory access on the poisoned "cuda:0" arrays is a bug.
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", NUMBA_DISABLE_CUDA="1")
    child = subprocess.run([sys.executable, "-X", "faulthandler", "device_guard_cases.py"],
                           cwd=_HERE, env=env, capture_output=True, text=True, timeout=600)
    lines = child.stdout.splitlines()
    started = [line[6:] for line in lines if line.startswith("START ")]
    assert child.returncode == 0, (f"case {started[-1] if started else None!r} crashed:\n"
                                   f"{child.stderr[-3000:]}")
    outcomes = {}
    for line in lines:
        if line.startswith("RESULT "):
            key, kind, what, message = line[7:].split("\t")
            outcomes[key] = (kind, what, message)
    wrong = []
    for key, (_, expectation, _) in device_guard_cases.CASES.items():
        kind, what, message = outcomes[key]
        if expectation == "refused":
            good = (kind == "raised" and what in ("ValueError", "TypeError", "BufferError")
                    and ("cuda:0" in message or "kDLCUDA:0" in message))
        elif expectation == "on device":
            good = kind == "returned" and what == "cuda:0"
        else:
            good = True
        if not good:
            wrong.append(f"{key}: expected {expectation}, got {kind} {what} {message}")
    assert wrong == []
