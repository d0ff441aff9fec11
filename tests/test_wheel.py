"""The wheel (``python -m build --wheel``, buildsystem/wheel_backend.py): setuptools' wheel of
the tree with its shipped kernels, made the platform wheel those objects need. Its build of the
kernels (``python -m dlnumba build all``) is the build that ``make test`` has run already; here
a copy of the tree, with the objects built, goes through the rest of the backend."""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

from dlnumba import _shipped
from helpers import built_level

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BUILD = """
import json, sys
sys.path.insert(0, "buildsystem")
from setuptools import build_meta
import wheel_backend
name = build_meta.build_wheel("dist")
print(json.dumps([wheel_backend.platform_wheel("dist/" + name),
                  wheel_backend.get_requires_for_build_wheel()]))
"""


def _tree_copy(to):
    to.mkdir()
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy(os.path.join(ROOT, name), to)
    for name in ("buildsystem", "dlnumba"):
        shutil.copytree(os.path.join(ROOT, name), to / name,
                        ignore=shutil.ignore_patterns("__pycache__"))


def test_the_wheel_holds_the_objects_pins_their_versions_and_runs_them(tmp_path):
    level = built_level()
    tree = tmp_path / "tree"
    _tree_copy(tree)
    done = subprocess.run([sys.executable, "-c", _BUILD], cwd=tree, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    path, requires = json.loads(done.stdout.splitlines()[-1])
    built = _shipped.versions()
    python = sys.implementation.cache_tag.replace("cpython-", "cp")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert os.path.basename(path).endswith(f"-{python}-{python}-{platform}.whl")
    assert {"numba>=0.60", "llvmlite>=0.43", "scipy>=1.11"} <= set(requires)

    with zipfile.ZipFile(tree / path) as wheel:
        files = {info.filename: wheel.read(info) for info in wheel.infolist()}
    dist_info = next(name.partition("/")[0] for name in files if name.endswith("/WHEEL"))
    assert "Root-Is-Purelib: false" in files[f"{dist_info}/WHEEL"].decode()
    assert f"Tag: {python}-{python}-{platform}" in files[f"{dist_info}/WHEEL"].decode()
    requirements = [line.partition(": ")[2] for line
                    in files[f"{dist_info}/METADATA"].decode().splitlines()
                    if line.startswith("Requires-Dist: ")]
    assert f"numba=={built['numba']}" in requirements
    assert f"llvmlite=={built['llvmlite']}" in requirements
    assert "numpy>=1.26" in requirements
    assert any(r.startswith("numba-cuda[cu13]>=0.20;") for r in requirements)
    record = [line.split(",") for line in files[f"{dist_info}/RECORD"].decode().splitlines()]
    assert {name for name, _, _ in record} == set(files)
    for name, digest, size in record:
        if name != f"{dist_info}/RECORD":
            data = files[name]
            assert digest == "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode() and int(size) == len(data)
    manifest = json.loads(files[f"dlnumba/_objects/{level}.json"])
    assert all(f"dlnumba/_objects/{name}" in files for name in manifest["objects"])

    installed = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(installed), str(tree / path)], check=True)
    shutil.rmtree(tree)  # the process below must find nothing of the tree
    done = subprocess.run(
        [sys.executable, "-c", "import dlnumba as xp, dlnumba._shipped as s; "
         "import sys; print(xp.__file__); print(s.shipped().level); "
         "print(int(xp.sum(xp.arange(5)))); print('numba' in sys.modules)"],
        env={**os.environ, "PYTHONPATH": str(installed), "NUMBA_CACHE_DIR": str(tmp_path / "c")},
        cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [str(installed / "dlnumba" / "__init__.py"), level, "10", "False"]
