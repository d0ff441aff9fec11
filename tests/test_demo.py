"""The demo that `make demo` runs, end to end in a fresh process."""

import subprocess
import sys

import pytest


def test_demo_shares_memory_with_numpy_and_torch():
    pytest.importorskip("torch")
    result = subprocess.run([sys.executable, "-m", "dlnumba", "demo"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    table = {row[0]: row for row in rows if row and row[0] in ("numpy", "torch")}
    assert table["numpy"][1:5] == ["cpu", "float32", "(3,", "4)"]
    assert table["torch"][2] == "float64"
    assert all("zero-copy" in row for row in table.values())


def test_module_entry_point_rejects_unknown_commands():
    result = subprocess.run([sys.executable, "-m", "dlnumba", "bogus"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    assert "usage: python -m dlnumba demo" in result.stderr
