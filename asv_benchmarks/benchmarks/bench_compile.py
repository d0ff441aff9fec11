"""Compile latency, measured in fresh processes: what a user waits for before the first copy.

``track_first_copy_warm_cache``: seconds from ``import dlnumba`` done to the first copy done,
with kernels cached on disk (target 20 ms). ``track_copy_kernels_cold``: seconds to compile the
five same-dtype copy specializations into an empty cache (target 3 s). NumPy compiles nothing,
so these have no peer; the targets come from the copy engine's issue.
"""

import json
import os
import subprocess
import sys
import tempfile

_SCRIPT = """
import json, time
import dlnumba as xp
start = time.perf_counter()
x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
xp.asarray(x.T, copy=True)
first = time.perf_counter() - start
start = time.perf_counter()
for dtype in (xp.uint8, xp.int16, xp.float32, xp.float64, xp.complex128):
    xp.asarray(xp.zeros((3, 2), dtype=dtype).mT, copy=True)
print(json.dumps({"first": first, "all": first + time.perf_counter() - start}))
"""


def _run(cache_dir=None):
    env = dict(os.environ)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         env=env, check=True, timeout=600)
    return json.loads(out.stdout.splitlines()[-1])


class TrackCompileLatency:
    timeout = 900
    repeat = 1
    number = 1

    def track_first_copy_warm_cache(self):
        _run()
        return _run()["first"]

    track_first_copy_warm_cache.unit = "seconds"

    def track_copy_kernels_cold(self):
        with tempfile.TemporaryDirectory() as cache_dir:
            return _run(cache_dir)["all"]

    track_copy_kernels_cold.unit = "seconds"
