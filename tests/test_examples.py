"""Every script in examples/ runs cleanly in a fresh process (each asserts its own result)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script):
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr


def test_there_are_examples():
    assert {p.stem for p in EXAMPLES} >= {"torch_inplace", "jax_roundtrip", "guvectorize_tensor"}
