"""tools/gpu_check.py, the prepared GPU check, keeps working between GPU leases: without a GPU
it refuses at once, and its correctness part passes under the Numba CUDA simulator."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "gpu_check.py"


def _run(*args, simulator):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1" if simulator else "0"}
    env.pop("DLNUMBA_TEST_GPU", None)
    return subprocess.run([sys.executable, str(_SCRIPT), *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=900)


def test_without_a_gpu_it_says_so_and_exits_2(tmp_path):
    sys.path.insert(0, str(_SCRIPT.parent))
    try:
        from gpu_check import gpu_count
    finally:
        sys.path.remove(str(_SCRIPT.parent))
    if gpu_count():
        pytest.skip("this machine has a GPU: the check would run")
    result = _run("--out", tmp_path, simulator=False)
    assert result.returncode == 2 and result.stdout.strip() == "no CUDA GPU", result.stderr
    assert not any(tmp_path.iterdir())


def test_the_correctness_part_passes_under_the_simulator(tmp_path):
    result = _run("--simulate", "--tests", "none", "--out", tmp_path, simulator=True)
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    statuses = {r["name"]: r["status"] for r in report["records"]}
    for name in ("user_kernel", "dlpack_torch", "dlpack_jax", "moves", "device_vs_host"):
        assert statuses[name] == "pass", (name, report["records"])
    assert statuses["streams_torch"] == "skip" and statuses["tests"] == "skip"
    assert "check" in (tmp_path / "gpu_check.txt").read_text()
