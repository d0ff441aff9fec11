"""What the benchmark files share: the peer libraries, inputs built once per process, and the
once-per-process check of a result against NumPy's.

Every benchmark has a ``library`` parameter; ``ratios.py`` divides dlnumba's time by each peer's
for the same other parameters. A peer that is not installed is skipped (NotImplementedError in
``setup``), never replaced. The installed asv runs ``setup`` before every timed call and times
each call on its own, so per-call costs below a few microseconds are timed over ``CALLS`` calls
(methods named ``time_100_...``), and inputs and checks are kept per process in this module.
"""

import json
import subprocess
import sys

import numpy as np

import dlnumba as xp

try:
    import torch
except ImportError:
    torch = None
try:
    import jax.numpy as jnp
except ImportError:
    jnp = None

CALLS = 100
MiB = 1 << 20
_INSTALLED = {"dlnumba": xp, "numpy": np, "torch": torch, "jax": jnp}
_CACHE = {}
_CHECKED = set()


def namespace(library):
    """The module of ``library`` (dlnumba, numpy, torch, jax); NotImplementedError (asv: skip)
    when it is not installed."""
    module = _INSTALLED[library]
    if module is None:
        raise NotImplementedError(f"{library} is not installed")
    return module


def cached(key, make):
    """``make()``, called once per process for ``key``."""
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def check_once(key, check):
    """Call ``check()`` the first time ``key`` is seen in this process."""
    if key not in _CHECKED:
        check()
        _CHECKED.add(key)


def convert(library, a):
    """NumPy array ``a`` as an array of ``library``, zero-copy where the library allows."""
    if library == "dlnumba":
        return xp.asarray(a)
    if library == "torch":
        return torch.from_numpy(a)
    if library == "jax":
        return jnp.asarray(a)
    return a


def assert_matches(result, expected, rtol=0.0):
    """Raise AssertionError unless ``result`` (any library's array) has the shape, dtype and
    values (exact, or within ``rtol``) of the NumPy array ``expected``."""
    got = np.asarray(result)
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    assert got.dtype == np.asarray(expected).dtype, (got.dtype, np.asarray(expected).dtype)
    if rtol:
        np.testing.assert_allclose(got, expected, rtol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


def script_seconds(script, *arguments, environment=None):
    """The seconds a new Python process running ``script`` with ``arguments`` reports as the
    last line of its output (JSON ``{"seconds": ...}``): the engine benchmarks, which time a
    cluster or a chunk backend chosen at import."""
    out = subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True,
                         text=True, env=environment, check=True, timeout=900)
    return json.loads(out.stdout.splitlines()[-1])["seconds"]


def print_engine_ratios(benchmark, libraries):
    """Each workload of an engine benchmark (a ``track_compute`` class) in seconds for dlnumba
    and its peer, and their ratio: the files' ``__main__``."""
    for workload in benchmark.params[0]:
        seconds = {library: benchmark().track_compute(workload, library)
                   for library in libraries}
        print(f"{workload}: dlnumba {seconds['dlnumba']:.3f} s, numpy {seconds['numpy']:.3f} s, "
              f"ratio {seconds['dlnumba'] / seconds['numpy']:.2f}")
