"""Every CUDA kernel dlnumba's namespace asks for compiles for a real GPU, and user @cuda.jit
kernels take dlnumba arrays (see cuda_ptx.py): checks the simulator cannot make. Skipped where
numba-cuda's NVVM libraries are absent."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).with_name("cuda_ptx.py")
_SHARDS = 4


def _run(*args, simulator):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1" if simulator else "0"}
    return subprocess.run([sys.executable, str(_SCRIPT), *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="session")
def kernel_keys(tmp_path_factory):
    path = tmp_path_factory.mktemp("ptx") / "keys.json"
    result = _run("record", path, simulator=True)
    assert result.returncode == 0, result.stderr
    return path


@pytest.mark.parametrize("shard", range(_SHARDS))
def test_kernels_compile_for_the_gpu(kernel_keys, shard):
    result = _run("compile", kernel_keys, shard, _SHARDS, simulator=False)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr


def test_user_kernels_take_device_arrays_and_refuse_host_arrays():
    result = _run("user", simulator=False)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr
